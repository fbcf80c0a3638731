"""The two hook events the host runs itself, outside a model request: ``SessionStart`` (once the
agent is built) and ``UserPromptSubmit`` (before a prompt becomes a turn)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from zett_tui.runtime.events import Notice, TurnFinished, UIEvent

if TYPE_CHECKING:
    from zett_tui.runtime.hooks.extension import HooksExtension
    from zett_tui.runtime.hooks.runner import SessionHooks
    from zett_tui.runtime.turn_notices import TurnNotices

Sink = Callable[[UIEvent], None]


async def session_started(
    hooks: SessionHooks, extension: HooksExtension, *, resumed: bool, notify: Callable[[str, str], None]
) -> None:
    """Run the ``SessionStart`` hooks; what they say is given to the model in every request."""
    source = "resume" if resumed else "startup"
    outcome = await hooks.run("SessionStart", {"source": source}, (source,))
    extension.session_context = outcome.context
    for reason in outcome.blocks:  # exit 2 cannot stop a session from starting: shown, that is all
        notify(f"A SessionStart hook said: {reason}", "warning")


async def prompt_submitted(
    hooks: SessionHooks, prompt: str, sink: Sink, notices: TurnNotices
) -> str | TurnFinished:
    """Run the ``UserPromptSubmit`` hooks: the prompt with what they add for the model, or the
    turn's end (already given to ``sink``) when one blocked it: nothing reaches the model or the
    history then."""
    try:
        outcome = await hooks.run("UserPromptSubmit", {"prompt": prompt})
    except asyncio.CancelledError:
        notices.pass_to(sink)
        sink(TurnFinished("cancelled"))
        raise
    notices.pass_to(sink)
    reason = outcome.block or outcome.stop
    if reason is not None:
        sink(Notice(f"⛔ A UserPromptSubmit hook blocked this prompt; it was not sent: {reason}", "warning"))
        finished = TurnFinished("blocked", reason)
        sink(finished)
        return finished
    if outcome.context:
        return f"{prompt}\n\n<user-prompt-submit-hook>\n{outcome.context}\n</user-prompt-submit-hook>"
    return prompt
