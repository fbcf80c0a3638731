"""Resuming a damaged session in the real app: the good turns, one line about the rest, the log.

The session is recorded by the runtime, then its file is rewritten with a few MB of damage of
every kind (``tests.fakes.damaged_session``) between its turns and a turn torn at the end.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from zett_agent.messages import SystemMessage

from tests.fakes.damaged_session import write_damaged
from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, idle, make_app, notices, prompts, submit, wait_for, wait_ready
from zett_tui.core import paths
from zett_tui.entry.startup import find_session_to_resume

PROMPTS = [f"question {number}" for number in range(1, 7)]
#: Damaged lines before each turn: about 3 MB in all.
DAMAGED_BETWEEN = 3_000


async def damaged_session() -> tuple[str, Path, int]:
    """A six-turn session whose file holds 18,000 damaged lines and a torn last line."""
    host = await make_host(ScriptedModel(*(text_step(f"answer {n}") for n in range(1, 7))))
    for prompt in PROMPTS:
        await host.run_turn(prompt, Collector())
    await host.aclose()
    assert host.recorder is not None
    path = host.recorder.session_path(host.session_id)
    good = path.read_bytes().splitlines(keepends=True)
    assert len(good) == len(PROMPTS)
    damaged = write_damaged(path, good, DAMAGED_BETWEEN, tail=good[-1][:60])
    assert 2_000_000 < path.stat().st_size < 5_000_000
    return host.session_id, path, damaged


async def test_a_damaged_session_resumes_with_its_turns_and_one_line_about_the_damage(
    project_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    session_id, path, damaged = await damaged_session()
    found = find_session_to_resume(project_dir, None, continue_last=True)
    assert found.session_id == session_id
    model = ScriptedModel(text_step("still here"))
    app = make_app(model, session_id=session_id, resume_path=found.path)
    with caplog.at_level(logging.WARNING):
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_ready(pilot)
            await wait_for(pilot, lambda: idle(app))
            assert prompts(app) == PROMPTS
            assert [answer.plain_text().strip() for answer in answers(app)] == [
                f"answer {n}" for n in range(1, 7)
            ]
            said = notices(app)
            about_damage = [text for text in said if "damaged" in text or "JSON" in text or "line" in text]
            assert about_damage == [
                f"{path.name}: {damaged:,} damaged lines skipped (lines 1 to {damaged + len(PROMPTS):,}); "
                f"the rest is here (details in {paths.log_file()})"
            ], said
            await submit(pilot, "are you still there?")
            await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 7)
    logged = [
        record.getMessage() for record in caplog.records if "damaged lines skipped" in record.getMessage()
    ]
    assert len(logged) == 1
    [details] = logged
    # read from the end: the reasons of the last damaged lines, the torn last turn first of all
    assert f"line {damaged + len(PROMPTS)}: incomplete last line" in details
    assert len(re.findall(r"line \d+: ", details)) == 10  # ten reasons, no more
    sent = [str(m.content) for m in model.requests[0].messages if not isinstance(m, SystemMessage)]
    assert sent == [text for n in range(1, 7) for text in (f"question {n}", f"answer {n}")] + [
        "are you still there?"
    ]


async def test_the_models_memory_rebuilt_from_a_damaged_file_skips_the_same_lines(
    project_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    session_id, path, damaged = await damaged_session()
    for database in paths.history_db().parent.glob(paths.history_db().name + "*"):
        database.unlink()  # the history lost: the model's context comes from the transcript
    model = ScriptedModel(text_step("rebuilt"))
    app = make_app(model, session_id=session_id, resume_path=path)
    with caplog.at_level(logging.WARNING):
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_ready(pilot)
            await wait_for(pilot, lambda: idle(app))
            assert any("rebuilt from its transcript (6 turns)" in text for text in notices(app)), notices(app)
            assert sum("damaged lines skipped" in text for text in notices(app)) == 1
            await submit(pilot, "what did I ask?")
            await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 7)
    sent = [str(m.content) for m in model.requests[0].messages if not isinstance(m, SystemMessage)]
    assert sent == [text for n in range(1, 7) for text in (f"question {n}", f"answer {n}")] + [
        "what did I ask?"
    ]
    rebuilt_logs = [r.getMessage() for r in caplog.records if r.name == "zett_tui.runtime.history_rebuild"]
    assert len(rebuilt_logs) == 1 and f"{damaged:,} damaged lines skipped" in rebuilt_logs[0]


@pytest.mark.parametrize("search_bytes", [None, 1_000])
async def test_the_context_figure_is_found_behind_damage_within_its_bound(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch, search_bytes: int | None
) -> None:
    from zett_tui.runtime import session_files

    host = await make_host(ScriptedModel(text_step("an answer")))
    await host.run_turn("a question", Collector())
    await host.aclose()
    first = await make_host(ScriptedModel(), session_id=host.session_id)
    try:
        left_with = await first.estimate_context()
    finally:
        await first.aclose()
    assert not left_with.estimated
    assert host.recorder is not None
    with host.recorder.session_path(host.session_id).open("ab") as stream:
        stream.write(b"damage after the last turn\n" * 20_000)  # half a megabyte
    if search_bytes is not None:
        monkeypatch.setattr(session_files, "CONTEXT_SEARCH_BYTES", search_bytes)
    resumed = await make_host(ScriptedModel(), session_id=host.session_id)
    try:
        shown = await resumed.estimate_context()
    finally:
        await resumed.aclose()
    if search_bytes is None:
        assert (shown.tokens, shown.estimated) == (left_with.tokens, False)
    else:
        assert shown.estimated  # beyond the bound: the history's estimate
