"""``/extensions [trust]``: what extensions, commands, skills and MCP servers run, from where, what
is off and what failed.

``/extensions trust`` asks again whether to trust this folder's settings, extensions, commands,
skills and MCP servers (to trust a folder after saying no, or to stop trusting one).
``/extensions allow`` pins the bytes of the files the user's own extensions, MCP servers and hooks
run from where sandboxed commands write (``config.pinned_files``): the user reviewed them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from zett_tui.config.trust import TrustState, find_project, trust_state
from zett_tui.core import paths
from zett_tui.runtime.extensions.catalog import BUNDLED_EXTENSIONS
from zett_tui.runtime.extensions.registry import ExtensionReport
from zett_tui.ui.chat.command_context import SlashCommand
from zett_tui.ui.chat.commands.mcp import describe_state
from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.runtime.hooks.runner import SessionHooks
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command(
    "extensions",
    "List the extensions: what runs and from where, what is off, what failed; trust: review this folder's",
    arguments="[trust|allow]",
)
def extensions_command(ctx: CommandContext, arguments: str) -> None:
    wanted = arguments.strip().lower()
    if wanted == "trust":
        ctx.review_trust()
        return
    if wanted == "allow":
        allow_user_files(ctx)
        return
    if wanted:
        ctx.say(f"/extensions takes no argument, 'trust' or 'allow', not {wanted!r}.", "warning")
        return
    if ctx.host is None:
        ctx.say("zett is still starting; the extensions load with the model.", "info")
        return
    text = describe_extensions(ctx.host.extension_report, _folder_line(ctx)) + describe_hooks(ctx.host.hooks)
    listing = describe_file_commands(ctx.commands.added().values(), ctx.commands.problems, ctx.commands.notes)
    servers = describe_mcp_sources(ctx.host.options.mcp_manager, ctx.launch.mcp_problems)
    ctx.say(text + listing + servers, "info")


def allow_user_files(ctx: CommandContext) -> None:
    """Pin what the user's extensions and MCP servers run from writable folders, as it is now."""
    from zett_tui.config.pinned_files import allow, unpinned
    from zett_tui.runtime.mcp.server_connection import user_server_files

    if ctx.host is None:
        ctx.say("zett is still starting; try again in a moment.", "info")
        return
    files = [
        config.file
        for config in ctx.host.options.extensions
        if config.source == "user" and config.file is not None
    ]
    manager = ctx.host.options.mcp_manager
    for config in manager.configs.values() if manager is not None else ():
        if config.project_root is None and config.command:
            files += user_server_files(config)
    files += ctx.host.hooks.files_to_allow()
    waiting = unpinned(dict.fromkeys(files))
    if not waiting:
        ctx.say(
            "Nothing to allow: every file your extensions, MCP servers and hooks run is as you allowed it.",
            "info",
        )
        return
    done = allow(waiting)
    listing = "\n".join(f"  {path}" for path in done)
    ctx.say(
        f"Allowed these files as they are now (they lie where sandboxed commands write):\n{listing}\n"
        "MCP servers pick them up at their next retry; extensions with /new.",
        "info",
    )


#: How ``/extensions`` names where a server came from (``McpServerConfig.source``).
MCP_SOURCE_LABELS = {"user": "user config", "project": "project config", ".mcp.json": "project .mcp.json"}


def describe_mcp_sources(manager: McpManager | None, problems: Sequence[str]) -> str:
    """Each MCP server with where it came from (the file) and its state, then what did not load."""
    lines: list[str] = []
    statuses = manager.statuses() if manager is not None else []
    if statuses and manager is not None:
        lines.append("\nMCP servers (/mcp lists their tools):")
        for status in statuses:
            config = manager.configs[status.name]
            where = MCP_SOURCE_LABELS.get(config.source, config.source)
            if config.config_file is not None:
                where += f" {config.config_file}"
            lines.append(f"  {status.name:<16} {describe_state(status)}\n{'':<19}from {where}")
    if problems:
        lines.append("\nMCP servers not loaded:")
        lines += [f"  {problem}" for problem in problems]
    return "\n".join(lines)


