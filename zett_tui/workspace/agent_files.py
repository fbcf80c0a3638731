"""Custom subagents from Markdown files: the user's ``<config>/agents/*.md`` always, a trusted
project's ``.zett/agents/`` and ``.claude/agents/`` (Claude Code's format) once trusted.

Front matter: ``name`` (default: the file's name), ``description``, ``tools``, ``model``; the body
is the agent's instructions. Each file that does not load is one ``Problem``; the rest still do.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from zett_tui.core.contained_read import NotRead
from zett_tui.runtime.subagents.types import BUILT_IN, NAME, AgentType, tool_names
from zett_tui.workspace.contained_folder import Problem, read_text, real_folder, walk_files
from zett_tui.workspace.front_matter import FrontMatterError, split_front_matter
from zett_tui.workspace.markdown_commands import Origin

_DESCRIPTION_CHARS = 300
BUILT_IN_NAMES = frozenset(kind.name for kind in BUILT_IN)


def load_agent_files(folders: Iterable[Origin]) -> tuple[list[AgentType], list[Problem]]:
    """The agents of ``folders`` in order (the first of a name wins) and what did not load."""
    problems: list[Problem] = []
    agents: dict[str, AgentType] = {}
    for origin in folders:
        root = real_folder(origin.folder, inside=origin.inside, problems=problems)
        if root is None:
            continue
        for path in walk_files(origin.folder, problems, suffix=".md"):
            agent = _load_one(path, origin, root, problems)
            if agent is None:
                continue
            if agent.name in agents:
                problems.append(
                    Problem(path, f"agent {agent.name!r} is already defined by {agents[agent.name].source}")
                )
                continue
            agents[agent.name] = agent
    return list(agents.values()), problems


def _load_one(path: Path, origin: Origin, root: Path, problems: list[Problem]) -> AgentType | None:
    refused = origin.untrusted(path)
    if refused is not None:
        problems.append(refused)
        return None
    try:
        document = split_front_matter(read_text(path, inside=root))
    except (NotRead, FrontMatterError) as why:
        problems.append(Problem(path, str(why)))
        return None
    fields = document.fields
    name = (fields.get("name") or path.stem).strip().lower()
    if name in BUILT_IN_NAMES:
        problems.append(Problem(path, f"{name!r} is a built-in subagent; give this one another name"))
        return None
    if not NAME.match(name):
        problems.append(Problem(path, "its name can only have lowercase letters, digits, '-' and '_'"))
        return None
    description = " ".join(fields.get("description", "").split())[:_DESCRIPTION_CHARS]
    prompt = document.body.strip()
    if not description or not prompt:
        problems.append(
            Problem(path, "an agent needs a description (front matter) and instructions (the body)")
        )
        return None
    model = fields.get("model", "").strip()
    return AgentType(
        name,
        description,
        prompt,
        tools=tool_names(fields.get("tools", "")),
        model="" if model == "inherit" else model,
        source=f"{origin.kind}: {path}",
    )
