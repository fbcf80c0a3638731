"""A folder too big to record gets no checkpoints, said in one line, and the turn goes on.

zett started in a home folder (or ``/tmp`` with 873,000 files) used to record all of it before
its first turn could end. Each bound is attacked with the variants that would slip past a naive
one: files deep in folders, a project growing past the bound a few files per turn, bytes spread
over many small files; and what must not count does not (ignored folders, ``.zett/ignore``,
files left out for their size).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_small_things import zett
from zett_tui.checkpoints.bounds import CheckpointBounds, TooMuchToRecord
from zett_tui.checkpoints.recording import SessionCheckpoints
from zett_tui.checkpoints.rewind import RewindRefused
from zett_tui.checkpoints.store import CheckpointStore
from zett_tui.core import paths


def files(folder: Path, count: int, *, size: int = 1, under: str = "") -> None:
    """``count`` files of ``size`` bytes, spread over nested folders below ``folder/under``."""
    for n in range(count):
        path = folder / under / f"d{n % 3}" / f"e{n % 2}" / f"f{n}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(bytes([65 + n % 26]) * size)


def refs(store: CheckpointStore) -> dict[str, str]:
    return store.refs()


def test_a_folder_with_more_files_than_the_bound_is_not_recorded_at_all(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 12)
    store = CheckpointStore(project, tmp_path / "store", bounds=CheckpointBounds(max_files=10))
    with pytest.raises(TooMuchToRecord, match="12 files to record, more than 10"):
        store.take("t1/before")
    assert refs(store) == {}
    # Under the bound again, the store works as if nothing happened: every file is recorded.
    for n in (0, 1, 2):
        os.unlink(project / f"d{n % 3}" / f"e{n % 2}" / f"f{n}.txt")
    taken = store.take("t1/before")
    assert len(store.entries(taken.commit)) == 9


def test_recorded_files_count_too_so_a_project_cannot_grow_past_the_bound_a_few_at_a_time(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    files(project, 8)
    store = CheckpointStore(project, tmp_path / "store", bounds=CheckpointBounds(max_files=10))
    store.take("t1/before")
    files(project, 2, under="more")
    store.take("t1/after")  # 10: at the bound, still recorded
    files(project, 3, under="again")
    with pytest.raises(TooMuchToRecord, match="13 files to record"):
        store.take("t2/before")
    assert set(refs(store)) == {"t1/before", "t1/after"}


def test_a_changed_file_is_not_counted_twice(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 10)
    store = CheckpointStore(project, tmp_path / "store", bounds=CheckpointBounds(max_files=10))
    store.take("t1/before")
    (project / "d0" / "e0" / "f0.txt").write_text("changed, and longer than before\n")
    after = store.take("t1/after")
    assert store.entries(after.commit)["d0/e0/f0.txt"]


def test_ignored_folders_and_zett_ignore_do_not_count(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 5)
    files(project, 30, under="node_modules")
    files(project, 30, under="datasets")
    (project / ".gitignore").write_text("node_modules/\n")
    (project / ".zett").mkdir()
    (project / ".zett" / "ignore").write_text("datasets/\n")
    store = CheckpointStore(project, tmp_path / "store", bounds=CheckpointBounds(max_files=10))
    taken = store.take("t1/before")
    assert len(store.entries(taken.commit)) == 7  # the five, .gitignore and .zett/ignore


def test_new_bytes_over_the_bound_spread_over_small_files_are_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 30, size=100)  # 3,000 bytes, no file near the size bound
    bounds = CheckpointBounds(max_file_bytes=1000, max_new_bytes=2000)
    store = CheckpointStore(project, tmp_path / "store", bounds=bounds)
    with pytest.raises(TooMuchToRecord, match="new or changed files"):
        store.take("t1/before")
    assert refs(store) == {}


def test_files_left_out_for_their_size_are_not_read_so_do_not_count(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 3, size=100)
    (project / "big.bin").write_bytes(b"x" * 5000)
    bounds = CheckpointBounds(max_file_bytes=1000, max_new_bytes=2000)
    store = CheckpointStore(project, tmp_path / "store", bounds=bounds)
    taken = store.take("t1/before")
    assert taken.too_large == ("big.bin",)
    assert len(store.entries(taken.commit)) == 3


def test_only_new_bytes_count_after_the_first_checkpoint(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 15, size=100)
    bounds = CheckpointBounds(max_file_bytes=1000, max_new_bytes=2000)
    store = CheckpointStore(project, tmp_path / "store", bounds=bounds)
    store.take("t1/before")
    files(project, 15, size=100, under="second")  # 1,500 bytes new: under the bound
    store.take("t1/after")
    files(project, 25, size=100, under="third")  # 2,500 bytes new: over it
    with pytest.raises(TooMuchToRecord):
        store.take("t2/before")


def test_a_listing_slower_than_its_bound_is_stopped(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 3)
    store = CheckpointStore(project, tmp_path / "store", bounds=CheckpointBounds(listing_seconds=1e-6))
    with pytest.raises(TooMuchToRecord, match="listing this folder's files took more than"):
        store.take("t1/before")
    assert refs(store) == {}


def test_a_refused_checkpoint_leaves_the_index_as_it_was(tmp_path: Path) -> None:
    """A refusal between reading ``.zett/ignore`` and recording must not make the next checkpoint
    believe the ignore rules it never applied are applied (files newly ignored would stay)."""
    project = tmp_path / "project"
    files(project, 6)
    store = CheckpointStore(project, tmp_path / "store", bounds=CheckpointBounds(max_files=10))
    store.take("t1/before")
    (project / ".zett").mkdir()
    (project / ".zett" / "ignore").write_text("d0/\n")
    files(project, 10, under="burst")
    with pytest.raises(TooMuchToRecord):
        store.take("t1/after")
    for path in (project / "burst").rglob("*.txt"):
        path.unlink()
    taken = store.take("t2/before")
    recorded = store.entries(taken.commit)
    assert not [path for path in recorded if path.startswith("d0/")]
    assert ".zett/ignore" in recorded


async def test_the_session_says_it_once_marks_the_turn_and_takes_no_more(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files(project, 12)
    said: list[tuple[str, str]] = []
    checkpoints = SessionCheckpoints(
        project,
        "s",
        root=tmp_path / "store",
        bounds=CheckpointBounds(max_files=10),
        notify=lambda text, level: said.append((text, level)),
    )
    for turn in ("t1", "t2"):
        checkpoints.begin_turn(turn, "go", f"r-{turn}")
        await checkpoints.before_change()
        record = await checkpoints.end_turn()
        assert record is not None and record.before is None and record.after is None
        assert record.missing and "12 files to record" in record.missing
    assert len(said) == 1 and said[0][1] == "warning"
    text = said[0][0]
    assert text.startswith("Checkpoints are off for this session: this folder has 12 files to record")
    assert ".zett/ignore" in text and "[checkpoints] max_files" in text
    assert checkpoints.off is not None
    assert not (checkpoints.store.git_dir / "refs" / "zett").exists() or refs(checkpoints.store) == {}
    with pytest.raises(RewindRefused, match="checkpoints are off"):
        await checkpoints.plan_rewind(checkpoints.records()[0])


def test_the_bounds_are_the_users_to_set_not_the_projects(tmp_path: Path) -> None:
    from zett_tui.config.settings import load_settings

    user = paths.config_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("[checkpoints]\nmax_files = 500\nmax_new_mb = 2.5\n")
    project = Path.cwd()
    (project / ".zett").mkdir(exist_ok=True)
    (project / ".zett" / "config.toml").write_text("[checkpoints]\nmax_files = 100000000\n")
    settings, problems = load_settings(cwd=project, env=os.environ, project_trusted=True)
    assert settings.checkpoints.max_files == 500
    assert settings.checkpoints.bounds.max_new_bytes == int(2.5 * 1024 * 1024)
    assert [str(p) for p in problems if "checkpoints.max_files" in str(p)]
    user.write_text("[checkpoints]\nmax_files = 0\n")
    settings, problems = load_settings(cwd=project, env=os.environ, project_trusted=True)
    assert settings.checkpoints.max_files == 100_000
    assert any("expected between 1 and 100000000 files" in str(p) for p in problems)


def test_zett_p_in_a_folder_over_the_bound_answers_at_once_and_says_why(project_dir: Path) -> None:
    """The real ``zett -p``, its config read from the user's file, a folder 20 files over it."""
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text("[checkpoints]\nmax_files = 20\n")
    files(project_dir, 40)
    done = zett("-p", "hi", "--model", "demo", cwd=project_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert "Checkpoints are off for this session: this folder has 40 files to record" in done.stderr
    assert "Traceback" not in done.stderr
    stores = [CheckpointStore.at(folder) for folder in paths.checkpoints_dir().glob("*")]
    assert stores and all(refs(store) == {} for store in stores)
