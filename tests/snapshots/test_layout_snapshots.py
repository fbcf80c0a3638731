"""SVG snapshots of the layouts that matter, built through the real app with everything that varies pinned.

Pinned here: the terminal size, the theme (no terminal background query), the session id, the
project folder (one fixed path, used by one test at a time across processes), the clock of tool
rows and of the session browser, recorded session times, cursor blinking and animations, the
version string, the time zone and the colour environment. Every scripted turn has finished (or
stopped at its dialog) before the screenshot.

After a deliberate change to a layout: ``pytest tests/snapshots --snapshot-update``, then look at
the changed SVGs (``snapshot_report.html`` shows old and new side by side) before committing them.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Markdown, TextArea
from zett_agent.messages import AssistantMessage, ToolCall
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse, ToolCallDelta

import zett_tui
from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, Step, failing_step, text_step, tool_step, usage
from tests.test_dialogs import open_dialog
from tests.ui_helpers import answers, idle, make_app, submit, wait_for, wait_ready
from zett_tui.runtime import host as host_module
from zett_tui.ui.app import ZettApp
from zett_tui.ui.browser.screen import SessionBrowser
from zett_tui.ui.chat import presenter as turn_presenter
from zett_tui.ui.modals.ask_user import AskUserDialog
from zett_tui.ui.modals.choice_dialog import ChoiceDialog
from zett_tui.ui.modals.plan_dialogs import PlanReviewDialog
from zett_tui.ui.widgets import session_list

fcntl = pytest.importorskip("fcntl", reason="the pinned project folder is locked with flock (POSIX)")

SIZE = (100, 30)
NARROW = (40, 20)
LOW = (80, 10)
#: Shown in dialogs ("in /tmp/zett-snapshot-project") and in the session browser: a path that is the
#: same on every run, unlike pytest's tmp_path.
PROJECT = Path("/tmp/zett-snapshot-project")
PROJECT_LOCK = Path("/tmp/zett-snapshot-project.lock")
SESSION_ID = "01957a3c-0000-7000-8000-00000000c0de"
#: "Now" for the session browser's relative times.
NOW = datetime(2025, 3, 14, 15, 0, tzinfo=UTC)

Snap = Callable[..., bool]


# -- what varies, pinned ----------------------------------------------------------------------


class StoppedClock:
    """Stands in for the ``time`` module of the turn presenter: every tool row took 0.0s."""

    @staticmethod
    def monotonic() -> float:
        return 1000.0


class FrozenDatetime(datetime):
    """``datetime`` for the session list, whose relative times ("12 min ago") count from ``NOW``."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> FrozenDatetime:
        return cls.fromtimestamp(NOW.timestamp(), tz)


@contextmanager
def pinned_project() -> Iterator[Path]:
    """``PROJECT``, emptied, for this test alone: other runs of this module wait for the lock."""
    with PROJECT_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(PROJECT, ignore_errors=True)
        PROJECT.mkdir()
        try:
            yield PROJECT
        finally:
            shutil.rmtree(PROJECT, ignore_errors=True)


