"""Shell and edit approvals through the real app: run once, always allow by a saved rule, refuse with
a note; apply, refuse (the file untouched), apply for the rest of the session; Plan Mode refusing."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, Step, last_tool_result, text_step, tool_step, tools_step
from tests.test_dialogs import dialog_closed, fill, focused_id, host_of, open_dialog, shown, user_texts
from tests.ui_helpers import idle, make_app, notices, ready_app, submit, tools, wait_for
from zett_tui.runtime.extensions.loader import load_bundled
from zett_tui.runtime.shell.policy import Rule, ShellRules
from zett_tui.ui.modals.choice_dialog import ChoiceDialog
from zett_tui.ui.modals.diff_view import DiffLine, parse_unified_diff

# -- shell ----------------------------------------------------------------------------------------


async def test_run_once_shows_the_command_where_and_how_long(project_dir: Path) -> None:
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": "echo once > once.txt", "timeout_seconds": 90}),
        text_step("Done."),
    )
    app = make_app(model)
    async with ready_app(app, size=(160, 45)) as pilot:
        await submit(pilot, "run it")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "echo once > once.txt" in text and str(project_dir) in text and "stops after 90s" in text
        assert "1. Run once" in text and "2. Always allow…" in text and "3. Don't run…" in text
        assert focused_id(dialog) == "choice-1"
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "once.txt").read_text() == "once\n"
        assert host_of(app).shell_rules.rules() == []


async def test_a_command_with_a_redirection_can_only_be_allowed_exactly(project_dir: Path) -> None:
    command = "echo first >> log.txt"
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": command}),
        tool_step("c2", "bash", {"command": command}),
        text_step("Both ran."),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "log twice")
        dialog = await open_dialog(pilot)
        await pilot.press("2")  # Always allow…: which rule
        text = shown(app)
        assert f"1. Exactly this command: {command}" in text and "2. Any command" not in text
        await pilot.press("escape")  # back to the first step
        assert focused_id(dialog) == "choice-2"
        await pilot.press("enter", "enter")  # Always allow… → exactly this command → its field
        assert focused_id(dialog) == "note-input"
        await pilot.press("enter")  # saved as it is
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "log.txt").read_text() == "first\nfirst\n"
        assert any(f"allowed by rule: exact `{command}`" in text for text in notices(app))
    assert ShellRules(project_dir).rules() == [Rule("exact", command)]


async def test_a_prefix_rule_edited_before_saving_is_used_for_the_next_command(project_dir: Path) -> None:
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": "echo hello world"}),
        tool_step("c2", "bash", {"command": "echo hello again"}),
        tool_step("c3", "bash", {"command": "echo other"}),
        text_step("Done."),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "greet")
        dialog = await open_dialog(pilot)
        await pilot.press("2")
        text = shown(app)
        assert "1. Exactly this command: echo hello world" in text
        assert "2. Any command that starts with: echo" in text
        await pilot.press("2")  # the prefix: the field opens with it, editable
        field = dialog.query_one("#note-input")
        assert field.value == "echo"
        await fill(pilot, "#note-input", "echo hello && rm x")
        await pilot.press("enter")
        assert "A prefix must be plain words of one command" in shown(app)  # refused, still open
        await fill(pilot, "#note-input", "echo hello")
        await pilot.press("enter")
        await dialog_closed(pilot, dialog)
        # "echo hello again" matches the saved rule and runs without a dialog; "echo other" asks.
        third = await open_dialog(pilot)
        assert "echo other" in shown(app)
        await pilot.press("enter")
        await dialog_closed(pilot, third)
        await wait_for(pilot, lambda: idle(app))
        assert [row.state for row in tools(app)] == ["done", "done", "done"]
        assert "hello again" in last_tool_result(model.requests[2])
        texts = notices(app)
        assert any("from now on without asking: commands that start with `echo hello`" in t for t in texts)
        assert any("Ran without asking: allowed by rule: prefix `echo hello`" in t for t in texts)
    # Saved for the project: a new reader of the rules file sees it.
    assert ShellRules(project_dir).rules() == [Rule("prefix", "echo hello")]


async def test_refusing_a_command_with_a_note_tells_the_model(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch nope.txt"}), text_step("Understood."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "touch it")
        dialog = await open_dialog(pilot)
        await pilot.press("3")
        await fill(pilot, "#note-input", "use the tmp folder instead")
        await pilot.press("enter")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        after = model.requests[1]
        assert "aborted by user" in last_tool_result(after)
        assert any("use the tmp folder instead" in text for text in user_texts(after))
        assert not (project_dir / "nope.txt").exists()
        assert "✗ You refused: touch nope.txt" in notices(app)
        # the note is shown once, where it went into the turn
        shown_texts = [block.plain_text() for block in app.chat.transcript.blocks]
        assert sum("use the tmp folder instead" in text for text in shown_texts) == 1


async def test_a_dangerous_command_warns_and_offers_no_rule(project_dir: Path) -> None:
    (project_dir / "build").mkdir()
    model = ScriptedModel(tool_step("c1", "bash", {"command": "rm -rf build"}), text_step("Kept it."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "clean")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "Dangerous: deletes recursively" in text
        assert "Always allow" not in text
        assert dialog.has_class("-warning")
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "build").is_dir()


# -- edits ----------------------------------------------------------------------------------------

ORIGINAL = b"alpha\nbeta\ngamma\n"


def edit_call(call_id: str, old: str, new: str) -> Step:
    return tool_step(call_id, "edit", {"path": "notes.txt", "edits": [{"old_text": old, "new_text": new}]})


async def test_an_edit_shows_its_diff_and_applies(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_bytes(ORIGINAL)
    model = ScriptedModel(edit_call("e1", "beta\n", "BETA\n"), text_step("Edited."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "shout beta")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "Apply this edit to notes.txt?" in text and "+1 −1" in text
        assert "1 1   alpha" in text and "2   - beta" in text and "  2 + BETA" in text
        assert focused_id(dialog) == "choice-1"
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "notes.txt").read_bytes() == b"alpha\nBETA\ngamma\n"
        assert any("You applied: edit notes.txt (+1 −1)" in text for text in notices(app))


async def test_a_refused_edit_leaves_the_file_as_it_was_and_the_note_reaches_the_model(
    project_dir: Path,
) -> None:
    (project_dir / "notes.txt").write_bytes(ORIGINAL)
    model = ScriptedModel(edit_call("e1", "beta\n", "BETA\n"), text_step("Left it."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "shout beta")
        dialog = await open_dialog(pilot)
        await pilot.press("3")
        await fill(pilot, "#note-input", "keep it lowercase")
        await pilot.press("enter")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "notes.txt").read_bytes() == ORIGINAL
        result = last_tool_result(model.requests[1])
        assert "did not apply this edit" in result and "Their note: keep it lowercase" in result
        assert tools(app)[0].state == "declined"


async def test_apply_all_stops_asking_for_the_rest_of_the_session(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_bytes(ORIGINAL)
    model = ScriptedModel(
        edit_call("e1", "alpha\n", "ALPHA\n"), edit_call("e2", "gamma\n", "GAMMA\n"), text_step("Both.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "shout")
        dialog = await open_dialog(pilot)
        await pilot.press("2")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert not isinstance(app.screen, ChoiceDialog)
        assert (project_dir / "notes.txt").read_bytes() == b"ALPHA\nbeta\nGAMMA\n"
        assert [row.state for row in tools(app)] == ["done", "done"]


async def test_a_write_outside_the_project_warns(project_dir: Path) -> None:
    outside = project_dir.parent / "outside.txt"
    model = ScriptedModel(
        tool_step("w1", "write_file", {"path": str(outside), "content": "x\n"}), text_step("Not written.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "write outside")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "Create" in text and "Outside the project folder" in text
        assert dialog.has_class("-warning")
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert not outside.exists()


async def test_plan_mode_refuses_a_write_without_asking(project_dir: Path) -> None:
    model = ScriptedModel(
        tool_step("w1", "write_file", {"path": "src.py", "content": "print(1)\n"}),
        text_step("I will plan first."),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "/plan on")
        await submit(pilot, "write it")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 2)
        assert not isinstance(app.screen, ChoiceDialog)
        assert "Plan Mode is read-only" in last_tool_result(model.requests[1])
        assert not (project_dir / "src.py").exists()
        assert tools(app)[0].state == "refused"  # by Plan Mode, without asking


async def test_a_rule_saved_for_one_command_also_runs_the_queued_one(project_dir: Path) -> None:
    calls = [("a", "bash", {"command": "echo one"}), ("b", "bash", {"command": "echo two"})]
    model = ScriptedModel(tools_step(calls), text_step("Both ran."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "two at once")
        dialog = await open_dialog(pilot)
        await wait_for(pilot, lambda: len(app.chat.dialogs.pending) == 1)
        await pilot.press("2", "2", "enter")  # Always allow… → starts with `echo` → saved as offered
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert [row.state for row in tools(app)] == ["done", "done"]
        assert any("Ran without asking: echo two (allowed by rule: prefix `echo`)" in t for t in notices(app))
        # One line per answer: neither the one you gave nor the rule's is said again when it ends.
        assert sum("Ran without asking" in t for t in notices(app)) == 1, notices(app)


def test_diff_lines_carry_old_and_new_line_numbers() -> None:
    unified_diff = load_bundled("edit_approval", "unified_diff")  # the diff the edit gate sends
    old = "".join(f"line {n}\n" for n in range(1, 11))
    new = old.replace("line 5\n", "five\n")
    diff, added, removed = unified_diff("f.txt", old, new)
    lines = parse_unified_diff(diff)
    assert (added, removed) == (1, 1)
    assert lines[0] == DiffLine("hunk", "line 2")
    assert DiffLine("removed", "line 5", old=5) in lines and DiffLine("added", "five", new=5) in lines
    assert DiffLine("context", "line 6", old=6, new=6) in lines

    created = parse_unified_diff(unified_diff("n.txt", None, "a\nb")[0])
    assert [(line.kind, line.new) for line in created if line.kind != "hunk"] == [
        ("added", 1),
        ("added", 2),
        ("note", None),
    ]
    deleted = parse_unified_diff(unified_diff("d.txt", "a\nb\n", None)[0])
    assert [(line.kind, line.old) for line in deleted if line.kind != "hunk"] == [
        ("removed", 1),
        ("removed", 2),
    ]
