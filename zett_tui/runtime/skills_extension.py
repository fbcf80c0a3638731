"""Skills for the model: their names and descriptions up front, a skill's body when it loads it.

One system message lists each skill (name, description); the ``load_skill`` tool returns a
skill's instructions, its folder and the list of its other files. Those files are read with the
ordinary read tools: the host makes the user's skill folders readable without a question
(``HostOptions.readable_folders``), a project's lie in the project already. ``load_skill`` only
returns text zett read itself (``workspace.skills``), so it needs no approval and runs in Plan
Mode. No Textual here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.messages import SystemMessage
from zett_agent.tools.base import AgentTool, tool

from zett_tui.workspace.skills import Skill

if TYPE_CHECKING:
    from zett_tui.runtime.agent_options import HostOptions

LOAD_SKILL_TOOL = "load_skill"


class SkillsExtension(AgentExtension):
    """Advertise ``skills`` in a system message and register ``load_skill`` (only when there are any)."""

    name = "SkillsExtension"

    def __init__(self, skills: Sequence[Skill]) -> None:
        self._skills = {skill.name: skill for skill in skills}
        self._tool = self._build_tool()

    @property
    def skills(self) -> tuple[Skill, ...]:
        return tuple(self._skills.values())

    def use(self, skills: Sequence[Skill]) -> None:
        """Offer ``skills`` from the next model request on (a project trusted mid-session)."""
        self._skills = {skill.name: skill for skill in skills}

    async def on_tool(self, context: AgentRunContext) -> None:
        if self._skills:
            context.register_tool(self._tool)

    async def on_state(self, context: AgentRunContext) -> None:
        if not self._skills:
            return
        instructions = [item for item in context.state.messages if isinstance(item, SystemMessage)]
        context.add_message(SystemMessage(content=self.catalog()), index=len(instructions))

    def catalog(self) -> str:
        entries = "\n".join(f"- {skill.name}: {skill.description}" for skill in self._skills.values())
        return (
            "# Available skills\n"
            "A skill is a set of instructions (and files) for one kind of task. When a task matches a "
            f"skill's description, call `{LOAD_SKILL_TOOL}` with its name first and follow the "
            "instructions it returns.\n\n"
            f"{entries}"
        )

    def body_of(self, name: str) -> str:
        """What ``load_skill`` returns for ``name``; ``ValueError`` for a name not in the list."""
        skill = self._skills.get(name)
        if skill is None:
            available = ", ".join(sorted(self._skills)) or "none"
            raise ValueError(f"There is no skill {name!r}; the skills are: {available}")
        files = skill.files()
        listing = "\n".join(f"- {skill.folder / file}" for file in files) if files else "(none)"
        return (
            f"# Skill: {skill.name}\n"
            f"Folder: {skill.folder}\n"
            f"Files beside SKILL.md (read them with the read tools when the instructions need them):\n{listing}\n\n"
            f"{skill.body}"
        )

    def _build_tool(self) -> AgentTool:
        body_of = self.body_of

        @tool(name=LOAD_SKILL_TOOL)
        def load_skill(name: str) -> str:
            """Load one skill's complete instructions and the list of its files.

            Args:
                name: The skill's exact name from the "Available skills" list.

            Snippet:
                load_skill(name="release-notes")

            Guidelines:
                - Load a skill before doing a task its description matches, then follow it.
                - Use only names from the "Available skills" list.
            """
            return body_of(name)

        return load_skill


def with_skills(options: HostOptions, skills: Sequence[Skill]) -> HostOptions:
    """``options`` with ``skills`` for the model, and the user's skill folders readable. The
    extension is there with no skills too (it then adds nothing), so ``skills_of`` can give it a
    trusted project's skills later."""
    readable = [skill.folder for skill in skills if skill.origin.kind == "user"]
    return dataclasses.replace(
        options,
        extra_extensions=(*options.extra_extensions, SkillsExtension(skills)),
        readable_folders=(*options.readable_folders, *readable),
    )


def skills_of(options: HostOptions) -> SkillsExtension | None:
    """The skills extension ``with_skills`` put in ``options``, if any."""
    for extension in options.extra_extensions:
        if isinstance(extension, SkillsExtension):
            return extension
    return None
