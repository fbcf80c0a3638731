"""``session/load``: a session's past turns sent to the editor as it shows a live one.

Read from the session's JSONL transcript with ``aiofiles`` (a session file can be large; the
event loop keeps answering meanwhile): each turn's prompt as a user message, the answers as agent
messages, the tool calls as finished tool calls titled as live ones are, and a ``task`` call's
subagent's tool calls (the turn's ``metadata.zett.subagents``) as the rows they were live
(``acp.updates.ToolRows``): ``t1/c1``, titled ``job › ...``, ``_meta.zett.parentToolCallId``
naming the ``task`` row; a subagent's own subagent's one level further. A call the user declined
(the turn's ``metadata.zett.decisions``, ``sessions.recorded_decisions``) ends as a live declined
row does: failed, ``rawOutput.zett_state`` "declined", "Declined by the user." and the answer's line.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import aiofiles
from acp import helpers

from zett_tui.acp.updates import kind_of
from zett_tui.core.tool_display import key_argument
from zett_tui.sessions.recorded_decisions import Decision, RunPath, TurnDecisions, turn_decisions

log = logging.getLogger(__name__)

USER, ASSISTANT, TOOL = 2, 3, 4
#: How deep recorded subagent runs are followed (a damaged or hostile file cannot recurse forever).
MAX_NESTING = 8


async def replay_session(client: Any, session_id: str, path: Path) -> int:
    """Send every readable turn of ``path``; a damaged line is skipped. Returns the turns sent."""
    sent = 0
    try:
        async with aiofiles.open(path, encoding="utf-8", errors="replace") as lines:
            async for line in lines:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
                    continue
                replayed = _Turn(turn_decisions(_zett_of(record)))
                main = _Under(runs=_subagents_of(record))
                for update in _updates(record["messages"], replayed, main):
                    await client.session_update(session_id=session_id, update=update)
                sent += 1
    except OSError:
        log.warning("the session file could not be read for replay", exc_info=True)
    return sent


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _zett_of(record: dict[str, Any]) -> dict[str, Any]:
    metadata = record.get("metadata")
    zett = metadata.get("zett") if isinstance(metadata, dict) else None
    return zett if isinstance(zett, dict) else {}


def _subagents_of(record: dict[str, Any]) -> dict[str, Any]:
    """The subagent runs of a turn's line, by the ``task`` call that started each."""
    runs = _zett_of(record).get("subagents")
    return runs if isinstance(runs, dict) else {}


@dataclass(frozen=True)
class _Turn:
    """The user's answers in a turn, by the agent they answered."""

    decisions: TurnDecisions

    def answers_to(self, path: RunPath, call_id: str) -> list[Decision]:
        """The answers given to ``call_id`` of the agent at ``path`` (``()``: the main agent)."""
        if not path:
            return self.decisions.main.get(call_id, [])
        return [item for item in self.decisions.runs.get(path, ()) if item.call_id == call_id]


@dataclass(frozen=True)
class _Under:
    """Whose rows are being replayed: the main agent's (no prefix), or a subagent's."""

    #: Its ``task`` row's id, which its own rows' ids start with.
    row: str = ""
    #: The ``task`` call ids from the main agent down to it (``sessions.recorded_decisions``).
    path: RunPath = ()
    #: Its job (after its parent subagent's, ``›`` between), which its rows' titles start with.
    title: str = ""
    depth: int = 0
    #: Its own subagents' recorded runs, by the ``task`` call that started each.
    runs: dict[str, Any] = field(default_factory=dict)

    def id_of(self, call_id: str) -> str:
        return f"{self.row}/{call_id}" if self.row else call_id

    def titled(self, title: str) -> str:
        return f"{self.title} › {title}" if self.title else title

    def marked(self, update: Any) -> Any:
        if not self.row:
            return update
        return update.model_copy(update={"field_meta": {"zett": {"parentToolCallId": self.row}}})


def _updates(messages: list[Any], turn: _Turn, under: _Under | None = None) -> list[Any]:
    """The updates of one turn's (or, ``under`` a ``task`` row, one subagent's) messages: a
    subagent's prompt and answer are not the conversation's, only its tool calls are shown."""
    under = under or _Under()
    updates: list[Any] = []
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("data"), dict):
            continue
        kind, data = message.get("kind"), message["data"]
        if kind == USER and data.get("include_in_messages", True) and not under.row:
            text = _text(data.get("content"))
            if text:
                updates.append(helpers.update_user_message_text(text))
        elif kind == ASSISTANT:
            text = _text(data.get("content"))
            if text and not under.row:
                updates.append(helpers.update_agent_message_text(text))
            for call in data.get("tool_calls") or []:
                if isinstance(call, dict) and call.get("id"):
                    updates.extend(_call(call, turn, under))
        elif kind == TOOL and data.get("tool_call_id"):
            updates.append(under.marked(_finished(data, turn, under)))
    return updates


def _finished(data: dict[str, Any], turn: _Turn, under: _Under) -> Any:
    """A tool result's row update: as it ended, or, when the user said no, declined."""
    call_id = str(data["tool_call_id"])
    output = _text(data.get("content"))[:20_000]
    answers = turn.answers_to(under.path, call_id)
    if any(answer.declined for answer in answers):
        lines = [answer.text for answer in answers if answer.text]
        said = "\n".join(
            ["Declined by the user.", *lines, output] if output else ["Declined by the user.", *lines]
        )
        return helpers.update_tool_call(
            under.id_of(call_id),
            status="failed",
            content=[helpers.tool_content(helpers.text_block(said))],
            raw_output={"zett_state": "declined"},
        )
    status: Literal["completed", "failed"] = "completed" if data.get("success", True) else "failed"
    return helpers.update_tool_call(
        under.id_of(call_id), status=status, content=[helpers.tool_content(helpers.text_block(output))]
    )


def _call(call: dict[str, Any], turn: _Turn, under: _Under) -> list[Any]:
    """A finished tool call's row, and, for a ``task`` call, its subagent's rows after it."""
    call_id, name, arguments = str(call["id"]), str(call.get("name", "")), call.get("arguments")
    title = f"{name} {key_argument(name, arguments)}".strip()
    run = under.runs.get(call_id)
    description = ""
    if name == "task" and isinstance(arguments, dict) and isinstance(arguments.get("description"), str):
        description = " ".join(arguments["description"].split())
        title = description or title
    row = under.id_of(call_id)
    start = helpers.start_tool_call(
        row,
        under.titled(title),
        kind=kind_of(name),  # type: ignore[arg-type]
        status="completed",
        raw_input=arguments,
    )
    updates = [under.marked(start)]
    if isinstance(run, dict) and isinstance(run.get("messages"), list) and under.depth < MAX_NESTING:
        nested = run.get("subagents")
        child = _Under(
            row,
            (*under.path, call_id),
            under.titled(description or name),
            under.depth + 1,
            nested if isinstance(nested, dict) else {},
        )
        updates.extend(_updates(run["messages"], turn, child))
    return updates
