"""``zett acp``'s log: zett's log file, every record redacted like the app's.

The redactor is built at the first record, not at start: ``initialize`` is answered before
``core.redact`` (and what it imports) is loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["log_redaction", "setup_redacted_log"]


def log_redaction() -> Callable[[str], str]:
    """The log's redaction: known secret formats, the provider keys and the secret-named
    variables of this process."""
    built: list[Callable[[str], str]] = []

    def redact(text: str) -> str:
        if not built:
            from zett_tui.core.redact import redactor_from_environment

            built.append(redactor_from_environment(os.environ))
        return built[0](text)

    return redact


def setup_redacted_log() -> Path:
    """Send this process's logs to zett's log file, redacted; its path."""
    from zett_tui.core.logs import setup_logging

    return setup_logging(log_redaction())