@pytest.fixture(autouse=True)
def pinned(isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Time zone, colour environment, version, clocks and the project folder, as the snapshots expect."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("COLORFGBG", raising=False)
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("HOME", str(isolated_dirs))
    monkeypatch.setattr(zett_tui, "__version__", "0.0.0+snapshot")
    monkeypatch.setattr(host_module, "__version__", "0.0.0+snapshot")
    monkeypatch.setattr(turn_presenter, "time", StoppedClock)
    monkeypatch.setattr(session_list, "datetime", FrozenDatetime)
    previous = Path.cwd()
    with pinned_project() as project:
        os.chdir(project)
        try:
            yield project
        finally:
            os.chdir(previous)


def launch(model: ScriptedModel, **settings: Any) -> ZettApp:
    """The real app around ``model``: fixed session id, zett-dark, no animations, in ``PROJECT``."""
    settings.setdefault("theme", "zett-dark")
    app = make_app(model, session_id=SESSION_ID, animations=False, cwd=PROJECT, **settings)
    close_the_agent_on_exit(app)
    return app


def close_the_agent_on_exit(app: ZettApp) -> None:
    """The screenshot ends the app with ``App.exit``; stop the turn and close the agent first, as
    quitting does, so that no database thread outlives the event loop."""
    exit_now = app.exit

    def exit_after_shutdown(result: Any = None, return_code: int = 0, message: Any = None) -> None:
        async def shut_down_then_exit() -> None:
            await app.chat.shutdown()
            exit_now(result, return_code, message)

        app.run_worker(shut_down_then_exit(), group="snapshot-exit")

    app.exit = exit_after_shutdown  # type: ignore[method-assign]


def hold_still(app: ZettApp) -> None:
    """No blinking cursor on the screen shown (an ``Input`` blinks even with animations off) and no
    toast (each one leaves after a few seconds)."""
    for field in app.screen.query(Input):
        field.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False
    app.clear_notifications()


# -- the chat after a turn --------------------------------------------------------------------

PROMPT = "How is the configuration loaded?"
REASONING = "The user asks about config.\nRead the loader first.\nThe project file may be missing."
ANSWER = """## How settings are read

The loader merges **two** files, the later one winning:

- `config.toml` in the config folder
- `.zett/config.toml` in the project (once trusted)

| Setting | Default | Where |
|---------|---------|-------|
| theme   | auto    | `[ui]` |
| bell    | on      | `[ui]` |

```python
def load(path: Path) -> Config:
    return Config.parse(path.read_text())
```
"""


def reasoning_then_tools(reasoning: str, calls: list[tuple[str, str, dict[str, Any]]]) -> Step:
    """Think aloud, then ask for several tool calls in one response."""

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        yield ModelEvent.reasoning(reasoning)
        for index, (call_id, name, arguments) in enumerate(calls):
            delta = ToolCallDelta(
                index=index, id_delta=call_id, name_delta=name, arguments_delta=json.dumps(arguments)
            )
            yield ModelEvent.tool_call(delta)
        message = AssistantMessage(
            content="",
            tool_calls=tuple(ToolCall(id=cid, name=name, arguments=args) for cid, name, args in calls),
        )
        yield ModelEvent.completed(ModelResponse(message, finish_reason="tool_calls", usage=usage(20, 7)))

    return step


def answered_chat(**settings: Any) -> ZettApp:
    (PROJECT / "config.toml").write_text('[ui]\ntheme = "auto"\n')
    model = ScriptedModel(
        reasoning_then_tools(
            REASONING,
            [("r1", "read_file", {"path": "config.toml"}), ("r2", "read_file", {"path": "missing.toml"})],
        ),
        text_step(ANSWER, chunk=16),
    )
    return launch(model, **settings)


async def ask_and_wait_for_the_answer(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, ZettApp)
    await wait_ready(pilot)
    await submit(pilot, PROMPT)
    await wait_for(pilot, lambda: any(answer.status == "completed" for answer in answers(app)))
    await wait_for(pilot, lambda: idle(app) and app.chat.turns.settled)
    hold_still(app)


def test_chat_after_a_streamed_answer(snap_compare: Snap) -> None:
    assert snap_compare(answered_chat(), terminal_size=SIZE, run_before=ask_and_wait_for_the_answer)


def test_chat_in_the_light_theme(snap_compare: Snap) -> None:
    app = answered_chat(theme="zett-light")
    assert snap_compare(app, terminal_size=SIZE, run_before=ask_and_wait_for_the_answer)


def test_chat_in_a_narrow_terminal(snap_compare: Snap) -> None:
    assert snap_compare(answered_chat(), terminal_size=NARROW, run_before=ask_and_wait_for_the_answer)


async def find_in_the_answer(pilot: Pilot[Any]) -> None:
    """After the answer: Ctrl+F, "config" typed, the second match current."""
    await ask_and_wait_for_the_answer(pilot)
    await pilot.press("ctrl+f", *"config", "enter")
    transcript = pilot.app.chat.transcript
    await wait_for(pilot, lambda: not transcript.update_pending)
    await pilot.pause()
    hold_still(pilot.app)


def test_find_bar_with_matches_highlighted(snap_compare: Snap) -> None:
    assert snap_compare(answered_chat(), terminal_size=SIZE, run_before=find_in_the_answer)


def test_find_bar_in_the_light_theme(snap_compare: Snap) -> None:
    app = answered_chat(theme="zett-light")
    assert snap_compare(app, terminal_size=SIZE, run_before=find_in_the_answer)


# -- dialogs ------------------------------------------------------------------------------------


async def layout_settled(pilot: Pilot[Any], dialog: ChoiceDialog, rounds: int = 5) -> None:
    """Wait until the dialog's body size, scroll range and "more lines" line stay the same for
    ``rounds`` pauses in a row: the dialog fits its body and recounts the lines below in several
    refreshes, and a snapshot taken between two of them pins a count that depends on timing."""

    def state() -> tuple[object, ...]:
        parts: list[object] = [dialog.size]
        for body in dialog.query("#body"):
            parts += [body.size, body.max_scroll_y, body.virtual_size]
        for line in dialog.query("#more"):
            parts.append(str(line.render()))
        return tuple(parts)

    last, same = state(), 0
    deadline = time.monotonic() + 30
    while same < rounds:
        assert time.monotonic() < deadline, "the dialog's layout did not settle"
        await pilot.pause(0.05)
        now = state()
        same = same + 1 if now == last else 0
        last = now


def until_dialog(prompt: str, kind: type = ChoiceDialog) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Send ``prompt`` and stop once the dialog of ``kind`` it leads to is laid out."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, ZettApp)
        await wait_ready(pilot)
        await submit(pilot, prompt)
        dialog = await open_dialog(pilot, kind)
        # Textual's Markdown parses in a thread and mounts its blocks later.
        await wait_for(pilot, lambda: all(markdown.children for markdown in dialog.query(Markdown)))
        await layout_settled(pilot, dialog)
        hold_still(app)

    return run_before


def test_shell_approval(snap_compare: Snap) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "pytest -q tests/test_config.py"}))
    app = launch(model)
    assert snap_compare(app, terminal_size=SIZE, run_before=until_dialog("run the config tests"))


