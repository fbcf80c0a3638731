"""Sessions in several folders at once: a ``zett acp`` process of its own for each other folder.

zett's tools (its own and zett-agent's: reads, edits, the shell, in threads too) work in the
process's folder, so one process cannot run turns in two folders at once. This process serves
the folder of its first session; a session opened in another folder (``session/new``, ``load``,
``resume``, ``fork`` with another ``cwd``) goes to a child ``zett acp`` started in that folder
with the same options and the client's own ``initialize``. From then on, every message naming
one of its sessions goes to it as it came, and what it writes comes back to the client:
notifications and answers as they are, its own requests (permission questions, forms) under ids
of the form ``zett-folder-N:ID`` so that they cannot meet this process's, the client's answers
to those going back to it under their first id. ``session/list`` is answered here (it reads the
same index). A child that ends answers its open requests with an error, and its sessions are
forgotten; when the client leaves, each child's standard input is closed and it ends as this
process does (turns cancelled and recorded).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zett_tui.acp.transport import LINE_LIMIT

log = logging.getLogger(__name__)

__all__ = ["FolderProcesses"]

OPENING = frozenset({"session/new", "session/load", "session/resume", "session/fork"})
#: Methods whose answer names a new session (``sessionId`` in the result).
NAMING = frozenset({"session/new", "session/fork"})
CHILD_REQUEST = "zett-folder-"
INITIALIZE_ID = "zett-folder-initialize"
#: How long a child may take to end once its standard input is closed.
END_WAIT = 20.0


def _key(request_id: Any) -> str:
    return json.dumps(request_id, sort_keys=True)


@dataclass
class _Child:
    number: int
    folder: Path
    lines: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)
    #: The client's requests it is answering: method by id (``_key``).
    open_requests: dict[str, str] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    process: asyncio.subprocess.Process | None = None


class FolderProcesses:
    """Decides, for each message from the client, whether another folder's process takes it."""

    def __init__(
        self,
        write: Any,
        *,
        command: list[str],
        env: dict[str, str],
        initialize: dict[str, Any] | None = None,
    ) -> None:
        #: Writes one line to the client (the protocol's standard output).
        self._write = write
        self._command = command
        self._env = env
        self._initialize = initialize
        self.home: Path | None = None
        self._children: dict[Path, _Child] = {}
        self._sessions: dict[str, _Child] = {}
        #: The children's own requests: the id the client sees -> (the child, its id).
        self._requests: dict[str, tuple[_Child, Any]] = {}
        self._numbers = 0

    # -- from the client ---------------------------------------------------------------------------

    def divert(self, message: dict[str, Any], line: bytes) -> bool:
        """True when another folder's process takes ``message`` (this process's SDK does not)."""
        method = message.get("method")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if method is None:
            return self._answer_to_child(message)
        if method == "initialize":
            self._initialize = params
            return False
        if method in OPENING:
            folder = _folder(params.get("cwd"))
            if folder is None:
                return False  # this process's SDK answers with the error
            if self.home is None:
                self.home = folder
            if folder == self.home:
                return False
            child = self._child(folder)
            if method != "session/fork" and isinstance(params.get("sessionId"), str):
                self._sessions[params["sessionId"]] = child
            self._forward(child, message, line)
            return True
        session_id = params.get("sessionId")
        owner = self._sessions.get(session_id) if isinstance(session_id, str) else None
        if owner is None:
            return False
        self._forward(owner, message, line)
        return True

    def _answer_to_child(self, message: dict[str, Any]) -> bool:
        request_id = message.get("id")
        if not isinstance(request_id, str) or not request_id.startswith(CHILD_REQUEST):
            return False
        taken = self._requests.pop(request_id, None)
        if taken is not None:
            child, original = taken
            child.lines.put_nowait(_line({**message, "id": original}))
        return True

    def _forward(self, child: _Child, message: dict[str, Any], line: bytes) -> None:
        if "id" in message:
            child.open_requests[_key(message["id"])] = str(message.get("method"))
        child.lines.put_nowait(line)

    def _child(self, folder: Path) -> _Child:
        child = self._children.get(folder)
        if child is None:
            self._numbers += 1
            child = self._children[folder] = _Child(self._numbers, folder)
            child.task = asyncio.create_task(self._run(child))
        return child

    # -- the child ---------------------------------------------------------------------------------

    async def _run(self, child: _Child) -> None:
        try:
            process = child.process = await asyncio.create_subprocess_exec(
                *self._command,
                cwd=child.folder,
                env=self._env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=LINE_LIMIT,
            )
        except OSError:
            log.warning("zett acp could not start a process for %s", child.folder, exc_info=True)
            self._ended(child)
            return
        assert process.stdin is not None and process.stdout is not None
        initialize = {
            "jsonrpc": "2.0",
            "id": INITIALIZE_ID,
            "method": "initialize",
            "params": self._initialize,
        }
        process.stdin.write(_line(initialize))
        writing = asyncio.create_task(self._feed(child, process.stdin))
        try:
            while line := await process.stdout.readline():
                self._from_child(child, line)
        except (ValueError, OSError):
            log.warning("the process for %s wrote what zett cannot read", child.folder, exc_info=True)
        finally:
            writing.cancel()
            self._ended(child)

    async def _feed(self, child: _Child, stdin: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while (line := await child.lines.get()) is not None:
                stdin.write(line)
                await stdin.drain()
        with contextlib.suppress(Exception):
            stdin.close()

    def _from_child(self, child: _Child, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        if "method" in message and "id" in message:  # its own request to the client
            new_id = f"{CHILD_REQUEST}{child.number}:{message['id']}"
            self._requests[new_id] = (child, message["id"])
            self._write(_line({**message, "id": new_id}))
            return
        if "method" not in message:  # an answer
            if message.get("id") == INITIALIZE_ID:
                return
            method = child.open_requests.pop(_key(message.get("id")), None)
            result = message.get("result")
            if method in NAMING and isinstance(result, dict) and isinstance(result.get("sessionId"), str):
                self._sessions[result["sessionId"]] = child
        self._write(line if line.endswith(b"\n") else line + b"\n")

    def _ended(self, child: _Child) -> None:
        """Its open requests answered with an error; its sessions and questions forgotten."""
        for request_id in list(child.open_requests):
            error = {
                "jsonrpc": "2.0",
                "id": json.loads(request_id),
                "error": {
                    "code": -32603,
                    "message": "Internal error",
                    "data": {"details": f"the zett process for {child.folder} ended"},
                },
            }
            self._write(_line(error))
        child.open_requests.clear()
        self._sessions = {key: kid for key, kid in self._sessions.items() if kid is not child}
        self._requests = {key: taken for key, taken in self._requests.items() if taken[0] is not child}
        if self._children.get(child.folder) is child:
            del self._children[child.folder]

    async def aclose(self) -> None:
        """Each child's standard input closed; each waited for (killed if it does not end)."""
        children = list(self._children.values())
        for child in children:
            child.lines.put_nowait(None)
        for child in children:
            process = child.process
            if process is not None:
                try:
                    await asyncio.wait_for(process.wait(), END_WAIT)
                except TimeoutError:
                    process.kill()
                    await process.wait()
            if child.task is not None:
                with contextlib.suppress(BaseException):
                    await child.task


def child_command(model: str | None, reasoning_effort: str | None) -> list[str]:
    """How this process was started, for a child (``python -m zett_tui acp`` and its options)."""
    # -P: the folder is a project (a cloned repository, written by sandboxed commands); without it
    # `python -m` would look for zett_tui there first, and a planted one would run as zett
    command = [sys.executable, "-P", "-m", "zett_tui", "acp"]
    if model:
        command += ["--model", model]
    if reasoning_effort:
        command += ["--reasoning-effort", reasoning_effort]
    return command


def _folder(cwd: object) -> Path | None:
    if not isinstance(cwd, str):
        return None
    path = Path(cwd)
    if not path.is_absolute() or not path.is_dir():
        return None
    return path.resolve()


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()
