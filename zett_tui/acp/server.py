"""The ACP agent: initialize, sessions (new, load, list), prompts, modes, cancel.

Start-up imports only the SDK: ``initialize`` is answered before zett's runtime is imported. Each
session is a ``SessionCore``; the process's working directory follows the session that runs a
turn (zett's tools work in the process's directory), so two sessions in different folders cannot
run turns at the same time (the second gets an error). Logs go to zett's log file; standard
output carries nothing but the protocol (``serve`` moves file descriptor 1 to stderr).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from acp import RequestError, helpers
from acp.schema import (
    AllowedOutcome,
    AvailableCommand,
    AvailableCommandInput,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    SessionInfo,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    UnstructuredCommandInput,
)

if TYPE_CHECKING:
    from acp.interfaces import Agent, Client

    from zett_tui.acp.updates import ToolRows
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.decisions import Reply, Request
    from zett_tui.runtime.events import TurnFinished, UIEvent
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.runtime.session import SessionCore
    from zett_tui.workspace.extension_folders import WorkspaceFiles

log = logging.getLogger(__name__)

Replay = Callable[[Any, str, Path], Awaitable[int]]
"""(the client, the session id, its transcript) -> the turns sent (``acp.replay.replay_session``)."""

MODE_NAMES = {
    "ask": ("Ask", "Edits and shell commands ask first"),
    "accept_edits": ("Accept edits", "Edits apply; shell commands ask"),
    "plan": ("Plan", "Plan Mode: read-only until you approve a plan"),
    "auto": ("Auto", "Nothing asks, except dangerous commands and writes outside the project"),
}


@dataclass
class AcpOptions:
    """What ``zett acp`` was started with (the same flags and config as ``zett``)."""

    env: Mapping[str, str]
    model: str | None = None
    reasoning_effort: str | None = None


@dataclass
class AcpSession:
    core: SessionCore
    cwd: Path
    rows: ToolRows
    mcp: McpManager | None = None
    #: The Markdown commands and skills (``/NAME args`` in a prompt).
    files: WorkspaceFiles | None = None
    #: What a Markdown command's ``model`` is chosen from (``LaunchSettings.model_catalog``).
    catalog: object = None
    outbox: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    sender: asyncio.Task[None] | None = None
    #: Modes to switch to once an answered call has finished (an approved plan), by call id.
    mode_after: dict[str, PermissionMode] = field(default_factory=dict)


class ZettAcpAgent:
    """zett as an ACP agent (``acp.interfaces.Agent``)."""

    def __init__(self, options: AcpOptions) -> None:
        self.options = options
        self.client: Client | None = None
        self.sessions: dict[str, AcpSession] = {}

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    # -- initialize -------------------------------------------------------------------------------

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kwargs: Any
    ) -> InitializeResponse:
        from zett_tui.acp.capabilities import initialize_result

        return InitializeResponse.model_validate(initialize_result(protocol_version))

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        raise RequestError.method_not_found("authenticate")

    # -- sessions ---------------------------------------------------------------------------------

    async def new_session(
        self, cwd: str, additional_directories: Any = None, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        from zett_tui.runtime.host import new_session_id

        session_id = new_session_id()
        session = await self._open(session_id, _folder(cwd), resume=None, mcp_servers=mcp_servers)
        return NewSessionResponse(session_id=session_id, modes=_modes(session.core.mode.value))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: Any = None,
        additional_directories: Any = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        from zett_tui.acp.replay import replay_session

        folder = _folder(cwd)
        if session_id in self.sessions:
            raise RequestError.invalid_params({"sessionId": "this session is already open"})
        session = await self._open(
            session_id, folder, resume=session_id, replay=replay_session, mcp_servers=mcp_servers
        )
        return LoadSessionResponse(modes=_modes(session.core.mode.value))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        from zett_tui.sessions.index import SessionIndex

        found = await asyncio.to_thread(SessionIndex().list_sessions, Path(cwd) if cwd else None)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=summary.session_id,
                    cwd=summary.cwd or str(cwd or ""),
                    title=summary.title or None,
                    updated_at=summary.last_activity.isoformat(),
                )
                for summary in found
                if summary.cwd or cwd
            ]
        )

    async def _open(
        self,
        session_id: str,
        cwd: Path,
        *,
        resume: str | None,
        replay: Replay | None = None,
        mcp_servers: Sequence[Any] | None = None,
    ) -> AcpSession:
        from zett_tui.acp.updates import ToolRows
        from zett_tui.entry.bootstrap import StartFailed, load_files, open_session
        from zett_tui.entry.startup import StartupError, prepare_launch
        from zett_tui.runtime.mcp.lifetime import started_for_one_turn
        from zett_tui.runtime.session import SessionCore

        try:
            launch = await asyncio.to_thread(
                prepare_launch,
                cwd=cwd,
                env=self.options.env,
                model=self.options.model,
                reasoning_effort=self.options.reasoning_effort,
                resume=resume,
                ask_trust=True,
            )
        except StartupError as error:
            raise RequestError.invalid_params({"reason": str(error)}) from error
        if resume is None:
            launch = replace(launch, session_id=session_id)
        for level, text in launch.notices:
            log.log(logging.WARNING if level != "info" else logging.INFO, "%s", text)
        if launch.project_trust is not None:
            launch = await self._settle_trust(session_id, launch)
        if mcp_servers:
            from zett_tui.acp.mcp_servers import editor_servers

            taken = {server.name for server in launch.mcp_servers}
            launch = replace(launch, mcp_servers=(*launch.mcp_servers, *editor_servers(mcp_servers, taken)))
        if replay is not None and launch.resume_path is not None:
            await replay(self._client(), session_id, launch.resume_path)
        files = await load_files(launch, lambda text: log.warning("%s", text))
        mcp = await started_for_one_turn(launch.mcp_servers, lambda text: log.warning("%s", text))
        if any(other.core.busy and other.cwd != cwd for other in self.sessions.values()):
            if mcp is not None:
                await asyncio.to_thread(mcp.stop)
            raise RequestError.invalid_request({"reason": "a session in another folder is running a turn"})
        os.chdir(cwd)  # zett's tools work in the process's folder
        try:
            host = await open_session(launch, files, mcp=mcp)
        except StartFailed as error:
            if mcp is not None:
                await asyncio.to_thread(mcp.stop)
            raise RequestError.internal_error({"reason": f"could not start the model: {error}"}) from error
        session = AcpSession(
            SessionCore(host, _Asker(self, session_id)), cwd, ToolRows(cwd), mcp, files, launch.model_catalog
        )
        session.core.listeners.append(lambda event: self._on_event(session, event))
        session.sender = asyncio.create_task(self._send_updates(session))
        self.sessions[host.session_id] = session
        commands = [
            AvailableCommand(
                name=command.name,
                description=command.description or command.name,
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint="arguments")),
            )
            for command in files.commands
        ]
        commands += [
            AvailableCommand(name=name, description=text) for name, text in BUILT_IN_COMMANDS.items()
        ]
        # after the response that names the session (the SDK writes it as this handler returns)
        asyncio.get_running_loop().call_soon(
            session.outbox.put_nowait, helpers.update_available_commands(commands)
        )
        return session

    async def _settle_trust(self, session_id: str, launch: LaunchSettings) -> LaunchSettings:
        """The terminal's trust question as a permission request; no answer decides nothing."""
        from acp.schema import PermissionOption, ToolCallUpdate

        from zett_tui.entry.project_trust import TrustAnswer, keep_answer, settings_after_trust

        project = launch.project_trust
        if project is None:
            return launch
        files = ", ".join(project.files) or "nothing readable"
        code = project.code_to_run()
        detail = f"Files: {files}." + (f" Code they run: {'; '.join(code)}." if code else "")
        options = [
            PermissionOption(option_id="distrust", name="Don't trust it", kind="reject_always"),
            PermissionOption(option_id="trust", name="Trust this folder and load them", kind="allow_always"),
        ]
        tool_call = ToolCallUpdate(
            tool_call_id=f"trust-{session_id}",
            title=f"Load the settings, extensions, commands and MCP servers in {project.root}?",
            kind="other",
            content=[
                helpers.tool_content(
                    helpers.text_block(
                        detail + " Extensions are Python code: they run with your permissions."
                    )
                )
            ],
        )
        try:
            response = await self._client().request_permission(
                session_id=session_id, tool_call=tool_call, options=options
            )
            outcome = response.outcome
            picked = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        except Exception:
            log.warning("the trust question could not be asked", exc_info=True)
            picked = None
        answer = TrustAnswer(picked) if picked in ("trust", "distrust") else TrustAnswer.LATER
        said: list[str] = []
        keep_answer(project, answer, lambda text, level: said.append(text))
        for text in said:
            log.warning("%s", text)
        return settings_after_trust(launch, answer, lambda text, level: log.info("%s", text))

    # -- prompts ----------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        from zett_tui.acp.prompt_text import prompt_text
        from zett_tui.runtime.session import SessionBusy

        session = self._session(session_id)
        for other in self.sessions.values():
            if other is not session and other.core.busy and other.cwd != session.cwd:
                raise RequestError.invalid_request(
                    {"reason": "another session in another folder is running a turn"}
                )
        try:
            text = prompt_text(prompt, session.cwd)
        except ValueError as error:
            raise RequestError.invalid_params({"reason": str(error)}) from error
        os.chdir(session.cwd)
        try:
            finished = await self._turn(session, text)
        except SessionBusy as error:
            raise RequestError.invalid_request({"reason": str(error)}) from error
        await session.outbox.join()  # every update of the turn is out before its answer
        if finished.status == "cancelled":
            return PromptResponse(stop_reason="cancelled")
        if finished.status == "failed":
            await self._client().session_update(
                session_id=session_id,
                update=helpers.update_agent_message_text(f"\n\nzett: {finished.error or 'the turn failed'}"),
            )
        return PromptResponse(stop_reason="end_turn")

    async def _turn(self, session: AcpSession, text: str) -> TurnFinished:
        """A prompt, ``/compact``, ``/continue``, or a Markdown command or skill (``/NAME args``)
        expanded as the terminal does, answered by the command's own model when it names one."""
        from zett_tui.runtime.turn_model import TurnModel, model_for_command
        from zett_tui.workspace.extension_folders import command_named_in, expand_prompt

        core = session.core
        command = text.strip()
        if command == "/compact":
            finished = await core.compact()
        elif command == "/continue":
            finished = await core.continue_turn()
        else:
            files = session.files
            turn_model: TurnModel | None = None
            named = command_named_in(text, files) if files is not None else None
            if named is not None and named.model:
                label = core.host.options.model_label
                turn_model, problem = model_for_command(named.name, named.model, session.catalog, label)
                if problem:
                    log.warning("%s", problem)
            return await core.prompt(
                expand_prompt(text, files) if files is not None else text, model=turn_model
            )
        if finished.answer:  # what the command said (nothing to compact or continue)
            session.outbox.put_nowait(helpers.update_agent_message_text(finished.answer))
        return finished

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.core.cancel()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        from zett_tui.runtime.modes import PermissionMode

        session = self._session(session_id)
        try:
            mode = PermissionMode(mode_id)
        except ValueError as error:
            raise RequestError.invalid_params(
                {"modeId": f"no mode {mode_id!r}: {', '.join(MODE_NAMES)}"}
            ) from error
        session.core.set_mode(mode)
        session.outbox.put_nowait(helpers.update_current_mode(mode.value))
        return SetSessionModeResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # -- plumbing ---------------------------------------------------------------------------------

    def _client(self) -> Client:
        if self.client is None:
            raise RequestError.internal_error({"reason": "no client connected"})
        return self.client

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": f"no open session {session_id!r}"})
        return session

    def _on_event(self, session: AcpSession, event: UIEvent) -> None:
        from zett_tui.runtime.events import PlanModeChanged, ToolFinished

        for update in session.rows.updates(event):
            session.outbox.put_nowait(update)
        if isinstance(event, ToolFinished):
            mode = session.mode_after.pop(event.call_id, None)
            if mode is not None and event.state == "done":
                session.core.set_mode(mode)
                session.outbox.put_nowait(helpers.update_current_mode(mode.value))
        elif isinstance(event, PlanModeChanged):
            session.outbox.put_nowait(helpers.update_current_mode(session.core.mode.value))

    async def _send_updates(self, session: AcpSession) -> None:
        """One sender per session keeps the updates in order; a failed send is logged, not fatal."""
        while True:
            update = await session.outbox.get()
            try:
                await self._client().session_update(session_id=session.core.session_id, update=update)
            except Exception:
                log.warning("a session update could not be sent", exc_info=True)
            finally:
                session.outbox.task_done()

    async def ask(self, session_id: str, request: Request) -> Reply:
        from zett_tui.acp.permissions import question_for

        session = self._session(session_id)
        await session.outbox.join()  # the tool call row exists before its question
        question = question_for(request, session.cwd)
        response = await self._client().request_permission(
            session_id=session_id, tool_call=question.tool_call, options=question.options
        )
        outcome = response.outcome
        choose = question.replies.get(outcome.option_id) if isinstance(outcome, AllowedOutcome) else None
        reply = choose() if choose is not None else question.refused()
        if reply.declined:
            session.rows.declined.add(request.tool_call_id)
        elif isinstance(outcome, AllowedOutcome) and outcome.option_id in question.mode_after:
            session.mode_after[request.tool_call_id] = question.mode_after[outcome.option_id]
        return reply

    async def aclose(self) -> None:
        """Every session's turn cancelled and recorded, its host and MCP servers closed."""
        for session in list(self.sessions.values()):
            with contextlib.suppress(Exception):
                await session.core.aclose()
            if session.sender is not None:
                session.sender.cancel()
            if session.mcp is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(session.mcp.stop)
        self.sessions.clear()


