"""Secrets stay out of every file zett writes, and nothing leaves the machine but model requests.

A real session (startup's redactor, the real provider class against the fake server, the host's
real extension list) whose prompt holds typed passwords reads a file full of credentials through
``read_file`` and ``bash``, runs ``printenv`` with secret-named variables passed into the sandbox,
echoes some in its answer, logs them, is renamed to a title with a password in it, and is
exported. Then every byte zett wrote under the test's config, data, state and cache folders is
searched for each secret: the JSONL transcript, the SQLite history (database and WAL, read raw),
the log, the exports, the tool output kept by ``bash``, the index cache, the title sidecar and
the prompt history.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import credentials
from tests.fakes.host import Collector
from tests.fakes.llm_server import FakeLLMServer, Reply
from zett_tui.core import paths
from zett_tui.entry.startup import prepare_launch
from zett_tui.runtime.events import TextChunk, ToolFinished
from zett_tui.runtime.host import AgentHost, HostOptions
from zett_tui.runtime.modes import PermissionMode
from zett_tui.sessions.export_file import export_to_file
from zett_tui.sessions.index import SessionIndex
from zett_tui.sessions.meta import set_title
from zett_tui.workspace.prompt_log import append_prompt

#: The provider key in use: no built-in rule knows its shape; only "it is the key" removes it.
PROVIDER_KEY = "zx-provider-credential-5521-plain"
#: An endpoint's key, read from the variable its config names.
ENDPOINT_KEY = "endpoint-env-credential-7730"
PEM_BODY = "MIIEpAIBAAKCAQEA7s3cR3tK3yB0dyLiNeS0fBaSe64"

#: (kind, the secret as it appears in the file, the bytes that must never reach a file).
SECRETS: list[tuple[str, str, str]] = [
    ("anthropic key", "sk-ant-api03-q8Zr2LmN4pX7vB1cD9eF3gH5jK6", "sk-ant-api03-q8Zr2LmN4pX7vB1cD9eF3gH5jK6"),
    ("openai key", "sk-proj-T4yU8iO2pA6sD1fG7hJ3kL9zX5cV0bN", "sk-proj-T4yU8iO2pA6sD1fG7hJ3kL9zX5cV0bN"),
    ("aws access key", "aws_access_key_id = AKIAQ7W3E9R2T5Y8U1I4", "AKIAQ7W3E9R2T5Y8U1I4"),
    ("github token", "ghp_R8t2Y6u0I4o8P2a6S0d4F8g2H6j0K4l8Z2x6", "ghp_R8t2Y6u0I4o8P2a6S0d4F8g2H6j0K4l8Z2x6"),
    ("slack token", "xoxb-2048-4096-Nq3Wz8Rk5Tp1", "xoxb-2048-4096-Nq3Wz8Rk5Tp1"),
    ("google api key", "AIzaSyD3f7H1k5M9p2R6t0W4y8B2e6G0j4L8n2Q", "AIzaSyD3f7H1k5M9p2R6t0W4y8B2e6G0j4L8n2Q"),
    (
        "private key",
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nQmFzZTY0Ym9keQ==\n-----END RSA PRIVATE KEY-----",
        PEM_BODY,
    ),
    ("env password", "DB_PASSWORD=Pl4in-Passw0rd-zz91", "Pl4in-Passw0rd-zz91"),
    ("env token", "API_TOKEN='tok_7f3a9c2e1b8d'", "tok_7f3a9c2e1b8d"),
    ("user pattern", "ticket corp-482913 is internal", "corp-482913"),
    ("provider key in use", f"the key is {PROVIDER_KEY}", PROVIDER_KEY),
    ("endpoint key", f"local server key {ENDPOINT_KEY}", ENDPOINT_KEY),
    # Issue 12 point 8: formats that used to survive.
    ("stripe key", "STRIPE=sk_live_51Nq8ZtLmW4pR7vX2cB9dF3gH", "sk_live_51Nq8ZtLmW4pR7vX2cB9dF3gH"),
    ("stripe restricted key", "rk_live_51Nq8ZtLmW4pR7vX2cB9dR5kQ", "rk_live_51Nq8ZtLmW4pR7vX2cB9dR5kQ"),
    ("gitlab token", "glpat-Zy7Xw6Vu5Ts4Rq3Po2Nm", "glpat-Zy7Xw6Vu5Ts4Rq3Po2Nm"),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken=npm_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8",
        "npm_Q1w2E3r4T5y6U7i8",
    ),
    ("hugging face token", "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", "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"),
    (
        "azure account key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=QXp1cmVTdG9yYWdlS2V5MDEyMzQ1Njc4OQ+/==;"
        "EndpointSuffix=core.windows.net",
        "QXp1cmVTdG9yYWdlS2V5MDEyMzQ1Njc4OQ",
    ),
    (
        "jwt",
        "session=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQ0MiIsImFkbWluIjp0cnVlfQ.Rk9xq2Lw8VtN3cYp",
        "eyJzdWIiOiJ1c2VyLTQ0MiIsImFkbWluIjp0cnVlfQ",
    ),
    (
        "slack webhook",
        "https://hooks.slack.com/services/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",
        "Zx9Cv8Bn7Mm6Lk5Jh4Gf3Dd2",
    ),
    ("netrc password", "machine ftp.example.net login deploy password N3trc-Pl41n-pw", "N3trc-Pl41n-pw"),
    ("mysql password", "MYSQL_PWD=my5ql-Pl41n-pw", "my5ql-Pl41n-pw"),
]
#: Issue 25: a fake of each real format (made at run time) under a neutral key in JSON and YAML, in a
#: command line and in prose, in turn; one line each (``read_file`` shows the first 200 lines).
ONE_LINE_PLACES = (
    lambda text: json.dumps({"item": text}),
    lambda text: f"item: {text}",
    lambda text: f"deploy-tool push --with '{text}' --verbose",
    lambda text: f"the value in the log was {text} and we used it",
)
#: A key with no prefix is found only where a value goes (not in prose: README, Redaction).
SECRETS += [
    (
        fmt.name,
        ONE_LINE_PLACES[0 if fmt.family == "unprefixed" else index % len(ONE_LINE_PLACES)](sample.text),
        sample.secret,
    )
    for index, (fmt, sample) in enumerate(credentials.samples(seed=1225))
    if "\n" not in sample.text
]
SECRET_FILE = "\n".join(text for _, text, _ in SECRETS) + "\n"
#: Secret-named variables set for the session and passed into the sandbox: ``printenv`` shows them.
#: No rule knows their values' shape; the names (and zett's own environment) give them away.
SECRET_VARIABLES = {
    "PASS": "printenv-pass Quux7plain Zorb9words",  # known as a whole: no word of it is left
    "MYSQL_PWD": "printenv-mysql-pw",
    "DEPLOY_KEY": "printenv-deploy-k3y",
    "SMTP_PASSWORD_2": "printenv-smtp-pw",
    "VENDOR_SECRET": "printenv-vendor",
}
#: A prompt with passwords typed in: it becomes the session's title in the index.
TYPED_PASSWORD = "Typ3d-hunter2-pw"
TYPED_ASSIGNMENT = "Typ3d-DB-pw-991"
PROMPT = f"password: {TYPED_PASSWORD}\nDB_PASSWORD={TYPED_ASSIGNMENT}\nwhat is in secrets.env and build.log?"
#: A title given with ``/rename`` that holds a secret.
RENAMED_SECRET = "Ren4med-title-pw"
#: An answer that repeats some secrets: shown on screen as is, never written.
ECHO = f"Found {SECRETS[2][2]} and {SECRETS[3][2]} in there."


@pytest.fixture
def launch_env(llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    paths.ensure_private_dir(paths.config_dir())
    passed = ", ".join(f'"{name}"' for name in SECRET_VARIABLES)
    paths.config_file().write_text(
        'redact_patterns = ["corp-[0-9]{6}"]\n\n'
        f"[sandbox]\nenv = [{passed}]\n\n"
        '[endpoints.local]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "LOCAL_LLM_KEY"\n'
    )
    for name, value in SECRET_VARIABLES.items():
        monkeypatch.setenv(name, value)  # the shell tool's commands start from os.environ
    return {
        **os.environ,
        "OPENAI_API_KEY": PROVIDER_KEY,
        "OPENAI_BASE_URL": llm_server.openai_base_url,
        "LOCAL_LLM_KEY": ENDPOINT_KEY,
    }


@pytest.fixture
def log_handlers() -> Iterator[None]:
    """``prepare_launch`` adds a handler to the root logger; take it away again."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in before:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def files_under(*roots: Path) -> Iterator[Path]:
    for root in roots:
        for folder, _dirs, names in os.walk(root):
            for name in names:
                yield Path(folder) / name


