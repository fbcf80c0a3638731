"""The event loop's steps while the 58 KB answer streams, and what a typed key waited behind.

Run: ``python -m benchmarks.bench_stream_hops`` (``--runs 3``, ``--top 12``; against another tree:
copy this file into it and run it there with ``PYTHONPATH`` at that tree). ZettApp runs headless
(``App.run_test``, 160x45) against the fake server process (``bench_app.ServerProcess``) answering
``bench_transcript.make_answer`` in ~7,300 deltas, as ``bench_app``'s in-process stream does, with
garbage collection managed as the CLI does. Every callback the loop runs (``asyncio.Handle._run``)
is timed, wall and CPU of the loop's thread, from Enter until the answer is on screen. Meanwhile a
thread types a key every ``KEY_EVERY`` seconds as a terminal driver's input thread would (through
``Driver.send_message``), each timed until a frame shows it. Printed per run: the steps' median
and p95, how many took over 4 / 16 ms, the longest, the collections, the frames drawn and what they
would write to a terminal (KiB, as Textual's driver encodes them); then the keys' echo and, per
key, the time of the steps of ``DESCRIBED`` seconds or more that ran while it was on its way, by
kind (a frame, a widget's messages, the transcript's update, the stream); with ``--top``, the
longest steps and those of most CPU. Run 0 is the process's first: first-use costs land in it.
Under load, a step's wall time much above its CPU is the machine's (the process was not running).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_app import HEADLESS_SIZE, ServerProcess, keep_zett_files_in, openai_factory
from benchmarks.bench_transcript import FrameClock, make_answer

#: Steps at least this long are described (what ran).
DESCRIBED = 0.001
#: While the answer streams, a key every this many seconds (from a thread, as a terminal driver's).
KEY_EVERY = 0.05


class StepTimer:
    """Times each callback of the running loop (``asyncio.Handle._run``) while ``on``."""

    def __init__(self) -> None:
        #: (started, wall seconds, CPU seconds of the loop's thread, what ran: for steps of
        #: ``DESCRIBED`` seconds or more, else "").
        self.steps: list[tuple[float, float, float, str]] = []
        self.on = False
        self._original: Any = None
        #: Garbage collections while ``on``: (generation, seconds).
        self.collections: list[tuple[int, float]] = []
        self._collecting = 0.0

    def _collection(self, phase: str, info: dict[str, int]) -> None:
        if not self.on:
            return
        if phase == "start":
            self._collecting = time.perf_counter()
        else:
            self.collections.append((info["generation"], time.perf_counter() - self._collecting))

    def install(self) -> None:
        timer = self
        original = self._original = asyncio.events.Handle._run

        def timed(handle: asyncio.events.Handle) -> None:
            if not timer.on:
                return original(handle)  # type: ignore[no-any-return]
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return original(handle)  # type: ignore[no-any-return]
            finally:
                took = time.perf_counter() - start
                if took >= DESCRIBED:
                    timer.steps.append((start, took, time.thread_time() - cpu, _describe(handle)))
                else:
                    timer.steps.append((start, took, 0.0, ""))

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]
        gc.callbacks.append(self._collection)

    def uninstall(self) -> None:
        if self._original is not None:
            asyncio.events.Handle._run = self._original  # type: ignore[method-assign]
        gc.callbacks.remove(self._collection)


def _describe(handle: asyncio.events.Handle) -> str:
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        code = getattr(coro, "cr_code", None) or getattr(coro, "ag_code", None)
        frame = getattr(coro, "cr_frame", None)
        where = f"{code.co_filename.rsplit('/', 2)[-2:]}:{code.co_name}" if code else repr(coro)
        line = f" (suspended at line {frame.f_lineno})" if frame is not None else ""
        timer = (
            frame.f_locals.get("self")
            if frame is not None and code and code.co_name == "_run_timer"
            else None
        )
        pump = (
            frame.f_locals.get("self")
            if frame is not None and code and code.co_name == "_process_messages"
            else None
        )
        if pump is not None:  # a Textual message pump: whose
            line += f" of {type(pump).__name__}"
        if timer is not None:  # a Textual timer: which one
            line += f" {getattr(timer, 'name', '')} {getattr(timer, '_callback', None)!r:.80}"
        return f"task {where}{line}"
    return repr(callback)[:120]


async def one_run(
    server: ServerProcess, project: Path, answer: str, timer: StepTimer, *, with_keys: bool = True
) -> dict[str, Any]:
    from textual import events

    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.ui.app import ZettApp
    from zett_tui.ui.widgets.transcript import AnswerBlock

    launch = LaunchSettings(
        model_label="openai:gpt-test", model_factory=openai_factory(server), bell=False, cwd=project
    )
    app = ZettApp(launch)
    async with app.run_test(size=HEADLESS_SIZE) as pilot:
        chat = app.chat
        while chat.host is None:
            await pilot.pause(0.02)
        await pilot.pause(1.0)  # the idle warm-up after the first frame
        clock = FrameClock(app)
        chat.composer.load_text("go")
        frames_before, written_before = clock.frames, clock.written

        def rendered() -> bool:
            found = [block for block in chat.transcript.blocks if isinstance(block, AnswerBlock)]
            return (
                bool(found)
                and found[-1].status is not None
                and not chat.turns.busy
                and not chat.transcript.update_pending
            )

        driver = app._driver
        assert driver is not None
        keys: list[tuple[float, float | None]] = []
        typing = threading.Event()

        def type_keys() -> None:
            """As a terminal driver's input thread: a key every ``KEY_EVERY`` s, each timed until
            a frame shows it (the next key waits for that)."""
            composer = chat.composer
            while not typing.wait(KEY_EVERY):
                expected = len(composer.text) + 1
                future = asyncio.run_coroutine_threadsafe(
                    _frame_showing(clock, lambda expected=expected: len(composer.text) >= expected), loop
                ).result(5)
                sent = time.perf_counter()
                driver.send_message(events.Key("x", "x"))
                try:
                    keys.append((sent, asyncio.run_coroutine_threadsafe(_result(future), loop).result(5)))
                except Exception:
                    keys.append((sent, None))

        loop = asyncio.get_running_loop()
        timer.steps.clear()
        timer.collections.clear()
        timer.on = True
        started = time.perf_counter()
        driver.send_message(events.Key("enter", "\r"))
        typist = threading.Thread(target=type_keys, daemon=True) if with_keys else None
        while not [block for block in chat.transcript.blocks if isinstance(block, AnswerBlock)]:
            await asyncio.sleep(0.001)
        if typist is not None:
            typist.start()
        while not rendered():
            await asyncio.sleep(0.005)
        with_frame = asyncio.ensure_future(clock.wait())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(with_frame, 1.0)
        wall = time.perf_counter() - started
        typing.set()
        if typist is not None:
            await asyncio.to_thread(typist.join)
        timer.on = False
        return {
            "wall": wall,
            "steps": list(timer.steps),
            "collections": list(timer.collections),
            "keys": keys,
            "frames": clock.frames - frames_before,
            "written": clock.written - written_before,
        }


async def _frame_showing(clock: FrameClock, predicate: Any) -> asyncio.Future[float]:
    return clock.wait(predicate)


async def _result(future: asyncio.Future[float]) -> float:
    return await future


def _kind(what: str) -> str:
    """A step's description, without what differs between two steps of the same kind."""
    head, _, rest = what.partition(" (suspended")
    return head + (rest.split(")", 1)[1] if rest else "")


