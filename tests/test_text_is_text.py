"""Text is text: a lone surrogate in the prompt or the model's answer never fails a turn or a save.

They arrive from a JSON ``"\\ud800"`` escape in a provider's stream, or from undecodable bytes in
what was typed; no UTF-8 file or database can hold one, so they are written as U+FFFD (issue 12).
"""

from __future__ import annotations

import json

from tests.fakes.scripted_model import ScriptedModel, text_step
from zett_tui.runtime.events import UIEvent
from zett_tui.runtime.host import AgentHost, HostOptions


async def test_a_lone_surrogate_fails_nothing_and_every_turn_is_saved(project_dir) -> None:
    model = ScriptedModel(text_step("bad \ud800 answer"), text_step("and the next one"))
    host = AgentHost(HostOptions(model_factory=lambda: model, model_label="scripted"))
    await host.start()
    events: list[UIEvent] = []
    try:
        first = await host.run_turn("typed \udcff bytes", events.append)
        second = await host.run_turn("again", events.append)
    finally:
        await host.aclose()
    assert (first.status, second.status) == ("completed", "completed")
    assert host.recorder is not None
    lines = host.recorder.session_path(host.session_id).read_text(encoding="utf-8").splitlines()
    turns = [json.loads(line) for line in lines]
    assert [turn["status"] for turn in turns] == ["completed", "completed"]
    assert "\ufffd" in lines[0]
    # the second request carried one user message per turn: the first turn was saved whole
    roles = [type(message).__name__ for message in model.requests[-1].messages]
    assert roles.count("UserMessage") == 2
