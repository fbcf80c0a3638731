"""An MCP call that may change files takes a checkpoint before it runs, like a shell command;
one the server marks read-only (readOnlyHint) takes none."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_checkpoint_store import git
from tests.test_mcp_app import FAKE
from tests.test_mcp_headless import run
from zett_tui.checkpoints.store import CheckpointStore
from zett_tui.core import paths


def step_refs(project: Path) -> list[str]:
    store = CheckpointStore(project, paths.checkpoints_dir())
    return sorted(ref for ref in store.refs() if "/step-" in ref)


async def test_an_mcp_call_that_may_change_files_takes_a_checkpoint_first(project_dir: Path) -> None:
    git(project_dir, "init", "-q")
    (project_dir / "notes.txt").write_text("one\n")
    model = ScriptedModel(tool_step("c1", "mcp__fake__write_note", {"text": "hi"}), text_step("Done."))
    code, err = await run(model, (FAKE,), allow_mcp=["fake"])
    assert code == 0, err
    assert len(step_refs(project_dir)) == 1


async def test_a_read_only_mcp_call_takes_no_checkpoint(project_dir: Path) -> None:
    git(project_dir, "init", "-q")
    (project_dir / "notes.txt").write_text("one\n")
    model = ScriptedModel(tool_step("c1", "mcp__fake__lookup", {"word": "x"}), text_step("Done."))
    code, err = await run(model, (FAKE,), allow_mcp=["fake"])
    assert code == 0, err
    assert step_refs(project_dir) == []
