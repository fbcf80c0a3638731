"""``/skills``: the skills the model can load, with where each came from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command("skills", "List the skills the model can load (/NAME uses one)")
def skills_command(ctx: CommandContext, arguments: str) -> None:
    skills = [command for command in ctx.commands.added().values() if command.source.endswith("skill")]
    if not skills:
        ctx.say(
            "No skills. Put a folder with a SKILL.md in ~/.agents/skills/, the zett config folder's "
            "skills/, or (in a trusted project) .agents/skills/, .claude/skills/ or .zett/skills/.",
            "info",
        )
        return
    lines = ["Skills (the model sees each name and description, and loads one when it uses it):"]
    for command in sorted(skills, key=lambda command: command.name):
        lines.append(f"  /{command.name:<21} {command.description}")
    ctx.say("\n".join(lines), "info")
