"""Make Plan Mode read-only in fact, and keep the approved plan.

zett-agent's Plan Mode is a prompt plus a tool set that still contains ``write_file``,
``edit``, ``delete_file`` and ``bash``. This tool-call middleware refuses the three file tools
while Plan Mode is on for the session, except on the session's own plan file
(``data_dir()/plans/<session file stem>.md``), where the model may keep a draft. The refusal is
an ordinary tool failure that tells the model what to do instead. Shell commands in Plan Mode
always ask (``ShellPolicy`` is given ``is_active`` as its ``plan_active``).

The model learns where its plan file is from the ``enter_plan_mode`` result and from a system
note added to every model request while Plan Mode is on (not stored in the history). When an
``exit_plan_mode`` call is approved, the plan text is written to the plan file (0600).

Order: register it before ``EditApprovalExtension`` (same priority), so a refused call never
asks for approval; pass ``is_plan_file`` to that extension as ``is_exempt``.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension, ModelRequestNext
from zett_agent.extensions.plan_mode import PlanModeExtension
from zett_agent.messages import SystemMessage, ToolCall
from zett_agent.model import ModelEvent, ModelRequest

from zett_tui.core import paths
from zett_tui.runtime.agent_compat import plan_mode_sessions, resolve_tool_path
from zett_tui.runtime.tool_refusal import ToolRefused

log = logging.getLogger(__name__)

FILE_TOOLS = frozenset({"write_file", "edit", "delete_file"})
ENTER_TOOL = "enter_plan_mode"
EXIT_TOOL = "exit_plan_mode"


class PlanModeReadOnly(ToolRefused):
    """A file change was refused because Plan Mode is on (its row says "refused")."""


def plan_file_name(session_id: str) -> str:
    """``<stem>.md`` where the stem is the session transcript's (urlsafe base64 of the id)."""
    stem = base64.urlsafe_b64encode(session_id.encode("utf-8")).decode("ascii").rstrip("=")
    return f"{stem}.md"


class PlanGuardExtension(AgentExtension):
    """Refuse file changes while Plan Mode is on; keep the approved plan in the plan file."""

    def __init__(self, plan_mode: PlanModeExtension, *, plans_dir: Path | None = None) -> None:
        self.plan_mode = plan_mode
        self._plans_dir = plans_dir

    @property
    def plans_dir(self) -> Path:
        return self._plans_dir or paths.data_dir() / "plans"

    def is_active(self, session_id: str) -> bool:
        return self.plan_mode.is_plan_mode(session_id)

    def plan_file(self, session_id: str) -> Path:
        return self.plans_dir / plan_file_name(session_id)

    def is_plan_file(self, session_id: str, path: Path) -> bool:
        return path.resolve() == self.plan_file(session_id).resolve()

    def set_plan_mode(self, session_id: str, active: bool) -> None:
        """Turn Plan Mode on or off from the UI (Shift+Tab), without the model asking.

        zett-agent only changes the mode through its tools, so this edits the extension's
        set of active sessions; the tools and the prompt follow at the next model call.
        """
        sessions = plan_mode_sessions(self.plan_mode)
        if active:
            sessions.add(session_id)
        else:
            sessions.discard(session_id)

    def read_only_message(self, session_id: str) -> str:
        return (
            "Plan Mode is read-only: do not change files. If you want to keep a draft, write it to "
            f"your plan file {self.plan_file(session_id)}. When the plan is ready, call "
            "exit_plan_mode(plan=...) with the whole plan for the user's approval."
        )

    # -- middleware ----------------------------------------------------------------------------

    async def on_tool_call(
        self,
        context: AgentRunContext,
        call: ToolCall,
        call_next: Callable[[], Awaitable[Any]],
    ) -> Any:
        session_id = context.session_id
        if call.name in FILE_TOOLS and self.is_active(session_id):
            target = _target_of(call.arguments.get("path"))
            if target is None or not self.is_plan_file(session_id, target):
                raise PlanModeReadOnly(self.read_only_message(session_id))
            paths.ensure_private_dir(self.plans_dir)
            result = await call_next()
            paths.tighten(target, paths.PRIVATE_FILE_MODE)
            return result
        if call.name == ENTER_TOOL:
            result = await call_next()
            if getattr(result, "entered", False) is True:
                return {
                    **_as_dict(result),
                    "plan_file": str(self.plan_file(session_id)),
                    "note": "Only the plan file may be changed while Plan Mode is on.",
                }
            return result
        if call.name == EXIT_TOOL:
            result = await call_next()
            if getattr(result, "exited", False) is True:
                return await self._keep_plan(session_id, call, result)
            return result
        return await call_next()

    async def on_model_request(
        self,
        context: AgentRunContext,
        request: ModelRequest,
        call_next: ModelRequestNext,
    ) -> AsyncIterator[ModelEvent]:
        if self.is_active(context.session_id):
            request = dataclasses.replace(request, messages=self._with_note(context.session_id, request))
        stream = call_next(request)
        try:
            async for event in stream:
                yield event
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    def _with_note(self, session_id: str, request: ModelRequest) -> list[Any]:
        messages = list(request.messages)
        index = next((i for i, m in enumerate(messages) if not isinstance(m, SystemMessage)), len(messages))
        note = SystemMessage(
            content=(
                f"# Plan file\nYour plan file is {self.plan_file(session_id)}. You may keep a draft of "
                "the plan there with write_file or edit; every other file is read-only until the user "
                "approves the plan you submit with exit_plan_mode(plan=...)."
            )
        )
        messages.insert(index, note)
        return messages

    async def _keep_plan(self, session_id: str, call: ToolCall, result: Any) -> Any:
        plan = call.arguments.get("plan")
        if not isinstance(plan, str) or not plan.strip():
            return result
        target = self.plan_file(session_id)
        try:
            await asyncio.to_thread(paths.write_private_text, target, plan.strip() + "\n")
        except OSError:
            log.warning("could not keep the approved plan in %s", target, exc_info=True)
            return result
        return {**_as_dict(result), "plan_file": str(target)}


def _target_of(path: object) -> Path | None:
    if not isinstance(path, str) or not path:
        return None
    try:
        return resolve_tool_path(path)
    except (OSError, RuntimeError, ValueError):
        return None


def _as_dict(result: Any) -> dict[str, Any]:
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        dumped = dump(mode="json")
        if isinstance(dumped, dict):
            return dumped
    return dict(result) if isinstance(result, dict) else {"result": result}