def describe_file_commands(
    commands: Iterable[SlashCommand], problems: Sequence[str], notes: Sequence[str] = ()
) -> str:
    """The Markdown commands and skills offered, with where each came from, and what did not load."""
    lines: list[str] = []
    offered = sorted(commands, key=lambda command: (command.source, command.name))
    if offered:
        lines.append("\nMarkdown commands and skills:")
        lines += [f"  /{command.name:<21} {command.source}" for command in offered]
    if problems:
        lines.append("\nCommand and skill files not loaded:")
        lines += [f"  {problem}" for problem in problems]
    if notes:
        lines.append("\nNot loaded on purpose:")
        lines += [f"  {note}" for note in notes]
    return "\n".join(lines)


def describe_hooks(hooks: SessionHooks) -> str:
    """The hooks in the order they are configured (the user's first), each with its file and line."""
    if not hooks.hooks:
        return (
            '\nHooks: none ([[hooks.PreToolUse]] command = "..." in a config file adds one; see the README).'
        )
    lines = ["\nHooks (shell commands, run outside the sandbox as your shell would):"]
    for hook in hooks.hooks:
        matcher = hook.matcher if hook.matcher not in ("", "*") else "(all)"
        lines.append(
            f"  {hook.event:<16} {matcher:<14} {hook.command}\n{'':<20}{hook.source}, {hook.where}, "
            f"timeout {hook.timeout:g} s"
        )
        if hooks.is_off(hook):
            lines.append(f"{'':<20}OFF: the project's files changed since you trusted them")
        elif hook in hooks.failures:
            lines.append(f"{'':<20}failed this session: {hooks.failures[hook]}")
    return "\n".join(lines)


def describe_extensions(report: ExtensionReport, folder_line: str) -> str:
    """The ``/extensions`` text: loaded ones in the order they wrap calls, then what is not running."""
    lines = ["Extensions, outermost first (each sees a tool call or model request before the next):"]
    for entry in report.loaded:
        note = BUNDLED_EXTENSIONS[entry.name].summary if entry.source == "bundled" else ""
        if entry.failure:
            note = f"OFF for this session: it {entry.failure}"
        lines.append(
            f"  {entry.name:<16} {entry.source:<8} {entry.origin}" + (f"\n{'':<28}{note}" if note else "")
        )
    turned_off = {config.name: config for config in report.turned_off}
    loaded = {entry.name for entry in report.loaded}
    for name, bundled in BUNDLED_EXTENSIONS.items():
        if name not in loaded and name not in turned_off:
            lines.append(
                f"  {name:<16} off      {bundled.summary}; [extensions.{name}] enabled = true turns it on"
            )
    for config in turned_off.values():
        lines.append(f"  {config.name:<16} off      turned off by enabled = false ({config.source})")
    if report.problems:
        lines.append("Not loaded:")
        lines.extend(
            f"  {problem.name} ({problem.source}, {problem.origin}): {problem.error}"
            for problem in report.problems
        )
    lines.append(folder_line)
    lines.append(
        f"Your own: put a file in {paths.config_dir() / 'extensions'} and name it in {paths.config_file()} "
        '([extensions.NAME] file = "name.py"), or give path = "package.module:Class". '
        "The README's “Extensions” section shows how to write one."
    )
    return "\n".join(lines)


def _folder_line(ctx: CommandContext) -> str:
    project = find_project(ctx.cwd, os.environ)
    if project is None:
        return "This folder has no project settings, extensions, commands or MCP servers (.zett/, .mcp.json, .claude/)."
    state = trust_state(project)
    left_out = "".join(f"\n  left out: {line}" for line in project.left_out_lines())
    if state is TrustState.TRUSTED:
        return f"{project.root}: trusted (/extensions trust to review).{left_out}"
    if state is TrustState.DECLINED:
        return f"{project.root}: not trusted, not loaded (/extensions trust to review).{left_out}"
    return (
        f"{project.root}: not loaded, you have not trusted these files (/extensions trust to review)."
        + left_out
    )
