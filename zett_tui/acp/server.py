"""The ACP agent: initialize, sessions (new, load, list, resume, fork, close), prompts, modes, cancel.

Start-up imports only the SDK: ``initialize`` is answered before zett's runtime is imported. Each
session is a ``SessionCore``. zett's tools work in the process's folder, so this process serves
the sessions of one folder, the first session's; ``acp.folders`` gives every other folder a
``zett acp`` process of its own, and sessions in different folders run turns at the same time.
Logs go to zett's log file; standard output carries nothing but the protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError, helpers
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    ClientCapabilities,
    CloseSessionResponse,
    ForkSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionInfo,
    SessionInfoUpdate,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    UnstructuredCommandInput,
)

from zett_tui.acp.session_state import AcpSession

if TYPE_CHECKING:
    from acp.interfaces import Client

    from zett_tui.core.images import PreparedImage
    from zett_tui.runtime.decisions import Reply, Request
    from zett_tui.runtime.events import TurnFinished, UIEvent

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
    #: The capabilities of a client whose ``initialize`` ``fast_start`` answered.
    client_capabilities: ClientCapabilities | None = None


class ZettAcpAgent:
    """zett as an ACP agent (``acp.interfaces.Agent``)."""

    def __init__(self, options: AcpOptions) -> None:
        self.options = options
        self.client: Client | None = None
        self.sessions: dict[str, AcpSession] = {}
        #: What the client said it can do (forms for free text, among others).
        self.client_capabilities: ClientCapabilities | None = options.client_capabilities
        #: The folder this process's sessions work in (the first session's).
        self.home: Path | None = None

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    # -- initialize -------------------------------------------------------------------------------

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kwargs: Any
    ) -> InitializeResponse:
        from zett_tui.acp.capabilities import initialize_result

        self.client_capabilities = client_capabilities
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

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: Any = None,
        mcp_servers: Any = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        """zett's ``--resume``: the session goes on where it stopped (the editor shows it already,
        so nothing is replayed)."""
        if session_id in self.sessions:
            raise RequestError.invalid_params({"sessionId": "this session is already open"})
        session = await self._open(session_id, _folder(cwd), resume=session_id, mcp_servers=mcp_servers)
        return ResumeSessionResponse(modes=_modes(session.core.mode.value))

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: Any = None,
        mcp_servers: Any = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """zett's ``--resume ID --fork``: a new session with a copy of the turns and context so
        far, marked as a fork of ``session_id`` (``zett sessions`` says so)."""
        session = await self._open(
            session_id, _folder(cwd), resume=session_id, mcp_servers=mcp_servers, open_as="fork"
        )
        title = await asyncio.to_thread(_fork_title, session.core.session_id, session_id)
        asyncio.get_running_loop().call_soon(session.outbox.put_nowait, title)  # after the response
        return ForkSessionResponse(session_id=session.core.session_id, modes=_modes(session.core.mode.value))

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """The session's turn cancelled and recorded, its host and MCP servers closed."""
        session = self._session(session_id)
        del self.sessions[session_id]
        await self._close(session)
        return CloseSessionResponse()

    async def _open(
        self,
        session_id: str,
        cwd: Path,
        *,
        resume: str | None,
        replay: Replay | None = None,
        mcp_servers: Sequence[Any] | None = None,
        open_as: str | None = None,
    ) -> AcpSession:
        from zett_tui.acp.trust_question import settle_trust
        from zett_tui.acp.updates import ToolRows
        from zett_tui.entry.bootstrap import StartFailed, load_files, open_session
        from zett_tui.entry.startup import StartupError, prepare_launch
        from zett_tui.runtime.mcp.lifetime import started_for_one_turn
        from zett_tui.runtime.session import SessionCore

        self._settle_home(cwd)
        try:
            launch = await asyncio.to_thread(
                prepare_launch,
                cwd=cwd,
                env=self.options.env,
                model=self.options.model,
                reasoning_effort=self.options.reasoning_effort,
                resume=resume,
                ask_trust=True,
                open_as=open_as,
            )
        except StartupError as error:
            raise RequestError.invalid_params({"reason": str(error)}) from error
        if resume is None:
            launch = replace(launch, session_id=session_id)
        for level, text in launch.notices:
            log.log(logging.WARNING if level != "info" else logging.INFO, "%s", text)
        if launch.project_trust is not None:
            launch = await settle_trust(self._client(), session_id, launch)
        if mcp_servers:
            from zett_tui.acp.mcp_servers import editor_servers

            taken = {server.name for server in launch.mcp_servers}
            launch = replace(launch, mcp_servers=(*launch.mcp_servers, *editor_servers(mcp_servers, taken)))
        if replay is not None and launch.resume_path is not None:
            await replay(self._client(), session_id, launch.resume_path)
        files = await load_files(launch, lambda text: log.warning("%s", text))
        mcp = await started_for_one_turn(launch.mcp_servers, lambda text: log.warning("%s", text))
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
        session.mode_shown = session.core.mode  # as ``session/new`` answers
        session.core.state_listeners.append(lambda: self._show_mode(session))
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

    def _settle_home(self, cwd: Path) -> None:
        """zett's tools work in the process's folder: this process serves the folder of its first
        session (``acp.folders`` starts a process of its own for each other folder)."""
        folder = cwd.resolve()
        if self.home is None:
            os.chdir(folder)
            self.home = folder
        elif folder != self.home:
            raise RequestError.invalid_request(
                {"reason": f"this zett serves {self.home}; a session in {folder} needs a process of its own"}
            )

    # -- prompts ----------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        from zett_tui.acp.prompt_text import prompt_parts
        from zett_tui.runtime.session import SessionBusy

        session = self._session(session_id)
        try:
            parts = prompt_parts(prompt, session.cwd)
        except ValueError as error:
            raise RequestError.invalid_params({"reason": str(error)}) from error
        images = await self._images(session, parts.images)
        try:
            finished = await self._turn(session, parts.text, images)
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

    async def _images(self, session: AcpSession, raw: list[tuple[str, bytes]]) -> list[PreparedImage]:
        """The prompt's images scaled to the session model's limits, as a pasted image is; an
        image zett cannot read is a JSON-RPC error (nothing is sent)."""
        if not raw:
            return []
        from zett_tui.core.images import limits_for
        from zett_tui.runtime.image_prompt import prepare_mentioned

        limits = limits_for(session.core.host.options.model_label)
        images, problems = await asyncio.to_thread(prepare_mentioned, raw, limits)
        if problems:
            reasons = "; ".join(problem.removeprefix("@") for problem in problems)
            raise RequestError.invalid_params({"reason": reasons})
        return images

    async def _turn(self, session: AcpSession, text: str, images: list[PreparedImage]) -> TurnFinished:
        """A prompt, ``/compact``, ``/continue``, or a Markdown command or skill (``/NAME args``)
        expanded as the terminal does, answered by the command's own model when it names one."""
        from zett_tui.runtime.turn_model import TurnModel, model_for_command
        from zett_tui.workspace.extension_folders import command_named_in, expand_prompt

        core = session.core
        command = text.strip()
        if command == "/compact" and not images:
            finished = await core.compact()
        elif command == "/continue" and not images:
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
                expand_prompt(text, files) if files is not None else text, model=turn_model, images=images
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
        session.core.set_mode(mode)  # the editor hears it from the core (``_show_mode``)
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
        from zett_tui.runtime.events import ToolFinished

        for update in session.rows.updates(event):
            session.outbox.put_nowait(update)
        if isinstance(event, ToolFinished):
            mode = session.mode_after.pop(event.call_id, None)
            if mode is not None and event.state == "done":
                session.core.set_mode(mode)

    def _show_mode(self, session: AcpSession) -> None:
        """The core's state changed: the editor hears the mode when it is another than it knows
        (set by the editor, by an approved plan, or by the model entering or leaving Plan Mode)."""
        mode = session.core.mode
        if mode is not session.mode_shown:
            session.mode_shown = mode
            session.outbox.put_nowait(helpers.update_current_mode(mode.value))

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
        from zett_tui.acp.asking import ask_editor

        session = self._session(session_id)
        return await ask_editor(self._client(), self.client_capabilities, session, request)

    async def aclose(self) -> None:
        """Every session's turn cancelled and recorded, its host and MCP servers closed."""
        sessions = list(self.sessions.values())
        self.sessions.clear()
        for session in sessions:
            await self._close(session)

    async def _close(self, session: AcpSession) -> None:
        with contextlib.suppress(Exception):
            await session.core.aclose()
        if session.sender is not None:
            session.sender.cancel()
        if session.mcp is not None:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(session.mcp.stop)


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


def _fork_title(fork_id: str, original: str) -> SessionInfoUpdate:
    """The fork's title as ``zett sessions`` shows it ("... (fork of 01a2b3c4)"), sent after the
    response that names the fork; ``_meta.zett.forkedFrom`` names the original."""
    from zett_tui.core import paths
    from zett_tui.sessions.meta import read_title
    from zett_tui.sessions.naming import session_path

    title = read_title(session_path(paths.sessions_dir(), fork_id)) or f"fork of {original[:8]}"
    return SessionInfoUpdate(
        session_update="session_info_update", title=title, field_meta={"zett": {"forkedFrom": original}}
    )


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
