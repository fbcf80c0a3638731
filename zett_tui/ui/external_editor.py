"""Ctrl+G: the prompt goes to ``$VISUAL`` or ``$EDITOR`` in a private temporary file, and what was
saved comes back. The terminal is handed over with ``App.suspend()``; tests pass another runner."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from zett_tui.core.outside_programs import find_program

#: Runs the editor command (the file name is its last word) and returns its exit code.
EditorRunner = Callable[[list[str]], int]

FALLBACK_EDITOR = "vi"


@dataclass(frozen=True)
class EditOutcome:
    """The saved text, or (with ``text`` None) one sentence saying why the prompt is unchanged."""

    text: str | None
    problem: str = ""


def editor_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, else ``vi``, split as a shell would (``code --wait`` works)."""
    environ = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            if words:
                return words
    return [FALLBACK_EDITOR]


def edit_text(text: str, run: EditorRunner, environ: Mapping[str, str] | None = None) -> EditOutcome:
    """Write ``text`` to a new 0600 file, run the editor on it, and read back what was saved."""
    command = editor_command(environ)
    program = find_program(command[0])  # never one a sandboxed command left in the project
    if program is None:
        return EditOutcome(
            None,
            f"The editor {command[0]!r} was not found outside the folders sandboxed commands can "
            "write. Set $VISUAL or $EDITOR to an editor (for example: export EDITOR=nano).",
        )
    command = [program, *command[1:]]
    descriptor, name = tempfile.mkstemp(prefix="zett-prompt-", suffix=".md")  # mode 0600
    path = Path(name)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        try:
            code = run([*command, name])
        except SuspendNotSupported:
            return EditOutcome(None, "This terminal cannot be handed to an editor; the prompt is unchanged.")
        except OSError as error:
            return EditOutcome(None, f"The editor {command[0]!r} could not start: {error.strerror or error}")
        if code != 0:
            return EditOutcome(None, f"The editor exited with code {code}; the prompt is unchanged.")
        try:
            saved = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            return EditOutcome(None, f"The edited prompt could not be read back: {error.strerror or error}")
    finally:
        path.unlink(missing_ok=True)
    saved = saved.replace("\r\n", "\n")
    if saved.endswith("\n") and not text.endswith("\n"):
        saved = saved[:-1]  # most editors end the file with a newline the prompt did not have
    return EditOutcome(saved)


def run_suspended(app: App[Any], command: list[str]) -> int:
    """Run ``command`` in the real terminal while the app is suspended (blocks until it exits).

    The event loop waits meanwhile: a running turn resumes when the editor closes, so nothing
    draws over the editor."""
    with app.suspend():
        return subprocess.call(command)
