"""Copying text to the user's clipboard from a terminal app, wherever the terminal is.

Textual's ``App.copy_to_clipboard`` writes one OSC 52 escape sequence and nothing else: inside tmux
or GNU screen it never reaches the terminal, a large text is dropped silently, and the app still says
"copied". :func:`copy` tries every route that can work and reports what it actually knows:

1. **tmux** (``$TMUX`` set): ``tmux load-buffer -w -`` puts the text in tmux's paste buffer
   (``prefix ]`` pastes it; we know it arrived) and tmux itself forwards it to the terminal's
   clipboard with OSC 52. That forwarding works with tmux's default ``set-clipboard external`` (it
   only refuses OSC 52 sent *by applications*), so no tmux.conf change is needed. ``-w`` needs tmux
   3.2; older ones get the buffer without it.
2. **A local clipboard tool**, only when zett runs on the machine in front of the user (no
   ``SSH_CONNECTION``/``SSH_TTY``/``SSH_CLIENT``) with a display: ``wl-copy`` on Wayland,
   ``xclip``/``xsel`` on X11, ``pbcopy`` on macOS. Its exit status tells us it worked.
3. **OSC 52**, always (it is what crosses SSH), unless it is too large. The form depends on what
   sits between zett and the terminal:

   - tmux: wrapped in tmux's DCS passthrough (``ESC P tmux; … ESC \\`` with every ESC inside doubled),
     which reaches the terminal when ``set -g allow-passthrough on``. When the ``tmux`` command did
     not work we also send the plain sequence, which tmux takes when ``set -g set-clipboard on``.
   - GNU screen: split into DCS strings of at most 768 bytes (screen's limit since 4.2.1).
   - otherwise plain, terminated by BEL (accepted everywhere OSC 52 is, and safe inside a DCS).

   Whether the terminal honours OSC 52 cannot be known (it never answers), so the message says
   "sent", never "copied", and says how to enable it.
4. **A file** when the text is too large for the terminal and nothing else took it: saved 0600 under
   zett's data folder, and the message names it.

Nothing here imports Textual. :func:`copy` may wait up to :data:`TOOL_TIMEOUT_SECONDS` per tool, so
call it off the UI thread.
"""

from __future__ import annotations

import base64
import logging
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_tui.core import paths
from zett_tui.core.outside_programs import find_program
from zett_tui.terminal.passthrough import SCREEN_DCS_MAX_BYTES, screen_chunks, tmux_passthrough

log = logging.getLogger(__name__)

__all__ = [
    "OSC52_MAX_BYTES",
    "SCREEN_DCS_MAX_BYTES",
    "TOOL_TIMEOUT_SECONDS",
    "CopyResult",
    "copy",
    "fallback_file",
    "local_tool",
    "osc52",
    "over_ssh",
    "run_tool",
    "terminal_sequences",
]

OSC52_MAX_BYTES = 100_000
"""The longest OSC 52 sequence we send (about 73 KB of text). Terminals cap it differently and drop
longer ones without a word; 100,000 bytes is the cap the common OSC 52 helpers use (hterm's
osc52.sh, vim-oscyank), which the terminals people use with them accept."""

TOOL_TIMEOUT_SECONDS = 2.0
"""How long a clipboard tool (xclip, tmux …) may take before it counts as failed."""

_SSH_VARIABLES = ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT")
_ESC = "\x1b"

Runner = Callable[[Sequence[str], bytes], bool]
"""Runs a command with the bytes on its stdin; True when it exited with status 0."""


@dataclass(frozen=True)
class CopyResult:
    """What happened to one copy.

    ``method`` is the route that decided the message: a tool name (``wl-copy``, ``xclip``, ``xsel``,
    ``pbcopy``), ``tmux-buffer``, ``osc52``/``osc52-tmux``/``osc52-screen``, ``file`` or ``none``.
    ``ok`` is True when the text was handed to a clipboard; ``confirmed`` only when we know it
    arrived (a tool said so). OSC 52 alone is ``ok`` but not ``confirmed``.
    """

    method: str
    ok: bool
    message: str
    confirmed: bool = False
    saved_to: Path | None = None


def over_ssh(env: Mapping[str, str]) -> bool:
    return any(env.get(name) for name in _SSH_VARIABLES)


def local_tool(env: Mapping[str, str], platform: str, which: Callable[[str], str | None]) -> list[str] | None:
    """The command that sets this machine's clipboard, or None (over SSH, no display, no tool)."""
    if over_ssh(env):
        return None
    candidates: list[list[str]] = []
    if platform == "darwin":
        candidates.append(["pbcopy"])
    if env.get("WAYLAND_DISPLAY"):
        candidates.append(["wl-copy"])
    if env.get("DISPLAY"):
        candidates += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    for command in candidates:
        found = which(command[0])
        if found:
            return [found, *command[1:]]
    return None