def leaks(roots: list[Path]) -> list[str]:
    found = []
    for path in files_under(*roots):
        data = path.read_bytes()
        found += [f"{kind} in {path}" for kind, _, secret in SECRETS if secret.encode() in data]
        parts = [(name, part) for name, value in SECRET_VARIABLES.items() for part in value.split()]
        found += [f"${name} in {path}" for name, part in parts if part.encode() in data]
        typed = (TYPED_PASSWORD, TYPED_ASSIGNMENT, RENAMED_SECRET)
        found += [f"typed {value} in {path}" for value in typed if value.encode() in data]
    return found


async def test_no_secret_reaches_any_file_zett_writes(
    llm_server: FakeLLMServer, launch_env: dict[str, str], project_dir: Path, log_handlers: None
) -> None:
    (project_dir / "secrets.env").write_text(SECRET_FILE)
    filler = "".join(f"line {n} of a long build log\n" for n in range(4000))
    (project_dir / "build.log").write_text(SECRET_FILE + filler + SECRET_FILE)  # bash keeps it whole
    llm_server.script(
        Reply.tool_call("read_file", {"path": "secrets.env"}),
        Reply.tool_call("bash", {"command": "cat build.log"}, call_id="call_fake_2"),
        Reply.tool_call("bash", {"command": "printenv"}, call_id="call_fake_3"),
        Reply.text(ECHO),
        Reply.text("Nothing to add."),
    )
    launch = prepare_launch(cwd=project_dir, env=launch_env, model="openai:gpt-test")
    options = HostOptions(
        model_factory=launch.model_factory,
        model_label=launch.model_label,
        redact=launch.redact,
        permission_mode=PermissionMode.AUTO,
        sandbox=launch.sandbox,
    )
    host = AgentHost(options)
    await host.start()
    sink = Collector()
    finished = await host.run_turn(PROMPT, sink)
    append_prompt(paths.prompt_history_file(), PROMPT, launch.redact)  # what the composer does
    await host.aclose()
    assert finished.status == "completed"

    # On screen nothing is changed.
    assert "".join(event.text for event in sink.of(TextChunk)) == ECHO
    [read, shell, printenv] = sink.of(ToolFinished)
    assert [kind for kind, _, secret in SECRETS if secret not in read.output] == []
    assert all(f"{name}={value}" in printenv.output for name, value in SECRET_VARIABLES.items()), (
        printenv.output
    )
    assert "output truncated; full streams kept at" in shell.output
    [kept] = paths.tool_output_dir().glob("shell-*")
    assert "line 3999 of a long build log" in (kept / "stdout.txt").read_text()

    logging.getLogger("zett_tui.test").warning("a log line with every secret: %s", SECRET_FILE)
    [summary] = SessionIndex().list_sessions()
    assert summary.title == (
        "password: [REDACTED:secret-assignment] DB_PASSWORD=[REDACTED:secret-assignment] what is in"
        " secrets.env and build.log?"
    )
    exports = Path(os.environ["XDG_DATA_HOME"]).parent / "exports"
    exports.mkdir()
    export_to_file(summary, "md", exports / "session.md")
    export_to_file(summary, "json", exports / "session.json")

    # A later process restores the context: the model is not sent the secrets again.
    again = AgentHost(
        HostOptions(model_factory=launch.model_factory, model_label="x", session_id=host.session_id)
    )
    await again.start()
    await again.run_turn("anything else?", Collector())
    await again.aclose()
    restored = json.dumps(llm_server.requests[-1].body)
    assert "[REDACTED:aws-access-key]" in restored
    assert [kind for kind, _, secret in SECRETS if secret in restored] == []
    assert [name for name, value in SECRET_VARIABLES.items() if value in restored] == []

    # A title given later with a secret in it, and the index and export that show it.
    assert set_title(summary.path, f"deploy notes PASSWORD={RENAMED_SECRET}") == (
        "deploy notes PASSWORD=[REDACTED:secret-assignment]"
    )
    [renamed] = SessionIndex().list_sessions()
    export_to_file(renamed, "md", exports / "renamed.md")

    home = Path(os.environ["XDG_DATA_HOME"]).parent
    written = sorted(str(path.relative_to(home)) for path in files_under(home))
    expected_files = (
        "history.sqlite3",
        ".jsonl",
        ".index.json",
        ".meta.json",
        "zett.log",
        "session.md",
        "session.json",
        "renamed.md",
        "stdout.txt",
        paths.prompt_history_file().name,
    )
    for expected in expected_files:
        assert any(name.endswith(expected) for name in written), (expected, written)
    assert leaks([home]) == []


