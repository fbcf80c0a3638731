"""Markdown commands and skills as slash commands, and skills for the model.

Loaded once per chat, after the trust question and before the agent is built (the project's
files load only when trusted: ``workspace.extension_folders``). A Markdown command sends its
expanded text as the user's prompt; ``/SKILL args`` sends a prompt asking the model to load and
follow that skill. Both go through the turn runner like a typed prompt, so Plan Mode, the
permission mode and approvals apply as to any prompt. Each file that did not load, and each name
a built-in already has, is one warning line in the transcript (and listed by ``/extensions``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING

from zett_tui.ui.chat.command_context import SlashCommand
from zett_tui.workspace.extension_folders import WorkspaceFiles, load_workspace_files
from zett_tui.workspace.skills import skill_prompt

if TYPE_CHECKING:
    from pathlib import Path

    from zett_tui.ui.chat.command_context import CommandContext
    from zett_tui.ui.chat.view import ChatView
    from zett_tui.workspace.markdown_commands import MarkdownCommand
    from zett_tui.workspace.skills import Skill

log = logging.getLogger(__name__)


async def offer_workspace_files(chat: ChatView, cwd: Path) -> WorkspaceFiles:
    """Load the commands and skills of ``cwd`` off the event loop, offer them in ``chat``, say what
    failed.

    Called again when the folder's trust changes mid-session: the commands offered are then
    exactly the new ones, and only problems not said before are said (the host's skills follow
    with ``runtime.workspace_offer``)."""
    try:
        files = await asyncio.to_thread(load_workspace_files, cwd, dict(os.environ))
    except Exception as error:  # whatever went wrong, zett starts without them and says so
        log.warning("loading the Markdown commands and skills failed", exc_info=True)
        chat.say(f"Could not load the Markdown commands and skills: {error}", "warning")
        return WorkspaceFiles([], [], [])
    lines = [str(problem) for problem in files.problems]
    commands, taken = slash_commands(files)
    lines += taken
    for clash in chat.commands.replace_added(commands):
        lines.append(f"/{clash.name} ({clash.source}) is not offered: zett has a built-in /{clash.name}")
    said = set(chat.commands.problems)
    chat.commands.problems = lines
    chat.commands.notes = files.untrusted
    for line in lines:
        if line not in said:
            chat.say(line, "warning")
    return files


def slash_commands(files: WorkspaceFiles) -> tuple[dict[str, SlashCommand], list[str]]:
    """The commands, then the skills (a skill whose name a command has is not offered as /NAME)."""
    offered: dict[str, SlashCommand] = {}
    taken: list[str] = []
    for command in files.commands:
        offered[command.name] = _command(command)
    for skill in files.skills:
        if skill.name in offered:
            taken.append(
                f"{skill.folder}: skill {skill.name!r} is not offered as /{skill.name}: a command has that name"
            )
            continue
        offered[skill.name] = _skill_command(skill)
    return offered, taken


def _command(command: MarkdownCommand) -> SlashCommand:
    source = f"{command.origin.kind} command"

    def run(ctx: CommandContext, arguments: str) -> None:
        text = command.expand(arguments)
        if command.model:
            _send_with_its_model(ctx, command, text, f"/{command.name} {arguments}".rstrip())
        else:
            ctx.send_prompt(text)

    model = f" [model: {command.model}]" if command.model else ""
    description = f"{command.description or command.path.name} ({source}){model}"
    return SlashCommand(command.name, description, run, command.argument_hint, source)


def _send_with_its_model(ctx: CommandContext, command: MarkdownCommand, text: str, typed: str) -> None:
    """The command's turn, answered by the model its front matter names (``providers.command_model``);
    one that cannot be used is one line, and the session's model answers."""
    from zett_tui.runtime.turn_model import model_for_command

    current = ctx.host.model_label if ctx.host is not None else ctx.launch.model_label
    model, problem = model_for_command(command.name, command.model, ctx.launch.model_catalog, current)
    if problem:
        ctx.say(problem, "warning")
    if model is None:
        ctx.send_prompt(text)
    else:
        ctx.send_prompt_with_model(text, model, put_back=typed)


def _skill_command(skill: Skill) -> SlashCommand:
    source = f"{skill.origin.kind} skill"

    def run(ctx: CommandContext, arguments: str) -> None:
        ctx.send_prompt(skill_prompt(skill, arguments))

    return SlashCommand(skill.name, f"{skill.description} ({source})", run, "", source)
