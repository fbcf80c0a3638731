"""What trusting (or not trusting) a project folder does, for every front end.

The question itself is the front end's (the chat's dialog, ``zett acp``'s permission request);
the answer is kept by ``zett_tui.config.trust`` against a hash of the files it covers, and this
module applies it: the settings read again with the project's config, the project's MCP servers
started or stopped in this process. No Textual here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum

from zett_tui.config.trust import ProjectFiles, remember
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.mcp.lifetime import ProcessMcp

log = logging.getLogger(__name__)

__all__ = [
    "PROJECT_SERVER_SOURCES",
    "TrustAnswer",
    "carry_over",
    "keep_answer",
    "settings_after_trust",
    "start_project_servers",
    "stop_project_servers",
]

Say = Callable[[str, str], None]
"""(text, level) for the user: ``info``, ``warning`` or ``error``."""

#: Where a project's MCP servers come from (``McpServerConfig.source``).
PROJECT_SERVER_SOURCES = ("project", ".mcp.json")


class TrustAnswer(StrEnum):
    TRUST = "trust"
    DISTRUST = "distrust"
    #: No decision: asked again at the next start.
    LATER = "later"


def keep_answer(project: ProjectFiles, answer: TrustAnswer, say: Say) -> None:
    """Save a decision (not ``LATER``); when the disk refuses, it holds for this run and ``say`` says so."""
    if answer is TrustAnswer.LATER:
        return
    try:
        remember(project, trusted=answer is TrustAnswer.TRUST)
    except OSError as error:
        log.warning("could not save the trust decision", exc_info=True)
        say(f"Could not save your answer ({error.strerror or error}); it holds for now.", "error")


def settings_after_trust(
    launch: LaunchSettings, answer: TrustAnswer, say: Say, *, for_now: bool = True
) -> LaunchSettings:
    """The settings once the user answered: read again with the project's config when trusted;
    ``for_now``: they apply to this session, so a change of model is said."""
    if answer is not TrustAnswer.TRUST or launch.reload is None:
        return replace(launch, project_trust=None)
    try:
        fresh = launch.reload()
    except Exception as error:  # the same flags worked a moment ago; say so rather than stop
        log.warning("reading the settings again failed", exc_info=True)
        say(f"Could not read the settings again: {error}", "error")
        return replace(launch, project_trust=None)
    for level, text in fresh.notices:
        if (level, text) not in launch.notices:
            say(text, level)
    if for_now and fresh.model_label != launch.model_label:
        say(f"The model is now {fresh.model_label}.", "info")
    return carry_over(launch, fresh)


def carry_over(current: LaunchSettings, fresh: LaunchSettings) -> LaunchSettings:
    """``fresh`` settings for the session ``current`` describes (same session, paths, terminal)."""
    return replace(
        fresh,
        session_id=current.session_id,
        resume_path=current.resume_path,
        host_overrides=current.host_overrides,
        terminal_background=current.terminal_background,
        notices=[],
        project_trust=None,
    )


def start_project_servers(holder: object, updated: LaunchSettings) -> str:
    """Start the trusted project's MCP servers in this process; the sentence that says which."""
    if not isinstance(holder, ProcessMcp):
        return ""
    project_servers = [server for server in updated.mcp_servers if server.source in PROJECT_SERVER_SOURCES]
    started = holder.add(project_servers)
    if not started:
        return ""
    return f"Starting its MCP servers now: {', '.join(started)} (/mcp shows them). "


def stop_project_servers(holder: object) -> str:
    """Stop the project's MCP servers in this process; the sentence that says which."""
    if not isinstance(holder, ProcessMcp):
        return ""
    stopped = holder.stop_servers_from(PROJECT_SERVER_SOURCES)
    return f"Its MCP servers are stopped: {', '.join(stopped)}. " if stopped else ""
