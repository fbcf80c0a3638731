"""The ``<base>.meta.json`` sidecar: the title ``/rename`` gives a session.

The sidecar is rewritten atomically (0600); keys this zett does not know are kept. A missing or
damaged sidecar means "no title set": the index then uses the first prompt. Titles and the prompts
the index shows are redacted (:func:`title_line`) like everything else zett writes.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from zett_tui.core.inert_text import MAX_TITLE_CHARS, one_line
from zett_tui.core.paths import write_private_text
from zett_tui.core.redact import Redactor, redactor_from_environment
from zett_tui.sessions.naming import meta_path
from zett_tui.sessions.reader import ReadNotice

#: How far past the part of a text a title can show its redaction looks, so a key is not cut in two.
_WORD_TAIL = re.compile(r"\S{0,4096}")


def _title_redactor() -> Redactor:
    """The built-in rules plus this process's keys and secret-named variables."""
    return redactor_from_environment(os.environ)


def title_line(text: str, limit: int = MAX_TITLE_CHARS) -> str:
    """:func:`one_line` of ``text`` with its secrets replaced first: for titles and prompts that
    the session index shows and caches."""
    window = limit * 4 + 64
    head = text[:window]
    if len(text) > window:
        tail = _WORD_TAIL.match(text, window)
        head += tail.group(0) if tail else ""
    return one_line(_title_redactor()(head), limit)


def read_meta(session_file: Path, notices: list[ReadNotice] | None = None) -> dict[str, Any]:
    """The sidecar's contents, or ``{}`` when there is none or it cannot be read (reported)."""
    path = meta_path(session_file)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        if notices is not None:
            notices.append(ReadNotice(path, 0, f"session title file unreadable ({error}); ignored"))
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        if notices is not None:
            notices.append(ReadNotice(path, 0, "session title file is not a JSON object; ignored"))
        return {}
    return data


def read_title(session_file: Path, notices: list[ReadNotice] | None = None) -> str | None:
    title = read_meta(session_file, notices).get("title")
    if isinstance(title, str) and one_line(title):
        return title_line(title)
    return None


def mark_fork(session_file: Path, parent: str, title: str) -> None:
    """The fork's title says what it is a fork of (``sessions list`` showed two identical titles),
    and ``forked_from`` names the original, for the chat's first line."""
    data = read_meta(session_file)
    data["title"] = title_line(f"{title} (fork of {parent[:8]})")
    data["forked_from"] = parent
    write_private_text(meta_path(session_file), json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def forked_from(session_file: Path) -> str | None:
    """The session this one was forked from (``mark_fork``), or None."""
    parent = read_meta(session_file).get("forked_from")
    return parent if isinstance(parent, str) and parent else None


def set_title(session_file: Path, title: str | None) -> str | None:
    """Store ``title`` for the session (None or blank removes it); returns the title as stored."""
    data = read_meta(session_file)
    cleaned = title_line(title) if title else ""
    if cleaned:
        data["title"] = cleaned
    else:
        data.pop("title", None)
    path = meta_path(session_file)
    if data:
        write_private_text(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        path.unlink(missing_ok=True)
    return cleaned or None
