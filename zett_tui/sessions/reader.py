"""Robust, streaming reading of session JSONL files.

A session file can be damaged in ordinary ways: the process was killed mid-write (a torn last
line, or a torn line that the next append merged into), the disk filled up, someone edited it, a
newer zett wrote a format version this one does not know. Every line that cannot be used is
skipped with a :class:`ReadNotice`; everything readable is kept. Files are read line by line or
in blocks, never whole, and no line longer than :data:`MAX_LINE_BYTES` is held in memory.

Line numbers are physical, 1-based line numbers in the file (damaged and blank lines count), so a
line number found by search, the index or the transcript always points at the same turn.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from zett_tui.sessions.line_blocks import (
    BLOCK_BYTES,
    MAX_LINE_BYTES,
    SUPPORTED_VERSION,
    count_newlines,
    file_end,
    lines_backward,
)
from zett_tui.sessions.line_sieve import Run, sieve
from zett_tui.sessions.read_notices import Notices, ReadNotice, ReadNotices

__all__ = ["MAX_LINE_BYTES", "Notices", "ReadNotice", "ReadNotices", "TurnRecord"]

#: ``interrupted``: a turn zett never finished, added by ``sessions.live_turn``.
KNOWN_STATUSES = ("completed", "failed", "cancelled", "interrupted")
MESSAGE_KINDS = range(1, 7)

HEAD_BYTES = 1 << 16

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_RECORD_START = '{"version":'
_RECORD_START_BYTES = _RECORD_START.encode()
#: What JSON counts as white space around a value.
_JSON_SPACE = b" \t\r\n"
_MESSAGES_KEY = b',"messages":['


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One readable line of a session file: one turn, as JSONLExtension wrote it."""

    line_no: int
    offset: int
    #: The line exactly as decoded from disk (used for JSON export).
    data: dict[str, Any]
    #: The well-formed message envelopes of ``data["messages"]`` (malformed ones were reported).
    messages: tuple[dict[str, Any], ...] = field(default=())

    @property
    def index(self) -> int:
        """0-based turn index: the line number minus one."""
        return self.line_no - 1

    @property
    def status(self) -> str:
        value = self.data.get("status")
        return value if isinstance(value, str) and value else "unknown"

    @property
    def session_id(self) -> str | None:
        value = self.data.get("session_id")
        return value if isinstance(value, str) else None

    @property
    def started_at(self) -> datetime | None:
        return parse_time(self.data.get("started_at"))

    @property
    def completed_at(self) -> datetime | None:
        return parse_time(self.data.get("completed_at"))

    @property
    def metadata(self) -> dict[str, Any]:
        value = self.data.get("metadata")
        return value if isinstance(value, dict) else {}

    @property
    def zett(self) -> dict[str, Any]:
        """zett's own per-turn metadata: cwd, branch, model, version."""
        return zett_metadata(self.data)

    @property
    def error(self) -> dict[str, Any] | None:
        value = self.data.get("error")
        return value if isinstance(value, dict) else None

    def decoded_messages(self, notices: Notices, path: Path) -> list[Any]:
        """The messages as zett-agent objects (``decode_messages``); undecodable ones are reported."""
        from zett_agent.storage import decode_messages

        decoded: list[Any] = []
        for position, envelope in enumerate(self.messages, start=1):
            try:
                decoded.extend(decode_messages(json.dumps([envelope])))
            except Exception as error:  # pydantic ValidationError, ValueError, binascii.Error, ...
                reason = f"message {position} does not decode ({type(error).__name__}); skipped"
                notices.append(ReadNotice(path, self.line_no, reason, "partial"))
        return decoded


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 time from a record as an aware datetime, or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def zett_metadata(data: dict[str, Any]) -> dict[str, Any]:
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return {}
    zett = metadata.get("zett")
    return zett if isinstance(zett, dict) else {}


def cannot_be_record(line: bytes) -> bool:
    """Whether ``line`` (without its newline) is certainly not a turn record, nor ends with one.

    A record is a JSON object: it ends with ``}``, and either starts with ``{`` or (torn remains
    merged into it) holds ``{"version":``. Checking that costs a fraction of a failed parse, so a
    file of a million damaged lines is counted through quickly.
    """
    stripped = line.strip(_JSON_SPACE)
    return not stripped.endswith(b"}") or (
        not stripped.startswith(b"{") and _RECORD_START_BYTES not in stripped
    )


