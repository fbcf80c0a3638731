"""A private, content-addressed store of a project's files: zett's checkpoints.

One git object store per project under zett's data folder (its own ``GIT_DIR``; the project is
only ever its work tree, read). A checkpoint is a commit of the project's files as they are:
every file git would not ignore (``.gitignore``, ``.zett/ignore``), with its mode (the exec bit)
and symlinks as links (never followed). Files over a size bound are left out and named. Objects
are deduplicated by content, so a checkpoint after a small edit adds a few hundred bytes.

Nothing here touches the user's ``.git``: the commands run with a scrubbed environment
(``git_env``), no filter or attribute of the project applies, and files are written back by this module,
byte for byte, never by ``git checkout``. What a checkpoint records is put in this process's
index by ``staging``. All methods block: call them in a thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zett_tui.checkpoints.bounds import CheckpointBounds
from zett_tui.checkpoints.bulk import BULK_FILES, prewrite_trees, scratch_ref
from zett_tui.checkpoints.git_env import GitFailed, run_git
from zett_tui.checkpoints.restore_files import (
    Entry,
    remove_empty_parents,
    write_entry,
)
from zett_tui.checkpoints.staging import Staged, StagingIndex
from zett_tui.core.paths import PRIVATE_FILE_MODE, ensure_private_dir

REF_PREFIX = "refs/zett"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Checkpoint:
    """A recorded state of the project: the commit, and the files left out of it."""

    commit: str
    #: Files over the size bound (relative paths), not recorded.
    too_large: tuple[str, ...] = ()
    #: Seconds it took.
    seconds: float = 0.0
    #: Files that could not be read (``path: reason``): the checkpoint has them as last recorded.
    unreadable: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileChange:
    """How one path differs between two checkpoints (``added``/``removed`` lines; -1: binary)."""

    path: str
    added: int
    removed: int
    status: str  # "A" created, "D" deleted, "M" modified, "T" type or mode changed


@dataclass
class RestoreReport:
    """What a restore did, and what it could not do (one line each)."""

    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def project_key(project: Path) -> str:
    """The store folder's name for ``project``: a hash of its real path."""
    real = os.path.realpath(project)
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]


