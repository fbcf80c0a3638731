"""Images in the model history: stored once by content hash beside the sessions, named in the rows.

zett-agent's SQLite storage keeps a message as JSON, an image's bytes as base64: a screenshot
sent in ten turns was ten copies of several hundred kilobytes in the database, read back on every
request. Before a message is stored (``stored_form``) each image's bytes go to the sessions
folder's ``images/`` (``sessions.image_files``, the same files the session lines name) and the
message keeps a short reference in their place (``reference_bytes``: the storage only takes real
messages, and bytes are what an image source holds). ``loaded_form`` puts the bytes back before the
model sees the message. Rows written before this (real base64 bytes) load as they are.

A reference whose file is gone (deleted by hand) becomes a line of text saying so: the model
keeps the rest of the conversation rather than the provider refusing the request.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from zett_agent.messages import ImageBytesSource, ImageContent, TextContent

from zett_tui.sessions.image_files import image_path, reference_bytes, referenced_name, store_image

__all__ = ["HistoryImages"]

log = logging.getLogger(__name__)


class HistoryImages:
    """Moves the images of history messages to ``folder`` and back."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def holds_images(message: Any) -> bool:
        """Whether ``message`` has image bytes or references (the forms below touch files then:
        call them off the event loop)."""
        content = getattr(message, "content", None)
        return isinstance(content, list | tuple) and any(
            isinstance(part, ImageContent) and isinstance(part.source, ImageBytesSource) for part in content
        )

    def stored_form(self, message: Any) -> Any:
        """``message`` with each image's bytes kept in the folder and referenced; the same object
        when it holds no image bytes."""
        return _with_parts(message, self._stored_part)

    def loaded_form(self, message: Any) -> Any:
        """``message`` with each referenced image's bytes read back; the same object when it
        references none."""
        return _with_parts(message, self._loaded_part)

    def _stored_part(self, part: object) -> object:
        if not isinstance(part, ImageContent) or not isinstance(part.source, ImageBytesSource):
            return part
        source = part.source
        if referenced_name(source.data) is not None:
            return part
        name = store_image(self.folder, source.data, source.media_type)
        kept = ImageBytesSource(data=reference_bytes(name), media_type=source.media_type)
        return dataclasses.replace(part, source=kept)

    def _loaded_part(self, part: object) -> object:
        if not isinstance(part, ImageContent) or not isinstance(part.source, ImageBytesSource):
            return part
        source = part.source
        name = referenced_name(source.data)
        if name is None:
            return part
        path = image_path(self.folder, name)
        try:
            data = path.read_bytes() if path is not None else b""
        except OSError:
            data = b""
        if not data:
            log.warning("stored image %s is missing; the model is told so", name)
            label = part.alt_text or "an image"
            return TextContent(f"[{label}: this image is no longer stored, so it cannot be shown again]")
        return dataclasses.replace(part, source=ImageBytesSource(data=data, media_type=source.media_type))


def _with_parts(message: Any, change: Any) -> Any:
    content = getattr(message, "content", None)
    if not isinstance(content, list | tuple):
        return message
    parts = [change(part) for part in content]
    if all(new is old for new, old in zip(parts, content, strict=True)):
        return message
    return dataclasses.replace(message, content=type(content)(parts))
