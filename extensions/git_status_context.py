"""Tell the model what ``git status`` says, before each model request. The worked example.

Off by default; ``/extensions`` lists it. Turn it on in your config file::

    [extensions.git_status]
    enabled = true
    options = { max_lines = 20, timeout_seconds = 2.0 }

Before every model request it runs ``git status --short --branch`` in the project folder and
adds the result as a system note: which branch, which files are changed, staged or new. The
note goes only into that request; it is not stored in the conversation, so it never goes stale
in the history and costs tokens once per request. Outside a repository, without git, or when
git is slow, it adds nothing.

How it works, for writing your own
----------------------------------

An extension is a subclass of ``zett_agent.extensions.AgentExtension`` that overrides the hooks it
needs; the rest do nothing. This one overrides one hook, ``on_model_request``, a *middleware*:
it receives the request and ``call_next``, and must pass a request on and yield the events that
come back. It may change the request first (here: one more system message) or the events after.
Other hooks you may want (see zett-agent's ``extensions/base.py`` for all of them):

- ``before_turn`` / ``after_turn``, ``before_tool`` / ``after_tool``: observe the loop;
- ``on_tool_call(context, call, call_next)``: wrap a tool call; raise (``RuntimeError`` or your
  own exception, with a message for the model) to refuse it; raise
  ``zett_tui.runtime.tool_refusal.ToolRefused`` (or a subclass) and its row says "refused"
  rather than "failed";
- ``on_tool(context)``: register tools of your own with ``context.register_tool(...)``.

Keep per-request data in local variables or keyed by ``context.session_id``: one instance serves
every request. ``__init__`` receives the ``options`` table as keyword arguments; check them there
and raise ``ValueError`` or ``TypeError`` with a clear message, and zett reports it at start.

Shipping your own: put the file in the ``extensions/`` folder of zett's config directory (next
to ``config.toml``) and name it in ``config.toml``::

    [extensions.timer]
    file = "turn_timer.py"          # class = "TurnTimer" when the file defines more than one
    options = { warn_after = 60 }

or, for an installed package, ``path = "my_package.module:TurnTimer"``. A project can ship
extensions in its ``.zett/extensions/`` the same way; they load only once you trust that
folder. If your extension raises in a hook, zett says so once, switches it off for the session
and carries on without it (in ``on_tool_call`` only Python's bug exceptions such as
``TypeError`` or ``KeyError`` do that; any other exception refuses that one call).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions import AgentExtension
from zett_agent.extensions.base import ModelRequestNext
from zett_agent.messages import SystemMessage
from zett_agent.model import ModelEvent, ModelRequest

from zett_tui.workspace.safe_git import hardened_command


class GitStatusContext(AgentExtension):
    """Add a short ``git status`` to every model request (not to the stored conversation)."""

    def __init__(self, *, max_lines: int = 20, timeout_seconds: float = 2.0, cwd: str | None = None) -> None:
        if isinstance(max_lines, bool) or not isinstance(max_lines, int) or max_lines < 1:
            raise ValueError(f"max_lines must be a whole number of at least 1, got {max_lines!r}")
        if (
            isinstance(timeout_seconds, bool)
            or not isinstance(timeout_seconds, int | float)
            or timeout_seconds <= 0
        ):
            raise ValueError(f"timeout_seconds must be a positive number, got {timeout_seconds!r}")
        self.max_lines = max_lines
        self.timeout_seconds = float(timeout_seconds)
        self.cwd = Path(cwd) if cwd else None

    async def on_model_request(
        self,
        context: AgentRunContext,
        request: ModelRequest,
        call_next: ModelRequestNext,
    ) -> AsyncIterator[ModelEvent]:
        status = await self.git_status()
        if status:
            request = dataclasses.replace(request, messages=_with_note(request.messages, status))
        stream = call_next(request)
        try:
            async for event in stream:
                yield event
        finally:  # closing the inner stream lets a cancelled turn stop the provider's request
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    async def git_status(self) -> str:
        """``git status --short --branch``, at most ``max_lines`` lines; "" when there is nothing to say."""
        folder = self.cwd or Path.cwd()
        # zett's hardened git: nothing of the repository's configuration runs (a sandboxed command
        # may have prepared it), and never a ``git`` found in the project (``.venv/bin/git``).
        hardened = hardened_command(folder, ["status", "--short", "--branch"])
        if hardened is None:  # no git, or no repository zett may run git on
            return ""
        command, env = hardened
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                cwd=folder,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
        except OSError:  # no git on this machine
            return ""
        try:
            output, _ = await asyncio.wait_for(process.communicate(), self.timeout_seconds)
        except BaseException as error:  # too slow, or the turn was cancelled: git must not linger
            if process.returncode is None:
                process.kill()
            if isinstance(error, TimeoutError):
                await process.wait()
                return ""
            raise
        if process.returncode != 0:  # not a repository
            return ""
        lines = output.decode("utf-8", errors="replace").splitlines()
        if len(lines) > self.max_lines:
            lines = [*lines[: self.max_lines], f"... and {len(lines) - self.max_lines} more"]
        return "\n".join(lines)


def _with_note(messages: Sequence[Any], status: str) -> list[Any]:
    """``messages`` with the note after the leading system messages (where instructions go)."""
    note = SystemMessage(content=f"# Git status (now, before this request)\n```\n{status}\n```")
    index = next((i for i, m in enumerate(messages) if not isinstance(m, SystemMessage)), len(messages))
    return [*messages[:index], note, *messages[index:]]
