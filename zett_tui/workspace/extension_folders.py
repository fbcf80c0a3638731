"""Which folders hold Markdown commands and skills: the user's always, a project's only when trusted.

The project is the nearest folder holding ``.zett/``, ``.mcp.json``, ``.claude/commands`` or a
skill folder (``config.project_folder.project_root``): a repository with only ``.claude/`` is one
too. Its command and skill files are part of what the trust question hashes (``config.trust``),
so they load only once the user trusted exactly what is there now, and a change asks again; a
file the trust question did not read (past its limits) does not load.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from zett_tui.config.project_folder import project_root
from zett_tui.config.trust import (
    PROJECT_AGENT_FOLDERS,
    PROJECT_COMMAND_FOLDERS,
    PROJECT_SKILL_FOLDERS,
    ProjectFiles,
    TrustState,
    project_files,
    trust_state,
)
from zett_tui.core import paths
from zett_tui.runtime.subagents.types import AgentType
from zett_tui.workspace.agent_files import load_agent_files
from zett_tui.workspace.contained_folder import Problem
from zett_tui.workspace.markdown_commands import MarkdownCommand, Origin, load_commands
from zett_tui.workspace.skills import Skill, load_skills, skill_prompt


def trusted_project(cwd: Path, env: Mapping[str, str]) -> ProjectFiles | None:
    """What the project above ``cwd`` holds, hashed now, when the user trusts exactly that; else None."""
    root = project_root(cwd, env)
    if root is None:
        return None
    project = project_files(root)
    if project is None or trust_state(project) is not TrustState.TRUSTED:
        return None
    return project


def _project_origins(project: ProjectFiles | None, folders: tuple[str, ...]) -> list[Origin]:
    if project is None:
        return []
    trusted = frozenset(project.root / relative for relative in project.files)
    return [
        Origin("project", project.root / folder, inside=project.root, trusted_files=trusted)
        for folder in folders
    ]


def command_folders(project: ProjectFiles | None) -> list[Origin]:
    """The user's ``commands/`` first (their own command wins a name), then a trusted project's."""
    return [
        Origin("user", paths.config_dir() / "commands"),
        *_project_origins(project, PROJECT_COMMAND_FOLDERS),
    ]


def skill_folders(project: ProjectFiles | None, env: Mapping[str, str]) -> list[Origin]:
    """The user's skill folders first, then a trusted project's."""
    home = Path(env.get("HOME") or Path.home())
    return [
        Origin("user", paths.config_dir() / "skills"),
        Origin("user", home / ".agents" / "skills"),
        *_project_origins(project, PROJECT_SKILL_FOLDERS),
    ]


def agent_folders(project: ProjectFiles | None) -> list[Origin]:
    """The user's ``agents/`` first (their own agent wins a name), then a trusted project's."""
    return [Origin("user", paths.config_dir() / "agents"), *_project_origins(project, PROJECT_AGENT_FOLDERS)]


@dataclass(frozen=True)
class WorkspaceFiles:
    """The Markdown commands and skills that loaded, and one problem per file that did not."""

    commands: list[MarkdownCommand]
    skills: list[Skill]
    problems: list[Problem]
    #: One line per project command or skill folder that is there but did not load (not trusted).
    untrusted: list[str] = field(default_factory=list)
    #: Custom subagents (``workspace.agent_files``).
    agents: list[AgentType] = field(default_factory=list)


def load_workspace_files(cwd: Path, env: Mapping[str, str]) -> WorkspaceFiles:
    """Read the user's and (when trusted) the project's commands and skills: file reads, so call
    it off the event loop."""
    project = trusted_project(cwd, env)
    commands, command_problems = load_commands(command_folders(project))
    skills, skill_problems = load_skills(skill_folders(project, env))
    agents, agent_problems = load_agent_files(agent_folders(project))
    untrusted: list[str] = []
    if project is None:
        root = project_root(cwd, env) or cwd
        for folder in (*PROJECT_COMMAND_FOLDERS, *PROJECT_SKILL_FOLDERS, *PROJECT_AGENT_FOLDERS):
            if (root / folder).is_dir():
                untrusted.append(
                    f"{root / folder}: not loaded, this folder is not trusted (/extensions trust reviews it)"
                )
    problems = command_problems + skill_problems + agent_problems
    return WorkspaceFiles(commands, skills, problems, untrusted, agents)


def command_named_in(text: str, files: WorkspaceFiles) -> MarkdownCommand | None:
    """The Markdown command ``/NAME args`` in ``text`` names, if any."""
    stripped = text.strip()
    name = stripped[1:].partition(" ")[0] if stripped.startswith("/") else ""
    return next((command for command in files.commands if name and command.name == name), None)


def expand_prompt(text: str, files: WorkspaceFiles) -> str:
    """``text`` as ``zett -p`` sends it: ``/NAME args`` naming a Markdown command or a skill is
    expanded as the chat would, anything else is sent as it is."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return text
    name, _, arguments = stripped[1:].partition(" ")
    for command in files.commands:
        if command.name == name:
            return command.expand(arguments)
    for skill in files.skills:
        if skill.name == name:
            return skill_prompt(skill, arguments)
    return text
