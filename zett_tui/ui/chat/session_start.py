"""How the chat's session starts: a resumed session's past turns painted before anything else,
then (after the first frame, and after the folder's trust question) the host, opened with the
bootstrap ``zett -p`` and ``zett acp`` share, and what the user should know before the first
prompt (extension problems, storage notices, a last turn that was cut off).

``SessionStart`` runs that sequence for the chat screen (``screen.py``), which starts it once
mounted; it sees the screen through ``StartingChat`` and hands each outcome back to it (the past's
model, a failure, the host), and the screen wires those to its widgets and to the session core.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from zett_tui.core.long_lived_objects import freeze_startup_objects, resume_collection
from zett_tui.runtime.activity import Activity
from zett_tui.ui.chat.changes_lines import notice_block
from zett_tui.ui.chat.view import ChatView
from zett_tui.ui.speed.deferred_imports import import_after_first_frame
from zett_tui.ui.themes import syntax_theme_name

if TYPE_CHECKING:
    from pathlib import Path

    from textual._types import CallbackType as Callback

    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.events import ContextMeasured
    from zett_tui.runtime.host import AgentHost
    from zett_tui.ui.speed.keys_first import KeysInFlight
    from zett_tui.ui.widgets.transcript import Transcript

log = logging.getLogger(__name__)

#: ``say(text, level)``: a line in the transcript.
Say = Callable[[str, str], None]


@dataclass(frozen=True)
class PastSession:
    """What the painted past of a resumed session tells the rest of the start."""

    #: The status of its last turn (``cancelled``, ``interrupted``...); None without turns.
    last_status: str | None = None
    #: That turn's last part is answer text (a partial answer after a kill).
    ended_in_text: bool = False
    #: The model that answered last, as its turns are labelled (None: not labelled).
    answer_model: str | None = None


async def show_past_session(
    transcript: Transcript, say: Say, path: Path, session_id: str, *, previews: bool
) -> PastSession:
    """Paint the session's last turns (read in a thread: a session file can be hundreds of MB) and
    say whether it was resumed or forked."""
    from zett_tui.sessions.meta import forked_from
    from zett_tui.sessions.turn_views import TextBlock
    from zett_tui.ui.chat.past_turns import last_labelled_model, load_past_session, paint_past_session

    past = await load_past_session(path, previews=previews)
    paint_past_session(transcript, past, session_id)
    painted = PastSession(answer_model=last_labelled_model(transcript))
    if past.page.turns:
        last = past.page.turns[-1]
        ended_in_text = bool(last.blocks) and isinstance(last.blocks[-1], TextBlock)
        painted = PastSession(last.status, ended_in_text, painted.answer_model)
    parent = await asyncio.to_thread(forked_from, path)
    if parent is not None:
        say(
            f"Forked session {parent} into {session_id}: this copy goes on, the original stays as it was.",
            "info",
        )
    else:
        say(f"Resumed session {session_id}.", "info")
    return painted


async def start_host(
    chat: ChatView, launch: LaunchSettings, past: PastSession | None
) -> tuple[AgentHost, ContextMeasured]:
    """The workspace's files offered, MCP started and the host opened for ``launch`` (the chat's
    settings once the trust question is settled); then what the user should know now, and the
    context figure to show. A chat that goes away meanwhile closes the host.

    Raises:
        StartFailed: the model could not start (the reason is the message).
    """
    from zett_tui.entry.bootstrap import open_session
    from zett_tui.ui.chat.mcp_status import start_mcp
    from zett_tui.ui.chat.workspace_commands import offer_workspace_files

    files = await offer_workspace_files(chat, launch.cwd)  # after the trust question: a project's need it
    host = await open_session(launch, files, mcp=start_mcp(chat, launch.mcp_servers))
    try:
        for problem in host.extension_report.problems:
            chat.say(str(problem), "warning")
        for notice in host.take_notices():  # said now, not at the first turn
            chat.add_block(notice_block(notice))
        if past is not None:
            await offer_interrupted_turn(host, past, chat.say)
        measured = await host.estimate_context()
    except BaseException:  # the screen went away before it took the host (a quit at startup)
        await asyncio.shield(host.aclose())  # on_unmount cannot: the screen has no host yet
        raise
    return host, measured


async def offer_interrupted_turn(host: AgentHost, past: PastSession, say: Say) -> None:
    """A resumed session whose last turn was cut off: say how, and that ``/continue`` carries it on."""
    from zett_agent.resume import ResumeKind

    found = await host.resume_point()
    if found is None:
        return
    point = found.description or str(found.kind)
    carry_on = "Type /continue to carry it on, or write a new prompt."
    if past.last_status == "cancelled":  # the history alone cannot tell a stop from a crash
        say(f"You stopped the last turn before it ended. {carry_on}", "warning")
    elif past.last_status == "interrupted" and past.ended_in_text and found.kind is ResumeKind.CALL_MODEL:
        # the answer above was streamed and recorded, but zett was killed before the model's
        # memory kept it: "the model was never answered" would contradict what is on screen
        say(
            "zett was stopped while the model was answering: the answer above is as far as it got, "
            "and the model's memory does not have it. Type /continue to ask it again, or write a "
            "new prompt.",
            "warning",
        )
    elif past.last_status == "interrupted":
        say(f"zett was stopped during the last turn ({point}). {carry_on}", "warning")
    else:
        say(f"The last turn was cut off ({point}). {carry_on}", "warning")


class StartingChat(ChatView, Protocol):
    """The chat screen as its start-up sees it: a helper's ``ChatView``, and what it does with each
    outcome of the start."""

    #: Typed keys on their way to the prompt: the warm-up's imports step aside for them.
    keys_in_flight: KeysInFlight

    def call_after_refresh(self, callback: Callback, *args: Any, **kwargs: Any) -> bool: ...

    def show_activity(self, activity: Activity) -> None:
        """What the chat is doing before the session opens (starting, read-only, not ready)."""

    def past_shown(self, answer_model: str | None) -> None:
        """The resumed session's past is painted; ``answer_model`` answered its last turn (None:
        its turns are not labelled)."""

    def model_failed(self) -> None:
        """The model could not start: nothing is sent from now on."""

    def take_host(self, host: AgentHost, measured: ContextMeasured) -> None:
        """The host is open: the chat's widgets follow it (context meter, prompt, notices)."""

    def open_session(self, host: AgentHost) -> None:
        """The session core runs the turns from now on."""

    def show_session_label(self, label: str) -> None:
        """The status line's session id (``session_label``)."""


