"""``@`` file finder benchmark: ``python -m benchmarks.bench_finder [--files N] [--no-disk]``.

Generates a repository-like tree of 50,000 paths (nested packages, tests, docs, assets), then prints
medians of a few runs:

- the listing: ``git ls-files`` in a real git repository and the walk fallback (written to a
  temporary folder; skipped with ``--no-disk``);
- matching per keystroke: each prefix of a few queries typed one character at a time (the finder
  narrows the previous result while the query grows) and each query searched from scratch.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from zett_tui.workspace.file_finder import FileIndex, list_project_files, walk_files

QUERIES = ["composer", "tstcomp", "src/ui/app", "readme", "x", "zqj", "widgets/completion_menu.py"]

_WORDS = [
    "app",
    "core",
    "util",
    "model",
    "view",
    "widget",
    "screen",
    "composer",
    "parser",
    "render",
    "config",
    "client",
    "server",
    "store",
    "cache",
    "index",
    "session",
    "theme",
    "command",
    "palette",
    "history",
    "search",
    "token",
    "stream",
    "event",
    "handler",
    "worker",
    "queue",
    "transcript",
    "status",
    "layout",
    "markdown",
    "table",
    "image",
    "plugin",
    "extension",
    "loader",
    "runtime",
    "host",
    "permission",
]
_EXTENSIONS = [".py", ".py", ".py", ".ts", ".tsx", ".md", ".json", ".toml", ".css", ".png", ".txt"]


def generate_paths(count: int, seed: int = 7) -> list[str]:
    """``count`` distinct relative paths that look like a large mixed repository."""
    rng = random.Random(seed)
    roots = ["src", "tests", "docs", "packages", "assets", "scripts", "vendor/lib"]
    paths: set[str] = set()
    while len(paths) < count:
        depth = rng.randint(0, 5)
        folders = [rng.choice(roots)] + [rng.choice(_WORDS) for _ in range(depth)]
        name = "_".join(rng.sample(_WORDS, rng.randint(1, 3))) + rng.choice(_EXTENSIONS)
        paths.add("/".join([*folders, name]))
    return sorted(paths)


def write_tree(root: Path, paths: list[str]) -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()


def timings_ms(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return times


def median_ms(action: Callable[[], object], runs: int) -> float:
    return statistics.median(timings_ms(action, runs))


def spread(times: list[float]) -> str:
    """``median (best)``: on a shared machine the best run is closest to the real cost."""
    return f"{statistics.median(times):5.1f} ({min(times):5.1f})"


def bench_matching(paths: list[str], runs: int) -> None:
    print(f"matching over {len(paths):,} paths, ms: median (best) of {runs} runs")
    for query in QUERIES:
        index = FileIndex(paths)

        def from_scratch(index: FileIndex = index, query: str = query) -> object:
            index.forget_last_search()
            return index.search(query)

        cold = timings_ms(from_scratch, runs)
        keystrokes = []
        for _ in range(runs):
            index.forget_last_search()
            per_key = []
            for end in range(1, len(query) + 1):
                started = time.perf_counter()
                index.search(query[:end])
                per_key.append((time.perf_counter() - started) * 1000)
            keystrokes.append(max(per_key))
        best = index.search(query, limit=1)
        top = best[0].path if best else "(none)"
        print(
            f"  {query!r:<30} from scratch {spread(cold)}   slowest keystroke while typing "
            f"{spread(keystrokes)}   top: {top}"
        )


def bench_listing(paths: list[str], runs: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="zett-bench-finder-"))
    try:
        write_tree(folder, paths)
        (folder / ".gitignore").write_text("*.png\n")
        walked = median_ms(lambda: list(walk_files(folder)), runs)
        print(f"listing {len(paths):,} files: walk with .gitignore {walked:7.1f} ms")
        if shutil.which("git") is None:
            print("  (git not found: no git listing)")
            return
        subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
        listed = median_ms(lambda: list_project_files(folder), runs)
        print(f"listing {len(paths):,} files: git ls-files      {listed:7.1f} ms (untracked, ignored *.png)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-disk", action="store_true", help="skip the listing benchmark")
    options = parser.parse_args()
    paths = generate_paths(options.files)
    started = time.perf_counter()
    FileIndex(paths)
    print(f"preparing the index: {(time.perf_counter() - started) * 1000:.1f} ms")
    bench_matching(paths, options.runs)
    if not options.no_disk:
        bench_listing(paths, max(1, options.runs // 2))


if __name__ == "__main__":
    main()
