"""Permission modes, Plan Mode and saved shell rules: ``/mode``, ``/plan``, ``/permissions``
(alias ``/rules``), and the Shift+Tab cycle."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.runtime.host import AgentHost
    from zett_tui.ui.chat.command_context import CommandContext

#: What each mode means, in the words /mode and the Shift+Tab notice use.
MODE_HELP = {
    PermissionMode.ASK: "edits and shell commands ask first",
    PermissionMode.ACCEPT_EDITS: "edits apply without asking; shell commands ask",
    PermissionMode.PLAN: "Plan Mode: zett reads and plans, changes no files, and asks before every command",
    PermissionMode.AUTO: "nothing asks, except dangerous commands and changes outside the project",
}
_MODE_NAMES = {
    "ask": PermissionMode.ASK,
    "accept-edits": PermissionMode.ACCEPT_EDITS,
    "accept_edits": PermissionMode.ACCEPT_EDITS,
    "edits": PermissionMode.ACCEPT_EDITS,
    "plan": PermissionMode.PLAN,
    "auto": PermissionMode.AUTO,
}


def _ready_host(ctx: CommandContext) -> AgentHost | None:
    if ctx.host is None:
        ctx.notify("The model is still starting; try again in a moment.", severity="warning")
    return ctx.host


def mode_name(mode: PermissionMode) -> str:
    """The name /mode takes (``accept-edits``, not the stored ``accept_edits``)."""
    return mode.value.replace("_", "-")


def switch_mode(ctx: CommandContext, mode: PermissionMode) -> None:
    """Switch the session's mode (the session core owns it) and show it, with what it means, in
    the status line (a toast per Shift+Tab stacked up over the prompt)."""
    if _ready_host(ctx) is None:
        return
    ctx.set_mode(mode, MODE_HELP[mode])


def cycle_mode(ctx: CommandContext) -> None:
    """Shift+Tab: ask → accept edits → plan → auto → ask."""
    if ctx.host is not None:
        switch_mode(ctx, ctx.host.mode.next())
    else:
        _ready_host(ctx)


@slash_command(
    "mode",
    "Show or set the permission mode: ask, accept-edits, plan or auto (Shift+Tab cycles)",
    arguments="[MODE]",
)
def mode_command(ctx: CommandContext, arguments: str) -> None:
    host = _ready_host(ctx)
    if host is None:
        return
    wanted = arguments.strip().lower()
    if not wanted:
        lines = [f"Permission mode: {mode_name(host.mode)}"]
        for mode in PermissionMode:
            marker = "›" if mode is host.mode else " "
            lines.append(f" {marker} {mode_name(mode):<13} {MODE_HELP[mode]}")
        lines.append("Change it with /mode NAME or Shift+Tab.")
        ctx.say("\n".join(lines))
        return
    chosen = _MODE_NAMES.get(wanted)
    if chosen is None:
        ctx.say(f"There is no mode {wanted!r}. Use ask, accept-edits, plan or auto.", "warning")
        return
    switch_mode(ctx, chosen)
    ctx.say(f"Permission mode: {mode_name(chosen)} — {MODE_HELP[chosen]}.", "decision")


@slash_command("plan", "Show the kept plan; /plan on or /plan off switches Plan Mode", arguments="[on|off]")
def plan_command(ctx: CommandContext, arguments: str) -> None:
    host = _ready_host(ctx)
    if host is None:
        return
    wanted = arguments.strip().lower()
    if wanted in ("on", "off"):
        on = wanted == "on"
        if (host.mode is PermissionMode.PLAN) == on:
            ctx.say(f"Plan Mode is already {wanted}.")
            return
        switch_mode(ctx, PermissionMode.PLAN if on else PermissionMode.ASK)
        if on:
            ctx.say(
                "Plan Mode on: zett reads and plans, and changes no files until you approve a plan.",
                "decision",
            )
        else:
            ctx.say("Plan Mode off: edits and shell commands ask first.", "decision")
        return
    if wanted:
        ctx.say("Use /plan to see the kept plan, or /plan on / /plan off.", "warning")
        return
    show_plan(ctx, host)


def show_plan(ctx: CommandContext, host: AgentHost) -> None:
    """Open the session's kept plan (the approved one, or the draft while planning), rendered."""
    from zett_tui.ui.modals.plan_dialogs import plan_viewer

    if host.plan_guard is None:
        ctx.say("There is no plan: Plan Mode is not available in this session.", "warning")
        return
    path: Path = host.plan_guard.plan_file(host.session_id)
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
    except OSError as error:
        ctx.say(f"The kept plan could not be read ({path}): {error.strerror or error}", "warning")
        return
    planning = host.mode is PermissionMode.PLAN
    if not text.strip():
        if planning:
            ctx.say("Plan Mode is on and there is no plan yet. zett shows it to you when it is ready.")
        else:
            ctx.say("There is no kept plan in this session. /plan on starts Plan Mode.")
        return
    title = "The plan draft (Plan Mode is on)" if planning else "The kept plan"
    ctx.open_screen(plan_viewer(text, path, title=title))


