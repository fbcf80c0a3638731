"""The checkpoint store: byte-exact, private, and blind to the project's own git."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from zett_tui.checkpoints.bounds import CheckpointBounds
from zett_tui.checkpoints.bulk import BULK_FILES
from zett_tui.checkpoints.store import CheckpointStore

GIT = "/usr/bin/git"


def tree_digest(folder: Path) -> str:
    """A hash of every name, mode, link target and byte under ``folder``."""
    digest = hashlib.sha256()
    for current, dirs, files in sorted(os.walk(folder)):
        dirs.sort()
        for name in sorted(files + dirs):
            path = os.path.join(current, name)
            info = os.lstat(path)
            digest.update(
                f"{os.path.relpath(path, folder)} {info.st_mode:o}\n".encode(errors="surrogateescape")
            )
            if stat.S_ISLNK(info.st_mode):
                digest.update(os.fsencode(os.readlink(path)))
            elif stat.S_ISREG(info.st_mode):
                digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def git(project: Path, *args: str) -> None:
    subprocess.run([GIT, *args], cwd=project, check=True, capture_output=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_bytes(b"print('hi')\r\n")
    (folder / "run.sh").write_bytes(b"#!/bin/sh\necho run\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "README").write_text("read me\n")
    return folder


@pytest.fixture(params=[BULK_FILES, 1], ids=["loose", "packs"])
def bulk_files(request: pytest.FixtureRequest) -> int:
    """Every store test runs both ways: few files (loose objects) and many (packs)."""
    return int(request.param)


@pytest.fixture
def store(tmp_path: Path, project: Path, bulk_files: int) -> CheckpointStore:
    return CheckpointStore(project, tmp_path / "store", bulk_files=bulk_files)


def test_changes_give_each_files_kind_and_line_counts_whatever_its_name(
    store: CheckpointStore, project: Path
) -> None:
    """One ``git diff-tree`` gives the kinds and the counts (it runs after every turn): each file
    keeps its own, names with a tab, a space, a colon or bytes that are not UTF-8 included."""
    (project / "data.bin").write_bytes(b"\x00\x01")
    os.symlink("README", project / "link")
    first = store.take("s/1/before")
    (project / "src" / "app.py").write_text("one\ntwo\nthree\n")
    (project / "run.sh").chmod(0o644)
    (project / "README").unlink()
    (project / "data.bin").write_bytes(b"\x00\x02")
    (project / "link").unlink()
    (project / "link").write_text("a file now\n")
    (project / "tab\tand space.txt").write_text("new\n")
    (project / ":colon").write_text("x\ny\n")
    (project / os.fsdecode(b"caf\xe9.txt")).write_text("latin\n")
    after = store.take("s/1/after")
    changes = {
        change.path: (change.status, change.added, change.removed)
        for change in store.changes(first.commit, after.commit)
    }
    assert changes == {
        "src/app.py": ("M", 3, 1),
        "run.sh": ("M", 0, 0),
        "README": ("D", 0, 1),
        "data.bin": ("M", -1, -1),
        "link": ("T", 1, 1),
        "tab\tand space.txt": ("A", 1, 0),
        ":colon": ("A", 2, 0),
        os.fsdecode(b"caf\xe9.txt"): ("A", 1, 0),
    }
    assert [change.path for change in store.changes(first.commit, after.commit, ["README"])] == ["README"]


def test_restores_bytes_modes_deletions_and_creations(store: CheckpointStore, project: Path) -> None:
    os.symlink("README", project / "link")
    before = tree_digest(project)
    first = store.take("s/1/before")
    (project / "src" / "app.py").write_text("changed\n")
    (project / "run.sh").chmod(0o644)
    (project / "README").unlink()
    (project / "link").unlink()
    (project / "new" / "deep").mkdir(parents=True)
    (project / "new" / "deep" / "made.txt").write_text("new\n")
    after = store.take("s/1/after")
    changed = {change.path for change in store.changes(first.commit, after.commit)}
    assert changed == {"src/app.py", "run.sh", "README", "link", "new/deep/made.txt"}
    report = store.restore(first.commit, changed)
    assert not report.problems
    assert tree_digest(project) == before
    assert not (project / "new").exists()


def test_never_touches_the_users_git(store: CheckpointStore, project: Path) -> None:
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "first")
    (project / "README").write_text("edited, not staged\n")
    dot_git = tree_digest(project / ".git")
    first = store.take("s/1/before")
    (project / "README").write_text("agent\n")
    second = store.take("s/1/after")
    store.restore(first.commit, ["README"])
    store.collect_garbage()
    assert tree_digest(project / ".git") == dot_git
    assert not any(path.startswith(".git/") for path in store.entries(second.commit))


def test_a_hostile_gitattributes_changes_no_byte_and_runs_nothing(
    store: CheckpointStore, project: Path
) -> None:
    git(project, "init", "-q")
    marker = project.parent / "filter-ran"
    git(project, "config", "filter.evil.clean", f"touch {marker}; tr a-z A-Z")
    git(project, "config", "filter.evil.smudge", f"touch {marker}; cat")
    git(project, "config", "core.hooksPath", str(project / "hooks"))
    git(project, "config", "core.fsmonitor", f"touch {marker}; echo")
    (project / ".gitattributes").write_text("* filter=evil eol=crlf ident text\n")
    (project / "id.txt").write_bytes(b"$Id$\nlf only\n")
    exact = {name: (project / name).read_bytes() for name in ("id.txt", "src/app.py")}
    first = store.take("s/1/before")
    (project / "id.txt").write_text("gone\n")
    (project / "src" / "app.py").unlink()
    store.restore(first.commit, ["id.txt", "src/app.py"])
    assert {name: (project / name).read_bytes() for name in exact} == exact
    assert not marker.exists()


def test_works_without_git_respects_ignores_and_size_bound(
    tmp_path: Path, project: Path, bulk_files: int
) -> None:
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("object\n")
    (project / ".zett").mkdir()
    (project / ".zett" / "ignore").write_text("*.log\n")
    (project / "debug.log").write_text("noise\n")
    (project / "big.bin").write_bytes(b"x" * 2048)
    store = CheckpointStore(
        project, tmp_path / "store", bounds=CheckpointBounds(max_file_bytes=1024), bulk_files=bulk_files
    )
    taken = store.take("s/1/before")
    recorded = set(store.entries(taken.commit))
    assert "src/app.py" in recorded and "run.sh" in recorded
    assert not recorded & {"build/out.o", "debug.log", "big.bin"}
    assert taken.too_large == ("big.bin",)
    assert store.too_large(taken.commit) == ["big.bin"]


def test_the_store_is_private(store: CheckpointStore) -> None:
    store.take("s/1/before")
    for current, dirs, files in os.walk(store.folder):
        for name in dirs:
            assert stat.S_IMODE(os.lstat(os.path.join(current, name)).st_mode) == 0o700, name
        for name in files:
            assert stat.S_IMODE(os.lstat(os.path.join(current, name)).st_mode) & 0o077 == 0, name


def test_a_symlink_is_recorded_as_a_link_and_not_followed(
    tmp_path: Path, store: CheckpointStore, project: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("outside secret\n")
    os.symlink(secret, project / "escape")
    taken = store.take("s/1/before")
    entry = store.entries(taken.commit)["escape"]
    assert entry.mode == "120000"
    assert store.blob_bytes([entry.blob])[entry.blob] == str(secret).encode()


def test_restore_refuses_a_folder_that_now_leads_outside(
    tmp_path: Path, store: CheckpointStore, project: Path
) -> None:
    first = store.take("s/1/before")
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "src" / "app.py").unlink()
    (project / "src").rmdir()
    os.symlink(outside, project / "src")
    report = store.restore(first.commit, ["src/app.py"])
    assert report.problems and "outside" in report.problems[0]
    assert list(outside.iterdir()) == []


def test_an_unchanged_file_is_not_read_again_and_a_changed_one_is(
    store: CheckpointStore, project: Path
) -> None:
    first = store.take("a")
    target = project / "README"
    target.write_text("new text\n")
    second = store.take("b")
    assert [c.path for c in store.changes(first.commit, second.commit)] == ["README"]


def test_dropping_refs_and_collecting_frees_space(store: CheckpointStore, project: Path) -> None:
    store.take("s/one/a")
    (project / "big").write_bytes(os.urandom(200_000))
    store.take("s/one/b")
    store.collect_garbage()
    full = store.size_bytes()
    assert store.drop_refs("s/one") == 2
    store.collect_garbage()
    assert store.size_bytes() < full - 150_000


def test_a_file_that_cannot_be_written_back_is_one_line_and_the_rest_is_restored(
    store: CheckpointStore, project: Path
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes through permissions")
    first = store.take("s/1/before")
    (project / "src" / "app.py").write_text("changed\n")
    (project / "README").write_text("changed\n")
    (project / "src").chmod(0o500)
    try:
        report = store.restore(first.commit, ["src/app.py", "README"])
    finally:
        (project / "src").chmod(0o755)
    assert report.restored == ["README"] and len(report.problems) == 1
    assert report.problems[0].startswith("src/app.py: Permission denied")


def test_a_folder_on_a_read_only_mount_is_one_line_and_the_rest_is_restored(
    store: CheckpointStore, project: Path
) -> None:
    """The same as the test above where permissions cannot stop the writer (root, as in CI)."""
    from tests.fakes.mounts import read_only_bind

    first = store.take("s/1/before")
    (project / "src" / "app.py").write_text("changed\n")
    (project / "README").write_text("changed\n")
    with read_only_bind(project / "src"):
        report = store.restore(first.commit, ["src/app.py", "README"])
    assert report.restored == ["README"] and len(report.problems) == 1
    assert report.problems[0].startswith("src/app.py: Read-only file system")
    assert (project / "src" / "app.py").read_text() == "changed\n"


def test_a_restore_into_an_immutable_place_is_one_line(
    store: CheckpointStore, project: Path, monkeypatch
) -> None:
    import zett_tui.checkpoints.store as store_module

    first = store.take("s/1/before")
    (project / "README").write_text("changed\n")
    real_replace = os.replace

    def refuse(source, target):  # type: ignore[no-untyped-def]
        if str(target).endswith("README"):
            raise PermissionError(13, "Permission denied")
        real_replace(source, target)

    monkeypatch.setattr(store_module.os, "replace", refuse)
    report = store.restore(first.commit, ["README"])
    assert report.problems == ["README: Permission denied"]
    assert (project / "README").read_text() == "changed\n"
    assert not [p for p in project.iterdir() if "zett-restore" in p.name]


def test_a_project_that_is_gone_cannot_be_recorded(
    tmp_path: Path, store: CheckpointStore, project: Path
) -> None:
    store.take("s/1/before")
    project.rename(tmp_path / "moved")
    with pytest.raises(FileNotFoundError, match="is gone"):
        store.take("s/1/after")


def test_the_size_bound_names_exactly_the_large_files_as_they_grow_and_shrink(
    tmp_path: Path, project: Path, bulk_files: int
) -> None:
    store = CheckpointStore(
        project, tmp_path / "store", bounds=CheckpointBounds(max_file_bytes=1024), bulk_files=bulk_files
    )
    (project / "big[1] *.bin").write_bytes(b"x" * 2048)
    (project / "big1 a.bin").write_bytes(b"small\n")
    first = store.take("s/1/a")
    assert first.too_large == ("big[1] *.bin",)
    assert "big1 a.bin" in store.entries(first.commit)
    (project / "README").write_bytes(b"y" * 4096)
    grown = store.take("s/1/b")
    assert grown.too_large == ("README", "big[1] *.bin")
    assert not {"README", "big[1] *.bin"} & set(store.entries(grown.commit))
    (project / "big[1] *.bin").write_bytes(b"now small\n")
    shrunk = store.take("s/1/c")
    assert shrunk.too_large == ("README",)
    assert store.blob_bytes([store.entries(shrunk.commit)["big[1] *.bin"].blob]) == {
        store.entries(shrunk.commit)["big[1] *.bin"].blob: b"now small\n"
    }


def test_files_made_between_quick_checkpoints_are_all_recorded_and_nested_repos_are_not(
    store: CheckpointStore, project: Path
) -> None:
    nested = project / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / "inner.txt").write_text("inner\n")
    git(nested, "add", ".")
    git(nested, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "inner")
    taken = [store.take("s/1/0")]
    for step in range(1, 4):
        (project / "src" / f"new{step}.py").write_text(f"{step}\n")
        taken.append(store.take(f"s/1/{step}"))
        recorded = store.entries(taken[-1].commit)
        assert {f"src/new{n}.py" for n in range(1, step + 1)} <= set(recorded)
    assert not [path for path in recorded if path.startswith("vendor/")]
    assert all(entry.mode != "160000" for entry in recorded.values())


def test_a_second_session_records_the_same_files(
    tmp_path: Path, store: CheckpointStore, project: Path
) -> None:
    first = store.take("s/1/a")
    (project / "README").write_text("edited between sessions\n")
    later = CheckpointStore(project, tmp_path / "store", bulk_files=store.bulk_files).take("s/2/a")
    assert [c.path for c in store.changes(first.commit, later.commit)] == ["README"]
    assert store.blob_bytes([store.entries(later.commit)["README"].blob]).popitem()[1] == (
        b"edited between sessions\n"
    )


def test_a_recorded_file_that_becomes_ignored_is_no_longer_recorded(
    store: CheckpointStore, project: Path
) -> None:
    (project / "src" / "keep.py").write_text("keep\n")
    first = store.take("s/1/a")
    assert {"README", "src/app.py"} <= set(store.entries(first.commit))
    (project / "src" / ".gitignore").write_text("app.py\n")
    second = store.take("s/1/b")
    assert "src/app.py" not in store.entries(second.commit)
    (project / ".zett").mkdir()
    (project / ".zett" / "ignore").write_text("README\n")
    third = set(store.entries(store.take("s/1/c").commit))
    assert "README" not in third and "src/keep.py" in third


def test_python_bytecode_is_never_a_changed_file(store: CheckpointStore, project: Path) -> None:
    """No ``.gitignore`` names ``__pycache__`` here: a one-file fix whose test run wrote bytecode is
    still one file changed (it read "2 files changed", the second "+0 -0")."""
    first = store.take("s/1/before")
    (project / "src" / "app.py").write_text("fixed\n")
    (project / "src" / "__pycache__").mkdir()
    (project / "src" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\x00bytecode")
    (project / "old.pyc").write_bytes(b"\x00bytecode")
    after = store.take("s/1/after")
    assert [change.path for change in store.changes(first.commit, after.commit)] == ["src/app.py"]
    assert not {"src/__pycache__/app.cpython-311.pyc", "old.pyc"} & set(store.entries(after.commit))


def counting_git_commands(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The store's git commands from now on, by name (each is a process)."""
    from zett_tui.checkpoints import staging, store

    names: list[str] = []
    for module in (staging, store):
        real = module.run_git

        def counted(git_dir, work_tree, args, _real=real, **options):  # type: ignore[no-untyped-def]
            names.append(next(arg for arg in args if not arg.startswith("-") and "=" not in arg))
            return _real(git_dir, work_tree, args, **options)

        monkeypatch.setattr(module, "run_git", counted)
    return names


