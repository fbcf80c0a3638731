"""The turn in progress on disk, and how a turn that zett never finished joins its session.

zett-agent writes a turn's JSON line when the turn ends. A zett killed before that (``kill -9``,
a crash, a closed laptop lid over SSH) would lose the whole turn, and a session killed in its
first turn would not exist at all. So while a turn runs, two sidecars of the session file hold it
(``runtime.turn_journal`` writes them):

- ``<base>.live``: JSON lines, appended to. The first is ``{"live": 1, "record": {...}}``, the
  turn's line as it will be, without messages; each further line is ``{"message": envelope}``,
  one finished message of the turn (the prompt first), encoded like the turn line's messages, or
  ``{"notes": {...}}``, the whole of ``metadata.zett`` as it is now (the decision lines, the
  context figure); the last one counts.
- ``<base>.partial``: ``{"after": n, "text": ..., "reasoning": ...}``, what the model has streamed
  since the ``n``-th message, replaced whole (at most once a second), so it is redacted whole.

When the turn ends, its real line is written and both files are removed. Files that are still
there when the session's lock is free belong to a zett that was stopped: :func:`adopt_live_turn`
appends them to the session as one turn of status ``interrupted`` (the partial text as the last,
unfinished answer) and removes them. It runs under the session lock: when a session is opened,
and when sessions are listed (so ``zett --continue`` finds a session killed in its first turn).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zett_tui.core.line_append import append_whole
from zett_tui.sessions.naming import LIVE_SUFFIX, live_path, partial_path
from zett_tui.sessions.reader import ReadNotices, read_last_records

log = logging.getLogger(__name__)

#: A turn zett never finished (it was killed or crashed while the turn ran).
INTERRUPTED = "interrupted"
#: Marks the answer that was still streaming when the turn ended (in its message's attributes).
PARTIAL_ATTRIBUTE = "zett_partial"
#: Larger journals are set aside unread (a real turn's are far smaller).
MAX_JOURNAL_BYTES = 256 * 1024 * 1024
_DAMAGED_SUFFIX = ".live-damaged"


def start_line(record: dict[str, Any]) -> str:
    """The journal's first line: the turn's record without its messages."""
    header = {key: value for key, value in record.items() if key != "messages"}
    return json.dumps({"live": 1, "record": header}, ensure_ascii=False, separators=(",", ":"))


def message_line(envelope: dict[str, Any]) -> str:
    return json.dumps({"message": envelope}, ensure_ascii=False, separators=(",", ":"))


def notes_line(notes: dict[str, Any]) -> str:
    """What zett adds to the turn (``metadata.zett``: decisions, the context figure) as it is now."""
    return json.dumps({"notes": notes}, ensure_ascii=False, separators=(",", ":"))


def partial_document(after: int, text: str, reasoning: str) -> str:
    return json.dumps({"after": after, "text": text, "reasoning": reasoning}, ensure_ascii=False)


def partial_envelope(text: str, reasoning: str) -> dict[str, Any]:
    """An assistant message envelope for text that was still streaming, encoded as zett-agent
    encodes the turn line's messages, and marked with :data:`PARTIAL_ATTRIBUTE`."""
    from zett_agent.messages import AssistantMessage  # only while a turn runs or is adopted: not at start
    from zett_agent.storage import encode_messages

    message = AssistantMessage(
        content=text, reasoning=reasoning or None, attributes={PARTIAL_ATTRIBUTE: True}
    )
    envelope: dict[str, Any] = json.loads(encode_messages([message]))[0]
    return envelope


