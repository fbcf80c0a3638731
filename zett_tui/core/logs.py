"""The log file under the state directory: private, bounded, and never a place for secrets.

Tracebacks go here instead of the screen. Every record passes through the same redaction as
the transcripts before it is written.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
from collections.abc import Callable
from pathlib import Path

from zett_tui.core import paths

MAX_BYTES = 2_000_000
BACKUPS = 2


class _RedactingFormatter(logging.Formatter):
    def __init__(self, redact: Callable[[str], str]) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self._redact = redact

    def format(self, record: logging.LogRecord) -> str:
        return self._redact(super().format(record))


class _PrivateRotatingHandler(logging.handlers.RotatingFileHandler):
    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, paths.PRIVATE_FILE_MODE)
        os.fchmod(fd, paths.PRIVATE_FILE_MODE)
        return os.fdopen(fd, "a", encoding=self.encoding or "utf-8", errors="replace")

    def handleError(self, record: logging.LogRecord) -> None:
        """A record that cannot be written (the state folder removed, the disk full) is dropped.

        ``logging``'s default prints "--- Logging error ---" and a traceback on stderr, which is
        the user's terminal: under the app it tears the screen, and under ``zett -p`` or
        ``zett acp`` it mixes into what the user or the editor reads."""


#: The handler the last ``setup_logging`` installed: the next call replaces it.
_installed: list[logging.Handler] = []


def logging_is_set_up() -> bool:
    """True once :func:`setup_logging` has installed its handler."""
    return bool(_installed)


def setup_logging(
    redact: Callable[[str], str], *, level: int = logging.INFO, path: Path | None = None
) -> Path:
    """Send zett's logs to the private log file. Returns its path; never raises.

    A second call replaces the first one's handler (``zett acp`` sets the log up at start and
    each session's settings again, with their redaction): each record is written once."""
    target = path or paths.log_file()
    root = logging.getLogger()
    try:
        paths.ensure_private_dir(target.parent)
        handler: logging.Handler = _PrivateRotatingHandler(
            target, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(_RedactingFormatter(redact))
    while _installed:
        old = _installed.pop()
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    _installed.append(handler)
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "openai", "anthropic", "asyncio", "markdown_it"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return target
