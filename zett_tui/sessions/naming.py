"""Session id ↔ file name, exactly as zett-agent's ``JSONLExtension.session_path`` names files.

A session file is ``urlsafe_b64encode(session_id).rstrip("=") + ".jsonl"``; its sidecars share the
base name: ``<base>.meta.json`` (title set by ``/rename``), ``<base>.lock`` (held by the zett
process that writes the session) and, while a turn runs, ``<base>.live`` and ``<base>.partial``
(the turn so far, ``sessions.live_turn``). Ids and file names that could reach outside the sessions
folder, or that the file system cannot hold, are refused with a clear error.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

SESSION_SUFFIX = ".jsonl"
META_SUFFIX = ".meta.json"
LOCK_SUFFIX = ".lock"
#: The turn in progress (``sessions.live_turn``): its messages so far, and the text streaming now.
LIVE_SUFFIX = ".live"
PARTIAL_SUFFIX = ".partial"

# The longest sidecar suffix plus the encoded id must fit in one 255-byte file name:
# 180 bytes encode to 240 characters, and 240 + len(".meta.json") = 250.
MAX_SESSION_ID_BYTES = 180

_ENCODED_NAME = re.compile(r"[A-Za-z0-9_-]+")
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


class InvalidSessionId(ValueError):
    """A session id or session file name that zett refuses to use."""


def validate_session_id(session_id: str) -> str:
    """Return ``session_id`` unchanged, or raise :class:`InvalidSessionId` saying why it is refused.

    The encoded file name could never escape the folder, but an id with a path separator, a
    ``..`` part, a NUL or another control character is almost certainly a mistake or an attack
    (a path typed where an id was expected), so it is refused before it reaches any file name.
    """
    if not isinstance(session_id, str) or not session_id:
        raise InvalidSessionId("a session id cannot be empty")
    if session_id != session_id.strip():
        raise InvalidSessionId(f"session id {session_id!r} has leading or trailing spaces")
    if _CONTROL_CHARS.search(session_id):
        raise InvalidSessionId(f"session id {session_id!r} contains a control character")
    if "/" in session_id or "\\" in session_id:
        raise InvalidSessionId(f"session id {session_id!r} contains a path separator")
    if session_id in {".", ".."}:
        raise InvalidSessionId(f"session id {session_id!r} looks like a relative path")
    try:
        encoded_length = len(session_id.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise InvalidSessionId(f"session id {session_id!r} is not valid Unicode") from error
    if encoded_length > MAX_SESSION_ID_BYTES:
        raise InvalidSessionId(f"session id is {encoded_length} bytes long; at most {MAX_SESSION_ID_BYTES}")
    return session_id


def encode_session_id(session_id: str) -> str:
    """The base name (without suffix) that zett-agent uses for ``session_id``."""
    validate_session_id(session_id)
    return base64.urlsafe_b64encode(session_id.encode("utf-8")).decode("ascii").rstrip("=")


def session_file_name(session_id: str) -> str:
    return encode_session_id(session_id) + SESSION_SUFFIX


def session_path(directory: Path, session_id: str) -> Path:
    """Where the JSONL file of ``session_id`` lives in ``directory`` (nothing is created)."""
    return directory / session_file_name(session_id)


def decode_base_name(base: str) -> str:
    """The session id encoded in a base name, or :class:`InvalidSessionId`.

    Only names that zett-agent itself could have produced are accepted: the URL-safe Base64
    alphabet, no padding, and an id that encodes back to exactly the same name.
    """
    if not base or not _ENCODED_NAME.fullmatch(base):
        raise InvalidSessionId(f"{base!r} is not a Base64 session file name")
    try:
        raw = base64.urlsafe_b64decode(base + "=" * (-len(base) % 4))
        session_id = raw.decode("utf-8")
    except (binascii.Error, ValueError) as error:
        raise InvalidSessionId(f"{base!r} does not decode to a session id") from error
    validate_session_id(session_id)
    if encode_session_id(session_id) != base:
        raise InvalidSessionId(f"{base!r} is not the canonical name of a session id")
    return session_id


def session_id_from_file_name(name: str) -> str:
    """The session id of a ``<base>.jsonl`` file name (a bare name, never a path)."""
    if "/" in name or "\\" in name or "\x00" in name or name.startswith("."):
        raise InvalidSessionId(f"{name!r} is not a bare session file name")
    if not name.endswith(SESSION_SUFFIX):
        raise InvalidSessionId(f"{name!r} does not end with {SESSION_SUFFIX}")
    return decode_base_name(name[: -len(SESSION_SUFFIX)])


def base_of(path: Path) -> str:
    """``<base>`` of ``<base>.jsonl`` (or of the name as is, for other files)."""
    name = path.name
    return name[: -len(SESSION_SUFFIX)] if name.endswith(SESSION_SUFFIX) else name


def meta_path(session_file: Path) -> Path:
    """The ``/rename`` sidecar of a session file."""
    return session_file.with_name(base_of(session_file) + META_SUFFIX)


def lock_path(session_file: Path) -> Path:
    """The lock file of a session file."""
    return session_file.with_name(base_of(session_file) + LOCK_SUFFIX)


def live_path(session_file: Path) -> Path:
    """The journal of the turn in progress: its header and every message finished so far."""
    return session_file.with_name(base_of(session_file) + LIVE_SUFFIX)


def partial_path(session_file: Path) -> Path:
    """The text the model is streaming now (rewritten whole, at most once a second)."""
    return session_file.with_name(base_of(session_file) + PARTIAL_SUFFIX)
