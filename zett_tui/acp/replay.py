"""``session/load``: a session's past turns sent to the editor as it shows a live one.

Read from the session's JSONL transcript with ``aiofiles`` (a session file can be large; the
event loop keeps answering meanwhile): each turn's prompt as a user message, the answers as agent
messages, the tool calls as finished tool calls.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Literal

import aiofiles
from acp import helpers

from zett_tui.acp.updates import kind_of

log = logging.getLogger(__name__)

USER, ASSISTANT, TOOL = 2, 3, 4


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
                for update in _updates(record["messages"]):
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


def _updates(messages: list[Any]) -> list[Any]:
    updates: list[Any] = []
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("data"), dict):
            continue
        kind, data = message.get("kind"), message["data"]
        if kind == USER and data.get("include_in_messages", True):
            text = _text(data.get("content"))
            if text:
                updates.append(helpers.update_user_message_text(text))
        elif kind == ASSISTANT:
            text = _text(data.get("content"))
            if text:
                updates.append(helpers.update_agent_message_text(text))
            for call in data.get("tool_calls") or []:
                if isinstance(call, dict) and call.get("id"):
                    name = str(call.get("name", ""))
                    updates.append(
                        helpers.start_tool_call(
                            str(call["id"]),
                            name,
                            kind=kind_of(name),  # type: ignore[arg-type]
                            status="completed",
                            raw_input=call.get("arguments"),
                        )
                    )
        elif kind == TOOL and data.get("tool_call_id"):
            status: Literal["completed", "failed"] = "completed" if data.get("success", True) else "failed"
            updates.append(
                helpers.update_tool_call(
                    str(data["tool_call_id"]),
                    status=status,
                    content=[helpers.tool_content(helpers.text_block(_text(data.get("content"))[:20_000]))],
                )
            )
    return updates
