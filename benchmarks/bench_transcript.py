"""Benchmark the transcript widget against the floor and against Textual's `Markdown` widget.

Run: `python -m benchmarks.bench_transcript` (about 1-2 minutes; `--quick` skips the baseline and
uses fewer samples, `--baseline-cap 60` bounds the baseline run in seconds).

What it simulates:

- A ~58 KB Markdown answer (headings, prose, lists, tables, code) arrives as 8-character deltas
  (~7,300). The producer stands in for zett-agent + zett's raw Chat Completions reader: at the
  start of the run, that runtime streams a 58 KB answer from the fake server with no UI
  (``bench_stream_runtime``, median of 3) and the producer then burns the CPU it took, spread
  evenly over the deltas, on the same event loop as the UI, and yields to the loop after every
  delta like the consume loop awaiting the stream (``--runtime-cpu S`` sets it instead). It batches like the app: deltas accumulate and `append` + `refresh_block` run when 1/30 s
  of wall time has passed since the last flush (30 Hz).
- The floor is the same producer with nothing on screen, measured in the same run; "rich once" is
  rich rendering the whole answer in one go at the same width.
- "no batching": `refresh_block` after every 8th delta without the runtime cost (~900 calls as fast as the
  loop allows) shows that the widget coalesces updates by itself.
- Keystroke echo: a key event is sent to an `Input` on the same screen (as the terminal driver
  would) and timed until the first frame in which the Input shows it.
- Frames are encoded to terminal escape sequences as a real driver would (headless mode skips it).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import io
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from textual import events
from textual._compositor import LayoutUpdate
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Input, Markdown

from zett_tui.ui.widgets.transcript import AnswerBlock, ToolBlock, Transcript, UserBlock

WIDTH, HEIGHT = 160, 45
DELTA_CHARS = 8
FLUSH_HZ = 30
RUNTIME_SAMPLES = 3

_PROSE = """the model streams tokens while the renderer keeps up with each delta and the user reads along
terminal widget cache strip height virtual scroll offset python textual rich markdown function returns
value error handling session transcript latency budget frame compositor"""
_WORDS = _PROSE.split()

_CODE = '''def render_block(block, width):
    """Render a block to lines, cached per width."""
    key = (width, block.version)
    if block.cache_key != key:
        block.lines = expensive_render(block, width)
        block.cache_key = key
    return block.lines


class Cache:
    def __init__(self, size: int = 128) -> None:
        self._data: dict[str, int] = {}
        self.size = size

    def get(self, name: str) -> int | None:
        return self._data.get(name)
'''


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 5)))


def make_answer(target_chars: int = 58_000, seed: int = 7) -> str:
    """A Markdown answer of about `target_chars`: sections with prose, code, tables and lists."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    section = 0
    while size < target_chars:
        section += 1
        new = [f"## Section {section}: {rng.choice(_WORDS)} {rng.choice(_WORDS)}", _paragraph(rng)]
        kind = section % 4
        if kind == 1:
            new.append("```python\n" + _CODE + "```")
        elif kind == 2:
            rows = ["| name | kind | notes |", "|---|---|---|"]
            rows += [
                f"| `{rng.choice(_WORDS)}` | {rng.choice(_WORDS)} | {_sentence(rng)} |"
                for _ in range(rng.randint(3, 6))
            ]
            new.append("\n".join(rows))
        elif kind == 3:
            new.append("\n".join(f"{i}. {_sentence(rng)}" for i in range(1, rng.randint(3, 7))))
            new.append("### Details\n\n" + _paragraph(rng) + " Use `render_block()` with *care*.")
        else:
            new.append(
                "\n".join(f"- **{rng.choice(_WORDS)}**: {_sentence(rng)}" for _ in range(rng.randint(3, 6)))
            )
        new.append(_paragraph(rng))
        parts.extend(new)
        size += sum(len(part) + 2 for part in new)
    return "\n\n".join(parts) + "\n"


