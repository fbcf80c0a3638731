# ruff: noqa: F811
"""The shell sandbox, attacked for real: every command goes through bubblewrap (it runs as root here).

The project, the fake home and zett's folders live under /var/tmp (tests/sandbox_places.py says why).

Where no sandbox can start is simulated twice: by an injected factory that raises, and by a fake
``bwrap`` first on PATH that fails its probe the way bubblewrap does without user namespaces (the
real ``LinuxSandbox.check`` runs it). Namespace restrictions cannot be set up for real here (as
root ``unshare`` is never refused, and a sysctl would change the machine for everyone).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
from zett_agent.sandbox import SandboxedCommand, SandboxUnavailableError

from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.sandbox_places import (  # noqa: F401  (the fixture)
    Place,
    answer_next,
    connect_command,
    headless,
    listener,
    place,
    run_in,
    shell_for,
)
from zett_tui.config.schema import SandboxSettings
from zett_tui.config.settings import load_settings
from zett_tui.core import paths
from zett_tui.core.redact import redactor_from_environment
from zett_tui.runtime.events import DecisionRequested, Notice, ToolFinished
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell import project_sandbox, wrap_ahead
from zett_tui.runtime.shell import sandbox as sandbox_module
from zett_tui.runtime.shell.sandbox import ShellSandbox, Where
from zett_tui.runtime.shell.sandbox_policy import (
    hidden_paths,
    sandbox_environment,
    sandbox_policy,
    tool_caches,
)
from zett_tui.runtime.unattended import ShellAllowList, UnattendedPolicy

PROVIDER_KEY = "sk-ant-api03-" + "Q" * 40


async def wait_until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().split(") ", 1)[1][0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


# -- writes ---------------------------------------------------------------------------------------


async def test_a_write_inside_the_project_works(place: Place) -> None:
    shell = shell_for(place)
    run = await run_in(shell, "echo made > made.txt && mkdir -p sub && echo deep > sub/f && cat made.txt")
    assert run.exit_code == 0 and run.composed == "made\n"
    assert (place.project / "made.txt").read_text() == "made\n"
    assert (place.project / "sub" / "f").read_text() == "deep\n"


WRITES_OUTSIDE = [
    "echo x > {victim}",
    "echo x >> {victim}",
    "printf x | tee {victim}",
    "python3 -c \"open('{victim}', 'w').write('x')\"",
    "rm -f {victim}",
    "$(echo rm) -rf {folder}",
    "X=rm; $X -rf {folder}",
    "echo 'rm -rf {folder}' | sh",
    "env -S 'rm -rf {folder}'",
    "ln -s {folder} link && echo x > link/victim.txt",
    "ln {victim} hard && echo x > hard",
    "echo x > /dev/fd/../../..{victim}",
    "cp /dev/null {victim}",
    "mv {victim} moved",
    "truncate -s 0 {victim}",
    "find {folder} -delete",
    "python3 -c \"import shutil; shutil.rmtree('{folder}')\"",
]


@pytest.mark.parametrize("template", WRITES_OUTSIDE)
@pytest.mark.parametrize("which", ["beside", "home"])
async def test_a_write_outside_the_project_fails_and_the_victim_is_unchanged(
    place: Place, template: str, which: str
) -> None:
    victim = place.victim if which == "beside" else place.home_victim
    shell = shell_for(place)
    paths.tool_output_dir().mkdir(parents=True)  # where zett keeps output: made before the snapshot
    before = sorted(p.name for p in victim.parent.iterdir())
    await run_in(shell, template.format(victim=victim, folder=victim.parent))
    assert victim.read_text() == "original\n"
    assert sorted(p.name for p in victim.parent.iterdir()) == before


async def test_a_refused_write_says_the_sandbox_probably_stopped_it(place: Place) -> None:
    shell = shell_for(place)
    run = await run_in(shell, f"echo x > {place.victim}")
    block = shell.blocked(run, f"echo x > {place.victim}")
    assert run.exit_code != 0 and block is not None and block.kind == "write"
    assert "Read-only file system" in block.reason and "probably" in block.reason


async def test_git_config_and_hooks_stay_unwritable_inside_the_project(place: Place) -> None:
    subprocess.run(["git", "init", "-q", str(place.project)], check=True)
    config = place.project / ".git" / "config"
    before = config.read_text()
    shell = shell_for(place)
    for command in (
        "echo '[core] fsmonitor = touch /var/tmp/pwned' >> .git/config",
        "git config core.fsmonitor 'touch /var/tmp/pwned'",
        "echo 'touch /var/tmp/pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        "rm -rf .git/hooks",
    ):
        run = await run_in(shell, command)
        assert run.exit_code != 0, command
    assert config.read_text() == before
    assert not (place.project / ".git" / "hooks" / "pre-commit").exists()
    assert (place.project / ".git" / "hooks").is_dir()
    ok = await run_in(shell, "echo fine > tracked.txt && git status --short")
    assert ok.exit_code == 0 and "tracked.txt" in ok.composed  # reading the repository works
    write = await run_in(shell, "git add tracked.txt")  # a git write asks (the escape question)
    block = shell.blocked(write, "git add tracked.txt")
    assert write.exit_code != 0 and block is not None and block.kind == "write"


# -- reads ----------------------------------------------------------------------------------------


async def test_credentials_and_zett_folders_are_not_visible(place: Place) -> None:
    ssh = place.home / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n")
    (place.home / ".aws").mkdir()
    (place.home / ".aws" / "credentials").write_text("aws_secret_access_key = topsecret\n")
    (place.home / ".netrc").write_text("machine x login u password topsecret\n")
    for folder in (paths.data_dir(), paths.config_dir(), paths.state_dir()):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "secret.txt").write_text("zett topsecret\n")
    shell = shell_for(place)
    command = (
        f"cat ~/.ssh/id_rsa; ls -a ~/.ssh; cat ~/.aws/credentials ~/.netrc; "
        f"cat {paths.data_dir()}/secret.txt {paths.config_dir()}/secret.txt {paths.state_dir()}/secret.txt; "
        f"ls -a {paths.data_dir()}; grep -rs topsecret {place.home}; echo done"
    )
    run = await run_in(shell, command)
    assert "secret-key-material" not in run.composed and "topsecret" not in run.composed
    assert "done" in run.composed
    failing = await run_in(shell, "cat ~/.ssh/id_rsa")
    block = shell.blocked(failing, "cat ~/.ssh/id_rsa")
    assert block is not None and block.kind == "hidden" and "~/.ssh" in block.reason


# -- network --------------------------------------------------------------------------------------


async def test_the_network_is_off_unless_turned_on(place: Place) -> None:
    server, received = listener()
    port = server.getsockname()[1]
    try:
        off = shell_for(place)
        run = await run_in(off, connect_command(port))
        assert run.exit_code != 0
        curl = await run_in(off, f"curl -sS -m 3 http://127.0.0.1:{port}/")
        assert curl.exit_code != 0
        assert received == []
        block = off.blocked(run, connect_command(port))
        assert block is not None and block.kind == "network"

        on = shell_for(place, network=True)
        allowed = await run_in(on, connect_command(port))
        assert allowed.exit_code == 0, allowed.composed
        await wait_until(lambda: received == [b"hello"])
        once = await run_in(off, connect_command(port), where=Where.NETWORK)
        assert once.exit_code == 0
        await wait_until(lambda: len(received) == 2)
    finally:
        server.close()


# -- environment ----------------------------------------------------------------------------------


async def test_provider_keys_never_reach_a_command(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", PROVIDER_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-" + "Z" * 40)
    monkeypatch.setenv("GROQ_API_KEY", "gsk_" + "Y" * 40)
    monkeypatch.setenv("COPIED_KEY", PROVIDER_KEY)  # the same value under a name the user lists
    monkeypatch.setenv("MY_SETTING", "kept")
    monkeypatch.setenv("VIRTUAL_ENV", "/some/venv")
    shell = shell_for(place, env=("COPIED_KEY", "MY_SETTING", "GROQ_API_KEY"))
    command = "env; cat /proc/self/environ; cat /proc/1/environ; grep -rsa sk- /proc/*/environ; true"
    for where in (Where.SANDBOX, Where.OUTSIDE):
        run = await run_in(shell, command, where=where)
        assert PROVIDER_KEY not in run.composed and "ZZZZZZZZ" not in run.composed
        assert "YYYYYYYY" not in run.composed
        assert "MY_SETTING=kept" in run.composed
    inside = await run_in(shell, "env")
    assert "VIRTUAL_ENV=/some/venv" in inside.composed
    assert "MY_SETTING=kept" in inside.composed


def test_the_environment_is_the_short_list_plus_build_names_plus_the_users() -> None:
    environ = {
        "PATH": "/bin",
        "HOME": "/h",
        "VIRTUAL_ENV": "/v",
        "SECRET_THING": "x",
        "AWS_SECRET_ACCESS_KEY": "y",
        "OPENAI_API_KEY": "sk-1234567890abcdef",
        "MINE": "m",
        "ALSO": "has sk-1234567890abcdef inside",
    }
    env = sandbox_environment(environ, ("MINE", "ALSO", "OPENAI_API_KEY"))
    assert env == {"PATH": "/bin", "HOME": "/h", "VIRTUAL_ENV": "/v", "MINE": "m"}


def test_provider_key_names_are_refused_in_sandbox_env_and_project_files_cannot_loosen_it(
    tmp_path: Path,
) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[sandbox]\nmode = "of"\nenv = ["JAVA_HOME", "OPENAI_API_KEY", "a b"]\n')
    project = tmp_path / "p"
    (project / ".zett").mkdir(parents=True)
    (project / ".zett" / "config.toml").write_text('[sandbox]\nnetwork = true\nmode = "off"\nenv = ["X"]\n')
    settings, problems = load_settings(cwd=project, env={}, user_config=user, project_trusted=True)
    assert settings.sandbox == SandboxSettings(mode="auto", network=False, env=("JAVA_HOME",))
    text = "\n".join(map(str, problems))
    assert "sandbox.mode: expected one of 'auto', 'off', got 'of'" in text
    assert "OPENAI_API_KEY is not passed to shell commands" in text
    assert text.count("not allowed in a project file (it could loosen the sandbox)") == 3


# -- the policy -----------------------------------------------------------------------------------


def test_the_policy_hides_every_credential_store_and_zett_folders(place: Place) -> None:
    hidden = {str(path) for path in hidden_paths()}
    for relative in (
        ".ssh",
        ".aws",
        ".gnupg",
        ".config/gcloud",
        ".azure",
        ".kube",
        ".docker/config.json",
        ".netrc",
        ".git-credentials",
    ):
        assert str(place.home / relative) in hidden, relative
    for folder in (paths.config_dir(), paths.data_dir(), paths.state_dir()):
        assert str(folder) in hidden
    policy = sandbox_policy(place.project, network=False, hidden=hidden_paths())
    assert policy.writable_paths == (place.project,)
    assert policy.network == "none" and policy.protect_defaults


def test_only_existing_package_caches_are_writable(place: Place) -> None:
    (place.home / ".cache" / "pip").mkdir(parents=True)
    (place.home / ".cargo" / "registry").mkdir(parents=True)
    (place.home / ".cargo" / "bin").mkdir(parents=True)
    caches = tool_caches(os.environ)
    assert caches == [place.home / ".cache" / "pip", place.home / ".cargo" / "registry"]
    policy = sandbox_policy(place.project, network=False, hidden=hidden_paths(), caches=caches)
    assert policy.writable_paths == (place.project, *caches)


async def test_package_caches_keep_working_but_not_cargo_bin(place: Place) -> None:
    pip_cache = place.home / ".cache" / "pip"
    pip_cache.mkdir(parents=True)
    (place.home / ".cargo" / "bin").mkdir(parents=True)
    shell = shell_for(place)
    run = await run_in(shell, f"echo cached > {pip_cache}/entry && cat {pip_cache}/entry")
    assert run.exit_code == 0 and (pip_cache / "entry").read_text() == "cached\n"
    bin_run = await run_in(shell, f"echo evil > {place.home}/.cargo/bin/cargo")
    assert bin_run.exit_code != 0 and not (place.home / ".cargo" / "bin" / "cargo").exists()


# -- stopping -------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", [Where.SANDBOX, Where.OUTSIDE])
async def test_a_timeout_kills_the_whole_group(place: Place, where: Where) -> None:
    marker = f"{uuid.uuid4().int % 10**6}.{os.getpid()}"
    shell = shell_for(place)
    command = f"sleep {marker} & echo $! > child.pid; setsid sleep {marker} & wait"
    run = await run_in(shell, command, timeout=1, where=where)
    assert run.timed_out
    with pytest.raises(RuntimeError, match=r"^Command timed out after 1 second\n"):
        run.result(1)
    assert (place.project / "child.pid").read_text().strip().isdigit()
    await wait_until(lambda: not processes_with(f"sleep {marker}"))


@pytest.mark.parametrize("where", [Where.SANDBOX, Where.OUTSIDE])
async def test_cancelling_kills_the_whole_group_and_keeps_nothing(place: Place, where: Where) -> None:
    marker = f"{uuid.uuid4().int % 10**6}.{os.getpid()}"
    shell = shell_for(place)
    command = f"seq 1 200000; sleep {marker} & echo $! > child.pid; wait"
    task = asyncio.create_task(run_in(shell, command, timeout=60, where=where))
    await wait_until(lambda: (place.project / "child.pid").exists() and processes_with(f"sleep {marker}"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_until(lambda: not processes_with(f"sleep {marker}"))
    assert not list(paths.tool_output_dir().glob("shell-*"))
    assert not (place.project / ".zett-tool-output").exists()


@pytest.mark.parametrize("where", [Where.SANDBOX, Where.OUTSIDE])
async def test_a_cancelled_command_runs_none_of_its_next_steps(place: Place, where: Where) -> None:
    """Killing the running child before its shell let the shell go on to the next step (seen
    about once in eight cancels); tried ten times, since the window is short."""
    shell = shell_for(place)
    for attempt in range(10):
        marker = f"{uuid.uuid4().int % 10**6}.{os.getpid()}"
        after = place.project / f"after-{attempt}.txt"
        task = asyncio.create_task(
            run_in(shell, f"sleep {marker}; touch {after.name}", timeout=60, where=where)
        )
        await wait_until(lambda: processes_with(f"sleep {marker}"))  # noqa: B023 (awaited here)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.2)
        assert not after.exists(), f"attempt {attempt}: the step after the cancelled one ran"


async def test_finished_command_leaves_no_background_child(place: Place) -> None:
    marker = f"{uuid.uuid4().int % 10**6}.{os.getpid()}"
    run = await run_in(shell_for(place), f"sleep {marker} > /dev/null 2>&1 & echo started")
    assert run.exit_code == 0 and run.composed == "started\n"
    await wait_until(lambda: not processes_with(f"sleep {marker}"))


# -- output ---------------------------------------------------------------------------------------


async def test_truncated_output_is_kept_redacted_in_the_data_dir_never_in_the_project(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", PROVIDER_KEY)
    outside = place.base / "beside"
    (place.project / ".zett-tool-output").symlink_to(outside)
    shell = ShellSandbox(
        place.project,
        output_dir=paths.tool_output_dir(),
        redact=redactor_from_environment(os.environ),
    )
    shell.start()
    run = await run_in(shell, "echo token=ghp_" + "A" * 36 + "; seq 1 40000; exit 3")
    assert "output truncated" in run.composed and str(paths.tool_output_dir()) in run.composed
    with pytest.raises(RuntimeError, match=r"^Command exited with code 3\n"):
        run.result(30)
    [stdout] = paths.tool_output_dir().glob("shell-*/stdout.txt")
    kept = stdout.read_text()
    assert "40000" in kept and "ghp_AAAA" not in kept
    assert oct(stdout.stat().st_mode & 0o777) == "0o600"
    assert (place.project / ".zett-tool-output").is_symlink()
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]


async def test_short_output_keeps_no_files(place: Place) -> None:
    run = await run_in(shell_for(place), "echo hi; echo err >&2")
    assert run.composed == "hi\n\n[stderr]\nerr\n" and run.result(30) == run.composed
    assert not list(paths.tool_output_dir().glob("shell-*"))


# -- through the host -----------------------------------------------------------------------------


@pytest.fixture
def buildtool(place: Place, monkeypatch: pytest.MonkeyPatch) -> str:
    """A plain command (no word the classifier knows) that writes over the victim beside the project."""
    tools = place.base / "bin"
    tools.mkdir()
    (tools / "buildtool").write_text(f"#!/bin/sh\necho pwned > {place.victim}\n")
    (tools / "buildtool").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    return "buildtool"


async def test_auto_mode_runs_in_the_sandbox_and_a_blocked_write_asks_with_dont_run_first(
    place: Place, buildtool: str
) -> None:
    command = buildtool
    model = ScriptedModel(tool_step("c1", "bash", {"command": command}), text_step("ok"))
    host = await make_host(model, permission_mode=PermissionMode.AUTO)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("go", sink))
    decision = await answer_next(sink, host, "sandbox_escape_requested", {"decision": "stay"})
    await asyncio.wait_for(task, 20)
    await host.aclose()
    assert decision.payload["blocked"] == "write" and not decision.payload["network_offered"]
    assert place.victim.read_text() == "original\n"
    [finished] = sink.of(ToolFinished)
    assert finished.state == "failed"
    lines = finished.output.splitlines()
    assert lines[0].startswith("Command exited with code ")
    assert (
        lines[1].startswith("zett: The sandbox probably stopped this command")
        and "not run outside" in lines[1]
    )
    assert "Read-only file system" in last_tool_result(model.requests[-1])

    from zett_tui.runtime.decisions import parse_request
    from zett_tui.ui.chat.answers import sandbox_escape
    from zett_tui.ui.modals.sandbox_escape import OUTSIDE, STAY

    screen, to_answer = sandbox_escape(parse_request(decision), host, place.project)
    assert screen.root.choices[0].value == STAY and screen.decline_value == STAY
    assert to_answer(None).payload["decision"] == "stay"
    assert [c.value for c in screen.root.choices] == [STAY, OUTSIDE]


async def test_running_outside_the_sandbox_takes_the_users_yes(place: Place, buildtool: str) -> None:
    command = buildtool
    model = ScriptedModel(tool_step("c1", "bash", {"command": command}), text_step("ok"))
    host = await make_host(model, permission_mode=PermissionMode.AUTO)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("go", sink))
    await answer_next(sink, host, "sandbox_escape_requested", {"decision": "outside"})
    await asyncio.wait_for(task, 20)
    await host.aclose()
    assert place.victim.read_text() == "pwned\n"
    [finished] = sink.of(ToolFinished)
    assert finished.state == "done" and "ran again outside the sandbox, once" in finished.output


async def test_network_once_from_the_approval_dialog_and_from_the_escape(place: Place) -> None:
    server, received = listener()
    port = server.getsockname()[1]
    try:
        model = ScriptedModel(
            tool_step("c1", "bash", {"command": connect_command(port)}),
            tool_step("c2", "bash", {"command": connect_command(port)}),
            text_step("ok"),
        )
        host = await make_host(model)
        assert host.shell_sandbox.offers_network_once
        sink = Collector()
        task = asyncio.create_task(host.run_turn("go", sink))
        await answer_next(sink, host, "shell_approval_requested", {"decision": "execute", "network": True})
        await wait_until(lambda: len(received) == 1)
        await answer_next(sink, host, "shell_approval_requested", {"decision": "execute"})
        escape = await answer_next(sink, host, "sandbox_escape_requested", {"decision": "network"})
        await asyncio.wait_for(task, 20)
        await host.aclose()
        assert escape.payload["network_offered"] and escape.payload["blocked"] == "network"
        assert received == [b"hello", b"hello"]
        assert [f.state for f in sink.of(ToolFinished)] == ["done", "done"]
    finally:
        server.close()


async def test_plan_mode_bash_is_sandboxed_too(place: Place, buildtool: str) -> None:
    command = buildtool
    model = ScriptedModel(tool_step("c1", "bash", {"command": command}), text_step("ok"))
    host = await make_host(model)
    host.set_mode(PermissionMode.PLAN)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("go", sink))
    await answer_next(sink, host, "shell_approval_requested", {"decision": "execute"})
    await asyncio.wait_for(task, 20)  # Plan Mode offers no way out of the sandbox: no question
    await host.aclose()
    assert place.victim.read_text() == "original\n"


async def test_the_tool_contract_is_kept(place: Place) -> None:
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": "echo hi"}),
        tool_step("c2", "bash", {"command": "exit 4"}),
        tool_step("c3", "bash", {"command": "echo x", "timeout_seconds": 0}),
        tool_step("c4", "bash", {"command": "echo x", "cwd": "/"}),
        tool_step("c5", "bash", {"command": "sleep 5", "timeout_seconds": 1}),
        text_step("ok"),
    )
    host = await make_host(model, permission_mode=PermissionMode.AUTO)
    sink = Collector()
    await asyncio.wait_for(host.run_turn("go", sink), 30)
    await host.aclose()
    results = sink.of(ToolFinished)
    assert [r.state for r in results] == ["done", "failed", "failed", "failed", "failed"]
    assert results[0].output == "hi\n"
    assert results[1].output.startswith("Command exited with code 4")
    assert "greater than or equal to 1" in results[2].output
    assert "cwd is not a parameter of this tool" in results[3].output  # ToolArgumentErrors wording
    assert results[4].output.startswith("Command timed out after 1 second")
    assert not (place.project / ".zett-tool-output").exists()


# -- no sandbox -----------------------------------------------------------------------------------


def _no_sandbox(policy: object, *where: object, **options: object) -> object:
    raise SandboxUnavailableError("bwrap cannot create a sandbox here: no user namespaces (simulated)")


@pytest.fixture
def fake_bwrap(place: Place, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``bwrap`` first on PATH that fails the probe as bubblewrap does without namespaces."""
    folder = place.base / "fake-bin"
    folder.mkdir()
    program = folder / "bwrap"
    program.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return program


