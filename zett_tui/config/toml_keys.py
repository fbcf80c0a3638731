"""How a setting's place in the TOML tree is named and written: the key path, and TOML's spelling of it.

At the bottom of ``config``: the schema, the layers, the MCP servers' checks and the editing of
a file all name keys, and none of them needs the others for it.
"""

from __future__ import annotations

import re

Key = tuple[str | int, ...]
"""A setting's place in the TOML tree, e.g. ``("endpoints", "local", "base_url")``; ints index arrays."""


BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
"""A TOML key that needs no quotes."""


def format_key(key: Key) -> str:
    """``endpoints.local.base_url``; array items as ``[1]``; keys that need it are quoted."""
    text = ""
    for part in key:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            piece = part if BARE_KEY.fullmatch(part) else toml_string(part)
            text += f".{piece}" if text else piece
    return text


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string, escaped."""
    named = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
    escaped = (
        named.get(char) or (f"\\u{ord(char):04x}" if ord(char) < 0x20 or ord(char) == 0x7F else char)
        for char in text
    )
    return '"' + "".join(escaped) + '"'
