"""Long sessions stay fast: 300 turns through the real app, measured at turn 1, 100 and 300.

Run: ``python -m benchmarks.bench_long_session`` (about 3-4 minutes on 2 cores; ``--turns 100
--measure-at 1,50,100`` is quicker).

What it drives: ``ZettApp`` headless (``App.run_test``, 160x45) with the real ``OpenAIProvider``
(``zett_tui.providers.build.build_model``) against the loopback fake server (``tests.fakes.llm_server``,
in this process), in its own XDG folders and project folder. Every turn is typed into the prompt
box and sent with Enter; the model first calls ``read_file`` (a tool row with 40 lines of output),
then answers in Markdown (headings, prose, lists, tables, a Python code block;
``bench_transcript.make_answer``). Most turns stream a ~1.5 KB answer in big chunks, to keep the run
short; the measured turns stream the same fixed 20 KB answer in 8-character chunks (~2,500 deltas),
as the SDK delivers a real answer. The context window is set high enough that no compaction runs:
the model's context grows with the session, as it would without compaction.

Measured at each turn named by ``--measure-at`` (1, 100 and 300): three turns with the 20 KB answer
(turns N to N+2; the session goes on to 302 turns), then the rest:

- stream (medians of the three): Enter -> the turn is over, the answer block holds the whole text
  and a frame was drawn after that (frames are encoded to escape sequences as a terminal driver
  would), split at the first text on screen (before it: the model request, which grows with the
  model's context); CPU of the process over both spans, and of it the transcript's updates and the
  frames (``UiWork``); the longest event-loop stall (a 5 ms timer late); keystroke echo while the
  turns run (a key every 50 ms);
- echo: a key event sent to the prompt box (as the terminal driver would) -> the first frame
  that shows it, 20 times while idle;
- scroll: a PageUp key event with the transcript focused -> the first frame at the new position,
  10 times up from the bottom, then Home and 10 PageDown from the top (the oldest turns, whose
  rendered lines were dropped, render again), keys 1/30 s apart as a held key repeats;
- memory: VmRSS of this process (the fake server included; the requests it records are dropped
  after each turn); the transcript blocks holding rendered lines, and the widgets on the screen.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events

from benchmarks.bench_transcript import FrameClock, make_answer, rss_mb
from zett_tui.ui.widgets.transcript import AnswerBlock

SIZE = (160, 45)
STREAM_ANSWER = make_answer(20_000, seed=20)
NOTES = "".join(f"{n:3d}. a line of the notes file the model reads on every turn\n" for n in range(40))
ECHO_SAMPLES = 20
STREAM_REPEATS = 3
"""Turns with the 20 KB answer at each measuring point (turns N to N+2; medians are shown)."""
SCROLL_PAGES = 10
KEY_REPEAT_S = 1 / 30
"""Between two page keys: a held key repeats about 30 times a second."""


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def med_p95(samples: list[float]) -> str:
    if not samples:
        return "n/a"
    return f"{statistics.median(samples) * 1000:5.1f} / {percentile(samples, 0.95) * 1000:5.1f} ms"


class StallWatch:
    """The longest time the event loop did not get round to a 5 ms timer (started on creation)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            self.longest = max(self.longest, time.perf_counter() - before - 0.005)

    def stop(self) -> float:
        self._task.cancel()
        return self.longest


class UiWork:
    """CPU seconds spent in the transcript's updates and in drawing frames (the whole screen).

    Wraps ``Transcript._sync`` and Textual's ``Screen._compositor_refresh`` for the whole run; what
    a turn costs the UI, apart from the agent, the provider and the storage around it.
    """

    seconds = 0.0

    @classmethod
    def install(cls) -> None:
        from textual.screen import Screen

        from zett_tui.ui.widgets.transcript import Transcript

        for owner, name in ((Transcript, "_sync"), (Screen, "_compositor_refresh")):
            original = getattr(owner, name)

            def timed(self: Any, *args: Any, _original: Any = original) -> Any:
                started = time.process_time()
                try:
                    return _original(self, *args)
                finally:
                    UiWork.seconds += time.process_time() - started

            setattr(owner, name, timed)


