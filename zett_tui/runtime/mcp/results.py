"""What an MCP tool call gives back, in the shape zett-agent hands the model.

Text stays text; an image becomes zett-agent's ``ImageContent`` (the model sees a picture, as
``view_image`` returns one, not base64 text); a resource becomes a link line (its URI, name and
type; an embedded text resource shows its text). Text is bounded like shell output: past
``MAX_OUTPUT_BYTES`` (zett-agent's shell budget) the first quarter and the last part are kept with
a line saying how much was left out.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from zett_agent.messages import ImageBytesSource, ImageContent, TextContent
from zett_agent.tools.output import MAX_OUTPUT_BYTES

if TYPE_CHECKING:
    from mcp.types import CallToolResult


class McpToolError(RuntimeError):
    """The server said the call failed (``isError``); the message is the server's text."""


def to_model_result(
    result: CallToolResult, *, server: str, tool: str
) -> str | list[TextContent | ImageContent]:
    """The result as text, or text and images in order; raises ``McpToolError`` for ``isError``."""
    parts: list[TextContent | ImageContent] = []
    for block in result.content:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(TextContent(bound(block.text)))  # type: ignore[union-attr]
        elif kind == "image":
            parts.append(_image(block, server, tool))
        elif kind == "resource_link":
            parts.append(TextContent(_link(block)))
        elif kind == "resource":
            parts.append(TextContent(_embedded(block)))
        else:
            parts.append(TextContent(f"[{kind or 'unknown'} content from {server}/{tool} not shown]"))
    if not parts and result.structured_content is not None:
        parts.append(TextContent(bound(json.dumps(result.structured_content, ensure_ascii=False))))
    if result.is_error:
        text = "\n".join(part.text for part in parts if isinstance(part, TextContent))
        raise McpToolError(text or f"MCP tool {tool!r} on {server!r} failed")
    if all(isinstance(part, TextContent) for part in parts):
        return "\n".join(part.text for part in parts if isinstance(part, TextContent))
    return parts


def bound(text: str, budget: int = MAX_OUTPUT_BYTES) -> str:
    """``text`` within ``budget`` UTF-8 bytes: a quarter from the start, the rest from the end."""
    data = text.encode("utf-8")
    if len(data) <= budget:
        return text
    head = data[: budget // 4].decode("utf-8", errors="ignore")
    tail = data[-(budget - budget // 4) :].decode("utf-8", errors="ignore")
    left_out = len(data) - len(head.encode()) - len(tail.encode())
    return f"{head}\n[... {left_out} bytes of the result left out ...]\n{tail}"


def _image(block: Any, server: str, tool: str) -> TextContent | ImageContent:
    try:
        data = base64.b64decode(block.data, validate=True)
        return ImageContent(ImageBytesSource(data, block.mime_type), alt_text=f"image from {server}/{tool}")
    except (binascii.Error, ValueError, TypeError) as error:
        return TextContent(f"[an image from {server}/{tool} that could not be read: {error}]")


def _link(block: Any) -> str:
    name = getattr(block, "name", None) or getattr(block, "title", None) or ""
    mime = getattr(block, "mime_type", None)
    details = ", ".join(item for item in (name, mime) if item)
    return f"resource: {block.uri}" + (f" ({details})" if details else "")


def _embedded(block: Any) -> str:
    resource = block.resource
    text = getattr(resource, "text", None)
    head = _link(resource)
    return f"{head}\n{bound(text)}" if isinstance(text, str) else head