def parse_line(
    raw: bytes, *, path: Path, line_no: int, offset: int, terminated: bool, notices: Notices
) -> TurnRecord | None:
    """Turn one raw line (with or without its newline) into a record, or report why it cannot be used."""
    stripped = raw.rstrip(b"\r\n")
    if not stripped.strip():
        return None
    if isinstance(notices, ReadNotices) and not notices.wants_detail and cannot_be_record(stripped):
        notices.skip_line(path, line_no)
        return None
    try:
        text = stripped.decode("utf-8")
    except UnicodeDecodeError:
        text = stripped.decode("utf-8", errors="replace")
        notices.append(
            ReadNotice(path, line_no, "not valid UTF-8; undecodable bytes shown as U+FFFD", "partial")
        )
    data = _loads_record(text, path=path, line_no=line_no, terminated=terminated, notices=notices)
    if data is None:
        return None
    if _SURROGATE_ESCAPE.search(text):
        data, changed = scrub_surrogates(data)
        if changed:
            notices.append(ReadNotice(path, line_no, "invalid UTF-16 escapes shown as U+FFFD", "partial"))
    problem = shape_problem(data)
    if problem is not None:
        notices.append(ReadNotice(path, line_no, problem, "skipped"))
        return None
    messages = _wellformed_messages(data["messages"], path=path, line_no=line_no, notices=notices)
    return TurnRecord(line_no=line_no, offset=offset, data=data, messages=messages)


def _loads_record(
    text: str, *, path: Path, line_no: int, terminated: bool, notices: Notices
) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except RecursionError:
        notices.append(ReadNotice(path, line_no, "JSON nested too deeply; skipped", "skipped"))
        return None
    except ValueError as error:
        recovered = _recover_merged_record(text)
        if recovered is not None:
            notices.append(
                ReadNotice(
                    path,
                    line_no,
                    "an incomplete record was merged into this line (zett was stopped while writing); "
                    "the damaged part was skipped, the record after it kept",
                    "partial",
                )
            )
            return recovered
        if not terminated:
            reason = "incomplete last line (zett was stopped while writing it); skipped"
        else:
            reason = f"not valid JSON ({error.args[0] if error.args else error}); skipped"
        notices.append(ReadNotice(path, line_no, reason, "skipped"))
        return None
    if not isinstance(data, dict):
        reason = f"a JSON {type(data).__name__}, not a turn record; skipped"
        notices.append(ReadNotice(path, line_no, reason, "skipped"))
        return None
    return data


def _recover_merged_record(text: str) -> dict[str, Any] | None:
    """The complete record at the end of a line that starts with the torn remains of another one."""
    decoder = json.JSONDecoder()
    start = text.find(_RECORD_START, 1)
    while start != -1:
        try:
            data, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            data, end = None, -1
        if isinstance(data, dict) and not text[end:].strip():
            return data
        start = text.find(_RECORD_START, start + 1)
    return None


def shape_problem(data: dict[str, Any]) -> str | None:
    """Why a decoded line is not a turn record this zett can read, or None if it is one."""
    version = data.get("version")
    if type(version) is not int:
        return "not a turn record (no integer 'version'); skipped"
    if version > SUPPORTED_VERSION:
        return (
            f"written by a newer zett (format version {version}, this one reads {SUPPORTED_VERSION}); "
            "skipped, the line is left untouched"
        )
    if version < 1:
        return f"unknown format version {version}; skipped"
    if not isinstance(data.get("messages"), list):
        return "turn record without a 'messages' list; skipped"
    status = data.get("status")
    if status is not None and not isinstance(status, str):
        return "turn record with a non-text 'status'; skipped"
    return None


def _wellformed_messages(
    items: list[Any], *, path: Path, line_no: int, notices: Notices
) -> tuple[dict[str, Any], ...]:
    kept: list[dict[str, Any]] = []
    for position, item in enumerate(items, start=1):
        if (
            isinstance(item, dict)
            and type(item.get("kind")) is int
            and item["kind"] in MESSAGE_KINDS
            and isinstance(item.get("data"), dict)
        ):
            kept.append(item)
        else:
            reason = f"message {position} has an unknown shape; skipped"
            notices.append(ReadNotice(path, line_no, reason, "partial"))
    return tuple(kept)


def _open(path: Path, notices: Notices) -> IO[bytes] | None:
    try:
        return open(path, "rb")
    except OSError as error:
        notices.append(ReadNotice(path, 0, f"cannot open: {error.strerror or error}"))
        return None


