# ruff: noqa: F811
"""More attacks on what runs *later*: names planted below the project's root, by links, by a
process that outlives its command; trust that must cover the bytes it was given for; the
placeholder a crash leaves. Each plants through the real sandbox, then runs what would run later.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from tests.sandbox_places import Place, place, run_in, shell_for  # noqa: F401  (the fixture)
from tests.test_later_attacks import evil_git_dir, git, marker

# -- names that run later, below the root -------------------------------------------------------------

NESTED_PLANTS = {
    "src/.envrc": "mkdir -p src && echo 'touch {marker}' > src/.envrc",
    "a/b/c/d/.git": "mkdir -p a/b/c/d && cd a/b/c/d && {evil}",
    "build/.git": "mkdir -p build && cd build && {evil}",
    "old/sub/.vscode": "mkdir -p old/sub/.vscode && echo '{{}}' > old/sub/.vscode/tasks.json",
    "pkg/.HG": "mkdir -p pkg/.HG",
    "pkg/.hg": "mkdir -p pkg/.hg && printf '[hooks]\\npre-status = touch {marker}\\n' > pkg/.hg/hgrc",
    "x/.mcp.json": "mkdir -p x && echo '{{}}' > x/.mcp.json",
    "x/.nvim.lua": "mkdir -p x && echo 'os.execute(\"touch {marker}\")' > x/.nvim.lua",
}


@pytest.mark.parametrize("name", sorted(NESTED_PLANTS))
async def test_a_name_that_runs_later_cannot_be_created_in_a_subfolder(place: Place, name: str) -> None:
    for folder in ("old/sub", "a/b/c/d"):  # folders that existed before the command
        (place.project / folder).mkdir(parents=True, exist_ok=True)
    shell = shell_for(place)
    await run_in(shell, "true")  # a first command: the folders are known
    command = NESTED_PLANTS[name].format(marker=marker(place), evil=evil_git_dir(place, ".git"))
    run = await run_in(shell, command)
    assert not (place.project / name).exists(), run
    block = shell.blocked(run, command)
    assert block is not None and block.kind == "later" and name in block.reason
    if name.endswith(".git"):
        git(place.project / Path(name).parent, "status")
        assert not marker(place).exists()


async def test_a_later_name_added_into_an_existing_nested_one_is_moved_out(place: Place) -> None:
    deep = place.project / "a" / "b" / "c" / "d" / ".vscode"
    deep.mkdir(parents=True)
    (deep / "settings.json").write_text("{}")
    await asyncio.sleep(0.1)  # the user made it before: not within the clock's slack of a command
    shell = shell_for(place)
    await run_in(shell, "true")
    run = await run_in(shell, "echo '{}' > a/b/c/d/.vscode/tasks.json")
    assert not (deep / "tasks.json").exists()
    assert [name for name, _ in run.refused] == ["a/b/c/d/.vscode"]


async def test_ordinary_files_in_subfolders_stay(place: Place) -> None:
    shell = shell_for(place)
    await run_in(shell, "true")
    run = await run_in(shell, "mkdir -p a/b/c/d && echo x > a/b/c/d/conftest.py && echo y > a/Makefile")
    assert not run.refused and (place.project / "a/b/c/d/conftest.py").exists()


# -- the .git placeholder after a crash ---------------------------------------------------------------

CRASHING_SESSION = """
import asyncio, os, signal, sys
from pathlib import Path
from zett_tui.runtime.shell.sandbox import ShellSandbox
shell = ShellSandbox(Path(sys.argv[1]), output_dir=Path(sys.argv[2]))
shell.start()
run = asyncio.run(shell.run("true", 30))
assert os.path.isdir(os.path.join(sys.argv[1], ".git")), run
os.kill(os.getpid(), signal.SIGKILL)
"""


def crash_a_session(place: Place) -> None:
    import sys

    done = subprocess.run(
        [sys.executable, "-c", CRASHING_SESSION, str(place.project), str(place.base / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == -9, done.stderr
    assert (place.project / ".git").is_dir()


def test_the_placeholder_a_crashed_session_left_goes_at_the_next_start(place: Place) -> None:
    crash_a_session(place)
    shell = shell_for(place)
    assert not (place.project / ".git").exists()
    shell.close()


async def test_a_live_session_s_placeholder_stays_while_another_starts_and_ends(place: Place) -> None:
    first = shell_for(place)
    await run_in(first, "true")
    assert (place.project / ".git").is_dir()
    second = shell_for(place)
    assert (place.project / ".git").is_dir()  # the first one's commands stand on it
    second.close()
    assert (place.project / ".git").is_dir()
    run = await run_in(first, "mkdir .git/hooks")
    assert run.exit_code != 0
    first.close()
    assert not (place.project / ".git").exists()


def test_a_real_git_is_never_taken_for_a_placeholder(place: Place) -> None:
    crash_a_session(place)
    subprocess.run(["git", "init", "-q", str(place.project)], check=True)
    shell_for(place).close()
    assert (place.project / ".git" / "HEAD").is_file()


# -- a trusted project's MCP server runs the bytes that were trusted ----------------------------------


@pytest.mark.parametrize(
    "entry, script",
    [
        ('{"command": "./srv.sh", "cwd": "tools"}', "tools/srv.sh"),
        ('{"command": "sh", "args": ["./srv.sh"], "cwd": "tools"}', "tools/srv.sh"),
        ('{"command": "./srv.sh"}', "srv.sh"),
    ],
)
async def test_a_server_script_named_from_its_cwd_changed_by_a_command_asks_again(
    place: Place, entry: str, script: str
) -> None:
    from zett_tui.config import trust

    (place.project / "tools").mkdir()
    (place.project / script).write_text("#!/bin/sh\necho serve\n")
    (place.project / script).chmod(0o755)
    (place.project / ".mcp.json").write_text('{"mcpServers": {"docs": ' + entry + "}}")
    files = trust.project_files(place.project)
    assert files is not None and script in files.files
    trust.remember(files, trusted=True)
    shell = shell_for(place)
    run = await run_in(shell, f"echo 'touch {marker(place)}' >> {script}")
    assert run.exit_code == 0
    assert not trust.still_trusted(place.project)


def test_a_project_server_starts_in_the_project_folder_wherever_zett_was_started(place: Place) -> None:
    from zett_tui.config.mcp_servers import read_mcp_json

    (place.project / ".mcp.json").write_text('{"mcpServers": {"docs": {"command": "./srv.sh"}}}')
    [server], _ = read_mcp_json((place.project / ".mcp.json").read_text(), place.project / ".mcp.json")
    assert server.runs_in == place.project


# -- the user's own extension and MCP server, from a file in the project -------------------------------

HELLO = "from zett_agent.extensions import AgentExtension\n\n\nclass Hello(AgentExtension):\n    pass\n"


def user_extension_in_the_project(place: Place) -> Path:
    from zett_tui.core import paths

    source = place.project / "tools" / "hello_ext.py"
    source.parent.mkdir()
    source.write_text(HELLO)
    extensions = paths.config_dir() / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "hello_ext.py").symlink_to(source)  # kept in a repository, linked into the config
    (paths.config_dir() / "config.toml").write_text('[extensions.hello]\nfile = "hello_ext.py"\n')
    return source


def load_user_extensions(place: Place) -> tuple[list[str], list[str]]:
    from zett_tui.entry.startup import prepare_launch
    from zett_tui.runtime.extensions.registry import load_extensions

    launch = prepare_launch(cwd=place.project, env={})
    report = load_extensions(launch.extensions, report=lambda _text: None)
    return [loaded.name for loaded in report.loaded], [str(problem) for problem in report.problems]


async def test_a_user_extension_in_the_project_rewritten_by_a_command_does_not_load(place: Place) -> None:
    from zett_tui.config import pinned_files

    source = user_extension_in_the_project(place)
    shell_for(place)  # the project is where commands write
    assert load_user_extensions(place)[0] == []  # never allowed: not loaded...
    pinned_files.allow([source])
    assert load_user_extensions(place) == (["hello"], [])  # ...until the user allows these bytes
    run = await run_in(shell_for(place), f"echo 'open({str(marker(place))!r}, \"w\")' >> tools/hello_ext.py")
    assert run.exit_code == 0
    loaded, problems = load_user_extensions(place)
    assert loaded == [] and "changed since you allowed it" in problems[0]
    assert not marker(place).exists()


def test_an_allowed_user_extension_runs_the_bytes_that_were_checked(place: Place) -> None:
    """Its ``__pycache__`` (which a command can plant) is never what runs."""
    import sys

    from tests.test_later_attacks import planted_bytecode
    from zett_tui.config import pinned_files

    source = user_extension_in_the_project(place)
    pinned_files.allow([source])
    cache = source.parent / "__pycache__"
    cache.mkdir()
    (cache / f"hello_ext.{sys.implementation.cache_tag}.pyc").write_bytes(
        planted_bytecode(source, marker(place))
    )
    assert load_user_extensions(place) == (["hello"], [])
    assert not marker(place).exists()


async def test_a_user_mcp_server_script_in_the_project_runs_only_as_allowed(place: Place) -> None:
    import sys
    import time

    from zett_tui.config import pinned_files
    from zett_tui.config.mcp_servers import McpServerConfig
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.runtime.mcp.server_connection import ServerState

    root = Path(__file__).resolve().parent.parent
    script = place.project / "tools" / "docs_server.py"
    script.parent.mkdir()
    script.write_text("import runpy\nrunpy.run_module('tests.fakes.mcp_server', run_name='__main__')\n")
    shell = shell_for(place)
    server = McpServerConfig(
        "docs",
        command=sys.executable,
        args=("tools/docs_server.py",),
        env={"PYTHONPATH": str(root)},
        cwd=place.project,
    )
    pinned_files.allow([script])
    await run_in(shell, f"echo 'open({str(marker(place))!r}, \"w\")' >> tools/docs_server.py")
    manager = McpManager([server], environ={})
    manager.start()
    try:
        deadline = time.monotonic() + 30
        # one snapshot: a retry a second later is STARTING again with the same reason
        while not (
            (status := manager.statuses()[0]).state is ServerState.FAILED
            and "/extensions allow" in status.reason
        ):
            assert time.monotonic() < deadline, manager.statuses()
            time.sleep(0.05)
        assert not marker(place).exists()
    finally:
        manager.stop()


# -- variants: links, a process that outlives its command, a nested repository's hooksPath ------------


async def test_a_link_named_as_a_later_name_is_moved_out(place: Place) -> None:
    (place.project / "sub").mkdir()
    (place.project / "evil.sh").write_text(f"touch {marker(place)}\n")
    shell = shell_for(place)
    await run_in(shell, "true")
    run = await run_in(shell, "ln -s ../evil.sh sub/.envrc && ln evil.sh .exrc")
    assert sorted(name for name, _ in run.refused) == [".exrc", "sub/.envrc"]
    assert not os.path.lexists(place.project / "sub" / ".envrc") and not (place.project / ".exrc").exists()


async def test_a_process_that_outlives_its_command_cannot_plant_afterwards(place: Place) -> None:

    shell = shell_for(place)
    plant = f"sleep 1; mkdir -p late; {evil_git_dir(place, 'late/.git')}; touch late/done"
    run = await run_in(shell, f"(setsid nohup sh -c '{plant}' >/dev/null 2>&1 &) ; echo started")
    assert "started" in run.composed
    await asyncio.sleep(3)
    assert not (place.project / "late").exists()  # it died with the sandbox (its own pid namespace)
    assert not marker(place).exists()


@pytest.mark.parametrize("depth", ["vendor/lib", "a/b/c/lib"])
async def test_a_nested_repository_s_hooks_path_cannot_be_set(place: Place, depth: str) -> None:
    nested = place.project / depth
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    (place.base / "beside" / "hooks").mkdir()
    await asyncio.sleep(0.1)
    shell = shell_for(place)
    await run_in(shell, "true")
    hooks = f"{depth}/myhooks"
    command = (
        f"mkdir -p {hooks} && printf '#!/bin/sh\\ntouch {marker(place)}\\n' > {hooks}/post-checkout && "
        f"chmod +x {hooks}/post-checkout && git -C {depth} config core.hooksPath myhooks && "
        f"printf '[core]\\n\\thooksPath = myhooks\\n' >> {depth}/.git/config"
    )
    run = await run_in(shell, command)
    config = (nested / ".git" / "config") if (nested / ".git").exists() else None
    assert config is None or "hooksPath" not in config.read_text(), run
    git(nested, "checkout", "-q", "-b", "x")
    git(nested, "status")
    assert not marker(place).exists()


async def test_python_m_zett_tui_imports_nothing_from_the_project(place: Place) -> None:
    """``python -m`` puts the current folder first on ``sys.path``: a module a command planted there
    (``argparse.py``) would run at zett's next start, outside the sandbox."""
    import sys

    shell = shell_for(place)
    plant = f"open({str(marker(place))!r}, 'w').close()"
    run = await run_in(shell, f'echo "{plant}" > argparse.py && echo "{plant}" > rich.py')
    assert run.exit_code == 0
    done = subprocess.run(
        [sys.executable, "-m", "zett_tui", "--help"], cwd=place.project, capture_output=True, text=True
    )
    assert "usage: zett" in done.stdout, done.stderr
    assert not marker(place).exists()


