"""Subagents on screen: the child's rows under its task row, its dialog naming it, and its block
again after resume."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_subagents import task
from tests.ui_helpers import blocks_of, dialog_armed, idle, make_app, ready_app, screen_text, submit, wait_for
from zett_tui.entry.startup import find_session_to_resume
from zett_tui.ui.widgets.task_block import TaskBlock


async def test_the_child_rows_show_under_the_task_and_collapse_and_come_back_on_resume(
    project_dir: Path,
) -> None:
    (project_dir / "notes.txt").write_text("the answer is 42\n")
    model = ScriptedModel(
        task("t1", "Find the answer", kind="explore", description="find the answer"),
        tool_step("r1", "read_file", {"path": "notes.txt"}),
        text_step("It is 42."),
        text_step("The child says 42."),
    )
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        await submit(pilot, "ask a child")
        await wait_for(pilot, lambda: idle(app))
        [block] = blocks_of(app, TaskBlock)
        assert block.state == "done"
        assert [(row.name, row.key_arg, row.state) for row in block.rows] == [
            ("read_file", "notes.txt", "done")
        ]
        assert "explore · find the answer" in block.key_arg and "1 tool" in block.key_arg
        text = screen_text(app)
        assert "explore · find the answer" in text
        assert "│ ✓ read_file" not in text  # done: one line
        assert "read_file  notes.txt" in block.search_text()  # Ctrl+F finds the child's rows
        block.toggle()
        app.screen.transcript.refresh_block(block)
        await wait_for(pilot, lambda: "read_file  notes.txt" in screen_text(app))
        session_id = app.screen.host.session_id

    found = find_session_to_resume(project_dir, session_id, continue_last=False)
    resumed = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(resumed, size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: bool(blocks_of(resumed, TaskBlock)))
        [past] = blocks_of(resumed, TaskBlock)
        assert past.state == "done" and past.agent_type == "explore"
        assert [(row.name, row.key_arg, row.state) for row in past.rows] == [
            ("read_file", "notes.txt", "done")
        ]
        assert "It is 42." in past.plain_text()


async def test_a_child_write_opens_the_edit_dialog_naming_the_child(project_dir: Path) -> None:
    target = project_dir / "app.py"
    target.write_text("x = 1\n")
    model = ScriptedModel(
        task("t1", "Set x to 2", description="bump x"),
        tool_step("w1", "write_file", {"path": "app.py", "content": "x = 2\n"}),
        text_step("Refused by the user."),
        text_step("The child was refused."),
    )
    app = make_app(model)
    async with ready_app(app, size=(110, 34)) as pilot:
        await submit(pilot, "change it")
        dialog = await dialog_armed(pilot)
        assert "Subagent general: bump x asks" in screen_text(app)
        [block] = blocks_of(app, TaskBlock)
        assert [(row.name, row.state) for row in block.rows] == [("write_file", "waiting")]
        assert block.state == "waiting"  # the task's row waits for the user with it
        dialog.action_decline()
        await wait_for(pilot, lambda: idle(app))
        assert target.read_text() == "x = 1\n"
        assert [(row.name, row.state) for row in block.rows] == [("write_file", "declined")]
        assert block.state == "done"
        assert "(subagent general: bump x)" in screen_text(app)


async def test_esc_stops_two_children_and_their_commands_within_a_second(project_dir: Path) -> None:
    import time

    from tests.fakes.host import live_processes_mentioning
    from tests.fakes.scripted_model import tools_step
    from tests.test_subagents import RoutedModel
    from zett_tui.runtime.modes import PermissionMode

    marker = "zett-screen-child-sleep-5519"
    calls = [
        ("t1", "task", {"description": "one", "prompt": "job one"}),
        ("t2", "task", {"description": "two", "prompt": "job two"}),
    ]
    model = RoutedModel(
        [tools_step(calls)],
        {
            "job one": [tool_step("b1", "bash", {"command": f"sleep 30 # {marker}-1"})],
            "job two": [tool_step("b2", "bash", {"command": f"sleep 30 # {marker}-2"})],
        },
    )
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})  # type: ignore[arg-type]
    async with ready_app(app, size=(110, 30)) as pilot:
        await submit(pilot, "two jobs")
        await wait_for(pilot, lambda: len(live_processes_mentioning(marker)) >= 2, timeout=15)
        # a command can be running before its row has come through the screen's message queue
        await wait_for(pilot, lambda: all(block.rows for block in blocks_of(app, TaskBlock)))
        blocks = blocks_of(app, TaskBlock)
        assert len(blocks) == 2
        pressed = time.monotonic()
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app), timeout=5)
        assert time.monotonic() - pressed < 1.0
        await wait_for(pilot, lambda: not live_processes_mentioning(marker), timeout=3)
        assert all(block.state == "cancelled" for block in blocks)


async def test_two_childrens_questions_about_calls_of_one_id_each_mark_their_own_row(
    project_dir: Path,
) -> None:
    """Call ids are unique only within a session: answering one subagent's question must not mark
    the other's row (waiting for its own question, queued behind) as running again."""
    from tests.fakes.scripted_model import tools_step
    from tests.test_subagents import RoutedModel

    calls = [
        ("t1", "task", {"description": "one", "prompt": "job one"}),
        ("t2", "task", {"description": "two", "prompt": "job two"}),
    ]
    model = RoutedModel(
        [tools_step(calls), text_step("both asked")],
        {
            "job one": [tool_step("c1", "write_file", {"path": "one.txt", "content": "1\n"}), text_step("1")],
            "job two": [tool_step("c1", "write_file", {"path": "two.txt", "content": "2\n"}), text_step("2")],
        },
    )
    app = make_app(model)
    async with ready_app(app, size=(110, 34)) as pilot:
        await submit(pilot, "two jobs")
        first = await dialog_armed(pilot)
        blocks = {block.description: block for block in blocks_of(app, TaskBlock)}
        await wait_for(pilot, lambda: all(block.rows for block in blocks.values()))
        await wait_for(pilot, lambda: all(block.rows[0].state == "waiting" for block in blocks.values()))
        asked = "one" if "Subagent general: one asks" in screen_text(app) else "two"
        other = "two" if asked == "one" else "one"
        first.action_decline()
        second = await dialog_armed(pilot)
        assert second is not first and f"Subagent general: {other} asks" in screen_text(app)
        assert blocks[other].rows[0].state == "waiting" and blocks[other].state == "waiting"
        second.action_decline()
        await wait_for(pilot, lambda: idle(app))
        assert [blocks[name].rows[0].state for name in ("one", "two")] == ["declined", "declined"]
        assert not (project_dir / "one.txt").exists() and not (project_dir / "two.txt").exists()


