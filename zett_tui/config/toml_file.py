"""Reading a TOML config file for zett: bytes to a parsed document, or one reason it cannot be used.

Both the loader (``settings``) and the saver (``saving``) read through here, so a file that the
loader would ignore is one the saver refuses to rewrite, with the same words.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from zett_tui.core.contained_read import PROJECT_FILES_MAX_BYTES, NotRead, read_whole_contained

UTF8_BOM = b"\xef\xbb\xbf"


class UnusableFile(Exception):
    """The file exists but cannot be used; ``line`` (1-based) when the reason has a place."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


def read_toml(path: Path, *, inside: Path | None = None) -> tuple[str, dict[str, Any]] | None:
    """The text (without a UTF-8 BOM) and the parsed document; None when the file does not exist.

    Raises ``UnusableFile``. With ``inside`` (a project's file) it is read only as a regular file
    whose real path is in that folder, and only up to ``PROJECT_FILES_MAX_BYTES``: what the
    trust question hashed.
    """
    try:
        if inside is not None:
            try:
                raw = read_whole_contained(path, inside=inside, max_bytes=PROJECT_FILES_MAX_BYTES)
            except NotRead as why:
                raise UnusableFile(None, str(why)) from None
        else:
            raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UnusableFile(None, "is a folder, not a file") from None
    except PermissionError:
        raise UnusableFile(None, "cannot be read: permission denied") from None
    except OSError as error:
        raise UnusableFile(None, f"cannot be read: {error.strerror or error}") from None
    return parse_toml_bytes(raw)


def parse_toml_bytes(raw: bytes) -> tuple[str, dict[str, Any]]:
    """``raw`` decoded (a leading UTF-8 BOM dropped) and parsed by ``tomllib``; else ``UnusableFile``."""
    raw = raw.removeprefix(UTF8_BOM)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - raw.rfind(b"\n", 0, error.start)
        message = f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column {column}); save it as UTF-8"
        raise UnusableFile(line, message) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UnusableFile(*_decode_error_position(str(error), text)) from None


_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_AT_END = re.compile(r"\s*\(at end of document\)$")


def _decode_error_position(message: str, text: str) -> tuple[int | None, str]:
    """Line and reason from ``tomllib``'s "Invalid value (at line 3, column 9)"."""
    found = _POSITION.search(message)
    if found:
        return int(found.group(1)), f"not valid TOML: {message[: found.start()]} (column {found.group(2)})"
    found = _AT_END.search(message)
    if found:
        last_line = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
        return last_line, f"not valid TOML: {message[: found.start()]} (at the end of the file)"
    return None, f"not valid TOML: {message}"
