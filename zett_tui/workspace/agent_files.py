"""Custom subagents from Markdown files: the user's ``<config>/agents/*.md`` always, a trusted
project's ``.zett/agents/`` and ``.claude/agents/`` (Claude Code's format) once trusted.

Front matter: ``name`` (default: the file's name), ``description``, ``tools``, ``model``, and
zett's own ``shell: read-only``; the body is the agent's instructions. Each file that does not load
is one ``Problem``; the rest still do.

``shell: read-only`` gives the agent ``explore``'s shell: ``bash`` (added to a ``tools`` list that
lacks it) whose commands run in the sandbox with the project read-only and the network off, and
not at all where no sandbox can start (``runtime.shell.bash_tool``). The key only ever takes
writing away: any other value is a problem, never a writable shell (that is ``Bash`` in ``tools``,
behind the usual questions).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from zett_tui.runtime.subagents.types import BUILT_IN, NAME, SHELL_TOOL, AgentType, tool_names
from zett_tui.workspace.contained_folder import Problem
from zett_tui.workspace.front_matter import Document
from zett_tui.workspace.markdown_folders import Origin, load_markdown_folders

_DESCRIPTION_CHARS = 300
BUILT_IN_NAMES = frozenset(kind.name for kind in BUILT_IN)
#: How ``shell:`` may be spelled to ask for the read-only shell.
READ_ONLY_SHELL = frozenset({"read-only", "readonly", "read_only"})


def load_agent_files(folders: Iterable[Origin]) -> tuple[list[AgentType], list[Problem]]:
    """The agents of ``folders`` in order (the first of a name wins) and what did not load."""
    return load_markdown_folders(
        folders,
        _build,
        name_of=lambda agent: agent.name,
        taken=lambda name, first: f"agent {name!r} is already defined by {first.source}",
    )


def _build(path: Path, origin: Origin, document: Document) -> AgentType | str:
    fields = document.fields
    name = (fields.get("name") or path.stem).strip().lower()
    if name in BUILT_IN_NAMES:
        return f"{name!r} is a built-in subagent; give this one another name"
    if not NAME.match(name):
        return "its name can only have lowercase letters, digits, '-' and '_'"
    description = " ".join(fields.get("description", "").split())[:_DESCRIPTION_CHARS]
    prompt = document.body.strip()
    if not description or not prompt:
        return "an agent needs a description (front matter) and instructions (the body)"
    model = fields.get("model", "").strip()
    tools = tool_names(fields.get("tools", ""))
    shell = fields.get("shell")
    read_only_shell = shell is not None
    if shell is not None and shell.strip().strip("'\"").lower() not in READ_ONLY_SHELL:
        return (
            f"shell can only be 'read-only' (got {shell.strip()[:40]!r}); "
            "a shell that may write is 'Bash' in tools"
        )
    if read_only_shell and tools is not None:
        tools = tools | {SHELL_TOOL}
    return AgentType(
        name,
        description,
        prompt,
        tools=tools,
        model="" if model == "inherit" else model,
        source=f"{origin.kind}: {path}",
        read_only_shell=read_only_shell,
    )