async def test_agents_lists_the_kinds_and_where_each_came_from(project_dir: Path) -> None:
    from zett_tui.core import paths

    folder = paths.config_dir() / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reviewer.md").write_text("---\ndescription: Reviews diffs\ntools: Read, Grep\n---\nReview.\n")
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.screen.host is not None and app.screen.host.ready)
        await submit(pilot, "/agents")
        await wait_for(pilot, lambda: "Subagents (the model" in screen_text(app))
        text = screen_text(app)
        assert "general" in text and "explore" in text and "reviewer" in text
        assert "from built-in" in text and f"from user: {folder / 'reviewer.md'}" in text
        assert "tools: reads only" in text


async def test_todo_clear_empties_the_checklist(project_dir: Path) -> None:
    from tests.test_todo import THREE

    model = ScriptedModel(tool_step("t1", "todo_write", {"todos": THREE}), text_step("ok"))
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        await submit(pilot, "plan it")
        await wait_for(pilot, lambda: idle(app))
        host = app.screen.host
        assert len(host.todos.items) == 3
        await submit(pilot, "/todo")
        await wait_for(pilot, lambda: "Checklist: 3 tasks" in screen_text(app))
        await submit(pilot, "/todo clear")
        await wait_for(pilot, lambda: host.todos.items == ())


async def test_ctrl_f_finds_a_subagent_row_in_a_folded_block_and_opens_it(project_dir: Path) -> None:
    from tests.test_find import SIZE, bar, open_and_type, settle

    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        block = transcript.add(TaskBlock("t1", "task", "look around", "explore"))
        block.child_tools_started([("r1", "read_file", "zebra_notes.txt"), ("g1", "grep", "TODO")])
        block.child_tool_finished("r1", "done")
        block.child_tool_finished("g1", "done")
        block.child_finished("completed", 1200)
        block.finish("done", "The report.", 2.0)
        await settle(pilot)
        assert not block.expanded and "zebra_notes" not in screen_text(app)
        await open_and_type(pilot, "zebra_notes")
        assert bar(app).label == "1 of 1"
        assert block.expanded
        assert "zebra_notes.txt" in screen_text(app)


