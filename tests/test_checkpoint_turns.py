"""Checkpoints around real turns: a scripted model edits, creates, and runs rm, mv and sed -i."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_checkpoint_store import git, tree_digest
from zett_tui.runtime.host import AgentHost
from zett_tui.runtime.modes import PermissionMode


def make_project(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "main.py").write_text("print('one')\n")
    (project / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    (project / "tool.sh").chmod(0o755)
    (project / "old.txt").write_text("old name\n")
    (project / "doomed.txt").write_text("to be removed\n")
    (project / "sed.txt").write_text("alpha\nbeta\n")


def agent_turn() -> list:
    """One turn of every kind of change: an edit, a new file, rm, mv, sed -i."""
    edit = {"path": "src/main.py", "edits": [{"old_text": "one", "new_text": "two"}]}
    return [
        tool_step("e1", "edit", edit),
        tool_step("w1", "write_file", {"path": "created.txt", "content": "new\n"}),
        tool_step(
            "b1", "bash", {"command": "rm doomed.txt && mv old.txt new.txt && sed -i s/beta/gamma/ sed.txt"}
        ),
        tool_step("b2", "bash", {"command": "chmod -x tool.sh"}),
        text_step("All done."),
    ]


def session_lines(host: AgentHost) -> list[dict]:
    assert host.recorder is not None
    path = host.recorder.session_path(host.session_id)
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_turn_records_what_it_changed_however_it_changed_it(
    project_dir: Path, hosts: HostFactory
) -> None:
    make_project(project_dir)
    git(project_dir, "init", "-q")
    dot_git = tree_digest(project_dir / ".git")
    host = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    finished = await host.run_turn("change things", Collector())
    assert finished.status == "completed"
    assert host.checkpoints is not None
    [record] = host.checkpoints.records()
    assert record.prompt == "change things" and record.before and record.after and record.missing is None
    changed = {path: (added, removed, status) for path, added, removed, status in record.changes}
    assert set(changed) == {
        "src/main.py",
        "created.txt",
        "doomed.txt",
        "old.txt",
        "new.txt",
        "sed.txt",
        "tool.sh",
    }
    assert changed["created.txt"] == (1, 0, "A") and changed["doomed.txt"] == (0, 1, "D")
    [line] = session_lines(host)
    noted = line["metadata"]["zett"]["checkpoint"]
    assert noted["before"] == record.before and noted["files"] == 7
    assert tree_digest(project_dir / ".git") == dot_git


async def test_without_git_checkpoints_say_so_once_and_the_turn_goes_on(
    project_dir: Path, hosts: HostFactory, monkeypatch
) -> None:
    import zett_tui.checkpoints.git_env as git_env

    monkeypatch.setattr(git_env, "git_path", lambda: None)
    make_project(project_dir)
    model = ScriptedModel(*agent_turn(), text_step("again"))
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    sink = Collector()
    assert (await host.run_turn("change things", sink)).status == "completed"
    assert (await host.run_turn("more", sink)).status == "completed"
    said = [event.text for event in sink.events if "git is not installed" in getattr(event, "text", "")]
    assert len(said) == 1
    assert host.checkpoints is not None
    assert [r.missing is not None for r in host.checkpoints.records()] == [True, True]
    assert (project_dir / "new.txt").exists()


async def test_the_first_checkpoint_does_not_hold_up_the_answer(
    project_dir: Path, hosts: HostFactory, monkeypatch
) -> None:
    import asyncio
    import threading

    from zett_tui.checkpoints import store as store_module

    release = threading.Event()
    real_take = store_module.CheckpointStore.take

    def slow_take(self, ref, message="checkpoint"):
        if ref.endswith("/before"):
            release.wait(10)
        return real_take(self, ref, message)

    monkeypatch.setattr(store_module.CheckpointStore, "take", slow_take)
    make_project(project_dir)
    host = await hosts(ScriptedModel(text_step("streamed meanwhile")), permission_mode=PermissionMode.AUTO)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("hi", sink))
    for _ in range(200):
        if sink.text == "streamed meanwhile":
            break
        await asyncio.sleep(0.02)
    assert sink.text == "streamed meanwhile" and not task.done()
    release.set()
    assert (await asyncio.wait_for(task, 10)).status == "completed"
    assert os.path.exists(project_dir / "src" / "main.py")
