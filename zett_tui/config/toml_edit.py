"""Change one value in a user's TOML file and keep everything else: comments, order, blank lines.

tomlkit does the parsing and the writing. Two things it gets wrong for a hand-kept file are
handled here: a new key goes after the table's last entry, not after the comments that introduce
the next ``[header]`` (tomlkit files those under the table before; python-poetry/tomlkit#295),
and a file written with CRLF line endings keeps them for the new lines too. Whatever the edit,
the result must parse (with the standard library's ``tomllib``) to exactly the old document plus
this key, or nothing is returned.
"""

from __future__ import annotations

import copy
import re
import tomllib
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Comment, InlineTable, Item, Table, Whitespace

from zett_tui.config import tomlkit_compat
from zett_tui.config.schema import Key, format_key

__all__ = ["set_toml_value"]

_LONE_LF = re.compile(r"(?<!\r)\n")


def set_toml_value(text: str, key: Key, value: str | bool | int) -> str:
    """``text`` with ``key`` set to ``value``; raises ``ValueError`` with a reason fit for the user."""
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"the file is not valid TOML ({error}); fix it first") from None
    expected = copy.deepcopy(expected)
    table: dict[str, Any] = expected
    for depth, part in enumerate(key[:-1], start=1):
        table = table.setdefault(str(part), {})
        if not isinstance(table, dict):
            raise ValueError(f"{format_key(key[:depth])} is not a table")
    table[str(key[-1])] = value

    if text.strip() and not text.endswith("\n"):
        text += "\r\n" if "\r\n" in text else "\n"  # so a new table starts on a line of its own
    try:
        document = tomlkit.parse(text)
        _set(document, key, value)
        new_text = tomlkit.dumps(document)
    except (TOMLKitError, ValueError, TypeError, KeyError):
        raise ValueError(_by_hand(key)) from None
    if _uses_crlf(text):
        new_text = _LONE_LF.sub("\r\n", new_text)
    try:
        if tomllib.loads(new_text) == expected:
            return new_text
    except tomllib.TOMLDecodeError:
        pass
    raise ValueError(_by_hand(key))


def _by_hand(key: Key) -> str:
    return f"could not add it without disturbing the file; add {format_key(key)} by hand"


def _set(document: tomlkit.TOMLDocument, key: Key, value: str | bool | int) -> None:
    container: Any = document
    for part in key[:-1]:
        name = str(part)
        if name not in container:
            container[name] = tomlkit.table()
        container = container[name]
    leaf = str(key[-1])
    if leaf in container:
        container[leaf] = value  # a value replaced in place keeps its comment and spacing
        return
    if isinstance(container, InlineTable):
        _add_to_inline_table(container, leaf, value)
        return
    body = container.value if isinstance(container, Table) else container
    if not isinstance(body, Container):
        container[leaf] = value
        return
    _add_entry(body, leaf, value, top_level=container is document)


def _add_entry(body: Container, leaf: str, value: str | bool | int, *, top_level: bool) -> None:
    """Put a new ``leaf = value`` after the last entry of ``body``, before what belongs to what follows."""
    items = body.body
    last_entry = max(
        (index for index, (name, item) in enumerate(items) if name is not None and not _is_table(item)),
        default=None,
    )
    if last_entry is not None:
        at = last_entry + 1
    elif not top_level:
        at = 0  # right under the table's header
    else:
        at = _before_comments_of_first_table(items)
    if at >= len(items):
        body[leaf] = value
        return
    tomlkit_compat.insert_at(body, at, leaf, value)
    if top_level and last_entry is None and isinstance(items[at + 1][1], (Table, AoT, Comment)):
        added = body.item(leaf)
        if isinstance(added, Item):
            added.trivia.trail = "\n\n"  # a blank line between the new key and the header


def _add_to_inline_table(table: InlineTable, leaf: str, value: str | bool | int) -> None:
    """``{ a = 1 }`` becomes ``{ a = 1, b = 2 }``: the space before the brace stays at the end."""
    body = table.value.body
    closing = body[-1][1] if body and isinstance(body[-1][1], Whitespace) else None
    table[leaf] = value
    if closing is not None:
        table.value.append(None, tomlkit.ws(closing.s))


def _before_comments_of_first_table(items: list[tuple[Any, Any]]) -> int:
    """Index of the first table, moved up over the comment lines that sit directly on its header."""
    first_table = next((index for index, (_, item) in enumerate(items) if _is_table(item)), len(items))
    at = first_table
    while at > 0 and isinstance(items[at - 1][1], Comment):
        at -= 1
    return at


def _is_table(item: object) -> bool:
    return isinstance(item, (Table, AoT))


def _uses_crlf(text: str) -> bool:
    """True when every line break of ``text`` is CRLF (a mixed file is left as tomlkit writes it)."""
    return "\r\n" in text and _LONE_LF.search(text) is None
