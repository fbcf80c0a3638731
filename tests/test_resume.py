"""Resuming sessions: after a clean exit, a cancelled turn, and a process killed mid-turn."""

from __future__ import annotations

import asyncio
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector, kill_when_it_prints, make_host, wait_until
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.ui_helpers import (
    answers,
    idle,
    make_app,
    notices,
    prompts,
    ready_app,
    submit,
    wait_for,
)
from zett_tui.entry.startup import StartupError, find_session_to_resume
from zett_tui.sessions.index import SessionIndex
from zett_tui.ui.chat.past_turns import CUT_OFF


async def run_session(
    *steps, prompts_to_send: list[str], session_id: str | None = None
) -> tuple[str, ScriptedModel]:
    model = ScriptedModel(*steps)
    host = await make_host(model, session_id=session_id)
    for prompt in prompts_to_send:
        await host.run_turn(prompt, Collector())
    await host.aclose()
    return host.session_id, model


async def test_resume_shows_the_transcript_and_the_model_gets_the_context(project_dir: Path) -> None:
    session_id, _ = await run_session(
        text_step("The capital is **Paris**."), prompts_to_send=["capital of France?"]
    )
    found = find_session_to_resume(project_dir, None, continue_last=True)
    assert found.session_id == session_id
    model = ScriptedModel(text_step("About 2 million."))
    app = make_app(model, session_id=session_id, resume_path=found.path)
    async with ready_app(app) as pilot:
        assert prompts(app) == ["capital of France?"]
        assert answers(app)[0].text == "The capital is **Paris**."
        await submit(pilot, "and its population?")
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
    sent = [getattr(message, "content", None) for message in model.requests[0].messages]
    assert "capital of France?" in sent and "The capital is **Paris**." in sent


async def test_a_cancelled_turn_is_marked_when_resumed(project_dir: Path) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("cut short here", chunk=10, gate=gate))
    host = await make_host(model)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("long question", sink))
    await wait_until(lambda: bool(sink.text))  # the turn has started streaming: cancelling now records it
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await host.aclose()
    found = find_session_to_resume(project_dir, host.session_id[:12], continue_last=False)
    app = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(app):
        assert prompts(app) == ["long question"]
        # the answer streamed before the cancel is shown as it was live (to its last whole word),
        # marked cancelled
        [answer] = answers(app)
        assert answer.plain_text().strip() == "cut short" and answer.status == "cancelled"
        said = notices(app)
        assert any(text.startswith("You stopped the last turn before it ended.") for text in said), said
        assert not any("never answered" in text for text in said), said


def test_unknown_and_ambiguous_ids_are_clear_messages(project_dir: Path) -> None:
    async def two() -> list[str]:
        first, _ = await run_session(text_step("a"), prompts_to_send=["one"], session_id="abc-111")
        second, _ = await run_session(text_step("b"), prompts_to_send=["two"], session_id="abc-222")
        return [first, second]

    asyncio.run(two())
    with pytest.raises(StartupError, match="abc-111") as ambiguous:
        find_session_to_resume(project_dir, "abc", continue_last=False)
    assert "abc-222" in str(ambiguous.value)
    with pytest.raises(StartupError) as unknown:
        find_session_to_resume(project_dir, "zzz-nothing", continue_last=False)
    assert "zzz-nothing" in str(unknown.value)
    assert find_session_to_resume(project_dir, "abc-2", continue_last=False).session_id == "abc-222"


def test_continue_with_no_session_here_says_so(tmp_path: Path) -> None:
    with pytest.raises(StartupError, match="no earlier session"):
        find_session_to_resume(tmp_path, None, continue_last=True)


