"""Draw a typed character at once, from the terminal driver's input thread, while the loop is busy.

A key reaches the prompt through the event loop: while an answer streams, or the machine is
loaded, it waits there behind the runtime's step, the transcript's update or a frame already
started, then the prompt handles it and draws it (``keys_first``, ``key_echo``). That wait is the
whole of the echo a Textual app can give while its loop is busy.

So, like mosh's local echo, the driver's input thread draws a printable character itself as it
reads it, where the prompt will draw it: at the prompt's cursor, in the style of the prompt's text,
with the cursor one cell on. It does so only where the outcome is known from the last frame
(``EchoSpot``, read by the loop from the prompt's row after each frame it writes, ``PromptLook``):

- the chat is the screen shown (not inline), the prompt has the focus, nothing is selected and its
  cursor is at the end of its text (shown, or blinked off once its look is known: a key shows it);
- the cells from the cursor to the prompt's right edge are blank (or, in the empty prompt, its
  placeholder, which the character replaces), with room for the character and the cursor after it
  (no wrap, no scroll);
- every input event read before it has been handled by the loop (a key that types nothing, a
  click or a paste stops the drawing until then; a mouse move does not).

It draws single printable ASCII characters, and Backspace over the characters the row shows just
before the cursor as they are in the text (each deleted alone: not a paste's placeholder, deleted
whole). Backspace over the text's only character brings the placeholder back: the empty prompt's
row is drawn as it was last drawn (``EmptyPrompt``), while the prompt's place, placeholder and
styles are still those it was drawn with. What it writes goes through the
driver's writer thread, between two frames, never inside one. Whatever becomes of the key, once the
loop has handled it the cells drawn are drawn again from what the app shows there
(``PredictedEcho.handled``): a wrong guess lasts until the next frame at most.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.console import COLOR_SYSTEMS
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import TextArea

#: Characters drawn at once: printable ASCII, one cell each (wider characters and combining marks
#: are left to the app, which knows how the terminal lays them out).
PREDICTABLE = frozenset(chr(code) for code in range(0x20, 0x7F))
#: Seconds after which an event read but never reported handled no longer holds the drawing back:
#: one dropped on the way, or a paste (the prompt reports the keys it handled, not pastes).
LOST_AFTER = 0.5
#: Backspaces drawn ahead in a row at most (each checked against the row shown, in each frame).
MOST_ERASED = 64


#: What ``PredictedEcho.arrived`` is given for Backspace.
ERASE = "\b"


@dataclass(frozen=True, slots=True)
class EmptyPrompt:
    """The empty prompt's cursor row as it was drawn: what Backspace over the last character of the
    text brings back, as long as the prompt's place, placeholder and styles are the same."""

    x: int
    """The screen column of the row's first cell (the prompt's content's left edge)."""
    y: int
    limit: int
    placeholder: str
    styles: tuple[Style, Style]
    """The text's and the cursor's style when it was drawn (a theme switch changes them)."""
    row: str
    """Escape sequences drawing the row from ``x`` to ``limit``, the cursor shown on its first cell."""


@dataclass(frozen=True, slots=True)
class EchoSpot:
    """Where the next typed character goes on the screen, and how it is drawn there."""

    x: int
    """The screen column of the prompt's cursor."""
    y: int
    """The screen row of the prompt's cursor."""
    limit: int
    """The cursor may move up to this column (exclusive): beyond, the prompt would wrap the line."""
    text: Callable[[str], str]
    """Escape sequences drawing a character in the prompt's text style."""
    cursor: str
    """Escape sequences drawing the cursor's cell (a blank in the cursor's style)."""
    clear: str = ""
    """Escape sequences drawn after the cursor: the rest of the row blank, over the empty prompt's
    placeholder, as the prompt pads a line of text."""
    erasable: int = 0
    """How many characters just before the cursor, on its row, Backspace deletes one by one while
    text is left (the last one leaves the placeholder: ``emptied``)."""
    emptied: EmptyPrompt | None = None
    """The empty prompt's row as last drawn, when it is still what the prompt would draw: Backspace
    over the text's only character draws it back."""
    length: int = 0
    """How many characters the prompt's text has (all before the cursor)."""

    def _emptied_by(self, character: str) -> EmptyPrompt | None:
        """``emptied`` when ``character`` is a Backspace over the text's only character."""
        empty = self.emptied
        if character == ERASE and empty is not None and self.length == 1 and self.x == empty.x + 1:
            return empty
        return None

    def draw(self, character: str) -> str:
        """The character at the cursor, the cursor one cell on, the terminal's cursor there too;
        for ``ERASE``, the cursor one cell back over the character before it."""
        y = self.y + 1
        if (empty := self._emptied_by(character)) is not None:
            return f"\x1b[{y};{empty.x + 1}H{empty.row}\x1b[{y};{empty.x + 1}H"
        if character == ERASE:
            return f"\x1b[{y};{self.x}H{self.cursor}{self.text(' ')}\x1b[{y};{self.x}H"
        return f"\x1b[{y};{self.x + 1}H{self.text(character)}{self.cursor}{self.clear}\x1b[{y};{self.x + 2}H"

    def drawn(self, character: str) -> Region:
        """The cells ``draw(character)`` covers."""
        if (empty := self._emptied_by(character)) is not None:
            return Region(empty.x, self.y, self.limit - empty.x, 1)
        if character == ERASE:
            return Region(self.x - 1, self.y, 2, 1)
        return Region(self.x, self.y, self.limit - self.x if self.clear else 2, 1)

    def can_draw(self, character: str) -> bool:
        if character == ERASE:
            return self.erasable > 0 or self._emptied_by(character) is not None
        return character in PREDICTABLE

    def next(self, character: str) -> EchoSpot | None:
        """The spot after ``character`` is drawn: None when the cursor would come too near the
        limit."""
        if (empty := self._emptied_by(character)) is not None:  # the placeholder's spot again
            blanks = self.text(" " * (self.limit - empty.x - 2))  # the first character typed replaces it
            return replace(self, x=empty.x, clear=blanks, erasable=-1, length=0)
        if character == ERASE:
            return replace(self, x=self.x - 1, erasable=self.erasable - 1, length=self.length - 1)
        if self.x + 3 >= self.limit:
            return None
        return replace(self, x=self.x + 1, clear="", erasable=self.erasable + 1, length=self.length + 1)