#: Kinds of step compared early and late in the answer: (label, what their description holds).
PHASED = (("frames", "screen_update"), ("transcript updates", "TranscriptUpdates._continue_sync"))


def early_and_late(steps: list[tuple[float, float, float, str]], kind: tuple[str, str]) -> str:
    """``kind``'s described steps in the run's first and last third: count, median and longest ms."""
    label, marker = kind
    if not steps:
        return f"{label}: -"
    first, last = steps[0][0], steps[-1][0]
    third = (last - first) / 3
    found = [(start, took) for start, took, _, what in steps if marker in what]
    parts = []
    for name, low, high in (("early", first, first + third), ("late", last - third, last + 1)):
        times = sorted(took * 1000 for start, took in found if low <= start < high)
        figures = f"{len(times)}, {statistics.median(times):.1f}, {times[-1]:.1f}" if times else "0"
        parts.append(f"{name} {figures}")
    return f"{label}: " + "; ".join(parts)


def waited_behind(
    keys: list[tuple[float, float | None]], steps: list[tuple[float, float, float, str]]
) -> dict[str, float]:
    """Seconds of described steps that ran while a key was on its way to the screen, by kind."""
    found: dict[str, float] = {}
    for sent, shown in keys:
        if shown is None:
            continue
        for start, took, _, what in steps:
            if what and start < shown and start + took > sent:
                overlap = min(shown, start + took) - max(sent, start)
                found[_kind(what)] = found.get(_kind(what), 0.0) + overlap
    return found


