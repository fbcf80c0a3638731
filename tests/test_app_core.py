"""The core loop through the real app with a scripted model: stream, tools, approval, stop and quit."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, tools_step
from tests.ui_helpers import (
    answers,
    dialog_armed,
    idle,
    make_app,
    notices,
    prompts,
    ready_app,
    screen_text,
    submit,
    tools,
    wait_for,
)
from zett_tui.core import paths
from zett_tui.ui.modals.choice_dialog import ChoiceDialog

ANSWER = "# Plan\n\n- one\n- two\n\n```python\nprint('hi')\n```\n"


def recorded(session_id: str) -> list[dict]:
    from zett_agent.extensions.jsonl import JSONLExtension

    path = JSONLExtension(paths.sessions_dir()).session_path(session_id)
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_answer_streams_into_the_transcript_and_is_recorded() -> None:
    model = ScriptedModel(text_step(ANSWER, reasoning="Let me think about it."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "make a plan")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        [answer] = answers(app)
        assert answer.text == ANSWER
        assert answer.status == "completed"
        assert prompts(app) == ["make a plan"]
        assert app.chat.status.activity == "idle"
        assert app.chat.status.output_tokens == 5
        shown = screen_text(app)
        assert "print('hi')" in shown and "Plan" in shown and "scripted:test" in shown
        session = app.chat.host.session_id
    [line] = recorded(session)
    assert line["status"] == "completed"


async def test_tool_calls_show_as_rows_with_state() -> None:
    (Path.cwd() / "notes.txt").write_text("remember the milk\n")
    model = ScriptedModel(tool_step("c1", "read_file", {"path": "notes.txt"}), text_step("It says milk."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "read notes")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        [row] = tools(app)
        assert (row.name, row.key_arg, row.state) == ("read_file", "notes.txt", "done")
        assert "remember the milk" in row.plain_text()
        assert row.duration_s is not None


async def test_shell_command_asks_first_and_enter_runs_it(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo hello > made.txt"}), text_step("Done."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "make a file")
        await dialog_armed(pilot)
        dialog = app.screen
        await wait_for(pilot, lambda: "echo hello > made.txt" in screen_text(app))
        assert dialog.focused is not None and dialog.focused.id == "choice-1"  # Run is highlighted
        assert not (project_dir / "made.txt").exists()
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "made.txt").read_text() == "hello\n"
        assert any("You allowed: echo hello > made.txt" in text for text in notices(app))


async def test_escape_declines_the_command() -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch nope.txt"}), text_step("Fine."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "touch")
        await dialog_armed(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert not Path("nope.txt").exists()
        assert tools(app)[0].state == "declined"  # the user said no: not an error
        assert any("You refused: touch nope.txt" in text for text in notices(app))


async def test_parallel_approvals_are_asked_one_after_another() -> None:
    calls = [("a", "bash", {"command": "echo one"}), ("b", "bash", {"command": "echo two"})]
    model = ScriptedModel(tools_step(calls), text_step("both ran"))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "two commands")
        asked: list[str] = []
        previous = None

        def next_dialog_drawn() -> bool:
            return (
                isinstance(app.screen, ChoiceDialog)
                and app.screen is not previous
                and app.screen.armed
                and "echo" in screen_text(app)
            )

        for _ in range(2):
            await wait_for(pilot, next_dialog_drawn)
            previous = app.screen
            asked.append(screen_text(app))
            await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert any("echo one" in text for text in asked) and any("echo two" in text for text in asked)
        assert [row.state for row in tools(app)] == ["done", "done"]


async def test_ctrl_c_cancels_a_stream_and_the_session_goes_on() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("The beginning of a long answer", gate=gate), text_step("Next answer."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "long")
        await wait_for(pilot, lambda: bool(answers(app)) and bool(answers(app)[0].text))
        started = time.monotonic()
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        assert time.monotonic() - started < 2  # generous: the target is 200 ms, measured elsewhere
        assert answers(app)[0].status == "cancelled"
        assert answers(app)[0].text == "The begi"  # the one chunk that arrived stays on screen
        await submit(pilot, "again")
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        assert answers(app)[1].text == "Next answer."
        session = app.chat.host.session_id
    assert [line["status"] for line in recorded(session)] == ["cancelled", "completed"]


async def test_escape_cancels_a_running_tool_process(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch started.txt; sleep 20; touch late.txt"}))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "slow")
        await dialog_armed(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(tools(app)) and tools(app)[0].state == "running")
        await wait_for(pilot, lambda: (project_dir / "started.txt").exists())  # the process is running
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        assert tools(app)[0].state == "cancelled"
        session = app.chat.host.session_id
    assert recorded(session)[0]["status"] == "cancelled"
    assert not (project_dir / "late.txt").exists()


async def test_cancel_while_a_dialog_is_open_closes_it() -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo never"}))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "ask me")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.chat.turns.busy and not isinstance(app.screen, ChoiceDialog))
        session = app.chat.host.session_id
    assert recorded(session)[0]["status"] == "cancelled"


async def test_ctrl_c_clears_text_then_asks_before_quitting() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        app.chat.composer.load_text("half-written thought")
        await pilot.press("ctrl+c")
        assert app.chat.composer.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        assert "Ctrl+C again" in app.chat.status.hint
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running)


async def test_ctrl_d_quits_only_on_an_empty_prompt() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        app.chat.composer.load_text("ab")
        app.chat.composer.move_cursor((0, 0))
        await pilot.press("ctrl+d")
        assert app.chat.composer.text == "b"
        assert app.is_running
        app.chat.composer.load_text("")
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: not app.is_running)


async def test_quitting_during_a_turn_records_it_as_cancelled() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("streaming forever", gate=gate))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "stream")
        await wait_for(pilot, lambda: bool(answers(app)))
        session = app.chat.host.session_id
        await app.action_quit()
        await wait_for(pilot, lambda: not app.is_running)
    assert recorded(session)[0]["status"] == "cancelled"
    assert model.closed


async def test_keys_typed_before_the_agent_is_ready_are_kept_and_sent() -> None:
    release = threading.Event()
    model = ScriptedModel(text_step("Answer to the early question."))

    def slow_factory() -> ScriptedModel:
        release.wait(10)
        return model

    app = make_app(model, factory=slow_factory)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"early question")
        assert app.chat.composer.text == "early question"
        await pilot.press("enter")
        assert app.chat.host is None
        assert app.chat.status.queued == 1
        release.set()
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert prompts(app) == ["early question"]
        assert answers(app)[0].text == "Answer to the early question."


async def test_prompt_history_is_recalled_with_up() -> None:
    model = ScriptedModel(text_step("one"), text_step("two"))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "first prompt")
        await wait_for(pilot, lambda: idle(app))
        await pilot.press("up")
        assert app.chat.composer.text == "first prompt"
        await pilot.press("down")
        assert app.chat.composer.text == ""


async def test_shift_enter_and_ctrl_j_insert_newlines() -> None:
    app = make_app(ScriptedModel())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a", "ctrl+j", "b")
        assert app.chat.composer.text == "a\nb"
        assert not prompts(app)


async def test_a_model_that_fails_to_start_is_a_message_not_a_crash() -> None:
    def broken() -> ScriptedModel:
        raise RuntimeError("no such model")

    app = make_app(ScriptedModel(), factory=broken)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.chat.warmup_failed)
        assert any("Could not start the model" in text for text in notices(app))
        await submit(pilot, "hello?")
        assert app.is_running
