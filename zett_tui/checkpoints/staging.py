"""Making a checkpoint store's index hold the project's files as they are now: what a checkpoint records.

git's own index does the work: its stat cache skips unchanged files and its tree cache spares
``write-tree`` the unchanged folders. Each process has an index of its own, started from the copy
the last session kept (``prepare``, ``taken``). Files over the size bound are left out (excluded,
and named), as is a nested repository's content, and ``ALWAYS_EXCLUDED`` with ``.zett/ignore``;
many new or changed files go into packs, split over the cores (``bulk``). A file git cannot read
is reported and keeps what was last recorded of it. Blocking: called by ``store.CheckpointStore``
in a thread, under its lock.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_tui.checkpoints.bounds import CheckpointBounds, bytes_over, files_over, listing_too_slow
from zett_tui.checkpoints.bulk import BULK_STAGE_CONFIG, BULK_STAGE_ENV, add_in_parts, split_pathspecs
from zett_tui.checkpoints.git_env import GitFailed, GitTooSlow, run_git
from zett_tui.core.paths import PRIVATE_FILE_MODE, write_private_text

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
#: Python's bytecode cache, never recorded (in a project without a ``.gitignore`` for it too): it is
#: made by running the code, not written by anyone, and one run of the tests made a one-file fix
#: read "2 files changed" with a "+0 -0" that told nothing. ``.zett/ignore`` adds to these.
ALWAYS_EXCLUDED = b"__pycache__/\n*.py[co]\n"


@dataclass(frozen=True)
class Staged:
    """What ``StagingIndex.stage`` did."""

    #: Files over the size bound (relative paths), left out.
    too_large: list[str]
    #: Many new or changed files: their blobs went into packs (``bulk``).
    many: bool
    #: Nothing to record: the index was left exactly as it was.
    unchanged: bool


class StagingIndex:
    """This process's index of ``project`` for the store in ``folder`` (its objects in ``git_dir``)."""

    def __init__(self, git_dir: Path, project: Path, folder: Path) -> None:
        self.git_dir = git_dir
        self.project = project
        self.folder = folder
        # One index per process (two zett processes on one project never share one), started from
        # the copy the last session kept: git's stat cache of the files, so nothing is read again.
        self.index = folder / f"scratch-{os.getpid()}.index"
        self._kept_index = folder / "index"
        #: ``.zett/ignore`` and the files too large to record, as git excludes.
        self.excludes = folder / f"excludes-{os.getpid()}"
        #: ``.zett/ignore`` as the last checkpoint read it (None: not read in this process yet).
        self._last_ignore: bytes | None = None
        self._takes = 0
        #: What the last ``stage`` could not read (``path: reason``).
        self.unreadable: list[str] = []

    def git(self, args: Sequence[str], *, stdin: bytes | None = None, timeout: float | None = None) -> bytes:
        """A git command of the store on this index, with its excludes."""
        return run_git(
            self.git_dir,
            self.project,
            ["-c", f"core.excludesFile={self.excludes}", *args],
            stdin=stdin,
            index_file=self.index,
            timeout=timeout,
        )

    def prepare(self) -> None:
        """Start this process's index from the one an earlier session kept (its stat cache)."""
        attributes = self.git_dir / "info" / "attributes"
        if not attributes.is_file() or attributes.read_text(encoding="utf-8") != NO_FILTERS:
            attributes.parent.mkdir(mode=0o700, exist_ok=True)
            write_private_text(attributes, NO_FILTERS, sync=False)
        if self._takes == 0 and not self.index.exists() and self._kept_index.is_file():
            with contextlib.suppress(OSError):
                shutil.copyfile(self._kept_index, self.index)
                os.chmod(self.index, PRIVATE_FILE_MODE)

    def taken(self) -> None:
        """A checkpoint was recorded from the index: now and then, keep a copy for the next session."""
        self._takes += 1
        if self._takes == 1 or self._takes % 20 == 0:
            self._keep()

    def forget(self) -> None:
        """Start the index afresh (every file read again); the next checkpoint keeps a copy of it."""
        with contextlib.suppress(FileNotFoundError):
            self.index.unlink()
        self._last_ignore = None
        self._takes = 0

    def _keep(self) -> None:
        """Leave a copy of the index for the next session's first checkpoint (best effort)."""
        temporary = self.folder / f"index-{os.getpid()}.tmp"
        with contextlib.suppress(OSError):
            shutil.copyfile(self.index, temporary)
            os.chmod(temporary, PRIVATE_FILE_MODE)
            os.replace(temporary, self._kept_index)

    def stage(self, *, bounds: CheckpointBounds, bulk_files: int) -> Staged:
        """Make the index hold the project's files as they are.

        Raises ``TooMuchToRecord``, the index left as it was, when the project has more files
        than ``bounds.max_files``, more than ``bounds.max_new_bytes`` of them are new or changed,
        or listing them takes longer than ``bounds.listing_seconds``.
        Says which files were left out for their size (over ``bounds.max_file_bytes``), whether there
        were many (``bulk_files``) new or changed files (then their blobs and trees went into
        packs: ``bulk``), and whether the index was left as it was (nothing to record since it
        was last staged). ``info/attributes`` turns every filter, ``eol`` and ``ident`` off, so
        the blobs are the files' bytes.
        """
        base = self._ignore_lines()
        _write_private_bytes(self.excludes, base)
        #: Nothing recorded yet (a project's first checkpoint): no recorded file can be ignored now.
        fresh = not self.index.exists()
        # A recorded file can become ignored only when an ignore file changes (or is new or gone).
        rules_changed = base != self._last_ignore
        # Only what is new or changed since the index saw it: an unchanged file was small then.
        # git's own stat cache decides, as ``git status`` does: a file whose stat data differs
        # from the index's (or that changed in the second the index was written: "racily clean")
        # has its content compared. The exec bit counts whatever the store's config says.
        try:
            listed = self.git(
                [
                    "-c",
                    "core.fileMode=true",
                    "ls-files",
                    "-z",
                    "-t",
                    "--others",
                    "--modified",
                    "--exclude-standard",
                ],
                timeout=bounds.listing_seconds,
            )
        except GitTooSlow as error:
            raise listing_too_slow(bounds) from error
        # Files recorded already and files new to the index ("? " records): what it would hold.
        recorded = 0 if fresh else _index_entries(self.index)
        new = listed.count(b"\0? ") + listed.startswith(b"? ")
        if recorded + new > bounds.max_files:
            raise files_over(recorded + new, bounds)
        max_file_bytes = bounds.max_file_bytes
        root = os.fsencode(self.project) + b"/"
        too_large: list[str] = []
        left_out: list[bytes] = []
        unnamed: list[bytes] = []
        grown: list[bytes] = []
        #: The files ``add`` will read, with their sizes (for splitting the work).
        to_add: list[tuple[bytes, int]] = []
        lstat = os.lstat
        count = 0
        new_bytes = 0
        gone = 0
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
                gone += 1  # deleted (``add -A`` takes it out of the index) or vanished meanwhile
                continue
            if info.st_size > max_file_bytes and stat.S_ISREG(info.st_mode):
                too_large.append(os.fsdecode(path))
                if tag != b"?":
                    grown.append(path)
                if b"\n" in path or b"\r" in path:
                    unnamed.append(path)
                else:
                    left_out.append(b"/" + _glob_escape(path))
            else:
                to_add.append((path, info.st_size))
                new_bytes += info.st_size
        if new_bytes > bounds.max_new_bytes:
            raise bytes_over(new_bytes, bounds)
        self._last_ignore = base
        if left_out:
            _write_private_bytes(self.excludes, base + b"".join(line + b"\n" for line in left_out))
        if not (to_add or gone or grown or unnamed or rules_changed):
            # Nothing new, changed or deleted, and no rule changed: ``add -A`` (and ``rm`` of the
            # newly ignored) would leave the index as it is. Files left out stay left out.
            self.unreadable = []
            return Staged(sorted(too_large), many=False, unchanged=True)
        if grown:  # recorded when it was small: out of the index before ``add`` would read it
            self._unstage(grown)
        many = count >= bulk_files
        # A file that cannot be read is named in git's complaints (exit 1): the rest is recorded
        # all the same, and the file is reported (the index still has it as last recorded).
        complaints: list[str] = []
        self._add_all(to_add if many else None, complaints)
        self.unreadable = _unreadable_files(complaints)
        ignored: list[bytes] = []
        if rules_changed and not fresh:
            ignored = self.git(["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"]).split(b"\0")
        dropped = [path for path in (*ignored, *unnamed) if path]
        if dropped:
            self._unstage(dropped)
        with contextlib.suppress(OSError):
            os.chmod(self.index, PRIVATE_FILE_MODE)
        return Staged(sorted(too_large), many=many, unchanged=False)

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
            excludes = f"core.excludesFile={self.excludes}"
            return ["-c", excludes, *STAGE_CONFIG, *extra, "add", "-A", "--ignore-errors"]

        if files and not self.index.exists():
            parts = split_pathspecs(files, min(os.cpu_count() or 1, MAX_ADDS))
            if parts and add_in_parts(
                self.git_dir,
                self.project,
                command(BULK_STAGE_CONFIG),
                bulk_env,
                self.index,
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
                    index_file=self.index,
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
            index_file=self.index,
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


_GLOB = re.compile(rb"([\\*?\[])")


def _glob_escape(path: bytes) -> bytes:
    """``path`` as a gitignore pattern matching only itself (trailing spaces kept)."""
    escaped = _GLOB.sub(rb"\\\1", path)
    stripped = escaped.rstrip(b" ")
    return stripped + b"\\ " * (len(escaped) - len(stripped))


def _index_entries(index: Path) -> int:
    """How many files ``index`` holds, from its header (``DIRC``, version, count); 0 unreadable."""
    try:
        with open(index, "rb") as stream:
            header = stream.read(12)
    except OSError:
        return 0
    if len(header) < 12 or header[:4] != b"DIRC":
        return 0
    return int.from_bytes(header[8:12], "big")


def _write_private_bytes(path: Path, data: bytes) -> None:
    """Write a small file of the store, 0600, when its contents differ."""
    with contextlib.suppress(OSError):
        if path.read_bytes() == data:
            return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "wb") as stream:
        stream.write(data)
