"""An ACP prompt (text, resource links, embedded resources) as the text of a zett turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    EmbeddedResourceContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)


def prompt_text(blocks: list[Any], cwd: Path) -> str:
    """The turn's text: text blocks as they are; a linked file inside the project as an ``@path``
    mention (zett attaches it under its read rules); an embedded text resource as a fenced block.
    Raises ``ValueError`` for content zett cannot take (images, audio, binary resources)."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
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
                f"{getattr(block, 'type', 'this')} content is not supported (text and resources are)"
            )
    text = "\n\n".join(part for part in parts if part)
    if not text.strip():
        raise ValueError("the prompt is empty")
    return text


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