@pytest.mark.parametrize("cause", ["injected", "fake_bwrap", "mode_off"])
async def test_without_a_sandbox_every_command_asks_in_auto_mode(
    place: Place, monkeypatch: pytest.MonkeyPatch, cause: str, request: pytest.FixtureRequest
) -> None:
    settings = SandboxSettings()
    if cause == "injected":
        monkeypatch.setattr(sandbox_module, "create_sandbox", _no_sandbox)
        monkeypatch.setattr(sandbox_module, "project_sandbox", _no_sandbox)
    elif cause == "fake_bwrap":  # the pinned program itself fails the probe
        program = str(request.getfixturevalue("fake_bwrap"))
        monkeypatch.setattr(project_sandbox, "pinned_bwrap", lambda roots: program)
    else:
        settings = SandboxSettings(mode="off")
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo hi > made.txt"}), text_step("ok"))
    host = await make_host(model, permission_mode=PermissionMode.AUTO, sandbox=settings)
    reason = host.shell_sandbox.unavailable_reason
    expected = {"injected": "simulated", "fake_bwrap": "No permissions", "mode_off": 'mode = "off"'}[cause]
    assert reason and expected in reason
    [notice] = host.take_notices()
    assert notice.level == "warning" and "Every shell command asks" in notice.text
    assert "Every shell command asks" in host.shell_sandbox.describe()
    sink = Collector()
    task = asyncio.create_task(host.run_turn("go", sink))
    decision = await answer_next(sink, host, "shell_approval_requested", {"decision": "execute"})
    await asyncio.wait_for(task, 20)
    await host.aclose()
    verdict = host.shell_policy.verdict(host.session_id, "echo hi > made.txt")
    assert not verdict.allowed and "no sandbox" in verdict.reason
    assert decision.payload["command"] == "echo hi > made.txt"
    assert (place.project / "made.txt").read_text() == "hi\n"  # ran, outside a sandbox, once allowed
    assert not sink.of(Notice) or all("Ran without asking" not in n.text for n in sink.of(Notice))


