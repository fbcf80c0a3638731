"""``/agents``: the kinds of subagent the ``task`` tool can start, and where each came from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command("agents", "List the subagents the model can start (task tool) and where each came from")
def agents_command(ctx: CommandContext, arguments: str) -> None:
    host = ctx.host
    if host is None:
        ctx.say("The model is not ready yet.", "warning")
        return
    runner = host.subagents
    lines = ["Subagents (the model starts one with the task tool; it runs under the same permissions):"]
    for kind in runner.kinds.values():
        tools = (
            (
                "reads only, with a shell that cannot write and has no network"
                if kind.read_only_shell
                else "reads only"
            )
            if kind.read_only
            else ("all but task" if kind.tools is None else ", ".join(sorted(kind.tools)))
        )
        if kind.read_only_shell and not kind.read_only:
            tools += " (its shell cannot write and has no network)"
        model = kind.model or "the session's model"
        lines.append(f"  {kind.name:<16} {kind.description}")
        lines.append(f"  {'':<16} tools: {tools} · model: {model} · from {kind.source}")
    lines.append(
        f"At most {runner.max_parallel} run at once; "
        + (
            "subagents cannot start their own."
            if runner.max_depth <= 1
            else f"delegation goes {runner.max_depth} deep."
        )
    )
    lines.append(
        "Add your own as Markdown (front matter: name, description, tools, model, and "
        "shell: read-only for explore's shell) in the config folder's agents/, or in a trusted "
        "project's .zett/agents/ or .claude/agents/."
    )
    ctx.say("\n".join(lines), "info")
