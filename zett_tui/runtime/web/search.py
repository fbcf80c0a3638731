"""Web search through the provider's own server tool, off by default.

With ``[web] search = true`` every request to an Anthropic model offers its hosted ``web_search``
tool, and every request to an OpenAI model OpenAI's ``web_search``: the provider runs the searches
(zett contacts nothing), so the queries go where the prompt already goes. OpenAI hosts its search
only on the Responses API, so with the setting on zett builds OpenAI's models on that API
(``providers.build``, ``openai_responses``); a model built on Chat Completions (or a local server,
which has no hosted search) gets nothing. ``search_rows`` turns the provider's search events into
lines for the transcript: the query, then each source's title (when given) and address.
"""

from __future__ import annotations

import json
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.model import ServerToolDefinition

from zett_tui.runtime.files.contained_tools import printable

__all__ = ["WEB_SEARCH", "WebSearchExtension", "search_rows"]

#: Anthropic's hosted search, as zett-agent names its current version; at most 5 searches a call.
WEB_SEARCH = ServerToolDefinition("web_search_20260318", {"name": "web_search", "max_uses": 5})
#: OpenAI's hosted search (Responses API only).
OPENAI_WEB_SEARCH = ServerToolDefinition("web_search")
MAX_SOURCES = 8


class WebSearchExtension(AgentExtension):
    """Offers the provider's hosted web search on requests to an Anthropic model or to an OpenAI
    model on the Responses API."""

    def __init__(self, definition: ServerToolDefinition = WEB_SEARCH) -> None:
        self.definition = definition

    async def on_tool(self, context: AgentRunContext) -> None:
        if _is_anthropic(context.model):
            context.register_server_tool(self.definition)
        elif _is_openai_responses(context.model):
            context.register_server_tool(OPENAI_WEB_SEARCH)


def _is_openai_responses(model: Any) -> bool:
    """OpenAI itself (not a compatible server, which hosts no search) on the Responses API."""
    try:
        from zett_agent.providers.openai import OpenAIProvider
    except ImportError:
        return False
    return isinstance(model, OpenAIProvider) and getattr(model, "response", False) is True


def _is_anthropic(model: Any) -> bool:
    try:
        from zett_agent.providers.anthropic import AnthropicProvider
    except ImportError:
        return False
    return isinstance(model, AnthropicProvider)


def _one_line(text: object, limit: int = 160) -> str:
    flat = " ".join(printable(str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def search_rows(name: str, arguments: str, output: Any, error: str | None) -> str:
    """The transcript's lines for one hosted search: its query, then its sources."""
    try:
        query = json.loads(arguments).get("query", "") if arguments else ""
    except (ValueError, AttributeError):
        query = ""
    action = output.get("action") if isinstance(output, dict) else None
    if not query and isinstance(action, dict) and isinstance(action.get("query"), str):
        query = action["query"]  # OpenAI names it only in the finished item
    head = f"🔎 {name} “{_one_line(query)}”" if query else f"🔎 {name}"
    if error:
        return f"{head}: failed ({_one_line(error, 80)})"
    if isinstance(output, dict):  # OpenAI: the whole ``web_search_call`` item
        output = action.get("sources") if isinstance(action, dict) else None
    sources = (
        [item for item in output if isinstance(item, dict) and item.get("url")]
        if isinstance(output, list)
        else []
    )
    if not sources:
        return f"{head}: no sources"
    lines = [f"{head}: {len(sources)} source{'s' if len(sources) != 1 else ''}"]
    for item in sources[:MAX_SOURCES]:
        title = _one_line(item.get("title") or "", 80)
        lines.append(
            f"  · {title} — {_one_line(item['url'], 120)}" if title else f"  · {_one_line(item['url'], 120)}"
        )
    if len(sources) > MAX_SOURCES:
        lines.append(f"  · … and {len(sources) - MAX_SOURCES} more")
    return "\n".join(lines)