class PredictedEcho:
    """Draws typed characters from the input thread at the last frame's ``EchoSpot``.

    ``arrived`` runs in the driver's input thread for every input event, ``publish`` and ``handled``
    on the event loop. Until the loop has handled every event that arrived, a spot it publishes is
    ignored (its frame was drawn before them); the input thread moves the spot on for each
    character it draws, and any other event stops the drawing until then."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self._write = write
        self._lock = threading.Lock()
        self._spot: EchoSpot | None = None
        #: Each event that arrived and is not handled yet, with the cells drawn for it (or None).
        self._in_flight: deque[tuple[object, Region | None, float]] = deque()
        #: Characters drawn from the input thread (for tests and benchmarks).
        self.drawn = 0
        #: Whether there is a terminal to draw on (the app turns it on when it has one): without,
        #: the loop reads no spots.
        self.enabled = False

    def publish(self, spot: EchoSpot | None) -> None:
        """After a frame: where the next character goes (None: nowhere certain)."""
        with self._lock:
            if not self._in_flight:
                self._spot = spot

    def arrived(self, event: object, character: str | None) -> None:
        """An input event read by the driver (one that ``tracked``; ``character``: what a key
        types, ``ERASE`` for Backspace, else None): a character is drawn when certain; anything
        else stops the drawing.

        The write is made after the lock is let go: a terminal that stops reading fills the
        writer's queue and blocks this thread, never the loop waiting for the lock."""
        with self._lock:
            spot, self._spot = self._spot, None
            sequences, cells = None, None
            if spot is not None and character is not None and spot.can_draw(character):
                sequences, cells = spot.draw(character), spot.drawn(character)
                self._spot = spot.next(character)
                self.drawn += 1
            self._in_flight.append((event, cells, time.monotonic()))
        if sequences:
            self._write(sequences)

    def handled(self, event: object) -> list[Region]:
        """The loop has handled ``event`` (the prompt has, for a key forwarded to it): the cells
        drawn for it, which the caller repaints from what the app shows there. An event that never
        reached a handler is forgotten after ``LOST_AFTER`` seconds, its cells repainted then."""
        with self._lock:
            lost_before = time.monotonic() - LOST_AFTER
            kept: deque[tuple[object, Region | None, float]] = deque()
            drawn: list[Region] = []
            for entry in self._in_flight:
                queued, region, at = entry
                if queued is event or at < lost_before:
                    if region is not None:
                        drawn.append(region)
                else:
                    kept.append(entry)
            self._in_flight = kept
            if not kept:
                self._spot = None  # drawn again from the next frame's
            return drawn


def tracked(event: object) -> bool:
    """Whether ``event`` is one the drawing waits for the loop to handle: any input but a mouse
    move, which changes nothing typed."""
    return isinstance(event, events.InputEvent) and not isinstance(event, events.MouseMove)


def drawn_as(event: object) -> str | None:
    """What ``PredictedEcho.arrived`` is given for an input event: the character a key types,
    ``ERASE`` for Backspace, None for anything else."""
    if not isinstance(event, events.Key):
        return None
    if event.key == "backspace":
        return ERASE
    return event.character if event.is_printable else None