class CheckpointStore:
    """The checkpoint store of one project (``root/<project key>``, or ``folder``), created on first use."""

    def __init__(
        self,
        project: Path,
        root: Path,
        *,
        bounds: CheckpointBounds | None = None,
        bulk_files: int = BULK_FILES,
        folder: Path | None = None,
    ) -> None:
        self.project = Path(os.path.realpath(project))
        self.root = root
        #: What one checkpoint may record; past them ``take`` raises ``bounds.TooMuchToRecord``.
        self.bounds = bounds or CheckpointBounds()
        #: From this many new or changed files on, a checkpoint writes packs (``bulk``).
        self.bulk_files = bulk_files
        self.folder = folder if folder is not None else root / project_key(self.project)
        self.git_dir = self.folder / "objects.git"
        #: This process's index of the project's files (``staging``).
        self._staging = StagingIndex(self.git_dir, self.project, self.folder)
        self._lock = threading.Lock()
        #: The last checkpoint this store took, and its index's stamp then (None: none yet).
        self._last: _Taken | None = None

    # -- setting up ------------------------------------------------------------------------------

    def ensure(self) -> None:
        """Create the store (0700 folders, 0600 files) if it is not there yet."""
        ensure_private_dir(self.folder)
        if not (self.git_dir / "HEAD").exists():
            # --shared=0600: git itself makes every object 0600 and every folder 0700.
            run_git(self.git_dir, self.project, ["init", "--quiet", "--bare", "--shared=0600"], bare=True)
            (self.folder / "project").write_text(str(self.project), encoding="utf-8")
            _make_private(self.folder)

    @classmethod
    def at(cls, folder: Path) -> CheckpointStore:
        """The store in ``folder`` (for housekeeping: its project may have moved or gone)."""
        try:
            project = Path((folder / "project").read_text(encoding="utf-8").strip())
        except OSError:
            project = folder
        return cls(project, folder.parent, folder=folder)

    def _git(self, args: Sequence[str], *, stdin: bytes | None = None, bare: bool = False) -> bytes:
        return run_git(self.git_dir, self.project, args, stdin=stdin, bare=bare)

    # -- taking a checkpoint ---------------------------------------------------------------------

    def take(self, ref: str, message: str = "checkpoint") -> Checkpoint:
        """Record the project's files now, kept under ``refs/zett/<ref>``.

        Raises ``TooMuchToRecord`` (nothing recorded, the index as it was) past ``self.bounds``.
        """
        started = time.monotonic()
        if not self.project.is_dir():
            raise FileNotFoundError(f"the project folder {self.project} is gone")
        with self._lock:
            self.ensure()
            staging = self._staging
            staging.prepare()
            last, self._last = self._last, None
            if last is not None and (not last.index_stamp or _file_stamp(staging.index) != last.index_stamp):
                last = None  # something other than this store changed the index
            staged = staging.stage(bounds=self.bounds, bulk_files=self.bulk_files)
            too_large = staged.too_large
            commit = self._again(last, ref, message, too_large) if staged.unchanged and last else None
            if last is not None and commit is not None:
                tree = last.tree
            else:
                try:
                    tree, commit = self._record(ref, message, staged)
                except GitFailed as error:
                    if "invalid object" not in str(error):
                        raise
                    # The index names objects the store no longer has (collected after the
                    # checkpoints holding them were removed), and its stat cache would go on
                    # saying those files are recorded: every checkpoint would fail the same way.
                    # Started afresh, every file is read again.
                    log.warning("checkpoint index named collected objects: reading every file again")
                    staging.forget()
                    staged = staging.stage(bounds=self.bounds, bulk_files=self.bulk_files)
                    tree, commit = self._record(ref, message, staged)
                too_large = staged.too_large
            staging.taken()
            self._last = _Taken(tree, commit, tuple(too_large), _file_stamp(staging.index))
            unreadable = tuple(staging.unreadable)
        return Checkpoint(commit, tuple(too_large), time.monotonic() - started, unreadable)

    def _record(self, ref: str, message: str, staged: Staged) -> tuple[str, str]:
        """Write the staged index's tree and its commit under ``ref``: ``(tree, commit)``."""
        staging = self._staging
        scratch = scratch_ref(os.getpid())
        packed = staged.many and prewrite_trees(self.git_dir, self.project, staging.index, scratch)
        tree = staging.git(["write-tree"]).decode().strip()
        commit = self._commit(tree, message, staged.too_large)
        self._git(["update-ref", f"{REF_PREFIX}/{ref}", commit])
        if packed:  # the checkpoint's commit holds the trees now
            self._git(["update-ref", "-d", scratch])
        return tree, commit

    def _commit(self, tree: str, message: str, too_large: Sequence[str]) -> str:
        note = json.dumps({"message": message, "too_large": list(too_large)})
        return self._git(["commit-tree", tree, "-m", note]).decode().strip()

    def _again(self, last: _Taken, ref: str, message: str, too_large: list[str]) -> str | None:
        """The files are as this store last recorded them: that checkpoint again, under ``ref``.

        Its commit when the same files were left out for their size, else a commit of its tree;
        None when that cannot be done (a store cleaned meanwhile): then it is taken afresh.
        """
        try:
            commit = (
                last.commit
                if tuple(too_large) == last.too_large
                else self._commit(last.tree, message, too_large)
            )
            self._git(["update-ref", f"{REF_PREFIX}/{ref}", commit])  # refuses an object that is gone
        except GitFailed:
            return None
        return commit

    # -- reading checkpoints ---------------------------------------------------------------------

    def entries(self, commit: str) -> dict[str, Entry]:
        """Every file of ``commit``: path to mode and blob."""
        out = self._git(["ls-tree", "-r", "-z", "--full-tree", commit])
        entries: dict[str, Entry] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            head, _, path = record.partition(b"\t")
            mode, _kind, blob = head.decode().split()
            entries[os.fsdecode(path)] = Entry(mode, blob)
        return entries

    def too_large(self, commit: str) -> list[str]:
        """The files ``commit`` left out for their size."""
        body = self._git(["log", "-1", "--format=%B", commit]).decode("utf-8", "replace")
        try:
            return list(json.loads(body).get("too_large", []))
        except (ValueError, AttributeError):
            return []

    def changes(self, before: str, after: str, paths: Iterable[str] | None = None) -> list[FileChange]:
        """What differs between two checkpoints, per file, with line counts.

        One ``git diff-tree`` gives both (it runs after every turn): with ``--raw --numstat -z`` it
        writes each file's raw record (``:modes blobs STATUS``, then the path), then each file's
        ``added<TAB>removed<TAB>path``."""
        args = [
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--raw",
            "--numstat",
        ]
        parts = iter(self._git([*args, before, after, "--", *(paths or ())]).split(b"\0"))
        kinds: dict[str, str] = {}
        numstat: list[bytes] = []
        for part in parts:
            if part.startswith(b":"):
                path = next(parts, b"")
                kinds[os.fsdecode(path)] = part.rsplit(b" ", 1)[-1].decode()[:1]
            elif part:
                numstat.append(part)
        changes: list[FileChange] = []
        for record in numstat:
            added, removed, path = record.split(b"\t", 2)
            name = os.fsdecode(path)
            changes.append(
                FileChange(
                    name,
                    -1 if added == b"-" else int(added),
                    -1 if removed == b"-" else int(removed),
                    kinds.get(name, "M"),
                )
            )
        return changes

    def diff_text(self, before: str, after: str, paths: Iterable[str] | None = None) -> str:
        """The unified diff between two checkpoints (binary files named, not shown)."""
        out = self._git(
            [
                "diff-tree",
                "-r",
                "-p",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                before,
                after,
                "--",
                *(paths or ()),
            ]
        )
        return out.decode("utf-8", "replace")

    def blob_bytes(self, blobs: Iterable[str]) -> dict[str, bytes]:
        """The contents of ``blobs``, read in one ``cat-file --batch``."""
        wanted = list(dict.fromkeys(blobs))
        if not wanted:
            return {}
        out = self._git(["cat-file", "--batch"], stdin="".join(f"{b}\n" for b in wanted).encode())
        contents: dict[str, bytes] = {}
        position = 0
        for blob in wanted:
            header_end = out.index(b"\n", position)
            header = out[position:header_end].split()
            size = int(header[2])
            contents[blob] = out[header_end + 1 : header_end + 1 + size]
            position = header_end + 1 + size + 1
        return contents

    # -- putting files back ----------------------------------------------------------------------

    def restore(self, commit: str, paths: Iterable[str]) -> RestoreReport:
        """Make each of ``paths`` what it was in ``commit``: its bytes and mode, or gone.

        Only ``paths`` are touched. A path whose folder now leads outside the project (a symlink
        put in its way) is not written; each problem is one line in the report.
        """
        report = RestoreReport()
        wanted = sorted(set(paths))
        recorded = self.entries(commit)
        contents = self.blob_bytes(recorded[p].blob for p in wanted if p in recorded)
        kept_dirs = {str(parent) for p in recorded for parent in Path(p).parents}
        for path in wanted:
            target = self.project / path
            try:
                if not _inside(self.project, target.parent):
                    report.problems.append(f"{path}: its folder leads outside the project; left as it is")
                    continue
                entry = recorded.get(path)
                if entry is None:
                    if os.path.lexists(target) and not (target.is_dir() and not target.is_symlink()):
                        target.unlink()
                        report.removed.append(path)
                        remove_empty_parents(self.project, target.parent, kept_dirs)
                    continue
                write_entry(target, entry, contents[entry.blob])
                report.restored.append(path)
            except OSError as error:
                report.problems.append(f"{path}: {error.strerror or error}")
        return report

    # -- housekeeping ----------------------------------------------------------------------------

    def refs(self, prefix: str = "") -> dict[str, str]:
        """The store's refs under ``refs/zett/<prefix>``: name (without the prefix) to commit."""
        if not (self.git_dir / "HEAD").exists():
            return {}
        out = self._git(
            ["for-each-ref", "--format=%(refname) %(objectname)", f"{REF_PREFIX}/{prefix}"], bare=True
        )
        refs: dict[str, str] = {}
        for line in out.decode().splitlines():
            name, _, commit = line.partition(" ")
            refs[name[len(REF_PREFIX) + 1 :]] = commit
        return refs

    def drop_refs(self, prefix: str) -> int:
        """Forget every checkpoint under ``refs/zett/<prefix>``; how many."""
        names = self.refs(prefix)
        self._last = None  # its commit may be one of them
        if names:
            commands = "".join(f"delete {REF_PREFIX}/{name}\n" for name in names)
            self._git(["update-ref", "--stdin"], stdin=commands.encode(), bare=True)
        return len(names)

    def collect_garbage(self) -> None:
        """Remove the objects no checkpoint refers to any more."""
        if (self.git_dir / "HEAD").exists():
            with self._lock:
                self._last = None
                self._git(["reflog", "expire", "--expire=now", "--all"], bare=True)
                self._git(["gc", "--prune=now", "--quiet"], bare=True)
                _make_private(self.folder)

    def size_bytes(self) -> int:
        """The store's size on disk."""
        total = 0
        for folder, _dirs, files in os.walk(self.folder):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
        return total


@dataclass(frozen=True)
class _Taken:
    """A checkpoint this store took: what a next one reuses when no file changed since."""

    tree: str
    commit: str
    too_large: tuple[str, ...]
    #: The index file's ``(inode, size, mtime)`` just after (``_file_stamp``).
    index_stamp: tuple[int, ...]


def _file_stamp(path: Path) -> tuple[int, ...]:
    """``path``'s inode, size and mtime in ns; ``()`` when it cannot be read."""
    try:
        info = os.stat(path)
    except OSError:
        return ()
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _inside(root: Path, folder: Path) -> bool:
    real = os.path.realpath(folder)
    return real == str(root) or real.startswith(str(root) + os.sep)


def _make_private(folder: Path) -> None:
    """0700 folders and 0600 files throughout the store, whatever git made of them."""
    for current, dirs, files in os.walk(folder):
        for name in dirs:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(current, name), 0o700)
        for name in files:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(current, name), PRIVATE_FILE_MODE)
