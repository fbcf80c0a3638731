"""The prompt box: multi-line, Enter sends, Shift+Enter or Ctrl+J inserts a newline, Up/Down recall.

It also completes ``/commands`` and ``@files`` in a menu above it (``prompt_completion.py``),
collapses large pastes into a placeholder (expanded again on submit), and hands the prompt to
``$EDITOR`` on Ctrl+G.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

from textual import events, on
from textual.actions import SkipAction
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

from zett_tui.runtime.prompt_queue import PromptQueue
from zett_tui.terminal import first_frame
from zett_tui.ui.chat.commands.registry import CommandList
from zett_tui.ui.external_editor import EditorRunner, edit_text, run_suspended
from zett_tui.ui.pastes import PasteStore
from zett_tui.ui.speed.key_echo import KeyEcho
from zett_tui.ui.speed.theme_css import ThemeCss
from zett_tui.ui.textual_compat import default_prevented, own_bindings, text_area_lines
from zett_tui.ui.widgets.completion_menu import CompletionMenu
from zett_tui.ui.widgets.image_paste import ImagePaste
from zett_tui.ui.widgets.keys_in_order import PassedKey, run_bindings
from zett_tui.ui.widgets.prompt_completion import FilesFound, FilesListed, PromptCompletion
from zett_tui.ui.widgets.prompt_history import PromptHistory
from zett_tui.workspace.file_finder import ProjectFiles
from zett_tui.workspace.prompt_log import append_prompt, load_prompts

if TYPE_CHECKING:
    from textual.strip import Strip

    from zett_tui.runtime.files.read_access import ReadAccess

#: Seconds without a key, paste or click after which the prompt's cursor stops blinking and stays
#: shown (as many terminals do with their own cursor): an idle zett then draws nothing at all.
BLINK_SECONDS = 5.0


#: TextArea's own actions that change only the text, the cursor or the selection (``TextArea.BINDINGS``).
_TEXT_ACTIONS = ("cursor_", "delete_", "undo", "redo", "select_")


class Composer(TextArea):
    """Where the user writes. Posts ``Composer.Submitted`` on Enter, with pastes expanded."""

    DEFAULT_CSS = """
    Composer {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 40%;
        padding: 0 1;
        background: $surface;
    }
    Composer:focus {
        border: round $primary;
    }
    """

    _typing = False
    """While TextArea handles a typed key or runs its own text or cursor action for one, or the
    cursor rests or wakes: its repaints stay inside the border (``refresh``)."""

    BINDINGS = [
        Binding("ctrl+j", "newline", "Newline", show=False, tooltip="Insert a new line"),
        Binding("tab", "tab", show=False),
        # the screen's: they scroll the transcript (described here, where F1 finds them first)
        Binding("pageup", "leave_to_screen", "Scroll the transcript up a page", show=False),
        Binding("pagedown", "leave_to_screen", "Scroll the transcript down a page", show=False),
        Binding("shift+enter", "newline", "Newline", show=False, tooltip="Insert a new line"),
        Binding(
            "ctrl+v",
            "paste_image",
            "Paste",
            show=False,
            tooltip="Paste: the clipboard's image when it holds one (wl-paste, xclip, pngpaste), else its text",
        ),
        Binding(
            "ctrl+g",
            "external_editor",
            "Edit in $EDITOR",
            show=False,
            tooltip="Edit the prompt in $VISUAL or $EDITOR; what you save comes back",
        ),
    ]

    IDLE_PLACEHOLDER = first_frame.PLACEHOLDER
    #: While a turn runs: what Enter and Tab do then.
    TURN_PLACEHOLDER = "Enter: tell the running turn · Tab: queue for after it · Esc: stop it"
    #: While a question (a ``ChoiceDialog``) is up: typing lands here, and Enter sends nothing.
    DIALOG_HINT = "A question is open: typing goes here, Enter adds a line · pause, then Enter answers it"

    #: Bound actions that do not run from keys typed into a dialog that is opening above the
    #: prompt (those keys go to the prompt: they edit it, they open nothing).
    NOT_FROM_EARLY_KEYS: ClassVar[frozenset[str]] = frozenset({"external_editor"})

    class Submitted(Message):
        """The prompt was sent: with Enter, or with Tab during a turn (``queue``: after the turn)."""

        def __init__(self, composer: Composer, text: str, *, queue: bool = False) -> None:
            super().__init__()
            self.composer = composer
            self.text = text
            self.queue = queue

    def __init__(
        self,
        *,
        history: list[str] | None = None,
        id: str | None = None,
        menu: CompletionMenu | None = None,
        project_root: Path | None = None,
        history_file: Path | None = None,
        commands: CommandList | None = None,
        queue: PromptQueue | None = None,
        key_handled: Callable[[events.Key], None] | None = None,
    ) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        #: The chat's prompts waiting for the turn (Tab adds, Up takes back); None: no queue.
        self.queue = queue
        #: Told after each key the prompt has handled (the chat's frames wait for it:
        #: ``speed/keys_first.py``); None: nothing waits.
        self._key_handled = key_handled
        self.prompt_history = PromptHistory(list(history or []))
        #: Where prompts are kept across sessions (read after mount, appended on each send).
        self.history_file = history_file
        self.placeholder = self.IDLE_PLACEHOLDER
        self._turn_running = False
        self._dialogs_open = 0
        self.pastes = PasteStore()
        self.project_files = ProjectFiles(project_root or Path.cwd())
        #: Runs the external editor; None hands it the terminal with ``App.suspend()``.
        self.run_editor: EditorRunner | None = None
        #: The ``/`` and ``@`` menu's completion (None without a menu); ``commands`` is what ``/``
        #: completes (given by the chat; without it no command is offered).
        self.completion = (
            PromptCompletion(self, menu, commands or CommandList(dict), self.project_files)
            if menu is not None
            else None
        )
        #: The session's read rules, grants included, for the ``@`` chips (the chat sets it once the
        #: agent is ready); until then the project's own rules (made at the first ``@``).
        self.read_rules: Callable[[], ReadAccess] | None = None
        self._project_rules: ReadAccess | None = None
        self._rest_timer: Timer | None = None
        self._blink_rested = False
        #: Pasted and dropped images, and Ctrl+V's (``image_paste``).
        self.images = ImagePaste(self, self._rules, lambda: self.project_files.root)
        self._echo = KeyEcho(self)
        self._theme_css = ThemeCss()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._theme_css.apply(self)  # only after a change of styles (speed/theme_css.py)
        return text_area_lines(self, crop)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._theme_css.styles_changed()

    # -- the cursor rests -----------------------------------------------------------------------

    def wake_cursor(self) -> None:
        """Input: the cursor blinks again (if it blinked before it rested), for ``BLINK_SECONDS``."""
        if self._rest_timer is not None:
            self._rest_timer.reset()
        elif self.is_mounted:
            self._rest_timer = self.set_timer(BLINK_SECONDS, self._rest_cursor, name="cursor rest")
        if self._blink_rested:
            self._blink_rested = False
            self._set_blink(self.app.animation_level != "none")  # blinking is motion too

    def _rest_cursor(self) -> None:
        """No input for ``BLINK_SECONDS``: the cursor stays shown and stops blinking."""
        self._rest_timer = None
        if self.cursor_blink:
            self._set_blink(False)
            self._blink_rested = True

    def _set_blink(self, blink: bool) -> None:
        """``cursor_blink`` set as the cursor rests or wakes: the reactive repaints the whole widget,
        but only the cursor's cell, inside the border, changes (``refresh``)."""
        typing, self._typing = self._typing, True
        try:
            self.cursor_blink = blink
        finally:
            self._typing = typing

    def watch_cursor_blink(self, blink: bool) -> None:
        """Blinking switched on or off by anyone (reduced motion): a key does not undo that."""
        self._blink_rested = False

    def _on_focus(self, event: events.Focus) -> None:
        super()._on_focus(event)
        self.wake_cursor()

    async def _on_mouse_down(self, event: events.MouseDown) -> None:
        await super()._on_mouse_down(event)
        self.wake_cursor()

    # -- keys -----------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        await self._handle_key(event)
        self._echo.after_input()  # drawn now, not at the next frame (speed/key_echo.py)
        if self._key_handled is not None:
            self._key_handled(event)

    async def _handle_key(self, event: events.Key) -> None:
        self.wake_cursor()
        # Bindings run here, in the order the keys came (keys_in_order.py); a key passed on by an
        # opening dialog runs only the prompt's own bindings (early_keys.py does that).
        in_order = not isinstance(event, PassedKey)
        if in_order and await run_bindings(self, event, priority=True):
            return
        await self._take_key(event)
        if in_order and not default_prevented(event):
            self._typing = self._edits_text_only(event.key)
            try:
                await run_bindings(self, event, priority=False)
            finally:
                self._typing = False
            event.stop()  # it has had its bindings here: not again on a screen opened since

    async def _take_key(self, event: events.Key) -> None:
        """The prompt's own keys: the menu's, paste placeholders, Enter, history; then typing."""
        completion = self.completion
        if (completion is not None and completion.menu_key(event.key)) or self._paste_key(event.key):
            event.stop()
            event.prevent_default()
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if self._queue_key(event.key):
            event.stop()
            event.prevent_default()
            return
        if event.key == "up" and self.cursor_location[0] == 0:
            recalled = self.prompt_history.older(self.text)
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._replace(recalled)
                return
        if event.key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            recalled = self.prompt_history.newer(self.text)
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._replace(recalled)
                return
        self._typing = True
        try:
            await super()._on_key(event)
        finally:
            self._typing = False

    def _edits_text_only(self, key: str) -> bool:
        """Whether ``key`` runs one of TextArea's own text and cursor actions (Backspace, Ctrl+W,
        the arrows...), which change what is inside the border and nothing else."""
        bindings = list(own_bindings(self, key))
        return bool(bindings) and all(binding.action.startswith(_TEXT_ACTIONS) for binding in bindings)

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        """A whole repaint asked for while a key is typed is the text's, not the border's.

        TextArea repaints the whole widget at every keystroke (its ``selection`` is a reactive that
        repaints), so each echo wrote the border's two rows again with the text's: ~1.3 of ~0.45 KiB
        a key at 120 columns, over SSH on every key. Typing changes neither the border nor the
        widget's size (a change of height is a layout, drawn whole)."""
        if self._typing and not regions and repaint and not layout and not recompose:
            padding, inside = self.styles.padding, self.content_size
            regions = (
                Region(
                    -padding.left, -padding.top, inside.width + padding.width, inside.height + padding.height
                ),
            )
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _queue_key(self, key: str) -> bool:
        """Keys the prompt queue takes (no completion open): during a turn Tab queues the prompt
        for after it; Up on an empty prompt takes the last queued one back, Up again on it
        (unedited) swaps it for the one before; Down on it puts it back."""
        queue = self.queue
        if queue is None:
            return False
        if key == "tab":
            if not queue.holding or not self.text.strip():
                return False
            self._submit(queue=True)
            return True
        if key == "up" and self.cursor_location[0] == 0:
            taken = queue.take_back(self.text)
            if taken is None:
                return False
            self._replace(taken)
            return True
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            if not queue.put_back(self.text):
                return False
            self.clear()
            return True
        return False

    def show_turn_running(self, running: bool) -> None:
        """The placeholder says what Enter and Tab do while a turn runs (the chat's turn runner)."""
        self._turn_running = running
        self._show_hint()

    def show_dialog_open(self, is_open: bool) -> None:
        """A question opened above the prompt (or closed): while one is up, the prompt's title says
        that typing lands here and what Enter does (``ChoiceDialog``), and the placeholder no longer
        says what Enter does without a question."""
        self._dialogs_open = max(0, self._dialogs_open + (1 if is_open else -1))
        self._show_hint()

    def _show_hint(self) -> None:
        if self._dialogs_open:
            self.placeholder = ""  # the title says it, whether the prompt holds text or not
            self.border_title = self.DIALOG_HINT
        else:
            self.placeholder = self.TURN_PLACEHOLDER if self._turn_running else self.IDLE_PLACEHOLDER
            self.border_title = None

    def single_erases(self, most: int) -> int:
        """How many characters before the cursor, on its line, Backspace deletes one at a time (up
        to ``most``): it stops at a paste's placeholder or an image's token, deleted whole
        (``_paste_key``); none with a selection."""
        if self.read_only or self.selected_text:
            return 0
        row, column = self.cursor_location
        line = self.document[row]
        count = 0
        while count < most and column > 0:
            if self.pastes.span_ending_at(line, column) or self.images.span(line, column, ending=True):
                break
            count, column = count + 1, column - 1
        return count

    def _paste_key(self, key: str) -> bool:
        """Backspace just after (or Delete just before) a paste placeholder or an image's token
        removes it whole."""
        if key not in ("backspace", "delete") or self.selected_text:
            return False
        row, column = self.cursor_location
        line = self.document[row]
        if key == "backspace":
            span = self.pastes.span_ending_at(line, column) or self.images.span(line, column, ending=True)
        else:
            span = self.pastes.span_starting_at(line, column) or self.images.span(line, column, ending=False)
        if span is None:
            return False
        self.delete((row, span[0]), (row, span[1]))
        return True

    def action_newline(self) -> None:
        self.insert("\n")

    def action_tab(self) -> None:
        """Tab when no completion is offered: nothing. It never moves the focus away (the words
        typed next would go nowhere). The one place for what else Tab may come to mean."""

    def action_leave_to_screen(self) -> None:
        """PageUp/PageDown are the transcript's (the chat screen scrolls it), not the prompt's."""
        raise SkipAction()

    # -- paste ----------------------------------------------------------------------------------

    async def _on_paste(self, event: events.Paste) -> None:
        """A large paste goes in as a placeholder; a small one is inserted by TextArea as usual. A
        pasted (or dropped) image path attaches the image."""
        self.wake_cursor()
        if not self.read_only and self.images.take_paste(event.text):
            event.stop()
            event.prevent_default()
            return
        if self.read_only or not self.pastes.is_large(event.text):
            return
        event.stop()
        event.prevent_default()
        placeholder = self.pastes.add(event.text)
        result = self.replace(placeholder, *self.selection)
        self.move_cursor(result.end_location)
        self.focus()

    def action_paste_image(self) -> None:
        """Ctrl+V: the clipboard's image, when the system offers one; else Textual's text paste."""
        if self.read_only:
            return
        self.images.paste_clipboard(self.action_paste)

    # -- submit and history ---------------------------------------------------------------------

    def _submit(self, *, queue: bool = False) -> None:
        text = self.text
        if not text.strip():
            return
        self.prompt_history.add(text)
        self.pastes.keep_only(self.prompt_history.entries)
        self.clear()
        if self.completion is not None:
            self.completion.close()
        expanded = self.pastes.expand(text)
        if self.history_file is not None:
            self.run_worker(
                partial(append_prompt, self.history_file, expanded, _redactor_of(self.app)),
                thread=True,
                group="prompt-log",
            )
        self.post_message(self.Submitted(self, expanded, queue=queue))

    def load_history(self) -> None:
        """Read the earlier prompts in a thread. The chat starts it after the first frame, once its
        threads share a few heaps (``core.heap_arenas``): the thread it starts stays for the session."""
        if self.history_file is not None:
            self.run_worker(self._load_history, thread=True, group="prompt-log")

    def _load_history(self) -> None:
        assert self.history_file is not None
        earlier = load_prompts(self.history_file)
        self.app.call_from_thread(self._prepend_history, earlier)

    def _prepend_history(self, earlier: list[str]) -> None:
        self.prompt_history.prepend(earlier)

    def put_back(self, text: str) -> None:
        """Give back a prompt that was not sent (an unknown command), before anything typed since,
        with the cursor at the end and no menu opened for it."""
        typed_since = self.text
        self._replace(text + ("\n" + typed_since if typed_since else ""))

    def _replace(self, text: str) -> None:
        """Show a prompt from the history; a recalled ``/command`` opens no menu (Up keeps browsing)."""
        self.load_text(text)
        self.move_cursor(self.document.end)
        if self.completion is not None:
            self.completion.recalled()

    # -- after an edit: the menu (prompt_completion.py) and the attachment chips ----------------

    @on(TextArea.Changed)
    @on(TextArea.SelectionChanged)
    def _edited(self, event: TextArea.Changed | TextArea.SelectionChanged) -> None:
        if event.text_area is self:
            if self.completion is not None:
                self.completion.update()
            if isinstance(event, TextArea.Changed):
                self.show_attachments()

    def show_attachments(self) -> None:
        """Under the box, a chip for each file or folder an ``@`` will attach (or will not), by the
        session's read rules as they are now (call it again when a grant may have changed them)."""
        text = self.text
        chips = ""
        if "@" in text:
            from zett_tui.runtime.files.attachments import preview_chips

            chips = "  ".join(preview_chips(text, self._rules(), self.project_files.root))
        if "[Image #" in text:
            chips = "  ".join(part for part in (chips, *self.images.chips(text)) if part)
        if chips != (self.border_subtitle or ""):  # None at first: setting "" repaints the border
            self.border_subtitle = chips

    def _rules(self) -> ReadAccess:
        if self.read_rules is not None:
            return self.read_rules()
        if self._project_rules is None:
            from zett_tui.runtime.files.read_access import ReadAccess

            self._project_rules = ReadAccess(self.project_files.root)
        return self._project_rules

    @on(FilesListed)
    def _files_listed(self, event: FilesListed) -> None:
        if self.completion is not None:
            self.completion.files_listed(event)

    @on(FilesFound)
    def _files_found(self, event: FilesFound) -> None:
        if self.completion is not None:
            self.completion.files_found(event)

    # -- external editor ------------------------------------------------------------------------

    def action_external_editor(self) -> None:
        """Ctrl+G: edit the prompt (pastes expanded) in $VISUAL/$EDITOR and take back what was saved."""
        current = self.pastes.expand(self.text)
        runner = self.run_editor or (lambda command: run_suspended(self.app, command))
        outcome = edit_text(current, runner)
        self.focus()
        if outcome.text is None:
            self.notify(outcome.problem, title="External editor", severity="warning")
            return
        edited = self.pastes.compact(outcome.text)
        if edited != self.text:
            result = self.replace(edited, (0, 0), self.document.end)
            self.move_cursor(result.end_location)


def _redactor_of(app: object) -> Callable[[str], str]:
    """The app's redactor (it knows the keys in use), or the built-in patterns."""
    from zett_tui.core.redact import Redactor

    return getattr(getattr(app, "launch", None), "redact", None) or Redactor()
