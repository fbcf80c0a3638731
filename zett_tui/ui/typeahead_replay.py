"""Replays the keys typed while zett started (``zett_tui.typeahead``) into the app, in order."""

from __future__ import annotations

import logging
from typing import Any

from textual import events
from textual.app import App

from zett_tui import typeahead

log = logging.getLogger(__name__)


def replay_typeahead(app: App[Any]) -> int:
    """Post the kept keys to ``app`` as key (and paste) events; returns how many.

    Call it before the app's terminal driver starts (``on_load``): the events then sit in the
    app's queue ahead of every key the driver reads later.
    """
    text = typeahead.take()
    if not text:
        return 0
    try:  # Textual's own terminal parser, so replayed keys mean exactly what typed keys mean
        from textual._xterm_parser import XTermParser
    except ImportError:
        log.warning("cannot replay %d characters typed at start: Textual's parser moved", len(text))
        return 0
    parser = XTermParser()
    replayed = 0
    for event in [*parser.feed(text), *parser.feed("")]:
        if isinstance(event, events.Key | events.Paste):
            event.set_sender(app)
            app.post_message(event)
            replayed += 1
    return replayed
