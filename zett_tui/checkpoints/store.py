"""A private, content-addressed store of a project's files: zett's checkpoints.

One git object store per project under zett's data folder (its own ``GIT_DIR``; the project is
only ever its work tree, read). A checkpoint is a commit of the project's files as they are:
every file git would not ignore (``.gitignore``, ``.zett/ignore``), with its mode (the exec bit)
and symlinks as links (never followed). Files over a size bound are left out and named. Objects
are deduplicated by content, so a checkpoint after a small edit adds a few hundred bytes.

Nothing here touches the user's ``.git``: the commands run with a scrubbed environment
(``git_env``), no filter or attribute of the project applies, and files are written back by this module,
byte for byte, never by ``git checkout``. All methods block: call them in a thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zett_tui.checkpoints.bulk import (
    BULK_FILES,
    BULK_STAGE_CONFIG,
    BULK_STAGE_ENV,
    add_in_parts,
    prewrite_trees,
    scratch_ref,
    split_pathspecs,
)
from zett_tui.checkpoints.git_env import GitFailed, run_git
from zett_tui.checkpoints.restore_files import (
    Entry,
    remove_empty_parents,
    write_entry,
)
from zett_tui.core.paths import PRIVATE_FILE_MODE, ensure_private_dir, write_private_text

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
REF_PREFIX = "refs/zett"
#: ``$GIT_DIR/info/attributes`` beats every ``.gitattributes`` of the project: no byte is changed.
NO_FILTERS = "* -text -eol -ident -filter -working-tree-encoding -crlf\n"
#: Settings of ``git add`` only: the exec bit and links as they are, fast loose objects.
STAGE_CONFIG = (
    "-c",
    "core.fileMode=true",
    "-c",
    "core.looseCompression=1",
    "-c",
    "core.preloadIndex=true",
)
#: Paths are names, never patterns (a file called ``*`` is that file).
LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
#: A first checkpoint's ``git add`` runs in at most this many parts at once (one per core).
MAX_ADDS = 4


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


#: Python's bytecode cache, never recorded (in a project without a ``.gitignore`` for it too): it is
#: made by running the code, not written by anyone, and one run of the tests made a one-file fix
#: read "2 files changed" with a "+0 -0" that told nothing. ``.zett/ignore`` adds to these.
ALWAYS_EXCLUDED = b"__pycache__/\n*.py[co]\n"


class CheckpointStore:
    """The checkpoint store of one project (``root/<project key>``), created on first use."""

    def __init__(
        self,
        project: Path,
        root: Path,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        bulk_files: int = BULK_FILES,
    ) -> None:
        self.project = Path(os.path.realpath(project))
        self.root = root
        self.max_file_bytes = max_file_bytes
        #: From this many new or changed files on, a checkpoint writes packs (``bulk``).
        self.bulk_files = bulk_files
        self.folder = root / project_key(self.project)
        self.git_dir = self.folder / "objects.git"
        # One index per process (two zett processes on one project never share one), started from
        # the copy the last session kept: git's stat cache of the files, so nothing is read again.
        self._index = self.folder / f"scratch-{os.getpid()}.index"
        self._kept_index = self.folder / "index"
        #: ``.zett/ignore`` and the files too large to record, as git excludes.
        self._excludes = self.folder / f"excludes-{os.getpid()}"
        #: ``.zett/ignore`` as the last checkpoint read it (None: not read in this process yet).
        self._last_ignore: bytes | None = None
        self._takes = 0
        self._lock = threading.Lock()
        #: What the last ``add`` could not read (``path: reason``).
        self._unreadable: list[str] = []

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
        store = cls(project, folder.parent)
        store.folder = folder
        store.git_dir = folder / "objects.git"
        return store

    def _git(
        self, args: Sequence[str], *, stdin: bytes | None = None, index: bool = False, bare: bool = False
    ) -> bytes:
        if index:
            args = ["-c", f"core.excludesFile={self._excludes}", *args]
        return run_git(
            self.git_dir,
            self.project,
            args,
            stdin=stdin,
            index_file=self._index if index else None,
            bare=bare,
        )

    # -- taking a checkpoint ---------------------------------------------------------------------

    def take(self, ref: str, message: str = "checkpoint") -> Checkpoint:
        """Record the project's files now, kept under ``refs/zett/<ref>``."""
        started = time.monotonic()
        if not self.project.is_dir():
            raise FileNotFoundError(f"the project folder {self.project} is gone")
        with self._lock:
            self.ensure()
            self._prepare_index()
            too_large, many = self._stage()
            scratch = scratch_ref(os.getpid())
            packed = many and prewrite_trees(self.git_dir, self.project, self._index, scratch)
            tree = self._git(["write-tree"], index=True).decode().strip()
            note = json.dumps({"message": message, "too_large": too_large})
            commit = self._git(["commit-tree", tree, "-m", note]).decode().strip()
            self._git(["update-ref", f"{REF_PREFIX}/{ref}", commit])
            if packed:  # the checkpoint's commit holds the trees now
                self._git(["update-ref", "-d", scratch])
            self._takes += 1
            if self._takes == 1 or self._takes % 20 == 0:
                self._keep_index()
            unreadable = tuple(self._unreadable)
        return Checkpoint(commit, tuple(too_large), time.monotonic() - started, unreadable)

    def _prepare_index(self) -> None:
        """Start this process's index from the one an earlier session kept (its stat cache)."""
        attributes = self.git_dir / "info" / "attributes"
        if not attributes.is_file() or attributes.read_text(encoding="utf-8") != NO_FILTERS:
            attributes.parent.mkdir(mode=0o700, exist_ok=True)
            write_private_text(attributes, NO_FILTERS, sync=False)
        if self._takes == 0 and not self._index.exists() and self._kept_index.is_file():
            with contextlib.suppress(OSError):
                shutil.copyfile(self._kept_index, self._index)
                os.chmod(self._index, PRIVATE_FILE_MODE)

    def _keep_index(self) -> None:
        """Leave a copy of the index for the next session's first checkpoint (best effort)."""
        temporary = self.folder / f"index-{os.getpid()}.tmp"
        with contextlib.suppress(OSError):
            shutil.copyfile(self._index, temporary)
            os.chmod(temporary, PRIVATE_FILE_MODE)
            os.replace(temporary, self._kept_index)

    def _stage(self) -> tuple[list[str], bool]:
        """Make the index hold the project's files as they are.

        The files left out for their size, and whether there were many new or changed files (then
        their blobs and trees went into packs: ``bulk``). git's own index does the work: its stat cache
        skips unchanged files and its tree cache spares ``write-tree`` the unchanged folders.
        ``info/attributes`` turns every filter, ``eol`` and ``ident`` off, so the blobs are the
        files' bytes.
        """
        base = self._ignore_lines()
        _write_private_bytes(self._excludes, base)
        # A recorded file can become ignored only when an ignore file changes (or is new or gone).
        rules_changed = base != self._last_ignore
        self._last_ignore = base
        # Only what is new or changed since the index saw it: an unchanged file was small then.
        listed = self._git(
            ["ls-files", "-z", "-t", "--others", "--modified", "--exclude-standard"], index=True
        )
        root = os.fsencode(self.project) + b"/"
        too_large: list[str] = []
        left_out: list[bytes] = []
        unnamed: list[bytes] = []
        grown: list[bytes] = []
        #: The files ``add`` will read, with their sizes (for splitting the work).
        to_add: list[tuple[bytes, int]] = []
        lstat = os.lstat
        limit = self.max_file_bytes
        count = 0
        for record in listed.split(b"\0"):
            tag, _, path = record.partition(b" ")
            if not path:
                continue
            count += 1
            if path == b".gitignore" or path.endswith(b"/.gitignore"):
                rules_changed = True
            if path.endswith(b"/"):  # a nested repository: its own files are its own
                left_out.append(b"/" + _glob_escape(path))
                continue
            try:
                info = lstat(root + path)
            except OSError:
                continue
            if info.st_size > limit and stat.S_ISREG(info.st_mode):
                too_large.append(os.fsdecode(path))
                if tag != b"?":
                    grown.append(path)
                if b"\n" in path or b"\r" in path:
                    unnamed.append(path)
                else:
                    left_out.append(b"/" + _glob_escape(path))
            else:
                to_add.append((path, info.st_size))
        if left_out:
            _write_private_bytes(self._excludes, base + b"".join(line + b"\n" for line in left_out))
        if grown:  # recorded when it was small: out of the index before ``add`` would read it
            self._unstage(grown)
        many = count >= self.bulk_files
        # A file that cannot be read is named in git's complaints (exit 1): the rest is recorded
        # all the same, and the file is reported (the index still has it as last recorded).
        complaints: list[str] = []
        self._add_all(to_add if many else None, complaints)
        self._unreadable = _unreadable_files(complaints)
        ignored: list[bytes] = []
        if rules_changed:
            ignored = self._git(
                ["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"], index=True
            ).split(b"\0")
        dropped = [path for path in (*ignored, *unnamed) if path]
        if dropped:
            self._unstage(dropped)
        with contextlib.suppress(OSError):
            os.chmod(self._index, PRIVATE_FILE_MODE)
        return sorted(too_large), many

    def _add_all(self, files: list[tuple[bytes, int]] | None, complaints: list[str]) -> None:
        """``git add -A`` into the index; given the many ``files`` it reads, the blobs into packs.

        Into an empty index (a first checkpoint) the work is split over the cores: an ``add`` per
        part of the project, each into its own index, joined after (``index_merge``).
        Exit 1 when a file cannot be read: the rest is recorded all the same. git gives up on the
        whole command (the index left as it was) when a file shrinks while it reads it: tried
        once more the usual way, and a second failure is the checkpoint's. git's complaints about
        files it could not read are added to ``complaints``.
        """
        bulk_env = {**LITERAL, **BULK_STAGE_ENV}

        def command(extra: Sequence[str]) -> list[str]:
            excludes = f"core.excludesFile={self._excludes}"
            return ["-c", excludes, *STAGE_CONFIG, *extra, "add", "-A", "--ignore-errors"]

        if files and not self._index.exists():
            parts = split_pathspecs(files, min(os.cpu_count() or 1, MAX_ADDS))
            if parts and add_in_parts(
                self.git_dir,
                self.project,
                command(BULK_STAGE_CONFIG),
                bulk_env,
                self._index,
                parts,
                complaints,
            ):
                return
        tries = [BULK_STAGE_CONFIG, ()] if files else [(), ()]
        for attempt, extra in enumerate(tries):
            said: list[str] = []
            try:
                run_git(
                    self.git_dir,
                    self.project,
                    command(extra),
                    index_file=self._index,
                    extra_env=bulk_env if extra else LITERAL,
                    accept=(0, 1),
                    complaints=said,
                )
                complaints.extend(said)
                return
            except GitFailed:
                if attempt == len(tries) - 1:
                    raise

    def _unstage(self, paths: list[bytes]) -> None:
        """Take ``paths`` out of the index (the files themselves are not touched)."""
        run_git(
            self.git_dir,
            self.project,
            [
                "rm",
                "-q",
                "-f",
                "--cached",
                "--ignore-unmatch",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
            ],
            index_file=self._index,
            stdin=b"\0".join(paths) + b"\0",
            extra_env=LITERAL,
        )

    def _ignore_lines(self) -> bytes:
        """``ALWAYS_EXCLUDED`` and ``.zett/ignore`` (a regular file only, never a link), for git's
        excludes."""
        zett_ignore = self.project / ".zett" / "ignore"
        try:
            if zett_ignore.is_file() and not zett_ignore.is_symlink():
                data = zett_ignore.read_bytes()
                return ALWAYS_EXCLUDED + (data if data.endswith(b"\n") or not data else data + b"\n")
        except OSError:
            pass
        return ALWAYS_EXCLUDED

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
        """What differs between two checkpoints, per file, with line counts."""
        args = ["diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"]
        numstat = self._git([*args, "--numstat", before, after, "--", *(paths or ())]).split(b"\0")
        status = self._git([*args, "--name-status", before, after, "--", *(paths or ())]).split(b"\0")
        kinds: dict[str, str] = {}
        for kind, path in zip(status[0::2], status[1::2], strict=False):
            if kind:
                kinds[os.fsdecode(path)] = kind.decode()[:1]
        changes: list[FileChange] = []
        for record in numstat:
            if not record:
                continue
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
        if names:
            commands = "".join(f"delete {REF_PREFIX}/{name}\n" for name in names)
            self._git(["update-ref", "--stdin"], stdin=commands.encode(), bare=True)
        return len(names)

    def collect_garbage(self) -> None:
        """Remove the objects no checkpoint refers to any more."""
        if (self.git_dir / "HEAD").exists():
            with self._lock:
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


