"""Whether an MCP tool call runs, asks or is refused: the same questions a shell command meets.

- Plan Mode: a tool the server annotates ``readOnlyHint`` runs, as zett's own read tools do; any
  other is refused, the way Plan Mode refuses a file change. (The hint is the server's claim; the
  server is one the user configured, or a trusted project did.)
- ask, accept edits: asks, unless the user allowed this tool for the session or always.
- auto: runs.
- ``zett -p`` (no one to ask): runs only when allowed explicitly; otherwise refused.

"""

from __future__ import annotations

from collections.abc import Container
from enum import StrEnum

from zett_tui.runtime.modes import PermissionMode


class Decision(StrEnum):
    RUN = "run"
    ASK = "ask"
    REFUSE = "refuse"


def tool_key(server: str, tool: str) -> str:
    """The name the model calls and the allow lists keep: ``mcp__SERVER__TOOL``."""
    return f"mcp__{server}__{tool}"


def decide(
    mode: PermissionMode,
    *,
    plan_active: bool,
    read_only: bool,
    key: str,
    allowed: Container[str],
    can_ask: bool = True,
) -> Decision:
    if plan_active or mode is PermissionMode.PLAN:
        return Decision.RUN if read_only else Decision.REFUSE
    if mode is PermissionMode.AUTO:
        return Decision.RUN
    if key in allowed:
        return Decision.RUN
    return Decision.ASK if can_ask else Decision.REFUSE


def refusal_message(key: str, *, plan: bool) -> str:
    """The failed row the model reads when ``decide`` refused."""
    if plan:
        return (
            f"{key} is not marked read-only by its server, so it cannot run while Plan Mode is on; "
            "finish the plan first"
        )
    return f"{key} needs the user's approval, and no one can answer here (allow it in the config)"
