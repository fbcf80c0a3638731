"""The read gate: the model's file tools read outside the project only when the user says so.

A tool-call middleware that works by tool NAME, so it covers zett-agent's tools and Plan Mode's
copies of them alike: ``read_file``, ``read``, ``view_image``, ``glob`` and ``grep`` are run by
zett itself (``contained_tools``: same arguments, defaults and results) after the real path
has been checked against ``read_access``. Outside the project a CUSTOM ``read_access_requested``
event asks, in every permission mode, and waits for ``read_access_response``:

    {"tool_call_id": ..., "decision": "once" | "session" | "deny", "note": "optional"}

"once" lets this one call read that path; "session" keeps a grant for the rest of the session
(the exact file; or the folder and what is below it for a glob or grep); "deny" fails the tool
with a message for the model. Credential stores, zett's own folders and process environments
ask even under a broader grant. ``view_image`` refuses URLs (only ``web_fetch`` fetches, after asking).

For extensions that read files for the model: call ``require_read(context, call, paths)``
from the extension's ``on_tool_call`` (or its tool) before reading. It resolves each path,
asks the user where the rules say so, and returns the real paths to read; ``ReadRefused``
(a ``PermissionError`` whose message is for the model) means the user said no. Open what it
returns with ``contained_tools.open_verified`` to be safe from a path swapped in the meantime.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field
from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import ModelRequestNext
from zett_agent.extensions.external import ExternalEventExtension
from zett_agent.messages import ToolCall
from zett_agent.model import ModelEvent, ModelRequest
from zett_agent.tools.coding import FilePath, LineCount, MaxResults, StartLine
from zett_agent.tools.images import MAX_IMAGE_BYTES

from zett_tui.runtime import agent_compat
from zett_tui.runtime.decisions.read import ReadReply
from zett_tui.runtime.files import contained_tools
from zett_tui.runtime.files.local_images import local_only
from zett_tui.runtime.files.read_access import ReadAccess, ReadGrant, ReadVerdict, real_path, scope_of_grant
from zett_tui.runtime.tool_refusal import ToolRefused

__all__ = [
    "READ_ACCESS_EVENT",
    "READ_ACCESS_RESPONSE",
    "READ_TOOLS",
    "ReadGate",
    "ReadRefused",
    "gate_for",
    "require_read",
]

READ_ACCESS_EVENT = "read_access_requested"
READ_ACCESS_RESPONSE = "read_access_response"
ONCE, SESSION, DENY = "once", "session", "deny"
READ_TOOLS = frozenset({"read_file", "read", "view_image", "glob", "grep"})
NO_URLS = (
    "zett does not fetch URLs with view_image: it reads local image files only. Ask the user to save "
    "the image in the project folder and give you its path (web_fetch reads web pages as text, "
    "after the user allows the domain)."
)

IsExempt = Callable[[str, Path], bool]


class ReadRefused(ToolRefused):
    """The user (or ``zett -p``'s flags) did not let a tool read a path; the message is for the model."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _ReadFileArguments(_Strict):
    path: FilePath
    start_line: StartLine = 1
    line_count: LineCount = 200
    start_column: StartLine = 1


class _ViewImageArguments(_Strict):
    path: str
    max_bytes: int = Field(default=MAX_IMAGE_BYTES, ge=1, le=20_000_000)


class _GlobArguments(_Strict):
    pattern: str = Field(min_length=1)
    max_results: MaxResults = 200


class _GrepArguments(_Strict):
    pattern: str = Field(min_length=1)
    file_pattern: str = Field(default="**/*", min_length=1)
    case_sensitive: bool = True
    max_results: MaxResults = 200


class ReadGate(ExternalEventExtension):
    """Run the read tools contained to the project; ask before anything outside it is read."""

    def __init__(self, project_root: Path, *, is_exempt: IsExempt | None = None) -> None:
        super().__init__(response_event_name=READ_ACCESS_RESPONSE, correlation_field="tool_call_id")
        self.project_root = project_root
        self.is_exempt = is_exempt or (lambda _session_id, _real: False)
        self._sessions: dict[str, ReadAccess] = {}
        #: The session whose grants count for ``session_id``: a subagent's are its main session's
        #: (zett sets this; the default is the session itself).
        self.session_of: Callable[[str], str] = lambda session_id: session_id
        #: How many times each tool call has asked (a call of ``require_read`` may ask more than once).
        self._asked: dict[tuple[str, str], int] = {}

    async def on_model_request(
        self, context: AgentRunContext, request: ModelRequest, call_next: ModelRequestNext
    ) -> AsyncIterator[ModelEvent]:
        """The model is told ``view_image`` takes local files only (``local_images``)."""
        stream = call_next(local_only(request))
        try:
            async for event in stream:
                yield event
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    def access(self, session_id: str) -> ReadAccess:
        """The session's rules and the grants made in it so far."""
        session_id = self.session_of(session_id)
        access = self._sessions.get(session_id)
        if access is None:
            access = ReadAccess(self.project_root, exempt=lambda real: self.is_exempt(session_id, real))
            self._sessions[session_id] = access
        return access

    def reset(self, session_id: str) -> None:
        """Forget the session's "for this session" grants."""
        self._sessions.pop(self.session_of(session_id), None)

    # -- middleware ----------------------------------------------------------------------------

    async def on_tool_call(
        self,
        context: AgentRunContext,
        call: ToolCall,
        call_next: Callable[[], Awaitable[Any]],
    ) -> Any:
        run = _TOOLS.get(call.name)
        if run is None:
            return await call_next()
        return await run(self, context, call)

    async def _read_file(self, context: AgentRunContext, call: ToolCall) -> Any:
        args = _ReadFileArguments.model_validate(call.arguments)
        real = real_path(args.path, Path.cwd())
        grants = await self.permit(context, call, real, requested=args.path)
        implementation = contained_tools.read if call.name == "read" else contained_tools.read_file
        return await asyncio.to_thread(
            implementation,
            args.path,
            real,
            self._may_read(context, grants),
            args.start_line,
            args.line_count,
            args.start_column,
        )

    async def _view_image(self, context: AgentRunContext, call: ToolCall) -> Any:
        args = _ViewImageArguments.model_validate(call.arguments)
        if _is_url(args.path):
            raise ValueError(NO_URLS)
        real = real_path(args.path, Path.cwd())
        grants = await self.permit(context, call, real, requested=args.path)
        return await asyncio.to_thread(
            contained_tools.view_image, args.path, real, self._may_read(context, grants), args.max_bytes
        )

    async def _glob(self, context: AgentRunContext, call: ToolCall) -> Any:
        args = _GlobArguments.model_validate(call.arguments)
        grants = await self._permit_search(context, call, args.pattern)
        may_read = self._may_read(context, grants)
        return await asyncio.to_thread(contained_tools.glob, args.pattern, args.max_results, may_read)

    async def _grep(self, context: AgentRunContext, call: ToolCall) -> Any:
        args = _GrepArguments.model_validate(call.arguments)
        grants = await self._permit_search(context, call, args.file_pattern)
        may_read = self._may_read(context, grants)
        return await asyncio.to_thread(
            contained_tools.grep,
            args.pattern,
            args.file_pattern,
            args.case_sensitive,
            args.max_results,
            may_read,
        )

    async def _permit_search(self, context: AgentRunContext, call: ToolCall, pattern: str) -> list[ReadGrant]:
        start = contained_tools.search_start(pattern).start
        return await self.permit(context, call, Path(os.path.realpath(start)), requested=pattern)

    def _may_read(self, context: AgentRunContext, grants: list[ReadGrant]) -> Callable[[Path], bool]:
        return self.access(context.session_id).checker(grants)

    # -- asking --------------------------------------------------------------------------------

    async def permit(
        self, context: AgentRunContext, call: ToolCall, real: Path, *, requested: str | None = None
    ) -> list[ReadGrant]:
        """Make sure the real path ``real`` may be read, asking the user when the rules say so.

        Returns the grants that hold for this call only (empty when none was needed or the user
        allowed it for the session). Raises ``ReadRefused`` when the answer is no.
        """
        access = self.access(context.session_id)
        verdict = access.verdict(real)
        if verdict.allowed:
            return []
        reply = await self._ask(context, call, verdict, requested)
        if reply.choice == SESSION:
            access.grant(real)
            return []
        if reply.choice == ONCE:
            return [ReadGrant(real)]
        raise ReadRefused(refusal_message(call.name, real, verdict, reply.note or None))

    async def _ask(
        self, context: AgentRunContext, call: ToolCall, verdict: ReadVerdict, requested: str | None
    ) -> ReadReply:
        key = (context.session_id, call.id)
        asked = self._asked[key] = self._asked.get(key, 0) + 1
        correlation_id = call.id if asked == 1 else f"{call.id}#read-{asked}"
        real = verdict.real
        is_folder = os.path.isdir(real)
        payload = {
            "session_id": context.session_id,
            "tool_call_id": correlation_id,
            "tool": call.name,
            "requested": contained_tools.printable(requested) if requested is not None else None,
            "path": contained_tools.printable(str(real)),
            "is_folder": is_folder,
            "inside_project": verdict.inside_project,
            "secret": verdict.place.what if verdict.place is not None else None,
            "reason": verdict.why,
            "session_scope": scope_of_grant(real, is_folder=is_folder, place=verdict.place),
            "response_event": READ_ACCESS_RESPONSE,
        }
        reply = await agent_compat.ask_the_ui(
            self, context, call, READ_ACCESS_EVENT, payload, correlation_id=correlation_id
        )
        return ReadReply.parse(reply)


def refusal_message(tool: str, real: Path, verdict: ReadVerdict, note: str | None) -> str:
    """What the model is told when it may not read ``real``."""
    what = f"{tool} was not allowed to read {contained_tools.printable(str(real))} ({verdict.why})."
    if note and note.strip():
        return f"{what} {note.strip()}"
    return f"{what} Do not try to reach it another way; ask the user if you need it."


def _is_url(path: str) -> bool:
    return "://" in path or urlparse(path).scheme.lower() in {"http", "https", "ftp", "file", "data"}


_TOOLS: dict[str, Callable[[ReadGate, AgentRunContext, ToolCall], Awaitable[Any]]] = {
    "read_file": ReadGate._read_file,
    "read": ReadGate._read_file,
    "view_image": ReadGate._view_image,
    "glob": ReadGate._glob,
    "grep": ReadGate._grep,
}


# -- the API for other extensions -----------------------------------------------------------------


def gate_for(context: AgentRunContext) -> ReadGate:
    """The read gate of the agent running ``context`` (RuntimeError when it has none)."""
    for extension in context.extensions:
        if isinstance(extension, ReadGate):
            return extension
    raise RuntimeError("zett's read gate is not loaded in this agent")


async def require_read(context: AgentRunContext, call: ToolCall, paths: Iterable[str | Path]) -> list[Path]:
    """The real paths of ``paths`` once each may be read; asks the user where the rules say so.

    Relative paths start from the current folder, as the file tools' do. Raises ``ReadRefused``
    (its message is for the model) when the user says no to any of them.
    """
    gate = gate_for(context)
    allowed: list[Path] = []
    for path in paths:
        real = real_path(path, Path.cwd())
        await gate.permit(context, call, real, requested=os.fspath(path))
        allowed.append(real)
    return allowed