async def test_the_child_text_streams_under_its_rows_while_it_runs(project_dir: Path) -> None:
    import asyncio

    gate = asyncio.Event()
    model = ScriptedModel(
        task("t1", "Think aloud", description="think"),
        text_step("Looking at the parser first, then the lexer.", chunk=24, gate=gate),
        text_step("The child thought."),
    )
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        await submit(pilot, "delegate")
        await wait_for(pilot, lambda: "✎ Looking at the parser" in screen_text(app))
        [block] = blocks_of(app, TaskBlock)
        assert block.state == "running"
        gate.set()
        await wait_for(pilot, lambda: idle(app))
        assert block.state == "done" and "✎" not in screen_text(app)  # done: one line again


async def test_the_shell_dialog_of_explore_says_read_only_and_offers_no_network(project_dir: Path) -> None:
    model = ScriptedModel(
        task("t1", "Look at the history", kind="explore", description="history"),
        tool_step("b1", "bash", {"command": "git log --oneline"}),
        text_step("No history."),
        text_step("Done."),
    )
    app = make_app(model)
    async with ready_app(app, size=(110, 40)) as pilot:
        await submit(pilot, "delegate")
        dialog = await dialog_armed(pilot)
        text = screen_text(app)
        assert "Subagent explore: history asks" in text
        assert "read-only and without network" in text
        assert "network on" not in text.lower() and "with network" not in text.lower()
        dialog.action_decline()
        await wait_for(pilot, lambda: idle(app))


async def test_the_shell_dialog_in_plan_mode_says_the_project_is_read_only(project_dir: Path) -> None:
    """Plan Mode runs an approved command with the project read-only: the dialog says so, not
    "writes only in the project"."""
    from zett_tui.runtime.modes import PermissionMode

    model = ScriptedModel(tool_step("b1", "bash", {"command": "git log --oneline"}), text_step("Done."))
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.PLAN})
    async with ready_app(app, size=(110, 40)) as pilot:
        await submit(pilot, "look")
        dialog = await dialog_armed(pilot)
        text = screen_text(app)
        assert "the project read-only (Plan Mode)" in text
        assert "writes only in the project" not in text
        dialog.action_decline()
        await wait_for(pilot, lambda: idle(app))


async def test_a_subagents_own_subagent_shows_in_its_block_and_ends_nothing_of_it(project_dir: Path) -> None:
    """``max_depth = 2``: the nested subagent's rows join the block, named after its job; its end
    does not end the outer subagent's rows, though its ``task`` call reuses the main call's id."""
    from zett_tui.config.schema import SubagentSettings

    (project_dir / "notes.txt").write_text("the answer is 42\n")
    model = ScriptedModel(
        task("t1", "Delegate the reading", description="outer job"),
        task("t1", "Read notes.txt", description="inner job"),
        tool_step("r1", "read_file", {"path": "notes.txt"}),
        text_step("inner: 42"),
        text_step("outer: 42"),
        text_step("It is 42."),
    )
    app = make_app(model, subagents=SubagentSettings(max_depth=2))
    async with ready_app(app, size=(110, 30)) as pilot:
        await submit(pilot, "ask a child")
        await wait_for(pilot, lambda: idle(app))
        [block] = blocks_of(app, TaskBlock)
        assert block.state == "done" and block.child_status == "completed"
        nested_rows = [
            ("task", "inner job", "done"),
            ("inner job › read_file", "notes.txt", "done"),
        ]
        assert [(row.name, row.key_arg, row.state) for row in block.rows] == nested_rows
        assert "general · outer job" in block.key_arg
        live_tokens = block.tokens
        session_id = app.screen.host.session_id

    found = find_session_to_resume(project_dir, session_id, continue_last=False)
    resumed = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(resumed, size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: bool(blocks_of(resumed, TaskBlock)))
        [past] = blocks_of(resumed, TaskBlock)
        assert [(row.name, row.key_arg, row.state) for row in past.rows] == nested_rows
        assert past.tokens == live_tokens > 0  # the nested subagent's tokens counted in both


