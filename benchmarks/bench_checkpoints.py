"""Checkpoint benchmark: ``python -m benchmarks.bench_checkpoints [--files N] [--megabytes M] [--runs R]``.

Builds a project of N files (default 20,000) holding M megabytes (default 200) in a temporary
folder, a git repository like a real one, and measures ``CheckpointStore`` directly:

- the first checkpoint of a session (every file hashed into an empty store); target: at most 3 s,
  and never in the way (it runs in a thread while the answer streams: ``tests/test_checkpoint_turns``);
- the same in a fresh process with the store already full (a second session on the project);
- a later checkpoint after one small edit, median of R; target: at most 150 ms;
- the store's growth for a turn of 10 small edits (before, a checkpoint per edit, after);
  target: under 50 KB;
- restoring a turn that changed 100 files; target: under 1 s.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        project = base / "project"
        project.mkdir()
        made = build_project(project, args.files, args.megabytes)
        age(made)
        store_root = base / "store"
        store = CheckpointStore(project, store_root)
        first = timed(lambda: store.take("bench/first"))
        print(f"project: {args.files} files, {args.megabytes} MB")
        print(f"first checkpoint, empty store: {first:.2f} s")
        second_session = CheckpointStore(project, store_root)
        print(
            f"first checkpoint of a second session (store full): {timed(lambda: second_session.take('bench/second')):.2f} s"
        )
        later: list[float] = []
        for run in range(args.runs):
            target = made[run * 37 % len(made)]
            with target.open("a") as stream:
                stream.write(f"# edit {run}\n")
            later.append(timed(lambda run=run: store.take(f"bench/later-{run}")))
        print(
            f"later checkpoint after a small edit: median {statistics.median(later) * 1000:.0f} ms, worst {max(later) * 1000:.0f} ms"
        )
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
        print(f"store size: {store.size_bytes() / 1_048_576:.1f} MB (project {args.megabytes} MB)")
        del after


if __name__ == "__main__":
    main()
