"""The simple front matter of Markdown command and skill files: ``key: value`` lines between ``---``.

Claude Code's files use a small part of YAML: one ``key: value`` per line, a value in optional
quotes, and (in skills) a folded ``description: >`` or ``|`` block. That part is read here; a
line that is none of these is an error the caller reports with the file's name, rather than a
guess at what the author meant. Unknown keys are kept (``allowed-tools`` and the like), and a
key whose value is a YAML list is kept as its raw text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$")


class FrontMatterError(ValueError):
    """The front matter is not ``key: value`` lines; ``str()`` says which line and why."""


@dataclass(frozen=True)
class Document:
    fields: dict[str, str]
    body: str


def split_front_matter(text: str) -> Document:
    """The fields and the body of ``text``; no front matter (no ``---`` first line) is no fields."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return Document({}, text)
    for end, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return Document(_fields(lines[1:end]), "\n".join(lines[end + 1 :]).lstrip("\n"))
    raise FrontMatterError("its front matter has no closing ---")


def _fields(lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line)
        if match is None:
            raise FrontMatterError(
                f"front matter line {index + 1} is not 'key: value': {line.strip()[:60]!r}"
            )
        key, value = match.group(1), match.group(2).strip()
        if value in ("|", ">", "|-", ">-", ""):
            block: list[str] = []
            while index < len(lines) and (not lines[index].strip() or lines[index][:1].isspace()):
                block.append(lines[index].strip())
                index += 1
            joiner = "\n" if value.startswith("|") else " "
            value = joiner.join(part for part in block if part) if value else " ".join(block).strip()
        fields[key] = _unquoted(value)
    return fields


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
