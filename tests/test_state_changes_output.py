"""A change of the session's state (what it is doing, the tools running, the context meter, the
queue, the permission mode) repaints the status line's row, not the whole screen.

The chat screen held that state in reactives of its own, bound to the status line; a reactive of
a screen repaints the screen, so each change drew every row again: ~36 KB written to the terminal
in a turn that read one file, where the rows that changed are a few hundred bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual._compositor import LayoutUpdate

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.terminal_mirror import TerminalMirror
from tests.ui_helpers import idle, make_app, ready_app, submit, wait_for


async def test_a_turn_and_a_mode_change_repaint_the_status_line_not_the_screen(
    monkeypatch: pytest.MonkeyPatch, project_dir: Path
) -> None:
    (project_dir / "notes.txt").write_text("one\ntwo\n")
    model = ScriptedModel(
        tool_step("r1", "read_file", {"path": "notes.txt"}, text="Looking."), text_step("It says one, two.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await wait_for(pilot, lambda: idle(app))
        await pilot.pause(0.3)
        status = app.chat.status
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.chat.status.region)
        await wait_for(pilot, lambda: mirror.whole)  # the whole frame the mirror asks for
        row = status.region.y
        before = mirror.screen.display[row]
        mode_before = status.permission_mode
        whole_frames: list[Any] = []
        watched = app._display

        def counted(screen: Any, renderable: Any) -> None:
            if isinstance(renderable, LayoutUpdate):
                whole_frames.append(renderable)
            watched(screen, renderable)

        monkeypatch.setattr(app, "_display", counted)
        await submit(pilot, "what do the notes say?")
        await wait_for(pilot, lambda: idle(app))
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: status.permission_mode != mode_before)
        await pilot.pause(0.3)
        mirror.settled()
        after = mirror.screen.display[row]
    assert not whole_frames, f"{len(whole_frames)} frames drew the whole screen"
    assert not mirror.differences, mirror.differences[:2]  # the terminal's status row is the app's
    assert after != before  # and it did change: the mode, the context meter
    assert mirror.checked > 0
