"""Full-text search over every session: prompts, answers, reasoning, tool calls and tool output.

A plain, case-insensitive substring search (no regex syntax, no word stemming). Each file is read
in blocks; a block is first checked on its raw bytes for the query as it would appear inside a
JSON string, and only the lines that contain it are parsed and searched field by field, so a
rare word costs little more than reading the files.

:func:`search_sessions` is a synchronous generator meant to run in a worker thread: it yields each
hit as soon as it is found, sessions in the order given (the index lists the most recent first),
and stops soon after ``cancel`` is set or the caller stops iterating.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.reader import BLOCK_BYTES, MAX_LINE_BYTES, ReadNotice, TurnRecord, parse_line
from zett_tui.sessions.recorded_turns import content_text, subagent_view

SNIPPET_BEFORE = 50
SNIPPET_AFTER = 110
_FLATTEN = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\x0b": " ", "\x0c": " "})


@dataclass(frozen=True, slots=True)
class SearchHit:
    session_id: str
    #: 0-based turn index (same as ``TurnView.index``).
    turn_index: int
    #: One line of text around the first match in the turn.
    snippet: str
    #: (start, end) of every match inside ``snippet``.
    match_spans: tuple[tuple[int, int], ...]
    #: Where the first match is: prompt, answer, reasoning, tool <name>, output <name>, error, note.
    where: str
    #: Matches in the whole turn.
    matches: int
    path: Path


class _Needle:
    """The query as a case-insensitive pattern, and its raw-JSON form for the byte prefilter."""

    def __init__(self, query: str) -> None:
        self.pattern = re.compile(re.escape(query), re.IGNORECASE)
        self.lowered = query.lower()
        escaped = json.dumps(query, ensure_ascii=False)[1:-1]
        self.ascii = escaped.isascii()
        self.raw = escaped.lower().encode("ascii") if self.ascii else b""
        self.raw_pattern = re.compile(re.escape(escaped), re.IGNORECASE)

    def count_in(self, text: str) -> int:
        if self.ascii:
            # str.count on lowered text runs in C; lower() may lengthen a few non-ASCII letters,
            # which moves offsets but cannot change how often an ASCII query occurs.
            return text.lower().count(self.lowered)
        return len(self.pattern.findall(text))

    def may_occur(self, block: bytes) -> bool:
        """Whether a non-ASCII query may occur in ``block`` (decoded offsets do not map to bytes)."""
        return self.raw_pattern.search(block.decode("utf-8", errors="replace")) is not None


def _fields(record: TurnRecord) -> Iterator[tuple[str, str]]:
    """Every searchable text of a turn, in the order it happened, read straight from the envelopes."""
    seen_prompt = False
    for envelope in record.messages:
        kind, data = envelope["kind"], envelope["data"]
        if kind == 3:
            reasoning, content = data.get("reasoning"), data.get("content")
            if isinstance(reasoning, str):
                yield "reasoning", reasoning
            if isinstance(content, str):
                yield "answer", content
            calls = data.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict) and isinstance(call.get("arguments"), dict):
                    values = (value for value in call["arguments"].values() if isinstance(value, str))
                    yield f"tool {call.get('name')}", " ".join(values)
        elif kind == 4:
            yield f"output {data.get('name')}", content_text(data.get("content"))[0]
        elif kind == 2 and not seen_prompt:
            seen_prompt = True
            yield "prompt", content_text(data.get("content"))[0]
        else:
            yield "note", content_text(data.get("content"))[0]
    error = record.error
    if error is not None and isinstance(error.get("message"), str):
        yield "error", error["message"]
    children = record.zett.get("subagents")
    for child in children.values() if isinstance(children, dict) else ():
        if isinstance(child, dict):  # a subagent's run, kept in its parent turn's line
            yield f"subagent {child.get('type')}", subagent_view(child).text


def _snippet(
    text: str, start: int, end: int, pattern: re.Pattern[str]
) -> tuple[str, tuple[tuple[int, int], ...]]:
    left = max(0, start - SNIPPET_BEFORE)
    right = min(len(text), end + SNIPPET_AFTER)
    prefix = "…" if left > 0 else ""
    suffix = "…" if right < len(text) else ""
    body = text[left:right].translate(_FLATTEN)
    spans = tuple(
        (len(prefix) + found.start() - left, len(prefix) + found.end() - left)
        for found in pattern.finditer(text, left, right)
    )
    return prefix + body + suffix, spans


def _hit_in(record: TurnRecord, needle: _Needle, summary: SessionSummary) -> SearchHit | None:
    first: tuple[str, str, re.Match[str]] | None = None
    total = 0
    for where, text in _fields(record):
        if not text:
            continue
        if first is None:
            found = needle.pattern.search(text)
            if found is None:
                continue
            first = (where, text, found)
        total += needle.count_in(text)
    if first is None:
        return None
    where, text, found = first
    snippet, spans = _snippet(text, found.start(), found.end(), needle.pattern)
    return SearchHit(summary.session_id, record.index, snippet, spans, where, total, summary.path)


def _search_file(
    summary: SessionSummary,
    needle: _Needle,
    cancel: threading.Event | None,
    limit: int | None,
    notices: list[ReadNotice],
) -> Iterator[SearchHit]:
    path = summary.path
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as error:
        notices.append(ReadNotice(path, 0, f"cannot open for search ({error.strerror or error})"))
        return
    found = 0
    with stream:
        pending = bytearray()
        base_offset = 0
        base_line = 1
        at_end = False
        while not at_end:
            if cancel is not None and cancel.is_set():
                return
            try:
                data = stream.read(BLOCK_BYTES)
            except OSError as error:
                notices.append(ReadNotice(path, 0, f"read error during search ({error.strerror or error})"))
                return
            at_end = not data
            pending += data
            cut = len(pending) if at_end else pending.rfind(b"\n") + 1
            if cut == 0:
                if len(pending) > MAX_LINE_BYTES:
                    # One enormous line: give up on this file rather than hold it all in memory.
                    notices.append(
                        ReadNotice(path, base_line, "line too long to search; rest of file skipped")
                    )
                    return
                continue
            block = bytes(pending[:cut])
            del pending[:cut]
            for line_no, offset, raw in _candidate_lines(block, needle, base_line):
                if cancel is not None and cancel.is_set():
                    return
                record = parse_line(
                    raw,
                    path=path,
                    line_no=line_no,
                    offset=base_offset + offset,
                    terminated=raw.endswith(b"\n"),
                    notices=[],
                )
                if record is None:
                    continue
                hit = _hit_in(record, needle, summary)
                if hit is not None:
                    yield hit
                    found += 1
                    if limit is not None and found >= limit:
                        return
            base_offset += cut
            base_line += block.count(b"\n")


def _candidate_lines(block: bytes, needle: _Needle, first_line: int) -> Iterator[tuple[int, int, bytes]]:
    """(line number, offset in block, line) of each line of ``block`` that may contain the query."""
    if not needle.ascii:
        if needle.may_occur(block):
            yield from _every_line(block, first_line)
        return
    lowered = block.lower()
    line_no, counted = first_line, 0
    position = lowered.find(needle.raw)
    while position != -1:
        start = block.rfind(b"\n", 0, position) + 1
        end = block.find(b"\n", position)
        end = len(block) if end == -1 else end + 1
        line_no += block.count(b"\n", counted, start)
        counted = start
        yield line_no, start, block[start:end]
        position = lowered.find(needle.raw, end)


def _every_line(block: bytes, first_line: int) -> Iterator[tuple[int, int, bytes]]:
    start = 0
    line_no = first_line
    while start < len(block):
        end = block.find(b"\n", start)
        end = len(block) if end == -1 else end + 1
        yield line_no, start, block[start:end]
        line_no += 1
        start = end


def search_sessions(
    query: str,
    summaries: Iterable[SessionSummary],
    *,
    cancel: threading.Event | None = None,
    per_session_limit: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    notices: list[ReadNotice] | None = None,
) -> Iterator[SearchHit]:
    """Yield one :class:`SearchHit` per turn that contains ``query`` (case-insensitive).

    Sessions are searched in the order given, turns in file order. ``on_progress(done, total)``
    is called after each session file. Damaged lines are skipped silently (the transcript
    reader reports them when the session is opened).
    """
    if not query.strip():
        return
    needle = _Needle(query)
    ordered = list(summaries)
    sink = notices if notices is not None else []
    for done, summary in enumerate(ordered, start=1):
        if cancel is not None and cancel.is_set():
            return
        yield from _search_file(summary, needle, cancel, per_session_limit, sink)
        if on_progress is not None:
            on_progress(done, len(ordered))