@slash_command("permissions", "List saved shell rules; /permissions rm N removes one", arguments="[rm N]")
def permissions_command(ctx: CommandContext, arguments: str) -> None:
    host = _ready_host(ctx)
    if host is None or host.shell_rules is None:
        return
    words = arguments.split()
    if words and words[0] in ("rm", "remove", "delete") and len(words) == 2 and not words[1].isdigit():
        _forget_domain(ctx, host, words[1])
        return
    if words and words[0] in ("rm", "remove", "delete"):
        _remove_rule(ctx, host, words[1:])
        return
    if words:
        ctx.say("Use /permissions to list the saved rules, or /permissions rm N to remove one.", "warning")
        return
    rules = host.shell_rules.rules()
    lines = [f"Permission mode: {mode_name(host.mode)} — {MODE_HELP[host.mode]}."]
    if host.shell_sandbox is not None:
        lines.append(("" if host.shell_sandbox.available else "▲ ") + host.shell_sandbox.describe())
    if host.shell_rules.problem:
        lines.append(f"▲ {host.shell_rules.problem}")
    if not rules:
        lines.append(
            "No saved shell rules for this project. Choose “Always allow” in a shell approval to add one."
        )
    else:
        lines.append("Shell commands that run without asking in this project:")
        for index, rule in enumerate(rules, 1):
            what = "starts with" if rule.kind == "prefix" else "exactly   "
            lines.append(f"  {index:>2}. {what}  {rule.command}")
        lines.append("Remove one with /permissions rm N. Dangerous commands ask anyway.")
    lines.extend(_web_lines(host))
    ctx.say("\n".join(lines))


def _web_lines(host: AgentHost) -> list[str]:
    saved = host.web_permissions.saved if host.web_permissions is not None else None
    if saved is None:
        return []
    domains = sorted(saved.allowed())
    if saved.problem:
        return [f"▲ {saved.problem}"]
    if not domains:
        return ["web_fetch asks before every domain (none is allowed “always” in this project)."]
    return [
        "Domains web_fetch reaches without asking in this project: " + ", ".join(domains),
        "Stop allowing one with /permissions rm DOMAIN.",
    ]


def _forget_domain(ctx: CommandContext, host: AgentHost, domain: str) -> None:
    permissions = host.web_permissions
    try:
        removed = permissions is not None and permissions.forget(domain.lower())
    except OSError as error:
        ctx.say(f"{domain} could not be removed: {error}", "warning")
        return
    if removed:
        ctx.say(f"web_fetch asks again before contacting {domain}.", "decision")
    else:
        ctx.say(f"{domain} is not allowed “always” in this project; /permissions lists what is.", "warning")


@slash_command("rules", "Same as /permissions", arguments="[rm N]")
def rules_command(ctx: CommandContext, arguments: str) -> None:
    permissions_command(ctx, arguments)


def _remove_rule(ctx: CommandContext, host: AgentHost, words: list[str]) -> None:
    if host.shell_rules is None:
        ctx.say("There are no saved rules: the agent has not started.", "warning")
        return
    rules = host.shell_rules.rules()
    if len(words) != 1 or not words[0].isdigit() or not 1 <= int(words[0]) <= len(rules):
        count = f"1 to {len(rules)}" if rules else "none: there are no saved rules"
        ctx.say(f"Give the number of a rule from /permissions ({count}).", "warning")
        return
    try:
        removed = host.shell_rules.remove(int(words[0]) - 1)
    except (OSError, ValueError, IndexError) as error:
        ctx.say(f"The rule could not be removed: {error}", "warning")
        return
    what = "commands that start with" if removed.kind == "prefix" else "exactly"
    ctx.say(f"Removed the rule for {what} `{removed.command}`; it asks again.", "decision")
