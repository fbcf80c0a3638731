"""A running session takes the folder's workspace files again (its trust changed mid-session):
the skills and custom subagent types on offer are exactly the new ones. The chat's slash commands
follow in the UI (``ui/chat/workspace_commands.py``); this is the runtime's part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from zett_tui.runtime.skills_extension import skills_of
from zett_tui.runtime.subagents.types import AgentType, agent_types

if TYPE_CHECKING:
    from zett_tui.runtime.host import AgentHost
    from zett_tui.workspace.skills import Skill

__all__ = ["offer_workspace_files"]


def offer_workspace_files(host: AgentHost, skills: Sequence[Skill], agents: Sequence[AgentType]) -> None:
    """From now on ``host`` offers ``skills`` to the model and ``agents`` (with the built-in
    kinds) as subagent types."""
    extension = skills_of(host.options)
    if extension is not None:
        extension.use(skills)
    host.subagents.use(agent_types(agents))
