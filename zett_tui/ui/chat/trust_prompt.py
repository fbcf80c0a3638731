"""The question "trust this folder's settings, extensions, commands and MCP servers?", and what each
answer does.

Asked once at start, before the agent is built, when the project folder has files zett would load
(``.zett/``, ``.mcp.json``, ``.claude/commands``, skill folders) that the user has not decided on
(or that changed since); ``/extensions trust`` asks again at any time. The answer is kept by
``zett_tui.config.trust`` against a hash of exactly those files.

The question lists what was left out unread (a link outside the folder, a named
pipe, a file over the size limit: ``ProjectFiles.left_out``), so the user knows what the answer
does not cover.

The first choice, the one Enter takes, is *not* to trust: the question comes up while the user
may already be typing their first prompt (typed-ahead keys go to the dialog), and a stray Enter
must not run a cloned repository's code. Trusting is one arrow key or "2" away; Esc decides
nothing, and zett asks again at the next start.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from zett_tui.config.trust import ProjectFiles, TrustState, find_project, remember, trust_state
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.mcp.lifetime import ProcessMcp
from zett_tui.ui.app_messages import SettingsReloaded
from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.shown_text import shown

if TYPE_CHECKING:
    from zett_tui.ui.chat.screen import ChatScreen

log = logging.getLogger(__name__)

TRUST = "trust"
DISTRUST = "distrust"
LATER = "later"

KEYS = "Enter choose · ↑/↓ move · 1-2 pick · PgUp/PgDn scroll · Esc decide later"
WARNING = (
    "⚠  Extensions are Python code: they run with your permissions, outside zett's approvals. "
    "Settings can choose the model and the server your prompts and files go to."
)
_MAX_CONFIG_LINES = 200
NOTHING_TO_LOAD = "no .zett/, .mcp.json, .claude/commands or skill folder"


def trust_dialog(project: ProjectFiles, state: TrustState) -> ChoiceDialog:
    """The question, with every file that would load, the code it names, and the config itself."""
    choices = [
        Choice("Don't trust it (asked again only when these files change)", DISTRUST),
        Choice("Trust this folder and load them", TRUST, "warning"),
    ]
    title = f"Load the settings, extensions, commands and MCP servers in {project.root}?"
    body = Static(describe_project(project, state), classes="trust-details")
    return ChoiceDialog(title, body, choices, decline_value=LATER, warning=WARNING, key_help=KEYS)


def describe_project(project: ProjectFiles, state: TrustState) -> Text:
    text = Text()
    if state is TrustState.CHANGED:
        text.append("These files changed since you last decided about this folder.\n\n", style="bold")
    elif state is TrustState.TRUSTED:
        text.append("You trust this folder now; choosing not to trust it applies from the next session.\n\n")
    text.append(f"Files ({len(project.files)}):\n", style="bold")
    for name in project.files:
        text.append_text(shown(f"  {name}\n"))
    if project.left_out:
        text.append(
            f"\nLeft out ({len(project.left_out)}): not read, and not loaded if you trust the folder:\n",
            style="bold",
        )
        for line in project.left_out_lines():
            text.append(f"  {line}\n", style="yellow")
    code = project.code_to_run()
    if code:
        text.append("\nExtensions and MCP servers this folder names:\n", style="bold")
        for line in code:
            text.append_text(shown(f"  {line}\n"))
    config = project.config_text()
    if config is not None:
        lines = config.removesuffix("\n").split("\n")  # only "\n" ends a line: a "\r" is shown
        text.append(f"\n{project.config_file.relative_to(project.root)}:\n", style="bold")
        for line in lines[:_MAX_CONFIG_LINES]:
            text.append_text(shown(f"  {line}\n", "dim"))
        if len(lines) > _MAX_CONFIG_LINES:
            text.append(f"  … {len(lines) - _MAX_CONFIG_LINES} more lines\n", style="dim")
    return text


async def ask(chat: ChatScreen, project: ProjectFiles) -> str:
    """Show the question and keep a decision; returns TRUST, DISTRUST or LATER."""
    picked = await chat.app.push_screen_wait(trust_dialog(project, trust_state(project)))
    decision = picked.value if picked is not None else LATER
    if decision in (TRUST, DISTRUST):
        try:
            remember(project, trusted=decision == TRUST)
        except OSError as error:
            log.warning("could not save the trust decision", exc_info=True)
            chat.say(f"Could not save your answer ({error.strerror or error}); it holds for now.", "error")
    return str(decision)


async def settle_project_trust(chat: ChatScreen) -> None:
    """At start: ask about the project folder, and load its settings at once when trusted."""
    launch = chat.launch
    project = launch.project_trust
    if not isinstance(project, ProjectFiles):
        return
    decision = await ask(chat, project)
    files = ", ".join(project.files) or "nothing readable"
    if decision == TRUST:
        chat.say(f"Trusted {project.root}: {files} loaded.", "info")
        updated = _reloaded(chat, launch)
    else:
        updated = replace(launch, project_trust=None)
        why = (
            "zett asks again only when they change; /extensions trust asks now"
            if decision == DISTRUST
            else "zett asks again at the next start"
        )
        chat.say(f"Not loaded: {files} ({why}).", "warning")
    _use(chat, launch, updated)


async def review_trust(chat: ChatScreen) -> None:
    """``/extensions trust``: ask about this folder now. Its MCP servers start (or stop) and its
    commands and skills are offered (or withdrawn) at once; its settings and extensions, which
    shape the agent itself, apply from the next session."""
    project = find_project(chat.launch.cwd, os.environ)
    if project is None:
        chat.say(
            f"There is nothing here or above for zett to load from a project ({NOTHING_TO_LOAD}).", "info"
        )
        return
    decision = await ask(chat, project)
    if decision == LATER:
        return
    launch = chat.launch
    if decision == TRUST:
        updated = _reloaded(chat, launch, for_now=False)
        chat.launch = replace(launch, mcp_servers=updated.mcp_servers, mcp_problems=updated.mcp_problems)
        now = _started_servers(chat, updated)
        message = (
            f"Trusted {project.root}. {now}Its commands and skills are offered now; its settings and "
            "extensions load from the next session (/new)."
        )
    else:
        updated = replace(launch, project_trust=None)
        now = _stopped_servers(chat)
        message = (
            f"Not trusted: {project.root}. {now}Its commands and skills are withdrawn; from the next "
            "session (/new) none of its files load."
        )
    await _offer_files_again(chat)
    chat.say(message, "info")
    chat.post_message(SettingsReloaded(_carry_over(launch, updated)))


#: Where a project's MCP servers come from (``McpServerConfig.source``).
PROJECT_SERVER_SOURCES = ("project", ".mcp.json")


def _started_servers(chat: ChatScreen, updated: LaunchSettings) -> str:
    """Start the trusted project's MCP servers in this run; the sentence that says which."""
    holder = getattr(chat.app, "mcp", None)
    if not isinstance(holder, ProcessMcp):
        return ""
    project_servers = [server for server in updated.mcp_servers if server.source in PROJECT_SERVER_SOURCES]
    started = holder.add(project_servers)
    if not started:
        return ""
    return f"Starting its MCP servers now: {', '.join(started)} (/mcp shows them). "


