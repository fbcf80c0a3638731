"""The model and its context: ``/model`` (switch, keeping the conversation), ``/effort`` (alias
``/reasoning``: the reasoning effort of the current model) and ``/compact`` (summarize older turns now).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from zett_tui.providers.build import ModelSpecError, parse_reasoning_effort
from zett_tui.providers.catalog import ModelCatalog, ModelSelection, list_ollama_models
from zett_tui.ui.chat.commands.registry import slash_command
from zett_tui.ui.modals.model_picker import ModelPicker

if TYPE_CHECKING:
    from zett_tui.runtime.host import AgentHost
    from zett_tui.ui.chat.screen import ChatScreen

EFFORT_LEVELS = "off|minimal|low|medium|high|xhigh|max|ultra"


def _ready_host(chat: ChatScreen) -> AgentHost | None:
    if chat.host is None:
        if chat.warmup_failed:
            chat.say(
                "The model could not start, so there is nothing to change; start zett again with "
                "--model to pick another one.",
                "warning",
            )
        else:
            chat.notify("The model is still starting; try again in a moment.", severity="warning")
    return chat.host


def _catalog(chat: ChatScreen) -> ModelCatalog | None:
    catalog = getattr(chat.launch, "model_catalog", None)
    return catalog if isinstance(catalog, ModelCatalog) else None


# -- /model ---------------------------------------------------------------------------------------


@slash_command(
    "model", "Switch the model, keeping the conversation; with no name, pick from a list", arguments="[SPEC]"
)
async def model_command(chat: ChatScreen, arguments: str) -> None:
    catalog = _catalog(chat)
    if catalog is None:
        chat.say("Switching models is not available in this session.", "warning")
        return
    spec = arguments.strip()
    if spec:
        await switch_model(chat, catalog, spec)
        return
    url = catalog.local_ollama_url()
    installed = await asyncio.to_thread(list_ollama_models, url) if url is not None else []

    def chosen(picked: str | None) -> None:
        if not picked:
            return
        if picked.endswith(":"):  # an endpoint: the user types the model name
            chat.composer.load_text(f"/model {picked}")
            chat.composer.move_cursor(chat.composer.document.end)
            chat.composer.focus()
            return
        chat.run_worker(switch_model(chat, catalog, picked), group="command-model", exit_on_error=False)

    chat.app.push_screen(ModelPicker(catalog.options(installed)), chosen)


async def switch_model(chat: ChatScreen, catalog: ModelCatalog, spec: str) -> bool:
    """Switch to ``spec`` and say so; a spec that cannot be used changes nothing and says why."""
    host = _ready_host(chat)
    if host is None:
        return False
    try:
        selection = catalog.select(spec)
    except ModelSpecError as error:
        chat.say(str(error), "warning")
        return False
    label = selection.choice.label
    if selection.choice == catalog.current:
        chat.say(f"Already using {label}.")
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
        chat.say(f"Could not switch to {label}: {selection.describe_error(error)}", "error")
        return False
    catalog.current = selection.choice
    _remember(chat, selection)
    status = chat.status
    status.model_label = label
    status.is_demo = selection.choice.is_demo
    measured = host.last_context
    status.show_context(
        measured.tokens if measured else 0,
        host.context_window,
        estimated=True,
        window_guessed=host.context_window_guessed,
    )
    running = " The turn that is running finishes with the previous one." if chat.turns.busy else ""
    chat.say(
        f"Switched to {label} (reasoning effort {selection.reasoning_effort.value}); "
        f"the conversation carries on with it.{running}",
    )
    return True


def _remember(chat: ChatScreen, selection: ModelSelection) -> None:
    """A new session (/new, /sessions) starts with the model chosen here, not the one zett started with."""
    from zett_tui.ui.app import ZettApp

    launches: list[Any] = [chat.launch]
    if isinstance(chat.app, ZettApp) and chat.app.launch is not chat.launch:
        launches.append(chat.app.launch)
    for launch in launches:
        launch.model_label = selection.choice.label
        launch.model_factory = selection.factory
        launch.is_demo = selection.choice.is_demo
        launch.reasoning_effort = selection.reasoning_effort.value
        launch.context_window = selection.context_window
        launch.describe_error = selection.describe_error


# -- /effort --------------------------------------------------------------------------------------


def effort_command(chat: ChatScreen, arguments: str) -> None:
    host = _ready_host(chat)
    if host is None:
        return
    value = arguments.strip()
    if not value:
        chat.say(
            f"Reasoning effort for {host.model_label}: {host.reasoning_effort.value}. "
            f"Change it with /effort LEVEL ({EFFORT_LEVELS.replace('|', ', ')}).",
        )
        return
    catalog = _catalog(chat)
    try:
        if catalog is not None:
            effort = catalog.set_effort(catalog.current, value)
        else:
            effort = parse_reasoning_effort(value)
    except ModelSpecError as error:
        chat.say(str(error), "warning")
        return
    host.set_reasoning_effort(effort)
    chat.launch.reasoning_effort = effort.value
    what = "no reasoning is asked for" if effort.value == "off" else f"effort {effort.value}"
    when = "from the next turn" if chat.turns.busy else "from now on"
    chat.say(f"Reasoning for {host.model_label}: {what}, {when}.")


slash_command(
    "effort", "Show or set the reasoning effort of the current model", arguments=f"[{EFFORT_LEVELS}]"
)(effort_command)
slash_command("reasoning", "Same as /effort", arguments="[LEVEL]")(effort_command)


# -- /compact -------------------------------------------------------------------------------------


@slash_command("compact", "Summarize older turns now, to free context")
def compact_command(chat: ChatScreen, arguments: str) -> None:
    host = _ready_host(chat)
    if host is None:
        return
    chat.turns.compact(host)
