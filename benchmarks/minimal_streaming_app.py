"""The baseline for keystroke echo while an answer streams: ``minimal_app`` plus the runtime.

Run: ``python -m benchmarks.minimal_streaming_app`` with ``OPENAI_BASE_URL`` at a server (the
benchmark starts a fake one). Enter sends the prompt box's text as a turn; zett-agent consumes the
streamed answer through the openai SDK, as in zett, with a sink that does nothing. So it pays what
any Textual app on this runtime pays, with Textual's defaults, and draws nothing of the answer.
The status line says ``○ idle`` or ``writing``, as zett's does, for ``bench_app`` to read.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from textual import events
from textual.app import ComposeResult
from textual.widgets import Static, TextArea

from benchmarks.minimal_app import MinimalApp


def _build_host() -> object:
    from zett_tui.providers.build import ModelChoice, build_model
    from zett_tui.runtime.host import AgentHost, HostOptions

    def model() -> object:
        return build_model(ModelChoice("openai", "gpt-test"), {}, dict(os.environ))

    return AgentHost(HostOptions(model_factory=model, model_label="openai:gpt-test", cwd=Path.cwd()))


class PromptBox(TextArea):
    """Enter sends, handled in key order (as zett's composer does)."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.app.action_send()  # type: ignore[attr-defined]
            return
        await super()._on_key(event)


class MinimalStreamingApp(MinimalApp):
    def compose(self) -> ComposeResult:
        yield Static(id="spacer")
        yield PromptBox(soft_wrap=True, show_line_numbers=False, placeholder="Type here")
        yield Static(" ready", id="status")

    def on_mount(self) -> None:
        super().on_mount()
        self.host: object | None = None
        self.query_one("#status", Static).update(" starting")
        self.run_worker(self._start(), group="start")

    async def _start(self) -> None:
        host = await asyncio.to_thread(_build_host)  # imports in a thread, as zett does
        await host.start()  # type: ignore[attr-defined]
        self.host = host
        self.query_one("#status", Static).update(" ○ idle")

    def action_send(self) -> None:
        prompt = self.query_one(TextArea)
        if self.host is None or not prompt.text.strip():
            return
        text = prompt.text
        prompt.clear()
        self.query_one("#status", Static).update(" writing")
        self.run_worker(self._turn(text), group="turn", exclusive=True)

    async def _turn(self, text: str) -> None:
        try:
            await self.host.run_turn(text, lambda event: None)  # type: ignore[attr-defined]
        finally:
            self.query_one("#status", Static).update(" ○ idle")


if __name__ == "__main__":
    MinimalStreamingApp().run()
