"""Huge and strange output through the real app: zett stays responsive, shows a bounded, inert view,
and keeps the full text where the user can get it (issue 6, item 2).

Each test drives ``ZettApp`` with a scripted model; shell commands run for real (``bash`` tool, AUTO
mode so nothing asks). What reaches the terminal is checked where Textual gets it: the strips the
transcript renders for its whole virtual height, and the screen's exported text.
"""

from __future__ import annotations

import asyncio
import time
import unicodedata
from collections.abc import AsyncIterator
from typing import Any

from textual import events
from textual.drivers.headless_driver import HeadlessDriver
from textual.geometry import Size
from textual.pilot import Pilot
from zett_agent.messages import AssistantMessage
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse

from tests.fakes.scripted_model import ScriptedModel, Step, text_step, tool_step, usage
from tests.ui_helpers import answers, idle, make_app, screen_text, submit, tools, wait_for
from zett_tui.core import paths
from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.app import ZettApp
from zett_tui.ui.widgets.tool_block import KEPT_OUTPUT_LABEL
from zett_tui.ui.widgets.transcript import AnswerBlock, ToolBlock, Transcript

SIZE = (100, 30)
#: Characters a terminal acts on instead of showing: C0 (tab and newline never reach a strip), DEL, C1.
TERMINAL_CONTROLS = frozenset(chr(c) for c in (*range(0, 32), 127, *range(128, 160)))
#: Unicode that changes how a terminal lays text out (bidi overrides, line separators, surrogates).
LAYOUT_CATEGORIES = frozenset({"Cf", "Cs", "Zl", "Zp"})

ANSI_COMMAND = (
    # cursor moves and a screen clear, an OSC 52 clipboard write, an OSC 8 link, a bell, colours,
    # a carriage return, 8-bit CSI (as a UTF-8 C1 character), a title, a DCS string
    r"printf 'a\033[2Jb\033[10;10Hc\033]52;c;ZXZpbA==\007d\033]8;;http://evil.test\033\\"
    r"link\033]8;;\033\\e\007f\033[31mred\033[0m\ttab\rover\n"
    r"\302\23331m c1 \033]0;title\007 \033Pdcs\033\\ end\n'"
)


def inert(text: str) -> bool:
    """No character a terminal would interpret, nor one that reorders or breaks its layout."""
    return not any(ch in TERMINAL_CONTROLS or unicodedata.category(ch) in LAYOUT_CATEGORIES for ch in text)


def unwrapped(text: str) -> str:
    """`text` without whitespace (so a wrapped path compares equal)."""
    return "".join(text.split())


def rendered_strips(transcript: Transcript) -> list[Any]:
    """Every strip the transcript renders, top to bottom of its virtual height."""
    transcript.update_now()
    offset = round(transcript.scroll_offset.y)
    return [transcript.render_line(y - offset) for y in range(transcript.virtual_size.height)]


def assert_nothing_reaches_the_terminal(app: ZettApp) -> None:
    transcript = app.chat.transcript
    width = transcript.scrollable_content_region.width
    for strip in rendered_strips(transcript):
        assert strip.cell_length == width
        for segment in strip:
            assert segment.control is None
            assert inert(segment.text), repr(segment.text)
    assert inert(screen_text(app).replace("\n", ""))


async def start(pilot: Pilot[Any]) -> ZettApp:
    app = pilot.app
    assert isinstance(app, ZettApp)
    await wait_for(pilot, lambda: app.chat.host is not None)
    assert app.chat.host is not None
    app.chat.host.set_mode(PermissionMode.AUTO)
    return app


async def echo(pilot: Pilot[Any], app: ZettApp, keys: str) -> None:
    """Type `keys` in the prompt box; they must show on screen within the wait."""
    composer = app.chat.composer
    composer.focus()
    expected = composer.text + keys
    await pilot.press(*keys)
    await wait_for(pilot, lambda: composer.text == expected and expected in screen_text(app))


async def expanded_tool_row(pilot: Pilot[Any], app: ZettApp) -> tuple[ToolBlock, list[str]]:
    """The finished tool row, expanded; its rendered lines as text."""
    [row] = tools(app)
    transcript = app.chat.transcript
    transcript.toggle_block(row)
    transcript.update_now()
    await pilot.pause()
    lines = row.render(transcript.scrollable_content_region.width, transcript._render_context())
    return row, ["".join(text for text, _ in line) for line in lines]


def shell_then(command: str, then: str = "Looked at it.") -> ScriptedModel:
    return ScriptedModel(tool_step("c1", "bash", {"command": command}), text_step(then))


def no_redaction(text: str) -> str:
    return text


# -- huge output -------------------------------------------------------------------------------------