def read_bounded_line(stream: IO[bytes]) -> tuple[bytes, int]:
    """The next line (at most MAX_LINE_BYTES + 1 bytes kept) and its full length on disk."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    length = len(line)
    if length <= MAX_LINE_BYTES or line.endswith(b"\n"):
        return line, length
    while True:
        rest = stream.readline(BLOCK_BYTES)
        length += len(rest)
        if not rest or rest.endswith(b"\n"):
            return line, length


def iter_records(
    path: Path, notices: Notices, *, start_offset: int = 0, start_line: int = 1
) -> Iterator[TurnRecord]:
    """Every readable turn of ``path`` in file order, line by line; problems go to ``notices``.

    ``start_offset``/``start_line`` resume from a known line start (a record's ``offset`` and
    ``line_no``), so a caller can page forward without rereading the beginning. Once a
    :class:`ReadNotices` wants no more details, the file is read a block at a time and only the
    lines that might be records are parsed (``line_sieve``).
    """
    stream = _open(path, notices)
    if stream is None:
        return
    with stream:
        line_no = start_line - 1
        offset = start_offset
        try:
            stream.seek(start_offset)
            while True:
                if isinstance(notices, ReadNotices) and not notices.wants_detail:
                    block = stream.read(BLOCK_BYTES)
                    whole = block.rfind(b"\n") + 1
                    stream.seek(offset + whole)
                    for item in sieve(block[:whole], offset, SUPPORTED_VERSION) if whole else ():
                        if isinstance(item, Run):
                            if item.damaged:
                                notices.skip_lines(path, item.damaged, line_no + 1, line_no + item.lines)
                            line_no += item.lines
                            continue
                        line_no += 1
                        record = parse_line(
                            item.content,
                            path=path,
                            line_no=line_no,
                            offset=item.offset,
                            terminated=True,
                            notices=notices,
                        )
                        if record is not None:
                            yield record
                    offset += whole
                    if whole:
                        continue  # else no whole line in the block: it is read as one line below
                raw, length = read_bounded_line(stream)
                if not length:
                    if offset == 0:
                        notices.append(ReadNotice(path, 0, "the file is empty (no turns)"))
                    return
                line_no += 1
                if length > MAX_LINE_BYTES:
                    reason = f"line of {length:,} bytes is longer than {MAX_LINE_BYTES:,}; skipped"
                    notices.append(ReadNotice(path, line_no, reason, "skipped"))
                else:
                    terminated = raw.endswith(b"\n")
                    record = parse_line(
                        raw, path=path, line_no=line_no, offset=offset, terminated=terminated, notices=notices
                    )
                    if record is not None:
                        yield record
                offset += length
        except OSError as error:
            notices.append(
                ReadNotice(path, line_no + 1, f"read error: {error.strerror or error}; stopped here")
            )


@dataclass(frozen=True, slots=True)
class TailRead:
    """The last readable records of a file, oldest first, and where they start."""

    records: list[TurnRecord]
    #: Offset of the first line looked at; 0 means nothing earlier is left.
    start_offset: int
    #: Line number of that first line.
    start_line: int

    @property
    def has_earlier(self) -> bool:
        return self.start_offset > 0


def read_last_records(
    path: Path, count: int, notices: Notices, *, before_offset: int | None = None
) -> TailRead:
    """The last ``count`` readable records before ``before_offset`` (the end by default).

    Reads backwards from the end, so the cost is the size of those turns plus one newline count
    over the bytes before them (for the line numbers), not the size of the file; damaged lines on
    the way go to ``notices`` as they are met, last first.
    """
    stream = _open(path, notices)
    if stream is None:
        return TailRead([], 0, 1)
    with stream:
        try:
            return _read_last_records(stream, path, count, notices, before_offset)
        except OSError as error:
            notices.append(ReadNotice(path, 0, f"read error: {error.strerror or error}"))
            return TailRead([], 0, 1)


def last_record_within(path: Path, within_bytes: int) -> TurnRecord | None:
    """The last readable record that starts within ``within_bytes`` of the end of ``path``, or None.

    For a caller that wants what the last turn recorded, and no more: a file that ends in damage
    is not read to its start, damage on the way goes unreported, and no line is counted (the
    record's ``line_no`` is 0). Raises ``OSError`` when the file cannot be read.
    """
    notices = ReadNotices(detail_limit=0)
    with open(path, "rb") as stream:
        tail = _read_last_records(stream, path, 1, notices, None, within_bytes=within_bytes)
    return replace(tail.records[0], line_no=0) if tail.records else None


def _read_last_records(
    stream: IO[bytes],
    path: Path,
    count: int,
    notices: Notices,
    before_offset: int | None,
    *,
    within_bytes: int | None = None,
) -> TailRead:
    """See :func:`read_last_records`; with ``within_bytes``, see :func:`last_record_within` (the
    lines are then numbered back from the end, 0, -1, ..., as nothing is counted)."""
    size, ends_with_newline = file_end(stream)
    if before_offset is None:
        start_offset = size
        end, terminated = (size - 1, True) if ends_with_newline and size else (size, False)
    else:
        start_offset = min(max(before_offset, 0), size)
        end, terminated = start_offset - 1, True
    lines_before = count_newlines(stream, 0, start_offset) if within_bytes is None else 0
    if start_offset <= 0 or count <= 0:
        return TailRead([], start_offset, lines_before + 1)
    # The line that ends at ``end``: after the last newline when it is the torn last line.
    line_no = lines_before if terminated else lines_before + 1
    records: list[TurnRecord] = []

    def counting_only() -> bool:
        return isinstance(notices, ReadNotices) and not notices.wants_detail

    for raw in lines_backward(stream, end, terminated=terminated, sieve_when=counting_only):
        if within_bytes is not None and end - raw.offset > within_bytes:
            break
        start_offset = raw.offset
        if isinstance(raw, Run):
            line_no -= raw.lines
            if raw.damaged:
                assert isinstance(notices, ReadNotices)
                notices.skip_lines(path, raw.damaged, line_no + 1, line_no + raw.lines)
            continue
        if raw.content is None:
            reason = f"line longer than {MAX_LINE_BYTES:,} bytes; skipped"
            notices.append(ReadNotice(path, line_no, reason, "skipped"))
        else:
            record = parse_line(
                raw.content,
                path=path,
                line_no=line_no,
                offset=raw.offset,
                terminated=raw.terminated,
                notices=notices,
            )
            if record is not None:
                records.append(record)
                if len(records) >= count:
                    return TailRead(records[::-1], start_offset, line_no)
        line_no -= 1
    return TailRead(records[::-1], start_offset, line_no + 1)


def parse_header_prefix(prefix: bytes) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """The header fields and the first message of a record from its first bytes, without the rest.

    JSONLExtension writes the header keys before ``"messages"``, so the bytes before
    ``,"messages":[`` plus ``}`` are a JSON object. That raw sequence cannot occur inside a JSON
    string (its quotes would be escaped), and if it belongs to a nested object the cut leaves an
    unbalanced object that fails to parse. Returns None when the fast path does not apply; the
    caller then parses the whole line.
    """
    cut = prefix.find(_MESSAGES_KEY)
    if cut < 0:
        return None
    try:
        header = json.loads(prefix[:cut] + b"}")
    except (ValueError, RecursionError):
        return None
    if not isinstance(header, dict) or shape_problem({**header, "messages": []}) is not None:
        return None
    rest = prefix[cut + len(_MESSAGES_KEY) :].decode("utf-8", errors="replace")
    try:
        first, _end = json.JSONDecoder().raw_decode(rest)
    except (ValueError, RecursionError):
        return header, None
    if _SURROGATE_ESCAPE.search(prefix.decode("ascii", errors="replace")):
        header, _changed = scrub_surrogates(header)
        first, _changed = scrub_surrogates(first)
    return header, first if isinstance(first, dict) else None


def scrub_surrogates(value: Any) -> tuple[Any, bool]:
    """``value`` with lone UTF-16 surrogates (from ``\\udXXX`` escapes) replaced by U+FFFD.

    Such strings cannot be encoded as UTF-8, so writing them to a terminal or a file would fail.
    Returns the cleaned value and whether anything changed.
    """
    if isinstance(value, str):
        cleaned = _LONE_SURROGATE.sub("\ufffd", value)
        return cleaned, cleaned != value
    if isinstance(value, list):
        pairs = [scrub_surrogates(item) for item in value]
        return [item for item, _ in pairs], any(changed for _, changed in pairs)
    if isinstance(value, dict):
        changed = False
        result: dict[Any, Any] = {}
        for key, item in value.items():
            new_key, key_changed = scrub_surrogates(key)
            new_item, item_changed = scrub_surrogates(item)
            result[new_key] = new_item
            changed = changed or key_changed or item_changed
        return result, changed
    return value, False


def repair_torn_tail(path: Path) -> bool:
    """End a file whose last line is torn with a newline, so the next append starts a new line.

    Call it while holding the session lock, before zett-agent appends to the file. The torn
    line stays (it is reported and skipped when read) and the next turn is not merged into it.
    Returns True when a newline was added.
    """
    try:
        with open(path, "rb+") as stream:
            size, ends_with_newline = file_end(stream)
            if ends_with_newline:
                return False
            stream.seek(size)
            stream.write(b"\n")
            stream.flush()
            os.fsync(stream.fileno())
            return True
    except FileNotFoundError:
        return False
