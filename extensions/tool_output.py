"""Keep shell side files out of the user's project folder.

zett-agent's ``bash`` tool keeps the full stdout/stderr of a truncated command under
``.zett-tool-output/`` in the current folder, and creates that folder on every call. This
extension wraps every ``bash`` call (zett's own and Plan Mode's): once the command has finished
it moves a kept output folder under zett's data directory, points the tool result at the new
place, and removes ``.zett-tool-output/`` when nothing else is in it.

The kept files are redacted where they land (credential-shaped strings replaced, as in every file
zett writes), so a secret a command printed does not stay on disk in zett's data directory.

It is also the smallest example of a tool-call middleware: ``on_tool_call`` receives the call
and ``call_next``, and may change what comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions import AgentExtension
from zett_agent.messages import ToolCall

from zett_tui.config.redaction import configured_redactor
from zett_tui.core.redact import redact_file

SIDE_FOLDER = ".zett-tool-output"
_KEPT = re.compile(r"\.zett-tool-output/(shell-[A-Za-z0-9_]+)")


class ToolOutputOutsideProject(AgentExtension):
    """Move ``bash`` side files from ``.zett-tool-output/`` to ``destination``."""

    def __init__(self, destination: Path, redact: Callable[[str], str] | None = None) -> None:
        self.destination = destination
        self._redact = redact or configured_redactor()

    async def on_tool_call(
        self,
        context: AgentRunContext,
        call: ToolCall,
        call_next: Callable[[], Awaitable[Any]],
    ) -> Any:
        if call.name != "bash":
            return await call_next()
        try:
            result = await call_next()
        except RuntimeError as error:
            moved = await asyncio.to_thread(self._relocate, str(error))
            self._remove_empty_side_folder()
            if moved == str(error):
                raise
            raise RuntimeError(moved) from error
        except BaseException:
            self._remove_empty_side_folder()
            raise
        # Redacting a kept 50 MB output takes seconds: never on the event loop.
        relocated = await asyncio.to_thread(self._relocate, result) if isinstance(result, str) else result
        self._remove_empty_side_folder()
        return relocated

    def _relocate(self, text: str) -> str:
        def move(match: re.Match[str]) -> str:
            source = Path.cwd() / SIDE_FOLDER / match.group(1)
            target = self.destination / match.group(1)
            if source.is_dir():
                self.destination.mkdir(parents=True, exist_ok=True, mode=0o700)
                shutil.move(str(source), str(target))
                for kept in target.iterdir():
                    redact_file(kept, self._redact)
            return str(target) if target.exists() else match.group(0)

        return _KEPT.sub(move, text)

    @staticmethod
    def _remove_empty_side_folder() -> None:
        with contextlib.suppress(OSError):  # not empty (output kept) or already gone
            (Path.cwd() / SIDE_FOLDER).rmdir()
