"""List every session quickly, without parsing whole files.

For each ``<base>.jsonl`` the index reads the head of the first line (title = first prompt, and
the folder, branch and model zett put in the turn metadata), the last complete line (found by
reading backwards from the end: last status, last activity), and counts newlines block by block
for the number of turns. Results are cached in ``.index.json`` in the sessions folder, keyed by
file size and mtime: a file that only grew (a new turn was appended) costs a count of its new
bytes and a look at its tail. A damaged or foreign cache file is ignored and rebuilt.

``turns`` is the number of complete lines but a conversation rewind's (``sessions.rewind_marks``),
so a damaged line counts as a turn; the transcript reader reports such lines when the session is
opened. ``rewound`` is how many of them a rewind took out of the model's context.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from zett_tui.core.paths import PRIVATE_FILE_MODE, sessions_dir, write_private_text
from zett_tui.sessions.file_modes import needs_tightening, tighten_dir, tighten_file
from zett_tui.sessions.line_blocks import count_newlines, file_end, iter_lines_backward
from zett_tui.sessions.lock import adopt_orphaned_turns, lock_holder
from zett_tui.sessions.meta import read_title, title_line
from zett_tui.sessions.naming import (
    LOCK_SUFFIX,
    META_SUFFIX,
    SESSION_SUFFIX,
    InvalidSessionId,
    session_id_from_file_name,
)
from zett_tui.sessions.reader import (
    HEAD_BYTES,
    ReadNotice,
    ReadNotices,
    iter_records,
    parse_header_prefix,
    parse_line,
    parse_time,
    read_bounded_line,
    read_last_records,
    zett_metadata,
)
from zett_tui.sessions.rewind_marks import RewoundTurns, is_mark_line, marks_in

CACHE_NAME = ".index.json"
#: 3: the prompts kept are redacted; 4: rewind lines are not turns (a cache written before is rebuilt).
_CACHE_FORMAT = 4
_SIGNATURE_BYTES = 32
_IN_MEMORY_BYTES = 1 << 20
#: How many damaged lines at either end are stepped over to find a readable one.
_PROBE_LINES = 16
_EMPTY_TITLE = "(no prompt text)"


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of the session browser."""

    session_id: str
    #: The ``/rename`` title, else the first prompt on one line.
    title: str
    cwd: str | None
    branch: str | None
    model: str | None
    started_at: datetime
    last_activity: datetime
    #: Complete lines in the file but the rewinds' (a damaged line counts).
    turns: int
    #: Status of the last readable turn: completed, failed, cancelled, or "empty" for no turn.
    last_status: str
    path: Path
    size_bytes: int
    #: The first prompt on one line (the title when there is no ``/rename`` title).
    first_prompt: str = ""
    #: The prompt of the last readable turn on one line.
    last_prompt: str = ""
    #: Whether the file ends with an incomplete line (zett was stopped while writing it).
    tail_torn: bool = False
    #: Pid of a running zett that holds the session's lock, when one does (-1 if unknown).
    in_use_by: int | None = None
    #: How many of the turns a conversation rewind took out of the model's context.
    rewound: int = 0
    #: How many lines are rewinds' (a turn's index counts them: it is its line number minus one).
    rewind_lines: int = 0

    @property
    def lines(self) -> int:
        """Complete lines in the file: the turns and the rewinds."""
        return self.turns + self.rewind_lines

    @property
    def in_use(self) -> bool:
        return self.in_use_by is not None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path)
        data["started_at"] = self.started_at.isoformat()
        data["last_activity"] = self.last_activity.isoformat()
        return data


@dataclass(slots=True)
class _Facts:
    """What one file says about itself; cached as JSON between runs."""

    size: int
    mtime_ns: int
    signature: str
    newlines: int
    ends_with_newline: bool
    head: dict[str, Any] | None
    tail: dict[str, Any] | None
    notices: list[str] = field(default_factory=list)
    #: How many of the complete lines are rewinds, and the turns they leave rewound.
    marks: int = 0
    rewound: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        # dataclasses.asdict deep-copies everything and costs ~35 ms for 1,000 entries.
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_json(cls, data: Any) -> _Facts | None:
        if not isinstance(data, dict):
            return None
        try:
            facts = cls(**data)
        except TypeError:
            return None
        numbers_ok = all(type(value) is int for value in (facts.size, facts.mtime_ns, facts.newlines))
        parts_ok = all(
            part is None
            or (isinstance(part, dict) and all(v is None or isinstance(v, str) for v in part.values()))
            for part in (facts.head, facts.tail)
        )
        others_ok = (
            isinstance(facts.signature, str)
            and isinstance(facts.notices, list)
            and type(facts.marks) is int
            and isinstance(facts.rewound, list)
            and all(isinstance(item, str) for item in facts.rewound)
        )
        if not (numbers_ok and parts_ok and others_ok and type(facts.ends_with_newline) is bool):
            return None
        return facts