class SessionStart:
    """The chat's start, once: the resumed past painted, then (unless the session is read-only
    here) the agent built after the first frame.

    ``settings`` gives the chat's settings as they are at each step: the folder's trust question
    (or ``/extensions trust`` meanwhile) may change them before the host is opened.
    """

    def __init__(
        self, chat: StartingChat, transcript: Transcript, settings: Callable[[], LaunchSettings]
    ) -> None:
        self._chat = chat
        self._transcript = transcript
        self._settings = settings
        #: How the past of a resumed session ended, once painted.
        self._past = PastSession()

    def begin(self) -> None:
        """The screen is mounted: paint the past (read in a thread: a session file can be hundreds of
        MB), or go straight on to the agent."""
        launch = self._settings()
        if launch.resume_path is not None and launch.session_id:
            self._chat.run_worker(self._show_past_session(launch.resume_path, launch.session_id))
            return
        self._open_for_input()

    async def _show_past_session(self, path: Path, session_id: str) -> None:
        chat = self._chat
        self._past = await show_past_session(
            self._transcript, chat.say, path, session_id, previews=self._settings().image_previews
        )
        chat.past_shown(self._past.answer_model)
        self._open_for_input()

    def _open_for_input(self) -> None:
        """After the past turns: say so when read-only, else build the agent."""
        chat = self._chat
        if self._settings().read_only:
            chat.say(
                "Read-only: another zett is writing this session, so nothing is sent from here.", "warning"
            )
            chat.show_activity(Activity.READ_ONLY)
            chat.call_after_refresh(resume_collection)
            return
        chat.call_after_refresh(self._start_warm_up)

    # -- warm-up: the agent is built after the first frame --------------------------------------

    def _start_warm_up(self) -> None:
        self._chat.run_worker(self._warm_up(), group="warmup", exit_on_error=False)

    async def _warm_up(self) -> None:
        try:
            await self._build_agent()
        finally:
            resume_collection()  # a no-op once the agent is ready (freeze_startup_objects resumed it)

    async def _build_agent(self) -> None:
        chat = self._chat
        try:
            await asyncio.to_thread(
                import_after_first_frame,
                syntax_theme_name(chat.app.current_theme),
                chat.keys_in_flight.pending,  # a typed key goes first
            )
        except Exception:  # only a head start: each use imports what it needs itself
            log.warning("importing the rest of zett in a thread failed", exc_info=True)
        from zett_tui.entry.bootstrap import StartFailed

        if self._settings().project_trust is not None:  # asked before the agent is built: it may load code
            from zett_tui.ui.chat.trust_prompt import settle_project_trust

            resume_collection()  # the question can stay open for as long as the user likes
            await settle_project_trust(chat, self._settings())
        launch = self._settings()  # the trust question may have changed them
        past = self._past if launch.resume_path is not None else None
        try:  # the bootstrap ``zett -p`` and ``zett acp`` share
            host, measured = await start_host(chat, launch, past)
        except StartFailed as error:
            chat.model_failed()
            chat.say(f"Could not start the model: {error}", "error")
            chat.show_activity(Activity.NOT_READY)
            return
        chat.take_host(host, measured)
        freeze_startup_objects()
        chat.run_worker(self._show_session_id(host.session_id), group="session-id", exit_on_error=False)
        chat.open_session(host)

    async def _show_session_id(self, session_id: str) -> None:
        """The status line's id: the shortest prefix no other stored session shares (read off the loop)."""
        from zett_tui.ui.chat.session_label import shown_session_id

        directory = self._settings().host_overrides.get("sessions_dir")
        self._chat.show_session_label(await asyncio.to_thread(shown_session_id, session_id, directory))
