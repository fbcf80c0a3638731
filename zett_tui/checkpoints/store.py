"""A private, content-addressed store of a project's files: zett's checkpoints.

One git object store per project under zett's data folder (its own ``GIT_DIR``; the project is
only ever its work tree, read). A checkpoint is a commit of the project's files as they are:
every file git would not ignore (``.gitignore``, ``.zett/ignore``), with its mode (the exec bit)
and symlinks as links (never followed). Files over a size bound are left out and named. Objects
are deduplicated by content, so a checkpoint after a small edit adds a few hundred bytes.

Nothing here touches the user's ``.git``: the commands run with a scrubbed environment
(``git_env``), blobs are hashed without filters, and files are written back by this module,
byte for byte, never by ``git checkout``. All methods block: call them in a thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from zett_tui.checkpoints.git_env import run_git
from zett_tui.core.paths import PRIVATE_FILE_MODE, ensure_private_dir, write_private_text

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
REF_PREFIX = "refs/zett"
FILE_MODE = "100644"
EXEC_MODE = "100755"
LINK_MODE = "120000"
STAT_CACHE = "stat-cache.json"
#: A file changed this recently may change again within the clock's resolution: hash it next time.
RACY_SECONDS = 2.0


@dataclass(frozen=True)
class Entry:
    """One file of a checkpoint: git mode and blob id."""

    mode: str
    blob: str


@dataclass(frozen=True)
class Checkpoint:
    """A recorded state of the project: the commit, and the files left out of it."""

    commit: str
    #: Files over the size bound (relative paths), not recorded.
    too_large: tuple[str, ...] = ()
    #: Seconds it took.
    seconds: float = 0.0


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


@dataclass
class _Stat:
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    mode: str
    blob: str


def project_key(project: Path) -> str:
    """The store folder's name for ``project``: a hash of its real path."""
    real = os.path.realpath(project)
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]


