"""``/rewind`` and Esc Esc in the app: choose a turn, choose what to take back, decide the conflicts."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, usage
from tests.ui_helpers import dialog_armed, idle, make_app, notices, ready_app, screen_text, submit, wait_for
from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.modals.choice_dialog import ChoiceDialog


def agent_turn() -> list:
    return [
        tool_step("w1", "write_file", {"path": "created.txt", "content": "new\n"}),
        tool_step("b1", "bash", {"command": "sed -i s/beta/gamma/ notes.txt && rm gone.txt"}),
        text_step("Changed."),
    ]


async def choose(pilot, label: str) -> None:
    """Move to the choice labelled ``label`` with the arrows (safe dialogs take no number keys)."""
    dialog = await dialog_armed(pilot)
    labels = [str(button.label) for button in dialog.query("ChoiceButton")]
    index = next(i for i, text in enumerate(labels) if label in text)
    focused = next(i for i, button in enumerate(dialog.query("ChoiceButton")) if button.has_focus)
    key = "down" if index > focused else "up"
    for _ in range(abs(index - focused)):
        await pilot.press(key)
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.screen is not dialog)


async def test_rewind_from_the_dialog_takes_the_code_and_conversation_back(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("alpha\nbeta\n")
    (project_dir / "gone.txt").write_text("keep me\n")
    model = ScriptedModel(*agent_turn(), text_step("fresh"))
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(app) as pilot:
        await submit(pilot, "change the notes")
        await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        await pilot.press("escape")
        await pilot.press("escape")
        dialog = await dialog_armed(pilot)
        assert "change the notes" in str(dialog.query("ChoiceButton").first().label)
        assert "3 files +" in str(dialog.query("ChoiceButton").first().label)
        await pilot.press("enter")
        what = await dialog_armed(pilot)
        focused = next(b for b in what.query("ChoiceButton") if b.has_focus)
        assert str(focused.label).endswith("Code and conversation")  # the first choice, as elsewhere
        assert "1-9 pick" in str(what.query_one("#keys").render())
        await pilot.press("1")  # number keys pick
        await wait_for(pilot, lambda: app.screen is not what)
        await wait_for(pilot, lambda: any("Code rewound" in text for text in notices(app)))
        assert (project_dir / "notes.txt").read_text() == "alpha\nbeta\n"
        assert (project_dir / "gone.txt").read_text() == "keep me\n"
        assert not (project_dir / "created.txt").exists()
        # put back once the context meter is measured again, after the notice
        await wait_for(pilot, lambda: app.chat.composer.text == "change the notes")
        await submit(pilot, "another go")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 4)
        sent = "\n".join(str(getattr(m, "content", "")) for m in model.requests[-1].messages)
        assert "change the notes" not in sent and "another go" in sent


async def test_a_hand_edit_is_asked_about_and_kept_by_default(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("alpha\nbeta\n")
    (project_dir / "gone.txt").write_text("keep me\n")
    model = ScriptedModel(*agent_turn())
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(app) as pilot:
        await submit(pilot, "change the notes")
        await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        (project_dir / "notes.txt").write_text("my own words\n")
        await submit(pilot, "/rewind")
        await dialog_armed(pilot)
        await pilot.press("enter")
        await choose(pilot, "Code only")
        conflict = await dialog_armed(pilot)
        assert "notes.txt was changed by hand" in str(conflict.query_one("#title").render())
        await choose(pilot, "Show the diff")
        await choose(pilot, "Keep mine")
        await wait_for(pilot, lambda: any("Kept as you changed them: notes.txt" in t for t in notices(app)))
        assert (project_dir / "notes.txt").read_text() == "my own words\n"
        assert (project_dir / "gone.txt").read_text() == "keep me\n"
        assert not isinstance(app.screen, ChoiceDialog)


async def test_diff_shows_the_last_turns_files_in_a_scrollable_view(project_dir: Path) -> None:
    from zett_tui.ui.modals.diff_view import DiffView
    from zett_tui.ui.modals.turn_diff import TurnDiffScreen

    (project_dir / "notes.txt").write_text("alpha\nbeta\n")
    (project_dir / "gone.txt").write_text("keep me\n")
    app = make_app(ScriptedModel(*agent_turn()), host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(app) as pilot:
        await submit(pilot, "change the notes")
        await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        assert any("3 files changed, +2 -2" in text for text in notices(app))
        await submit(pilot, "/diff")
        # the screen first, then its diffs, mounted a moment later
        await wait_for(
            pilot, lambda: isinstance(app.screen, TurnDiffScreen) and bool(app.screen.query(DiffView))
        )
        screen = app.screen
        assert [path for path, _ in screen.files] == ["created.txt", "gone.txt", "notes.txt"]
        assert len(screen.query(DiffView)) == 3
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TurnDiffScreen))
        await submit(pilot, "/diff 5")
        await wait_for(pilot, lambda: any("Usage: /diff" in text for text in notices(app)))


def test_the_turn_list_names_turns_by_number_not_by_a_second_list_number() -> None:
    from zett_tui.checkpoints.journal import TurnRecord
    from zett_tui.ui.modals.rewind_dialogs import describe_record

    record = TurnRecord(
        "turn", "t3", "2026-12-03T08:36:00+00:00", prompt="fix   the\nparser", changes=[["a.py", 2, 1, "M"]]
    )
    line = describe_record(3, record)
    assert line.startswith("turn 3: fix the parser  · ")
    assert line.endswith("· 1 file +2 -1")


async def test_choosing_before_the_rewind_brings_the_conversation_back(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("alpha\nbeta\n")
    (project_dir / "gone.txt").write_text("keep me\n")
    model = ScriptedModel(*agent_turn(), text_step("with it back"))
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(app) as pilot:
        await submit(pilot, "change the notes")
        await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        await submit(pilot, "/rewind")
        await dialog_armed(pilot)
        await pilot.press("enter")
        await choose(pilot, "Conversation only")
        await wait_for(pilot, lambda: any("out of the model's context" in text for text in notices(app)))
        app.chat.composer.clear()
        await submit(pilot, "/rewind")
        listed = await dialog_armed(pilot)
        assert "before the rewind" in str(listed.query("ChoiceButton").first().label)  # newest first
        await pilot.press("enter")
        await choose(pilot, "Conversation only")
        await wait_for(
            pilot, lambda: any("1 rewound turn is in the model's context again" in t for t in notices(app))
        )
        app.chat.composer.clear()
        await submit(pilot, "and now?")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 4)
        assert "change the notes" in "\n".join(
            str(getattr(m, "content", "")) for m in model.requests[-1].messages
        )


async def test_the_context_meter_follows_a_conversation_rewind_and_its_undoing(project_dir: Path) -> None:
    model = ScriptedModel(
        text_step("first answer", tokens=usage(1000, 10)), text_step("second answer", tokens=usage(3000, 10))
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        status = app.chat.status
        for prompt in ("first question", "second question"):
            await submit(pilot, prompt)
            await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        assert (status.context_tokens, status.context_estimated) == (3010, False)
        await submit(pilot, "/rewind")
        await dialog_armed(pilot)
        await pilot.press("enter")  # the newest turn: the second
        await choose(pilot, "Conversation only")
        await wait_for(pilot, lambda: any("out of the model's context" in text for text in notices(app)))
        await wait_for(pilot, lambda: status.context_tokens == 1010)  # what the first turn left
        assert not status.context_estimated
        app.chat.composer.clear()
        await submit(pilot, "/rewind")
        await dialog_armed(pilot)
        await pilot.press("enter")  # before the rewind
        await choose(pilot, "Conversation only")
        await wait_for(pilot, lambda: status.context_tokens == 3010)


async def test_a_file_another_zett_session_changed_during_the_turn_is_asked_about(
    project_dir: Path, hosts: HostFactory
) -> None:
    (project_dir / "a.txt").write_text("a before\n")
    (project_dir / "b.txt").write_text("b before\n")
    gate = asyncio.Event()
    model = ScriptedModel(
        tool_step("a1", "write_file", {"path": "a.txt", "content": "a by this session\n"}),
        text_step("Done.", gate=gate),
    )
    other = await hosts(
        ScriptedModel(
            tool_step("b1", "write_file", {"path": "b.txt", "content": "b by the other\n"}), text_step("ok")
        ),
        permission_mode=PermissionMode.AUTO,
    )
    app = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(app) as pilot:
        await submit(pilot, "change a")
        await wait_for(pilot, lambda: len(model.requests) == 2)
        await other.run_turn("change b", Collector())  # another zett, while this turn runs
        gate.set()
        await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        await submit(pilot, "/rewind")
        await dialog_armed(pilot)
        await pilot.press("enter")
        await choose(pilot, "Code only")
        conflict = await dialog_armed(pilot)
        assert conflict.title_text == "b.txt was also changed by another zett session in this project"
        await pilot.press("enter")  # Keep mine
        await wait_for(pilot, lambda: any("Code rewound" in text for text in notices(app)))
    assert (project_dir / "a.txt").read_text() == "a before\n"
    assert (project_dir / "b.txt").read_text() == "b by the other\n"


async def test_rewound_turns_say_so_live_and_the_undo_is_listed_apart(project_dir: Path) -> None:
    """Issue 29: rewound turns looked live until a resume marked them, and a rewind and its undoing
    were two identical "before the rewind to …" rows."""
    from zett_tui.ui.widgets.transcript_blocks import REWOUND, UserBlock

    model = ScriptedModel(text_step("first answer"), text_step("second answer"))
    app = make_app(model)
    async with ready_app(app) as pilot:
        for prompt in ("first question", "second question"):
            await submit(pilot, prompt)
            await wait_for(pilot, lambda: idle(app) and bool(app.chat.host.checkpoints.last_record))
        await submit(pilot, "/rewind")
        await dialog_armed(pilot)
        await pilot.press("enter")  # the newest turn: the second
        await choose(pilot, "Conversation only")
        await wait_for(pilot, lambda: any("out of the model's context" in text for text in notices(app)))
        first, second = [block for block in app.chat.transcript.blocks if isinstance(block, UserBlock)]
        assert second.rewound and not first.rewound
        await pilot.pause()
        assert REWOUND in screen_text(app)

        app.chat.composer.clear()
        await submit(pilot, "/rewind")
        await dialog_armed(pilot)
        await pilot.press("enter")  # before the rewind: undoes it
        await choose(pilot, "Conversation only")
        await wait_for(pilot, lambda: any("in the model's context again" in t for t in notices(app)))
        assert not second.rewound

        await submit(pilot, "/rewind")
        listed = await dialog_armed(pilot)
        labels = [str(button.label) for button in listed.query("ChoiceButton")]
        assert labels[0].startswith(" 1. turn 4: before undoing the rewind to “second question”")
        assert labels[1].startswith(" 2. turn 3: before the rewind to “second question”")
        await pilot.press("escape")
