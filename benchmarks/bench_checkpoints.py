"""Checkpoint benchmark: ``python -m benchmarks.bench_checkpoints [--files N] [--megabytes M] [--runs R]``.

Builds a project of N files (default 20,000) holding M megabytes (default 200) in a temporary
folder, a git repository like a real one, and measures ``CheckpointStore`` directly:

- the first checkpoint of a session (every file hashed into an empty store), median of
  ``--first-runs`` (default 5) against the baseline in the same run, taken in turn: the same
  store writing a loose object per file (``bulk_files`` out of reach), as before the packs;
  target: at most 3 s, and never in the way (it runs in a thread while the answer streams:
  ``tests/test_checkpoint_turns``); the load average is printed with it (a shared machine);
- the same in a fresh process with the store already full (a second session on the project);
- a later checkpoint after one small edit, median of R, in the stores of both ways in turn;
  target: at most 150 ms;
- a checkpoint when no file changed since the last (most turns' first one), median of R: the
  last checkpoint again, against the same store recording it afresh (as before) in turn;
- the store's growth for a turn of 10 small edits (before, a checkpoint per edit, after);
  target: under 50 KB;
- restoring a turn that changed 100 files; target: under 1 s.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from zett_tui.checkpoints.bulk import BULK_FILES
from zett_tui.checkpoints.store import CheckpointStore


def build_project(root: Path, files: int, megabytes: int) -> list[Path]:
    random.seed(7)
    per_file = megabytes * 1024 * 1024 // files
    made: list[Path] = []
    words = [f"word{i}" for i in range(500)]
    for index in range(files):
        folder = root / f"pkg{index % 100:02d}" / f"mod{index % 17:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{index:05d}.py"
        line = " ".join(random.choices(words, k=12)) + "\n"
        body = (line * (per_file // len(line) + 1))[:per_file]
        path.write_text(f"# {index}\n{body}")
        made.append(path)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return made


def age(paths: list[Path]) -> None:
    """Date the files a minute back, as a real project's are (a file changed this second is rehashed)."""
    past = time.time() - 60
    for path in paths:
        os.utime(path, (past, past))


def timed(action) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (git): what load on the machine does not change."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def disk_bytes(folder: Path) -> int:
    """What ``folder`` takes on disk (blocks: a loose object of 300 bytes takes 4 KB)."""
    total = 0
    for current, _dirs, files in os.walk(folder):
        for name in files:
            total += os.lstat(os.path.join(current, name)).st_blocks * 512
    return total


def loose_objects(store: CheckpointStore) -> int:
    objects = store.git_dir / "objects"
    return sum(len(os.listdir(d)) for d in objects.iterdir() if len(d.name) == 2)


#: The two ways a first checkpoint is measured, and their ``bulk_files``.
WAYS = {"packs": BULK_FILES, "loose objects (before)": 10**9}


def first_checkpoints(project: Path, base: Path, runs: int) -> dict[str, CheckpointStore]:
    """The first checkpoint into an empty store, each way in turn; the last store of each way."""
    seconds: dict[str, list[float]] = {way: [] for way in WAYS}
    cpu: dict[str, list[float]] = {way: [] for way in WAYS}
    facts: dict[str, str] = {}
    kept: dict[str, CheckpointStore] = {}
    load_before = os.getloadavg()
    for run in range(runs):
        order = list(WAYS) if run % 2 == 0 else list(reversed(WAYS))
        for way in order:
            root = base / f"store-{way.split()[0]}-{run}"
            store = CheckpointStore(project, root, bulk_files=WAYS[way])
            cpu_before = cpu_seconds()
            seconds[way].append(timed(lambda store=store: store.take("bench/first")))
            cpu[way].append(cpu_seconds() - cpu_before)
            facts[way] = (
                f"{loose_objects(store)} loose objects, {disk_bytes(store.folder) / 1_048_576:.0f} MB on disk"
            )
            if run == runs - 1:
                kept[way] = store
            else:
                shutil.rmtree(root)
    load_after = os.getloadavg()
    for way, times in seconds.items():
        print(
            f"first checkpoint, empty store, {way}: median {statistics.median(times):.2f} s"
            f" ({min(times):.2f}-{max(times):.2f}, {runs} runs; CPU {statistics.median(cpu[way]):.2f} s;"
            f" {facts[way]})"
        )
    print(
        f"  load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after, {os.cpu_count()} cores"
    )
    return kept


