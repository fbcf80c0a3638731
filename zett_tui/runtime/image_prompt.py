"""A prompt with images: prepared to the model's limits, checked before anything is sent.

``runtime.turn_images`` calls ``prepare_mentioned`` for the images ``@`` mentions attached (the
composer's pasted and clipboard images arrive prepared already) and ``image_problem`` before the
turn starts (a model known not to read images, too many images: a clear line and nothing is
sent); the host calls ``user_message`` to build what the runtime sends: real image content after
the text.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Sequence

from zett_agent.messages import ImageBytesSource, ImageContent, TextContent, UserMessage

from zett_tui.core.images import ImageLimits, ImageRejected, PreparedImage, prepare_image
from zett_tui.runtime.files.contained_tools import printable

__all__ = ["PASTED", "ImageStash", "image_line", "image_problem", "prepare_mentioned", "user_message"]

#: A pasted image's place in the prompt: ``[Image #3: shot.png]``.
IMAGE_TOKEN = re.compile(r"\[Image #(\d+): [^\]\n]{1,120}\]")


class ImageStash:
    """Images pasted into the prompt (a dropped file's path, Ctrl+V), each standing in the prompt
    as a token, ``[Image #N: name]``, until it is sent. A token the user edited no longer matches
    and no longer attaches; text a model or a file wrote cannot add an image that was never
    pasted. Thread-safe: the composer adds from a worker thread."""

    def __init__(self) -> None:
        self._images: dict[int, tuple[str, PreparedImage]] = {}
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def add(self, image: PreparedImage) -> str:
        """Keep ``image``; the token that stands for it in the prompt."""
        with self._lock:
            number = next(self._numbers)
            name = re.sub(r"[\]\[\n]", "_", image.name)[:100] or "image"
            token = f"[Image #{number}: {name}]"
            self._images[number] = (token, image)
        return token

    def tokens(self, text: str) -> list[tuple[re.Match[str], PreparedImage]]:
        """The intact tokens in ``text`` and their images, in order, each image once."""
        found: list[tuple[re.Match[str], PreparedImage]] = []
        seen: set[int] = set()
        with self._lock:
            for match in IMAGE_TOKEN.finditer(text):
                number = int(match.group(1))
                kept = self._images.get(number)
                if kept is not None and kept[0] == match.group(0) and number not in seen:
                    seen.add(number)
                    found.append((match, kept[1]))
        return found

    def images_in(self, text: str) -> list[PreparedImage]:
        return [image for _match, image in self.tokens(text)]

    def stale(self, text: str) -> list[str]:
        """Tokens in ``text`` that name no image kept here (pasted in an earlier zett, or edited)."""
        kept = {match.group(0) for match, _image in self.tokens(text)}
        return [match.group(0) for match in IMAGE_TOKEN.finditer(text) if match.group(0) not in kept]

    def span_at(self, line: str, column: int, *, ending: bool) -> tuple[int, int] | None:
        """The (start, end) of an intact token in ``line`` that ends (or starts) at ``column``."""
        for match, _image in self.tokens(line):
            if (match.end() if ending else match.start()) == column:
                return match.start(), match.end()
        return None


#: The process's pasted images: the composer adds, the host takes what a prompt's tokens name.
PASTED = ImageStash()


def prepare_mentioned(
    raw: Sequence[tuple[str, bytes]], limits: ImageLimits
) -> tuple[list[PreparedImage], list[str]]:
    """Each ``(name, bytes)`` scaled to ``limits``; and one line per file that is not an image."""
    prepared: list[PreparedImage] = []
    problems: list[str] = []
    for name, data in raw:
        try:
            prepared.append(prepare_image(printable(name), data, limits))
        except ImageRejected as error:
            problems.append(f"@{printable(name)} is not attached: {error}")
    return prepared, problems


def image_problem(
    images: Sequence[PreparedImage], model_label: str, limits: ImageLimits, reads_images: bool | None
) -> str | None:
    """Why these images cannot go to this model (nothing is sent then), or None. ``reads_images``:
    whether the model reads images (``turn_images.model_reads_images``; None: not known, sent)."""
    if not images:
        return None
    if reads_images is False:
        return (
            f"{model_label} does not read images, so nothing was sent. Remove the image"
            f"{'s' if len(images) > 1 else ''} or switch to a model that reads them (/model)."
        )
    if len(images) > limits.max_images:
        return (
            f"{len(images)} images are more than this provider takes in one prompt ({limits.max_images}); "
            "nothing was sent. Remove some and send again."
        )
    return None


def image_line(image: PreparedImage) -> str:
    """The transcript's line for one image sent."""
    scaled = (
        f", scaled from {image.source_width}×{image.source_height}"
        if image.scaled and image.source_width
        else ""
    )
    return f"🖼 {image.chip}{scaled}"


def user_message(text: str, images: Sequence[PreparedImage]) -> str | UserMessage:
    """The text alone, or the text and then each image as image content."""
    if not images:
        return text
    parts: list[TextContent | ImageContent] = [TextContent(text)] if text else []
    for image in images:
        parts.append(
            ImageContent(ImageBytesSource(data=image.data, media_type=image.media_type), alt_text=image.name)
        )
    return UserMessage(content=parts)
