"""Stand-in command contexts: run the real slash commands without a chat screen or an app.

A command says things, reads and changes the host, and asks the app for app-level things with a
message (``zett_tui/ui/chat/command_context.py``). ``StandIn`` has no host (the model is still
starting) and records what a command did. ``HostStandIn`` holds a real, started ``AgentHost`` built
from ``LaunchSettings`` as the app's warm-up builds it (``options_from_launch``) around the scripted
in-process model: a command that switches the model, sets the effort or reads the session acts on
the real runtime, and a test checks what it said and what the next turn sends, in a few
milliseconds instead of a whole Textual app. The screen's own wiring (the composer sending a line,
a notice drawn, a picker opened) keeps its Pilot test, one per command family.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from tests.fakes.host import Collector
from zett_tui.entry.host_options import options_from_launch
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.events import TurnFinished
from zett_tui.runtime.host import AgentHost
from zett_tui.runtime.turn_model import TurnModel
from zett_tui.ui.chat.command_context import CommandContext
from zett_tui.ui.chat.commands.builtin import builtin_commands
from zett_tui.ui.chat.commands.registry import CommandList
from zett_tui.ui.widgets.transcript import Block


class StandIn:
    """Records what the commands did; has no host (the model is still starting)."""

    def __init__(self, blocks: Sequence[Block] = ()) -> None:
        self.said: list[tuple[str, str]] = []
        self.toasts: list[str] = []
        self.posted: list[Any] = []
        self.prompt = ""
        self.blocks = list(blocks)
        self.launch = LaunchSettings(model_label="scripted:test", model_factory=lambda: None, cwd=Path.cwd())
        self.commands = CommandList(builtin_commands)
        self.sent: list[str] = []

    host: AgentHost | None = None
    start_failed = False
    turn_running = False

    @property
    def cwd(self) -> Path:
        return self.launch.cwd

    def say(self, text: str, level: str = "info") -> None:
        self.said.append((text, level))

    def mark_rewound(self, prompt: str) -> None:
        self.said.append((f"(marked rewound from {prompt})", "info"))

    def unmark_rewound(self) -> None:
        self.said.append(("(unmarked rewound)", "info"))

    def notify(
        self, text: str, *, title: str = "", severity: str = "information", timeout: float = 3
    ) -> None:
        self.toasts.append(text)

    def send_prompt(self, text: str) -> None:
        self.sent.append(text)

    def send_prompt_with_model(self, text: str, model: Any, *, put_back: str) -> None:
        self.sent.append(text)

    def continue_turn(self) -> None:
        self.said.append(("continue", "test"))

    def compact(self, host: Any) -> None:
        raise AssertionError("no host, nothing to compact")

    def open_screen(self, screen: Any, on_result: Callable[[Any], None] | None = None) -> None:
        raise AssertionError("no screen expected")

    def run_in_background(self, work: Awaitable[Any], group: str) -> None:
        raise AssertionError("no background work expected")

    def put_in_prompt(self, text: str) -> None:
        self.prompt = text

    def transcript_blocks(self) -> Sequence[Block]:
        return self.blocks

    def show_help(self, sections: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> None:
        rows = [f"{left} {right}" for _title, entries in sections for left, right in entries]
        self.said.append(("\n".join(rows), "help"))

    def key_help(self) -> list[tuple[str, str]]:
        return [("ctrl+c", "Clear / stop / quit")]

    def set_mode(self, mode: Any, note: str = "") -> None:
        raise AssertionError("no session, no mode to switch")

    def model_switched(self, label: str, *, is_demo: bool) -> None:
        return None

    def context_changed(self, measured: Any) -> None:
        return None

    def review_trust(self) -> None:
        return None

    def post(self, message: Any) -> None:
        self.posted.append(message)


def run(context: StandIn, line: str) -> bool:
    """Run ``line`` (``/name arguments``) as the chat runs a typed command; False for no such command."""
    name, _, arguments = line.lstrip("/").partition(" ")
    typed: CommandContext = context  # the stand-in is a CommandContext: mypy checks it here
    return context.commands.run(typed, name, arguments)


class HostStandIn(StandIn):
    """A command context on a real started host, as the chat has once the model is up.

    Build it with :meth:`start` (the ``command_host`` fixture does, and closes the host). A command
    that is a coroutine runs as a task, as the chat's worker runs it; :meth:`command` runs one line
    and waits for that work, the turn of a prompt it sent included. :meth:`turn` runs a prompt as the
    chat's turn runner does (the host's ``run_turn``), so a test sees what the next request carries
    after a command.
    """

    def __init__(self, host: AgentHost, launch: LaunchSettings) -> None:
        super().__init__()
        self.launch = launch
        self._host = host
        self.background: list[asyncio.Future[Any]] = []
        #: What ``model_switched`` was told, in order (the status line's model label).
        self.labels: list[str] = []

    @classmethod
    async def start(cls, launch: LaunchSettings) -> HostStandIn:
        host = AgentHost(options_from_launch(launch))
        await host.start()
        return cls(host, launch)

    @property  # type: ignore[override]
    def host(self) -> AgentHost:
        return self._host

    def run_in_background(self, work: Awaitable[Any], group: str) -> None:
        self.background.append(asyncio.ensure_future(work))

    def model_switched(self, label: str, *, is_demo: bool) -> None:
        self.labels.append(label)

    def send_prompt(self, text: str) -> None:
        """As the chat's turn runner: the prompt becomes a turn of the host (awaited by ``command``)."""
        self.sent.append(text)
        self.background.append(asyncio.ensure_future(self._host.run_turn(text, Collector())))

    def send_prompt_with_model(self, text: str, model: TurnModel, *, put_back: str) -> None:
        self.sent.append(text)
        self.background.append(asyncio.ensure_future(self._host.run_turn(text, Collector(), model=model)))

    async def offer_workspace_files(self) -> None:
        """Offer this folder's Markdown commands and skills as the chat does once it has started
        (``ui/chat/workspace_commands.py``): their problems are said here."""
        from zett_tui.ui.chat.workspace_commands import offer_workspace_files

        await offer_workspace_files(self, self.cwd)  # type: ignore[arg-type]  # says, and offers commands

    async def command(self, line: str) -> list[str]:
        """Run ``line`` and its background work to the end; the lines it said (toasts included)."""
        said, toasts = len(self.said), len(self.toasts)
        assert run(self, line), f"no command {line!r}"
        while self.background:
            await self.background.pop(0)
        return [text for text, _level in self.said[said:]] + self.toasts[toasts:]

    async def turn(self, prompt: str) -> TurnFinished:
        """Run ``prompt`` as a turn of this session and return how it finished."""
        return await self._host.run_turn(prompt, Collector())

    async def aclose(self) -> None:
        for work in self.background:
            work.cancel()
        await self._host.aclose()
