"""The model and its context: ``/model`` (switch, keeping the conversation), ``/effort`` (alias
``/reasoning``: the reasoning effort of the current model) and ``/compact`` (summarize older turns now).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zett_tui.providers.build import ModelSpecError, parse_reasoning_effort
from zett_tui.providers.catalog import ModelCatalog, list_ollama_models
from zett_tui.ui.app_messages import EffortChosen, ModelChosen
from zett_tui.ui.chat.commands.registry import slash_command
from zett_tui.ui.modals.model_picker import ModelPicker

if TYPE_CHECKING:
    from zett_tui.runtime.host import AgentHost
    from zett_tui.ui.chat.command_context import CommandContext

EFFORT_LEVELS = "off|minimal|low|medium|high|xhigh|max|ultra"


def _ready_host(ctx: CommandContext) -> AgentHost | None:
    if ctx.host is None:
        if ctx.start_failed:
            ctx.say(
                "The model could not start, so there is nothing to change; start zett again with "
                "--model to pick another one.",
                "warning",
            )
        else:
            ctx.notify("The model is still starting; try again in a moment.", severity="warning")
    return ctx.host


def _catalog(ctx: CommandContext) -> ModelCatalog | None:
    catalog = getattr(ctx.launch, "model_catalog", None)
    return catalog if isinstance(catalog, ModelCatalog) else None


# -- /model ---------------------------------------------------------------------------------------


@slash_command(
    "model", "Switch the model, keeping the conversation; with no name, pick from a list", arguments="[SPEC]"
)
async def model_command(ctx: CommandContext, arguments: str) -> None:
    catalog = _catalog(ctx)
    if catalog is None:
        ctx.say("Switching models is not available in this session.", "warning")
        return
    spec = arguments.strip()
    if spec:
        await switch_model(ctx, catalog, spec)
        return
    url = catalog.local_ollama_url()
    installed = await asyncio.to_thread(list_ollama_models, url) if url is not None else []

    def chosen(picked: str | None) -> None:
        if not picked:
            return
        if picked.endswith(":"):  # an endpoint: the user types the model name
            ctx.put_in_prompt(f"/model {picked}")
            return
        ctx.run_in_background(switch_model(ctx, catalog, picked), group="command-model")

    ctx.open_screen(ModelPicker(catalog.options(installed)), chosen)


async def switch_model(ctx: CommandContext, catalog: ModelCatalog, spec: str) -> bool:
    """Switch to ``spec`` and say so; a spec that cannot be used changes nothing and says why."""
    host = _ready_host(ctx)
    if host is None:
        return False
    try:
        selection = catalog.select(spec)
    except ModelSpecError as error:
        ctx.say(str(error), "warning")
        return False
    label = selection.choice.label
    if selection.choice == catalog.current:
        ctx.say(f"Already using {label}.")
        return False
    try:
        await host.switch_model(
            label,
            selection.factory,
            selection.reasoning_effort,
            context_window=selection.context_window,
            describe_error=selection.describe_error,
        )
    except Exception as error:
        ctx.say(f"Could not switch to {label}: {selection.describe_error(error)}", "error")
        return False
    catalog.current = selection.choice
    ctx.post(ModelChosen(selection))  # a new session (/new, /sessions) starts with it, not the launched one
    ctx.model_switched(label, is_demo=selection.choice.is_demo)
    running = " The turn that is running finishes with the previous one." if ctx.turn_running else ""
    ctx.say(
        f"Switched to {label} (reasoning effort {selection.reasoning_effort.value}); "
        f"the conversation carries on with it.{running}",
    )
    return True


# -- /effort --------------------------------------------------------------------------------------


def effort_command(ctx: CommandContext, arguments: str) -> None:
    host = _ready_host(ctx)
    if host is None:
        return
    value = arguments.strip()
    if not value:
        ctx.say(
            f"Reasoning effort for {host.model_label}: {host.reasoning_effort.value}. "
            f"Change it with /effort LEVEL ({EFFORT_LEVELS.replace('|', ', ')}).",
        )
        return
    catalog = _catalog(ctx)
    try:
        if catalog is not None:
            effort = catalog.set_effort(catalog.current, value)
        else:
            effort = parse_reasoning_effort(value)
    except ModelSpecError as error:
        ctx.say(str(error), "warning")
        return
    host.set_reasoning_effort(effort)
    ctx.post(EffortChosen(effort.value))
    what = "no reasoning is asked for" if effort.value == "off" else f"effort {effort.value}"
    when = "from the next turn" if ctx.turn_running else "from now on"
    ctx.say(f"Reasoning for {host.model_label}: {what}, {when}.")


slash_command(
    "effort", "Show or set the reasoning effort of the current model", arguments=f"[{EFFORT_LEVELS}]"
)(effort_command)
slash_command("reasoning", "Same as /effort", arguments="[LEVEL]")(effort_command)


# -- /compact -------------------------------------------------------------------------------------


@slash_command("compact", "Summarize older turns now, to free context")
def compact_command(ctx: CommandContext, arguments: str) -> None:
    host = _ready_host(ctx)
    if host is None:
        return
    ctx.compact(host)
