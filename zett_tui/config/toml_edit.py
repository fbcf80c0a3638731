"""Changing one value in a TOML text the user wrote, with ``tomlkit`` keeping everything else.

``tomlkit`` keeps comments, blank lines, quoting and key order. Three things it gets wrong for a
hand-kept file are corrected here: a new key goes after its table's last entry, not after the
comments that introduce the next ``[header]`` (tomlkit files those under the table before;
python-poetry/tomlkit#295); a key added to ``{ a = 1 }`` keeps the space before the brace; and a
file written with CRLF throughout gets CRLF on the new lines too. The result is checked with ``tomllib`` (what zett reads with): it must parse to the old
document plus this one key, or nothing is returned.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import MutableMapping
from typing import Any

from zett_tui.config.toml_keys import Key, format_key

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
        _set(edited, key, value)
        result = edited.as_string()
    except Exception:  # whatever tomlkit trips on, the answer is "set it by hand", not a traceback
        result = None
    if result is not None and crlf:
        result = _LONE_LF.sub("\r\n", result)
    if result is None or _parses_to(result) != expected:
        raise TomlEditError(f"could not change it without disturbing the file; set {format_key(key)} by hand")
    return result


def _set(document: Any, key: Key, value: str | bool | int) -> None:
    import tomlkit
    from tomlkit.container import Container
    from tomlkit.items import InlineTable, Table

    container: Any = document
    for part in key[:-1]:
        name = str(part)
        if name not in container:
            container[name] = tomlkit.table()
        container = container[name]
    leaf = str(key[-1])
    if leaf in container:
        # A value replaced in place keeps its comment and spacing, and a string its quote style
        # (tomlkit 0.15.3 does that itself, 0.15.2 wrote "..." always: one answer for both).
        container[leaf] = _in_the_style_of(container[leaf], value)
    elif isinstance(container, InlineTable):
        _add_to_inline_table(container, leaf, value)
    else:
        body = container.value if isinstance(container, Table) else container
        if isinstance(body, Container):
            _add_entry(body, leaf, value, top_level=container is document)
        else:
            container[leaf] = value


def _in_the_style_of(old: object, value: str | bool | int) -> object:
    """``value`` as a literal string (``'...'``) when it replaces one and can be written as one."""
    import tomlkit
    from tomlkit.items import String, StringType

    literal = isinstance(old, String) and old.type is StringType.SLL
    if literal and isinstance(value, str) and value.isprintable() and "'" not in value:
        return tomlkit.string(value, literal=True)
    return value


def _add_entry(body: Any, leaf: str, value: str | bool | int, *, top_level: bool) -> None:
    """A new ``leaf = value`` after the last entry of ``body``, before what belongs to what follows."""
    from tomlkit.items import AoT, Comment, Item, Table

    from zett_tui.config import tomlkit_compat

    items = body.body
    entries = [
        i for i, (name, item) in enumerate(items) if name is not None and not isinstance(item, Table | AoT)
    ]
    if entries:
        at = entries[-1] + 1
    elif not top_level:
        at = 0  # right under the table's header
    else:  # above the first table, and above the comment lines that sit directly on its header
        at = next((i for i, (_, item) in enumerate(items) if isinstance(item, Table | AoT)), len(items))
        while at > 0 and isinstance(items[at - 1][1], Comment):
            at -= 1
    if at >= len(items):
        body[leaf] = value
        return
    tomlkit_compat.insert_at(body, at, leaf, value)
    if top_level and not entries and isinstance(items[at + 1][1], Table | AoT | Comment):
        added = body.item(leaf)
        if isinstance(added, Item):
            added.trivia.trail = "\n\n"  # a blank line between the new key and the header


def _add_to_inline_table(table: Any, leaf: str, value: str | bool | int) -> None:
    """``{ a = 1 }`` becomes ``{ a = 1, b = 2 }``: the space before the brace stays at the end."""
    import tomlkit
    from tomlkit.items import Whitespace

    body = table.value.body
    closing = body[-1][1] if body and isinstance(body[-1][1], Whitespace) else None
    table[leaf] = value
    if closing is not None:
        table.value.append(None, tomlkit.ws(closing.s))


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
