"""``@path`` in a prompt attaches that file (or a folder's listing) to the message, so the model has
it without a tool call. No Textual here.

Contained exactly like the model's own ``read_file`` (``read_gate``): the decision is made on the
real path, with the session's read rules, grants included: what the user let the model read "for
this session" in the read dialog is attached too, and says so. What the rules let through is read
(at most ``MAX_FILE_BYTES``, at most ``MAX_TOTAL_BYTES`` for the whole prompt, text only) through
``contained_tools.open_verified``, which is safe from a path swapped in the meantime. A path the
rules do not let through without asking (outside the project and not granted, a credential store
or a process environment under a broader grant, zett's own folders) is **not read**: the mention
stays in the prompt as written, a line says why, and the model can ask to read it with its tools,
which goes through the read gate's dialog.

An image (``@shot.png``: a name ending in a common image type) is attached as the image itself:
its bytes are read under the same rules (at most ``images.MAX_SOURCE_BYTES``) and handed on in
``AttachedPrompt.images``, for the host to scale and send as image content.

A mention is ``@`` at the start of the prompt or after a space, then a path (``"quoted"`` when it
holds spaces, as the composer's ``@`` finder inserts it). ``me@host`` is not a mention, nor is a
path that does not exist (the text is sent as typed).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from zett_tui.core.contained_read import read_at_most
from zett_tui.core.images import MAX_SOURCE_BYTES, is_image_name
from zett_tui.runtime.files.contained_tools import NotReadable, open_verified, printable
from zett_tui.runtime.files.read_access import ReadAccess, real_path

#: Bytes read from one attached file; the rest is left out, and the model is told so.
MAX_FILE_BYTES = 64_000
#: Bytes attached to one prompt in all.
MAX_TOTAL_BYTES = 256_000
#: Entries listed for an attached folder.
MAX_LISTING = 200

#: Between the prompt as typed and what it attaches, in the message sent (and recorded).
ATTACHED_MARKER = "\n\nAttached by the user with @ (read by zett):\n\n"

#: What a chip adds for a path outside the project that a session grant lets through.
GRANTED_NOTE = "outside the project, allowed this session"

_MENTION = re.compile(r'(?:(?<=\s)|^)@("(?:[^"\\]|\\.)+"|[^\s"]+)')


@dataclass(frozen=True)
class Attachment:
    """One attached file or folder: the path as written, what it is, and a short size for the chip."""

    path: str
    kind: str  # "file" or "folder"
    size: str
    content: str
    #: Outside the project, attached because the user allowed reading it for the session.
    granted: bool = False

    @property
    def chip(self) -> str:
        return f"{self.path} ({self.size}{'; ' + GRANTED_NOTE if self.granted else ''})"


@dataclass
class AttachedPrompt:
    """The message for the model (the prompt and what it attaches) and what to tell the user."""

    message: str
    attached: list[Attachment] = field(default_factory=list)
    #: One line per mention that was not attached, saying why.
    left_out: list[str] = field(default_factory=list)
    #: ``(path as written, file bytes)`` of each image mentioned, not yet scaled.
    images: list[tuple[str, bytes]] = field(default_factory=list)


def mentioned_paths(prompt: str) -> list[str]:
    """The paths ``@``-mentioned in ``prompt``, in order, each once."""
    found = [_unquote(match.group(1)) for match in _MENTION.finditer(prompt)]
    return list(dict.fromkeys(path.rstrip(".,;:!?)") if not path.endswith("/") else path for path in found))


def typed_part(message: str) -> str:
    """The prompt as the user typed it, without what its ``@`` mentions attached."""
    return message.split(ATTACHED_MARKER, 1)[0]


def preview_chips(prompt: str, access: ReadAccess, cwd: Path) -> list[str]:
    """What the ``@`` mentions of ``prompt`` will do, one short chip each, for the prompt box:
    ``📎 path`` for what will be attached (a folder as ``path/``, with a note when only a session
    grant lets it through), ``⚠ not attached: path`` for a path that will not be read. Reads no
    file (only resolves the paths)."""
    chips = []
    for path in mentioned_paths(prompt):
        real = real_path(path, cwd)
        if not os.path.lexists(real):
            continue
        verdict = access.verdict(real)
        shown = printable(path)
        if not verdict.allowed:
            chips.append(f"⚠ not attached: {shown}")
            continue
        if real.is_dir() and not shown.endswith("/"):
            shown += "/"
        mark = "🖼" if is_image_name(path) and not real.is_dir() else "📎"  # the image itself is sent
        chips.append(f"{mark} {shown}" + (f" ({GRANTED_NOTE})" if verdict.granted else ""))
    return chips


def attach_mentions(prompt: str, access: ReadAccess, cwd: Path) -> AttachedPrompt:
    """``prompt`` with its ``@``-mentioned files and folders attached (see the module docstring)."""
    result = AttachedPrompt(prompt)
    budget = MAX_TOTAL_BYTES
    for path in mentioned_paths(prompt):
        real = real_path(path, cwd)
        if not os.path.lexists(real):
            continue  # not a path after all (an @handle, a decorator): sent as typed
        if budget <= 0:
            result.left_out.append(f"@{printable(path)} is not attached: the prompt's attachments are full")
            continue
        verdict = access.verdict(real)
        if not verdict.allowed:
            result.left_out.append(
                f"@{printable(path)} is not attached: {verdict.why}. The model can ask to read it, "
                "and zett will ask you first."
            )
            continue
        if is_image_name(path) and not real.is_dir():
            try:
                with open_verified(path, real, access.allows) as (fd, _status):
                    data = read_at_most(fd, MAX_SOURCE_BYTES + 1)
            except (OSError, NotReadable) as error:
                result.left_out.append(f"@{printable(path)} is not attached: {_reason(error)}")
                continue
            result.images.append((path, data))
            continue
        attachment: Attachment | None
        try:
            if real.is_dir():
                attachment = _folder(path, real, access.allows)
            else:
                attachment = _file(path, real, access.allows, min(budget, MAX_FILE_BYTES))
        except (OSError, NotReadable) as error:
            result.left_out.append(f"@{printable(path)} is not attached: {_reason(error)}")
            continue
        if attachment is None:
            result.left_out.append(f"@{printable(path)} is not attached: it is not text (a binary file)")
            continue
        if verdict.granted:
            attachment = replace(attachment, granted=True)
        budget -= len(attachment.content.encode())
        result.attached.append(attachment)
    if result.attached:
        blocks = "\n\n".join(_block(attachment) for attachment in result.attached)
        result.message = prompt + ATTACHED_MARKER + blocks
    return result


def _file(label: str, real: Path, may_read: Callable[[Path], bool], limit: int) -> Attachment | None:
    with open_verified(label, real, may_read) as (fd, status):
        data = read_at_most(fd, limit)
    if b"\0" in data[:8192]:
        return None
    text = data.decode("utf-8", errors="replace")
    if status.st_size > len(data):
        text += f"\n[... {status.st_size - len(data):,} more bytes not attached; read_file has the rest]"
    lines = text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0
    return Attachment(label, "file", f"{lines:,} lines" if lines != 1 else "1 line", text)


def _folder(label: str, real: Path, may_read: Callable[[Path], bool]) -> Attachment:
    names: list[str] = []
    with os.scandir(real) as entries:
        for entry in sorted(entries, key=lambda entry: entry.name):
            child = Path(os.path.realpath(entry.path))
            if not may_read(child):
                continue  # a link out of the project, a credential store: not even named
            names.append(entry.name + ("/" if entry.is_dir() else ""))
    shown = names[:MAX_LISTING]
    if len(names) > len(shown):
        shown.append(f"[... {len(names) - len(shown)} more entries]")
    folder = label if label.endswith("/") else label + "/"
    return Attachment(folder, "folder", f"{len(names)} entries", "\n".join(shown))


def _block(attachment: Attachment) -> str:
    tag = attachment.kind
    return f'<{tag} path="{printable(attachment.path)}">\n{attachment.content}\n</{tag}>'


def _reason(error: Exception) -> str:
    if isinstance(error, NotReadable):
        return str(error)
    return getattr(error, "strerror", None) or str(error)


def _unquote(token: str) -> str:
    if len(token) >= 2 and token.startswith('"') and token.endswith('"'):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return token