def read_live_turn(session_file: Path) -> dict[str, Any] | None:
    """The unfinished turn the sidecars of ``session_file`` hold, as a turn record; None when
    there is none or its first line cannot be read. A torn or bad later line is skipped."""
    live = live_path(session_file)
    try:
        size = live.stat().st_size
        if size > MAX_JOURNAL_BYTES:
            log.warning("turn journal %s is %d bytes; not read", live, size)
            return None
        lines = live.read_bytes().splitlines()
    except OSError:
        return None
    header = _json(lines[0]) if lines else None
    record = header.get("record") if isinstance(header, dict) and header.get("live") == 1 else None
    if not isinstance(record, dict):
        return None
    messages = []
    notes: dict[str, Any] | None = None
    for raw in lines[1:]:
        item = _json(raw)
        envelope = item.get("message") if isinstance(item, dict) else None
        if isinstance(envelope, dict):
            messages.append(envelope)
        elif isinstance(item, dict) and isinstance(item.get("notes"), dict):
            notes = item["notes"]  # the last one is the whole of them
    partial = _partial(session_file, len(messages))
    if partial is not None:
        messages.append(partial)
    ended = max(_mtime(live), _mtime(partial_path(session_file)))
    if notes is not None:
        _interrupt_subagents(notes.get("subagents"))
        metadata = record.get("metadata")
        record["metadata"] = {**(metadata if isinstance(metadata, dict) else {}), "zett": notes}
    return {
        **record,
        "completed_at": datetime.fromtimestamp(ended, UTC).isoformat(),
        "status": INTERRUPTED,
        "messages": messages,
    }


def _interrupt_subagents(runs: Any, depth: int = 0) -> None:
    """The subagent runs that were still going (``running``) when zett stopped: ``interrupted``."""
    if not isinstance(runs, dict) or depth > 8:
        return
    for run in runs.values():
        if isinstance(run, dict):
            if run.get("status") == "running":
                run["status"] = INTERRUPTED
            _interrupt_subagents(run.get("subagents"), depth + 1)


def _partial(session_file: Path, messages: int) -> dict[str, Any] | None:
    try:
        document = _json(partial_path(session_file).read_bytes())
    except OSError:
        return None
    if not isinstance(document, dict) or document.get("after") != messages:
        return None  # written before the message it was part of was finished
    text, reasoning = document.get("text"), document.get("reasoning")
    text = text if isinstance(text, str) else ""
    reasoning = reasoning if isinstance(reasoning, str) else ""
    return partial_envelope(text, reasoning) if text or reasoning else None


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:  # a torn last line, or bytes that are not UTF-8
        return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def turn_key(record: dict[str, Any]) -> str | None:
    """The id zett gives each turn (``metadata.zett.turn``), shared by its journal and its line."""
    metadata = record.get("metadata")
    zett = metadata.get("zett") if isinstance(metadata, dict) else None
    key = zett.get("turn") if isinstance(zett, dict) else None
    return key if isinstance(key, str) else None


def adopt_live_turn(session_file: Path) -> bool:
    """Append the unfinished turn left beside ``session_file`` to it, then remove the sidecars.

    Call it holding the session's lock. A turn whose line is there already (zett stopped between
    writing it and removing the sidecars) is not added twice. Returns True when a turn was added.

    Raises:
        OSError: the session file could not be written (the sidecars are then kept).
    """
    live, partial = live_path(session_file), partial_path(session_file)
    if not live.exists():
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        return False
    record = read_live_turn(session_file)
    if record is None:
        log.warning("turn journal %s cannot be read; set aside", live)
        with contextlib.suppress(OSError):
            os.replace(live, live.with_name(live.name[: -len(LIVE_SUFFIX)] + _DAMAGED_SUFFIX))
            partial.unlink(missing_ok=True)
        return False
    added = False
    if record["messages"] and not _already_recorded(session_file, turn_key(record)):
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        append_whole(session_file, (line + "\n").encode("utf-8"))
        added = True
        log.info("an unfinished turn was added to %s", session_file)
    for path in (live, partial):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
    return added


def _already_recorded(session_file: Path, key: str | None) -> bool:
    if key is None or not session_file.exists():
        return False
    tail = read_last_records(session_file, 3, ReadNotices())
    return any(turn_key(record.data) == key for record in tail.records)


def journaled_bases(directory: Path) -> list[str]:
    """The base names in ``directory`` that have a turn journal (orphaned or not)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [
        name[: -len(LIVE_SUFFIX)] for name in names if name.endswith(LIVE_SUFFIX) and not name.startswith(".")
    ]