BUILT_IN_COMMANDS = {
    "compact": "Summarise older turns to free context",
    "continue": "Carry on an interrupted turn",
}


@dataclass
class _Asker:
    agent: ZettAcpAgent
    session_id: str

    async def ask(self, request: Request) -> Reply:
        return await self.agent.ask(self.session_id, request)


def _folder(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute() or not path.is_dir():
        raise RequestError.invalid_params({"cwd": "must be an absolute path to an existing folder"})
    return path


def _modes(current: str) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current,
        available_modes=[
            SessionMode(id=mode, name=name, description=text) for mode, (name, text) in MODE_NAMES.items()
        ],
    )


async def serve(options: AcpOptions, protocol_fd: int, first: bytes = b"") -> int:
    """Speak ACP on stdin/stdout until the client closes its end; then close every session."""
    from acp.agent.connection import AgentSideConnection

    from zett_tui.core.logs import setup_logging

    setup_logging(_log_redaction())
    raw, writer = await _protocol_streams(protocol_fd, first)
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    screening = asyncio.create_task(_screen_lines(raw, reader, writer))
    agent = ZettAcpAgent(options)
    conn = AgentSideConnection(cast("Agent", agent), writer, reader, listening=False)
    try:
        await conn.listen()
    finally:
        screening.cancel()
        await agent.aclose()
        with contextlib.suppress(Exception):
            await conn.close()
    return 0


