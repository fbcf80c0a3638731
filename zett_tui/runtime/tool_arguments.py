"""A tool called with bad arguments gets one human line back, not pydantic's report with its URLs.

Models get argument shapes wrong (a missing field, a string for a list, 0 for a line number).
zett-agent's tools, and zett's own, validate with pydantic, whose message is several lines with an
``errors.pydantic.dev`` link per problem: noise for the model, and shown as is on the tool's row.
This tool-call middleware, the outermost of all, turns any ``ValidationError`` from a tool into
one sentence that says which argument is wrong and how, so the model can fix its call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.messages import ToolCall

__all__ = ["ToolArgumentErrors", "describe_validation_error"]

#: pydantic error types that read better in zett's own words.
_PLAIN = {
    "missing": "is required",
    "extra_forbidden": "is not a parameter of this tool",
}
_MAX_PROBLEMS = 5
_MAX_INPUT_CHARS = 40


class ToolArgumentError(ValueError):
    """A tool's arguments did not fit its parameters; the message says which and how."""


def describe_validation_error(tool: str, error: ValidationError) -> str:
    """``Invalid arguments for read_file: start_line must be greater than or equal to 1 (got 0).``"""
    problems: list[str] = []
    for item in error.errors(include_url=False)[:_MAX_PROBLEMS]:
        where = ".".join(str(part) for part in item.get("loc", ())) or "the arguments"
        kind = item.get("type", "")
        if kind in _PLAIN:
            problems.append(f"{where} {_PLAIN[kind]}")
            continue
        message = str(item.get("msg", "is not valid"))
        message = message[0].lower() + message[1:] if message else "is not valid"
        message = message.removeprefix("input ")
        shown = repr(item.get("input"))
        if len(shown) > _MAX_INPUT_CHARS:
            shown = shown[: _MAX_INPUT_CHARS - 1] + "…"
        problems.append(f"{where} {message} (got {shown})")
    more = len(error.errors()) - len(problems)
    tail = f"; and {more} more" if more > 0 else ""
    return f"Invalid arguments for {tool}: {'; '.join(problems)}{tail}."


class ToolArgumentErrors(AgentExtension):
    """Outermost tool middleware: a ``ValidationError`` leaves as one ``ToolArgumentError`` line."""

    async def on_tool_call(
        self, context: AgentRunContext, call: ToolCall, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        try:
            return await call_next()
        except ValidationError as error:
            raise ToolArgumentError(describe_validation_error(call.name, error)) from None
