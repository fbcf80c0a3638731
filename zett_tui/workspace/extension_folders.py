"""Which folders hold Markdown commands and skills: the user's always, a project's only when trusted.

The project is the folder that holds ``.zett/`` (``config.settings.project_root``). Its command
and skill files are part of what the trust question hashes (``config.trust``), so they load only
once the user trusted exactly what is there now (``still_trusted``), and a change asks again. A
repository without ``.zett/`` (only ``.claude/commands/``, say) has nothing to trust, so its
files do not load: creating ``.zett/`` there makes zett ask.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from zett_tui.config.settings import project_root
from zett_tui.config.trust import PROJECT_COMMAND_FOLDERS, PROJECT_SKILL_FOLDERS, still_trusted
from zett_tui.core import paths
from zett_tui.workspace.contained_folder import Problem
from zett_tui.workspace.markdown_commands import MarkdownCommand, Origin, load_commands
from zett_tui.workspace.skills import Skill, load_skills


def trusted_project(cwd: Path, env: Mapping[str, str]) -> Path | None:
    """The project folder above ``cwd`` when the user trusts what it holds now, else None."""
    root = project_root(cwd, env)
    if root is None:
        return None
    root = root.resolve()
    return root if still_trusted(root) else None


def command_folders(cwd: Path, env: Mapping[str, str]) -> list[Origin]:
    """The user's ``commands/`` first (their own command wins a name), then the project's."""
    folders = [Origin("user", paths.config_dir() / "commands")]
    root = trusted_project(cwd, env)
    if root is not None:
        folders += [Origin("project", root / folder, inside=root) for folder in PROJECT_COMMAND_FOLDERS]
    return folders


def skill_folders(cwd: Path, env: Mapping[str, str]) -> list[Origin]:
    """The user's skill folders first, then the project's."""
    home = Path(env.get("HOME") or Path.home())
    folders = [Origin("user", paths.config_dir() / "skills"), Origin("user", home / ".agents" / "skills")]
    root = trusted_project(cwd, env)
    if root is not None:
        folders += [Origin("project", root / folder, inside=root) for folder in PROJECT_SKILL_FOLDERS]
    return folders


@dataclass(frozen=True)
class WorkspaceFiles:
    """The Markdown commands and skills that loaded, and one problem per file that did not."""

    commands: list[MarkdownCommand]
    skills: list[Skill]
    problems: list[Problem]


def load_workspace_files(cwd: Path, env: Mapping[str, str]) -> WorkspaceFiles:
    """Read the user's and (when trusted) the project's commands and skills: file reads, so call
    it off the event loop."""
    commands, command_problems = load_commands(command_folders(cwd, env))
    skills, skill_problems = load_skills(skill_folders(cwd, env))
    return WorkspaceFiles(commands, skills, command_problems + skill_problems)