async def test_without_a_sandbox_the_dangerous_word_check_still_comes_first(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "create_sandbox", _no_sandbox)
    monkeypatch.setattr(sandbox_module, "project_sandbox", _no_sandbox)
    host = await make_host(ScriptedModel(text_step("ok")), permission_mode=PermissionMode.AUTO)
    verdict = host.shell_policy.verdict(host.session_id, "rm -rf build")
    await host.aclose()
    assert verdict.dangerous


async def test_inside_the_sandbox_dangerous_commands_still_ask_in_auto_mode(place: Place) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "rm -rf build"}), text_step("ok"))
    host = await make_host(model, permission_mode=PermissionMode.AUTO)
    assert host.shell_sandbox.available
    sink = Collector()
    task = asyncio.create_task(host.run_turn("go", sink))
    await answer_next(sink, host, "shell_approval_requested", {"decision": "abort"})
    await asyncio.wait_for(task, 20)
    await host.aclose()


async def test_print_mode_with_allow_shell_refuses_without_a_sandbox(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "create_sandbox", _no_sandbox)
    monkeypatch.setattr(sandbox_module, "project_sandbox", _no_sandbox)
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch made.txt"}), text_step("ok"))
    _code, out, err = await headless(model, allow_shell=("touch",))
    assert not (place.project / "made.txt").exists()
    assert "no sandbox" in out + err and "simulated" in out + err


