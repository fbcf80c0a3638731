"""The ``<base>.meta.json`` sidecar: the title ``/rename`` gives a session.

The sidecar is rewritten atomically (0600); keys this zett does not know are kept. A missing or
damaged sidecar means "no title set": the index then uses the first prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zett_tui.core.paths import write_private_text
from zett_tui.sessions.naming import meta_path
from zett_tui.sessions.reader import ReadNotice

MAX_TITLE_CHARS = 200
_BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
#: Whitespace controls become spaces; other C0 controls, DEL and bidi overrides are removed.
_DROPPED = {
    **dict.fromkeys([*range(0x20), 0x7F, *map(ord, _BIDI_CONTROLS)]),
    **{ord(char): " " for char in "\t\n\r\x0b\x0c"},
}


def one_line(text: str, limit: int = MAX_TITLE_CHARS) -> str:
    """``text`` as one trimmed line: whitespace runs become one space; control and bidi-override
    characters (which could disguise what a terminal shows) are dropped."""
    # Only the start can end up in the result; cleaning all of a 1 MB prompt would be wasted.
    flat = " ".join(text[: limit * 4 + 64].translate(_DROPPED).split())
    if len(flat) > limit:
        return flat[: limit - 1].rstrip() + "…"
    return flat


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
        return one_line(title)
    return None


def set_title(session_file: Path, title: str | None) -> str | None:
    """Store ``title`` for the session (None or blank removes it); returns the title as stored."""
    data = read_meta(session_file)
    cleaned = one_line(title) if title else ""
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