def test_an_export_of_a_session_recorded_before_redaction_is_redacted(project_dir: Path) -> None:
    record = {
        "version": 1,
        "session_id": "old-session",
        "request_id": "r1",
        "parent_session_id": None,
        "started_at": "2025-01-01T10:00:00+00:00",
        "completed_at": "2025-01-01T10:00:05+00:00",
        "status": "completed",
        "metadata": {"zett": {"cwd": str(project_dir), "model": "openai:gpt-test"}},
        "tags": {},
        "messages": [
            {
                "kind": 2,
                "data": {
                    "attributes": {},
                    "persist": True,
                    "include_in_messages": True,
                    "content": f"keep this: {SECRETS[0][1]}",
                },
            },
            {
                "kind": 3,
                "data": {
                    "attributes": {},
                    "persist": True,
                    "include_in_messages": True,
                    "content": SECRET_FILE,
                    "reasoning": None,
                    "tool_calls": [],
                    "provider": None,
                    "model": None,
                    "replay_blocks": [],
                    "stop": None,
                },
            },
        ],
    }
    from zett_agent.extensions.jsonl import JSONLExtension

    target = JSONLExtension(paths.sessions_dir()).session_path("old-session")
    paths.ensure_private_dir(target.parent)
    target.write_text(json.dumps(record) + "\n")
    paths.ensure_private_dir(paths.config_dir())
    paths.config_file().write_text('redact_patterns = ["corp-[0-9]{6}"]\n')
    [summary] = SessionIndex().list_sessions()
    # The index shows and caches the first prompt: redacted although the file is not.
    assert summary.title == "keep this: [REDACTED:anthropic-key]"
    assert SECRETS[0][2].encode() not in (paths.sessions_dir() / ".index.json").read_bytes()
    for fmt in ("md", "json"):
        out = project_dir / f"old.{fmt}"
        turns, _ = export_to_file(summary, fmt, out)
        text = out.read_text()
        assert turns == 1 and "keep this" in text
        missed = [kind for kind, _, secret in SECRETS[:10] if secret in text]
        assert missed == [], fmt


