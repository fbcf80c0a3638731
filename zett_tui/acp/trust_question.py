"""The terminal's trust question for a folder, as a permission request.

A folder whose ``.zett/``, ``.mcp.json`` or commands wait for the user's trust asks before its
files are used; no answer (a client that cancels or cannot ask) decides nothing: the files stay
unused and the next session asks again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from acp import helpers
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from zett_tui.entry.project_trust import TrustAnswer, keep_answer, settings_after_trust

if TYPE_CHECKING:
    from zett_tui.entry.launch import LaunchSettings

log = logging.getLogger(__name__)

__all__ = ["settle_trust"]


async def settle_trust(client: Any, session_id: str, launch: LaunchSettings) -> LaunchSettings:
    """The settings once the client's user answered the trust question (or did not)."""

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
                helpers.text_block(detail + " Extensions are Python code: they run with your permissions.")
            )
        ],
    )
    try:
        response = await client.request_permission(
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