async def test_fifty_megabytes_of_output_are_kept_on_disk_and_shown_bounded() -> None:
    # The redaction of kept files is another module's concern and costs about 20 s for 50 MB; it is
    # left out here so this test measures what the UI does with the output.
    model = shell_then("head -c 50000000 /dev/zero | tr '\\0' x")
    app = make_app(model, redact=no_redaction)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await submit(pilot, "print a lot")
        await wait_for(pilot, lambda: bool(tools(app)) and tools(app)[0].state != "running", timeout=60)
        await echo(pilot, app, "qzj")
        await wait_for(pilot, lambda: idle(app))
        row, lines = await expanded_tool_row(pilot, app)
        assert row.state == "done"
        [kept] = paths.tool_output_dir().glob("shell-*/stdout.txt")
        assert kept.stat().st_size == 50_000_000
        assert row.kept_output == str(kept)
        assert unwrapped(f"{KEPT_OUTPUT_LABEL} {kept}") in unwrapped("".join(line[4:] for line in lines[1:]))
        assert len(lines) < 60
        assert all(len(line) <= SIZE[0] for line in lines)
        assert len(row.plain_text()) < 100_000
        assert_nothing_reaches_the_terminal(app)
        await echo(pilot, app, "wzj")


async def test_one_five_megabyte_line_is_cut_and_kept() -> None:
    model = shell_then("head -c 5000000 /dev/zero | tr '\\0' y")
    app = make_app(model, redact=no_redaction)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await submit(pilot, "one long line")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)), timeout=30)
        row, lines = await expanded_tool_row(pilot, app)
        [kept] = paths.tool_output_dir().glob("shell-*/stdout.txt")
        assert kept.stat().st_size == 5_000_000
        assert row.kept_output == str(kept)
        assert any("chars)" in line for line in lines)  # the line is cut, saying by how much
        assert len(lines) < 60
        assert_nothing_reaches_the_terminal(app)
        await echo(pilot, app, "kzj")


async def test_binary_bytes_show_inert_and_bounded() -> None:
    model = shell_then("head -c 100000 /dev/urandom")
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await submit(pilot, "cat a binary")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)), timeout=30)
        row, lines = await expanded_tool_row(pilot, app)
        assert row.state == "done"
        assert row.kept_output is not None and row.kept_output.endswith("stdout.txt")
        assert len(lines) < 1000
        assert_nothing_reaches_the_terminal(app)
        await echo(pilot, app, "bzj")


async def test_escape_sequences_are_shown_inert() -> None:
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": ANSI_COMMAND}),
        text_step(
            "ok \x1b[31mred\x1b]52;c;aGVsbG8=\x07 \x1b]8;;http://evil.test\x1b\\x\x1b]8;;\x1b\\ \x9b2J done"
        ),
    )
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await submit(pilot, "colours")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        row, lines = await expanded_tool_row(pilot, app)
        shown = "\n".join(lines[1:])  # the output, under the row (the row shows the command)
        # A carriage return overwrites the start of the line, as in a terminal; colours go; every
        # other sequence is written out, as the dialogs write it: nothing it hid stays hidden.
        assert shown.startswith("  │ over") and "red" in shown and "end" in shown and "[31m" not in shown
        for hidden in (
            "\\x1b]52;c;ZXZpbA==\\x07",
            "\\x1b]8;;http://evil.test",
            "\\x1b]0;title\\x07",
            "\\x9b31m",
        ):
            assert hidden in shown, hidden
        assert row.kept_output is None  # small output: nothing kept, nothing to point at
        assert_nothing_reaches_the_terminal(app)
        # The copy of the row gives the output as the command printed it.
        assert "\x1b]52;c;ZXZpbA==" in row.plain_text()
        await echo(pilot, app, "ezj")


# -- a slow stream and a resize storm ----------------------------------------------------------------


def words(count: int) -> str:
    """`count` distinct words in paragraphs: each must appear exactly once on screen."""
    paragraphs = []
    for start in range(0, count, 40):
        paragraphs.append(" ".join(f"w{n:05d}" for n in range(start, min(count, start + 40))))
    return "\n\n".join(paragraphs) + "\n"


def trickle(text: str, *, every: int, pause: float) -> Step:
    """One character per delta; sleep `pause` after every `every` characters (the rest yield only)."""

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        for index, char in enumerate(text):
            yield ModelEvent.text(char)
            await asyncio.sleep(pause if index % every == 0 else 0)
        yield ModelEvent.completed(
            ModelResponse(AssistantMessage(content=text), finish_reason="stop", usage=usage())
        )

    return step


def answer_words(app: ZettApp, block: AnswerBlock) -> list[str]:
    transcript = app.chat.transcript
    lines = block.render(transcript.scrollable_content_region.width, transcript._render_context())
    return "".join("".join(text for text, _ in line) + " " for line in lines).split()