class Session:
    """The app, its fake server and the measurements taken so far."""

    def __init__(self, app: Any, pilot: Any, server: Any) -> None:
        self.app = app
        self.pilot = pilot
        self.server = server
        self.chat = app.chat
        self.transcript = app.chat.transcript
        self.clock = FrameClock(app)
        self.turns = 0

    def send_key(self, key: str, character: str | None) -> None:
        assert self.app._driver is not None
        self.app._driver.send_message(events.Key(key, character))

    def settled(self) -> bool:
        chat = self.chat
        return (
            chat.host is not None
            and not chat.turns.busy
            and not chat.turns.queued
            and not self.transcript.update_pending
        )

    async def wait(self, condition: Callable[[], bool], timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise RuntimeError("the app did not get there in time")
            await asyncio.sleep(0.005)

    async def turn(self, answer: str, chunk: int, echo_every: float = 0) -> dict[str, Any]:
        """One turn: read_file, then `answer`; returns timings of the whole turn."""
        from tests.fakes.llm_server import Reply

        self.turns += 1
        number = self.turns
        self.server.script(
            Reply.tool_call("read_file", {"path": "notes.md"}, call_id=f"call_{number}", chunk=64),
            Reply.text(answer, chunk=chunk),
        )
        self.chat.composer.load_text(f"Question {number}: how does the cache handle a resize?")
        self.chat.composer.focus()
        await self.pilot.pause()
        echoes: list[float] = []
        blocks_before = len(self.transcript.blocks)
        first_text: list[tuple[float, float, float]] = []

        def answer_shown() -> bool:
            blocks = self.transcript.blocks
            if not first_text and len(blocks) > blocks_before and isinstance(blocks[-1], AnswerBlock):
                first_text.append((time.perf_counter(), time.process_time(), UiWork.seconds))
            return self.settled()

        stalls = StallWatch()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        self.send_key("enter", "\r")
        await self.wait(lambda: self.chat.turns.busy)
        typing = asyncio.create_task(self._type_while_busy(echoes, echo_every)) if echo_every else None
        await self.wait(answer_shown)
        shown = await self.next_frame()
        cpu = time.process_time() - cpu0
        longest_stall = stalls.stop()
        if typing is not None:
            await typing
            self.chat.composer.load_text("")
        answers = [block for block in self.transcript.blocks if isinstance(block, AnswerBlock)]
        if not answers or answers[-1].text != answer or not first_text:
            raise RuntimeError(f"turn {number}: the answer is not complete on screen")
        with self.server._lock:  # the fake server records every request; a benchmark need not
            self.server._requests.clear()
        text_at, text_cpu, ui_before = first_text[0]
        ui_work = UiWork.seconds - ui_before
        return {
            "wall": shown - wall0,
            "first_text": text_at - wall0,
            "streaming": shown - text_at,
            "cpu": cpu,
            "streaming_cpu": cpu0 + cpu - text_cpu,
            "ui_work": ui_work,
            "echo": echoes,
            "stall": longest_stall,
        }

    async def next_frame(self, timeout: float = 1.0) -> float:
        """The time of the next frame, or now if none comes (nothing changed on screen)."""
        try:
            return await asyncio.wait_for(self.clock.wait(), timeout)
        except TimeoutError:
            return time.perf_counter()

    async def _type_while_busy(self, echoes: list[float], every: float) -> None:
        while self.chat.turns.busy:
            await asyncio.sleep(every)
            if self.chat.turns.busy:
                echoes.append(await self.echo_once())

    async def echo_once(self) -> float:
        composer = self.chat.composer
        expected = len(composer.text) + 1
        shown = self.clock.wait(lambda: len(composer.text) >= expected)
        sent = time.perf_counter()
        self.send_key("x", "x")
        return await asyncio.wait_for(shown, 10) - sent

    async def idle_echo(self) -> list[float]:
        self.chat.composer.focus()
        await self.pilot.pause()
        samples: list[float] = []
        for _ in range(ECHO_SAMPLES):
            samples.append(await self.echo_once())
            await asyncio.sleep(0.02)
        self.chat.composer.load_text("")
        return samples

    async def scroll_once(self, key: str) -> float:
        await asyncio.sleep(KEY_REPEAT_S)
        transcript = self.transcript
        before = transcript.scroll_offset.y
        shown = self.clock.wait(lambda: transcript.scroll_offset.y != before)
        sent = time.perf_counter()
        self.send_key(key, None)
        return await asyncio.wait_for(shown, 10) - sent

    async def scrolls(self) -> list[float]:
        """Page up from the bottom, then page down from the top (fewer pages in a short transcript)."""
        transcript = self.transcript
        transcript.focus()
        await self.pilot.pause()
        samples: list[float] = []
        while len(samples) < SCROLL_PAGES and transcript.scroll_offset.y > 0:
            samples.append(await self.scroll_once("pageup"))
        transcript.action_scroll_home()
        await self.next_frame()
        for _ in range(SCROLL_PAGES):
            if transcript.scroll_offset.y >= transcript.max_scroll_y:
                break
            samples.append(await self.scroll_once("pagedown"))
        transcript.action_scroll_end()
        self.chat.composer.focus()
        await self.next_frame()
        return samples

    def memory(self) -> dict[str, Any]:
        blocks = self.transcript.blocks
        gc.collect()
        return {
            "rss": rss_mb(),
            "cached_blocks": sum(1 for block in blocks if block.has_render_cache),
            "cached_lines": self.transcript._layout.cached_lines,
            "blocks": len(blocks),
            "lines": self.transcript.virtual_size.height,
            "widgets": len(list(self.app.screen.walk_children())),
        }


async def warm_up(launch: Any, server: Any) -> None:
    """First-use imports, so that turn 1 does not pay for them: a turn of the agent alone (the
    provider's request code), and the 20 KB answer rendered once (Markdown, the code lexers).

    Not a whole throwaway app: zett freezes the objects alive when its first agent is ready
    (``ui/long_lived_objects.py``), once per process, and that must be the measured app's.
    """
    from tests.fakes.llm_server import Reply
    from zett_tui.runtime.host import AgentHost, HostOptions
    from zett_tui.ui.widgets.transcript_render import BlockStyles, RenderContext

    server.script(Reply.text(STREAM_ANSWER, chunk=256))
    host = AgentHost(
        HostOptions(model_factory=launch.model_factory, model_label=launch.model_label, cwd=launch.cwd)
    )
    await host.start()
    try:
        await host.run_turn("warm up", lambda event: None)
    finally:
        await host.aclose()
    answer = AnswerBlock()
    answer.append(STREAM_ANSWER)
    answer.finish()
    answer.render(SIZE[0], RenderContext(BlockStyles.plain()))


async def measure(session: Session) -> dict[str, Any]:
    """`STREAM_REPEATS` turns with the 20 KB answer (medians), then echo, scrolling and memory."""
    streams = [await session.turn(STREAM_ANSWER, 8, echo_every=0.05) for _ in range(STREAM_REPEATS)]
    stream: dict[str, Any] = {
        key: statistics.median(turn[key] for turn in streams)
        for key in streams[0]
        if key not in ("echo", "stall")
    }
    stream["stall"] = max(turn["stall"] for turn in streams)
    stream["echo"] = [echo for turn in streams for echo in turn["echo"]]
    await session.pilot.pause()
    return {
        "stream": stream,
        "echo": await session.idle_echo(),
        "scroll": await session.scrolls(),
        **session.memory(),
    }


async def run(turns: int, measure_at: tuple[int, ...], small_chunk: int) -> dict[int, dict[str, Any]]:
    from tests.fakes.llm_server import FakeLLMServer
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.providers.build import ModelChoice, build_model
    from zett_tui.ui.app import ZettApp

    results: dict[int, dict[str, Any]] = {}
    UiWork.install()
    with FakeLLMServer() as server:
        env = {"OPENAI_API_KEY": "sk-bench-dummy", "OPENAI_BASE_URL": server.openai_base_url}
        launch = LaunchSettings(
            model_label="openai:gpt-test",
            model_factory=lambda: build_model(ModelChoice("openai", "gpt-test"), {}, env),
            bell=False,
            cwd=Path.cwd(),
            context_window=1_000_000_000,
        )
        await warm_up(launch, server)
        app = ZettApp(launch)
        async with app.run_test(size=SIZE) as pilot:
            session = Session(app, pilot, server)
            await session.wait(lambda: app.chat.host is not None)
            started = time.perf_counter()
            while session.turns < turns:
                number = session.turns + 1
                if number in measure_at:
                    results[number] = await measure(session)
                    elapsed = time.perf_counter() - started
                    print(f"turn {number}: measured, {elapsed:.0f} s so far", file=sys.stderr)
                else:
                    await session.turn(make_answer(1_500, seed=number), small_chunk)
    return results


def report(results: dict[int, dict[str, Any]]) -> None:
    turns = sorted(results)
    first, last = turns[0], turns[-1]
    print(f"zett, {SIZE[0]}x{SIZE[1]}, each turn: read_file row + Markdown answer with a code block")
    print(
        f"stream: the fixed {len(STREAM_ANSWER) / 1000:.0f} KB answer in 8-character deltas, Enter -> on screen"
    )
    print()
    header = f"{'':38s}" + "".join(f"{'turn ' + str(turn):>20s}" for turn in turns) + f"{'ratio':>9s}"
    print(header)

    def row(name: str, values: list[str], ratio: float | None) -> None:
        shown_ratio = f"{ratio:8.2f}x" if ratio is not None else ""
        print(f"{name:38s}" + "".join(f"{value:>20s}" for value in values) + shown_ratio)

    def median(turn: int, key: str, sub: str | None = None) -> float:
        samples = results[turn][key][sub] if sub else results[turn][key]
        return statistics.median(samples)

    row(
        "keystroke echo, idle (med / p95)",
        [med_p95(results[t]["echo"]) for t in turns],
        median(last, "echo") / median(first, "echo"),
    )
    row(
        "page scroll -> frame (med / p95)",
        [med_p95(results[t]["scroll"]) for t in turns],
        median(last, "scroll") / median(first, "scroll"),
    )

    def stream_row(name: str, key: str, unit: str = "s", scale: float = 1.0) -> None:
        values = [results[t]["stream"][key] * scale for t in turns]
        row(
            name,
            [f"{value:.2f} {unit}" if unit == "s" else f"{value:.0f} {unit}" for value in values],
            values[-1] / values[0],
        )

    stream_row("turn with the 20 KB answer: Enter -> end", "wall")
    stream_row("  Enter -> first text (model request)", "first_text")
    stream_row("  first text -> all on screen", "streaming")
    stream_row("  CPU, first text -> all on screen", "streaming_cpu")
    stream_row("    of which transcript updates + frames", "ui_work")
    stream_row("  CPU, whole turn", "cpu")
    stream_row("  longest event-loop stall in the turns", "stall", "ms", 1000)
    row(
        "  echo during those turns (med / p95)",
        [med_p95(results[t]["stream"]["echo"]) for t in turns],
        median(last, "stream", "echo") / median(first, "stream", "echo")
        if results[first]["stream"]["echo"] and results[last]["stream"]["echo"]
        else None,
    )
    row("RSS", [f"{results[t]['rss']:.0f} MB" for t in turns], results[last]["rss"] / results[first]["rss"])
    row(
        "blocks holding rendered lines",
        [f"{results[t]['cached_blocks']} of {results[t]['blocks']}" for t in turns],
        None,
    )
    row("rendered lines held", [str(results[t]["cached_lines"]) for t in turns], None)
    row("transcript lines", [str(results[t]["lines"]) for t in turns], None)
    row("widgets on the screen", [str(results[t]["widgets"]) for t in turns], None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--measure-at", default="1,100,300", help="turns to measure after (comma-separated)")
    parser.add_argument("--chunk", type=int, default=256, help="delta size of the unmeasured turns' answers")
    args = parser.parse_args()
    measure_at = tuple(sorted(int(turn) for turn in args.measure_at.split(",") if turn.strip()))
    if not measure_at or measure_at[-1] > args.turns:
        parser.error("--measure-at must name turns within --turns")
    from zett_tui.core import long_lived_objects

    long_lived_objects.pause_collection()  # as the zett command does: the app's GC handling, as shipped
    with tempfile.TemporaryDirectory(prefix="zett-long-session-") as folder:
        home = Path(folder)
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            os.environ[name] = str(home / name.lower())
        project = home / "project"
        project.mkdir()
        (project / "notes.md").write_text(NOTES)
        with contextlib.chdir(project):
            started = time.perf_counter()
            results = asyncio.run(run(args.turns, measure_at, args.chunk))
            print(f"({args.turns} turns in {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    report(results)


if __name__ == "__main__":
    main()
