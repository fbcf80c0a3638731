"""Memory growth of a long session: PSS per 100 turns from turn 100 on, against another zett tree.

Run: ``python -m benchmarks.bench_growth --against PATH`` (PATH: another checkout of zett, e.g. an
``git archive`` of main unpacked somewhere; without it only this tree is measured). ``--turns 300``
and ``--runs 3`` are the defaults: about 5 minutes a run on 2 cores, runs of the two trees taking
turns, so both see the same machine (``--side-by-side``: both trees' runs at the same time).

Each run is a process of its own: ``ZettApp`` headless (160x45) with the real OpenAI provider
against the fake server, driven as ``bench_long_session`` drives it (each turn a ``read_file`` row
with 40 lines, then a ~1.5 KB Markdown answer with a code block). The server runs in a process of
its own (``fake_server_process.py``), so its parsing of each request, the whole history, is not
counted as the app's (``--server-in-process``: as before). At turn 100, 200, 300...: the process's
PSS (``/proc/self/smaps_rollup``), after the whole collection zett runs when the user pauses
(``ZettApp.collect_now``), and what the transcript holds. At the last turn,
``bench_long_session``'s page-scroll timing (10 pages up from the bottom, Home, 10 pages down).

Printed: per tree, the median over runs of PSS at each measured turn, growth per 100 turns from
turn 100 to the last, the page-scroll median / p95 at the last turn, where the memory is (Python's
arenas and the objects alive in them, the C heap in use and free, glibc's main and thread arenas,
SQLite's own memory, threads), and what the session keeps of each turn (the transcript blocks of
the first half of the session by kind, the history's packed copy: bytes a turn). ``--turn-peaks``
also traces the turn after each measured one: the most it allocated at once, and how much of that
was the history's load (the dialogue given back for the request: read whole from SQLite by a tree
before ``runtime.history_since``, the rows since the last load and the packed copy after it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
THIS_TREE = HERE.parent
MEASURE_EVERY = 100


def pss_mb() -> float:
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def pss_kinds() -> dict[str, float]:
    """The process's PSS in MB by kind: anonymous memory (its heaps: what a session's growth is
    made of) and files mapped (libraries; their share falls and rises as other processes map the
    same files, so two PSS figures taken while other Pythons ran differ by it alone)."""
    kinds: dict[str, float] = {}
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            name, _, rest = line.partition(":")
            if name in ("Pss_Anon", "Pss_File"):
                kinds[name.lower()] = int(rest.split()[0]) / 1024
    return kinds


def resident_heaps() -> dict[str, float]:
    """How much of glibc's heaps is resident, in MB (``/proc/self/smaps``): the main arena (the
    ``[heap]`` mapping) and the threads' arenas (each a 64 MB reservation at a 64 MB boundary: a
    read-write part, then the rest not yet given any access). Free chunks ``malloc_trim`` could not
    return (holes smaller than a page between blocks in use) count here, not in ``c_heap_used``."""
    import re

    reserved = 64 << 20
    mappings: list[tuple[int, int, str, str, float]] = []
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(\S*)$", line)
            if head:
                first, last = int(head.group(1), 16), int(head.group(2), 16)
                mappings.append((first, last, head.group(3), head.group(4), 0.0))
            elif line.startswith("Rss:") and mappings:
                first, last, access, name, _ = mappings[-1]
                mappings[-1] = (first, last, access, name, int(line.split()[1]) / 1024)
    found = {"rss_main_heap": 0.0, "rss_thread_heaps": 0.0}
    for number, (first, last, access, name, resident) in enumerate(mappings):
        if name == "[heap]":
            found["rss_main_heap"] += resident
        elif not name and access == "rw-p" and first % reserved == 0:
            rest = mappings[number + 1] if number + 1 < len(mappings) else None
            whole = last - first == reserved
            if whole or (
                rest is not None and rest[0] == last and rest[2] == "---p" and rest[1] - first == reserved
            ):
                found["rss_thread_heaps"] += resident
    return found


def heap_parts() -> dict[str, float]:
    """Where the process's memory is, in MB: Python's object allocator (its arenas now and at their
    most since the start, the bytes of the objects alive in them, and the two kinds of free space in them: free blocks in pools still
    in use, and whole pools unused in an arena a survivor keeps open) and the C heap (glibc ``mallinfo2``: bytes in use, and free bytes not returned).

    ``sys._debugmallocstats`` writes to the C ``stderr``; it is read back through a temporary file.
    """
    import ctypes
    import re

    parts: dict[str, float] = pss_kinds()
    text = pymalloc_stats()
    arenas = re.search(r"(\d+) arenas \* (\d+) bytes/arena", text)
    if arenas:
        parts["pymalloc_arenas"] = int(arenas.group(1)) * int(arenas.group(2)) / 2**20
    highest = re.search(r"# arenas highwater mark\s*=\s*([\d,]+)", text)
    if arenas and highest:
        parts["pymalloc_arenas_peak"] = int(highest.group(1).replace(",", "")) * int(arenas.group(2)) / 2**20
    used = re.search(r"# bytes in allocated blocks\s*=\s*([\d,]+)", text)
    if used:
        parts["pymalloc_used"] = int(used.group(1).replace(",", "")) / 2**20
    free = re.search(r"# bytes in available blocks\s*=\s*([\d,]+)", text)
    if free:
        parts["pymalloc_free_blocks"] = int(free.group(1).replace(",", "")) / 2**20
    unused = re.search(r"(\d+) unused pools \* (\d+) bytes", text)
    if unused:
        parts["pymalloc_unused_pools"] = int(unused.group(1)) * int(unused.group(2)) / 2**20

    class MallInfo2(ctypes.Structure):
        _fields_ = [
            (field, ctypes.c_size_t)
            for field in (
                "arena",
                "ordblks",
                "smblks",
                "hblks",
                "hblkhd",
                "usmblks",
                "fsmblks",
                "uordblks",
                "fordblks",
                "keepcost",
            )
        ]

    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return parts
    mallinfo2.restype = MallInfo2
    info = mallinfo2()
    parts["c_heap_used"] = (info.uordblks + info.hblkhd) / 2**20
    parts["c_heap_free"] = info.fordblks / 2**20
    parts["py_blocks_k"] = sys.getallocatedblocks() / 1000
    parts["threads"] = float(len(os.listdir("/proc/self/task")))
    parts.update(malloc_arenas())
    parts.update(resident_heaps())
    parts["sqlite"] = sqlite_memory()
    return parts


def pymalloc_stats() -> str:
    """What ``sys._debugmallocstats`` says (it writes to the C ``stderr``: read back through a
    temporary file)."""
    with tempfile.TemporaryFile(mode="w+") as stats:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(stats.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        stats.seek(0)
        return stats.read()


def pymalloc_classes() -> dict[int, tuple[int, int, int]]:
    """Python's object allocator by block size: ``{size: (pools, blocks in use, free blocks)}``."""
    import re

    found: dict[int, tuple[int, int, int]] = {}
    for row in re.finditer(r"^\s*\d+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", pymalloc_stats(), re.M):
        size, pools, used, free = (int(value) for value in row.groups())
        found[size] = (pools, used, free)
    return found


