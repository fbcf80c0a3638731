"""Checkpoints around real turns: a scripted model edits, creates, and runs rm, mv and sed -i."""

from __future__ import annotations

import asyncio
import contextlib
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


def request_texts(request) -> str:
    """Everything the model was sent in one request, as text."""
    return "\n".join(str(getattr(message, "content", "")) for message in request.messages)


async def rewind_everything(host: AgentHost, index: int = 0, take: tuple[str, ...] = ()):
    assert host.checkpoints is not None
    target = host.checkpoints.records()[index]
    plan = await host.checkpoints.plan_rewind(target)
    outcome = await host.checkpoints.rewind(target, plan=plan, take_checkpoints=take, conversation=True)
    return plan, outcome


async def test_rewind_puts_back_every_file_and_the_conversation_forgets_the_turn(
    project_dir: Path, hosts: HostFactory
) -> None:
    make_project(project_dir)
    git(project_dir, "init", "-q")
    (project_dir / "untouched.txt").write_text("mine\n")
    before = tree_digest(project_dir)
    model = ScriptedModel(text_step("hello"), *agent_turn(), text_step("fresh start"))
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    await host.run_turn("say hello", Collector())
    await host.run_turn("change things", Collector())
    (project_dir / "untouched.txt").write_text("mine, edited by hand\n")
    plan, outcome = await rewind_everything(host, index=1)
    assert plan.conflicts == []
    assert outcome.report is not None and not outcome.report.problems
    assert outcome.prompt == "change things"
    (project_dir / "untouched.txt").write_text("mine\n")
    assert tree_digest(project_dir) == before  # bytes, modes, the created file gone, .git unchanged
    await host.run_turn("something else", Collector())
    sent = request_texts(model.requests[-1])
    assert "say hello" in sent and "change things" not in sent and "All done." not in sent


async def test_a_file_changed_by_hand_after_the_agent_is_asked_about(
    project_dir: Path, hosts: HostFactory
) -> None:
    make_project(project_dir)  # not a git repository
    host = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    await host.run_turn("change things", Collector())
    (project_dir / "sed.txt").write_text("my own fix\n")
    plan, outcome = await rewind_everything(host)
    assert plan.conflicts == ["sed.txt"]
    assert (project_dir / "sed.txt").read_text() == "my own fix\n"  # kept: not chosen
    assert outcome.kept == ["sed.txt"]
    assert (project_dir / "src" / "main.py").read_text() == "print('one')\n"
    assert not (project_dir / "created.txt").exists()


async def test_taking_the_checkpoints_version_of_a_conflict(project_dir: Path, hosts: HostFactory) -> None:
    make_project(project_dir)
    host = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    await host.run_turn("change things", Collector())
    (project_dir / "sed.txt").write_text("my own fix\n")
    await rewind_everything(host, take=("sed.txt",))
    assert (project_dir / "sed.txt").read_text() == "alpha\nbeta\n"


async def test_a_rewind_can_be_undone(project_dir: Path, hosts: HostFactory) -> None:
    make_project(project_dir)
    host = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    await host.run_turn("change things", Collector())
    after_turn = tree_digest(project_dir)
    await rewind_everything(host)
    assert tree_digest(project_dir) != after_turn
    assert host.checkpoints is not None
    records = host.checkpoints.records()
    assert [r.kind for r in records] == ["turn", "rewind"]
    target = records[1]
    plan = await host.checkpoints.plan_rewind(target)
    await host.checkpoints.rewind(target, plan=plan, conversation=False)
    assert tree_digest(project_dir) == after_turn


async def test_a_resumed_session_can_be_rewound(project_dir: Path, hosts: HostFactory) -> None:
    make_project(project_dir)
    before = tree_digest(project_dir)
    first = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    await first.run_turn("change things", Collector())
    await first.aclose()
    model = ScriptedModel(text_step("later"))
    again = await hosts(model, session_id=first.session_id, permission_mode=PermissionMode.AUTO)
    await rewind_everything(again)
    assert tree_digest(project_dir) == before
    await again.run_turn("next", Collector())
    assert "change things" not in request_texts(model.requests[-1])


async def test_files_the_agent_never_touched_are_never_touched(project_dir: Path, hosts: HostFactory) -> None:
    make_project(project_dir)
    host = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    await host.run_turn("change things", Collector())
    (project_dir / "later.txt").write_text("made by the user after the turn\n")
    await rewind_everything(host)
    assert (project_dir / "later.txt").read_text() == "made by the user after the turn\n"


