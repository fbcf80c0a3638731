"""A turn's prompt with its attachments: ``@`` mentions read, images gathered and checked.

The host hands over the prompt, the images the composer prepared (pasted, from the clipboard) and
the model that will answer; ``prepare_prompt`` gives back the text to send, the images, and the
reason nothing may be sent (a model that does not read images, too many images), or None. Every
line the user should see on the way (what was attached, what was not, each image sent) goes to
the sink. Whether the model reads images is, in order: what the server or the endpoint's
``vision`` setting said when the model was built (``providers.server_info``), else the name list
(``core.images.vision_support``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zett_tui.core.image_thumbnail import thumbnail_cells
from zett_tui.core.images import PreparedImage, limits_for, vision_support
from zett_tui.runtime.events import Notice, UIEvent
from zett_tui.runtime.image_prompt import PASTED, image_line, image_problem, prepare_mentioned

if TYPE_CHECKING:
    from zett_tui.runtime.files.read_access import ReadAccess

__all__ = ["PreparedPrompt", "model_reads_images", "prepare_prompt", "with_image_hint"]

Sink = Callable[[UIEvent], None]


@dataclass
class PreparedPrompt:
    """What a turn sends: the prompt with its files attached, and its images; or why not."""

    text: str
    images: list[PreparedImage] = field(default_factory=list)
    #: Why nothing may be sent (said on the sink already); None: send.
    problem: str | None = None
    #: Whether the model reads images (``model_reads_images``); None: not known.
    reads_images: bool | None = None


def model_reads_images(model: object, label: str) -> bool | None:
    """True or False when the server, the config or the name list knows; None when none does."""
    from zett_tui.providers.server_info import finding_for

    finding = finding_for(model) if model is not None else None
    if finding is not None and finding.vision is not None:
        return finding.vision
    return vision_support(label)


async def prepare_prompt(
    prompt: str,
    given: Sequence[PreparedImage],
    sink: Sink,
    *,
    label: str,
    model: object,
    read_access: ReadAccess,
    cwd: Path,
    previews: bool = False,
) -> PreparedPrompt:
    """``prompt`` with its ``@`` mentions attached and its images gathered for ``label``'s model:
    ``given`` (prepared by the composer), those the prompt's pasted tokens name, those mentioned.
    ``previews``: each image's line carries its small preview (``core.image_thumbnail``)."""
    text, mentioned = await _with_attachments(prompt, sink, label, read_access, cwd)
    images = [*given, *PASTED.images_in(text), *mentioned]
    for token in PASTED.stale(text):
        sink(
            Notice(f"{token} is only text now: that image was pasted in an earlier zett or edited", "warning")
        )
    reads_images = model_reads_images(model, label)
    problem = image_problem(images, label, limits_for(label), reads_images)
    if problem is not None:
        sink(Notice(problem, "warning"))
        return PreparedPrompt(text, images, problem, reads_images)
    for image in images:
        preview = await asyncio.to_thread(thumbnail_cells, image.data) if previews else None
        sink(Notice(image_line(image), preview=preview))
    return PreparedPrompt(text, images, reads_images=reads_images)


#: What a server answers a request it cannot take the content of.
_REFUSED_CONTENT = frozenset({400, 415, 422})


def with_image_hint(text: str, error: BaseException) -> str:
    """``text`` (a failed turn's line), and when the server refused the request's content, that
    the model may not read images: it was sent images without anything saying it does."""
    cause: BaseException | None = error
    while cause is not None and getattr(cause, "status_code", None) is None:
        cause = cause.__cause__ or cause.__context__
    if cause is None or getattr(cause, "status_code", None) not in _REFUSED_CONTENT:
        return text
    return (
        f"{text} This model may not read images: send the prompt without them, or switch to one "
        "that does (/model). For a configured endpoint, vision = false in its table says so in advance."
    )


async def _with_attachments(
    prompt: str, sink: Sink, label: str, read_access: ReadAccess, cwd: Path
) -> tuple[str, list[PreparedImage]]:
    """The prompt with its ``@path`` files attached, read as the read tools would read them
    (``runtime/files/attachments.py``), and its images prepared for ``label``'s provider; a
    line says what was attached and what was not."""
    if "@" not in prompt:
        return prompt, []
    from zett_tui.runtime.files.attachments import attach_mentions

    attached = await asyncio.to_thread(attach_mentions, prompt, read_access, cwd)
    images, problems = await asyncio.to_thread(prepare_mentioned, attached.images, limits_for(label))
    if attached.attached:
        sink(Notice("📎 attached " + " · ".join(attachment.chip for attachment in attached.attached)))
    for line in [*attached.left_out, *problems]:
        sink(Notice(line, "warning"))
    return attached.message, images