def sqlite_memory() -> float:
    """The memory SQLite holds in this process (``sqlite3_status64(SQLITE_STATUS_MEMORY_USED)``,
    every connection's page cache and statements), in MB; 0 where the library cannot be found."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("sqlite3")
    if name is None:
        return 0.0
    library = ctypes.CDLL(name)  # the one ``_sqlite3`` loaded: the same file is mapped once
    current, highest = ctypes.c_int64(), ctypes.c_int64()
    library.sqlite3_status64.argtypes = [
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_int64),
        ctypes.POINTER(ctypes.c_int64),
        ctypes.c_int,
    ]
    if library.sqlite3_status64(0, ctypes.byref(current), ctypes.byref(highest), 0) != 0:
        return 0.0
    return current.value / 2**20


def malloc_arenas() -> dict[str, float]:
    """glibc's arenas from ``malloc_info`` (its XML): how many, the memory the main arena and the
    threads' arenas hold from the system, and how much of it is free chunks (MB), so growth in a
    thread's arena, and free space kept in one, show as such."""
    import ctypes
    import re

    libc = ctypes.CDLL("libc.so.6")
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    with tempfile.NamedTemporaryFile(mode="r") as out:
        stream = libc.fopen(out.name.encode(), b"w")
        if not stream:
            return {}
        libc.malloc_info(0, stream)
        libc.fclose(stream)
        text = out.read()
    sizes: dict[int, float] = {}
    free: dict[int, float] = {}
    for heap in re.finditer(r'<heap nr="(\d+)">(.*?)</heap>', text, re.S):
        number, body = int(heap.group(1)), heap.group(2)
        current = re.search(r'<system type="current" size="(\d+)"/>', body)
        sizes[number] = int(current.group(1)) / 2**20 if current else 0.0
        free[number] = (
            sum(
                int(size)
                for size in re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"/>', body)
            )
            / 2**20
        )
    mmapped = re.search(r'<total type="mmap" count="\d+" size="(\d+)"/>\s*<system type="current"', text)
    return {
        "arenas": float(len(sizes)),
        "main_arena": sizes.get(0, 0.0),
        "main_arena_free": free.get(0, 0.0),
        "thread_arenas": sum(size for number, size in sizes.items() if number),
        "thread_arenas_free": sum(size for number, size in free.items() if number),
        "mmapped": int(mmapped.group(1)) / 2**20 if mmapped else 0.0,
    }


