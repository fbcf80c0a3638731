"""SVG snapshots of a turn in progress: the prompts waiting above the prompt, and a live tool row.

Built like ``test_layout_snapshots`` (its pinning fixture is used here as it is there): the clock
of tool rows is stopped, so a running row shows no time; the turn is held still (a gate, a command
waiting for a file) while the screenshot is taken.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.pilot import Pilot

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.snapshots.test_layout_snapshots import SIZE, Snap, hold_still, launch, pinned
from tests.test_dialogs import dialog_closed, open_dialog
from tests.ui_helpers import answers, submit, tools, wait_for, wait_ready

__all__ = ["pinned"]  # the autouse fixture that pins the clock, the version and the project


def test_prompts_waiting_during_a_turn(snap_compare: Snap) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Reading the loader first, then the tests.", gate=gate))
    app = launch(model)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await submit(pilot, "Refactor the config loader")
        await wait_for(
            pilot, lambda: app.chat.turns.busy and bool(answers(app)) and bool(answers(app)[0].text)
        )
        composer = app.chat.composer
        composer.load_text("keep the public names")
        await pilot.press("enter")  # into this turn
        for text in ("then run the tests", "update the README\nand the changelog", "open a PR", "tag it"):
            composer.load_text(text)
            await pilot.press("tab")  # after this turn
        await pilot.pause()
        hold_still(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_a_running_command_shows_its_last_lines(snap_compare: Snap) -> None:
    command = "for n in 1 2 3 4 5 6; do echo step $n of 6; done; until test -e go; do sleep 0.05; done"
    model = ScriptedModel(tool_step("c1", "bash", {"command": command}))
    app = launch(model)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_ready(pilot)
        await submit(pilot, "run the steps")
        dialog = await open_dialog(pilot)
        await pilot.press("enter")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: bool(tools(app)) and "step 6 of 6" in tools(app)[0].live_lines)
        await pilot.pause()
        hold_still(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