def _log_redaction() -> Callable[[str], str]:
    """The log's redaction (known formats, the provider keys and secret-named variables of this
    process), built at the first record, so ``initialize`` is answered before it is imported."""
    built: list[Callable[[str], str]] = []

    def redact(text: str) -> str:
        if not built:
            from zett_tui.core.redact import redactor_from_environment

            built.append(redactor_from_environment(os.environ))
        return built[0](text)

    return redact


#: A message longer than this is refused (an editor's embedded file can be large).
LINE_LIMIT = 50 * 1024 * 1024


async def _screen_lines(
    raw: asyncio.StreamReader, sdk: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Pass each JSON object line on to the SDK; answer a line that is not one with the JSON-RPC
    error itself (the SDK would log and skip it, and the client would wait for an answer)."""
    try:
        while True:
            try:
                line = await raw.readline()
            except (ValueError, asyncio.LimitOverrunError):
                _write_error(writer, -32600, "Invalid Request", "the message is longer than zett reads")
                continue
            if not line:
                break
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                _write_error(writer, -32700, "Parse error", "the line is not JSON")
                continue
            if not isinstance(message, dict):
                _write_error(writer, -32600, "Invalid Request", "a message is one JSON object")
                continue
            sdk.feed_data(line if line.endswith(b"\n") else line + b"\n")
    finally:
        sdk.feed_eof()


def _write_error(writer: asyncio.StreamWriter, code: int, message: str, details: str) -> None:
    error = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": code, "message": message, "data": {"details": details}},
    }
    writer.write((json.dumps(error) + "\n").encode())


async def _protocol_streams(
    protocol_fd: int, first: bytes
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Standard input (after ``first``, the line ``fast_start`` read and did not answer) and the
    protocol's own copy of standard output (``protocol_fd``). Pipes are read and written by the
    event loop; a regular file (a redirect) from a thread."""
    from acp.stdio import _start_stdin_feeder, _WritePipeProtocol

    protocol_out = os.fdopen(protocol_fd, "wb", buffering=0)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    if first:
        reader.feed_data(first)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except ValueError:
        _start_stdin_feeder(loop, reader)
    write_protocol = _WritePipeProtocol()
    transport: asyncio.BaseTransport
    try:
        transport, _ = await loop.connect_write_pipe(lambda: write_protocol, protocol_out)
    except ValueError:
        transport = _FileTransport(protocol_out)
    writer = asyncio.StreamWriter(cast(asyncio.WriteTransport, transport), write_protocol, None, loop)
    return reader, writer


class _FileTransport(asyncio.WriteTransport):
    """Writes straight to a file (standard output redirected to one)."""

    def __init__(self, out: Any) -> None:
        super().__init__()
        self._out = out
        self._closing = False

    def write(self, data: Any) -> None:
        if not self._closing:
            self._out.write(data)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True

    def can_write_eof(self) -> bool:
        return False