async def test_an_answer_one_character_at_a_time_is_drawn_in_batches() -> None:
    text = words(1_400)  # about 10,000 characters, as many deltas
    model = ScriptedModel(trickle(text, every=10, pause=0.001))
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        transcript = app.chat.transcript
        syncs_before = transcript.sync_count
        started_wall, started_cpu = time.perf_counter(), time.process_time()
        await submit(pilot, "slowly")
        await wait_for(pilot, lambda: bool(answers(app)))
        await echo(pilot, app, "szj")
        await wait_for(pilot, lambda: idle(app), timeout=120)
        wall, cpu = time.perf_counter() - started_wall, time.process_time() - started_cpu
        [answer] = answers(app)
        assert answer.text == text
        syncs = transcript.sync_count - syncs_before
        print(f"\n{len(text)} one-character deltas: {wall:.1f} s wall, {cpu / wall:.0%} CPU, {syncs} syncs")
        # Flushes run at most 15 times a second (turn_presenter.FLUSH_HZ); a slower machine does fewer.
        assert syncs <= wall * 30 + 10
        # Each finished paragraph is rendered once; the open tail once per sync at most.
        paragraphs = text.count("\n\n") + 1
        assert answer.document.render_count <= paragraphs + syncs + 2
        assert answer_words(app, answer) == text.split()
        assert_nothing_reaches_the_terminal(app)


async def resize_storm(pilot: Pilot[Any], sizes: list[tuple[int, int]]) -> None:
    """Resize events 200 times a second, as a window being dragged sends them; every tenth one waits
    for the app to lay the screen out at that size, the others arrive faster than frames.

    (Not `Pilot.resize_terminal`: it waits for the app to go idle, which an answer still streaming
    never does, so each took its full second.)"""
    driver = pilot.app._driver
    for index, (width, height) in enumerate(sizes):
        size = Size(width, height)
        if isinstance(driver, HeadlessDriver):
            driver._size = size
        pilot.app.post_message(events.Resize(size, size))
        if index % 10 == 0:
            await wait_for(pilot, lambda drawn=size: pilot.app.screen._compositor.size == drawn)
        else:
            await asyncio.sleep(0.005)


def stream_until(calm: asyncio.Event, sent: list[str]) -> Step:
    """Markdown in small deltas, 20 ms apart (the answer keeps arriving through a storm without
    growing so long that re-laying it out at each size is the test's whole time), until `calm` is
    set; then, without waiting, the rest of 200 words and a code block."""

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        pieces = ["# Storm\n\n"]
        yield ModelEvent.text(pieces[0])
        number = 0
        while not calm.is_set() or number < 200:
            pieces.append(f"w{number:05d} " + ("\n\n" if number % 40 == 39 else ""))
            yield ModelEvent.text(pieces[-1])
            number += 1
            await asyncio.sleep(0 if calm.is_set() else 0.02)
        pieces.append("\n\n```python\nprint('still here')\n```\n")
        yield ModelEvent.text(pieces[-1])
        sent.append("".join(pieces))
        yield ModelEvent.completed(
            ModelResponse(AssistantMessage(content=sent[0]), finish_reason="stop", usage=usage())
        )

    return step


async def test_a_resize_storm_while_streaming_leaves_a_correct_layout() -> None:
    calm = asyncio.Event()
    sent: list[str] = []
    model = ScriptedModel(stream_until(calm, sent), text_step("After the storm."))
    app = make_app(model)
    sizes = [(10, 5), (300, 80), (100, 30), (37, 12), (11, 6), (200, 50), (61, 20), (300, 8)]
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await submit(pilot, "stream while I resize")
        await wait_for(pilot, lambda: bool(answers(app)))
        await resize_storm(pilot, [sizes[index % len(sizes)] for index in range(100)])
        assert answers(app)[0].streaming  # the whole storm hit an answer still arriving
        calm.set()
        await pilot.resize_terminal(*SIZE)
        await wait_for(pilot, lambda: idle(app), timeout=30)
        await pilot.pause()
        [answer] = answers(app)
        [text] = sent
        assert answer.text == text
        shown = answer_words(app, answer)
        assert shown[:2] == ["Storm", "w00000"]
        assert shown[-2:] == ["print('still", "here')"]
        # What scrolling the whole transcript shows: every word once, in order (heights are right).
        transcript = app.chat.transcript
        transcript.update_now()
        scrolled = " ".join(transcript.line_text(y) for y in range(transcript.virtual_size.height)).split()
        assert [word for word in scrolled if word.startswith("w0")] == text.split()[2:-4]
        assert transcript.virtual_size.width == transcript.scrollable_content_region.width
        assert_nothing_reaches_the_terminal(app)
        await echo(pilot, app, "rzj")
        await submit(pilot, "again")
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        assert "After the storm." in screen_text(app)
