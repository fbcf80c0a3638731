"""Telling the user zett needs them, only when they are not looking (``[ui] notify``).

When a dialog opens or a turn ends and the user is elsewhere, zett sends a desktop notification and
sets the terminal title ("zett: waiting for you", "zett: done"; ``zett_tui.terminal.notify``). The
title goes back when the user is back (focus, a key, a click) and when zett quits.

What "elsewhere" means with ``notify = "auto"``, most certain first:

1. The terminal reports focus (Textual turns on ``ESC[?1004h``; tmux passes it on with ``set -g
   focus-events on``): once a focus event has arrived, the user is elsewhere while zett is blurred.
2. In tmux without focus events: tmux is asked, in a worker thread and for at most a second
   (``zett_tui.terminal.tmux_pane``); the user is elsewhere when zett's pane is not the active one,
   its window not the current one, or no client is attached.
3. Otherwise it cannot be known, and zett takes it that the user is looking: no notification
   (the bell still rings when a dialog opens, if ``[ui] bell`` is on).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import Any

from textual.app import App

from zett_tui.terminal import notify, tmux_pane
from zett_tui.ui.copying import terminal_writer

log = logging.getLogger(__name__)

__all__ = ["Attention"]


class Attention:
    """The app's one voice for "zett needs you": notifications and the terminal title."""

    def __init__(self, app: App[Any], setting: Callable[[], str], dialog_waiting: Callable[[], bool]) -> None:
        self._app = app
        #: ``[ui] notify`` now ("auto" or "off"): the current chat's, which a reload can change.
        self._setting = setting
        #: A dialog is open and waits for the user's answer.
        self._dialog_waiting = dialog_waiting
        #: A focus event has arrived: the terminal reports focus, ``app.app_focus`` can be trusted.
        self._focus_reported = False
        #: zett's title is on the terminal (the one before it pushed on the title stack).
        self._title_set = False
        #: Counts the user's comings back: a tmux answer that arrives after one is stale.
        self._seen = 0

    # -- what the app tells it -------------------------------------------------------------------

    def focus_changed(self, focused: bool) -> None:
        """The terminal reported focus in (True) or out. Leaving while a dialog waits changes the
        title only: the user has seen the dialog."""
        self._focus_reported = True
        if focused:
            self.user_is_here()
        elif self._dialog_waiting() and self._setting() == "auto":
            self._write([notify.set_title(notify.TITLE_WAITING, push=not self._title_set)])
            self._title_set = True

    def user_is_here(self) -> None:
        """A key, a click, a paste or focus back: the title goes back to what it was."""
        self._seen += 1
        if self._title_set:
            self._title_set = False
            self._write([notify.restore_title()])

    def closing(self) -> None:
        """zett quits: the title goes back to what it was."""
        self.user_is_here()

    # -- what the chat tells it ------------------------------------------------------------------

    def dialog_opened(self, question: str) -> None:
        """A dialog waits for the user; ``question`` says what it asks."""
        self._call(notify.TITLE_WAITING, question)

    def turn_ended(self, prompt: str, *, failed: bool) -> None:
        """A turn for ``prompt`` finished (completed or failed; not stopped by the user)."""
        self._call("zett: failed" if failed else notify.TITLE_DONE, prompt, title=notify.TITLE_DONE)

    # -- deciding and writing --------------------------------------------------------------------

    def _call(self, headline: str, detail: str, *, title: str | None = None) -> None:
        if self._setting() != "auto":
            return
        env = dict(os.environ)
        if self._focus_reported:
            if not self._app.app_focus:
                self._send(headline, detail, title or headline, env)
            return
        if env.get("TMUX") and env.get("TMUX_PANE"):
            self._app.run_worker(
                self._ask_tmux(headline, detail, title or headline, env, self._seen),
                group="attention",
                exit_on_error=False,
            )

    async def _ask_tmux(self, headline: str, detail: str, title: str, env: dict[str, str], seen: int) -> None:
        in_view = await asyncio.to_thread(tmux_pane.pane_in_view, env)
        if in_view is False and seen == self._seen:
            self._send(headline, detail, title, env)

    def _send(self, headline: str, detail: str, title: str, env: dict[str, str]) -> None:
        sequences = notify.notification(headline, detail, env)
        sequences.append(notify.set_title(title, push=not self._title_set))
        self._title_set = True
        self._write(sequences)

    def _write(self, sequences: list[str]) -> None:
        write = terminal_writer(self._app)
        try:
            write("".join(sequences))
        except Exception as error:  # the terminal is gone or the app is stopping
            log.info("could not write to the terminal: %s", error)
