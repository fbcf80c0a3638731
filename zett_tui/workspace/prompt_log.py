"""Earlier prompts, kept across sessions so Up recalls them (a 0600 JSON-lines file, redacted).

Reading takes only the end of the file, so a long history never slows the start; a damaged line
is skipped. A prompt that cannot be written (a full or read-only disk) waits in memory and is
written before the next one, or by :func:`flush_prompts` (``runtime.storage_retry`` calls it).
The functions block: the composer calls them in thread workers.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

from zett_tui.core.line_append import append_whole

#: How many prompts Up can reach.
KEPT_PROMPTS = 500
_TAIL_BYTES = 512 * 1024
_waiting: list[tuple[Path, bytes]] = []
_waiting_lock = threading.Lock()


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
    """Add one prompt; never raises (one that cannot be written waits for :func:`flush_prompts`)."""
    line = json.dumps({"prompt": prompt}, ensure_ascii=False)
    if redact is not None:
        line = redact(line)
    with _waiting_lock:
        _waiting.append((path, (line + "\n").encode("utf-8")))
        del _waiting[:-KEPT_PROMPTS]
        _write_waiting()


def flush_prompts() -> bool:
    """Write the prompts that wait, in order; True when none is left."""
    with _waiting_lock:
        return _write_waiting()


def _write_waiting() -> bool:
    while _waiting:
        path, data = _waiting[0]
        try:
            append_whole(path, data)
        except OSError:
            return False
        _waiting.pop(0)
    return True