def retained_bytes(root: Any) -> int:
    """The bytes of the objects reachable from ``root`` that are its own: the walk stops at what a
    block shares with the rest of the app (widgets, styles, classes, functions, modules)."""
    import gc
    import types

    from rich.style import Style
    from textual.dom import DOMNode

    shared = (type, types.ModuleType, types.FunctionType, types.MethodType, DOMNode, Style)
    seen: set[int] = set()
    total = 0
    todo = [root]
    while todo:
        thing = todo.pop()
        if id(thing) in seen or (thing is not root and isinstance(thing, shared)):
            continue
        seen.add(id(thing))
        total += sys.getsizeof(thing)
        todo.extend(gc.get_referents(thing))
    return total


def kept_per_turn(app: Any, turns: int) -> dict[str, float]:
    """What the session keeps of each turn, in bytes a turn: the transcript's blocks of the first
    half of the session (far above the screen: what every turn keeps for good), by kind, and the
    history's packed copy (``runtime.packed_records``), all turns."""
    kept: dict[str, float] = {}
    blocks = app.chat.transcript.blocks[: len(app.chat.transcript.blocks) // 2]
    for block in blocks:
        name = f"block:{type(block).__name__}"
        kept[name] = kept.get(name, 0) + retained_bytes(block)
    for name in list(kept):
        kept[name] /= turns / 2
    host = app.chat.host
    files = getattr(host, "files", None)
    store = getattr(getattr(files, "history", None), "storage", None)
    known = getattr(store, "_known", {})
    packed = sum(
        len(data) for dialogue in known.values() for data in getattr(dialogue.records, "_packed", ())
    )
    kept["history_packed"] = packed / turns
    return kept


def quiet_moment(app: Any) -> None:
    """What a pause of the user's brings: the app's ``collect_now`` (an older tree's app has
    none: its quiet moment was ``long_lived_objects.collect_everything`` alone)."""
    from zett_tui.core import long_lived_objects

    getattr(app, "collect_now", long_lived_objects.collect_everything)()


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def limit_heaps() -> None:
    """The limit on glibc heaps, set as zett sets it (``core/heap_arenas.py``); in a tree before it
    each thread keeps a heap of its own."""
    try:
        from zett_tui.core.heap_arenas import limit_heaps as shared
    except ImportError:
        return
    shared()


async def session(turns: int, server_in_process: bool, turn_peaks: bool = False) -> dict[str, Any]:
    """One run in this process (the tree on ``sys.path`` is the one measured)."""
    from benchmarks import bench_long_session as driver
    from benchmarks.bench_transcript import make_answer
    from tests.fakes.llm_server import FakeLLMServer
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.providers.build import ModelChoice, build_model
    from zett_tui.ui.app import ZettApp

    found: dict[str, Any] = {"pss": {}, "transcript": {}}
    load_peaks: list[float] = []
    if turn_peaks:
        trace_history_loads(load_peaks)
    with FakeLLMServer() if server_in_process else server_process() as server:
        env = {"OPENAI_API_KEY": "sk-bench-dummy", "OPENAI_BASE_URL": server.openai_base_url}
        launch = LaunchSettings(
            model_label="openai:gpt-test",
            model_factory=lambda: build_model(ModelChoice("openai", "gpt-test"), {}, env),
            bell=False,
            cwd=Path.cwd(),
            context_window=1_000_000_000,
        )
        limit_heaps()  # as zett does before its first worker thread: the warm-up starts some
        await driver.warm_up(launch, server)
        app = ZettApp(launch)
        async with app.run_test(size=driver.SIZE) as pilot:
            run = driver.Session(app, pilot, server)
            await run.wait(lambda: app.chat.host is not None)
            started = time.perf_counter()
            while run.turns < turns:
                traced = turn_peaks and run.turns % MEASURE_EVERY == 0 and run.turns > 0
                if traced:
                    tracemalloc.start(1)
                try:
                    await run.turn(make_answer(1_500, seed=run.turns + 1), 256)
                except RuntimeError as error:  # a turn that never started or ended (a loaded machine)
                    found["failed_turns"] = found.get("failed_turns", 0) + 1
                    print(f"  turn {run.turns}: {error}", file=sys.stderr)
                    await run.wait(run.settled, 120)
                if traced:
                    found.setdefault("turn_peak", {})[run.turns] = tracemalloc.get_traced_memory()[1] / 2**20
                    found.setdefault("load_peak", {})[run.turns] = max(load_peaks, default=0.0)
                    load_peaks.clear()
                    tracemalloc.stop()
                    print(
                        f"  turn {run.turns}: peak {found['turn_peak'][run.turns]:.1f} MB traced, of it the "
                        f"history's load {found['load_peak'][run.turns]:.1f} MB",
                        file=sys.stderr,
                    )
                if run.turns % MEASURE_EVERY == 0 or run.turns == turns:
                    await pilot.pause()
                    quiet_moment(app)
                    found["pss"][run.turns] = pss_mb()
                    found.setdefault("heap", {})[run.turns] = heap_parts()
                    transcript = app.chat.transcript
                    found["transcript"][run.turns] = {
                        "blocks": len(transcript.blocks),
                        "cached_lines": transcript._layout.cached_lines,
                    }
                    elapsed = time.perf_counter() - started
                    parts = found["heap"][run.turns]
                    print(
                        f"  turn {run.turns}: {found['pss'][run.turns]:.1f} MB, {elapsed:.0f} s; "
                        + ", ".join(f"{name} {value:.1f}" for name, value in parts.items()),
                        file=sys.stderr,
                    )
            found["kept_per_turn"] = kept_per_turn(app, run.turns)
            found["scroll"] = await run.scrolls()
    return found


def trace_history_loads(peaks: list[float]) -> None:
    """While tracemalloc runs, each history load (``HistoryStore.load``: the dialogue given back
    for a request) adds to ``peaks`` the most it had allocated at once, in MB (other tasks'
    allocations meanwhile included)."""
    from zett_tui.runtime.history_store import HistoryStore

    load = HistoryStore.load

    async def traced(self: Any, session_id: str) -> Any:
        if not tracemalloc.is_tracing():
            return await load(self, session_id)
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        view = await load(self, session_id)
        peaks.append((tracemalloc.get_traced_memory()[1] - before) / 2**20)
        return view

    HistoryStore.load = traced  # type: ignore[method-assign]


def server_process() -> Any:
    """This tree's ``fake_server_process.ServerProcess`` (loaded by path: the measured tree's
    ``benchmarks`` package may be an older one without it), serving from this tree."""
    spec = importlib.util.spec_from_file_location("fake_server_process", HERE / "fake_server_process.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ServerProcess(THIS_TREE)


def child(turns: int, server_in_process: bool, turn_peaks: bool) -> None:
    import zett_tui
    from benchmarks.bench_long_session import NOTES
    from zett_tui.core import long_lived_objects

    print(f"  zett_tui from {Path(zett_tui.__file__).parent.parent}", file=sys.stderr)

    long_lived_objects.pause_collection()  # as the zett command does
    with tempfile.TemporaryDirectory(prefix="zett-growth-") as folder:
        home = Path(folder)
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            os.environ[name] = str(home / name.lower())
        project = home / "project"
        project.mkdir()
        (project / "notes.md").write_text(NOTES)
        with contextlib.chdir(project):
            found = asyncio.run(session(turns, server_in_process, turn_peaks))
    print(json.dumps(found))


def spawn(tree: Path, turns: int, server_in_process: bool, turn_peaks: bool = False) -> dict[str, Any]:
    """A run in a process whose ``zett_tui``, ``tests`` and ``benchmarks`` come from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1"}
    flags = ["--server-in-process"] if server_in_process else []
    flags += ["--turn-peaks"] if turn_peaks else []
    result = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", "--turns", str(turns), *flags],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        timeout=3600,
        check=True,
    )
    found: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    found["pss"] = {int(turn): value for turn, value in found["pss"].items()}
    return found


def report(name: str, runs: list[dict[str, Any]]) -> None:
    turns = sorted(runs[0]["pss"])
    pss = {turn: statistics.median(run["pss"][turn] for run in runs) for turn in turns}
    first, last = MEASURE_EVERY, turns[-1]
    growth = [(run["pss"][last] - run["pss"][first]) * 100 / (last - first) for run in runs]
    anonymous = [
        (run["heap"][str(last)]["pss_anon"] - run["heap"][str(first)]["pss_anon"]) * 100 / (last - first)
        for run in runs
        if "pss_anon" in run.get("heap", {}).get(str(first), {})
    ]
    scroll = [sample for run in runs for sample in run["scroll"]]
    failed = sum(run.get("failed_turns", 0) for run in runs)
    print(f"{name}: {len(runs)} runs" + (f" ({failed} turns did not complete in time)" if failed else ""))
    print("  PSS (median) " + ", ".join(f"turn {turn} {pss[turn]:.1f} MB" for turn in turns))
    print(
        f"  growth per 100 turns, turn {first} -> {last}: median {statistics.median(growth):+.1f} MB "
        f"(runs: {', '.join(f'{value:+.1f}' for value in growth)})"
    )
    if anonymous:
        print(
            f"  of it anonymous memory (the heaps, not the libraries' share): median "
            f"{statistics.median(anonymous):+.1f} MB (runs: {', '.join(f'{value:+.1f}' for value in anonymous)})"
        )
    print(
        f"  page scroll at turn {last}: median {statistics.median(scroll) * 1000:.1f} ms, "
        f"p95 {percentile(scroll, 0.95) * 1000:.1f} ms ({len(scroll)} pages)"
    )
    heaps = [run["heap"] for run in runs if "heap" in run]
    if heaps:
        names = sorted({name for heap in heaps for name in heap[str(first)]})
        print(
            f"  heap, turn {first} -> {last} (medians, MB): "
            + ", ".join(
                f"{name} {statistics.median(heap[str(first)].get(name, 0) for heap in heaps):.1f} -> "
                f"{statistics.median(heap[str(last)].get(name, 0) for heap in heaps):.1f}"
                for name in names
            )
        )
    kept = runs[-1].get("kept_per_turn")
    if kept:
        print(
            f"  kept per turn (last run, bytes): total {sum(kept.values()):,.0f}: "
            + ", ".join(f"{name} {value:,.0f}" for name, value in sorted(kept.items()))
        )
    held = runs[-1]["transcript"]
    print("  transcript (last run): " + ", ".join(f"turn {t}: {held[t]}" for t in sorted(held, key=int)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another zett tree, measured in turn with this one")
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="run the two trees' runs at the same time (one process each; halves the time on 2 cores)",
    )
    parser.add_argument(
        "--server-in-process",
        action="store_true",
        help="run the fake server in the measured process, as before (its parsing is then counted)",
    )
    parser.add_argument(
        "--turn-peaks",
        action="store_true",
        help="trace the turn after each measured one (tracemalloc): the peak of what it allocates, which "
        "grows with the history each request sends; slows that turn, and its memory counts in later PSS",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.turns, args.server_in_process, args.turn_peaks)
        return
    if args.turns < 2 * MEASURE_EVERY:
        parser.error(f"--turns must be at least {2 * MEASURE_EVERY}")
    trees = {"this tree": THIS_TREE}
    if args.against is not None:
        trees = {f"against ({args.against.name})": args.against.resolve(), **trees}
    load_before = os.getloadavg()
    started = time.perf_counter()
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}

    def lane(name: str, tree: Path, number: int) -> None:
        print(f"run {number + 1}/{args.runs}, {name}", file=sys.stderr)
        found = spawn(tree, args.turns, args.server_in_process, args.turn_peaks)
        results[name].append(found)
        print(f"run {number + 1}/{args.runs}, {name}: {json.dumps(found)}", file=sys.stderr)

    for number in range(args.runs):
        if args.side_by_side:
            with ThreadPoolExecutor(len(trees)) as pool:
                for done in [pool.submit(lane, name, tree, number) for name, tree in trees.items()]:
                    done.result()
        else:
            for name, tree in trees.items():
                lane(name, tree, number)
    load_after = os.getloadavg()
    print(
        f"zett bench_growth: {args.turns} turns, {os.cpu_count()} CPUs, {time.perf_counter() - started:.0f} s; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    for name, runs in results.items():
        report(name, runs)


if __name__ == "__main__":
    main()
