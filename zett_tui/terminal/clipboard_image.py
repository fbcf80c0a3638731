"""Reading an image from the user's clipboard (Ctrl+V), where the system offers one.

A terminal pastes text only, so an image has to be asked of the clipboard itself, and only on the
machine in front of the user (over SSH the remote clipboard is not theirs). Tried in order:

- Wayland (``WAYLAND_DISPLAY``): ``wl-paste --list-types``, then ``wl-paste --type image/png``;
- X11 (``DISPLAY``): ``xclip -selection clipboard -t TARGETS -o``, then ``-t image/png -o``;
- macOS: ``pngpaste -`` when installed, else ``osascript`` reading «class PNGf».

``read_clipboard_image`` returns the bytes and type, ``NO_IMAGE`` when the clipboard holds no
image (then the ordinary text paste goes on), or a sentence saying why it cannot be read here
(no tool, over SSH), for the user. Nothing here imports Textual; it runs tools, so call it in a
thread.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NO_IMAGE", "ClipboardImage", "read_clipboard_image"]

TOOL_TIMEOUT_SECONDS = 3.0
MAX_CLIPBOARD_BYTES = 40 * 1024 * 1024
NO_IMAGE = "no image"
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif", "image/bmp")

Run = Callable[[list[str]], bytes | None]


@dataclass(frozen=True, slots=True)
class ClipboardImage:
    data: bytes
    media_type: str


def _run(command: list[str]) -> bytes | None:
    try:
        done = subprocess.run(command, capture_output=True, timeout=TOOL_TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout[: MAX_CLIPBOARD_BYTES + 1]


def read_clipboard_image(
    env: Mapping[str, str] | None = None,
    *,
    which: Callable[[str], str | None] = shutil.which,
    run: Run = _run,
    platform: str = sys.platform,
) -> ClipboardImage | str:
    """The clipboard's image, ``NO_IMAGE``, or why the clipboard cannot be read (see the module)."""
    env = os.environ if env is None else env
    if any(env.get(name) for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT")):
        return (
            "zett runs over SSH: the clipboard it could read is the remote machine's. Save the image "
            "and paste or type its path instead (@path)."
        )
    if platform == "darwin":
        return _macos(which, run)
    if env.get("WAYLAND_DISPLAY") and which("wl-paste"):
        return _offered(
            run(["wl-paste", "--list-types"]), lambda kind: ["wl-paste", "--no-newline", "--type", kind], run
        )
    if env.get("DISPLAY") and which("xclip"):
        return _offered(
            run(["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"]),
            lambda kind: ["xclip", "-selection", "clipboard", "-t", kind, "-o"],
            run,
        )
    if not env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY"):
        return "there is no graphical session here to read a clipboard image from; paste or type the image's path instead (@path)"
    tool = "wl-clipboard (wl-paste)" if env.get("WAYLAND_DISPLAY") else "xclip"
    return f"reading an image from the clipboard needs {tool}; install it, or paste the image's path instead"


def _offered(listing: bytes | None, command: Callable[[str], list[str]], run: Run) -> ClipboardImage | str:
    types = (listing or b"").decode("utf-8", "replace").split()
    kind = next((kind for kind in _IMAGE_TYPES if kind in types), None)
    if kind is None:
        return NO_IMAGE
    data = run(command(kind))
    if not data:
        return NO_IMAGE
    if len(data) > MAX_CLIPBOARD_BYTES:
        return "the clipboard's image is larger than 40 MB"
    return ClipboardImage(data, kind)


def _macos(which: Callable[[str], str | None], run: Run) -> ClipboardImage | str:
    if which("pngpaste"):
        data = run(["pngpaste", "-"])
        return ClipboardImage(data, "image/png") if data else NO_IMAGE
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "clipboard.png"
        script = (
            "try\n"
            f'  set target to open for access POSIX file "{target}" with write permission\n'
            "  write (the clipboard as «class PNGf») to target\n"
            "  close access target\n"
            "end try"
        )
        if run(["osascript", "-e", script]) is None or not target.exists() or not target.stat().st_size:
            return NO_IMAGE
        return ClipboardImage(target.read_bytes()[: MAX_CLIPBOARD_BYTES + 1], "image/png")
