"""A tool call zett's rules stopped before it ran: its row says "refused", not "failed".

Raise ``ToolRefused`` (or a subclass) from a tool-call middleware when a rule, not an error and not
the user, stops a call: Plan Mode refusing a write, a read the flags of ``zett -p`` do not allow.
The message is what the model reads. A call the user declined in a dialog says "declined" (the
chat knows the answer it sent); any other exception says "failed".
"""

from __future__ import annotations

__all__ = ["ToolRefused"]


class ToolRefused(PermissionError):
    """A rule (Plan Mode, a permission, a flag) refused this tool call; nothing was run."""
