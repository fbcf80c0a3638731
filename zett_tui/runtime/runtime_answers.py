"""What the user's answers send back to a running turn: a decision's reply and a steering note.

Both go through ``Agent.emit_external_event`` (the runtime's external events), which hands them to
the extension waiting for them; an answer nobody waits for any more (a late or a duplicate one) is
refused, and that is a normal outcome here, not an error.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.extensions.external import ExternalEvent

from zett_tui.core.inert_text import encodable

if TYPE_CHECKING:
    from zett_tui.runtime.decisions import Reply
    from zett_tui.runtime.events import DecisionRequested
    from zett_tui.runtime.shell.sandbox import ShellSandbox

log = logging.getLogger(__name__)


def answer_decision(
    agent: Agent,
    decision: DecisionRequested,
    reply: Reply | Mapping[str, Any],
    sandbox: ShellSandbox | None,
) -> bool:
    """Send the user's answer to ``decision``; False for a late or duplicate answer.

    ``reply`` is the gate's typed reply (``runtime.decisions``); a mapping is sent as the raw
    payload (an extension's own question). "Run once with network" is granted in ``sandbox`` before
    the command can run, and taken back when the answer is refused."""
    payload = dict(reply) if isinstance(reply, Mapping) else reply.payload()
    response_event = decision.payload.get("response_event")
    if not isinstance(response_event, str):
        return False
    call_id = str(decision.payload.get("tool_call_id"))
    networked = sandbox if payload.get("network") is True else None
    if networked is not None:
        networked.allow_network_once(decision.session_id, call_id)
    try:
        accepted = agent.emit_external_event(
            ExternalEvent(response_event, payload),
            config=AgentRunConfig(session_id=decision.session_id),
        )
    except Exception:
        log.warning("answer to %s was refused", decision.kind, exc_info=True)
        accepted = []
    if networked is not None and not accepted:
        networked.forget_network_once(decision.session_id, call_id)
    return bool(accepted)


def steer(agent: Agent, config: AgentRunConfig, text: str) -> bool:
    """Add a note to the running turn (the runtime's steering message); False when none runs."""
    try:
        accepted = agent.emit_external_event(
            ExternalEvent("steering_message", {"content": encodable(text)}), config=config
        )
    except Exception:
        log.warning("steering message refused", exc_info=True)
        return False
    return bool(accepted)
