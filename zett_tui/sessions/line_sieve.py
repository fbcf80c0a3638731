"""Which lines of a stretch of a session file could be turn records, found a block at a time.

A damaged file can hold millions of lines that are not turns. Looking at each one in Python
costs microseconds a line; :func:`sieve` hands back only the lines that might be records and
counts the rest in runs, with the work done by ``re`` and ``bytes`` methods over the whole
stretch. A record this zett reads is a JSON object with ``"version": 1`` and a ``"messages"``
list: its line holds those two keys with such values and ends with ``}`` (JSON white space may
follow). A line without them is damaged for sure (or blank): the reader would skip it. The test
is only a first cut: what it passes is parsed as before. Use it only where the reasons for
skipping are not wanted, since it does not give them.

One exception is accepted: a record whose keys are written with escapes (``"\\u0076ersion"``) is
valid JSON that no JSON writer produces; the sieve counts it as damaged.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

_SPACE = rb"[ \t\r\n]*"
_MESSAGES_LIST = re.compile(rb'"messages"' + _SPACE + rb":" + _SPACE + rb"\[")
#: A blank line after a newline (the match is that newline), and a blank first line.
_BLANK_AFTER = re.compile(rb"\n(?=[ \t\r]*\n)")
_BLANK_FIRST = re.compile(rb"[ \t\r]*\n")


@functools.cache
def _version_to_end(supported: int) -> re.Pattern[bytes]:
    """A readable ``"version"`` key and value, and the rest of its line if that ends with ``}`` or
    white space (taken whole, never backtracked over: a long line that does not is dropped at once)."""
    values = b"|".join(str(version).encode() for version in range(1, supported + 1))
    key = rb'"version"' + _SPACE + rb":" + _SPACE + rb"(?:" + values + rb")(?=[,} \t\r\n])"
    return re.compile(key + rb"[^\n]*+(?<=[} \t\r])\n")


class Run(NamedTuple):
    """Consecutive lines that cannot be records: ``lines`` physical lines from ``offset``, of which
    ``damaged`` are not blank."""

    offset: int
    lines: int
    damaged: int


class Candidate(NamedTuple):
    """A line that might be a record, without its newline."""

    offset: int
    content: bytes


def _run(region: bytes, start: int, end: int, base: int) -> Run:
    stretch = region[start:end]
    lines = stretch.count(b"\n")
    blank = len(_BLANK_AFTER.findall(stretch)) + (_BLANK_FIRST.match(stretch) is not None)
    return Run(base + start, lines, lines - blank)


def sieve(region: bytes, base: int, supported_version: int) -> list[Run | Candidate]:
    """The lines of ``region`` (whole lines, each ending with its newline; ``base`` is its offset in
    the file) in file order: each line that might be a record of a format version up to
    ``supported_version`` as a :class:`Candidate`, the lines between them as :class:`Run` s."""
    found: list[Run | Candidate] = []
    done = 0  # where the lines not handed back yet start
    for match in _version_to_end(supported_version).finditer(region):
        position, end = match.start(), match.end() - 1  # a match runs to its line's newline
        start = region.rfind(b"\n", 0, position) + 1
        line = region[start:end]
        if line[-1:] != b"}" and not line.rstrip(b" \t\r").endswith(b"}"):
            continue
        if _MESSAGES_LIST.search(line) is None:
            continue
        if start > done:
            found.append(_run(region, done, start, base))
        found.append(Candidate(base + start, line))
        done = end + 1
    if done < len(region):
        found.append(_run(region, done, len(region), base))
    return found
