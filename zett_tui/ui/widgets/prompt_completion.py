"""Completion in the prompt: the menu above it follows the word at the cursor, ``/commands`` from
the chat's command list and ``@files`` from the project's files (listed and searched in threads,
only the newest search shown), and Tab or Enter puts the chosen one in.

What to offer is ``ui/chat/completion.py``'s; this module keeps the menu in step with one prompt,
which it sees through `CompletingPrompt`. The prompt keeps its keys and hands on the menu's
(`PromptCompletion.menu_key`) and what its threads post (`FilesFound`, `FilesListed`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from textual.message import Message
from textual.worker import get_current_worker

from zett_tui.ui.chat.completion import (
    CompletionContext,
    command_completion,
    command_items,
    file_items,
    find_context,
)

if TYPE_CHECKING:
    from textual.widgets.text_area import DocumentBase, EditResult, Location

    from zett_tui.ui.chat.commands.registry import CommandList
    from zett_tui.ui.widgets.completion_menu import CompletionItem, CompletionMenu
    from zett_tui.workspace.file_finder import FileIndex, FileMatch, ProjectFiles

#: How many files the ``@`` menu lists.
FILE_RESULTS = 50
#: Keys the completion menu may take.
_MENU_KEYS = frozenset({"escape", "up", "down", "tab", "enter"})


class FilesFound(Message, bubble=False):
    """From the search thread: the files matching one ``@`` query."""

    def __init__(self, generation: int, matches: list[FileMatch]) -> None:
        super().__init__()
        self.generation = generation
        self.matches = matches


class FilesListed(Message, bubble=False):
    """From the listing thread: the project's files are (re)listed, or ``problem`` says why not."""

    def __init__(self, problem: str = "") -> None:
        super().__init__()
        self.problem = problem


class CompletingPrompt(Protocol):
    """What completion needs of the prompt it completes in (a ``TextArea``)."""

    @property
    def document(self) -> DocumentBase: ...

    @property
    def cursor_location(self) -> Location: ...

    @property
    def selected_text(self) -> str: ...

    def replace(self, insert: str, start: Location, end: Location) -> EditResult: ...

    def move_cursor(self, location: Location) -> None: ...

    def run_worker(
        self, work: Callable[[], None], *, group: str, exit_on_error: bool, thread: bool
    ) -> object:
        """Run ``work`` in a thread that goes with the prompt."""
        ...

    def post_message(self, message: Message) -> bool:
        """Hand ``message`` to the prompt (from any thread): ``FilesFound``, ``FilesListed``."""
        ...


