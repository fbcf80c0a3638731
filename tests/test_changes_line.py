"""A turn that changed files ends with "N files changed, +A -R": the line expands in place to each
file and its coloured diff (Alt+arrows or a click, as a tool row does), bounded for a huge diff,
and collapses again."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_transcript import screen_text as rows_shown
from tests.ui_helpers import idle, make_app, ready_app, screen_text, submit, wait_for
from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.widgets.changes_block import MAX_DIFF_LINES, ChangesBlock
from zett_tui.ui.widgets.transcript import Transcript


def changes_of(app) -> ChangesBlock:
    [block] = [b for b in app.chat.transcript.blocks if isinstance(b, ChangesBlock)]
    return block


async def test_the_changes_line_expands_to_the_diff_and_collapses_again(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("alpha\nbeta\n")
    model = ScriptedModel(
        tool_step("b1", "bash", {"command": "sed -i s/beta/gamma/ notes.txt && echo fresh > made.txt"}),
        text_step("Changed."),
    )
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(app, size=(100, 40)) as pilot:
        await submit(pilot, "change the notes")
        await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        await wait_for(pilot, lambda: "2 files changed, +2 -1" in screen_text(app))
        assert "+gamma" not in screen_text(app)  # one line until it is expanded
        await pilot.press("alt+up")
        assert app.chat.transcript.selected_block is changes_of(app)
        await pilot.press("alt+right")
        await wait_for(pilot, lambda: "+gamma" in screen_text(app))
        shown = screen_text(app)
        assert "-beta" in shown and "made.txt" in shown and "notes.txt  +1 -1" in shown and "+fresh" in shown
        await pilot.press("alt+left")
        await wait_for(pilot, lambda: "+gamma" not in screen_text(app))
        assert "2 files changed, +2 -1" in screen_text(app)


async def test_a_click_expands_it_and_a_huge_diff_is_cut_with_a_pointer_to_diff(project_dir: Path) -> None:
    (project_dir / "big.txt").write_text("")
    model = ScriptedModel(
        tool_step("b1", "bash", {"command": "seq 1 20000 > big.txt"}),
        text_step("Filled."),
    )
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(app, size=(100, 30)) as pilot:
        await submit(pilot, "fill it")
        await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        await wait_for(pilot, lambda: "1 file changed, +20000 -0" in screen_text(app))
        transcript = app.chat.transcript
        row = next(y for y, line in enumerate(rows_shown(transcript)) if "1 file changed" in line)
        await pilot.click(Transcript, offset=(4, row))
        block = changes_of(app)
        await wait_for(pilot, lambda: block.state == "read")
        assert block.expanded
        text = block.search_text()
        assert "+1\n" in text and text.endswith(f"\n+{MAX_DIFF_LINES - 1}") and "\n+20000" not in text
        transcript.scroll_end(animate=False)
        await wait_for(pilot, lambda: "more lines: /diff shows the whole diff" in screen_text(app))
