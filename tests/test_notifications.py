"""zett tells you when it needs you: a desktop notification and the terminal title, only when you
are elsewhere (``[ui] notify``, ``zett_tui/ui/attention.py``).

The pilot tests read what the app wrote to its terminal driver, byte for byte. "Elsewhere" is
the terminal's focus-out report (Textual's ``AppBlur``), or, in tmux without focus events, tmux's
answer about the pane (a fake ``tmux`` on ``PATH`` answers).
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot
from zett_agent.model import ModelEvent, ModelRequest

from tests.fakes.scripted_model import ScriptedModel, Step, failing_step, text_step, tool_step
from tests.ui_helpers import dialog_armed, idle, make_app, ready_app, submit, wait_for
from zett_tui.runtime.events import DecisionRequested
from zett_tui.terminal import notify, tmux_pane
from zett_tui.ui.app import ZettApp
from zett_tui.ui.chat.question_line import question_line
from zett_tui.ui.modals.ask_user import AskUserDialog

ESC, BEL = "\x1b", "\a"
TITLE_DONE = f"{ESC}[22;0t{ESC}]0;zett: done{BEL}"
TITLE_WAITING = f"{ESC}[22;0t{ESC}]0;zett: waiting for you{BEL}"
TITLE_BACK = f"{ESC}]0;zett{BEL}{ESC}[23;0t"
POINTER_SHAPE = re.compile(r"\x1b\]22;[a-z-]+\x07")
HOSTILE = (
    f"Pick {ESC}]777;notify;evil;x{BEL}one;{ESC}\\now\x9c\x9d\x9b31m\x07\x08\x7f"
    + "y" * 10_240
    + "\n\nsecond line"
)


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Everything the app writes to its terminal, outside any multiplexer, in a plain xterm; less
    Textual's mouse pointer shape (OSC 22), which it sets at start."""
    for name in ("TMUX", "TMUX_PANE", "STY", "TERM_PROGRAM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    written: list[str] = []

    def write(driver: HeadlessDriver, data: str) -> None:
        if not POINTER_SHAPE.fullmatch(data):
            written.append(data)

    monkeypatch.setattr(HeadlessDriver, "write", write)
    return written


def gated(step: Step, gate: asyncio.Event) -> Step:
    """``step``, once ``gate`` is set: the user has pressed Enter and looked away by then."""

    async def run(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        await gate.wait()
        async for event in step(request):
            yield event

    return run


async def look_away(pilot: Pilot[Any], gate: asyncio.Event) -> None:
    """The terminal reports focus out (the user switched windows), then the model goes on."""
    pilot.app.post_message(events.AppBlur())
    await wait_for(pilot, lambda: not pilot.app.app_focus)
    gate.set()


async def one_turn(terminal: list[str], *, away: bool, **launch: Any) -> str:
    """A prompt answered while the user is away (or not); what the terminal got."""
    gate = asyncio.Event()
    app = make_app(ScriptedModel(gated(text_step("Tidied."), gate)), **launch)
    async with ready_app(app) as pilot:
        await submit(pilot, "Tidy the README\nand the changelog too")
        if away:
            await look_away(pilot, gate)
        else:
            gate.set()
        await wait_for(pilot, lambda: idle(app) and not app.chat.turns.busy)
        await pilot.pause()
    return "".join(terminal)


async def test_a_turn_that_ends_while_you_are_away_notifies_and_retitles(terminal: list[str]) -> None:
    written = await one_turn(terminal, away=True, notify="auto")
    assert written.startswith(
        f"{ESC}]9;zett: done - Tidy the README{BEL}"
        f"{ESC}]777;notify;zett: done;Tidy the README{BEL}" + TITLE_DONE
    )


async def test_nothing_when_you_are_looking(terminal: list[str]) -> None:
    assert await one_turn(terminal, away=False, notify="auto") == ""


async def test_nothing_with_notify_off(terminal: list[str]) -> None:
    assert await one_turn(terminal, away=True, notify="off") == ""


async def test_coming_back_restores_the_title_once(terminal: list[str]) -> None:
    gate = asyncio.Event()
    app = make_app(ScriptedModel(gated(text_step("Tidied."), gate)), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, "Tidy the README")
        await look_away(pilot, gate)
        await wait_for(pilot, lambda: TITLE_DONE in "".join(terminal))
        app.post_message(events.AppFocus())
        await wait_for(pilot, lambda: "".join(terminal).endswith(TITLE_BACK))
        await pilot.press("x")  # a key after that changes nothing more
        await pilot.pause()
        assert "".join(terminal).count(TITLE_BACK) == 1


async def test_quitting_restores_the_title(terminal: list[str]) -> None:
    gate = asyncio.Event()
    app = make_app(ScriptedModel(gated(text_step("Tidied."), gate)), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, "Tidy the README")
        await look_away(pilot, gate)
        await wait_for(pilot, lambda: TITLE_DONE in "".join(terminal))
        await app.action_quit()
    assert "".join(terminal).endswith(TITLE_DONE + TITLE_BACK)


async def test_a_failed_turn_says_so(terminal: list[str]) -> None:
    gate = asyncio.Event()
    app = make_app(ScriptedModel(gated(failing_step(RuntimeError("boom")), gate)), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, "Tidy the README")
        await look_away(pilot, gate)
        await wait_for(pilot, lambda: TITLE_DONE in "".join(terminal))
    assert f"{ESC}]9;zett: failed - Tidy the README{BEL}" in "".join(terminal)
    assert f"{ESC}]777;notify;zett: failed;Tidy the README{BEL}" in "".join(terminal)


async def ask_while_away(terminal: list[str], question: str) -> ZettApp:
    gate = asyncio.Event()
    step = gated(tool_step("q1", "ask_user", {"question": question}), gate)
    app = make_app(ScriptedModel(step, text_step("OK.")), notify="auto", bell=True)
    async with ready_app(app) as pilot:
        await submit(pilot, "Rename it")
        await look_away(pilot, gate)
        await dialog_armed(pilot, AskUserDialog)
        await wait_for(pilot, lambda: TITLE_WAITING in "".join(terminal))
    return app


async def test_a_dialog_that_opens_while_you_are_away_notifies_with_its_question(terminal: list[str]) -> None:
    await ask_while_away(terminal, "Which name?")
    assert "".join(terminal) == (
        f"{ESC}]9;zett: waiting for you - Which name?{BEL}"
        f"{ESC}]777;notify;zett: waiting for you;Which name?{BEL}" + TITLE_WAITING + TITLE_BACK
    )  # the last: quitting at the end of the test


#: What is left of ``HOSTILE``'s first line in a notification.
HOSTILE_LINE = ("Pick ]777 notify evil xone \\now31m" + "y" * 80)[: notify.SNIPPET_MAX_CHARS - 1] + "…"


async def test_a_hostile_question_cannot_end_or_split_the_sequence(terminal: list[str]) -> None:
    await ask_while_away(terminal, HOSTILE[:3_990])  # ask_user takes questions up to 4,000 characters
    assert "".join(terminal) == (
        f"{ESC}]9;zett: waiting for you - {HOSTILE_LINE}{BEL}"
        f"{ESC}]777;notify;zett: waiting for you;{HOSTILE_LINE}{BEL}" + TITLE_WAITING + TITLE_BACK
    )


async def test_a_hostile_10_kb_prompt_cannot_end_or_split_the_sequence(terminal: list[str]) -> None:
    gate = asyncio.Event()
    app = make_app(ScriptedModel(gated(text_step("Done."), gate)), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, HOSTILE)
        await look_away(pilot, gate)
        await wait_for(pilot, lambda: idle(app))
    assert "".join(terminal) == (
        f"{ESC}]9;zett: done - {HOSTILE_LINE}{BEL}"
        f"{ESC}]777;notify;zett: done;{HOSTILE_LINE}{BEL}" + TITLE_DONE + TITLE_BACK
    )


async def test_a_shell_approval_says_which_command(terminal: list[str]) -> None:
    gate = asyncio.Event()
    step = gated(tool_step("c1", "bash", {"command": "rm -rf build; make"}), gate)
    app = make_app(ScriptedModel(step, text_step("Built.")), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, "Rebuild")
        await look_away(pilot, gate)
        await dialog_armed(pilot)
        await wait_for(pilot, lambda: TITLE_WAITING in "".join(terminal))
    assert "".join(terminal).startswith(f"{ESC}]9;zett: waiting for you - Run rm -rf build make?{BEL}")


async def test_leaving_while_a_dialog_waits_sets_the_title_only(terminal: list[str]) -> None:
    app = make_app(ScriptedModel(tool_step("q1", "ask_user", {"question": "Which name?"})), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, "Rename it")
        await dialog_armed(pilot, AskUserDialog)
        assert terminal == []  # you were looking when it opened
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: bool(terminal))
        assert "".join(terminal) == TITLE_WAITING
        app.post_message(events.AppFocus())
        await wait_for(pilot, lambda: "".join(terminal) == TITLE_WAITING + TITLE_BACK)


async def test_in_tmux_the_notification_goes_through_its_passthrough(
    terminal: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,1,0")
    written = await one_turn(terminal, away=True, notify="auto")
    assert written.startswith(
        f"{ESC}Ptmux;{ESC}{ESC}]9;zett: done - Tidy the README{BEL}{ESC}\\"
        f"{ESC}Ptmux;{ESC}{ESC}]777;notify;zett: done;Tidy the README{BEL}{ESC}\\" + TITLE_DONE
    )


def fake_tmux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str) -> Path:
    """A ``tmux`` on PATH that answers ``answer`` to ``display-message`` and notes its arguments."""
    asked = tmp_path / "asked"
    script = tmp_path / "bin" / "tmux"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\necho "$@" >> {asked}\necho {answer}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,1,0")
    monkeypatch.setenv("TMUX_PANE", "%7")
    return asked


async def turn_without_focus_events(terminal: list[str], asked: Path) -> str:
    """A turn ends with no focus events from the terminal: tmux is asked (``asked`` is written)
    whether zett's pane is in view; what zett wrote to the terminal once the answer is in."""
    app = make_app(ScriptedModel(text_step("Tidied.")), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, "Tidy the README")
        await wait_for(pilot, lambda: idle(app))
        # The turn's end reaches the attention helper after the turn is idle, on a loaded machine
        # after a few frames: wait for tmux to be asked, then for the answer to be acted on.
        await wait_for(pilot, asked.exists)
        await wait_for(pilot, lambda: not [w for w in app.workers if w.group == "attention" and w.is_running])
    return "".join(terminal)


async def test_tmux_without_focus_events_is_asked_whether_the_pane_is_in_view(
    terminal: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked = fake_tmux(tmp_path, monkeypatch, "101")  # zett's window is not the current one
    written = await turn_without_focus_events(terminal, asked)
    assert asked.read_text() == f"display-message -p -t %7 {tmux_pane.FORMAT}\n"
    assert f"{ESC}Ptmux;{ESC}{ESC}]9;zett: done - Tidy the README{BEL}{ESC}\\" in written
    assert TITLE_DONE in written


async def test_without_focus_events_a_key_is_you_coming_back(
    terminal: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_tmux(tmp_path, monkeypatch, "011")  # another pane of zett's window is the active one
    app = make_app(ScriptedModel(text_step("Tidied.")), notify="auto")
    async with ready_app(app) as pilot:
        await submit(pilot, "Tidy the README")
        await wait_for(pilot, lambda: "".join(terminal).endswith(TITLE_DONE))
        await pilot.press("a")
        await wait_for(pilot, lambda: "".join(terminal).endswith(TITLE_DONE + TITLE_BACK))


async def test_tmux_pane_in_view_gets_nothing(
    terminal: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked = fake_tmux(tmp_path, monkeypatch, "111")
    assert await turn_without_focus_events(terminal, asked) == ""
    assert asked.exists()


# -- the escape sequences themselves ---------------------------------------------------------


def test_a_snippet_is_one_short_printable_line_without_semicolons() -> None:
    line = notify.snippet(HOSTILE)
    assert len(line) == notify.SNIPPET_MAX_CHARS
    assert line.isprintable() and ";" not in line and ESC not in line
    assert notify.snippet("\n\n  first\nsecond") == "first"
    assert notify.snippet("a\u202eb\u2066c\x00d") == "abcd"  # format characters are dropped


@pytest.mark.parametrize("text", [HOSTILE, "\x1b" * 5000, "\x9c;\x07" * 3000, "\ud800x"])
def test_no_text_ends_a_notification_early(text: str) -> None:
    for env in ({}, {"TMUX": "x"}, {"STY": "x"}):
        for sequence in notify.notification("zett: done", text, env):
            body = sequence.removeprefix(f"{ESC}Ptmux;").removeprefix(f"{ESC}P").removesuffix(f"{ESC}\\")
            body = body.replace(ESC + ESC, ESC) if env.get("TMUX") else body
            assert body.startswith(f"{ESC}]") and body.endswith(BEL)
            inner = body[2:-1]
            assert ESC not in inner and BEL not in inner and "\x9c" not in inner
            assert len(sequence) < 400


def test_a_terminal_known_to_show_osc9_gets_only_that() -> None:
    for env in ({"TERM_PROGRAM": "WezTerm"}, {"TERM": "xterm-kitty"}, {"TERM_PROGRAM": "iTerm.app"}):
        assert notify.notification("zett: done", "x", env) == [f"{ESC}]9;zett: done - x{BEL}"]


@pytest.mark.parametrize(
    ("answer", "in_view"),
    [
        ("111", True),
        ("112\n", True),
        ("011", False),
        ("101", False),
        ("110", False),
        ("", None),
        ("x1", None),
    ],
)
def test_tmux_answers(answer: str, in_view: bool | None) -> None:
    assert tmux_pane.parse_answer(answer) is in_view


def test_no_tmux_no_question() -> None:
    assert tmux_pane.pane_in_view({"TMUX": "x", "TMUX_PANE": "%1"}, which=lambda name: None) is None
    assert tmux_pane.pane_in_view({}, runner=lambda command: "101") is None
    assert tmux_pane.pane_in_view({"TMUX": "x", "TMUX_PANE": "%1"}, which=str, runner=lambda c: None) is None


@pytest.mark.parametrize(
    ("kind", "payload", "line"),
    [
        ("shell_approval_requested", {"command": "make"}, "Run make?"),
        ("edit_approval_requested", {"path": "a.py", "operation": "write"}, "Write a.py?"),
        ("edit_approval_requested", {"path": ["not", "text"]}, "Edit ?"),
        ("mcp_approval_requested", {"server": "git", "tool": "git_log"}, "Call git git_log?"),
        ("read_access_requested", {"path": "/etc/hosts"}, "Read /etc/hosts?"),
        ("ask_user", {"question": 42}, ""),
        ("something_new", {}, "A question"),
    ],
)
def test_every_question_has_a_line_whatever_its_payload(
    kind: str, payload: dict[str, Any], line: str
) -> None:
    assert question_line(DecisionRequested(kind, "s1", payload)) == line