class PromptCompletion:
    """The completion menu of one prompt: what it offers for the word at the cursor."""

    def __init__(
        self, prompt: CompletingPrompt, menu: CompletionMenu, commands: CommandList, files: ProjectFiles
    ) -> None:
        self._prompt = prompt
        self.menu = menu
        self.commands = commands
        self._files = files
        self._completion: CompletionContext | None = None
        self._dismissed: CompletionContext | None = None
        self._search_generation = 0
        self._search_lock = threading.Lock()
        self._listing = False
        self._listing_problem = ""

    def menu_key(self, key: str) -> bool:
        """Keys the open completion menu takes: Esc closes it (and so stops no turn), Up/Down move,
        Tab completes, Enter completes (or, on a complete command name, falls through to send)."""
        menu = self.menu
        if key in _MENU_KEYS:  # the menu follows the text as it is now, not as the last Changed saw it
            self.update()
        if not menu.is_open:
            return False
        if key == "escape":
            self._dismissed = self._completion
            menu.close()
            return True
        selected = menu.selected
        if selected is None:
            return False
        if key in ("up", "down"):
            menu.move(-1 if key == "up" else 1)
            return True
        if key == "tab" or (key == "enter" and not self._is_complete_command(selected)):
            self._accept(selected)
            return True
        return False

    def _is_complete_command(self, item: CompletionItem) -> bool:
        context = self._completion
        return context is not None and context.kind == "command" and item.value == context.query

    def update(self) -> None:
        """Open, refresh or close the menu for where the cursor is now."""
        prompt = self._prompt
        lines = list(prompt.document.lines)
        context = None if prompt.selected_text else find_context(lines, prompt.cursor_location)
        if context is None:
            self._dismissed = None
            self.close()
            return
        if context == self._dismissed:
            return  # closed with Esc; opens again once the query changes
        self._dismissed = None
        if context == self._completion and self.menu.is_open:
            return  # same query: keep the highlight where it is
        previous = self._completion
        opened = previous is None or (previous.kind, previous.start) != (context.kind, context.start)
        self._completion = context
        if context.kind == "command":
            items = command_items(context.query, self.commands)
            if items:
                self.menu.show(items, title="commands · Tab completes · Esc closes")
            else:
                self.menu.close()
        else:
            self._complete_file(context.query, opened)

    def close(self) -> None:
        """Close the menu (the prompt was sent or replaced)."""
        self._completion = None
        self.menu.close()

    def recalled(self) -> None:
        """A prompt from the history is shown: a recalled ``/command`` opens no menu (Up keeps
        browsing) until its query changes."""
        prompt = self._prompt
        self.close()
        self._dismissed = find_context(list(prompt.document.lines), prompt.cursor_location)

    def _accept(self, item: CompletionItem) -> None:
        context = self._completion
        if context is None:
            return
        if context.kind == "command":
            text = command_completion(item.value, self.commands)
        else:
            text = item.value + " "
        result = self._prompt.replace(text, context.start, context.end)
        self._prompt.move_cursor(result.end_location)

    # -- @ files --------------------------------------------------------------------------------

    def _complete_file(self, query: str, opened: bool) -> None:
        files = self._files
        if opened and files.stale:
            self._start_listing()
        if files.index is None:
            message = self._listing_problem or "Listing the project's files…"
            self.menu.show([], message=message)
            return
        self._search_files(files.index, query)

    def _start_listing(self) -> None:
        if self._listing:
            return
        self._listing = True
        self._prompt.run_worker(self._list_files, thread=True, group="file-listing", exit_on_error=False)

    def _list_files(self) -> None:
        """In a thread: list the project's files (git ls-files, or a walk)."""
        worker = get_current_worker()
        try:
            self._files.rebuild(lambda: worker.is_cancelled)
        except Exception as error:  # a broken tree must not take the composer down
            self._prompt.post_message(FilesListed(f"Could not list the project's files: {error}"))
        else:
            self._prompt.post_message(FilesListed())

    def files_listed(self, event: FilesListed) -> None:
        """The listing thread ended: search the files for the query open now."""
        self._listing = False
        self._listing_problem = event.problem
        context = self._completion
        if context is not None and context.kind == "file":
            self._complete_file(context.query, opened=False)

    def _search_files(self, index: FileIndex, query: str) -> None:
        """Search in a thread; only the newest search's result is shown."""
        self._search_generation += 1
        generation = self._search_generation

        def search() -> None:
            with self._search_lock:  # one search at a time; an outdated one is skipped
                if generation != self._search_generation or get_current_worker().is_cancelled:
                    return
                matches = index.search(query, limit=FILE_RESULTS)
            self._prompt.post_message(FilesFound(generation, matches))

        self._prompt.run_worker(search, thread=True, group="file-search", exit_on_error=False)

    def files_found(self, event: FilesFound) -> None:
        """A search thread's matches: shown if they answer the newest query."""
        context = self._completion
        if event.generation != self._search_generation or context is None or context.kind != "file":
            return
        items = file_items(event.matches)
        files = self._files
        where = files.root.name or str(files.root)
        index = files.index
        count = f"{len(index):,} files in {where}" if index is not None else where
        if items:
            self.menu.show(items, title=f"{count} · Tab inserts · Esc closes")
        else:
            self.menu.show([], message=f"No file matches @{context.query} ({count})")
