"""An ACP prompt (text, resource links, embedded resources, images) as a zett turn's text and images."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

#: An image block's base64 longer than this is refused before it is decoded (40 MB of image).
MAX_IMAGE_BASE64 = 56 * 1024 * 1024


@dataclass
class Prompt:
    """A prompt's text, and its images as they came (name, bytes): zett scales them to the
    model's limits (``runtime.image_prompt``)."""

    text: str
    images: list[tuple[str, bytes]] = field(default_factory=list)


def prompt_parts(blocks: list[Any], cwd: Path) -> Prompt:
    """The turn's text and images: text blocks as they are; a linked file inside the project as
    an ``@path`` mention (zett attaches it under its read rules); an embedded text resource as a
    fenced block; an image as an image. Raises ``ValueError`` for content zett cannot take
    (audio, binary resources, an image that is not base64)."""
    parts: list[str] = []
    images: list[tuple[str, bytes]] = []
    for block in blocks:
        if isinstance(block, ImageContentBlock):
            images.append(_image(block, len(images) + 1))
        elif isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(_link(block.uri, block.name, cwd))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if not isinstance(resource, TextResourceContents):
                raise ValueError("binary embedded resources are not supported")
            parts.append(f"{_where(resource.uri, cwd)}:\n```\n{resource.text}\n```")
        else:
            raise ValueError(
                f"{getattr(block, 'type', 'this')} content is not supported (text, resources and images are)"
            )
    text = "\n\n".join(part for part in parts if part)
    if not text.strip() and not images:
        raise ValueError("the prompt is empty")
    return Prompt(text, images)


def _image(block: ImageContentBlock, number: int) -> tuple[str, bytes]:
    if len(block.data) > MAX_IMAGE_BASE64:
        raise ValueError(f"image {number} is larger than zett takes")
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"image {number} is not base64 data") from error
    path = _file(block.uri) if block.uri else None
    subtype = block.mime_type.partition("/")[2] or "img"
    name = path.name if path is not None and path.name else f"image-{number}.{subtype}"
    return name, data


def _file(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def _where(uri: str, cwd: Path) -> str:
    path = _file(uri)
    if path is None:
        return uri
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _link(uri: str, name: str, cwd: Path) -> str:
    path = _file(uri)
    if path is not None:
        try:
            return "@" + str(path.relative_to(cwd))
        except ValueError:
            pass
    return f"[{name}]({uri})"