def measure_runtime_cpu(samples: int = RUNTIME_SAMPLES) -> float:
    """CPU seconds zett-agent + zett's Chat Completions reader need for a 58 KB answer, no UI: the
    median of ``samples`` turns against the fake server (``bench_stream_runtime``'s lean path)."""
    import tempfile
    from pathlib import Path

    from benchmarks import bench_stream_runtime as runtime

    text = runtime.answer_text()
    with tempfile.TemporaryDirectory() as scratch:
        server, base = runtime.start_server(runtime.chat_body(text), Path(scratch))
        try:
            make = runtime.providers(base)["chat lean"]
            cpus = [asyncio.run(runtime.one_turn(make, text))[1] for _ in range(samples)]
        finally:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(timeout=10)
    return statistics.median(cpus)


def split_deltas(text: str, size: int = DELTA_CHARS) -> list[str]:
    return [text[index : index + size] for index in range(0, len(text), size)]


def rss_mb() -> float:
    """Resident memory of this process (MB), from /proc (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class FrameClock:
    """Hooks `App._display`: encodes each frame like a terminal driver and wakes frame waiters."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.frames = 0
        #: Characters of escape sequences and text the frames would write to the terminal.
        self.written = 0
        #: Frames that drew the whole screen (Textual's ``LayoutUpdate``), and the last one's size.
        self.whole = 0
        self.last_whole_written = 0
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[float]]] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is None:
                return
            if hasattr(renderable, "render_segments"):
                size = len(renderable.render_segments(app.console))
                self.written += size
                if isinstance(renderable, LayoutUpdate):
                    self.whole += 1
                    self.last_whole_written = size
            self.frames += 1
            now = time.perf_counter()
            for waiter in list(self._waiters):
                predicate, future = waiter
                if not future.done() and predicate():
                    future.set_result(now)
                    self._waiters.remove(waiter)

        app._display = display  # type: ignore[method-assign]

    def wait(self, predicate: Callable[[], bool] = lambda: True) -> asyncio.Future[float]:
        """A future resolved with the time of the first frame after now for which `predicate()` holds."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        return future


class BenchApp(App[None]):
    """A transcript (or the Markdown baseline) above an Input, like the chat screen."""

    CSS = """
    #view { height: 1fr; }
    Input { dock: bottom; }
    """

    def __init__(self, baseline: bool = False) -> None:
        super().__init__()
        self.baseline = baseline

    def compose(self) -> ComposeResult:
        if self.baseline:
            with VerticalScroll(id="view"):
                yield Markdown()
        else:
            yield Transcript(id="view")
        yield Input(select_on_focus=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()


async def echo_once(app: App[Any], clock: FrameClock) -> float:
    """Send one key to the focused Input; seconds until a frame shows it."""
    field = app.query_one(Input)
    expected = len(field.value) + 1
    shown = clock.wait(lambda: len(field.value) >= expected)
    started = time.perf_counter()
    assert app._driver is not None
    app._driver.send_message(events.Key("x", "x"))
    return await asyncio.wait_for(shown, 10) - started


async def echo_while(app: App[Any], clock: FrameClock, running: asyncio.Event, every: float) -> list[float]:
    samples: list[float] = []
    while not running.is_set():
        samples.append(await echo_once(app, clock))
        await asyncio.sleep(every)
    return samples


Sink = Callable[[str], Awaitable[None]]


def burn(seconds: float) -> None:
    """Spend `seconds` of this thread's CPU time (stands in for the runtime reading the stream)."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


async def produce(deltas: list[str], sink: Sink, sdk_cpu_s: float, every: int = 0) -> None:
    """Feed deltas, spending `sdk_cpu_s` of CPU over the stream; flush at 30 Hz (or every N deltas)."""
    pending: list[str] = []
    period = 1 / FLUSH_HZ
    last_flush = time.perf_counter()
    cost = sdk_cpu_s / len(deltas)
    for index, delta in enumerate(deltas):
        if cost:
            burn(cost)
        pending.append(delta)
        now = time.perf_counter()
        if (every and index % every == 0) or (not every and now - last_flush >= period):
            await sink("".join(pending))
            pending.clear()
            last_flush = now
        await asyncio.sleep(0)
    if pending:
        await sink("".join(pending))


