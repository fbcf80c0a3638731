"""A checkpoint of many new files (a project's first): packs instead of a file per object."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import zett_tui.checkpoints.bulk as bulk_module
import zett_tui.checkpoints.staging as staging_module
from tests.test_checkpoint_store import GIT, tree_digest
from zett_tui.checkpoints.bulk import split_pathspecs
from zett_tui.checkpoints.git_env import GitFailed
from zett_tui.checkpoints.index_merge import IndexMergeRefused, merge_indexes
from zett_tui.checkpoints.store import CheckpointStore

#: Names ``fast-import`` reads only quoted: a newline, a leading quote, a backslash, bytes that
#: are not UTF-8, spaces at either end.
ODD_NAMES = [b"line\nbreak.txt", b'"quoted".txt', b"back\\slash", b"caf\xe9.txt", b" spaced ", b"tab\there"]


def many_files(project: Path) -> None:
    for index in range(120):
        folder = project / f"pkg{index % 4}" / f"mod{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file{index}.py").write_bytes(f"# {index}\n".encode() * (index + 1))
    (project / "odd").mkdir()
    for name in ODD_NAMES:
        with open(os.fsencode(project / "odd") + b"/" + name, "wb") as stream:
            stream.write(b"odd: " + name + b"\r\n")
    (project / "pkg0" / "run.sh").write_bytes(b"#!/bin/sh\necho run\n")
    (project / "pkg0" / "run.sh").chmod(0o755)
    os.symlink("../pkg1", project / "odd" / "link")


def loose_kinds(store: CheckpointStore) -> Counter[str]:
    """How many loose objects of each kind the store holds."""
    objects = store.git_dir / "objects"
    ids = [f"{d.name}{f.name}" for d in objects.iterdir() if len(d.name) == 2 for f in d.iterdir()]
    done = subprocess.run(
        [GIT, f"--git-dir={store.git_dir}", "cat-file", "--batch-check=%(objecttype)"],
        input="".join(f"{i}\n" for i in ids).encode(),
        capture_output=True,
        check=True,
    )
    return Counter(done.stdout.decode().split())


def all_refs(store: CheckpointStore) -> list[str]:
    done = subprocess.run(
        [GIT, f"--git-dir={store.git_dir}", "for-each-ref", "--format=%(refname)"],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().split()


def packs(store: CheckpointStore) -> set[str]:
    return {p.name for p in (store.git_dir / "objects" / "pack").glob("*.pack")}


@pytest.mark.parametrize("cores", [1, 2], ids=["one add", "split over two cores"])
def test_many_new_files_go_into_packs_and_come_back_byte_for_byte(
    tmp_path: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    monkeypatch.setattr(staging_module.os, "cpu_count", lambda: cores)
    project = project_dir
    many_files(project)
    exact = tree_digest(project)
    store = CheckpointStore(project, tmp_path / "store", bulk_files=50)
    first = store.take("s/1/before")
    # The commit and the link's blob are the only files of their own: every file's blob and
    # every folder's tree (the odd names' folder too) is in a pack.
    assert loose_kinds(store) == {"commit": 1, "blob": 1}
    recorded = store.entries(first.commit)
    assert len(recorded) == 120 + len(ODD_NAMES) + 2
    assert recorded["pkg0/run.sh"].mode == "100755" and recorded["odd/link"].mode == "120000"
    assert all_refs(store) == ["refs/zett/s/1/before"]  # the trees' scratch ref is gone
    for current, _dirs, files in os.walk(project):
        for name in files:
            with open(os.path.join(current, name), "ab") as stream:
                stream.write(b"changed by the agent\n")
    (project / "odd" / "link").unlink()
    (project / "pkg3" / "new.py").write_text("made by the agent\n")
    after = store.take("s/1/after")
    report = store.restore(first.commit, [c.path for c in store.changes(first.commit, after.commit)])
    assert not report.problems
    assert tree_digest(project) == exact


def test_a_checkpoint_of_a_few_changes_adds_no_pack(tmp_path: Path, project_dir: Path) -> None:
    project = project_dir
    many_files(project)
    store = CheckpointStore(project, tmp_path / "store", bulk_files=50)
    store.take("s/1/a")
    before = packs(store)
    (project / "pkg1" / "mod1" / "file1.py").write_text("one small edit\n")
    second = store.take("s/1/b")
    assert packs(store) == before
    assert store.blob_bytes([store.entries(second.commit)["pkg1/mod1/file1.py"].blob]).popitem()[1] == (
        b"one small edit\n"
    )


@pytest.mark.parametrize("bulk_files", [1, 1000], ids=["packs", "loose"])
def test_a_git_add_that_gives_up_is_tried_once_more(
    tmp_path: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch, bulk_files: int
) -> None:
    """git stops ``add`` altogether when a file shrinks while it reads it: a bad setting does too."""
    project = project_dir
    many_files(project)
    monkeypatch.setattr(staging_module.os, "cpu_count", lambda: 2)  # the split fails, then one add
    real_run_git = staging_module.run_git
    adds: list[int] = []

    def add_dies_first(git_dir, work_tree, args, **options):  # type: ignore[no-untyped-def]
        if "add" in args:
            adds.append(1)
            if len(adds) == 1:
                args = ["-c", "core.bigFileThreshold=not-a-number", *args]
        return real_run_git(git_dir, work_tree, args, **options)

    for module in (staging_module, bulk_module):
        monkeypatch.setattr(module, "run_git", add_dies_first)
    store = CheckpointStore(project, tmp_path / "store", bulk_files=bulk_files)
    taken = store.take("s/1/a")
    assert len(adds) >= 2  # (a first checkpoint split over the cores fell back to one add)
    assert len(store.entries(taken.commit)) == 120 + len(ODD_NAMES) + 2


def test_a_git_add_that_keeps_giving_up_is_no_checkpoint(
    tmp_path: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a checkpoint of whatever the index held before: the turn says it is missing."""
    project = project_dir
    many_files(project)
    real_run_git = staging_module.run_git

    def add_dies(git_dir, work_tree, args, **options):  # type: ignore[no-untyped-def]
        if "add" in args:
            args = ["-c", "core.bigFileThreshold=not-a-number", *args]
        return real_run_git(git_dir, work_tree, args, **options)

    for module in (staging_module, bulk_module):
        monkeypatch.setattr(module, "run_git", add_dies)
    store = CheckpointStore(project, tmp_path / "store", bulk_files=50)
    with pytest.raises(GitFailed, match="bigfilethreshold"):
        store.take("s/1/a")
    assert store.refs() == {}