_OPEN_FAILED = re.compile(r'^error: open\("(.*)"\): (.+)$')
_NOT_INDEXED = re.compile(r"^error: unable to index file '(.*)'$")


def _unreadable_files(complaints: list[str]) -> list[str]:
    """``path: reason`` for each file ``git add --ignore-errors`` could not read."""
    reasons: dict[str, str] = {}
    for line in complaints:
        opened = _OPEN_FAILED.match(line)
        if opened:
            reasons[opened.group(1)] = opened.group(2)
        indexed = _NOT_INDEXED.match(line)
        if indexed:
            reasons.setdefault(indexed.group(1), "unreadable")
    return [f"{path}: {reason}" for path, reason in sorted(reasons.items())]


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


_GLOB = re.compile(rb"([\\*?\[])")


def _glob_escape(path: bytes) -> bytes:
    """``path`` as a gitignore pattern matching only itself (trailing spaces kept)."""
    escaped = _GLOB.sub(rb"\\\1", path)
    stripped = escaped.rstrip(b" ")
    return stripped + b"\\ " * (len(escaped) - len(stripped))


def _write_private_bytes(path: Path, data: bytes) -> None:
    """Write a small file of the store, 0600, when its contents differ."""
    with contextlib.suppress(OSError):
        if path.read_bytes() == data:
            return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "wb") as stream:
        stream.write(data)
