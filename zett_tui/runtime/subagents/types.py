"""The kinds of subagent the ``task`` tool can start, and the tools each may use.

Built in: ``general`` (every tool the parent has but ``task``) and ``explore`` (reads only:
``read_file``, ``view_image``, ``glob``, ``grep``, and ``bash`` run as Plan Mode runs it, in a
sandbox where the project is read-only, with the network off; no write tool). Custom ones come from
Markdown files with front matter (``name``, ``description``, ``tools``, ``model``) and the body as
their instructions: Claude Code's agent files, so existing ``.claude/agents/*.md`` just work.
``tools`` takes Claude Code's names (``Read, Grep, Glob, Bash, Edit, Write``) or zett's, comma
separated or as a YAML list; left out, the agent has the ``general`` set. zett's own key
``shell: read-only`` gives a custom kind ``explore``'s shell (``read_only_shell``). No runtime
import here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The tools that only read: what ``explore`` has, and what a read-only custom agent keeps.
READ_TOOLS = frozenset({"read_file", "view_image", "glob", "grep"})
SHELL_TOOL = "bash"
#: Claude Code's tool names to zett's (an agent file may use either).
TOOL_ALIASES = {
    "read": ("read_file", "view_image"),
    "grep": ("grep",),
    "glob": ("glob",),
    "ls": ("glob",),
    "bash": ("bash",),
    "edit": ("edit",),
    "multiedit": ("edit",),
    "write": ("write_file",),
    "todowrite": ("todo_write",),
    "webfetch": (),
    "websearch": (),
    "notebookedit": (),
    "task": (),  # a subagent never starts another one (unless the depth is configured)
}
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")

GENERAL_PROMPT = (
    "You are a subagent of zett: the main agent handed you one self-contained job. Do it with the "
    "tools you have, then answer with a concise report of what you found or did (paths, symbols, "
    "results), which the main agent reads; the user does not see it directly. Your edits and "
    "commands need the user's approval like the main agent's."
)
EXPLORE_PROMPT = (
    "You are a read-only exploration subagent of zett. Search and read the code to answer the job "
    "you were given. You cannot change files: your shell commands run where the project is "
    "read-only and the network is off, so use them to look (git log, ls, grep), not to build or "
    "write. Answer with concise findings: the relevant paths, symbols and line numbers, and what "
    "you are unsure of."
)


@dataclass(frozen=True, slots=True)
class AgentType:
    """One kind of subagent."""

    name: str
    description: str
    #: Its instructions (a system message of the child's requests).
    prompt: str
    #: The tools it may use, by zett's names; None: every tool of the parent but ``task``.
    tools: frozenset[str] | None = None
    #: Another model's label ("" or "inherit": the parent's).
    model: str = ""
    #: Where it came from: ``built-in``, or the file it was read from.
    source: str = "built-in"
    #: Its shell commands run in a sandbox where the project is read-only and the network is
    #: off, as Plan Mode's do (``runtime.shell.bash_tool``): what holds ``explore`` to reading.
    read_only_shell: bool = False

    @property
    def read_only(self) -> bool:
        """It changes nothing: only read tools, and a shell (if any) that cannot write."""
        if self.tools is None:
            return False
        return self.tools <= READ_TOOLS or (self.read_only_shell and self.tools <= READ_TOOLS | {SHELL_TOOL})

    def allows(self, tool: str) -> bool:
        return self.tools is None or tool in self.tools


GENERAL = AgentType(
    "general",
    "any self-contained job: research, a change across several files, running and fixing tests",
    GENERAL_PROMPT,
)
EXPLORE = AgentType(
    "explore",
    "read-only exploration of the code base: find where something is and how it works",
    EXPLORE_PROMPT,
    tools=READ_TOOLS | {SHELL_TOOL},
    read_only_shell=True,
)
BUILT_IN = (GENERAL, EXPLORE)


def tool_names(value: str) -> frozenset[str] | None:
    """The zett tool names a ``tools`` field names (None when it is empty: every tool)."""
    text = value.strip().strip("[]")
    words = [word.strip().strip("'\"").strip() for word in re.split(r"[,\n]", text)]
    words = [word.removeprefix("- ").strip() for word in words if word.strip() and word.strip() != "-"]
    if not words:
        return None
    names: set[str] = set()
    for word in words:
        key = word.lower()
        if key in TOOL_ALIASES:
            names.update(TOOL_ALIASES[key])
        elif re.fullmatch(r"[A-Za-z0-9_:-]+", word):
            names.add(word)
    names.discard("task")
    return frozenset(names)


def agent_types(custom: Iterable[AgentType]) -> tuple[AgentType, ...]:
    """The built-in kinds, then the custom ones (the first of a name wins; a built-in name stays
    the built-in kind: ``explore`` is read-only whatever a project's files say)."""
    chosen: dict[str, AgentType] = {kind.name: kind for kind in BUILT_IN}
    for kind in custom:
        chosen.setdefault(kind.name, kind)
    return tuple(chosen.values())


def describe_types(kinds: Sequence[AgentType]) -> str:
    """The lines of the ``task`` tool's description that list the kinds."""
    return "\n".join(f"- {kind.name}: {kind.description}" for kind in kinds)