def test_shell_approval_for_a_dangerous_command(snap_compare: Snap) -> None:
    (PROJECT / "build").mkdir()
    model = ScriptedModel(tool_step("c1", "bash", {"command": "rm -rf build"}))
    app = launch(model)
    assert snap_compare(app, terminal_size=SIZE, run_before=until_dialog("clean the build"))


def test_edit_approval_with_a_diff(snap_compare: Snap) -> None:
    (PROJECT / "notes.txt").write_text("alpha\nbeta\ngamma\ndelta\n")
    edits = [{"old_text": "beta\ngamma\n", "new_text": "beta, revised\ngamma\nepsilon\n"}]
    model = ScriptedModel(tool_step("e1", "edit", {"path": "notes.txt", "edits": edits}))
    app = launch(model)
    assert snap_compare(app, terminal_size=SIZE, run_before=until_dialog("revise the notes"))


def test_edit_approval_in_a_low_terminal(snap_compare: Snap) -> None:
    """80x10: no border, the diff scrolls in what is left, every choice and the key line shown."""
    (PROJECT / "notes.txt").write_text("".join(f"line {i}\n" for i in range(20)))
    edits = [{"old_text": "line 3\nline 4\n", "new_text": "line 3, revised\nline 4\nline 4b\n"}]
    model = ScriptedModel(tool_step("e1", "edit", {"path": "notes.txt", "edits": edits}))
    app = launch(model)
    assert snap_compare(app, terminal_size=LOW, run_before=until_dialog("revise the notes"))


PLAN = """# Plan: a `--json` flag for `zett sessions list`

1. Add the flag in `cli.py` and pass it down.
2. Print one JSON object per session from `sessions/commands.py`.
3. Test it with **two** recorded sessions.

| File | Change |
|------|--------|
| `cli.py` | new flag |
| `sessions/commands.py` | JSON output |
"""


def test_plan_mode_exit_with_the_plan(snap_compare: Snap) -> None:
    model = ScriptedModel(tool_step("x1", "exit_plan_mode", {"plan": PLAN}))
    app = launch(model)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await submit(pilot, "/plan on")
        app.clear_notifications()  # its toast would stay drawn behind the dialog
        await pilot.pause()
        await until_dialog("plan the --json flag", PlanReviewDialog)(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_ask_user_with_options(snap_compare: Snap) -> None:
    question = {
        "question": "Which **format** should the export use?",
        "options": ["Markdown", "HTML", "Plain text"],
    }
    model = ScriptedModel(tool_step("q1", "ask_user", question))
    app = launch(model)
    assert snap_compare(app, terminal_size=SIZE, run_before=until_dialog("export it", AskUserDialog))


# -- the session browser ------------------------------------------------------------------------

RECORDED: list[tuple[str, list[str], list[Step], timedelta]] = [
    (
        "01957a3c-0000-7000-8000-000000000001",
        ["Add a --json flag to zett sessions list", "and document it"],
        [text_step("Added the flag in `cli.py`."), text_step("Documented it in the README.")],
        timedelta(minutes=12),
    ),
    (
        "01957a3c-0000-7000-8000-000000000002",
        ["Why does the index rebuild on every start?"],
        [failing_step(RuntimeError("the model went away"))],
        timedelta(hours=3),
    ),
    (
        "01957a3c-0000-7000-8000-000000000003",
        ["Rename load_config to read_settings"],
        [text_step("Renamed it in 4 files.")],
        timedelta(days=5),
    ),
]


async def record_sessions() -> None:
    """Run real turns through the agent host, then date each turn ``NOW`` minus the session's age."""
    (PROJECT / ".git").mkdir()
    (PROJECT / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    for session_id, prompts, steps, age in RECORDED:
        host = await make_host(ScriptedModel(*steps), cwd=PROJECT, session_id=session_id)
        for prompt in prompts:
            await host.run_turn(prompt, Collector())
        await host.aclose()
        assert host.recorder is not None
        date_turns(host.recorder.session_path(session_id), NOW - age)


def date_turns(path: Path, last: datetime) -> None:
    """Give the recorded turns fixed times: one every two minutes, the last one ending at ``last``."""
    turns = [json.loads(line) for line in path.read_text().splitlines()]
    for index, turn in enumerate(turns):
        ended = last - timedelta(minutes=2 * (len(turns) - 1 - index))
        turn["started_at"] = (ended - timedelta(seconds=20)).isoformat()
        turn["completed_at"] = ended.isoformat()
    path.write_text("".join(json.dumps(turn, separators=(",", ":")) + "\n" for turn in turns))


def test_session_browser_with_three_sessions(snap_compare: Snap) -> None:
    asyncio.run(record_sessions())
    app = launch(ScriptedModel())

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await pilot.press("ctrl+o")
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.summaries is not None
        )
        browser = app.screen
        assert isinstance(browser, SessionBrowser)
        await wait_for(
            pilot, lambda: RECORDED[0][1][-1] in [block.plain_text() for block in browser.preview.blocks]
        )
        hold_still(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