class PromptLook:
    """Where the next character typed in a prompt goes, read from the prompt's row as drawn.

    The prompt pads its row with blanks in its text's style, and draws its cursor as a blank in
    the cursor's style: both are read there while the prompt holds text, and kept for the empty
    prompt, whose row shows the placeholder instead. They are used there only while that row still
    shows the same cursor and background (a theme switch changes them: nothing is drawn until the
    prompt holds text again). Before the prompt has held text, the text's style is the prompt's
    own (its colour on its background, as TextArea draws text with no highlighting), used only when
    that background is the row's. The empty prompt's row is kept as drawn, for Backspace over the
    last character to draw it back."""

    def __init__(self) -> None:
        self._styles: tuple[Style, Style] | None = None
        self._empty: EmptyPrompt | None = None

    def spot(self, prompt: TextArea, single_erases: Callable[[int], int] = lambda most: 0) -> EchoSpot | None:
        """The spot, or None unless certain (see the module's docstring). ``single_erases(most)``:
        how many characters before the cursor Backspace deletes one at a time (not a paste's
        placeholder, deleted whole)."""
        if not prompt.has_focus or prompt.read_only:
            return None
        selection = prompt.selection
        if selection.start != selection.end or selection.end != prompt.document.end:
            return None
        cursor = prompt.cursor_screen_offset
        content = prompt.content_region
        left, top = prompt.region.offset
        x, limit = cursor.x - left, content.right - left
        if not content.contains(cursor.x, cursor.y) or x + 2 >= limit:
            return None
        row = prompt.render_lines(Region(0, cursor.y - top, prompt.region.width, 1))[0]
        start = content.x - left
        cells = [
            (char, style)
            for text, style, control in row.crop(start, limit)
            if style is not None and not control
            for char in text
            if cell_len(char) == 1
        ]
        if len(cells) != limit - start:
            return None  # a cell of no style, or a wide character: not a row to draw into
        shown = "".join(char for char, _ in cells[: x - start])
        (under_cursor, cursor_style), *after = cells[x - start :]
        if prompt.text:
            text_style = after[0][1]
            if under_cursor != " " or any(cell != (" ", text_style) for cell in after):
                return None
            if cursor_style == text_style:  # blinked off: a key shows it again, as it looked
                if self._styles is None or self._styles[0] != text_style:
                    return None
                cursor_style = self._styles[1]
            self._styles = (text_style, cursor_style)
            clear = ""
            erasable = _shown_before(shown, prompt, single_erases(min(len(shown), MOST_ERASED)))
            empty = self._empty
            if empty is not None and empty != EmptyPrompt(
                content.x, cursor.y, content.right, str(prompt.placeholder), self._styles, empty.row
            ):
                empty = None  # moved, another placeholder or theme since: the app draws it
        else:  # the placeholder: typing replaces it
            blinked_off = cursor_style == after[0][1]  # its cell shows the placeholder's own style
            if blinked_off and self._styles is None:
                return None
            text_style, known_cursor = self._styles or (prompt.rich_style, cursor_style)
            if blinked_off:
                cursor_style = known_cursor  # a key shows it again, as it looked
            if cursor_style != known_cursor or after[-1][1].bgcolor != text_style.bgcolor:
                return None
            clear = Strip.render_style(text_style, " " * (len(after) - 1), _colors(prompt))
            erasable = -1  # the first character typed, erased, leaves the placeholder: ``empty``
            empty = None
            if x == start:
                shown_row = [(under_cursor, cursor_style), *after]
                empty = EmptyPrompt(
                    content.x,
                    cursor.y,
                    content.right,
                    str(prompt.placeholder),
                    (text_style, known_cursor),
                    Strip([Segment(*cell) for cell in shown_row]).simplify().render(prompt.app.console),
                )
                self._empty = empty
        colors = _colors(prompt)
        return EchoSpot(
            cursor.x,
            cursor.y,
            content.right,
            partial(Strip.render_style, text_style, color_system=colors),
            Strip.render_style(cursor_style, " ", colors),
            clear,
            erasable,
            empty,
            len(prompt.text),
        )


def _shown_before(shown: str, prompt: TextArea, erasable: int) -> int:
    """How many of the ``erasable`` characters before the cursor the row shows just before it
    (``shown``), as they are in the text, one cell each; never all of the text."""
    text = prompt.text
    count = 0
    while (
        count < erasable
        and count < len(text) - 1
        and shown[len(shown) - 1 - count] == text[len(text) - 1 - count]
    ):
        count += 1
    return count


def _colors(prompt: TextArea) -> ColorSystem:
    return COLOR_SYSTEMS.get(prompt.app.console.color_system or "truecolor", ColorSystem.TRUECOLOR)
