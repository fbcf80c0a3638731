"""Session files damaged in every way a disk, a crash or an editor can damage one.

Used by the tests of damaged session files and by ``benchmarks/bench_damaged_resume.py``. The good
lines are real turns (recorded by the runtime, or copies of one with another prompt); between
them go damaged lines of every kind in :data:`DAMAGE`, in turn, so each kind is met many times.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

#: The prompt a template turn is recorded with; copies replace it with ``turn 000001``, ...
TEMPLATE_PROMPT = "turn 000000"


def _binary(seed: int) -> bytes:
    data = random.Random(seed).randbytes(120)
    return data.replace(b"\n", b"\x01")


#: One damaged line of each kind (each ends with its newline).
DAMAGE: dict[str, bytes] = {
    "invalid JSON": b"this is not JSON, it is what an editor left behind {\n",
    "a JSON list": b"[1, 2, 3]\n",
    "a JSON string": b'"just a string"\n',
    "an object of the wrong shape": b'{"hello": "world", "answer": 42}\n',
    "a text version": b'{"version": "1", "messages": []}\n',
    "messages that are not a list": b'{"version": 1, "messages": "none"}\n',
    "a newer format": b'{"version": 99, "messages": []}\n',
    "binary garbage": _binary(7) + b"\n",
    "invalid UTF-8": b'{"version": 1, "messages": [\xff\xfe\xfd\n',
    "NUL bytes": b"\x00" * 200 + b"\n",
    "deep nesting": b"[" * 1_000 + b"\n",
}


def truncated(line: bytes) -> bytes:
    """A turn cut in the middle by a crash (the next append started a new line)."""
    return line[: len(line) // 2] + b"\n"


def damaged_lines(good: bytes) -> Iterator[bytes]:
    """Damaged lines of every kind in turn, forever (``good``: a turn to cut short)."""
    kinds = [*DAMAGE.values(), truncated(good)]
    while True:
        yield from kinds


def numbered_turn(template: bytes, number: int) -> bytes:
    """The template turn with its prompt ``turn 000000`` replaced by ``turn <number>``."""
    marker = TEMPLATE_PROMPT.encode()
    assert marker in template, "the template turn was not recorded with TEMPLATE_PROMPT"
    return template.replace(marker, f"turn {number:06d}".encode())


def write_damaged(path: Path, good_lines: list[bytes], damaged_between: int, *, tail: bytes = b"") -> int:
    """Write ``good_lines`` with ``damaged_between`` damaged lines before each one; returns the
    number of damaged lines. ``tail`` (damaged lines, a torn last line...) is written at the end."""
    damage = damaged_lines(good_lines[0])
    count = 0
    with path.open("wb") as stream:
        for line in good_lines:
            stream.write(b"".join(next(damage) for _ in range(damaged_between)))
            count += damaged_between
            stream.write(line)
        if tail:
            stream.write(tail)
            count += tail.count(b"\n") + (not tail.endswith(b"\n"))
    return count
