"""zett's log file, every record redacted like the app's, for where no settings are read: ``zett
acp`` at its start, and the CLI's report of an internal error that came before the log was set up.

The redactor is built at the first record, not at start: ``zett acp`` answers ``initialize`` before
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


def ensure_redacted_log() -> None:
    """Set the log up as :func:`setup_redacted_log` does unless something already did: a record
    logged before that goes to Python's last-resort handler, which prints it, traceback and all,
    on standard error."""
    from zett_tui.core.logs import logging_is_set_up

    if not logging_is_set_up():
        setup_redacted_log()
