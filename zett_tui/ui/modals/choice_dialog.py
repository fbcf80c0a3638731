"""The one dialog shape every question uses: what is being decided, then a column of choices.

No approval by accident: a dialog takes no key until it has been on screen for ``ARM_DELAY`` with
no key typed in that time (it "arms"). Until then its choices are dimmed, the key line says so,
clicks on them do nothing, and every key typed goes to the prompt it was being typed into
(``early_keys``), so a sentence typed across the dialog's opening lands in the prompt, whole.
Typing goes on doing so once it is armed: a letter, a space, Backspace or a paste (anything but
the dialog's own keys: Enter, Esc, arrows, Tab, PgUp/PgDn, digits) goes to the prompt and the
dialog waits again (``disarm``), so the Enter that ends a message typed after a pause lands in the
prompt as a line break and does not answer the dialog.

Everything it shows goes through ``shown_text.show_controls_in`` (control, format and invisible
characters drawn as escapes), and when its body scrolls, a line under it says how many lines are
above and below (``#more``): a command cannot hide its end below a run of empty lines.

Once armed, the first choice (the affirmative one) is focused; Enter takes the focused choice,
Up/Down/Tab move, number keys pick directly, PgUp/PgDn scroll a long body, and Esc declines. A
question whose "yes" is dangerous names its safe choice (``safe_choice``): that one is focused
instead and number keys are off, so taking anything else needs an arrow key and Enter (or a click).
A choice may open a second column (``then``: "Always allow…" → which rule) or a one-line text field
(``note``: "Don't run…" → an optional note for the model); Esc goes back from either. The dialog's
result is a ``Picked`` (or None when it was closed without an answer).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.events import Event, Key, Paste
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Input, Static, TextArea

from zett_tui.ui.modals import early_keys
from zett_tui.ui.modals.shown_text import show_controls_in, shown

#: Seconds a dialog is on screen, with no key typed meanwhile, before it takes keys.
ARM_DELAY = 0.5

#: What the key line says in each state.
KEYS_CHOICES = "Enter choose · ↑/↓ move · 1-9 pick · Esc decline"
KEYS_SUBMENU = "Enter choose · ↑/↓ move · 1-9 pick · Esc back"
KEYS_NOTE = "Enter send · Esc back"
KEYS_SCROLL = " · PgUp/PgDn scroll"
#: The key line of a dialog with a ``safe_choice`` (number keys are off there).
KEYS_CAUTIOUS = "Enter choose · ↑/↓ move · Esc decline"
KEYS_CAUTIOUS_SUBMENU = "Enter choose · ↑/↓ move · Esc back"
#: The key line until the dialog takes keys.
KEYS_WAITING = "…"
KEYS_WAITING_TYPING = "…  (what you type still goes to your prompt)"

#: Below this many rows the dialog drops its border, padding and gaps (class ``-cramped``) and
#: fills the screen, so that the title, the choices and the key line still show, and the body
#: (command, diff, plan) scrolls in what is left, down to one row.
CRAMPED_BELOW = 20


@dataclass(frozen=True)
class Choice:
    """One answer. ``tone`` colours it: "affirm", "deny", "warning" or "default"."""

    label: str
    value: Any
    tone: str = "default"
    #: When set, choosing this asks for a line of text first, with this as the field's label.
    note: str | None = None
    #: The text the field starts with (editable), e.g. a rule to save.
    note_value: str = ""
    #: Checks the text before it is accepted; an error message keeps the field open.
    check: Callable[[str], str | None] | None = None
    #: When set, choosing this shows these choices instead (a second step); Esc comes back.
    then: tuple[Choice, ...] = ()
    #: What the second step asks, shown above its choices.
    then_title: str = ""


@dataclass(frozen=True)
class Picked:
    """The user's answer: the chosen value, the note typed with it, and any text they edited."""

    value: Any
    note: str = ""
    edited: str | None = None


class ChoiceButton(Button):
    """A button that stands for one ``Choice``."""

    def __init__(self, choice: Choice, label: str, button_id: str) -> None:
        super().__init__(shown(label), id=button_id, compact=True, classes=f"-{choice.tone}")
        self.choice = choice


@dataclass
class _Stage:
    """A column of choices on screen; the root one or a ``then`` step."""

    choices: tuple[Choice, ...]
    buttons: list[ChoiceButton] = field(default_factory=list)
    title: Static | None = None
    #: The choice that opened this step (None for the first one).
    parent: Choice | None = None


