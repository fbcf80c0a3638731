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

from zett_tui.config.trust import ProjectFiles, TrustState, find_project, trust_state
from zett_tui.entry.launch import LaunchSettings
from zett_tui.entry.project_trust import (
    TrustAnswer,
    carry_over,
    keep_answer,
    settings_after_trust,
    start_project_servers,
    stop_project_servers,
)
from zett_tui.ui.app_messages import SettingsReloaded
from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.shown_text import shown

if TYPE_CHECKING:
    from pathlib import Path

    from zett_tui.runtime.host import AgentHost
    from zett_tui.ui.chat.view import ChatView

log = logging.getLogger(__name__)

TRUST, DISTRUST, LATER = TrustAnswer.TRUST, TrustAnswer.DISTRUST, TrustAnswer.LATER

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


async def ask(chat: ChatView, project: ProjectFiles) -> TrustAnswer:
    """Show the question and keep a decision (``entry.project_trust``)."""
    picked = await chat.app.push_screen_wait(trust_dialog(project, trust_state(project)))
    answer = TrustAnswer(picked.value) if picked is not None else TrustAnswer.LATER
    keep_answer(project, answer, chat.say)
    return answer


async def settle_project_trust(chat: ChatView, launch: LaunchSettings) -> None:
    """At start (``launch`` being the chat's settings): ask about the project folder, and load its
    settings at once when trusted."""
    project = launch.project_trust
    if not isinstance(project, ProjectFiles):
        return
    decision = await ask(chat, project)
    files = ", ".join(project.files) or "nothing readable"
    if decision == TRUST:
        chat.say(f"Trusted {project.root}: {files} loaded.", "info")
    updated = settings_after_trust(launch, decision, chat.say)
    if decision != TRUST:
        why = (
            "zett asks again only when they change; /extensions trust asks now"
            if decision == DISTRUST
            else "zett asks again at the next start"
        )
        chat.say(f"Not loaded: {files} ({why}).", "warning")
    _use(chat, launch, updated)


async def review_trust(chat: ChatView, launch: LaunchSettings, host: AgentHost | None) -> None:
    """``/extensions trust`` (``launch`` being the chat's settings, ``host`` its session's): ask
    about this folder now. Its MCP servers start (or stop) and its commands and skills are offered
    (or withdrawn) at once; its settings and extensions, which shape the agent itself, apply from
    the next session."""
    project = find_project(launch.cwd, os.environ)
    if project is None:
        chat.say(
            f"There is nothing here or above for zett to load from a project ({NOTHING_TO_LOAD}).", "info"
        )
        return
    decision = await ask(chat, project)
    if decision == LATER:
        return
    if decision == TRUST:
        updated = settings_after_trust(launch, decision, chat.say, for_now=False)
        chat.use_settings(replace(launch, mcp_servers=updated.mcp_servers, mcp_problems=updated.mcp_problems))
        now = start_project_servers(getattr(chat.app, "mcp", None), updated)
        message = (
            f"Trusted {project.root}. {now}Its commands and skills are offered now; its settings and "
            "extensions load from the next session (/new)."
        )
    else:
        updated = replace(launch, project_trust=None)
        now = stop_project_servers(getattr(chat.app, "mcp", None))
        message = (
            f"Not trusted: {project.root}. {now}Its commands and skills are withdrawn; from the next "
            "session (/new) none of its files load."
        )
    await _offer_files_again(chat, launch.cwd, host)
    chat.say(message, "info")
    chat.post_message(SettingsReloaded(carry_over(launch, updated)))


async def _offer_files_again(chat: ChatView, cwd: Path, host: AgentHost | None) -> None:
    from zett_tui.ui.chat.workspace_commands import offer_workspace_files

    files = await offer_workspace_files(chat, cwd)
    if host is not None:
        from zett_tui.runtime.workspace_offer import offer_workspace_files as offer_to_host

        offer_to_host(host, files.skills, files.agents)


def _use(chat: ChatView, old: LaunchSettings, new: LaunchSettings) -> None:
    """Make ``new`` the settings of this chat (before its agent is built) and of the sessions the
    app opens next."""
    chat.use_settings(new)
    chat.show_model(new.model_label, is_demo=new.is_demo)
    chat.post_message(SettingsReloaded(carry_over(old, new)))