def _stopped_servers(chat: ChatScreen) -> str:
    holder = getattr(chat.app, "mcp", None)
    if not isinstance(holder, ProcessMcp):
        return ""
    stopped = holder.stop_servers_from(PROJECT_SERVER_SOURCES)
    return f"Its MCP servers are stopped: {', '.join(stopped)}. " if stopped else ""


async def _offer_files_again(chat: ChatScreen) -> None:
    from zett_tui.ui.chat.workspace_commands import offer_workspace_files

    await offer_workspace_files(chat)


def _reloaded(chat: ChatScreen, launch: LaunchSettings, *, for_now: bool = True) -> LaunchSettings:
    """The settings read again now that the project folder is trusted (its config included);
    ``for_now``: they apply to this session, so a change of model is said."""
    if launch.reload is None:
        return replace(launch, project_trust=None)
    try:
        fresh = launch.reload()
    except Exception as error:  # the same flags worked a moment ago; say so rather than stop
        log.warning("reading the settings again failed", exc_info=True)
        chat.say(f"Could not read the settings again: {error}", "error")
        return replace(launch, project_trust=None)
    for level, text in fresh.notices:
        if (level, text) not in launch.notices:
            chat.say(text, level)
    if for_now and fresh.model_label != launch.model_label:
        chat.say(f"The model is now {fresh.model_label}.", "info")
    return _carry_over(launch, fresh)


def _carry_over(current: LaunchSettings, fresh: LaunchSettings) -> LaunchSettings:
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


def _use(chat: ChatScreen, old: LaunchSettings, new: LaunchSettings) -> None:
    """Make ``new`` the settings of this chat (before its agent is built) and of the sessions the
    app opens next."""
    chat.launch = new
    chat.status.model_label = new.model_label
    chat.status.is_demo = new.is_demo
    chat.post_message(SettingsReloaded(_carry_over(old, new)))
