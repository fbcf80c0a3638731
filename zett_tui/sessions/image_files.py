"""Images of a session, stored once each by content hash beside the session files, not in its lines.

A session line holds an image as zett-agent encodes it, ``{"data": {"__kcs_bytes__": BASE64},
"media_type": "image/png"}``: hundreds of kilobytes of base64 in one JSON line, repeated in every
copy. Before a line is written (``externalized_line``) each such source becomes
``{"__zett_image__": "<sha256>.png", "media_type": "image/png"}`` and the bytes go to
``images/<sha256>.png`` in the sessions folder (0600, written once: the same screenshot in ten
sessions is one file). Lines stay small and greppable; a fork's copied lines name the same files.

Readers that want the bytes (an export putting the images beside its Markdown) look them up with
``image_path``; a name that is not a plain hash file name is never opened.

The model history (``runtime.history_images``) names the same files: there an image's bytes are a
short reference (``reference_bytes``), since zett-agent's storage only takes real messages.
Deleting a session deletes the images no remaining session names (``sessions.image_cleanup``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from zett_tui.core import paths

log = logging.getLogger(__name__)

__all__ = [
    "IMAGE_KEY",
    "as_references",
    "externalized_line",
    "image_names",
    "image_path",
    "images_folder",
    "images_in",
    "reference_bytes",
    "referenced_name",
    "store_image",
]

IMAGE_KEY = "__zett_image__"
_BYTES_KEY = "__kcs_bytes__"
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_NAME = re.compile(r"[0-9a-f]{64}\.(png|jpg|gif|webp|img)")
#: What an image's bytes are in the model history: this, then the stored file's name.
_REFERENCE = b"\x00zett-image:"


def images_folder(session_file: Path) -> Path:
    """Where the images of the sessions in ``session_file``'s folder are kept."""
    return images_in(session_file.parent)


def images_in(sessions_dir: Path) -> Path:
    """Where the images of the sessions in ``sessions_dir`` are kept."""
    return sessions_dir / "images"


def image_path(folder: Path, name: object) -> Path | None:
    """The file of a stored image ``name`` in ``folder``, or None for a name that is not one."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return None
    return folder / name


def externalized_line(line: str, folder: Path) -> str:
    """``line`` (one JSON line) with every encoded image stored in ``folder`` and named instead.
    A line without images, or one that is not JSON, is returned as it is."""
    if _BYTES_KEY not in line:
        return line
    try:
        data = json.loads(line)
    except ValueError:
        return line
    changed = _externalize(data, folder)
    if changed is data:
        return line
    return json.dumps(changed, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _externalize(value: Any, folder: Path) -> Any:
    if isinstance(value, list):
        items = [_externalize(item, folder) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if not isinstance(value, dict):
        return value
    stored = _stored(value, folder)
    if stored is not None:
        return stored
    fields = {key: _externalize(item, folder) for key, item in value.items()}
    return value if all(fields[key] is value[key] for key in value) else fields


def _stored(value: dict[str, Any], folder: Path) -> dict[str, Any] | None:
    """``{"data": {"__kcs_bytes__": ...}, "media_type": "image/..."}`` written to ``folder``."""
    media_type, encoded = value.get("media_type"), value.get("data")
    if set(value) != {"data", "media_type"} or not isinstance(media_type, str):
        return None
    if not media_type.startswith("image/") or not isinstance(encoded, dict) or set(encoded) != {_BYTES_KEY}:
        return None
    try:
        raw = base64.b64decode(encoded[_BYTES_KEY], validate=True)
    except (binascii.Error, TypeError, ValueError):
        return None
    name = referenced_name(raw) or store_image(folder, raw, media_type)
    return {IMAGE_KEY: name, "media_type": media_type}


def as_references(value: Any) -> Any:
    """Decoded line data with each stored image (``{"__zett_image__": name, ...}``) as the source
    the runtime decodes: bytes that are a ``reference_bytes`` (the history then loads the file)."""
    if isinstance(value, list):
        return [as_references(item) for item in value]
    if not isinstance(value, dict):
        return value
    name, media_type = value.get(IMAGE_KEY), value.get("media_type")
    if set(value) == {IMAGE_KEY, "media_type"} and isinstance(name, str) and isinstance(media_type, str):
        encoded = base64.b64encode(reference_bytes(name)).decode("ascii")
        return {"data": {_BYTES_KEY: encoded}, "media_type": media_type}
    return {key: as_references(item) for key, item in value.items()}


def store_image(folder: Path, raw: bytes, media_type: str) -> str:
    """Keep ``raw`` in ``folder`` under its content hash (0600, written once); its file name."""
    name = f"{hashlib.sha256(raw).hexdigest()}.{_EXTENSIONS.get(media_type, 'img')}"
    target = folder / name
    try:
        os.utime(target)  # in use again: a session deleted meanwhile leaves it (``image_cleanup``)
    except FileNotFoundError:
        paths.ensure_private_dir(folder)
        temporary = folder / f".{name}.{os.getpid()}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, raw)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError:  # there, but its time cannot be set (a read-only folder): it is still used
        log.debug("stored image %s not touched", name)
    return name


def reference_bytes(name: str) -> bytes:
    """What stands for the stored image ``name`` where image bytes are expected (the history)."""
    return _REFERENCE + name.encode("ascii")


def referenced_name(data: bytes) -> str | None:
    """The stored image a ``reference_bytes`` value names; None for anything else (real bytes)."""
    if not data.startswith(_REFERENCE) or len(data) > len(_REFERENCE) + 80:
        return None
    name = data[len(_REFERENCE) :].decode("ascii", "replace")
    return name if _NAME.fullmatch(name) else None


def image_names(content: object) -> list[str]:
    """The stored image names in a message's ``content`` (a list of parts), in order."""
    names: list[str] = []
    if isinstance(content, list):
        for part in content:
            source = part.get("source") if isinstance(part, dict) else None
            name = source.get(IMAGE_KEY) if isinstance(source, dict) else None
            if isinstance(name, str):
                names.append(name)
    return names
