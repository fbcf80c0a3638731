"""The permission modes: what asks the user before the agent edits a file or runs a command.

One mode per host, switched with Shift+Tab (ask → accept edits → plan → auto) or ``/permissions``.
The edit gate, the Plan Mode guard, the shell policy and the UI all read it; it lives here, apart
from the shell rules, because it is about every tool, not only the shell. No Textual here.
"""

from __future__ import annotations

from enum import StrEnum


class PermissionMode(StrEnum):
    """What the user is asked about. The order is the Shift+Tab cycle."""

    ASK = "ask"  # edits and shell commands ask
    ACCEPT_EDITS = "accept_edits"  # edits apply, shell commands ask
    PLAN = "plan"  # Plan Mode: read-only, shell commands ask
    AUTO = "auto"  # nothing asks, except dangerous commands and writes outside the project

    def next(self) -> PermissionMode:
        members = list(PermissionMode)
        return members[(members.index(self) + 1) % len(members)]

    @property
    def label(self) -> str:
        return {"ask": "ask", "accept_edits": "accept edits", "plan": "plan", "auto": "auto"}[self.value]
