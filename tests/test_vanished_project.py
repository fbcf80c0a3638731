"""The project folder deleted under a running zett: one line that says so, not "FileNotFoundError"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step
from zett_tui.runtime.events import TurnFinished, UIEvent
from zett_tui.runtime.host import AgentHost, HostOptions


async def test_a_turn_in_a_deleted_project_folder_says_what_happened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "gone"
    project.mkdir()
    monkeypatch.chdir(project)
    model = ScriptedModel(text_step("hello"))
    host = AgentHost(HostOptions(model_factory=lambda: model, model_label="scripted", cwd=project))
    await host.start()
    try:
        os.rmdir(project)
        events: list[UIEvent] = []
        finished = await host.run_turn("go", events.append)
    finally:
        monkeypatch.chdir(tmp_path)
        await host.aclose()
    assert finished.status == "failed"
    assert finished.error is not None
    assert "no longer exists" in finished.error and "FileNotFoundError" not in finished.error
    assert [e for e in events if isinstance(e, TurnFinished)][-1].error == finished.error