class ChoiceDialog(ModalScreen[Picked | None]):
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

    DEFAULT_CSS = """
    ChoiceDialog {
        align: center middle;
        background: $background 60%;
    }
    ChoiceDialog > #dialog {
        width: 90%;
        max-width: 116;
        height: auto;
        max-height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    ChoiceDialog.-warning > #dialog {
        border: thick $warning;
    }
    ChoiceDialog #title {
        text-style: bold;
        color: $primary;
    }
    ChoiceDialog.-warning #title {
        color: $warning;
    }
    ChoiceDialog #warning {
        display: none;
        margin-top: 1;
        padding: 0 1;
        background: $warning 20%;
        color: $text-warning;
        text-style: bold;
    }
    ChoiceDialog #warning.-shown {
        display: block;
    }
    ChoiceDialog #body {
        height: auto;
        margin-top: 1;
        scrollbar-size-vertical: 1;
    }
    ChoiceDialog #body > Vertical {
        height: auto;
    }
    ChoiceDialog #body .details {
        margin-top: 1;
    }
    ChoiceDialog #body Markdown {
        padding: 0 1 0 0;
        margin: 0;
    }
    ChoiceDialog #body Markdown > *:first-child {
        margin-top: 0;
    }
    ChoiceDialog #more {
        display: none;
        color: $text-warning;
        text-style: bold;
    }
    ChoiceDialog #more.-shown {
        display: block;
    }
    ChoiceDialog #choices {
        height: auto;
        margin-top: 1;
    }
    ChoiceDialog .stage-title {
        color: $text-muted;
        text-style: bold;
    }
    ChoiceDialog #choices Button {
        width: 100%;
        margin: 0;
        height: 1;
        border: none;
        text-align: left;
        content-align: left middle;
        background: $surface;
        color: $text;
    }
    ChoiceDialog #choices Button.-deny {
        color: $text-error;
    }
    ChoiceDialog #choices Button.-warning {
        color: $text-warning;
    }
    ChoiceDialog #choices Button:focus {
        background: $primary;
        color: $text;
        text-style: bold;
    }
    ChoiceDialog #choices Button.-deny:focus {
        background: $error;
    }
    ChoiceDialog #note {
        display: none;
        height: auto;
        margin-top: 1;
    }
    ChoiceDialog #note.-shown {
        display: block;
    }
    ChoiceDialog #note-label {
        color: $text-muted;
    }
    ChoiceDialog #note-input {
        width: 100%;
        background: $panel;
    }
    ChoiceDialog #note-error {
        display: none;
        color: $text-error;
    }
    ChoiceDialog #note-error.-shown {
        display: block;
    }
    ChoiceDialog #keys {
        color: $text-muted;
        margin-top: 1;
    }
    ChoiceDialog.-cramped > #dialog {
        width: 100%;
        max-height: 100%;
        border: none;
        padding: 0 1;
    }
    ChoiceDialog.-cramped #dialog > *, ChoiceDialog.-cramped #choices > * {
        margin-top: 0;
    }
    """

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
        self.root = _Stage(tuple(choices))
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
        self._stages: list[_Stage] = [self.root]
        self._steps: dict[int, _Stage] = {}
        self._noting: Choice | None = None
        self._keys = KEYS_CHOICES
        self._body_scrolls = False
        #: False until the dialog takes keys; keys before that go to the prompt below.
        self.armed = False
        self._arm_timer: Timer | None = None
        #: When the dialog was first drawn and when it armed (``time.monotonic()``), for tests and logs.
        self.shown_at: float | None = None
        self.armed_at: float | None = None
        self._typing_target: Widget | None = None
        self._told_numbers_off = False
        #: The choice that had the focus when typing disarmed the dialog; it gets it back.
        self._focus_before: Widget | None = None

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
            body = VerticalScroll(self.body, id="body")
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
            self._steps[id(choice)] = _Stage(choice.then, buttons, title, choice)
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
        if not self.armed:
            text = KEYS_WAITING_TYPING if self._typing_target is not None else KEYS_WAITING
        elif keys == KEYS_CHOICES:
            text = self.key_help
        elif keys == KEYS_SUBMENU and self.cautious:
            text = KEYS_CAUTIOUS_SUBMENU
        else:
            text = keys
        says_scroll = text in (KEYS_WAITING, KEYS_WAITING_TYPING) or KEYS_SCROLL.strip(" ·") in text
        scroll = KEYS_SCROLL if self._body_scrolls and not says_scroll else ""
        line = self.query_one("#keys", Static)
        if str(line.render()) != text + scroll:
            line.update(text + scroll)
            self.call_after_refresh(self.fit)  # a longer key line may wrap, leaving the body less

    def on_mount(self) -> None:
        show_controls_in(self)
        self._typing_target = early_keys.typing_target(self)
        _tell_prompt(self._typing_target, dialog_open=True)
        for body in self.query("#body"):
            self.watch(body, "scroll_y", self._show_more, init=False)
            # its content can grow after the dialog is fitted (Markdown mounts its blocks later):
            # fit again, which counts the lines below again
            self.watch(body, "virtual_size", self._body_content_resized, init=False)
        self.set_keys(self._keys)
        self.call_after_refresh(self.fit)
        self.call_after_refresh(self._shown)

    def focus_first(self) -> None:
        stage = self._stages[-1]
        for button in stage.buttons:
            if stage is self.root and button.choice is self.safe_choice:
                button.focus()
                return
        if stage.buttons:
            stage.buttons[0].focus()

    # -- arming: no key answers a dialog that has only just opened --------------------------------

    def _shown(self) -> None:
        """The dialog has been drawn: it arms after ``ARM_DELAY`` without a key."""
        self.shown_at = time.monotonic()
        self._restart_arming()

    def _restart_arming(self) -> None:
        if self._arm_timer is not None:
            self._arm_timer.stop()
        self._arm_timer = self.set_timer(ARM_DELAY, self._arm, name="arm dialog")

    def _arm(self) -> None:
        self._arm_timer = None
        if self.armed or not self.is_attached:
            return
        self.armed = True
        self.armed_at = time.monotonic()
        self.query_one("#choices").disabled = False
        before, self._focus_before = self._focus_before, None
        if before is not None and before.is_attached and before.display and not before.disabled:
            before.focus()
        else:
            self.focus_first()
        self.set_keys(self._keys)

    def disarm(self) -> None:
        """Take no keys again until ``ARM_DELAY`` passes with none typed (typing just came in)."""
        if not self.armed:
            return
        self.armed = False
        self._focus_before = self.focused
        self.set_focus(None)
        self.query_one("#choices").disabled = True
        self.set_keys(self._keys)
        self._restart_arming()

    def on_unmount(self) -> None:
        _tell_prompt(self._typing_target, dialog_open=False)

    async def on_event(self, event: Event) -> None:
        if isinstance(event, Key | Paste) and (not self.armed or self.types_through(event)):
            self.disarm()
            self._early(event)
            return  # neither this dialog's handlers nor its bindings (Esc, Enter...) see it
        await super().on_event(event)

    def types_through(self, event: Key | Paste) -> bool:
        """Whether ``event``, reaching the armed dialog, is typing meant for the prompt: a paste,
        a printable character other than a digit (digits pick a choice), Backspace or Delete. Keys
        for a text field of the dialog's own (its note) stay there."""
        if isinstance(self.focused, Input | TextArea):
            return False
        if isinstance(event, Paste):
            return True
        if event.key in ("backspace", "delete"):
            return True
        character = event.character
        return bool(event.is_printable and character and not character.isdigit())

    def _early(self, event: Key | Paste) -> None:
        """A key or paste before the dialog takes keys: it goes to the prompt below, and the dialog
        waits another ``ARM_DELAY`` (a sentence typed across the opening lands there whole)."""
        event.stop()
        event.prevent_default()
        if self._arm_timer is not None:
            self._restart_arming()
        target = self._typing_target
        if target is None or not target.is_attached:
            return
        if isinstance(event, Key):
            early_keys.pass_key(target, event)
        else:
            early_keys.pass_paste(target, event)

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    def _body_content_resized(self) -> None:
        self.call_after_refresh(self.fit)

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
        limit = self.size.height if cramped else int(self.size.height * 0.9)
        chrome = dialog.styles.gutter.height
        for child in dialog.children:
            if child.id in ("body", "editor") or not child.display:
                continue
            height = child.outer_size.height
            if child.id == "keys" and child.content_region.width:
                # its new text may not be laid out yet: how many rows it wraps to, at this width
                height = child.get_content_height(child.size, self.size, child.content_region.width)
            chrome += height + child.styles.margin.top + child.styles.margin.bottom
        least = 1 if cramped else 3
        self.set_flex_height(max(least, limit - chrome - (0 if cramped else 1)))

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
        above = max(0, round(body.scroll_y))
        below = max(0, round(body.max_scroll_y - body.scroll_y))
        parts = []
        if above:
            parts.append(f"▲ {above} line{'s' if above != 1 else ''} above (PgUp)")
        if below:
            parts.append(f"▼ {below} more line{'s' if below != 1 else ''} below (PgDn)")
        else:
            parts.append("(end)")
        text = "  ·  ".join(parts)
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


def _tell_prompt(target: Widget | None, *, dialog_open: bool) -> None:
    """Let the prompt below say, while the dialog is up, what typing and Enter do there."""
    show = getattr(target, "show_dialog_open", None)
    if callable(show):
        show(dialog_open)
