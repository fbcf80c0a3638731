"""The ``task`` tool (hooks see ``Task``), and what a subagent's requests may call.

A request of the main session gets ``task``; a child's request gets it only below the configured
depth. A child's tool set is cut to what its kind allows once every other extension has
registered its tools (this extension's ``on_tool`` runs last, after Plan Mode's): a tool that is
not registered cannot be called (the runtime answers "Unknown tool"), whatever the model sends.
The tool-call middleware refuses such a call again, should anything register it later. A child
never gets Plan Mode's tools: its parent's mode is its mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.messages import SystemMessage, ToolCall
from zett_agent.tools.base import AgentTool, current_tool_call_id

from zett_tui.runtime.subagents.runner import Child, SubagentRunner
from zett_tui.runtime.subagents.types import READ_TOOLS, SHELL_TOOL, describe_types
from zett_tui.runtime.tool_refusal import ToolRefused

TASK_TOOL = "task"
#: Tools no subagent gets, whatever its kind: Plan Mode is the parent's.
NEVER_FOR_CHILDREN = frozenset({"enter_plan_mode", "exit_plan_mode"})


class SubagentToolRefused(ToolRefused):
    """A subagent called a tool its kind does not have."""


def task_description(runner: SubagentRunner) -> str:
    return (
        "Hand a self-contained job to a subagent: a separate agent with its own context (your "
        "conversation is not in it: put everything it needs in prompt), the same permissions, and "
        "your tools minus this one. It works, then answers with a report that you get as this "
        "tool's result (the user does not see it: summarize it). Use it for broad searches, "
        "reviews, or work in one area that would fill your context; use the direct tools for one "
        "read or one search. Several task calls in one response run in parallel.\n"
        "subagent_type (default general):\n" + describe_types(list(runner.kinds.values()))
    )


def task_parameters(runner: SubagentRunner) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "The job in 3 to 6 words (shown to the user)."},
            "prompt": {
                "type": "string",
                "description": "The whole job: context, what to do, what to report.",
            },
            "subagent_type": {"type": "string", "enum": list(runner.kinds)},
        },
        "required": ["description", "prompt"],
        "additionalProperties": False,
    }


class SubagentToolGate(AgentExtension):
    """The outermost tool middleware: a subagent's call of a tool its kind does not have is refused
    before any other extension sees it (Plan Mode's, for one, asks about ``enter_plan_mode`` by
    name, registered or not)."""

    name = "ZettSubagentToolGate"
    priority = 0

    def __init__(
        self, runner: SubagentRunner, plan_active: Callable[[str], bool] = lambda session_id: False
    ) -> None:
        self.runner = runner
        #: Whether Plan Mode is on for a session: switched on while a subagent runs, it holds the
        #: subagent to reading too (Plan Mode's own guard knows only the main session).
        self._plan_active = plan_active

    async def before_tool(self, context: AgentRunContext, call: ToolCall) -> None:
        """Before Plan Mode's ``before_tool``, which asks the user about ``enter_plan_mode`` whether
        the tool is registered or not. Raising here ends the subagent's run (the runtime fails the
        request), which the parent then hears; any other unknown tool is an ordinary failed call."""
        child = self.runner.child(context.session_id)
        if child is not None and call.name in NEVER_FOR_CHILDREN:
            raise SubagentToolRefused(f"The {child.kind.name} subagent cannot use {call.name}.")

    async def on_tool_call(
        self, context: AgentRunContext, call: ToolCall, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        child = self.runner.child(context.session_id)
        if child is not None and not _allowed(child, call.name, self.runner):
            raise SubagentToolRefused(f"The {child.kind.name} subagent cannot use {call.name}.")
        reads = call.name in READ_TOOLS or (
            call.name == SHELL_TOOL and child is not None and child.kind.read_only_shell
        )
        if child is not None and not reads and self._plan_active(child.parent_session_id):
            raise SubagentToolRefused(
                f"Plan Mode is on: the {child.kind.name} subagent may only read now, so {call.name} did not run."
            )
        return await call_next()


def _allowed(child: Child, tool: str, runner: SubagentRunner) -> bool:
    if tool in NEVER_FOR_CHILDREN or not child.kind.allows(tool):
        return False
    return tool != TASK_TOOL or child.depth < runner.max_depth


class SubagentExtension(AgentExtension):
    """Registers ``task`` and holds each subagent to its kind's tools."""

    name = "ZettSubagents"
    #: After every other extension (Plan Mode is 1_000_000): its ``on_tool`` sees the final tool set.
    priority = 2_000_000

    def __init__(self, runner: SubagentRunner) -> None:
        self.runner = runner

    async def on_tool(self, context: AgentRunContext) -> None:
        runner, session_id = self.runner, context.session_id
        child = runner.child(session_id)
        if child is not None:
            for name in list(context.tools):
                if not _allowed(child, name, runner):
                    del context.tools[name]
            if child.kind.tools is not None:
                context.server_tools.clear()
        if runner.may_delegate(session_id) and TASK_TOOL not in context.tools:
            context.register_tool(self._task_tool(context))

    async def on_state(self, context: AgentRunContext) -> None:
        """A child's kind's instructions, after the system messages (and the project's)."""
        child = self.runner.child(context.session_id)
        if child is None:
            return
        count = sum(1 for message in context.state.messages if isinstance(message, SystemMessage))
        context.add_message(SystemMessage(content=f"# Your role\n\n{child.kind.prompt}"), index=count)

    def _task_tool(self, context: AgentRunContext) -> AgentTool:
        runner = self.runner

        async def task(
            description: str = "", prompt: str = "", subagent_type: str = "general", **unknown: Any
        ) -> str:
            if unknown:
                raise ValueError(
                    f"task takes description, prompt and subagent_type (got {', '.join(sorted(unknown))})"
                )
            if not isinstance(prompt, str) or not prompt.strip():
                raise ValueError("task needs a prompt: the whole job, with the context the subagent needs")
            if not isinstance(description, str):
                raise ValueError("description must be a few words")
            call_id = current_tool_call_id() or ""
            kind = subagent_type if isinstance(subagent_type, str) and subagent_type else "general"
            return await runner.run(context, call_id, description.strip() or kind, prompt, kind)

        return AgentTool(
            name=TASK_TOOL,
            description=task_description(runner),
            parameters=task_parameters(runner),
            handler=task,
            guidelines=(),
        )