# -- the rules themselves ------------------------------------------------------------------------

REDACTED = [
    ("PASSWORD=hunter22", "PASSWORD=[REDACTED:secret-assignment]"),
    ("SECRET_KEY = 'django-insecure-x9'", "SECRET_KEY = '[REDACTED:secret-assignment]'"),
    ('{"apiKey": "abc123def"}', '{"apiKey": "[REDACTED:secret-assignment]"}'),
    ("clientSecret: s3cr3tval", "clientSecret: [REDACTED:secret-assignment]"),
    ("x-api-key: abcdef0123", "x-api-key: [REDACTED:secret-assignment]"),
    ("postgres://app:s3cret-pw@db:5432/app", "postgres://app:[REDACTED:url-password]@db:5432/app"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig", "Authorization: Bearer [REDACTED:auth-header]"),
    ("key sk-abc12345***wxyz rejected", "key [REDACTED:masked-key] rejected"),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\nhkiG9w0B", "[REDACTED:private-key]"),
]
#: Code and prose that mention secrets without holding one.
LEFT_ALONE = [
    "token: str",
    "api_key: Optional[str] = None",
    "max_tokens: 4096",
    "tokenizer: cl100k_base",
    "token = get_token()",
    'password = os.environ["DB_PASSWORD"]',
    "self.password = password",
    "password: ${DB_PASS}",
    "the basic approach works",
    "http://localhost:8080/path",
]


@pytest.mark.parametrize(("text", "redacted"), REDACTED)
def test_secret_shapes_are_replaced_in_place(text: str, redacted: str) -> None:
    from zett_tui.core.redact import Redactor

    assert Redactor()(text) == redacted


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_code_that_names_a_secret_is_left_alone(text: str) -> None:
    from zett_tui.core.redact import Redactor

    assert Redactor()(text) == text


def test_a_redacted_message_keeps_images_and_drops_signed_blocks_it_would_alter() -> None:
    from zett_agent.messages import AssistantMessage, ImageBytesSource, ImageContent, TextContent, UserMessage

    from zett_tui.core.redact import Redactor
    from zett_tui.runtime.history_store import HistoryStore

    store = HistoryStore(object(), redact=Redactor())
    image = ImageContent(ImageBytesSource(data=b"\x89PNG AKIAQ7W3E9R2T5Y8U1I4", media_type="image/png"))
    user = UserMessage(content=[TextContent(f"see {SECRETS[2][2]}"), image])
    stored = store.redact_message(user)
    assert stored.content[0].text == "see [REDACTED:aws-access-key]" and stored.content[1] == image
    clean = AssistantMessage(content="fine", replay_blocks=({"type": "thinking", "signature": "s1"},))
    assert store.redact_message(clean) is clean
    leaky = AssistantMessage(content="ok", replay_blocks=({"type": "thinking", "thinking": SECRETS[3][2]},))
    assert store.redact_message(leaky).replay_blocks == ()


# -- nothing but model requests leaves the machine -------------------------------------------------

#: Installed with PYTHONPATH in the zett process: every connection but to the fake server is refused
#: and written down, and so is every host name looked up.
SITECUSTOMIZE = textwrap.dedent(
    """
    import atexit, json, os, socket, sys

    _PORT = int(os.environ["ZETT_TEST_ALLOWED_PORT"])
    _LOG = os.environ["ZETT_TEST_NETWORK_LOG"]
    _LOCAL = {"127.0.0.1", "localhost", "::1"}

    def _note(*what):
        with open(_LOG, "a") as log:
            log.write(json.dumps([str(item) for item in what]) + "\\n")

    def _allowed(sock, address):
        if sock.family == getattr(socket, "AF_UNIX", None):
            return True
        local = ("127.0.0.1", "::ffff:127.0.0.1")
        return isinstance(address, tuple) and address[0] in local and address[1] == _PORT

    _connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def connect(self, address):
        if not _allowed(self, address):
            _note("connect", address)
            raise ConnectionRefusedError(111, "refused by the test")
        return _connect(self, address)

    def connect_ex(self, address):
        if not _allowed(self, address):
            _note("connect_ex", address)
            return 111
        return _connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name not in _LOCAL:
            _note("getaddrinfo", name)
            raise socket.gaierror(-2, "Name or service not known (refused by the test)")
        return _getaddrinfo(host, *args, **kwargs)

    socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo

    @atexit.register
    def _modules():
        loaded = sorted({name.split(".")[0] for name in sys.modules} & {"tiktoken", "requests", "urllib3"})
        if loaded:
            _note("imported", *loaded)
        _note("exit")
    """
)


def test_a_whole_session_needs_no_network_but_the_model(
    llm_server: FakeLLMServer, project_dir: Path, tmp_path: Path
) -> None:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE)
    network_log = tmp_path / "network.jsonl"
    (project_dir / "README.md").write_text("A small project.\n")
    llm_server.script(
        Reply.tool_call("read_file", {"path": "README.md"}), Reply.text("It is a small project.")
    )
    root = Path(__file__).resolve().parent.parent
    env = {
        **os.environ,
        "HOME": str(Path(os.environ["XDG_DATA_HOME"]).parent),
        "PYTHONPATH": os.pathsep.join([str(hooks), str(root)]),
        "OPENAI_API_KEY": "sk-test-not-a-real-key-000000000000",
        "OPENAI_BASE_URL": llm_server.openai_base_url,
        "ZETT_TEST_ALLOWED_PORT": str(llm_server.port),
        "ZETT_TEST_NETWORK_LOG": str(network_log),
    }
    done = subprocess.run(
        [sys.executable, "-m", "zett_tui", "--model", "openai:gpt-test", "-p", "what is this project?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, "It is a small project.\n"), done.stderr
    assert len(llm_server.requests) == 2
    noted = [json.loads(line) for line in network_log.read_text().splitlines()]
    assert noted == [["exit"]]  # the hook ran, and nothing else was attempted or imported
