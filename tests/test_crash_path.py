"""When something inside the app breaks: what the user is left with, and what is left open.

An unhandled exception in a handler ends zett through ``ZettApp._handle_exception``
(ui/app.py, over ui/textual_compat.py): the traceback goes to the log file only, the terminal gets
one sentence and exit code 1, and the session record is flushed by the chat screen closing its
host. These tests pin that, and that leaving the app while the host is still starting closes it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, idle, make_app, ready_app, submit, wait_for
from zett_tui.core import paths
from zett_tui.runtime.host import AgentHost
from zett_tui.ui.chat.screen import ChatScreen


class HandlerBug(RuntimeError):
    """Stands for a bug in one of zett's own handlers."""


def record_lines(host: AgentHost) -> list[dict[str, Any]]:
    assert host.recorder is not None
    record = host.recorder.session_path(host.session_id)
    return [json.loads(line) for line in record.read_text().splitlines()]


async def test_a_bug_in_a_handler_mid_turn_ends_zett_with_one_sentence_and_a_saved_session(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    def broken_cancel(self: ChatScreen) -> None:
        raise HandlerBug("secret prompt text in a local")

    monkeypatch.setattr(ChatScreen, "action_cancel_turn", broken_cancel)
    gate = asyncio.Event()
    model = ScriptedModel(text_step("First answer."), text_step("never finished", gate=gate))
    app = make_app(model)
    with pytest.raises(HandlerBug):  # run_test re-raises it, as zett keeps it for tests
        async with ready_app(app) as pilot:
            await submit(pilot, "first question")
            await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 1)
            host = app.chat.host
            await submit(pilot, "second question")
            await wait_for(pilot, lambda: app.chat.turns.busy and len(answers(app)) == 2)
            await pilot.press("escape")  # the broken handler raises inside the app
            await wait_for(pilot, lambda: app.return_code is not None)

    assert app.return_code == 1
    terminal = capfd.readouterr()
    shown = terminal.out + terminal.err
    assert "Traceback" not in shown and "secret prompt text" not in shown
    assert app._exit_renderables == []  # printed and cleared: exactly the one sentence below
    sentence = (
        "zett stopped after an internal error (HandlerBug). "
        f"Your session is saved; details are in {paths.log_file()}."
    )
    assert "".join(shown.split()) == "".join(sentence.split())  # wrapped to the terminal's width
    logged = next(record for record in caplog.records if record.levelno == logging.CRITICAL)
    assert logged.getMessage() == "internal error" and logged.exc_info is not None
    assert logged.exc_info[0] is HandlerBug
    assert host is not None
    assert host.model is None and host._history is None, "the chat screen closed its host"
    lines = record_lines(host)
    assert lines[0]["status"] == "completed"
    assert [message["data"]["content"] for message in lines[0]["messages"][:1]] == ["first question"]
    # The turn cut short by the crash is recorded as cancelled: the host keeps going past a UI that
    # is already gone (its sink never raises), so the turn ends the way the runtime records it.
    assert [line["status"] for line in lines] == ["completed", "cancelled"]


async def test_leaving_while_the_host_is_still_starting_closes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app can go away between the host's start and the screen taking it (Ctrl+Q at startup)."""
    built: list[AgentHost] = []
    hold = asyncio.Event()
    original_start = AgentHost.start

    async def start_and_remember(self: AgentHost) -> None:
        built.append(self)
        await original_start(self)

    async def slow_estimate(self: AgentHost) -> Any:
        await hold.wait()  # never set: the app leaves while zett is still getting ready

    monkeypatch.setattr(AgentHost, "start", start_and_remember)
    monkeypatch.setattr(AgentHost, "estimate_context", slow_estimate)
    app = make_app(ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(built) and built[0].agent is not None)
        assert app.chat.host is None
    [host] = built
    assert host.model is None and host._history is None, "the host was left open"
