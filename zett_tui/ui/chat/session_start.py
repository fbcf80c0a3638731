"""How the chat's session starts: a resumed session's past turns painted before anything else,
then (after the first frame, and after the folder's trust question) the host, opened with the
bootstrap ``zett -p`` and ``zett acp`` share, and what the user should know before the first
prompt (extension problems, storage notices, a last turn that was cut off).

The chat screen (``screen.py``) calls these and wires what they return to its widgets and to the
session core.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zett_tui.ui.chat.changes_lines import notice_block

if TYPE_CHECKING:
    from pathlib import Path

    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.events import ContextMeasured
    from zett_tui.runtime.host import AgentHost
    from zett_tui.ui.chat.view import ChatView
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
    from zett_tui.sessions.recorded_turns import TextBlock
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