async def stream_transcript(
    pilot: Pilot[Any],
    clock: FrameClock,
    deltas: list[str],
    sdk_cpu_s: float,
    probe_every: float = 0,
    every: int = 0,
) -> dict[str, Any]:
    """Stream one answer into the transcript; time until the frame that shows it complete."""
    app = pilot.app
    transcript = app.query_one(Transcript)
    answer = transcript.add(AnswerBlock(label="bench-model"))
    assert isinstance(answer, AnswerBlock)
    await pilot.pause()
    syncs_before, frames_before = transcript.sync_count, clock.frames

    async def sink(text: str) -> None:
        answer.append(text)
        transcript.refresh_block(answer)

    done = asyncio.Event()
    probe = asyncio.create_task(echo_while(app, clock, done, probe_every)) if probe_every else None
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await produce(deltas, sink, sdk_cpu_s, every)
    produced = time.perf_counter()
    answer.finish("completed")
    transcript.refresh_block(answer)
    while transcript.update_pending:
        await asyncio.sleep(0.001)
    shown = await clock.wait()
    cpu = time.process_time() - cpu0
    done.set()
    echoes = await probe if probe else []
    return {
        "wall": shown - wall0,
        "cpu": cpu,
        "lag": shown - produced,
        "syncs": transcript.sync_count - syncs_before,
        "frames": clock.frames - frames_before,
        "echo": echoes,
        "tail_renders": answer.document.render_count,
    }


async def stream_baseline(
    pilot: Pilot[Any], clock: FrameClock, deltas: list[str], cap_s: float
) -> dict[str, Any]:
    """The same answer into a Textual `Markdown` via `MarkdownStream` in a `VerticalScroll`."""
    app = pilot.app
    markdown = app.query_one(Markdown)
    app.query_one(VerticalScroll).anchor()
    stream = Markdown.get_stream(markdown)

    async def run() -> None:
        await produce(deltas, stream.write, RUNTIME_CPU_S)
        await stream.stop()
        await pilot.pause()

    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        await asyncio.wait_for(run(), cap_s)
    except TimeoutError:
        return {"wall": None, "cpu": time.process_time() - cpu0, "blocks": len(markdown.children)}
    shown = await clock.wait()
    return {
        "wall": shown - wall0,
        "cpu": time.process_time() - cpu0,
        "blocks": len(markdown.children),
    }


async def floors(text: str, deltas: list[str], repeat: int) -> dict[str, Any]:
    """The producer alone (same app, nothing on screen changes), and rich rendering the answer once."""
    started = time.perf_counter()
    pending: list[str] = []
    for delta in deltas:
        pending.append(delta)
    iterate = time.perf_counter() - started

    async def nothing(text: str) -> None:
        return None

    walls, cpus = [], []
    for _ in range(repeat):
        app = BenchApp()
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            await pilot.pause()
            cpu0, wall0 = time.process_time(), time.perf_counter()
            await produce(deltas, nothing, RUNTIME_CPU_S)
            walls.append(time.perf_counter() - wall0)
            cpus.append(time.process_time() - cpu0)
    console = Console(file=io.StringIO(), width=WIDTH, force_terminal=True, color_system="truecolor")
    started = time.perf_counter()
    console.render_lines(RichMarkdown(text), console.options.update_width(WIDTH))
    rich_once = time.perf_counter() - started
    return {
        "iterate": iterate,
        "rich_once": rich_once,
        "wall": statistics.median(walls),
        "cpu": statistics.median(cpus),
        "walls": walls,
    }


def median_p95(samples: list[float]) -> str:
    if not samples:
        return "n/a"
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered) * 1000:.1f} / {p95 * 1000:.1f} ms (n={len(ordered)})"


