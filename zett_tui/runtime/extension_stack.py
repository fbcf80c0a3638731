"""Building the agent's extension stack: which extensions a host runs, and in which order.

The order is security-relevant. zett-agent wraps a tool call in the tool middleware of the
extensions in list order: the first extension is the outermost, the last the innermost. The rules
kept here, and checked by the attack corpus and the read-containment tests:

1. The history store comes first, then the tools and the shell's approval.
2. The Plan Mode guard sits outside the edit gate: it refuses a write before the gate asks about it.
3. The sandboxed shell runs every bash call itself (approved by now): no extension inside it sees
   one. The checkpoints sit just outside it, inside the gates: what they see is going to run.
4. Configured extensions sit inside zett's own (at the default priority): Plan Mode and the edit
   gate see a call first, and a call an outer extension passes on still meets them.
5. The hooks (``runtime.hooks``) sit outside the shell's approval, the Plan Mode guard and the
   edit gate: a PreToolUse hook sees a call first and can refuse it (or have zett ask) before any
   of them; what it lets through still meets every one of them, so it can only be stricter.
6. MCP tools (``runtime.mcp``) sit inside the Plan Mode guard and the edit gate and decide each
   ``mcp__`` call themselves (Plan Mode, the permission mode, the approval question) before it
   reaches the server; the checkpoints are inside them, so an MCP call that is going to run takes
   a checkpoint first, unless its server marks the tool ``readOnlyHint``.
7. The read gate runs the read tools itself, so it is the innermost middleware: every other
   extension sees a read call (and its result) as it would the tool's.
8. ``web_fetch`` (``runtime.web``) runs itself too, after asking; its extension sorts after Plan
   Mode by priority, so it is offered in Plan Mode as well (the question still comes).

No Textual here; the host calls ``build_extension_stack`` from ``AgentHost.start``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from zett_agent.extensions.base import AgentExtension

from zett_tui.core import paths
from zett_tui.runtime.extensions.registry import (
    ExtensionReport,
    bundled_class,
    bundled_entry,
    is_turned_on,
    load_extensions,
)
from zett_tui.runtime.files.read_access import is_inside
from zett_tui.runtime.files.read_gate import ReadGate
from zett_tui.runtime.modes import PermissionMode

if TYPE_CHECKING:
    from zett_tui.checkpoints.recording import CheckpointExtension
    from zett_tui.runtime.agent_options import HostOptions
    from zett_tui.runtime.hooks.extension import HooksExtension
    from zett_tui.runtime.hooks.runner import SessionHooks
    from zett_tui.runtime.recorder import Redactor
    from zett_tui.runtime.shell.policy import ShellPolicy, ShellRules
    from zett_tui.runtime.shell.sandbox import ShellSandbox
    from zett_tui.runtime.web.allowed_domains import DomainPermissions

#: The extensions zett-agent adds to every agent itself (names must be unique across all).
RUNTIME_EXTENSION_NAMES = ("InternalMessageExtension", "SteeringExtension")


class PlanGuard(Protocol):
    """What the host and the UI use of the bundled ``extensions/plan_guard.py``."""

    def is_active(self, session_id: str) -> bool: ...

    def plan_file(self, session_id: str) -> Path: ...

    def is_plan_file(self, session_id: str, path: Path) -> bool: ...

    def set_plan_mode(self, session_id: str, active: bool) -> None: ...


class EditGate(Protocol):
    """What the host uses of the bundled ``extensions/edit_approval.py``."""

    #: The session whose "apply all" holds for ``session_id`` (a subagent's: its parent's).
    session_of: Callable[[str], str]

    def reset(self, session_id: str) -> None: ...


@dataclass
class ExtensionStack:
    """What ``build_extension_stack`` made: the ordered list, and the parts the host talks to."""

    #: Every extension, outermost first: what ``Agent.create`` is given.
    extensions: list[AgentExtension]
    plan_guard: PlanGuard
    edit_gate: EditGate
    read_gate: ReadGate
    shell_rules: ShellRules
    shell_policy: ShellPolicy
    #: The shell sandbox, started.
    shell_sandbox: ShellSandbox
    #: What loaded from where, what did not and why (``/extensions``), zett's bundled ones first.
    report: ExtensionReport
    #: The hooks' extension (``runtime.hooks.extension.HooksExtension``); None without hooks.
    hooks: HooksExtension | None = None
    #: Which domains ``web_fetch`` reaches without asking (``runtime.web.allowed_domains``).
    web_permissions: DomainPermissions | None = None


async def build_extension_stack(
    options: HostOptions,
    *,
    history: AgentExtension,
    compaction: AgentExtension,
    recorder: AgentExtension,
    checkpoints: CheckpointExtension | None = None,
    redact: Redactor,
    mode_of: Callable[[str], PermissionMode],
    notify: Callable[[str, str], None],
    report_failure: Callable[[str], None],
    hooks: SessionHooks | None = None,
    todos: AgentExtension | None = None,
    subagents: Sequence[AgentExtension] = (),
    reads_only: Callable[[str], bool] = lambda session_id: False,
) -> ExtensionStack:
    """The extensions of one host's agent, in the order the module docstring gives.

    ``notify`` hears a storage problem or a missing sandbox (text, level); ``report_failure`` a
    configured extension that raised and switched itself off. ``reads_only``: whether a session
    is a read-only subagent's, whose commands run with the project read-only and no network.
    """
    from zett_agent.extensions import (
        AskUserExtension,
        FileSystemExtension,
        ToolGuidelinesExtension,
    )

    from zett_tui.runtime.plan_mode import ZettPlanMode
    from zett_tui.runtime.project_instructions import ProjectInstructionsExtension
    from zett_tui.runtime.shell.approval import ShellApproval
    from zett_tui.runtime.shell.bash_tool import SandboxedShell
    from zett_tui.runtime.shell.policy import ShellPolicy, ShellRules
    from zett_tui.runtime.shell.sandbox import ShellSandbox
    from zett_tui.runtime.tool_arguments import ToolArgumentErrors
    from zett_tui.runtime.web.extension import WEB_FETCH_TOOL, WebFetchExtension

    plan_mode = ZettPlanMode()
    plan_guard = bundled_class("plan_guard")(plan_mode)
    shell_rules = ShellRules(options.cwd)
    shell_policy = ShellPolicy(shell_rules, options.cwd, mode_of, plan_guard.is_active)
    edit_gate = bundled_class("edit_approval")(
        mode_of, project_root=options.cwd, is_exempt=plan_guard.is_plan_file
    )
    shell_sandbox = ShellSandbox(
        options.cwd,
        options.sandbox,
        output_dir=options.tool_output_dir or paths.tool_output_dir(),
        redact=redact,
    )
    await asyncio.to_thread(shell_sandbox.start)  # a probe: a few ms, off the event loop
    shell_policy.sandbox_missing = shell_sandbox.unavailable_reason
    if not shell_sandbox.available:
        notify(shell_sandbox.describe(), "warning")
    kept_output_dir = options.tool_output_dir or paths.tool_output_dir()
    web_fetch = WebFetchExtension(options.cwd, options.web, plan_active=plan_guard.is_active)
    read_gate = ReadGate(
        options.cwd,
        is_exempt=_zett_files_for_the_model(plan_guard, kept_output_dir, options.readable_folders),
    )
    hooks_extension = _hooks_extension(hooks, notify)
    bundled = [
        bundled_entry("plan_guard", plan_guard),
        bundled_entry("edit_approval", edit_gate),
    ]
    if is_turned_on("tool_output", options.extensions):
        tool_output_dir = options.tool_output_dir or paths.tool_output_dir()
        tool_output = bundled_class("tool_output")(tool_output_dir, redact)
        bundled.append(bundled_entry("tool_output", tool_output))
    mcp = _mcp_extension(options, mode_of, plan_guard)
    mcp_read_only = mcp[0].is_read_only if mcp else None
    # Plan Mode lets through web_fetch (it changes nothing, and still asks) and read-only MCP tools.
    plan_mode.also_allowed = lambda name: (
        name == WEB_FETCH_TOOL or (mcp_read_only is not None and mcp_read_only(name))
    )
    if checkpoints is not None and mcp:
        checkpoints.treat_as_read_only(mcp[0].is_read_only)
    # The first extension is the outermost tool middleware: the Plan Mode guard must refuse a
    # write before the edit gate asks about it.
    extensions: list[AgentExtension] = [
        ToolArgumentErrors(),  # outermost tool middleware: every tool's bad-argument report
        history,
        ToolGuidelinesExtension(),
        ProjectInstructionsExtension(options.cwd, notify=notify),
        FileSystemExtension(read_only=False),
        _bash_extension(),
        # Outside every gate: a hook's refusal comes before any question about the call.
        *([hooks_extension] if hooks_extension is not None else []),
        ShellApproval(storage=shell_policy),
        plan_guard,
        edit_gate,
        *mcp,
        # Inside the gates: a checkpoint is taken before a change that is going to run.
        *([checkpoints] if checkpoints is not None else []),
        # Runs every bash call itself (approved by now): no extension inside it sees one.
        SandboxedShell(shell_sandbox, plan_guard.is_active, reads_only),
        AskUserExtension(),
        *([todos] if todos is not None else []),  # ``todo_write`` (``runtime.todo``)
        *(entry.instance for entry in bundled[2:]),
        plan_mode,
    ]
    # Configured extensions sit inside zett's own (at the default priority): Plan Mode and the
    # edit gate see a call first, and a call an outer extension passes on still meets them.
    # The read gate runs the read tools itself, so it is the innermost middleware: every
    # other extension sees a read call (and its result) as it would the tool's.
    tail: list[AgentExtension] = [
        *options.extra_extensions,
        compaction,
        recorder,
        read_gate,
        # Sorts after Plan Mode (its priority): offered in Plan Mode too, and the innermost
        # middleware for its own tool; it asks before any domain not yet allowed.
        web_fetch,
        *_web_search(options),
        # ``task``, and a subagent's tools cut to its kind's: by priority its on_tool runs last,
        # and its gate is the outermost tool middleware (``runtime.subagents.extension``).
        *subagents,
    ]
    report = load_extensions(
        options.extensions,
        report=report_failure,
        taken_names=[e.name for e in (*extensions, *tail)] + list(RUNTIME_EXTENSION_NAMES),
    )
    extensions += [entry.instance for entry in report.loaded]
    extensions += tail
    report.loaded[:0] = bundled
    return ExtensionStack(
        extensions=extensions,
        plan_guard=plan_guard,
        edit_gate=edit_gate,
        read_gate=read_gate,
        shell_rules=shell_rules,
        shell_policy=shell_policy,
        shell_sandbox=shell_sandbox,
        report=report,
        hooks=hooks_extension,
        web_permissions=web_fetch.permissions,
    )


def _zett_files_for_the_model(
    plan_guard: Any, tool_output_dir: Path, readable: Sequence[Path] = ()
) -> Callable[[str, Path], bool]:
    """The files zett itself points the model at, free to read: its plan file, kept shell output,
    the user's skill folders (``real`` is resolved: a link out of one is not inside it)."""
    kept_output = Path(os.path.realpath(tool_output_dir))
    folders = [Path(os.path.realpath(folder)) for folder in readable]

    def is_exempt(session_id: str, real: Path) -> bool:
        return (
            is_inside(real, kept_output)
            or plan_guard.is_plan_file(session_id, real)
            or any(is_inside(real, folder) for folder in folders)
        )

    return is_exempt


