"""Changing one value in a TOML text the user wrote, with ``tomlkit`` keeping everything else.

``tomlkit`` keeps comments, blank lines, quoting and key order; what it adds (a new line, a new
``[table]``) it writes with ``\\n``, so a file written with CRLF throughout gets CRLF on the new
lines too. The result is checked with ``tomllib`` (what zett reads with): it must parse to the old
document plus this one key, or nothing is returned.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import MutableMapping
from typing import Any

from zett_tui.config.schema import Key, format_key

_LONE_LF = re.compile(r"(?<!\r)\n")


class TomlEditError(ValueError):
    """The text cannot take this key; the message says why, fit to show after the file's name."""


def set_toml_value(text: str, key: Key, value: str | bool | int) -> str:
    """``text`` with ``key`` set to ``value``, every other byte kept where ``tomlkit`` can.

    Raises ``TomlEditError`` when ``text`` is not valid TOML, when a part of ``key`` is there but
    is not a table (``ui = 3``, or ``[[ui]]``), or when the edit would change anything else.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TomlEditError(f"the file is not valid TOML ({error}); fix it first") from None
    expected = _with_value(document, key, value)
    crlf = "\r\n" in text and _LONE_LF.search(text) is None
    if text and not text.endswith("\n"):
        text += "\r\n" if crlf else "\n"  # so what tomlkit appends starts on a line of its own
    import tomlkit  # imported here: only a save needs it, and zett's start does not pay for it

    try:
        edited = tomlkit.parse(text)
        table: Any = edited
        for part in key[:-1]:
            if part not in table:
                table[part] = tomlkit.table()
            table = table[part]
        table[key[-1]] = value
        result = edited.as_string()
    except Exception:  # whatever tomlkit trips on, the answer is "set it by hand", not a traceback
        result = None
    if result is not None and crlf:
        result = _LONE_LF.sub("\r\n", result)
    if result is None or _parses_to(result) != expected:
        raise TomlEditError(f"could not change it without disturbing the file; set {format_key(key)} by hand")
    return result


def _with_value(document: dict[str, Any], key: Key, value: object) -> dict[str, Any]:
    """A copy of ``document`` with ``key`` set; ``TomlEditError`` when a part of it is not a table."""
    expected = copy.deepcopy(document)
    table: Any = expected
    for depth, part in enumerate(key[:-1], start=1):
        table = table.setdefault(str(part), {})
        if not isinstance(table, MutableMapping):
            raise TomlEditError(f"{format_key(key[:depth])} is not a table (it is {_kind(table)})")
    table[str(key[-1])] = value
    return expected


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "a list of tables" if value and all(isinstance(i, dict) for i in value) else "a list"
    return {bool: "true or false", int: "a number", float: "a number", str: "a string"}.get(
        type(value), "a value"
    )


def _parses_to(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