@pytest.mark.parametrize(
    "move",
    [
        "mv node_modules/pkg sub/pkg",
        "mv node_modules/pkg/.envrc sub/.envrc",
        "mv node_modules/pkg/.git sub/.git",
    ],
)
async def test_a_later_name_hidden_in_an_unwatched_folder_is_caught_when_moved_into_place(
    place: Place, move: str
) -> None:
    """A command makes it where the watch does not look (``node_modules``); a later one moves it
    (a rename keeps the times inside a folder, but not the moved entry's own)."""
    (place.project / "sub").mkdir()
    shell = shell_for(place)
    await run_in(shell, "true")
    first = await run_in(
        shell,
        f"mkdir -p node_modules/pkg && echo 'touch {marker(place)}' > node_modules/pkg/.envrc && "
        f"cd node_modules/pkg && {evil_git_dir(place, '.git')}",
    )
    assert not first.refused  # not where anyone starts git or direnv
    run = await run_in(shell, move)
    assert run.refused, run
    assert (
        not (place.project / "sub" / "pkg" / ".envrc").exists()
        and not (place.project / "sub" / ".envrc").exists()
    )
    assert not (place.project / "sub" / ".git").exists()
    git(place.project / "sub", "status")
    assert not marker(place).exists()


@pytest.mark.parametrize(
    "command", ["echo x > sub/.envrc", "cp evil.json a/b/.mcp.json", "tee .vscode/tasks.json"]
)
def test_a_command_that_visibly_writes_a_name_that_runs_later_asks_in_every_mode(
    place: Place, command: str
) -> None:
    from zett_tui.runtime.shell.danger import dangerous_reason

    reason = dangerous_reason(command, place.project)
    assert reason is not None and "runs or loads later" in reason


async def test_a_link_to_a_repository_planted_where_the_watch_does_not_look_is_moved_out(
    place: Place,
) -> None:
    """``cd sub`` follows the link, and git looks for ``.git`` from the real folder: in ``node_modules``."""
    shell = shell_for(place)
    await run_in(shell, "true")
    command = f"mkdir -p node_modules/pkg && cd node_modules/pkg && {evil_git_dir(place, '.git')} && cd ../.. && ln -s node_modules/pkg sub"
    run = await run_in(shell, command)
    assert [name for name, _ in run.refused] == ["sub"], run
    assert not os.path.lexists(place.project / "sub")
