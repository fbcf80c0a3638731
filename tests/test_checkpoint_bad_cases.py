"""Checkpoints in bad cases (issue 13, item 7): two zett processes on one project at once, a file
another process holds locked, a file that cannot be read (a FIFO, a file removed mid-walk). Each
is one clear line at most, the turn goes on, and a checkpoint that could not be taken is shown as
missing, never pretended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.test_checkpoint_store import git
from zett_tui.checkpoints.store import CheckpointStore
from zett_tui.core import paths

ROOT = Path(__file__).resolve().parent.parent

#: One zett's checkpoints (``SessionCheckpoints``, as its host drives them) over several turns,
#: each changing a file of its own; it waits for the ``go`` file so both processes start together.
TURNS_SCRIPT = r"""
import asyncio, json, os, sys, time
from pathlib import Path
from zett_tui.checkpoints.recording import SessionCheckpoints

project, root, name, go = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
said = []

async def main():
    checkpoints = SessionCheckpoints(project, f"session-{name}", root=root,
                                     notify=lambda text, level: level == "warning" and said.append(text))
    while not go.exists():
        time.sleep(0.005)
    for turn in range(6):
        checkpoints.begin_turn(f"t{turn}", f"turn {turn}", f"{name}-r{turn}")
        await checkpoints.before_change()
        (project / f"{name}.txt").write_text(f"{name} after turn {turn}\n")
        await checkpoints.end_turn()
    records = [vars(record) for record in checkpoints.records()]
    print(json.dumps({"records": records, "said": said}))

asyncio.run(main())
"""


def run_two_zetts(project: Path, root: Path) -> dict[str, dict]:
    go = project.parent / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes = {
        name: subprocess.Popen(
            [sys.executable, "-c", TURNS_SCRIPT, str(project), str(root), name, str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("left", "right")
    }
    go.write_text("go")
    results = {}
    for name, process in processes.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        results[name] = json.loads(out)
    return results


def test_two_zett_processes_checkpointing_one_project_at_once_keep_a_sound_store(project_dir: Path) -> None:
    git(project_dir, "init", "-q")
    for index in range(200):
        (project_dir / f"file-{index}.txt").write_text(f"shared {index}\n")
    root = paths.checkpoints_dir()
    results = run_two_zetts(project_dir, root)
    store = CheckpointStore(project_dir, root)
    fsck = subprocess.run(
        ["git", "--git-dir", str(store.git_dir), "fsck", "--full", "--strict"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr
    for name, result in results.items():
        records = result["records"]
        assert len(records) == 6
        for turn, record in enumerate(records):
            if record["missing"] is not None:  # shown as missing, with why, in one line
                assert record["before"] is None or record["after"] is None
                assert "\n" not in record["missing"]
                continue
            # Each checkpoint is whole and restorable: the file as it was after that turn.
            assert f"{name}.txt" in {change[0] for change in record["changes"]}
            entries = store.entries(record["after"])
            blob = entries[f"{name}.txt"].blob
            assert store.blob_bytes([blob])[blob] == f"{name} after turn {turn}\n".encode()
            assert len([path for path in entries if path.startswith("file-")]) == 200
        assert all("\n" not in line for line in result["said"])
        assert len(result["said"]) == len(set(result["said"]))  # each line said once
