"""Which folder is "the project": the nearest one at or above the working folder that holds
something zett would load from it.

That is ``.zett/`` (settings, extensions, commands, skills), and what zett reads of Claude Code's
and the agents' conventions: ``.claude/commands/``, ``.claude/skills/``, ``.agents/skills/`` and
``.mcp.json``. A repository with only ``.claude/`` is a project too, so zett asks whether to trust
it (``config.trust``) instead of ignoring its files. The search stops below the home folder
(``~/.claude`` is the user's own, not a project) and at the root. Everything that looks for the
project (the trust question, the settings, the command and skill folders) asks this module, so
they always agree on one folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

PROJECT_DIR_NAME = ".zett"
MCP_JSON_NAME = ".mcp.json"
#: A project's Markdown command folders and skill folders: what is in them is hashed too, so they
#: load only once trusted (``zett_tui.workspace.extension_folders``).
PROJECT_COMMAND_FOLDERS = (".zett/commands", ".claude/commands")
PROJECT_SKILL_FOLDERS = (".agents/skills", ".claude/skills", ".zett/skills")
#: A project's subagent files (``workspace.agent_files``): hashed with the rest, loaded once trusted.
PROJECT_AGENT_FOLDERS = (".zett/agents", ".claude/agents")
#: Any one of these (a folder, or the file ``.mcp.json``) makes its folder the project.
PROJECT_MARKERS = (
    PROJECT_DIR_NAME,
    MCP_JSON_NAME,
    ".claude/commands",
    ".claude/skills",
    ".agents/skills",
    ".claude/agents",
)


def home_folder(env: Mapping[str, str]) -> Path | None:
    if env.get("HOME"):
        return Path(env["HOME"])
    try:
        return Path.home()
    except RuntimeError:
        return None


def project_root(cwd: Path, env: Mapping[str, str]) -> Path | None:
    """The nearest folder at or above ``cwd`` (below the home folder) holding a ``PROJECT_MARKERS``
    entry, or None. A marker that is a link counts: where it points is the trust question's business."""
    start = Path(os.path.abspath(cwd))
    home = home_folder(env)
    stop = Path(os.path.abspath(home)) if home is not None else None
    for folder in (start, *start.parents):
        if folder == stop:
            return None
        for marker in PROJECT_MARKERS:
            if os.path.lexists(folder / marker):
                return folder
    return None