class CheckpointStore:
    """The checkpoint store of one project (``root/<project key>``), created on first use."""

    def __init__(self, project: Path, root: Path, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self.project = Path(os.path.realpath(project))
        self.root = root
        self.max_file_bytes = max_file_bytes
        self.folder = root / project_key(self.project)
        self.git_dir = self.folder / "objects.git"
        # One scratch index per process: two zett processes on one project do not share it.
        self._index = self.folder / f"scratch-{os.getpid()}.index"
        self._stats: dict[str, _Stat] = {}
        #: What the scratch index holds (None: unknown, rebuilt at the next checkpoint).
        self._indexed: dict[str, Entry] | None = None
        #: Never created: ``ls-files --others`` against it lists every file not ignored.
        self._no_index = self.folder / f"empty-{os.getpid()}.index"
        self._takes = 0
        self._lock = threading.Lock()

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
            entries, too_large = self._scan()
            self._update_index(entries)
            tree = self._git(["write-tree"], index=True).decode().strip()
            note = json.dumps({"message": message, "too_large": too_large})
            commit = self._git(["commit-tree", tree, "-m", note]).decode().strip()
            self._git(["update-ref", f"{REF_PREFIX}/{ref}", commit])
            self._takes += 1
            if self._takes == 1 or self._takes % 20 == 0:
                self._save_stats()
        return Checkpoint(commit, tuple(too_large), time.monotonic() - started)

    def _update_index(self, entries: dict[str, Entry]) -> None:
        """Make the scratch index hold ``entries``: only what changed since the last checkpoint.

        The index keeps git's cache of unchanged folders' trees, so ``write-tree`` after a small
        edit rewrites a few trees, not all of them. It is this process's own (two zett processes
        on one project never share one).
        """
        last = self._indexed
        if last is None or not self._index.exists():
            self._index.unlink(missing_ok=True)
            changed = sorted(entries.items())
            gone: list[str] = []
        else:
            changed = sorted((path, entry) for path, entry in entries.items() if last.get(path) != entry)
            gone = sorted(path for path in last if path not in entries)
        zero = "0" * 40
        lines = b"".join(
            [
                *(f"0 {zero}\t".encode() + os.fsencode(path) + b"\0" for path in gone),
                *(
                    f"{entry.mode} {entry.blob}\t".encode() + os.fsencode(path) + b"\0"
                    for path, entry in changed
                ),
            ]
        )
        self._indexed = None
        if lines:
            self._git(["update-index", "-z", "--index-info"], stdin=lines, index=True)
        elif not self._index.exists():
            self._git(["read-tree", "--empty"], index=True)
        self._indexed = dict(entries)

    def _scan(self) -> tuple[dict[str, Entry], list[str]]:
        """Every file to record, hashed (a file unchanged since the last scan is not read again)."""
        if not self._stats and self._takes == 0:
            self._stats = self._load_stats()
        listed = self._listed_files()
        root = str(self.project) + os.sep
        entries: dict[str, Entry] = {}
        too_large: list[str] = []
        to_hash: list[tuple[str, os.stat_result, str]] = []
        links: list[str] = []
        seen: dict[str, _Stat] = {}
        stats = self._stats
        lstat = os.lstat
        for path in listed:
            try:
                info = lstat(root + path)
            except OSError:
                continue  # gone since it was listed
            file_mode = info.st_mode
            if stat.S_ISLNK(file_mode):
                links.append(path)
                continue
            if not stat.S_ISREG(file_mode):
                continue
            if info.st_size > self.max_file_bytes:
                too_large.append(path)
                continue
            mode = EXEC_MODE if file_mode & 0o100 else FILE_MODE
            cached = stats.get(path)
            if cached is not None and _same(cached, info, mode):
                entries[path] = Entry(mode, cached.blob)
                seen[path] = cached
            else:
                to_hash.append((path, info, mode))
        for (path, info, mode), blob in zip(
            to_hash, self._hash_files([p for p, _, _ in to_hash]), strict=True
        ):
            entries[path] = Entry(mode, blob)
            seen[path] = _Stat(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, mode, blob)
        for path in links:
            try:
                target = os.readlink(root + path)
            except OSError:
                continue
            entries[path] = Entry(LINK_MODE, self._hash_bytes(os.fsencode(target)))
        settled = time.time_ns() - int(RACY_SECONDS * 1e9)
        self._stats = {
            path: cached
            for path, cached in seen.items()
            if cached.mtime_ns < settled and cached.ctime_ns < settled
        }
        return entries, sorted(too_large)

    def _load_stats(self) -> dict[str, _Stat]:
        """What an earlier session knew of the files (size, times, inode: blob); {} when unreadable."""
        try:
            data = json.loads((self.folder / STAT_CACHE).read_text(encoding="utf-8"))
            return {path: _Stat(*values) for path, values in data.items()}
        except (OSError, ValueError, TypeError):
            return {}

    def _save_stats(self) -> None:
        """Keep what is known of the files for the next session's first checkpoint (best effort)."""
        data = {
            path: [c.size, c.mtime_ns, c.ctime_ns, c.ino, c.mode, c.blob] for path, c in self._stats.items()
        }
        with contextlib.suppress(OSError):
            write_private_text(self.folder / STAT_CACHE, json.dumps(data), sync=False)

    def _listed_files(self) -> list[str]:
        """The project's files git would not ignore, relative, without descending into nested repos."""
        args = ["ls-files", "-z", "--others", "--exclude-standard"]
        zett_ignore = self.project / ".zett" / "ignore"
        if zett_ignore.is_file() and not zett_ignore.is_symlink():
            args.append("--exclude-from=.zett/ignore")
        self._no_index.unlink(missing_ok=True)
        out = run_git(self.git_dir, self.project, args, index_file=self._no_index)
        return [os.fsdecode(item) for item in out.split(b"\0") if item and not item.endswith(b"/")]

    def _hash_files(self, paths: list[str]) -> list[str]:
        """Blob ids of ``paths`` as their bytes are (no filters), written into the store."""
        if not paths:
            return []
        plain = [p for p in paths if "\n" not in p and "\r" not in p]
        blobs: dict[str, str] = {}
        # Many files (a session's first checkpoint): one hashing process per core.
        parts = max(1, min(os.cpu_count() or 1, 4, len(plain) // 2000))
        chunks = [plain[index::parts] for index in range(parts)]
        if parts == 1:
            results = [self._hash_batch(chunks[0])] if plain else []
        else:
            with ThreadPoolExecutor(parts) as pool:
                results = list(pool.map(self._hash_batch, chunks))
        for chunk, found in zip(chunks, results, strict=False):
            blobs.update(zip(chunk, found, strict=True))
        for path in paths:
            if path not in blobs:  # a name the line-based batch cannot carry
                blobs[path] = self._hash_bytes((self.project / path).read_bytes())
        return [blobs[p] for p in paths]

    def _hash_batch(self, paths: list[str]) -> list[str]:
        out = self._git(
            ["hash-object", "--no-filters", "-w", "--stdin-paths"],
            stdin="".join(f"{p}\n" for p in paths).encode("utf-8", "surrogateescape"),
        )
        return out.decode().split()

    def _hash_bytes(self, data: bytes) -> str:
        return self._git(["hash-object", "--no-filters", "-w", "--stdin"], stdin=data).decode().strip()

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
                        _remove_empty_parents(self.project, target.parent, kept_dirs)
                    continue
                _write_entry(target, entry, contents[entry.blob])
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


def _same(cached: _Stat, info: os.stat_result, mode: str) -> bool:
    return (
        cached.size == info.st_size
        and cached.mtime_ns == info.st_mtime_ns
        and cached.ctime_ns == info.st_ctime_ns
        and cached.ino == info.st_ino
        and cached.mode == mode
    )


def _inside(root: Path, folder: Path) -> bool:
    real = os.path.realpath(folder)
    return real == str(root) or real.startswith(str(root) + os.sep)


def _write_entry(target: Path, entry: Entry, data: bytes) -> None:
    """Put one recorded file in place atomically: bytes and mode, or a symlink."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_dir() and not target.is_symlink():
        raise IsADirectoryError(21, "a folder is in its place now")
    temporary = target.with_name(f".{target.name}.zett-restore-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    try:
        if entry.mode == LINK_MODE:
            os.symlink(os.fsdecode(data), temporary)
        else:
            mode = _mode_for(target, executable=entry.mode == EXEC_MODE)
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
                os.fchmod(stream.fileno(), mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _mode_for(target: Path, *, executable: bool) -> int:
    """The permission bits to restore: the file's own (git keeps only the exec bit), else the umask's."""
    try:
        info = os.lstat(target)
        base = stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else 0o666 & ~_umask()
    except FileNotFoundError:
        base = 0o666 & ~_umask()
    base &= ~0o111
    return base | ((base & 0o444) >> 2) if executable else base


def _remove_empty_parents(root: Path, folder: Path, kept: set[str]) -> None:
    """Remove folders left empty by removing a created file, up to the project (not recorded ones)."""
    while folder != root and str(folder.relative_to(root)) not in kept:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _make_private(folder: Path) -> None:
    """0700 folders and 0600 files throughout the store, whatever git made of them."""
    for current, dirs, files in os.walk(folder):
        for name in dirs:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(current, name), 0o700)
        for name in files:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(current, name), PRIVATE_FILE_MODE)


_UMASK: int | None = None


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        current = os.umask(0o022)
        os.umask(current)
        _UMASK = current
    return _UMASK