async def main_async(runs: int, top: int, with_keys: bool = True) -> None:
    answer = make_answer()
    timer = StepTimer()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        keep_zett_files_in(work)
        server = ServerProcess(work / "server", answer)
        project = work / "project"
        project.mkdir()
        timer.install()
        try:
            outcomes = [
                await one_run(server, project, answer, timer, with_keys=with_keys) for _ in range(runs + 1)
            ]
        finally:
            timer.uninstall()
            server.close()
    print("run 0 is the process's first (first-use costs land in it)")
    print(
        "run | wall s | steps | median ms | p95 ms | >4 ms | >16 ms | longest ms | collections (gen 2) | longest ms"
        " | frames | written KiB"
    )
    longest: list[tuple[float, float, str]] = []
    for number, outcome in enumerate(outcomes):
        times = sorted(took for _, took, _, _ in outcome["steps"])
        p95 = times[int(0.95 * (len(times) - 1))]
        print(
            f"{number} | {outcome['wall']:.3f} | {len(times)} | {statistics.median(times) * 1000:.2f} | "
            f"{p95 * 1000:.2f} | {sum(t > 0.004 for t in times)} | {sum(t > 0.016 for t in times)} | "
            f"{times[-1] * 1000:.1f} | {len(outcome['collections'])} "
            f"({sum(g == 2 for g, _ in outcome['collections'])}) | "
            f"{max((t for _, t in outcome['collections']), default=0) * 1000:.1f} | "
            f"{outcome['frames']} | {outcome['written'] / 1024:.0f}"
        )
        longest.extend(step[1:] for step in outcome["steps"] if step[1] >= 0.004)
    print(
        f"\nsteps of {DESCRIBED * 1000:.0f} ms or more early and late in the answer (its first and last "
        "third of the run), per run: count, median and longest ms"
    )
    for number, outcome in enumerate(outcomes):
        print(f"{number} | " + " | ".join(early_and_late(outcome["steps"], kind) for kind in PHASED))
    echoes = [shown - sent for outcome in outcomes for sent, shown in outcome["keys"] if shown is not None]
    lost = sum(shown is None for outcome in outcomes for _, shown in outcome["keys"])
    if echoes:
        ordered = sorted(echoes)
        print(
            f"\nkey echo while streaming (a key every {KEY_EVERY * 1000:.0f} ms, key sent -> frame showing it): "
            f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {ordered[int(0.95 * (len(ordered) - 1))] * 1000:.1f} ms, "
            f"{len(ordered)} keys, {lost} not shown"
        )
        behind: dict[str, float] = {}
        for outcome in outcomes:
            for kind, seconds in waited_behind(outcome["keys"], outcome["steps"]).items():
                behind[kind] = behind.get(kind, 0.0) + seconds
        print(f"what the keys waited behind (steps of {DESCRIBED * 1000:.0f} ms or more), ms per key:")
        for kind, seconds in sorted(behind.items(), key=lambda item: -item[1])[: top or 8]:
            print(f"  {seconds / len(ordered) * 1000:6.2f}  {kind}")
    if top:
        print(f"\nthe {top} longest steps over all runs (wall; CPU of the loop's thread in brackets):")
        for took, cpu, what in sorted(longest, reverse=True)[:top]:
            print(f"  {took * 1000:6.1f} ms ({cpu * 1000:5.1f})  {what}")
        print(f"\nthe {top} steps of most CPU over all runs:")
        for took, cpu, what in sorted(longest, key=lambda step: step[1], reverse=True)[:top]:
            print(f"  {took * 1000:6.1f} ms ({cpu * 1000:5.1f})  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3, help="measured runs, after one warm-up run")
    parser.add_argument("--top", type=int, default=12, help="list the longest steps (0: none)")
    parser.add_argument(
        "--no-keys", action="store_true", help="type nothing: the frames and output are the answer's alone"
    )
    args = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}", file=sys.stderr)
    from zett_tui.core import long_lived_objects

    long_lived_objects.pause_collection()  # as the CLI does: the app freezes what start-up made
    asyncio.run(main_async(args.runs, args.top, not args.no_keys))
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[:3]}", file=sys.stderr)


if __name__ == "__main__":
    main()
