"""Which "from now on" rules a command's approval question may offer, and to whom.

A saved shell rule is the project's: once saved, every agent's command it matches runs without
asking, the main agent's included. A read-only subagent's commands (``explore``, or a custom agent
with ``shell: read-only``) run where they cannot change anything (``runtime.shell.bash_tool``), so
a user says yes to them more easily; a rule made while answering one would let the main agent,
whose commands can write, run the same command unasked. So a read-only subagent's question
offers no rule: it is answered one command at a time. The terminal's dialog and the editor's
question (``zett acp``) both ask here, so they offer the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.shell.policy import Rule

#: What the question says instead of offering a rule to a read-only subagent.
ONCE_ONLY = (
    "only this once: a rule made here would let the main agent run it without asking too, "
    "where it can change files"
)


def once_only(host: AgentHost, session_id: str) -> bool:
    """Whether the question about ``session_id``'s command may allow it only this once."""
    return host.subagents.reads_only(session_id)


def rules_to_offer(host: AgentHost, session_id: str, command: str) -> list[Rule]:
    """The rules that could allow ``command`` from now on, as the question about ``session_id``'s
    call may offer them: none for a read-only subagent's (nor where the policy offers none)."""
    policy = host.shell_policy
    if policy is None or once_only(host, session_id):
        return []
    return policy.suggestions(command)