def osc52(data: bytes) -> str:
    """The plain OSC 52 "set the clipboard" sequence for ``data``."""
    return f"{_ESC}]52;c;{base64.b64encode(data).decode('ascii')}\a"


def terminal_sequences(data: bytes, env: Mapping[str, str], *, plain_too: bool = True) -> list[str]:
    """What to write to the terminal for ``data``: the OSC 52 sequence in the form(s) that get
    through whatever multiplexer zett runs in. ``plain_too`` (tmux only): also send it unwrapped."""
    sequence = osc52(data)
    if env.get("TMUX"):
        wrapped = [tmux_passthrough(sequence)]
        return [*wrapped, sequence] if plain_too else wrapped
    if env.get("STY"):
        return screen_chunks(sequence)
    return [sequence]


def run_tool(command: Sequence[str], data: bytes) -> bool:
    """Run a clipboard tool with ``data`` on stdin.

    Its stdout and stderr go to /dev/null, not to pipes: xclip and wl-copy fork a child that keeps
    serving the selection, and a pipe held open by that child would block us until the timeout.
    """
    try:
        completed = subprocess.run(
            list(command),
            input=data,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=TOOL_TIMEOUT_SECONDS,
            check=False,
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError) as error:
        log.info("clipboard tool %s failed: %s", command[0], error)
        return False
    if completed.returncode != 0:
        log.info("clipboard tool %s exited with %s", command[0], completed.returncode)
    return completed.returncode == 0


def fallback_file() -> Path:
    """Where a copy too large for the terminal is saved (replaced by the next one)."""
    return paths.data_dir() / "last-copy.txt"


def _copy_to_tmux(data: bytes, which: Callable[[str], str | None], runner: Runner) -> bool:
    tmux = which("tmux")
    if not tmux:
        return False
    return runner([tmux, "load-buffer", "-w", "-"], data) or runner([tmux, "load-buffer", "-"], data)


def _sent_message(env: Mapping[str, str]) -> tuple[str, str]:
    if env.get("TMUX"):
        return "osc52-tmux", (
            "Sent to the terminal clipboard through tmux; if nothing arrives, add "
            "`set -g set-clipboard on` to tmux.conf and allow OSC 52 in your terminal."
        )
    if env.get("STY"):
        return "osc52-screen", (
            "Sent to the terminal clipboard through screen; "
            "if nothing arrives, allow OSC 52 in your terminal."
        )
    return "osc52", (
        "Sent to the terminal clipboard; if nothing arrives, allow OSC 52 in your terminal "
        "(tmux: set -g set-clipboard on)."
    )


def copy(
    text: str,
    *,
    env: Mapping[str, str],
    write_to_terminal: Callable[[str], None],
    platform: str | None = None,
    which: Callable[[str], str | None] = find_program,
    runner: Runner = run_tool,
    max_osc52_bytes: int = OSC52_MAX_BYTES,
    fallback_path: Path | None = None,
) -> CopyResult:
    """Copy ``text`` by every route that can work here (see the module docstring) and say honestly
    what happened. Blocks while a tool runs (at most :data:`TOOL_TIMEOUT_SECONDS` each)."""
    data = text.encode("utf-8")
    in_tmux = bool(env.get("TMUX"))
    tmux_buffer = in_tmux and _copy_to_tmux(data, which, runner)
    tool = local_tool(env, platform or sys.platform, which)
    tool_ok = tool is not None and runner(tool, data)

    sequences = terminal_sequences(data, env, plain_too=not tmux_buffer)
    too_large = len(osc52(data)) > max_osc52_bytes
    sent = False
    if not too_large:
        try:
            for sequence in sequences:
                write_to_terminal(sequence)
            sent = True
        except Exception as error:  # the terminal is gone or the app is stopping
            log.info("could not write OSC 52 to the terminal: %s", error)

    if tool_ok and tool is not None:
        name = Path(tool[0]).name
        return CopyResult(name, True, f"Copied with {name}.", confirmed=True)
    if tmux_buffer:
        return CopyResult(
            "tmux-buffer",
            True,
            "Copied to the tmux buffer (prefix ] pastes it); tmux forwards it to the terminal "
            "clipboard if the terminal allows OSC 52.",
            confirmed=True,
        )
    if sent:
        method, message = _sent_message(env)
        return CopyResult(method, True, message)
    return _save_to_file(text, data, fallback_path or fallback_file(), too_large)


def _save_to_file(text: str, data: bytes, path: Path, too_large: bool) -> CopyResult:
    reason = (
        f"Too large to copy through the terminal ({(len(data) + 1023) // 1024} KB)"
        if too_large
        else "Could not reach the terminal"
    )
    try:
        paths.write_private_text(path, text)
    except OSError as error:
        return CopyResult("none", False, f"{reason}, and could not save it to {path}: {error.strerror}.")
    return CopyResult("file", False, f"{reason}; saved to {path}.", saved_to=path)
