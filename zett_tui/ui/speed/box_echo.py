"""Keys the app's terminal driver reads before the app's first frame show in the box drawn before it.

``first_frame`` draws the prompt box before the imports, and ``terminal.early_echo`` shows what is
typed in it until the app takes the terminal. The app then needs 0.1-0.2 s more (the screen composed,
its stylesheet parsed, the widgets mounted) before its own first frame: keys typed meanwhile are
read by Textual's driver and wait in the app's queue for the prompt, and showed only with that
frame (``benchmarks/bench_app.py --only startup``: the worst echo during warm-up, 150-240 ms).

``BoxEcho`` takes those keys in the driver's input thread (``ZettApp._post_message``, Textual's own
parsing) and redraws the box's line, until the chat is mounted: from then on the app paints, and
the prompt shows the same text (the keys reach it first, ``keys_first``).
"""

from __future__ import annotations

from textual import events

from zett_tui.terminal import first_frame


class BoxEcho:
    """What the box shows: the text typed while zett imported, then each key the driver reads."""

    def __init__(self) -> None:
        self._text = ""
        self._stopped = False

    def start(self, typed_at_start: str) -> None:
        """The text typed before the driver started (``typeahead_replay``), already in the box."""
        self._text = typed_at_start

    def key(self, event: events.Key) -> None:
        """A key read by the driver (its input thread): shown in the box while the app has not painted."""
        if self._stopped:
            return
        if event.key == "backspace":
            self._text = self._text[:-1]
        elif event.is_printable and event.character is not None:
            self._text += event.character
        else:
            return
        first_frame.show_typed(self._text)

    def stop(self) -> None:
        """The app paints from now on (call it on the event loop before its first frame)."""
        self._stopped = True
        first_frame.app_paints()
