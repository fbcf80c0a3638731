"""Earlier prompts, kept across sessions so Up recalls them (a 0600 JSON-lines file, redacted).

Reading takes only the end of the file, so a long history never slows the start; a damaged line
is skipped. Both functions block: the composer calls them in thread workers.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from zett_tui.core import paths

#: How many prompts Up can reach.
KEPT_PROMPTS = 500
_TAIL_BYTES = 512 * 1024


def load_prompts(path: Path, limit: int = KEPT_PROMPTS) -> list[str]:
    """The last ``limit`` prompts, oldest first; [] when there is no file or it cannot be read."""
    try:
        with path.open("rb") as stream:
            size = stream.seek(0, os.SEEK_END)
            stream.seek(max(0, size - _TAIL_BYTES))
            tail = stream.read()
    except OSError:
        return []
    lines = tail.splitlines()
    if len(tail) >= _TAIL_BYTES and lines:
        lines = lines[1:]  # the first line may be cut in half
    prompts: list[str] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(entry, dict) and isinstance(entry.get("prompt"), str):
            prompts.append(entry["prompt"])
    return prompts[-limit:]


def append_prompt(path: Path, prompt: str, redact: Callable[[str], str] | None = None) -> None:
    """Add one prompt; never raises (a history that cannot be written is not worth a warning)."""
    line = json.dumps({"prompt": prompt}, ensure_ascii=False)
    if redact is not None:
        line = redact(line)
    try:
        fd = paths.open_private_append(path)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        return