async def idle_echo(pilot: Pilot[Any], clock: FrameClock, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        samples.append(await echo_once(pilot.app, clock))
        await pilot.pause()
    return samples


async def bench_single(deltas: list[str], echo_count: int, repeat: int) -> dict[str, Any]:
    """The runtime-like stream `repeat` times (a fresh app each time): the median run, all echo samples."""
    runs: list[dict[str, Any]] = []
    for attempt in range(repeat):
        app = BenchApp()
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            clock = FrameClock(app)
            await pilot.pause()
            runs.append(await stream_transcript(pilot, clock, deltas, RUNTIME_CPU_S, probe_every=0.05))
            if attempt == repeat - 1:
                unbatched = await stream_transcript(pilot, clock, deltas, 0, every=8)
                idle = await idle_echo(pilot, clock, echo_count)
    sdk = dict(sorted(runs, key=lambda run: run["wall"])[len(runs) // 2])
    sdk["echo"] = [echo for run in runs for echo in run["echo"]]
    sdk["walls"] = [run["wall"] for run in runs]
    return {"sdk": sdk, "unbatched": unbatched, "idle_echo": idle}


def _turn_text(index: int) -> str:
    return make_answer(1_500, seed=index)


async def bench_turns(deltas: list[str], turns: int, echo_count: int) -> dict[str, Any]:
    app = BenchApp()
    rss: dict[int, float] = {}
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        clock = FrameClock(app)
        transcript = app.query_one(Transcript)
        await pilot.pause()
        rss[0] = rss_mb()
        started, cpu_started = time.perf_counter(), time.process_time()
        for index in range(turns):
            transcript.add(
                UserBlock(f"Question {index}: how does the cache handle a resize of the terminal?")
            )
            answer = transcript.add(AnswerBlock(label="bench-model"))
            assert isinstance(answer, AnswerBlock)
            answer.append(_turn_text(index))
            answer.finish("completed")
            tool = transcript.add(ToolBlock(f"call-{index}", "bash", f"pytest -q tests/test_{index}.py"))
            assert isinstance(tool, ToolBlock)
            tool.finish("done", "".join(f"line {n} of output\n" for n in range(40)), 0.4)
            await clock.wait()
            if index + 1 in (1, 100, 300) or index + 1 == turns:
                rss[index + 1] = rss_mb()
        add_time = time.perf_counter() - started
        add_cpu = time.process_time() - cpu_started
        await pilot.pause()
        idle = await idle_echo(pilot, clock, echo_count)
        transcript.focus()
        await pilot.pause()
        transcript.action_scroll_home()
        await clock.wait()
        scrolls = []
        for _ in range(20):
            frame = clock.wait()
            begun = time.perf_counter()
            transcript.scroll_page_down(animate=False)
            scrolls.append(await frame - begun)
        app.query_one(Input).focus()
        transcript.action_scroll_end()
        await pilot.pause()
        stream = await stream_transcript(pilot, clock, deltas, RUNTIME_CPU_S, probe_every=0.05)
        cached_blocks = sum(1 for block in transcript.blocks if block.has_render_cache)
        return {
            "rss": rss,
            "add_time": add_time,
            "add_cpu": add_cpu,
            "idle_echo": idle,
            "scrolls": scrolls,
            "stream": stream,
            "cached_blocks": cached_blocks,
            "blocks": len(transcript.blocks),
            "lines": transcript.virtual_size.height,
        }


async def bench_baseline(deltas: list[str], cap_s: float, echo_count: int) -> dict[str, Any]:
    app = BenchApp(baseline=True)
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        clock = FrameClock(app)
        await pilot.pause()
        result = await stream_baseline(pilot, clock, deltas, cap_s)
        result["idle_echo"] = await idle_echo(pilot, clock, echo_count) if result["wall"] else []
        return result


def _fmt(seconds: float | None) -> str:
    return "did not finish" if seconds is None else f"{seconds:6.2f} s"


def report(args: argparse.Namespace, text: str, deltas: list[str], results: dict[str, Any]) -> None:
    floor = results["floor"]
    single = results["single"]
    sdk, unbatched = single["sdk"], single["unbatched"]
    print(
        f"answer: {len(text) / 1000:.1f} KB in {len(deltas)} deltas of {DELTA_CHARS} chars, {WIDTH}x{HEIGHT}"
    )
    print()
    print("floor (same run)                               wall       CPU")
    print(f"  iterate the deltas                        {floor['iterate'] * 1000:7.1f} ms")
    print(f"  rich renders the whole answer once        {floor['rich_once'] * 1000:7.1f} ms")
    print(f"  zett-agent + raw reader, no UI (measured)           {RUNTIME_CPU_S:6.2f} s")
    print(f"  producer (runtime stand-in), no UI work   {_fmt(floor['wall'])}  {floor['cpu']:6.2f} s")
    print()
    print("answer fully on screen                         wall       CPU   syncs  frames  renders")
    rows = [
        ("transcript, runtime-like stream, 30 Hz", sdk),
        ("transcript, refresh every 8 deltas", unbatched),
    ]
    turns = results["turns"]
    rows.append((f"transcript after {args.turns} turns, runtime-like", turns["stream"]))
    for name, run in rows:
        print(
            f"  {name:41s} {_fmt(run['wall'])}  {run['cpu']:6.2f} s  {run['syncs']:5d}  {run['frames']:6d}"
            f"  {run['tail_renders']:7d}"
        )
    base = results.get("baseline")
    if base is not None:
        name = "Markdown + MarkdownStream, runtime-like"
        if base["wall"] is None:
            print(
                f"  {name:41s} did not finish in {args.baseline_cap:.0f} s ({base['blocks']} child widgets)"
            )
        else:
            print(
                f"  {name:41s} {_fmt(base['wall'])}  {base['cpu']:6.2f} s  ({base['blocks']} child widgets)"
            )
    ui_cpu = sdk["cpu"] - floor["cpu"]
    if len(sdk["walls"]) > 1:
        walls = ", ".join(f"{wall:.2f}" for wall in sdk["walls"])
        floors_ = ", ".join(f"{wall:.2f}" for wall in floor["walls"])
        print(f"  (median of runs: stream {walls} s; floor {floors_} s)")
    print()
    print("ratios")
    print(f"  stream wall / floor wall                  {sdk['wall'] / floor['wall']:6.2f}x   (target <= 2x)")
    rich_ratio = ui_cpu / floor["rich_once"]
    print(f"  UI CPU (stream CPU - floor CPU)         {ui_cpu:6.2f} s = {rich_ratio:.1f}x rich once")
    print(f"  UI CPU per sync                           {ui_cpu / max(1, sdk['syncs']) * 1000:6.1f} ms")
    print(f"  lag after the last delta                  {sdk['lag'] * 1000:6.0f} ms")
    if base is not None and base["wall"]:
        print(f"  baseline wall / transcript wall           {base['wall'] / sdk['wall']:6.1f}x")
    print()
    print("keystroke echo (median / p95)")
    print(f"  while streaming                {median_p95(sdk['echo'])}")
    print(f"  idle, 1 answer                 {median_p95(single['idle_echo'])}")
    if base is not None and base.get("idle_echo"):
        print(f"  idle, Markdown baseline        {median_p95(base['idle_echo'])}")
    print(f"  while streaming, {args.turns} turns     {median_p95(turns['stream']['echo'])}")
    print(f"  idle, {args.turns} turns                {median_p95(turns['idle_echo'])}")
    print()
    shape = f"{turns['blocks']} blocks, {turns['lines']} lines"
    print(f"{args.turns} turns (user + answer with code + tool row): {shape}")
    per_turn = turns["add_cpu"] / args.turns * 1000
    print(
        f"  adding them, one turn per frame          {turns['add_time']:6.2f} s, {per_turn:.1f} ms CPU a turn"
    )
    print(f"  page down + next frame (from the top)    {median_p95(turns['scrolls'])}")
    print(f"  blocks holding rendered lines            {turns['cached_blocks']} of {turns['blocks']}")
    print("  RSS: " + ", ".join(f"turn {turn}: {mb:.0f} MB" for turn, mb in turns["rss"].items()))


async def main_async(args: argparse.Namespace) -> None:
    text = make_answer()
    deltas = split_deltas(text)
    if args.gc_freeze:
        gc.freeze()
    repeat = 1 if args.quick else args.repeat
    results: dict[str, Any] = {"floor": await floors(text, deltas, repeat)}
    echo_count = 10 if args.quick else 30
    results["single"] = await bench_single(deltas, echo_count, repeat)
    results["turns"] = await bench_turns(deltas, args.turns, echo_count)
    if not args.quick:
        results["baseline"] = await bench_baseline(deltas, args.baseline_cap, echo_count)
    report(args, text, deltas, results)


RUNTIME_CPU_S = 0.0
"""The producer's CPU for the whole stream: the runtime's own, measured at the start (``main``)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="skip the Markdown baseline, fewer samples")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the floor and the stream (median)")
    parser.add_argument("--baseline-cap", type=float, default=60.0, help="seconds before giving up")
    parser.add_argument("--gc-freeze", action="store_true", help="gc.freeze() first (an app-level option)")
    parser.add_argument(
        "--runtime-cpu", type=float, help="the producer's CPU (s) instead of measuring the runtime"
    )
    args = parser.parse_args()
    global RUNTIME_CPU_S
    RUNTIME_CPU_S = args.runtime_cpu if args.runtime_cpu is not None else measure_runtime_cpu()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