async def test_a_turn_that_changed_files_ends_with_a_compact_line(
    project_dir: Path, hosts: HostFactory
) -> None:
    from zett_tui.runtime.events import Notice

    make_project(project_dir)
    host = await hosts(
        ScriptedModel(*agent_turn(), text_step("nothing changed")), permission_mode=PermissionMode.AUTO
    )
    sink = Collector()
    await host.run_turn("change things", sink)
    lines = [event.text for event in sink.of(Notice) if "changed" in event.text]
    assert lines == ["7 files changed, +4 -4 (/diff shows them, /rewind takes them back)"]
    quiet = Collector()
    await host.run_turn("just talk", quiet)
    assert not [event for event in quiet.of(Notice) if "files changed" in event.text]


async def test_removing_a_session_drops_its_checkpoints_and_keeps_the_others(
    project_dir: Path, hosts: HostFactory
) -> None:
    import asyncio
    import io

    from zett_tui.sessions.cli import remove_session

    make_project(project_dir)
    gone = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    await gone.run_turn("change things", Collector())
    await gone.aclose()
    kept = await hosts(ScriptedModel(text_step("hi")), permission_mode=PermissionMode.AUTO)
    await kept.run_turn("hello", Collector())
    await kept.aclose()
    assert gone.checkpoints is not None and kept.checkpoints is not None
    store = gone.checkpoints.store
    assert store.refs(gone.checkpoints.key) and store.refs(kept.checkpoints.key)
    out, err = io.StringIO(), io.StringIO()
    code = await asyncio.to_thread(remove_session, gone.session_id, out, err, True)
    assert code == 0, err.getvalue()
    assert "checkpoints" in out.getvalue()
    assert store.refs(gone.checkpoints.key) == {} and not gone.checkpoints.journal.path.exists()
    assert store.refs(kept.checkpoints.key) and kept.checkpoints.records()


async def test_a_full_disk_while_recording_is_one_line_and_the_checkpoint_is_shown_missing(
    project_dir: Path, hosts: HostFactory, monkeypatch
) -> None:
    import errno

    from zett_tui.checkpoints import store as store_module
    from zett_tui.runtime.events import Notice

    def full(self, ref, message="checkpoint"):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module.CheckpointStore, "take", full)
    make_project(project_dir)
    host = await hosts(ScriptedModel(*agent_turn()), permission_mode=PermissionMode.AUTO)
    sink = Collector()
    assert (await host.run_turn("change things", sink)).status == "completed"
    lines = [e.text for e in sink.of(Notice) if "checkpoint" in e.text.lower()]
    assert lines == ["A checkpoint could not be taken (No space left on device); the turn goes on."]
    assert host.checkpoints is not None
    [record] = host.checkpoints.records()
    assert record.missing and record.before is None
    assert (project_dir / "new.txt").exists()
    from zett_tui.checkpoints.rewind import RewindRefused

    monkeypatch.undo()
    try:
        await host.checkpoints.plan_rewind(record)
    except RewindRefused as error:
        assert "missing" in str(error)
    else:
        raise AssertionError("a rewind over a missing checkpoint was not refused")


async def test_a_project_deleted_during_the_session_is_one_line(
    project_dir: Path, hosts: HostFactory
) -> None:
    import shutil

    from zett_tui.runtime.events import Notice

    make_project(project_dir)
    host = await hosts(ScriptedModel(text_step("one"), text_step("two")), permission_mode=PermissionMode.AUTO)
    await host.run_turn("first", Collector())
    elsewhere = project_dir.parent / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    shutil.rmtree(project_dir)
    sink = Collector()
    assert (await host.run_turn("second", sink)).status == "completed"
    assert [e.text for e in sink.of(Notice) if "checkpoint" in e.text.lower()] == [
        f"No checkpoint: the project folder {project_dir} is gone."
    ]


async def test_a_print_mode_session_can_be_rewound_later(project_dir: Path, hosts: HostFactory) -> None:
    import io

    from tests.test_headless import recorded_turns
    from zett_tui.entry.headless import run_headless
    from zett_tui.entry.launch import LaunchSettings

    make_project(project_dir)
    before = tree_digest(project_dir)
    model = ScriptedModel(
        tool_step("b1", "bash", {"command": "rm doomed.txt"}),
        tool_step("b2", "bash", {"command": "mv old.txt new.txt"}),
        text_step("Tidied."),
    )
    launch = LaunchSettings(model_label="scripted", model_factory=lambda: model, cwd=project_dir)
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(
        launch, "tidy up", out=out, err=err, handle_signals=False, allow_shell=["rm", "mv"]
    )
    assert code == 0, err.getvalue()
    assert "files changed" not in err.getvalue()
    assert not (project_dir / "doomed.txt").exists()
    [turn] = recorded_turns()
    assert turn["metadata"]["zett"]["checkpoint"]["files"] == 3
    later = ScriptedModel(text_step("back"))
    host = await hosts(later, session_id=turn["session_id"], permission_mode=PermissionMode.AUTO)
    await rewind_everything(host)
    assert tree_digest(project_dir) == before
    await host.run_turn("what now", Collector())
    assert "tidy up" not in request_texts(later.requests[-1])


