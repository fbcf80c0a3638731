"""One of the runtime's questions, put to the editor's user.

A permission request (``acp.permissions``), and a form for a note when the user picked "..., and
tell zett why" (a client that takes forms); ``ask_user`` as a form of its own when the client
takes forms (``acp.elicitation``). A subagent's question names it (``type: description``) and
points at its own row (the ``task`` call's id, ``/``, its own).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp.schema import AllowedOutcome, ClientCapabilities

from zett_tui.acp.elicitation import ask_in_form, ask_note, takes_forms
from zett_tui.acp.permissions import NOTE_SUFFIX, Offers, question_for
from zett_tui.runtime.decisions import AskUserRequest, Reply, Request, ShellRequest
from zett_tui.runtime.shell.policy import Rule
from zett_tui.runtime.shell.rule_offers import rules_to_offer

if TYPE_CHECKING:
    from zett_tui.acp.session_state import AcpSession

log = logging.getLogger(__name__)

__all__ = ["ask_editor"]


async def ask_editor(
    client: Any, capabilities: ClientCapabilities | None, session: AcpSession, request: Request
) -> Reply:
    """The user's reply to ``request``; the session's rows learn what was declined, and which mode
    an approved plan switches to once its call has finished."""
    session_id = session.core.session_id
    await session.outbox.join()  # the tool call row exists before its question
    child = session.rows.subagent(request.session_id)
    asker = child.label if child is not None else ""
    call_id = session.rows.editor_id(request.session_id, request.tool_call_id)
    forms = takes_forms(capabilities)
    if forms and isinstance(request, AskUserRequest):
        reply = await ask_in_form(client, session_id, call_id, request, asker)
        if reply.declined:
            session.rows.declined.add(call_id)
        return reply
    question = question_for(request, _offers(session, request), notes=forms, asker=asker, call_id=call_id)
    response = await client.request_permission(
        session_id=session_id, tool_call=question.tool_call, options=question.options
    )
    outcome = response.outcome
    picked = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
    choice = question.choices.get(picked or "")
    note = ""
    if choice is not None and choice.option_id.endswith(NOTE_SUFFIX):
        note = await ask_note(client, session_id, call_id, question.tool_call.title or "")
    reply = question.reply(picked, note)
    if choice is not None and choice.then is not None:
        try:
            choice.then()
        except (OSError, ValueError):
            log.warning("what the answer asked for could not be done", exc_info=True)
    if reply.declined:
        session.rows.declined.add(call_id)
        if note and choice is not None and choice.steer is not None:
            steer = choice.steer(note)
            asyncio.get_running_loop().call_soon(session.core.steer, steer)  # after the answer
    elif choice is not None and choice.mode_after is not None:
        session.mode_after[request.tool_call_id] = choice.mode_after
    return reply


def _offers(session: AcpSession, request: Request) -> Offers:
    """What the host offers beyond the gate's payload: for a shell command, the rules that could
    allow it from now on (saved in the project's rules, as the terminal's dialog does; none to a
    subagent whose shell only reads: ``runtime.shell.rule_offers``) and a run with the network on
    (when the sandbox can give one, and not to such a subagent either: its commands run offline
    whatever is answered)."""
    if not isinstance(request, ShellRequest):
        return Offers(session.cwd)
    host = session.core.host
    rules, sandbox = host.shell_rules, host.shell_sandbox
    save: Callable[[Rule], None] | None = None
    if rules is not None:
        keep = rules

        def save(rule: Rule) -> None:
            keep.add(rule.kind, rule.command)

    return Offers(
        session.cwd,
        shell_rules=rules_to_offer(host, request.session_id, request.command),
        save_rule=save,
        network_once=bool(
            sandbox is not None
            and sandbox.offers_network_once
            and not host.subagents.reads_only(request.session_id)
        ),
    )