KILLED_WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from tests.fakes.scripted_model import ScriptedModel, text_step
    from tests.fakes.host import Collector, kill_when_it_prints, make_host, wait_until

    async def main():
        first = ScriptedModel(text_step("first answer"))
        host = await make_host(first, session_id="killed-session")
        await host.run_turn("first question", Collector())
        gate = asyncio.Event()
        host.model.steps.append(text_step("never finishes", gate=gate))
        sink = Collector()
        task = asyncio.create_task(host.run_turn("second question", sink))
        await wait_until(lambda: bool(sink.text))  # the model is streaming the second answer
        print("MID-TURN", flush=True)
        await task

    asyncio.run(main())
    """
)


async def test_a_session_killed_mid_turn_resumes(project_dir: Path) -> None:
    kill_when_it_prints(KILLED_WORKER, "MID-TURN", cwd=project_dir)

    [summary] = SessionIndex().list_sessions()  # the killed turn joins the session, cut off
    assert summary.session_id == "killed-session" and summary.turns == 2
    assert summary.last_status == "interrupted"
    found = find_session_to_resume(project_dir, "killed", continue_last=False)
    model = ScriptedModel(text_step("Carrying on."))
    app = make_app(model, session_id=found.session_id, resume_path=found.path)
    async with ready_app(app) as pilot:
        assert prompts(app) == ["first question", "second question"]
        await wait_for(pilot, lambda: any("zett was stopped during the last turn" in t for t in notices(app)))
        assert CUT_OFF in notices(app)
        await submit(pilot, "/continue")
        await wait_for(pilot, lambda: idle(app) and any(a.text == "Carrying on." for a in answers(app)))
        live = [(type(block).__name__, block.plain_text()) for block in app.chat.transcript.blocks]
    contents = [getattr(message, "content", None) for message in model.requests[0].messages]
    assert "first question" in contents and "second question" in contents

    # resumed once more: the carried-on turn is painted as the live screen showed it, once
    again = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(again) as pilot:
        assert prompts(again) == ["first question", "second question"]
        painted = [(type(block).__name__, block.plain_text()) for block in again.chat.transcript.blocks]
    assert [text for kind, text in painted if kind == "AnswerBlock"] == [
        text for kind, text in live if kind == "AnswerBlock"
    ]
    assert ("NoticeBlock", "Continuing…") in painted
    import io
    import re

    from zett_tui.sessions.cli import show_session

    out = io.StringIO()
    assert show_session("killed", out, err=io.StringIO()) == 0
    rows = [re.split(r"\s{2,}", line.strip())[-1] for line in out.getvalue().splitlines() if "  #" in line]
    assert rows == ["first question", "second question", "(/continue)"], out.getvalue()


async def test_a_session_busy_in_another_zett_can_be_viewed_or_forked(project_dir: Path) -> None:
    from zett_tui.core import paths
    from zett_tui.entry.startup import SessionInUse, fork_for_launch
    from zett_tui.sessions.lock import claim_session

    session_id, _ = await run_session(text_step("Original answer."), prompts_to_send=["original question"])
    lock = claim_session(paths.sessions_dir(), session_id)  # "another zett" is writing it
    try:
        with pytest.raises(SessionInUse, match="--read-only"):
            find_session_to_resume(project_dir, session_id[:13], continue_last=False)
        busy = find_session_to_resume(project_dir, session_id[:13], continue_last=False, allow_busy=True)

        viewer = make_app(ScriptedModel(), session_id=busy.session_id, resume_path=busy.path, read_only=True)
        async with viewer.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: prompts(viewer) == ["original question"])  # read in a thread
            assert viewer.chat.host is None
            await submit(pilot, "may I?")
            assert prompts(viewer) == ["original question"]
            assert any("Read-only" in text for text in notices(viewer))

        fork = await asyncio.to_thread(fork_for_launch, busy)
        assert fork.session_id != session_id
        model = ScriptedModel(text_step("Forked answer."))
        app = make_app(model, session_id=fork.session_id, resume_path=fork.path)
        async with ready_app(app) as pilot:
            assert prompts(app) == ["original question"]
            await submit(pilot, "go on in the copy")
            await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        sent = [getattr(message, "content", None) for message in model.requests[0].messages]
        assert "original question" in sent and "Original answer." in sent
    finally:
        lock.release()
    original = SessionIndex().find(session_id)
    assert original is not None and original.turns == 1  # the original was never written to


async def test_a_resumed_session_shows_its_decision_lines_and_context_figure_as_the_live_screen_did(
    project_dir: Path,
) -> None:
    """Issue 12, item 2: "You allowed" lines and the context meter were lost on resume."""
    from tests.test_dialogs import open_dialog

    def painted(app: Any) -> list[tuple[str, str]]:
        return [(type(block).__name__, block.plain_text()) for block in app.chat.transcript.blocks]

    model = ScriptedModel(
        tool_step("c1", "bash", {"command": "echo once > once.txt"}, text="Running it."),
        text_step("Done."),
    )
    live = make_app(model)
    async with ready_app(live, size=(160, 45)) as pilot:
        await submit(pilot, "run it")
        await open_dialog(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(live) and len(answers(live)) == 2)
        live_blocks = painted(live)
        live_meter = (live.chat.status.context_tokens, live.chat.status.context_estimated)
        session_id = live.chat.host.session_id  # type: ignore[union-attr]
    assert ("NoticeBlock", "✓ You allowed: echo once > once.txt") in live_blocks
    assert live_meter[1] is False  # counted by the provider, not estimated

    found = find_session_to_resume(project_dir, session_id[:12], continue_last=False)
    app = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(app, size=(160, 45)) as pilot:
        await wait_for(pilot, lambda: app.chat.status.activity == "idle")
        resumed = [block for block in painted(app) if not block[1].startswith("Resumed session")]
        assert resumed == live_blocks
        assert (app.chat.status.context_tokens, app.chat.status.context_estimated) == live_meter


async def test_a_fork_is_marked_as_one_in_its_title_and_when_it_opens(project_dir: Path) -> None:
    """``--resume ID --fork`` said "Resumed session" and ``sessions list`` showed two identical titles."""
    from zett_tui.entry.startup import fork_for_launch

    session_id, _ = await run_session(text_step("Original answer."), prompts_to_send=["original question"])
    original = find_session_to_resume(project_dir, session_id, continue_last=False)
    fork = await asyncio.to_thread(fork_for_launch, original)
    listed = {summary.session_id: summary.title for summary in SessionIndex().list_sessions(None)}
    assert listed[session_id] == "original question"
    assert listed[fork.session_id] == f"original question (fork of {session_id[:8]})"
    app = make_app(ScriptedModel(), session_id=fork.session_id, resume_path=fork.path)
    async with ready_app(app) as pilot:
        await wait_for(pilot, lambda: any(text.startswith("Forked session") for text in notices(app)))
        said = "\n".join(notices(app))
        assert f"Forked session {session_id} into {fork.session_id}" in said
        assert "Resumed session" not in said


KILLED_WHILE_ANSWERING = KILLED_WORKER.replace(
    'print("MID-TURN", flush=True)',
    "await asyncio.sleep(1.5)  # the streamed part is on disk (at least every second)\n"
    '    print("MID-TURN", flush=True)',
)


async def test_a_partial_answer_after_a_kill_is_not_called_never_answered(project_dir: Path) -> None:
    """After ``kill -9`` the partial answer is painted; the line under it said "The model was never
    answered", which contradicts it. It now says what happened: its memory does not have it."""
    kill_when_it_prints(KILLED_WHILE_ANSWERING, "MID-TURN", cwd=project_dir)
    found = find_session_to_resume(project_dir, "killed", continue_last=False)
    app = make_app(ScriptedModel(text_step("Again.")), session_id=found.session_id, resume_path=found.path)
    async with ready_app(app) as pilot:
        await wait_for(pilot, lambda: any("Type /continue" in text for text in notices(app)))
        partial = answers(app)[-1].text
        assert partial.strip() and "never finishes".startswith(partial)  # as far as it got
        said = "\n".join(notices(app))
        assert "never answered" not in said
        assert "zett was stopped while the model was answering" in said


async def test_quitting_a_resumed_session_before_its_model_is_ready_names_it_to_resume(
    project_dir: Path,
) -> None:
    """zett prints "To resume this session: zett --resume ID" for the id the app exits with."""
    session_id, _ = await run_session(text_step("First answer."), prompts_to_send=["first question"])
    found = find_session_to_resume(project_dir, None, continue_last=True)
    building = threading.Event()

    def slow_model() -> ScriptedModel:
        building.wait(30)  # the provider is still being built when the user quits
        return ScriptedModel()

    app = make_app(ScriptedModel(), factory=slow_model, session_id=session_id, resume_path=found.path)
    try:
        async with app.run_test() as pilot:
            await wait_for(pilot, lambda: prompts(app) == ["first question"])
            assert app.chat.host is None
            await app.action_quit()
    finally:
        building.set()
    assert app.return_value == session_id
