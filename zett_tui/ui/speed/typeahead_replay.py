"""Replays the keys typed while zett started (``zett_tui.terminal.typeahead``) into the app, in order.

The leading plain text goes straight into the prompt box as the chat mounts, so the first frame
already shows it; whatever follows (Enter, arrows, a paste, more text) is posted as key events,
which the app handles before any key its terminal driver reads later.
"""

from __future__ import annotations

import logging
from typing import Any

from textual import events
from textual.app import App

from zett_tui.terminal import typeahead
from zett_tui.terminal.replies import strip_replies

log = logging.getLogger(__name__)


def replay_typeahead(app: App[Any]) -> str:
    """Take the kept keys: post all but the leading plain text to ``app`` as key (and paste)
    events, and return that text for the caller to put in the prompt box before them.

    Call it before the app's terminal driver starts (``on_load``): the events then sit in the
    app's queue ahead of every key the driver reads later.
    """
    text = strip_replies(typeahead.take())  # a terminal's late answer is not typed text
    if not text:
        return ""
    from zett_tui.ui.textual_compat import parse_terminal_input

    # Textual's own terminal parser, so replayed keys mean exactly what typed keys mean
    everything = parse_terminal_input(text)
    if everything is None:
        log.warning("cannot replay %d characters typed at start: Textual's parser moved", len(text))
        return ""
    parsed = [event for event in everything if isinstance(event, events.Key | events.Paste)]
    leading = 0
    while leading < len(parsed) and _plain_character(parsed[leading]):
        leading += 1
    for event in parsed[leading:]:
        event.set_sender(app)
        app.post_message(event)
    return "".join(_character(event) for event in parsed[:leading])


def _plain_character(event: events.Key | events.Paste) -> bool:
    return (
        isinstance(event, events.Key)
        and event.is_printable
        and event.character not in (None, "\n", "\r", "\t")
    )


def _character(event: events.Key | events.Paste) -> str:
    assert isinstance(event, events.Key) and event.character is not None
    return event.character
