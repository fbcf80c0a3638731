"""``[ui] image_previews``: each image sent gets a small preview under its line, drawn with the
transcript's own cells (two pixels a cell); off by default, when only the line is shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.test_images_in import png_bytes
from tests.ui_helpers import blocks_of, idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.core.image_thumbnail import thumbnail_cells
from zett_tui.runtime.events import Notice


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "shot.png").write_bytes(png_bytes((64, 48), (200, 30, 30, 255)))
    monkeypatch.chdir(root)
    return root


def test_a_thumbnail_keeps_the_proportions_and_the_colours() -> None:
    cells = thumbnail_cells(png_bytes((640, 120), (10, 200, 30, 255)))
    assert cells is not None
    assert len(cells[0]) == 32 and len(cells) % 2 == 0 and len(cells) == 6  # 640:120 in 32 columns
    assert {pixel for row in cells for pixel in row} == {(10, 200, 30)}
    assert thumbnail_cells(b"not an image") is None


async def test_the_runtime_sends_a_preview_only_when_asked(hosts: Any, project: Path) -> None:
    for previews in (False, True):
        host = await hosts(ScriptedModel(text_step("red")), cwd=project, image_previews=previews)
        sink = Collector()
        await host.run_turn("what is @shot.png", sink)
        (line,) = [notice for notice in sink.of(Notice) if notice.text.startswith("🖼")]
        assert (line.preview is not None) is previews


async def test_the_transcript_draws_the_preview_under_the_line(project: Path) -> None:
    from zett_tui.ui.widgets.image_preview_block import ImagePreviewBlock

    app = make_app(ScriptedModel(text_step("a red square")), cwd=project, image_previews=True)
    async with ready_app(app) as pilot:
        await submit(pilot, "what is @shot.png")
        await wait_for(pilot, lambda: idle(app) and bool(blocks_of(app, ImagePreviewBlock)))
        (preview,) = blocks_of(app, ImagePreviewBlock)
        assert any(text.startswith("🖼 shot.png") for text in notices(app))
        blocks = app.chat.transcript.blocks
        assert blocks[blocks.index(preview) - 1].plain_text().startswith("🖼 shot.png")
        ctx = app.chat.transcript._render_context()
        lines = preview.render(80, ctx)
        assert len(lines) == 8  # 64×48 in at most 32×8 cells (16 pixel rows): 21 columns
        drawn = "".join(text for line in lines for text, _style in line)
        assert drawn.count("▀") == 21 * 8
        cells = [segment for line in lines for segment in ctx.unpack(line) if "▀" in segment.text]
        colours = {(segment.style.color.name, segment.style.bgcolor.name) for segment in cells}  # type: ignore[union-attr]
        assert colours == {("#c81e1e", "#c81e1e")}  # the square's red, above and below


async def test_a_resumed_session_shows_the_previews_of_its_stored_images(project_dir: Path) -> None:
    from tests.fakes.host import make_host
    from zett_tui.entry.startup import find_session_to_resume
    from zett_tui.ui.widgets.image_preview_block import ImagePreviewBlock

    (project_dir / "shot.png").write_bytes(png_bytes((64, 48), (200, 30, 30, 255)))
    host = await make_host(ScriptedModel(text_step("a red square")))
    await host.run_turn("what is @shot.png", Collector())
    await host.aclose()
    found = find_session_to_resume(project_dir, None, continue_last=True)
    for previews in (False, True):
        app = make_app(
            ScriptedModel(), session_id=host.session_id, resume_path=found.path, image_previews=previews
        )
        async with ready_app(app):
            blocks = app.chat.transcript.blocks
            assert blocks[1].plain_text() == "🖼 shot.png"
            assert isinstance(blocks[2], ImagePreviewBlock) is previews
            if previews:
                assert {pixel for row in blocks[2].cells for pixel in row} == {(200, 30, 30)}
