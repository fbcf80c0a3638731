"""Building the real app around a scripted model, and waiting for real state instead of sleeping."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from textual.pilot import Pilot

from tests.fakes.scripted_model import ScriptedModel
from zett_tui.entry.launch import LaunchSettings
from zett_tui.ui.app import ZettApp
from zett_tui.ui.modals.choice_dialog import ChoiceDialog
from zett_tui.ui.widgets.transcript import AnswerBlock, NoticeBlock, ToolBlock, UserBlock


def make_app(model: ScriptedModel, *, factory: Callable[[], Any] | None = None, **launch: Any) -> ZettApp:
    settings = LaunchSettings(
        **{
            "model_label": "scripted:test",
            "model_factory": factory or (lambda: model),
            "bell": False,
            "notify": "off",  # tests of notifications turn them on (tests/test_notifications.py)
            **launch,
        }
    )
    return ZettApp(settings)


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let the app run until ``condition()`` holds; fail with a clear message after ``timeout``.

    The timeout is generous: a passing test returns as soon as the condition holds, and on a
    loaded machine (two workers and their servers on two cores) a start can take seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def dialog_armed(pilot: Pilot[Any], kind: type[ChoiceDialog] = ChoiceDialog) -> Any:
    """Wait until a dialog of ``kind`` is the app's screen and takes keys, and return it.

    A dialog arms ``ARM_DELAY`` after it is drawn (0.5 s; 0.05 s in tests, tests/conftest.py):
    keys pressed before that go to the prompt below, not to the dialog. Tests that answer a dialog
    wait here first.
    """
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and app.screen.armed)
    await pilot.pause()
    return app.screen


async def wait_ready(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, ZettApp)
    await wait_for(pilot, lambda: app.chat.host is not None)


@contextlib.asynccontextmanager
async def ready_app(app: ZettApp, *, size: tuple[int, int] = (100, 30)) -> AsyncIterator[Pilot[Any]]:
    """Run ``app`` headless at ``size`` and hand over its pilot once the host is up.

    The set-up nearly every pilot test starts with: ``async with ready_app(app) as pilot:``.
    Leaving the block exits the app as ``run_test`` does, which closes the host.
    """
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        yield pilot


async def submit(pilot: Pilot[Any], text: str) -> None:
    app = pilot.app
    assert isinstance(app, ZettApp)
    app.chat.composer.load_text(text)
    app.chat.composer.focus()
    await pilot.press("enter")


def blocks_of(app: ZettApp, kind: type) -> list[Any]:
    return [block for block in app.chat.transcript.blocks if isinstance(block, kind)]


def answers(app: ZettApp) -> list[AnswerBlock]:
    return blocks_of(app, AnswerBlock)


def tools(app: ZettApp) -> list[ToolBlock]:
    return blocks_of(app, ToolBlock)


def notices(app: ZettApp) -> list[str]:
    return [block.plain_text() for block in blocks_of(app, NoticeBlock)]


def prompts(app: ZettApp) -> list[str]:
    return [block.plain_text() for block in blocks_of(app, UserBlock)]


def idle(app: ZettApp) -> bool:
    """No turn runs, none waits, and the end of the last one has been handled: its worker is done
    *and* the screen has had the worker's message (the checklist unpinned, the next prompt taken),
    which comes a little after the worker stops being busy; and the transcript shows it all (its
    updates are paced to the frame rate: the answer's last text is drawn up to a frame later)."""
    turns = app.chat.turns
    return (
        app.chat.host is not None
        and not turns.busy
        and turns.settled
        and not turns.queued
        and not app.chat.transcript.update_pending
    )


async def settle() -> None:
    await asyncio.sleep(0)


def screen_text(app: ZettApp) -> str:
    """What the terminal shows now, as plain text (from the app's own screenshot)."""
    import html
    import re

    svg = app.export_screenshot()
    lines = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    return html.unescape("".join(lines)).replace("\xa0", " ")
