"""Questions that need the user's own words, as ACP form elicitations (``elicitation/create``).

A permission request carries only the option picked. Words (an ``ask_user`` answer in the user's
own terms, the note on a refusal) need a form, which ACP has as an unstable method: used only
with a client that says it takes forms (``clientCapabilities.elicitation.form``). Declining or
cancelling a form is an answer too: no words.
"""

from __future__ import annotations

import logging
from typing import Any

from acp.schema import (
    AcceptElicitationResponse,
    ClientCapabilities,
    ElicitationFormSessionMode,
    ElicitationMultiSelectPropertySchema,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EnumOption,
    TitledMultiSelectItems,
)

from zett_tui.runtime.decisions import AskUserReply, AskUserRequest, Reply

log = logging.getLogger(__name__)

__all__ = ["ask_in_form", "ask_note", "takes_forms"]

#: A note or an answer longer than this is cut (it goes to the model in a tool result).
WORDS_LIMIT = 4000


def takes_forms(capabilities: ClientCapabilities | None) -> bool:
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and elicitation.form is not None


async def ask_note(client: Any, session_id: str, call_id: str, what: str) -> str:
    """The user's note on a refusal ("" when they give none or the form fails)."""
    schema = ElicitationSchema(
        properties={
            "note": ElicitationStringPropertySchema(
                type="string", title="Why not? (zett passes this on to the model)", max_length=WORDS_LIMIT
            )
        },
        required=["note"],
    )
    content = await _form(client, session_id, call_id, f"Your note on: {what}", schema)
    note = content.get("note") if content is not None else None
    return " ".join(note.split())[:WORDS_LIMIT] if isinstance(note, str) else ""


async def ask_in_form(
    client: Any, session_id: str, call_id: str, request: AskUserRequest, asker: str
) -> Reply:
    """``ask_user`` as a form: the model's options (one, or several when it allows several) and a
    free text field; either may be left out, both empty is declining."""
    properties: dict[str, Any] = {}
    options = [EnumOption(const=option, title=option) for option in request.options]
    if options and request.allow_multiple:
        properties["choice"] = ElicitationMultiSelectPropertySchema(
            type="array", title="Pick any", items=TitledMultiSelectItems(any_of=options)
        )
    elif options:
        properties["choice"] = ElicitationStringPropertySchema(
            type="string", title="Pick one", one_of=options
        )
    properties["answer"] = ElicitationStringPropertySchema(
        type="string",
        title="Or answer in your own words" if options else "Your answer",
        max_length=WORDS_LIMIT,
    )
    message = f"[{asker}] {request.question}" if asker else request.question
    content = await _form(client, session_id, call_id, message, ElicitationSchema(properties=properties))
    said = _said(content, request) if content is not None else ""
    return AskUserReply(request.tool_call_id, said) if said else request.refuse()


def _said(content: dict[str, Any], request: AskUserRequest) -> str:
    """What the user answered, in words, as the terminal says it ("chose: A and added: ...")."""
    choice = content.get("choice")
    chosen = [choice] if isinstance(choice, str) else choice if isinstance(choice, list) else []
    picked = [item for item in chosen if isinstance(item, str) and item in request.options]
    answer = content.get("answer")
    words = " ".join(answer.split())[:WORDS_LIMIT] if isinstance(answer, str) else ""
    said = ["chose: " + "; ".join(picked)] if picked else []
    if words:
        said.append(("and added: " if said else "answered: ") + words)
    return " ".join(said)


async def _form(
    client: Any, session_id: str, call_id: str, message: str, schema: ElicitationSchema
) -> dict[str, Any] | None:
    """The form's content when the user accepted it; None when they declined or cancelled, or the
    client could not show it."""
    mode = ElicitationFormSessionMode(session_id=session_id, tool_call_id=call_id, requested_schema=schema)
    try:
        response = await client.create_elicitation(message=message, mode=mode)
    except Exception:
        log.warning("the client could not show a form", exc_info=True)
        return None
    if isinstance(response, AcceptElicitationResponse):
        return response.content or {}
    return None
