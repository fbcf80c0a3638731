"""Find in the transcript at turn 300: the time a keystroke in the find bar takes.

Run: ``python -m benchmarks.bench_find`` (under a minute; ``--turns 100`` is quicker).

What it drives: ``ZettApp`` headless (``App.run_test``, 160x45) with a scripted model, its transcript
holding ``--turns`` finished turns as a resumed session shows them: a prompt, collapsed reasoning, a
collapsed ``read_file`` row with 40 lines of output, and a ~1.5 KB Markdown answer (headings, prose,
lists, tables, a Python code block; ``bench_transcript.make_answer``). Then Ctrl+F, and a pause of
0.5 s, as a reader takes before typing (the blocks' text is converted for searching in idle time),
and each query typed a letter at a time:

- keystroke: a key event sent to the find field (as the terminal driver would) -> the first frame
  drawn after the search for the new query ran (count updated, view at the match, highlights drawn);
- step: Enter (next match) -> the first frame after it;
- search alone: ``Transcript.find`` called directly for each prefix, no frame (the CPU of a keystroke);
- first key: the first letter typed right after Ctrl+F, while the idle conversion has barely begun;
- unprepared: ``Transcript.find`` right after ``open_find``, with no conversion done (the worst case).

The target is at most 50 ms a keystroke at turn 300 (issue 14). Timings on a loaded machine move;
the medians are what to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from textual import events

from benchmarks.bench_app import keep_zett_files_in
from benchmarks.bench_transcript import FrameClock, make_answer
from tests.fakes.scripted_model import ScriptedModel
from tests.ui_helpers import make_app
from zett_tui.ui.widgets.find_bar import FindBar
from zett_tui.ui.widgets.transcript import AnswerBlock, ReasoningBlock, ToolBlock, Transcript, UserBlock

SIZE = (160, 45)
QUERIES = ("compositor", "render_block", "budget frame", "xyzzy")
"""A word in most answers, one in every code block, a phrase, and one that matches nothing."""
NOTES = "".join(f"{n:3d}. a line of the notes file the model reads on every turn\n" for n in range(40))


def fill(transcript: Transcript, turns: int) -> None:
    for turn in range(turns):
        transcript.add(UserBlock(f"Turn {turn}: explain the transcript cache and the frame budget"))
        reasoning = transcript.add(ReasoningBlock())
        reasoning.append("The user asks about the cache.\nRead the notes first.\n")
        reasoning.finish()
        tool = transcript.add(ToolBlock(f"call-{turn}", "read_file", "notes.md"))
        tool.finish("done", NOTES, 0.01)
        answer = transcript.add(AnswerBlock())
        answer.append(make_answer(1500, seed=turn))
        answer.finish()


def summary(samples: list[float]) -> str:
    if not samples:
        return "n/a"
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"median {statistics.median(ordered) * 1000:5.1f} ms   p95 {p95 * 1000:5.1f} ms   (n={len(ordered)})"
    )


async def settle(app: Any, pilot: Any) -> None:
    transcript = app.chat.transcript
    deadline = time.monotonic() + 30
    while (transcript.update_pending or transcript.rendering_ahead) and time.monotonic() < deadline:
        await pilot.pause(0.05)
    await pilot.pause(0.2)


async def run(turns: int) -> dict[str, Any]:
    app = make_app(ScriptedModel(), animations=False)
    results: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        while app.chat.host is None:
            await pilot.pause(0.05)
        transcript = app.chat.transcript
        fill(transcript, turns)
        await settle(app, pilot)
        clock = FrameClock(app)
        driver = app._driver
        assert driver is not None

        async def type_key(bar: FindBar, key: str, character: str | None, expected: str) -> float:
            shown = clock.wait(lambda: bar.searched == expected)
            sent = time.perf_counter()
            driver.send_message(events.Key(key, character))
            return await asyncio.wait_for(shown, 10) - sent

        # the first letter right after Ctrl+F
        await pilot.press("ctrl+f")
        bar = app.chat.query_one(FindBar)
        results["cold"] = await type_key(bar, "c", "c", "c")
        await pilot.press("escape")
        await settle(app, pilot)

        keystrokes: list[float] = []
        steps: list[float] = []
        counts: dict[str, str] = {}
        for query in QUERIES:
            await pilot.press("ctrl+f")
            await pilot.pause(0.5)
            bar.input.value = ""
            await pilot.pause(0.05)
            for end in range(1, len(query) + 1):
                character = query[end - 1]
                key = "space" if character == " " else character
                keystrokes.append(await type_key(bar, key, character, query[:end]))
                await pilot.pause(0.05)
            counts[query] = bar.label
            for _ in range(5):
                before = transcript.find_position
                shown = clock.wait(lambda before=before: transcript.find_position != before)  # type: ignore[misc]
                sent = time.perf_counter()
                driver.send_message(events.Key("enter", "\r"))
                try:
                    steps.append(await asyncio.wait_for(shown, 10) - sent)
                except TimeoutError:
                    break  # one match or none: Enter changes nothing
                await pilot.pause(0.05)
            await pilot.press("escape")
            await settle(app, pilot)

        alone: list[float] = []
        transcript.open_find()
        for query in QUERIES:
            for end in range(1, len(query) + 1):
                started = time.perf_counter()
                transcript.find(query[:end])
                alone.append(time.perf_counter() - started)
        transcript.close_find()
        transcript.clear()  # new blocks, never searched: at once, before any idle conversion
        fill(transcript, turns)
        await settle(app, pilot)
        transcript.open_find()
        started = time.perf_counter()
        transcript.find("compositor")
        results["unprepared"] = time.perf_counter() - started
        transcript.close_find()
        results.update(keystrokes=keystrokes, steps=steps, alone=alone, counts=counts)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args()
    keep_zett_files_in(Path(tempfile.mkdtemp(prefix="zett-bench-find-")))
    results = asyncio.run(run(args.turns))
    print(
        f"zett bench_find: {args.turns} turns ({args.turns * 4} blocks), {SIZE[0]}x{SIZE[1]}, python {sys.version.split()[0]}"
    )
    print("counts:", ", ".join(f"{query!r}: {label}" for query, label in results["counts"].items()))
    print(f"keystroke -> frame     {summary(results['keystrokes'])}   target <= 50 ms")
    print(f"Enter (next) -> frame  {summary(results['steps'])}")
    print(f"search alone (no UI)   {summary(results['alone'])}")
    print(
        f"first key after Ctrl+F {results['cold'] * 1000:5.1f} ms (typed at once; the idle conversion has barely begun)"
    )
    print(f"search, nothing converted yet {results['unprepared'] * 1000:5.1f} ms (the worst case, no UI)")


if __name__ == "__main__":
    main()
