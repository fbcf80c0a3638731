"""Another model for one turn: a Markdown command's ``model`` front matter, in the chat and in ``zett -p``.

``AgentHost.run_turn(model=...)`` builds it for that turn, records it as the turn's model and
closes it after; the session's model answers the next turn. Which names can be used is
``providers.command_model``'s rule; one that cannot is one line, and the session's model answers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from zett_agent.model import AgentModel, ReasoningEffort

from zett_tui.providers.errors import describe_error
from zett_tui.runtime.events import Notice, UIEvent

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnModel:
    """The model that answers one turn instead of the session's."""

    label: str
    factory: Callable[[], AgentModel]
    reasoning_effort: ReasoningEffort | str
    describe_error: Callable[[BaseException], str] = describe_error


def model_for_command(
    command: str, wanted: str, catalog: object, current_label: str
) -> tuple[TurnModel | None, str]:
    """(the model for ``/command``'s turn or None for the session's, the line to say or "").

    ``catalog`` is the launch's ``ModelCatalog`` (anything else: this session cannot switch)."""
    from zett_tui.providers.build import ModelSpecError
    from zett_tui.providers.catalog import ModelCatalog
    from zett_tui.providers.command_model import select_command_model

    try:
        if not isinstance(catalog, ModelCatalog):
            raise ModelSpecError("this session cannot switch models")
        selection = select_command_model(wanted, catalog)
    except ModelSpecError as error:
        why = " ".join(str(error).split()).rstrip(".")
        return None, f"/{command}: model {wanted!r} cannot be used ({why}); {current_label} answers it."
    if selection is None:  # the session's model already
        return None, ""
    model = TurnModel(
        selection.choice.label, selection.factory, selection.reasoning_effort, selection.describe_error
    )
    return model, ""


async def build_for_turn(
    model: TurnModel, session_label: str, sink: Callable[[UIEvent], None]
) -> AgentModel | None:
    """``model`` built (off the event loop) for its turn; None, with a line on ``sink`` saying that
    ``session_label`` answers instead, when it cannot be."""
    try:
        return await asyncio.to_thread(model.factory)
    except Exception as error:
        log.warning("the model %s for one turn could not be built", model.label, exc_info=True)
        sink(
            Notice(
                f"Could not start {model.label} for this turn ({model.describe_error(error)}); "
                f"{session_label} answers it.",
                "warning",
            )
        )
        return None