def _turn_facts(header: dict[str, Any], first_message: dict[str, Any] | None) -> dict[str, Any]:
    zett = zett_metadata(header)
    return {
        "session_id": header.get("session_id") if isinstance(header.get("session_id"), str) else None,
        "started_at": header.get("started_at") if isinstance(header.get("started_at"), str) else None,
        "completed_at": header.get("completed_at") if isinstance(header.get("completed_at"), str) else None,
        "status": header.get("status") if isinstance(header.get("status"), str) else "unknown",
        "cwd": _text_or_none(zett.get("cwd")),
        "branch": _text_or_none(zett.get("branch")),
        "model": _text_or_none(zett.get("model")),
        "prompt": _prompt_of(first_message),
    }


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _prompt_of(message: dict[str, Any] | None) -> str:
    """The first user prompt's text on one line, from a raw message envelope."""
    if not isinstance(message, dict) or message.get("kind") != 2 or not isinstance(message.get("data"), dict):
        return ""
    content = message["data"].get("content")
    if isinstance(content, str):
        return title_line(content)
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        text = " ".join(item for item in texts if isinstance(item, str))
        return title_line(text) if text.strip() else "(image)"
    return ""


def _first_user_message(messages: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    return next((message for message in messages if message.get("kind") == 2), None)


def _facts_of_line(
    content: bytes, *, path: Path, line_no: int, offset: int, notices: list[ReadNotice]
) -> dict[str, Any] | None:
    """Turn facts from a complete line: the header fast path, else a full parse."""
    quick = parse_header_prefix(content[:HEAD_BYTES])
    if quick is not None and (quick[1] is not None or len(content) <= HEAD_BYTES):
        return _turn_facts(*quick)
    record = parse_line(content, path=path, line_no=line_no, offset=offset, terminated=True, notices=notices)
    if record is None:
        return None
    return _turn_facts(record.data, _first_user_message(record.messages))


def _read_head(stream: IO[bytes], path: Path, notices: list[ReadNotice]) -> dict[str, Any] | None:
    """Facts of the first readable line; only its first HEAD_BYTES when they are enough."""
    stream.seek(0)
    prefix = stream.read(HEAD_BYTES)
    newline = prefix.find(b"\n")
    quick = parse_header_prefix(prefix if newline == -1 else prefix[:newline])
    if quick is not None and quick[1] is not None:
        return _turn_facts(*quick)
    stream.seek(0)
    offset = 0
    for line_no in range(1, _PROBE_LINES + 1):
        raw, length = read_bounded_line(stream)
        if not length or not raw.endswith(b"\n"):
            return None
        content = raw.rstrip(b"\r\n")
        facts = _facts_of_line(content, path=path, line_no=line_no, offset=offset, notices=notices)
        if facts is not None:
            return facts
        offset += length
    return None


def _read_tail(
    stream: IO[bytes], size: int, ends_with_newline: bool, path: Path, notices: list[ReadNotice]
) -> dict[str, Any] | None:
    end = size - 1 if ends_with_newline and size else size
    for probed, raw in enumerate(iter_lines_backward(stream, end, terminated=ends_with_newline)):
        if probed >= _PROBE_LINES:
            return None
        if not raw.terminated or raw.content is None or is_mark_line(raw.content):
            continue  # a rewind's line says nothing of the last turn
        facts = _facts_of_line(raw.content, path=path, line_no=0, offset=raw.offset, notices=notices)
        if facts is not None:
            return facts
    return None


def _facts_beyond_the_probes(path: Path, *, last: bool) -> dict[str, Any] | None:
    """Facts of the first (or last) readable line of a file whose first (or last) lines are all
    damaged: the whole file is sieved for it (``line_sieve``, a fraction of a second for 200 MB),
    once, since the index caches what it found."""
    notices = ReadNotices(detail_limit=0)
    if last:
        records = read_last_records(path, 1, notices).records
        record = records[0] if records else None
    else:
        record = next(iter_records(path, notices), None)
    return None if record is None else _turn_facts(record.data, _first_user_message(record.messages))


def _signature(stream: IO[bytes], size: int) -> str:
    start = max(0, size - _SIGNATURE_BYTES)
    stream.seek(start)
    return stream.read(size - start).hex()


def _scan(path: Path, stat: os.stat_result, previous: _Facts | None) -> _Facts:
    """Facts about one file, reusing ``previous`` when the file only grew since."""
    notices: list[ReadNotice] = []
    with open(path, "rb") as file:
        # A small file is read once and examined in memory: fewer system calls than the
        # count, head, tail and signature reads each going to the file.
        stream: IO[bytes] = file
        if stat.st_size <= _IN_MEMORY_BYTES:
            data = file.read(_IN_MEMORY_BYTES + 1)
            if len(data) <= _IN_MEMORY_BYTES:
                stream = io.BytesIO(data)
        size, ends_with_newline = file_end(stream)
        grew = (
            previous is not None
            and previous.head is not None
            and previous.ends_with_newline
            and size > previous.size
            and _signature(stream, previous.size) == previous.signature
        )
        if grew and previous is not None:
            newlines = previous.newlines + count_newlines(stream, previous.size)
            head = previous.head
            rewound = RewoundTurns(set(previous.rewound))
            marks = previous.marks + _apply_marks(rewound, stream, previous.size)
        else:
            newlines = count_newlines(stream, 0)
            rewound = RewoundTurns()
            marks = _apply_marks(rewound, stream, 0)
            # With no newline at all the only line is torn: nothing complete to read.
            head = _read_head(stream, path, notices) if newlines else None
        tail = _read_tail(stream, size, ends_with_newline, path, notices)
        if head is None and newlines > _PROBE_LINES:
            head = _facts_beyond_the_probes(path, last=False)
        if tail is None and head is not None:
            tail = _facts_beyond_the_probes(path, last=True)
        signature = _signature(stream, size)
    if size == 0:
        notices.append(ReadNotice(path, 0, "the file is empty (no turns)"))
    elif not ends_with_newline:
        notices.append(
            ReadNotice(path, newlines + 1, "incomplete last line (zett was stopped while writing it)")
        )
    return _Facts(
        size=size,
        mtime_ns=stat.st_mtime_ns,
        signature=signature,
        newlines=newlines,
        ends_with_newline=ends_with_newline,
        head=head,
        tail=tail,
        notices=[f"{notice.line_no}\t{notice.reason}" for notice in notices],
        marks=marks,
        rewound=sorted(rewound.rewound),
    )


def _apply_marks(rewound: RewoundTurns, stream: IO[bytes], start: int) -> int:
    """Apply the rewind marks from ``start`` on to ``rewound``; how many there were."""
    marks = marks_in(stream, start)
    for mark in marks:
        rewound.apply(mark)
    return len(marks)


def _session_id_for(name: str, facts: _Facts) -> str:
    try:
        return session_id_from_file_name(name)
    except InvalidSessionId:
        for part in (facts.head, facts.tail):
            if part and part.get("session_id"):
                return str(part["session_id"])
        return name[: -len(SESSION_SUFFIX)]


def _summary(
    path: Path, stat: os.stat_result, facts: _Facts, title: str | None, in_use_by: int | None
) -> SessionSummary:
    head = facts.head or {}
    tail = facts.tail or head
    modified = datetime.fromtimestamp(stat.st_mtime, UTC)
    started = parse_time(head.get("started_at")) or parse_time(tail.get("started_at")) or modified
    last = parse_time(tail.get("completed_at")) or parse_time(tail.get("started_at")) or modified
    first_prompt = head.get("prompt") or ""
    if facts.head is None and facts.tail is None:
        status = "empty" if facts.size == 0 else "unreadable"
    else:
        status = str(tail.get("status") or "unknown")
    return SessionSummary(
        session_id=_session_id_for(path.name, facts),
        title=title or first_prompt or ("(empty session)" if facts.size == 0 else _EMPTY_TITLE),
        cwd=tail.get("cwd") or head.get("cwd"),
        branch=tail.get("branch") or head.get("branch"),
        model=tail.get("model") or head.get("model"),
        started_at=started,
        last_activity=max(last, started),
        turns=max(0, facts.newlines - facts.marks),
        rewound=len(facts.rewound),
        rewind_lines=facts.marks,
        last_status=status,
        path=path,
        size_bytes=facts.size,
        first_prompt=first_prompt,
        last_prompt=tail.get("prompt") or "",
        tail_torn=not facts.ends_with_newline,
        in_use_by=in_use_by,
    )


def same_folder(session_cwd: str | None, folder: str | Path) -> bool:
    """Whether a session started in ``folder`` (compared as written and with symlinks resolved)."""
    if not session_cwd:
        return False
    wanted = os.path.normpath(os.fspath(folder))
    stored = os.path.normpath(session_cwd)
    return stored == wanted or stored == os.path.realpath(wanted)


class SessionIndex:
    """The sessions in one folder, listed from cached facts where the files have not changed."""

    def __init__(
        self, directory: Path | None = None, *, cache_file: Path | None = None, use_cache: bool = True
    ):
        self.directory = directory if directory is not None else sessions_dir()
        self.cache_file = cache_file if cache_file is not None else self.directory / CACHE_NAME
        self.use_cache = use_cache
        #: What could not be read during the last listing.
        self.notices: list[ReadNotice] = []
        self._facts: dict[str, _Facts] = {}
        self._cache_loaded = False

    def list_sessions(self, cwd: str | Path | None = None) -> list[SessionSummary]:
        """Every session (or those started in ``cwd``), most recent activity first."""
        self.notices = []
        summaries = self._scan_directory()
        if cwd is not None:
            summaries = [summary for summary in summaries if same_folder(summary.cwd, cwd)]
        summaries.sort(key=lambda summary: (summary.last_activity, summary.session_id), reverse=True)
        return summaries

    def find(self, session_id: str) -> SessionSummary | None:
        return next((summary for summary in self.list_sessions() if summary.session_id == session_id), None)

    def _scan_directory(self) -> list[SessionSummary]:
        adopt_orphaned_turns(self.directory)  # a session killed in its first turn is listed too
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return []
        except OSError as error:
            self.notices.append(
                ReadNotice(self.directory, 0, f"cannot list sessions ({error.strerror or error})")
            )
            return []
        tighten_dir(self.directory, self.notices)
        previous = self._load_cache()
        metas: set[str] = set()
        locks: set[str] = set()
        sessions: list[os.DirEntry[str]] = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if name.endswith(SESSION_SUFFIX):
                sessions.append(entry)
            elif name.endswith(META_SUFFIX):
                metas.add(name[: -len(META_SUFFIX)])
            elif name.endswith(LOCK_SUFFIX):
                locks.add(name[: -len(LOCK_SUFFIX)])
        current: dict[str, _Facts] = {}
        summaries: list[SessionSummary] = []
        for entry in sessions:
            summary = self._summarize(entry, previous, current, metas, locks)
            if summary is not None:
                summaries.append(summary)
        if current != previous:
            self._store_cache(current)
        self._facts = current
        return summaries

    def _summarize(
        self,
        entry: os.DirEntry[str],
        previous: dict[str, _Facts],
        current: dict[str, _Facts],
        metas: set[str],
        locks: set[str],
    ) -> SessionSummary | None:
        path = Path(entry.path)
        try:
            if entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                self.notices.append(ReadNotice(path, 0, "not a regular file (a link or folder); not listed"))
                return None
            stat = entry.stat(follow_symlinks=False)
            if needs_tightening(stat.st_mode, PRIVATE_FILE_MODE):
                tighten_file(path, self.notices)
            base = entry.name[: -len(SESSION_SUFFIX)]
            cached = previous.get(entry.name)
            if cached is not None and cached.size == stat.st_size and cached.mtime_ns == stat.st_mtime_ns:
                facts = cached
            else:
                facts = _scan(path, stat, cached)
        except OSError as error:
            self.notices.append(ReadNotice(path, 0, f"cannot read ({error.strerror or error}); not listed"))
            return None
        current[entry.name] = facts
        self.notices.extend(_cached_notices(path, facts))
        title = read_title(path, self.notices) if base in metas else None
        in_use_by = None
        if base in locks:
            holder = lock_holder(path.with_name(base + LOCK_SUFFIX))
            if holder is not None:
                in_use_by = holder.pid if holder.pid is not None else -1
        return _summary(path, stat, facts, title, in_use_by)

    def _load_cache(self) -> dict[str, _Facts]:
        if self._cache_loaded:
            return dict(self._facts)
        self._cache_loaded = True
        if not self.use_cache:
            return {}
        try:
            data = json.loads(self.cache_file.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT:
            return {}
        entries = data.get("entries")
        if not isinstance(entries, dict):
            return {}
        facts = {name: _Facts.from_json(value) for name, value in entries.items() if isinstance(name, str)}
        self._facts = {name: value for name, value in facts.items() if value is not None}
        return dict(self._facts)

    def _store_cache(self, facts: dict[str, _Facts]) -> None:
        if not self.use_cache:
            return
        entries = {name: value.to_json() for name, value in facts.items()}
        payload = {"format": _CACHE_FORMAT, "entries": entries}
        try:
            write_private_text(self.cache_file, json.dumps(payload, separators=(",", ":")))
        except (OSError, ValueError) as error:
            self.notices.append(ReadNotice(self.cache_file, 0, f"cannot save the session index ({error})"))


def _cached_notices(path: Path, facts: _Facts) -> list[ReadNotice]:
    notices = []
    for text in facts.notices:
        line, _, reason = str(text).partition("\t")
        notices.append(ReadNotice(path, int(line) if line.isdigit() else 0, reason))
    return notices


def save_index(directory: Path) -> bool:
    """List ``directory`` so its cache records the sessions on disk now; False when it cannot be saved.

    After a spell of failed writes (``runtime.storage_retry``) this brings the cache up to date at
    once, instead of at the next listing.
    """
    index = SessionIndex(directory)
    index.list_sessions()
    return not any(notice.path == index.cache_file for notice in index.notices)
