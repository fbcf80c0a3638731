"""The one dialog shape every question uses: what is being decided, then a column of choices.

No approval by accident: a dialog takes no key until it has been on screen for a moment with no
key typed in that time, and typing meant for the prompt goes on reaching the prompt
(``dialog_arming``). Until it arms, its choices are dimmed, the key line says so (``dialog_keys``)
and clicks on them do nothing.

Everything it shows goes through ``shown_text.show_controls_in`` (control, format and invisible
characters drawn as escapes); the body gets what the screen has left, and when it scrolls, a line
under it says how many lines are above and below (``#more``, ``dialog_fitting``).

Once armed, the first choice (the affirmative one) is focused; Enter takes the focused choice,
Up/Down/Tab move, number keys pick directly, PgUp/PgDn scroll a long body, and Esc declines. A
question whose "yes" is dangerous names its safe choice (``safe_choice``): that one is focused
instead and number keys are off, so taking anything else needs an arrow key and Enter (or a click).
A choice may open a second column (``then``: "Always allow…" → which rule) or a one-line text field
(``note``: "Don't run…" → an optional note for the model); Esc goes back from either. The dialog's
result is a ``Picked`` (or None when it was closed without an answer). The choices, the answer and
the buttons are in ``dialog_choices``; the look is in ``choice_dialog.tcss``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.events import Key
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from zett_tui.ui.modals.dialog_arming import ARM_DELAY, ArmedModal
from zett_tui.ui.modals.dialog_choices import Choice, ChoiceButton, Picked, Stage
from zett_tui.ui.modals.dialog_fitting import CRAMPED_BELOW, DialogBody, body_room, more_lines
from zett_tui.ui.modals.dialog_keys import (
    KEYS_CAUTIOUS,
    KEYS_CAUTIOUS_SUBMENU,
    KEYS_CHOICES,
    KEYS_NOTE,
    KEYS_SCROLL,
    KEYS_SUBMENU,
    KEYS_WAITING,
    KEYS_WAITING_TYPING,
    key_line,
)
from zett_tui.ui.modals.shown_text import show_controls_in

__all__ = [
    "ARM_DELAY",
    "CRAMPED_BELOW",
    "KEYS_CAUTIOUS",
    "KEYS_CAUTIOUS_SUBMENU",
    "KEYS_CHOICES",
    "KEYS_NOTE",
    "KEYS_SCROLL",
    "KEYS_SUBMENU",
    "KEYS_WAITING",
    "KEYS_WAITING_TYPING",
    "Choice",
    "ChoiceButton",
    "ChoiceDialog",
    "Picked",
]


class ChoiceDialog(ArmedModal):
    """A modal question. ``decline_value`` is what Esc answers.

    ``safe_choice`` is the value of the first-step choice that is safe to take by accident (the
    "Don't run" of a dangerous command, the "Don't apply" of an edit outside the project). When
    given, that choice is the one focused when the dialog arms, so Enter takes it, and number keys
    pick nothing: every other choice takes an arrow key (or Tab) and Enter, or a click. None (the
    default) focuses the first choice and keeps the number keys.

    ``armed`` says whether the dialog takes keys yet (see the module docstring); tests wait on it.
    """

    #: Nothing is focused until the dialog arms: keys then reach the screen, which passes them on.
    AUTO_FOCUS = ""

    DEFAULT_CSS = (Path(__file__).parent / "choice_dialog.tcss").read_text(encoding="utf-8")

    BINDINGS = [
        Binding("escape", "decline", "Decline", show=False),
        Binding("down,right", "app.focus_next", "Next", show=False),
        Binding("up,left", "app.focus_previous", "Previous", show=False),
        Binding("pageup", "scroll_body(-1)", "Scroll up", show=False),
        Binding("pagedown", "scroll_body(1)", "Scroll down", show=False),
    ]

    def __init__(
        self,
        title: str | Text,
        body: Widget | None,
        choices: Iterable[Choice],
        *,
        decline_value: Any,
        warning: str = "",
        key_help: str | None = None,
        safe_choice: Any = None,
    ) -> None:
        super().__init__(classes="-warning" if warning else "")
        self.title_text = title
        self.body = body
        self.warning_text = warning
        self.decline_value = decline_value
        self.root = Stage(tuple(choices))
        #: The choice focused when the dialog arms instead of the first (None: the first).
        self.safe_choice = next(
            (
                choice
                for choice in self.root.choices
                if safe_choice is not None and choice.value == safe_choice
            ),
            None,
        )
        if key_help is None:
            key_help = KEYS_CAUTIOUS if self.cautious else KEYS_CHOICES
        self.key_help = key_help
        self._stages: list[Stage] = [self.root]
        self._steps: dict[int, Stage] = {}
        self._noting: Choice | None = None
        self._keys = KEYS_CHOICES
        self._body_scrolls = False
        self._told_numbers_off = False

    @property
    def cautious(self) -> bool:
        """Opens on its safe choice, number keys off."""
        return self.safe_choice is not None

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.title_text, id="title", markup=False)
            yield Static(
                self.warning_text, id="warning", markup=False, classes="-shown" if self.warning_text else ""
            )
            yield from self.compose_body()
            yield Static("", id="more", markup=False)
            with Vertical(id="choices", disabled=True):
                yield from self.compose_choices()
            with Vertical(id="note"):
                yield Static("", id="note-label", markup=False)
                yield Input(id="note-input", compact=True)
                yield Static("", id="note-error", markup=False)
            yield Static(self.key_help, id="keys", markup=False)

    def compose_body(self) -> ComposeResult:
        if self.body is not None:
            body = DialogBody(self.body, id="body")
            body.can_focus = False
            yield body

    def compose_choices(self) -> ComposeResult:
        self.root.buttons = [
            self._button(choice, f"choice-{i}") for i, choice in enumerate(self.root.choices, 1)
        ]
        yield from self.root.buttons
        yield from self._submenus(self.root.choices, "choice")

    def _submenus(self, choices: tuple[Choice, ...], prefix: str) -> Iterable[Widget]:
        """Every ``then`` step's title and buttons, hidden until their step is shown."""
        for index, choice in enumerate(choices, 1):
            if not choice.then:
                continue
            title = Static(choice.then_title, classes="stage-title", markup=False)
            title.display = False
            yield title
            buttons = [self._button(sub, f"{prefix}-{index}-{i}") for i, sub in enumerate(choice.then, 1)]
            for button in buttons:
                button.display = False
            self._steps[id(choice)] = Stage(choice.then, buttons, title, choice)
            yield from buttons
            yield from self._submenus(choice.then, f"{prefix}-{index}")

    def _button(self, choice: Choice, button_id: str) -> ChoiceButton:
        index = button_id.rsplit("-", 1)[-1]
        more = choice.then or (choice.note is not None and not choice.note_value)
        number = "" if self.cautious else f"{index}. "
        return ChoiceButton(choice, f" {number}{choice.label}{'…' if more else ''}", button_id)

    def set_keys(self, keys: str) -> None:
        """Show ``keys`` as the key help (``KEYS_CHOICES`` means this dialog's own key help)."""
        self._keys = keys
        text = key_line(
            keys,
            armed=self.armed,
            typing_goes_on=self.typing_target is not None,
            key_help=self.key_help,
            cautious=self.cautious,
            body_scrolls=self._body_scrolls,
        )
        line = self.query_one("#keys", Static)
        if str(line.render()) != text:
            line.update(text)
            self.call_after_refresh(self.fit)  # a longer key line may wrap, leaving the body less

    def on_mount(self) -> None:
        show_controls_in(self)
        self.listen_for_typing()
        for body in self.query("#body"):
            self.watch(body, "scroll_y", self._show_more, init=False)
            # its content can grow after the dialog is fitted (Markdown mounts its blocks later):
            # fit again, which counts the lines below again
            self.watch(body, "virtual_size", self._body_content_resized, init=False)
        self.set_keys(self._keys)
        self.call_after_refresh(self.fit)
        self.call_after_refresh(self.drawn)

    def focus_first(self) -> None:
        stage = self._stages[-1]
        for button in stage.buttons:
            if stage is self.root and button.choice is self.safe_choice:
                button.focus()
                return
        if stage.buttons:
            stage.buttons[0].focus()

    # -- what arming changes (``dialog_arming``) ----------------------------------------------

    def take_keys(self, taking: bool) -> None:
        self.query_one("#choices").disabled = not taking

    def show_keys(self) -> None:
        self.set_keys(self._keys)

    # -- fitting to the screen (``dialog_fitting``) --------------------------------------------

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    def _body_content_resized(self) -> None:
        self.call_after_refresh(self.fit)

    def on_dialog_body_resized(self) -> None:
        self.call_after_refresh(self._show_more)

    @property
    def cramped(self) -> bool:
        """The screen is too low for the dialog's border and gaps (see ``CRAMPED_BELOW``)."""
        return self.has_class("-cramped")

    def fit(self) -> None:
        """Give the body what the screen has left once everything else is shown."""
        try:
            dialog = self.query_one("#dialog")
        except NoMatches:
            return
        cramped = self.size.height < CRAMPED_BELOW
        if cramped != self.cramped:
            self.set_class(cramped, "-cramped")
            self.call_after_refresh(self.fit)  # measure again once the new styles apply
            return
        self.set_flex_height(body_room(dialog, self.size, cramped=cramped))

    def set_flex_height(self, height: int) -> None:
        """The most the body may take; subclasses with other big widgets size them here too."""
        scrolls = False
        for body in self.query("#body"):
            body.styles.max_height = height
            scrolls = body.display and body.virtual_size.height > height
        if scrolls != self._body_scrolls:
            self._body_scrolls = scrolls
            self.query_one("#more").set_class(scrolls, "-shown")
            self.set_keys(self._keys)
        self.call_after_refresh(self._show_more)

    def _show_more(self) -> None:
        """Under a body that scrolls: how many of its lines are above and below what is shown."""
        try:
            line = self.query_one("#more", Static)
            body = self.query_one("#body")
        except NoMatches:
            return
        if not self._body_scrolls or not body.display:
            return
        text = more_lines(body)
        if str(line.render()) != text:
            line.update(text)
            # the line's new text can move the body's height by a row: count again once laid out
            # (this stops as soon as the count holds)
            self.call_after_refresh(self._show_more)

    # -- keys -----------------------------------------------------------------------------------

    def on_key(self, event: Key) -> None:
        character = event.character
        if not (character and character.isdigit() and isinstance(self.focused, Button)) or self._noting:
            return
        if self.cautious:
            event.stop()
            event.prevent_default()
            self.notify_number_keys_off()
            return
        choices = self._stages[-1].choices
        index = int(character)
        if 1 <= index <= len(choices):
            event.stop()
            event.prevent_default()
            self.pick(choices[index - 1])

    def notify_number_keys_off(self) -> None:
        """Say (calmly, once per dialog) why a number key did nothing."""
        if self._told_numbers_off:
            return
        self._told_numbers_off = True
        self.notify("Number keys are off in this dialog: use ↑/↓ and Enter.", timeout=4)

    def action_scroll_body(self, direction: int) -> None:
        for body in self.query("#body"):
            if direction < 0:
                body.scroll_page_up()
            else:
                body.scroll_page_down()

    @on(Button.Pressed, "#choices ChoiceButton")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if isinstance(event.button, ChoiceButton):
            self.pick(event.button.choice)

    # -- choosing -------------------------------------------------------------------------------

    def pick(self, choice: Choice) -> None:
        """Take ``choice``: open its second step or text field, or answer with it."""
        if choice.then:
            self._open_stage(choice)
        elif choice.note is not None:
            self._open_note(choice)
        else:
            self.answer(choice, "")

    def answer(self, choice: Choice, note: str) -> None:
        self.dismiss(self.result_for(choice, note))

    def result_for(self, choice: Choice, note: str) -> Picked:
        return Picked(choice.value, note)

    def action_decline(self) -> None:
        if self._noting is not None:
            self._close_note()
        elif len(self._stages) > 1:
            self._close_stage()
        else:
            self.dismiss(Picked(self.decline_value))

    def _open_stage(self, choice: Choice) -> None:
        self._show_stage(False)
        self._stages.append(self._steps[id(choice)])
        self._show_stage(True)
        self.stage_changed()

    def _close_stage(self) -> None:
        self._show_stage(False)
        parent = self._stages.pop().parent
        self._show_stage(True)
        for button in self._stages[-1].buttons:
            if button.choice is parent:
                button.focus()
        self.stage_changed()

    def _show_stage(self, shown: bool) -> None:
        stage = self._stages[-1]
        for button in stage.buttons:
            button.display = shown
        if stage.title is not None:
            stage.title.display = shown and bool(stage.parent and stage.parent.then_title)
        if shown:
            self.focus_first()
            self.set_keys(KEYS_CHOICES if stage is self.root else KEYS_SUBMENU)
            self.call_after_refresh(self.fit)

    def stage_changed(self) -> None:
        """Called after a ``then`` step opened or closed; ``in_stage`` says which is shown."""

    @property
    def in_stage(self) -> Choice | None:
        """The choice whose second step is shown, or None at the first step."""
        return self._stages[-1].parent

    # -- the text field -------------------------------------------------------------------------

    def _open_note(self, choice: Choice) -> None:
        self._noting = choice
        for button in self._stages[-1].buttons:
            button.disabled = button.choice is not choice
        self.query_one("#note-label", Static).update(choice.note or "")
        field_ = self.query_one("#note-input", Input)
        field_.value = choice.note_value
        field_.cursor_position = len(choice.note_value)
        self._show_error("")
        self.query_one("#note").add_class("-shown")
        self.set_keys(KEYS_NOTE)
        field_.focus()
        self.call_after_refresh(self.fit)

    def _close_note(self) -> None:
        choice, self._noting = self._noting, None
        self.query_one("#note").remove_class("-shown")
        for button in self._stages[-1].buttons:
            button.disabled = False
            if button.choice is choice:
                button.focus()
        self.set_keys(KEYS_CHOICES if len(self._stages) == 1 else KEYS_SUBMENU)
        self.call_after_refresh(self.fit)

    def _show_error(self, message: str) -> None:
        error = self.query_one("#note-error", Static)
        error.update(message)
        error.set_class(bool(message), "-shown")

    @on(Input.Submitted, "#note-input")
    def _note_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        choice = self._noting
        if choice is None:
            return
        text = event.value.strip()
        problem = choice.check(text) if choice.check is not None else None
        if problem:
            self._show_error(problem)
            return
        self.answer(choice, text)