async def test_a_cancelled_turn_is_recorded_and_the_next_turn_keeps_its_own(
    project_dir: Path, hosts: HostFactory
) -> None:
    import asyncio

    make_project(project_dir)
    gate = asyncio.Event()

    async def stalls(request):  # type: ignore[no-untyped-def]
        from zett_agent.model import ModelEvent

        yield ModelEvent.text("thinking")
        await gate.wait()

    host = await hosts(ScriptedModel(stalls, text_step("second")), permission_mode=PermissionMode.AUTO)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("stalls", sink))
    for _ in range(200):
        if sink.text:
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert (await host.run_turn("second turn", Collector())).status == "completed"
    assert host.checkpoints is not None
    for _ in range(200):
        if len(host.checkpoints.records()) == 2:
            break
        await asyncio.sleep(0.02)
    assert sorted(r.prompt for r in host.checkpoints.records()) == ["second turn", "stalls"]
    assert all(r.before and r.after for r in host.checkpoints.records())
    assert [line["status"] for line in session_lines(host)] == ["cancelled", "completed"]


async def test_two_sessions_on_one_project_a_rewind_asks_before_undoing_the_others_change(
    project_dir: Path, hosts: HostFactory
) -> None:
    """Session A's turn runs while session B (another zett on the project) changes a file: A's
    record holds B's change too (it is what changed between A's checkpoints), so rewinding A asks
    about that file instead of undoing B's work; A's own change goes back."""
    from tests.fakes.host import wait_until

    (project_dir / "a.txt").write_text("a before\n")
    (project_dir / "b.txt").write_text("b before\n")
    gate = asyncio.Event()
    model_a = ScriptedModel(
        tool_step("a1", "write_file", {"path": "a.txt", "content": "a by A\n"}),
        text_step("A is done.", gate=gate),
    )
    model_b = ScriptedModel(
        tool_step("b1", "write_file", {"path": "b.txt", "content": "b by B\n"}), text_step("B is done.")
    )
    host_a = await hosts(model_a, permission_mode=PermissionMode.AUTO)
    host_b = await hosts(model_b, permission_mode=PermissionMode.AUTO)
    turn_a = asyncio.ensure_future(host_a.run_turn("A's turn", Collector()))
    await wait_until(lambda: len(model_a.requests) == 2)  # A's edit is done; its answer is streaming
    await host_b.run_turn("B's turn", Collector())
    gate.set()
    await turn_a
    assert host_a.checkpoints is not None
    [record] = host_a.checkpoints.records()
    assert sorted(record.paths) == ["a.txt", "b.txt"]  # what the checkpoints saw: B's change too
    plan, outcome = await rewind_everything(host_a)
    assert plan.restore == ["a.txt"] and plan.conflicts == ["b.txt"] and plan.elsewhere == ["b.txt"]
    assert (project_dir / "a.txt").read_text() == "a before\n"
    assert (project_dir / "b.txt").read_text() == "b by B\n"  # kept: B's, unless the user takes it
    assert outcome.kept == ["b.txt"]


async def test_a_file_changed_outside_zett_between_turns_is_rewound_to_as_it_was_changed(
    project_dir: Path, hosts: HostFactory
) -> None:
    """A turn that changes nothing ends on the checkpoint it began with, and the next turn's first
    checkpoint is the last one again only while no file changed: an edit made by hand between
    turns (right after one, the same size) is what a rewind of the next turn puts back."""
    (project_dir / "agent.txt").write_text("one\n")
    (project_dir / "mine.txt").write_text("draft\n")
    edit_mine = {"path": "mine.txt", "edits": [{"old_text": "DRAFT", "new_text": "final"}]}
    model = ScriptedModel(
        tool_step("e1", "edit", {"path": "agent.txt", "edits": [{"old_text": "one", "new_text": "two"}]}),
        text_step("Edited."),
        text_step("Nothing to change."),
        tool_step("e2", "edit", edit_mine),
        text_step("Finished your draft."),
    )
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    await host.run_turn("edit agent.txt", Collector())
    (project_dir / "mine.txt").write_text("DRAFT\n")  # by hand, between turns
    await host.run_turn("look only", Collector())
    assert host.checkpoints is not None
    looked = host.checkpoints.records()[1]
    assert looked.before == looked.after and looked.changes == []
    await host.run_turn("finish my draft", Collector())
    assert (project_dir / "mine.txt").read_text() == "final\n"
    finished = host.checkpoints.records()[2]
    assert [change[0] for change in finished.changes] == ["mine.txt"]
    plan, outcome = await rewind_everything(host, index=2)
    assert plan.conflicts == [] and outcome.report is not None and not outcome.report.problems
    assert (project_dir / "mine.txt").read_text() == "DRAFT\n"
    assert (project_dir / "agent.txt").read_text() == "two\n"
    await rewind_everything(host, index=0)
    assert (project_dir / "agent.txt").read_text() == "one\n"
