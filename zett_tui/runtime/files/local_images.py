"""What the model is told about ``view_image``: local image files only.

zett-agent's ``view_image`` describes itself as taking "a local path or HTTP(S) URL", with a URL in
its example and a guideline about downloads. zett refuses every URL (``read_gate``: zett's tools
never fetch anything), so a model that believed the description would try, and fail, and waste a
step. ``local_only`` rewrites one model request: the tool's description and its ``path``
parameter, and the guideline lines the tool-guidelines extension adds. No Textual here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from zett_agent.messages import SystemMessage
from zett_agent.model import ModelRequest, ToolDefinition

__all__ = ["IMAGE_TOOL", "LOCAL_DESCRIPTION", "local_only"]

IMAGE_TOOL = "view_image"
LOCAL_DESCRIPTION = (
    "View a PNG, JPEG, GIF, or WebP image file on this machine. Takes a file path only: "
    "URLs are refused (zett never fetches anything)."
)
_PATH_DESCRIPTION = "Absolute path, or a path relative to the current working directory (no URLs)."
#: Guideline lines about URLs, and what each becomes (None: left out).
_GUIDELINES: Mapping[str, str | None] = {
    'view_image(path="https://example.com/chart.png")': 'view_image(path="docs/screenshot.png")',
    "Remote images must use HTTP or HTTPS and are downloaded with redirects enabled.": None,
    "Use view_image for HTTP(S) image URLs.": "view_image takes local files only; URLs are refused.",
}


def _tool(definition: ToolDefinition) -> ToolDefinition:
    if definition.name != IMAGE_TOOL:
        return definition
    parameters: dict[str, Any] = dict(definition.parameters)
    properties = dict(parameters.get("properties") or {})
    if isinstance(properties.get("path"), Mapping):
        properties["path"] = {**properties["path"], "description": _PATH_DESCRIPTION}
        parameters["properties"] = properties
    return dataclasses.replace(definition, description=LOCAL_DESCRIPTION, parameters=parameters)


def _guidelines(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        for old, new in _GUIDELINES.items():
            if old in line:
                line = None if new is None else line.replace(old, new)  # type: ignore[assignment]
                break
        if line is not None:
            lines.append(line)
    return "\n".join(lines)


def local_only(request: ModelRequest) -> ModelRequest:
    """``request`` with ``view_image`` described as what zett lets it do."""
    if not any(tool.name == IMAGE_TOOL for tool in request.tools):
        return request
    messages = [
        dataclasses.replace(message, content=_guidelines(message.content))
        if isinstance(message, SystemMessage) and isinstance(message.content, str)
        else message
        for message in request.messages
    ]
    return dataclasses.replace(request, tools=[_tool(tool) for tool in request.tools], messages=messages)