async def test_a_resumed_session_marks_only_the_declined_c1_of_the_agent_that_asked(
    project_dir: Path,
) -> None:
    """The main agent's ``c1`` was allowed, its subagent's ``c1`` declined: after resume each row
    says what happened to it (one id, two calls)."""
    from tests.test_dialogs import dialog_closed
    from tests.ui_helpers import tools

    (project_dir / "app.py").write_text("x = 1\n")
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": "echo main-agent-ran"}),
        task("t1", "Set x to 2", description="bump x"),
        tool_step("c1", "write_file", {"path": "app.py", "content": "x = 2\n"}),
        text_step("Refused by the user."),
        text_step("The child was refused."),
    )
    app = make_app(model)
    async with ready_app(app, size=(110, 34)) as pilot:
        await submit(pilot, "run it, then change it")
        first = await dialog_armed(pilot)
        await pilot.press("enter")  # the main agent's c1 runs
        await dialog_closed(pilot, first)
        second = await dialog_armed(pilot)
        assert "Subagent general: bump x asks" in screen_text(app)
        second.action_decline()  # the child's c1 does not
        await wait_for(pilot, lambda: idle(app))
        [live] = [row for row in tools(app) if row.name == "bash"]
        assert live.state == "done"
        session_id = app.screen.host.session_id

    found = find_session_to_resume(project_dir, session_id, continue_last=False)
    resumed = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(resumed, size=(110, 34)) as pilot:
        await wait_for(pilot, lambda: bool(blocks_of(resumed, TaskBlock)))
        [bash] = [row for row in tools(resumed) if row.name == "bash"]
        assert bash.state == "done"
        [past] = blocks_of(resumed, TaskBlock)
        assert [(row.name, row.state) for row in past.rows] == [("write_file", "declined")]
    assert (project_dir / "app.py").read_text() == "x = 1\n"


async def test_a_read_only_subagents_command_is_allowed_only_once_and_the_main_agent_still_asks(
    project_dir: Path,
) -> None:
    """A rule saved while answering ``explore`` would let the main agent, whose commands can
    write, run the same command unasked: its dialog offers no "Always allow", says why, and the
    main agent's own ``ls`` is asked about afterwards (with the rules it may be offered)."""
    from tests.test_dialogs import dialog_closed, host_of, open_dialog, shown

    model = ScriptedModel(
        task("t1", "List the files", kind="explore", description="list"),
        tool_step("c1", "bash", {"command": "ls"}),
        text_step("Listed."),
        tool_step("c2", "bash", {"command": "ls"}),
        text_step("Done."),
    )
    app = make_app(model)
    async with ready_app(app, size=(160, 45)) as pilot:
        await submit(pilot, "look around")
        child = await open_dialog(pilot)
        text = shown(app)
        assert "Subagent explore: list asks" in text
        assert "1. Run once" in text and "2. Don't run…" in text
        assert "Always allow" not in text and "3." not in text
        assert "only this once: a rule made here would let the main agent run it" in " ".join(text.split())
        await pilot.press("enter")
        await dialog_closed(pilot, child)
        main = await open_dialog(pilot)  # the main agent's ls still asks
        text = shown(app)
        assert "Subagent" not in text and "2. Always allow…" in text and "only this once" not in text
        await pilot.press("2")  # what a rule would allow: every agent's command, from now on
        assert "from now on, in this project (the main agent and its subagents)" in shown(app)
        await pilot.press("escape", "1")  # back, and run it once
        await dialog_closed(pilot, main)
        await wait_for(pilot, lambda: idle(app))
        assert host_of(app).shell_rules.rules() == []


def test_a_rule_answered_for_a_read_only_subagent_runs_once_and_saves_nothing(project_dir: Path) -> None:
    """The dialog offers no rule there; an answer carrying one anyway (another front end, a
    changed dialog) still allows only this run."""
    from types import SimpleNamespace

    from zett_tui.runtime.decisions import ShellReply, ShellRequest
    from zett_tui.runtime.shell.policy import Rule
    from zett_tui.ui.chat.answers import shell_approval
    from zett_tui.ui.modals.choice_dialog import Picked

    host = SimpleNamespace(
        subagents=SimpleNamespace(reads_only=lambda session_id: session_id == "explore-session"),
        shell_policy=None,
        shell_sandbox=None,
        plan_active=lambda session_id: False,
    )
    request = ShellRequest("explore-session", "c1", "ls")
    _screen, answer = shell_approval(request, host, project_dir)  # type: ignore[arg-type]
    given = answer(Picked(Rule("prefix", "ls")))
    assert given.reply == ShellReply("c1", run=True) and given.accepted is None
    assert "from now on" not in given.record
    _screen, answer = shell_approval(ShellRequest("main", "c1", "ls"), host, project_dir)  # type: ignore[arg-type]
    assert answer(Picked(Rule("prefix", "ls"))).accepted is not None  # the main agent's may save one
