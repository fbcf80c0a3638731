"""The app side of copying: run `zett_tui.terminal.clipboard.copy` off the UI thread and say what happened.

`ZettApp.copy_to_clipboard` comes here, so every copy in the app (Ctrl+C on a selection, TextArea's
cut and copy, Textual's screen selection, ``/copy``) takes the same routes and gets an honest notice.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.worker import Worker

from zett_tui.terminal import clipboard
from zett_tui.ui.textual_compat import terminal_driver


def terminal_writer(app: App[Any]) -> Callable[[str], None]:
    """Writes raw escape sequences to the app's terminal; safe from a thread (the driver queues
    whole writes for its writer thread, so a sequence never interleaves with a frame)."""

    def write(data: str) -> None:
        driver = terminal_driver(app)
        if driver is None:
            raise OSError("the app has no terminal")
        driver.write(data)

    return write


def copy_in_background(app: App[Any], text: str, label: str = "") -> Worker[clipboard.CopyResult]:
    """Copy ``text`` in a worker (tools may take up to two seconds) and notify the outcome;
    ``label`` (e.g. "Code block 2 of 3") starts the notice."""
    return app.run_worker(_copy(app, text, label), group="clipboard", exit_on_error=False)


async def _copy(app: App[Any], text: str, label: str) -> clipboard.CopyResult:
    result = await asyncio.to_thread(
        clipboard.copy, text, env=dict(os.environ), write_to_terminal=terminal_writer(app)
    )
    message = f"{label}: {result.message}" if label else result.message
    app.notify(message, severity="information" if result.ok else "warning", timeout=6 if result.ok else 10)
    return result
