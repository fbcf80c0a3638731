"""zett's own extensions, by the name a config file uses for them, and what a config may change.

Pure data (no zett-agent import), so the settings code can check ``[extensions.NAME]`` tables
against it. The files themselves are in the bundled ``extensions/`` folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class BundledExtension:
    """One extension file zett ships."""

    name: str
    """The ``NAME`` of its ``[extensions.NAME]`` table."""
    file_stem: str
    """Its file in the bundled ``extensions/`` folder, without ``.py``."""
    class_name: str
    summary: str
    """What it does, in a few words, for ``/extensions``."""
    always_on: str = ""
    """Why it cannot be turned off; empty when it can be."""
    on_by_default: bool = True
    built_by_host: bool = True
    """The host builds it with what only the host has (the permission mode, Plan Mode...); when
    False it is built like a user's extension, from its ``options``."""


BUNDLED_EXTENSIONS: Mapping[str, BundledExtension] = MappingProxyType(
    {
        "plan_guard": BundledExtension(
            "plan_guard",
            "plan_guard",
            "PlanGuardExtension",
            "keeps Plan Mode read-only",
            always_on="it is what keeps Plan Mode read-only; leave Plan Mode (Shift+Tab) instead",
        ),
        "edit_approval": BundledExtension(
            "edit_approval",
            "edit_approval",
            "EditApprovalExtension",
            "shows each file change as a diff and asks first",
            always_on="it is what asks before a file changes; choose accept-edits mode (Shift+Tab) to stop "
            "being asked",
        ),
        "tool_output": BundledExtension(
            "tool_output",
            "tool_output",
            "ToolOutputOutsideProject",
            "keeps shell side files out of the project folder",
        ),
        "git_status": BundledExtension(
            "git_status",
            "git_status_context",
            "GitStatusContext",
            "tells the model what `git status` says before each request (the worked example)",
            on_by_default=False,
            built_by_host=False,
        ),
    }
)
