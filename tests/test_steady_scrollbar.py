"""The transcript's scrollbar repaints when its thumb moves, and only then."""

from __future__ import annotations

import itertools

from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.scrollbar import ScrollBarRender

from zett_tui.ui.widgets.steady_scrollbar import SteadyScrollBar, thumb_eighths
from zett_tui.ui.widgets.transcript import AnswerBlock, Transcript


def _drawn(size: int, virtual: int, window: int, position: float) -> list[tuple[str, object]]:
    """What Textual's own renderer draws: text and colours of each cell (not the mouse metadata)."""
    bar = ScrollBarRender.render_bar(size, virtual, window, position)
    segments: list[Segment] = list(bar.segments)
    return [(s.text, s.style and (s.style.color, s.style.bgcolor, s.style.reverse)) for s in segments]


def test_the_thumb_key_changes_exactly_when_the_drawing_does() -> None:
    size, window = 12, 12
    seen: dict[object, list[tuple[str, object]]] = {}
    previous = None
    for virtual, position in itertools.product(range(11, 200, 3), (0, 0.125, 1.5, 7.25, 40.0, 187.875)):
        position = min(position, max(0, virtual - window))
        key = thumb_eighths(size, virtual, window if window < virtual else 0, position, 8)
        drawn = _drawn(size, virtual, window if window < virtual else 0, position)
        if key in seen:
            assert seen[key] == drawn, (virtual, position)
        seen[key] = drawn
        if previous is not None and previous[0] != key:
            assert previous[1] != drawn or previous[0] is None or key is None, (virtual, position)
        previous = (key, drawn)


class Host(App[None]):
    CSS = "Transcript { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield Transcript()


async def test_a_growing_answer_repaints_the_bar_only_when_the_thumb_moves() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        answer.append("".join(f"Line {n} of a long answer.\n\n" for n in range(300)))
        transcript.update_now()
        await pilot.pause()
        bar = transcript.vertical_scrollbar
        assert isinstance(bar, SteadyScrollBar)
        renders = 0
        render = bar.render

        def counting_render():  # type: ignore[no-untyped-def]
            nonlocal renders
            renders += 1
            return render()

        bar.render = counting_render  # type: ignore[method-assign]
        syncs = transcript.sync_count
        for n in range(40):
            answer.append(f"More {n}.\n\n")
            transcript.refresh_block(answer)
            transcript.update_now()
            await pilot.pause()
        assert transcript.sync_count - syncs >= 40
        assert renders < 10  # Textual's bar: one per update
        assert bar._drawn == bar._look()  # what is on screen is where the thumb is now

        transcript.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        assert bar._drawn == bar._look()
        thumb = bar._thumb()
        assert thumb is not None and thumb[1] == 0  # drawn at the top, not left below