async def test_print_mode_never_leaves_the_sandbox(place: Place, buildtool: str) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "buildtool"}), text_step("ok"))
    _code, out, err = await headless(model, allow_shell=("buildtool",))
    assert place.victim.read_text() == "original\n"
    assert "never in a non-interactive run" in out + err
    result = last_tool_result(model.requests[-1])
    assert "zett -p never runs a command outside the sandbox" in result


def test_unattended_policy_refuses_the_escape() -> None:
    policy = UnattendedPolicy(allow_edits=True, shell=ShellAllowList(["echo"]), project_root=Path.cwd())
    decision = DecisionRequested(
        "sandbox_escape_requested", "s", {"tool_call_id": "c1", "command": "echo x > /etc/y"}
    )
    answer = policy.answer(decision)
    assert not answer.allowed and answer.payload["decision"] == "stay"


# -- the next command's wrap, prepared ahead ------------------------------------------------------


@pytest.fixture
def ahead(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Prepared wraps are kept even right after a change (no racy window), so only the stamps
    protect; returns the commands that ran on a prepared vector."""
    monkeypatch.setattr(wrap_ahead, "RACY_SECONDS", 0.0)
    used: list[str] = []
    original = wrap_ahead.PreparedWrap.command

    def spy(self: wrap_ahead.PreparedWrap, command: str) -> SandboxedCommand:
        used.append(command)
        return original(self, command)

    monkeypatch.setattr(wrap_ahead.PreparedWrap, "command", spy)
    return used


async def prepared(shell: ShellSandbox) -> None:
    """Wait for the preparation the last command started (state, not time)."""
    assert shell._ahead is not None
    assert await shell._ahead is not None


async def test_a_prepared_wrap_is_used_when_nothing_changed(place: Place, ahead: list[str]) -> None:
    shell = shell_for(place)
    await run_in(shell, "true")
    await prepared(shell)
    run = await run_in(shell, "echo prepared")
    assert run.composed.strip() == "prepared" and ahead == ["echo prepared"]


async def test_a_git_folder_made_between_commands_is_protected_in_the_next(
    place: Place, ahead: list[str]
) -> None:
    (place.project / "sub").mkdir()
    shell = shell_for(place)
    await run_in(shell, "true")
    await prepared(shell)
    (place.project / "sub" / ".git" / "hooks").mkdir(parents=True)  # by a file tool, or the user
    hook = place.project / "sub" / ".git" / "hooks" / "pre-commit"
    run = await run_in(shell, f"echo 'touch {place.victim}' > sub/.git/hooks/pre-commit")
    assert run.exit_code != 0 and not hook.exists()
    assert ahead == []


async def test_a_git_folder_made_by_a_command_is_protected_in_the_next(
    place: Place, ahead: list[str]
) -> None:
    shell = shell_for(place)
    await run_in(shell, "true")
    await prepared(shell)
    made = await run_in(shell, "mkdir -p deep/er/.git/hooks")
    assert made.exit_code == 0
    await prepared(shell)
    run = await run_in(shell, "echo evil > deep/er/.git/hooks/pre-commit")
    assert run.exit_code != 0 and not (place.project / "deep/er/.git/hooks/pre-commit").exists()


async def test_another_tool_running_drops_the_prepared_wrap(place: Place, ahead: list[str]) -> None:
    shell = shell_for(place)
    await run_in(shell, "true")
    await prepared(shell)
    shell.invalidate_prepared()
    assert (await run_in(shell, "true")).exit_code == 0
    assert ahead == []


async def test_a_network_once_grant_is_never_reused(place: Place, ahead: list[str]) -> None:
    server, received = listener()
    port = server.getsockname()[1]
    try:
        shell = shell_for(place)
        await run_in(shell, "true")
        await prepared(shell)
        once = await run_in(shell, connect_command(port), where=Where.NETWORK)
        assert once.exit_code == 0, once.composed
        await wait_until(lambda: received == [b"hello"])
        await prepared(shell)
        after = await run_in(shell, connect_command(port))
        assert after.exit_code != 0 and not after.network
        assert ahead == [connect_command(port)]  # the prepared vector, made with the network off
        assert received == [b"hello"]
    finally:
        server.close()


async def test_a_changed_directory_or_environment_wraps_afresh(
    place: Place, ahead: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (place.project / "sub").mkdir()
    shell = shell_for(place)
    await run_in(shell, "true")
    await prepared(shell)
    monkeypatch.chdir(place.project / "sub")
    assert (await run_in(shell, "pwd")).composed.strip() == str(place.project / "sub")
    await prepared(shell)
    monkeypatch.setenv("VIRTUAL_ENV", "/changed/venv")
    assert (await run_in(shell, "echo $VIRTUAL_ENV")).composed.strip() == "/changed/venv"
    assert ahead == []


async def test_a_prepared_wrap_is_kept_while_nothing_changes(place: Place, ahead: list[str]) -> None:
    shell = shell_for(place)
    await run_in(shell, "true")
    for command in ("echo one", "echo two", "cat /dev/null"):
        await prepared(shell)
        assert (await run_in(shell, command)).exit_code == 0
    assert ahead == ["echo one", "echo two", "cat /dev/null"]
    first = shell._prepared
    await prepared(shell)
    assert shell._ahead is not None and await shell._ahead is first  # checked, not wrapped again


async def test_a_large_project_is_checked_off_the_event_loop(
    place: Place, ahead: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "MANY_STAMPS", 0)
    checked_in: list[str] = []
    original = wrap_ahead.PreparedWrap.unchanged

    def spy(self: wrap_ahead.PreparedWrap) -> bool:
        checked_in.append(threading.current_thread().name)
        return original(self)

    monkeypatch.setattr(wrap_ahead.PreparedWrap, "unchanged", spy)
    shell = shell_for(place)
    await run_in(shell, "true")
    await prepared(shell)
    checked_in.clear()
    assert (await run_in(shell, "echo big")).exit_code == 0
    assert ahead == ["echo big"] and checked_in and threading.main_thread().name not in checked_in[:1]