def _mcp_extension(
    options: HostOptions, mode_of: Callable[[str], PermissionMode], plan_guard: Any
) -> list[Any]:
    """The MCP tools of the process's manager, each call asked about through a decision event
    (first), and their read-only ones offered again in Plan Mode (``mcp.plan_tools``)."""
    if options.mcp_manager is None:
        return []
    from zett_tui.runtime.mcp.extension import McpToolsExtension
    from zett_tui.runtime.mcp.plan_tools import McpPlanTools
    from zett_tui.runtime.mcp.saved_rules import McpRules

    tools = McpToolsExtension(
        options.mcp_manager,
        mode_of=mode_of,
        plan_active=plan_guard.is_active,
        ask_in_events=True,
        saved=McpRules(options.cwd),
    )
    return [tools, McpPlanTools(tools, plan_guard.is_active)]


def _web_search(options: HostOptions) -> list[AgentExtension]:
    """The provider's hosted web search, when ``[web] search`` asks for it."""
    if not options.web.search:
        return []
    from zett_tui.runtime.web.search import WebSearchExtension

    return [WebSearchExtension()]


def _hooks_extension(hooks: SessionHooks | None, notify: Callable[[str, str], None]) -> Any:
    """The PreToolUse / PostToolUse / Stop hooks, when the session has any hooks at all."""
    if not hooks:
        return None
    from zett_tui.runtime.hooks.extension import HooksExtension

    return HooksExtension(hooks, notify=notify)


def _bash_extension() -> AgentExtension:
    from zett_agent.extensions import BashExtension

    return BashExtension()