def git_index(index: Path, project: Path, *args: str) -> bytes:
    done = subprocess.run(
        [GIT, f"--work-tree={project}", *args],
        env={**os.environ, "GIT_DIR": str(index.parent / "x.git"), "GIT_INDEX_FILE": str(index)},
        cwd=project,
        capture_output=True,
        check=True,
    )
    return done.stdout


def test_a_first_checkpoint_split_over_the_cores_keeps_gits_stat_cache(
    tmp_path: Path, project_dir: Path
) -> None:
    """The joined index is the one git would write: every entry, mode, blob and stat datum."""
    many_files(project_dir)
    subprocess.run([GIT, "init", "-q", "--bare", str(tmp_path / "x.git")], check=True)
    specs = split_pathspecs([(p.encode(), 1) for p in ("pkg0/a", "pkg1/b", "pkg2/c", "pkg3/d", "odd/e")], 2)
    assert specs is not None and all(specs)
    parts = [tmp_path / f"part{n}" for n in range(2)]
    for part, spec in zip(parts, specs, strict=True):
        git_index(part, project_dir, "add", "-A", "--", *map(os.fsdecode, spec))
    whole = tmp_path / "whole"
    git_index(whole, project_dir, "add", "-A")
    joined = tmp_path / "joined"
    assert merge_indexes(parts, joined) == 120 + len(ODD_NAMES) + 2
    listing = ["ls-files", "-s", "-z", "--debug"]
    assert git_index(joined, project_dir, *listing) == git_index(whole, project_dir, *listing)


def test_an_index_this_cannot_join_is_refused(tmp_path: Path, project_dir: Path) -> None:
    many_files(project_dir)
    subprocess.run([GIT, "init", "-q", "--bare", str(tmp_path / "x.git")], check=True)
    index = tmp_path / "index"
    git_index(index, project_dir, "add", "-A", "--", "pkg0")
    with pytest.raises(IndexMergeRefused, match="two indexes"):
        merge_indexes([index, index], tmp_path / "joined")
    damaged = tmp_path / "damaged"
    damaged.write_bytes(index.read_bytes()[:-1] + b"x")
    with pytest.raises(IndexMergeRefused, match="not a whole index"):
        merge_indexes([damaged], tmp_path / "joined")
    git_index(index, project_dir, "update-index", "--index-version", "4")
    with pytest.raises(IndexMergeRefused, match="version 4"):
        merge_indexes([index], tmp_path / "joined")
    assert not (tmp_path / "joined").exists()
