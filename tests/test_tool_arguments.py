"""A bad tool argument is one human line for the model and the row, not pydantic's report."""

from __future__ import annotations

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from zett_tui.runtime.events import ToolFinished, UIEvent
from zett_tui.runtime.host import AgentHost, HostOptions
from zett_tui.runtime.modes import PermissionMode

BAD_CALLS = [
    ("read_file", {"path": "x", "start_line": 0}, "start_line should be greater than or equal to 1 (got 0)"),
    ("bash", {"cmd": "ls"}, "command is required; cmd is not a parameter of this tool"),
    ("edit", {"path": "a", "edits": "nope"}, "edits should be a valid list (got 'nope')"),
    ("glob", {}, "pattern is required"),
]


@pytest.mark.parametrize(("tool", "arguments", "expected"), BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
async def test_a_bad_argument_is_one_line_the_model_can_act_on(
    tool, arguments, expected, project_dir
) -> None:
    model = ScriptedModel(tool_step("c1", tool, arguments), text_step("fixed"))
    host = AgentHost(
        HostOptions(model_factory=lambda: model, model_label="scripted", permission_mode=PermissionMode.AUTO)
    )
    await host.start()
    events: list[UIEvent] = []
    try:
        await host.run_turn("go", events.append)
    finally:
        await host.aclose()
    (row,) = [event for event in events if isinstance(event, ToolFinished)]
    assert row.state == "failed"
    assert row.output == f"Invalid arguments for {tool}: {expected}."
    told = repr(model.requests[-1].messages[-1])
    assert expected in told
    assert "pydantic" not in told and "validation error" not in told