def later_checkpoints(stores: dict[str, CheckpointStore], made: list[Path], runs: int) -> None:
    """A checkpoint after one small edit, in each way's store in turn (the packs must not slow it)."""
    later: dict[str, list[float]] = {way: [] for way in WAYS}
    for run in range(runs):
        target = made[run * 37 % len(made)]
        with target.open("a") as stream:
            stream.write(f"# edit {run}\n")
        for way in list(WAYS) if run % 2 == 0 else list(reversed(WAYS)):
            store = stores[way]
            later[way].append(timed(lambda store=store, run=run: store.take(f"bench/later-{run}")))
    for way, times in later.items():
        print(
            f"later checkpoint after a small edit, first one in {way}: median"
            f" {statistics.median(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms"
        )


def unchanged_checkpoints(store: CheckpointStore, runs: int) -> None:
    """A checkpoint when no file changed since the last (a turn's first after the one before it
    ended, or a turn's last when it changed nothing), against the same store recording it afresh
    in the same run (its memory of the last checkpoint dropped: every checkpoint was taken so
    before). Wall and CPU (git's included), medians of R."""
    ways: dict[str, tuple[list[float], list[float]]] = {"again": ([], []), "afresh (before)": ([], [])}
    store.take("bench/unchanged/start")
    for run in range(runs):
        for way in list(ways) if run % 2 == 0 else list(reversed(ways)):
            if way != "again":
                store._last = None  # the former way: add, write-tree, commit-tree, every time
            cpu_before = cpu_seconds()
            ways[way][0].append(
                timed(lambda run=run, way=way: store.take(f"bench/unchanged-{way[:5]}-{run}"))
            )
            ways[way][1].append(cpu_seconds() - cpu_before)
    for way, (seconds, cpu) in ways.items():
        print(
            f"checkpoint with no file changed, {way}: median {statistics.median(seconds) * 1000:.0f} ms"
            f" (CPU {statistics.median(cpu) * 1000:.0f} ms)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--first-runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        project = base / "project"
        project.mkdir()
        made = build_project(project, args.files, args.megabytes)
        age(made)
        print(f"project: {args.files} files, {args.megabytes} MB")
        stores = first_checkpoints(project, base, args.first_runs)
        store = stores["packs"]
        second_session = CheckpointStore(project, store.root)
        print(
            f"first checkpoint of a second session (store full): {timed(lambda: second_session.take('bench/second')):.2f} s"
        )
        later_checkpoints(stores, made, args.runs)
        unchanged_checkpoints(stores["packs"], args.runs)
        size_before = store.size_bytes()
        store.take("bench/turn/before")
        for step in range(10):
            with made[1000 + step].open("a") as stream:
                stream.write(f"small change {step}\n")
            store.take(f"bench/turn/step-{step}")
        after = store.take("bench/turn/after")
        print(
            f"store growth for a turn of 10 small edits: {(store.size_bytes() - size_before) / 1024:.1f} KB"
        )
        changed = made[2000:2100]
        age(changed)
        before = store.take("bench/restore/before")
        for path in changed:
            path.write_text("rewritten by the agent\n")
        store.take("bench/restore/after")
        paths = [str(p.relative_to(project)) for p in changed]
        restore = timed(lambda: store.restore(before.commit, paths))
        assert all(p.read_text() != "rewritten by the agent\n" for p in changed)
        print(f"restore of a turn that changed 100 files: {restore * 1000:.0f} ms")
        print(
            f"store size: {store.size_bytes() / 1_048_576:.1f} MB, {disk_bytes(store.folder) / 1_048_576:.1f} MB"
            f" on disk (project {args.megabytes} MB)"
        )
        del after


if __name__ == "__main__":
    main()
