"""Session storage benchmark: ``python -m benchmarks.bench_sessions [--sessions N] [--megabytes M]``.

Generates 1,000 sessions totalling about 200 MB (prompts, Markdown answers, tool calls and
outputs; five sessions of 500 turns) in a temporary folder, in the real JSONLExtension line
format, then prints medians of a few runs:

- index listing with no cache (cold) and with the cache file (warm, a fresh index object);
- time to the first search hit and to the end of the search, for a rare and a common word;
- building the last screen (30 turns) of a 500-turn session.

The files are written directly (no agent runs), so generation takes a few seconds.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from zett_tui.sessions.index import CACHE_NAME, SessionIndex
from zett_tui.sessions.recorded_turns import load_last_turns
from zett_tui.sessions.search import search_sessions

RARE_WORD = "quokkafrobnicate"
COMMON_WORD = "function"
LONG_SESSIONS = 5
LONG_TURNS = 500
LAST_SCREEN_TURNS = 30

_WORDS = [
    *[
        "the",
        "a",
        "function",
        "test",
        "file",
        "module",
        "error",
        "value",
        "return",
        "import",
        "class",
        "config",
        "parser",
        "cache",
        "index",
    ],
    *[
        "session",
        "request",
        "response",
        "stream",
        "token",
        "model",
        "tool",
        "output",
        "branch",
        "commit",
        "diff",
        "patch",
        "line",
    ],
    *[
        "buffer",
        "widget",
        "screen",
        "render",
        "layout",
        "async",
        "await",
        "worker",
        "thread",
        "lock",
        "retry",
        "timeout",
        "path",
    ],
]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _markdown_answer(rng: random.Random) -> str:
    parts = [_sentence(rng, rng.randint(8, 30)) for _ in range(rng.randint(1, 4))]
    parts.append("\n".join(f"- {_sentence(rng, rng.randint(4, 12))}" for _ in range(rng.randint(2, 5))))
    if rng.random() < 0.5:
        code = "\n".join(
            f"    {rng.choice(_WORDS)} = {rng.choice(_WORDS)}({rng.randint(0, 99)})" for _ in range(6)
        )
        parts.append(f"```python\ndef {rng.choice(_WORDS)}():\n{code}\n```")
    return "\n\n".join(parts)


def _tool_output(rng: random.Random, lines: int) -> str:
    return "\n".join(
        f"{index:4d}  {rng.choice(_WORDS)}_{rng.choice(_WORDS)} = {rng.choice(_WORDS)}({rng.randint(0, 99)})"
        for index in range(1, lines + 1)
    )


def _envelope(kind: int, data: dict[str, object]) -> str:
    base: dict[str, object] = {"attributes": {}, "persist": True, "include_in_messages": True}
    base.update(data)
    return json.dumps({"kind": kind, "data": base}, ensure_ascii=False, separators=(",", ":"))


def _assistant(content: str, calls: list[dict[str, object]], reasoning: str | None = None) -> str:
    return _envelope(
        3,
        {
            "content": content,
            "reasoning": reasoning,
            "tool_calls": calls,
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "replay_blocks": [],
            "stop": None,
        },
    )


class _Pool:
    """Pre-encoded message envelopes, recombined into many different turns cheaply."""

    def __init__(self, rng: random.Random) -> None:
        self.prompts = [_envelope(2, {"content": _sentence(rng, rng.randint(5, 40))}) for _ in range(300)]
        self.answers = [_assistant(_markdown_answer(rng), [], _sentence(rng, 20)) for _ in range(300)]
        self.tool_rounds: list[str] = []
        for number in range(400):
            call_id = f"call_{number}"
            name, arguments = rng.choice(
                [
                    ("read_file", {"path": f"src/{rng.choice(_WORDS)}.py"}),
                    ("bash", {"command": f"pytest -q tests/test_{rng.choice(_WORDS)}.py"}),
                    ("grep", {"pattern": rng.choice(_WORDS), "file_pattern": "**/*.py"}),
                ]
            )
            call: dict[str, object] = {"id": call_id, "name": name, "arguments": arguments, "error": None}
            result: dict[str, object] = {
                "tool_call_id": call_id,
                "name": name,
                "content": _tool_output(rng, rng.randint(5, 120)),
            }
            result["success"] = rng.random() > 0.1
            self.tool_rounds.append(_assistant("", [call]) + "," + _envelope(4, result))


def _line(
    rng: random.Random, pool: _Pool, session_id: str, started: datetime, tools: int, extra: str | None = None
) -> str:
    finished = started + timedelta(seconds=rng.randint(3, 300))
    status = rng.choices(["completed", "cancelled", "failed"], [0.9, 0.07, 0.03])[0]
    header = {
        "version": 1,
        "session_id": session_id,
        "request_id": f"req-{rng.getrandbits(64):016x}",
        "parent_session_id": None,
        "started_at": started.isoformat(),
        "completed_at": finished.isoformat(),
        "status": status,
        "metadata": {
            "zett": {"cwd": "/home/dev/project", "branch": "main", "model": "anthropic:claude-sonnet-4-5"}
        },
        "tags": {},
    }
    messages = [rng.choice(pool.prompts), *(rng.choice(pool.tool_rounds) for _ in range(tools))]
    if extra is not None:
        messages.append(_assistant(extra, []))
    messages.append(rng.choice(pool.answers))
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    line = text[:-1] + ',"messages":[' + ",".join(messages) + "]"
    if status == "failed":
        line += ',"error":{"type":"ProviderHTTPError","message":"overloaded"}'
    return line + "}\n"


def generate(directory: Path, sessions: int, megabytes: int, seed: int = 7) -> tuple[int, Path]:
    """Write the data set; returns (total bytes, path of one 500-turn session)."""
    rng = random.Random(seed)
    pool = _Pool(rng)
    directory.mkdir(parents=True, exist_ok=True)
    budget = megabytes * 1024 * 1024
    long_budget = LONG_SESSIONS * LONG_TURNS * 8_000
    per_short = max(20_000, (budget - long_budget) // max(1, sessions - LONG_SESSIONS))
    now = datetime(2026, 6, 1, tzinfo=UTC)
    total = 0
    long_path = directory
    rare_at = {sessions // 2, sessions - 3}
    for number in range(sessions):
        session_id = f"0190{number:04d}-7e1c-7000-8000-{rng.getrandbits(48):012x}"
        name = base64.urlsafe_b64encode(session_id.encode()).decode().rstrip("=") + ".jsonl"
        started = now - timedelta(days=90 * number / sessions, minutes=rng.randint(0, 600))
        lines: list[str] = []
        size = 0
        is_long = number in range(3, 3 + LONG_SESSIONS)
        turns = LONG_TURNS if is_long else 10**9
        target_size = 10**12 if is_long else per_short * rng.uniform(0.5, 1.5)
        while len(lines) < turns and size < target_size:
            extra = f"This mentions {RARE_WORD} once." if number in rare_at and len(lines) == 2 else None
            line = _line(rng, pool, session_id, started, rng.randint(0, 3 if is_long else 5), extra)
            started += timedelta(minutes=rng.randint(1, 20))
            lines.append(line)
            size += len(line.encode())
        data = "".join(lines).encode()
        (directory / name).write_bytes(data)
        total += len(data)
        if is_long:
            long_path = directory / name
    return total, long_path


def _median(runs: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _search_times(directory: Path, word: str, runs: int) -> tuple[float, float, int]:
    summaries = SessionIndex(directory).list_sessions()
    firsts, totals, count = [], [], 0
    for _ in range(runs):
        start = time.perf_counter()
        first = None
        count = 0
        for _hit in search_sessions(word, summaries):
            if first is None:
                first = time.perf_counter() - start
            count += 1
        totals.append(time.perf_counter() - start)
        firsts.append(first if first is not None else float("nan"))
    return statistics.median(firsts), statistics.median(totals), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    options = parser.parse_args()
    directory = options.keep or Path(tempfile.mkdtemp(prefix="zett-bench-")) / "sessions"
    try:
        start = time.perf_counter()
        total, long_path = generate(directory, options.sessions, options.megabytes)
        took = time.perf_counter() - start
        print(f"generated {options.sessions} sessions, {total / 1e6:.0f} MB in {took:.1f} s")

        def cold() -> None:
            (directory / CACHE_NAME).unlink(missing_ok=True)
            SessionIndex(directory).list_sessions()

        print(f"index listing, cold (no cache):  {_median(options.runs, cold) * 1000:7.1f} ms")
        SessionIndex(directory).list_sessions()
        warm = _median(options.runs, lambda: SessionIndex(directory).list_sessions())
        print(f"index listing, warm (cache):     {warm * 1000:7.1f} ms")
        runs = max(1, options.runs // 2)
        for label, word in (("rare", RARE_WORD), ("common", COMMON_WORD)):
            first, whole, hits = _search_times(directory, word, runs)
            print(
                f"search {label:6} {word!r:20} first hit {first * 1000:7.1f} ms, "
                f"all {hits} hits {whole * 1000:7.1f} ms"
            )
        screen = _median(options.runs, lambda: load_last_turns(long_path, LAST_SCREEN_TURNS, []))
        print(f"last {LAST_SCREEN_TURNS} turns of a {LONG_TURNS}-turn session: {screen * 1000:7.1f} ms")
    finally:
        if options.keep is None:
            shutil.rmtree(directory.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
