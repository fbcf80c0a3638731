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

import pytest

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


#: A turn during which a file the agent did not touch becomes unreadable (chmod 000, as a user
#: other than root: as root the script runs as nobody), then a rewind of that turn.
UNREADABLE_SCRIPT = r"""
import asyncio, json, os, sys
from pathlib import Path
from zett_tui.checkpoints.recording import SessionCheckpoints

base = Path(sys.argv[1])
project, root = base / "theirs-and-agents", base / "store"
project.mkdir()
(project / "agent.txt").write_text("before\n")
(project / "theirs.txt").write_text("theirs, first\n")
said = []

async def main():
    checkpoints = SessionCheckpoints(project, "s", root=root, notify=lambda t, l: said.append((t, l)))
    checkpoints.begin_turn("t1", "first", "r1")
    await checkpoints.end_turn()
    checkpoints.begin_turn("t2", "second", "r2")
    await checkpoints.before_change()
    (project / "agent.txt").write_text("after\n")
    (project / "theirs.txt").write_text("theirs, changed meanwhile\n")
    os.chmod(project / "theirs.txt", 0)
    record = await checkpoints.end_turn()
    plan = await checkpoints.plan_rewind(record)
    outcome = await checkpoints.rewind(record, plan=plan, conversation=False)
    os.chmod(project / "theirs.txt", 0o600)
    print(json.dumps({
        "said": said,
        "record": vars(record),
        "plan": {"restore": plan.restore, "unreadable": plan.unreadable},
        "problems": outcome.report.problems,
        "agent": (project / "agent.txt").read_text(),
        "theirs": (project / "theirs.txt").read_text(),
    }))

asyncio.run(main())
"""


def as_a_user_without_root_powers() -> list[str]:
    """The command prefix that runs a program where chmod 000 holds: nothing for a plain user; for
    root, a user namespace in which it is a plain user owning its files (``unshare``)."""
    if os.geteuid() != 0:
        return []
    prefix = ["unshare", "--user", "--map-user=1000", "--map-group=1000"]
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("running as root, and no user namespace to run as a plain user in")
    return prefix


def test_a_file_that_cannot_be_read_is_one_line_and_never_rewound_from_a_stale_copy(tmp_path: Path) -> None:
    done = subprocess.run(
        [*as_a_user_without_root_powers(), sys.executable, "-c", UNREADABLE_SCRIPT, str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    warnings = [text for text, level in result["said"] if level == "warning"]
    assert warnings == [
        "A checkpoint could not read theirs.txt (Permission denied); it keeps what it last read of it, and a rewind leaves it"
        " as it is. The turn goes on."
    ]
    record = result["record"]
    assert record["missing"] is None and record["unreadable"] == ["theirs.txt"]
    assert result["plan"] == {"restore": ["agent.txt"], "unreadable": ["theirs.txt"]}
    assert result["agent"] == "before\n"
    assert result["theirs"] == "theirs, changed meanwhile\n"  # never put back from what was read before


HOLD_LOCKS = r"""
import fcntl, sys
flocked = open(sys.argv[1], "rb+")
fcntl.flock(flocked, fcntl.LOCK_EX)
lockfed = open(sys.argv[2], "rb+")
fcntl.lockf(lockfed, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.read()
"""


async def test_files_another_process_holds_locked_are_recorded_and_restored(project_dir: Path) -> None:
    from zett_tui.checkpoints.recording import SessionCheckpoints

    flocked, lockfed = project_dir / "flocked.db", project_dir / "lockfed.db"
    flocked.write_text("flock: first\n")
    lockfed.write_text("lockf: first\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCKS, str(flocked), str(lockfed)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        said: list[tuple[str, str]] = []
        checkpoints = SessionCheckpoints(
            project_dir,
            "s",
            root=paths.checkpoints_dir(),
            notify=lambda text, level: said.append((text, level)),
        )
        checkpoints.begin_turn("t1", "change the databases", "r1")
        await checkpoints.before_change()
        flocked.write_text("flock: changed\n")
        lockfed.write_text("lockf: changed\n")
        record = await checkpoints.end_turn()
        assert record is not None and record.missing is None and record.unreadable == []
        assert sorted(record.paths) == ["flocked.db", "lockfed.db"]
        plan = await checkpoints.plan_rewind(record)
        outcome = await checkpoints.rewind(record, plan=plan, conversation=False)
        assert outcome.report is not None and outcome.report.problems == []
        assert flocked.read_text() == "flock: first\n" and lockfed.read_text() == "lockf: first\n"
        assert [text for text, level in said if level == "warning"] == []
    finally:
        holder.communicate("", timeout=30)


async def test_a_fifo_or_a_file_removed_mid_walk_does_not_stop_a_checkpoint(
    project_dir: Path, monkeypatch
) -> None:
    from zett_tui.checkpoints import git_env
    from zett_tui.checkpoints.recording import SessionCheckpoints

    (project_dir / "kept.txt").write_text("kept\n")
    (project_dir / "vanishing.txt").write_text("here for now\n")
    os.mkfifo(project_dir / "pipe")  # nobody writes to it: reading it would block forever
    real_run_git = git_env.run_git
    listings = []
    adds = []

    def remove_before_add(git_dir, work_tree, args, **options):  # type: ignore[no-untyped-def]
        if "ls-files" in args and "--modified" in args:
            listings.append(args)
            if len(listings) == 2:  # the turn changed it: its last checkpoint lists it
                (project_dir / "vanishing.txt").write_text("here for now, changed by the turn\n")
        if "add" in args:  # the turn's last checkpoint: after git listed the file, before it reads it
            adds.append(args)
            if len(adds) == 2:
                (project_dir / "vanishing.txt").unlink()
        return real_run_git(git_dir, work_tree, args, **options)

    said: list[tuple[str, str]] = []
    checkpoints = SessionCheckpoints(
        project_dir, "s", root=paths.checkpoints_dir(), notify=lambda text, level: said.append((text, level))
    )
    checkpoints.begin_turn("t1", "one", "r1")
    await checkpoints.end_turn()
    (project_dir / "vanishing.txt").write_text("here for now, changed\n")
    from zett_tui.checkpoints import staging

    monkeypatch.setattr(staging, "run_git", remove_before_add)
    checkpoints.begin_turn("t2", "two", "r2")
    record = await checkpoints.end_turn()
    assert record is not None and record.missing is None
    assert [(path, status) for path, _a, _r, status in record.changes] == [("vanishing.txt", "D")]
    assert len(adds) == 2
    assert [text for text, level in said if level == "warning"] == []