def test_an_unchanged_project_is_the_last_checkpoint_again_and_each_change_right_after_is_seen(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing changed since the last checkpoint: its commit again, after one listing (git's stat
    cache, as ``git status``) and the ref. Each change made right after a checkpoint (the same
    second, the same size: git's "racily clean" case) is recorded as a fresh store records it.
    (One way only: whether a checkpoint writes packs does not enter into it.)"""
    (project / "link").symlink_to("README")
    (project / "huge.bin").write_bytes(b"x" * 2000)  # over the bound: left out, and listed each time
    store = CheckpointStore(project, tmp_path / "store", bounds=CheckpointBounds(max_file_bytes=1000))
    first = store.take("s/1/a")
    commands = counting_git_commands(monkeypatch)
    again = store.take("s/1/b")
    assert again.commit == first.commit and again.too_large == ("huge.bin",)
    assert commands == ["ls-files", "update-ref"]
    assert store.refs("s/1") == {"s/1/a": first.commit, "s/1/b": first.commit}

    def same_size(path: Path) -> None:
        path.write_bytes(path.read_bytes().swapcase())

    changes = [
        lambda: same_size(project / "README"),
        lambda: (project / "README").chmod(0o755),
        lambda: (project / "run.sh").unlink(),
        lambda: (project / "src" / "new.py").write_text("new\n"),
        lambda: ((project / "link").unlink(), (project / "link").symlink_to("src")),
        lambda: (project / ".gitignore").write_text("/README\n"),
        lambda: ((project / ".zett").mkdir(), (project / ".zett" / "ignore").write_text("src/new.py\n")),
        lambda: (project / "huge.bin").write_bytes(b"small now\n"),
    ]
    last = again
    for step, change in enumerate(changes):
        change()
        taken = store.take(f"s/1/{step}")
        assert taken.commit != last.commit, f"change {step} was not seen"
        fresh_store = CheckpointStore(
            project, tmp_path / f"fresh{step}", bounds=CheckpointBounds(max_file_bytes=1000)
        )
        fresh = fresh_store.take("f/1/a")
        assert store.entries(taken.commit) == fresh_store.entries(fresh.commit)  # same modes and blobs
        assert taken.too_large == fresh.too_large
        unchanged = store.take(f"s/1/{step}-again")
        assert unchanged.commit == taken.commit
        last = taken


def test_checkpoints_go_on_after_their_objects_were_collected(
    tmp_path: Path, store: CheckpointStore, project: Path
) -> None:
    """Removing the sessions that held a project's checkpoints collects their objects while the
    indexes (this process's, and the copy kept for the next session) still name them as recorded:
    a checkpoint must read the files again, not fail on every turn from then on."""
    past = time.time() - 60  # files of a real project: older than the index ("racily clean" hid it)
    for path in (project / "README", project / "run.sh", project / "src" / "app.py"):
        os.utime(path, (past, past))
    store.take("s/1/a")
    housekeeping = CheckpointStore.at(store.folder)  # ``zett sessions rm``, from another process
    assert housekeeping.drop_refs("s/1") == 1
    housekeeping.collect_garbage()
    again = store.take("s/1/b")
    assert set(store.entries(again.commit)) == {"README", "run.sh", "src/app.py"}
    assert store.refs("s/1") == {"s/1/b": again.commit}
    assert housekeeping.drop_refs("s/1") == 1
    housekeeping.collect_garbage()
    for index in store.folder.glob("scratch-*.index"):
        index.unlink()  # the next zett process starts from the copy kept for it
    later = CheckpointStore(project, tmp_path / "store", bulk_files=store.bulk_files).take("s/2/a")
    assert store.blob_bytes([store.entries(later.commit)["README"].blob]).popitem()[1] == b"read me\n"


def test_a_first_checkpoint_lists_the_files_once_and_records_no_ignored_file(
    tmp_path: Path, store: CheckpointStore, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is recorded yet, so no recorded file can have become ignored: no second listing. A
    next session starts from the index the last one kept, and files ignored since are dropped."""
    (project / ".gitignore").write_text("*.log\n")
    (project / "debug.log").write_text("noise\n")
    commands = counting_git_commands(monkeypatch)
    first = store.take("s/1/a")
    assert commands.count("ls-files") == 1
    assert set(store.entries(first.commit)) == {".gitignore", "README", "run.sh", "src/app.py"}
    (project / ".gitignore").write_text("*.log\nREADME\n")
    for index in store.folder.glob("scratch-*.index"):
        index.unlink()  # the next zett process starts from the copy kept for it
    later = CheckpointStore(project, tmp_path / "store", bulk_files=store.bulk_files).take("s/2/a")
    assert set(store.entries(later.commit)) == {".gitignore", "run.sh", "src/app.py"}
