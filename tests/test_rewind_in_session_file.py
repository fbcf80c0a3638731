"""A conversation rewind is marked in the session file itself (nothing there is deleted): resume,
``zett sessions show``, the resumed transcript and the export know which turns were rewound, the
resumed model's context leaves them out, and undoing the rewind brings them back."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from pathlib import Path

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step, usage
from tests.test_checkpoint_turns import request_texts
from tests.ui_helpers import make_app, notices, ready_app, wait_for
from zett_tui.core import paths
from zett_tui.runtime.host import AgentHost
from zett_tui.sessions.cli import export_session, show_session


async def two_turns_then_rewind_the_second(
    hosts: HostFactory, *later: object
) -> tuple[AgentHost, ScriptedModel]:
    model = ScriptedModel(text_step("first answer"), text_step("second answer"), *later)
    host = await hosts(model)
    await host.run_turn("first question", Collector())
    await host.run_turn("second question", Collector())
    assert host.checkpoints is not None
    target = host.checkpoints.records()[1]
    await host.checkpoints.rewind(target, plan=None, conversation=True)
    return host, model


async def resumed_and_asked(hosts: HostFactory, host: AgentHost, prompt: str, answer: str) -> str:
    """Close ``host``, resume its session with a new model, send ``prompt``: what that request held."""
    await host.aclose()
    model = ScriptedModel(text_step(answer))
    again = await hosts(model, session_id=host.session_id)
    await again.run_turn(prompt, Collector())
    return request_texts(model.requests[-1])


def session_file(host: AgentHost) -> Path:
    assert host.recorder is not None
    return host.recorder.session_path(host.session_id)


async def test_the_rewind_is_a_line_of_the_session_file_and_every_turn_stays(hosts: HostFactory) -> None:
    host, _ = await two_turns_then_rewind_the_second(hosts)
    lines = [json.loads(line) for line in session_file(host).read_text().splitlines()]
    assert len(lines) == 3  # both turns kept, and the rewind
    assert [m["data"]["content"] for m in lines[1]["messages"] if m["kind"] == 2] == ["second question"]
    assert lines[2]["messages"] == [] and lines[2]["rewind"]["rewound"] == [lines[1]["request_id"]]


async def test_a_resumed_session_still_leaves_the_rewound_turn_out_of_the_models_context(
    hosts: HostFactory,
) -> None:
    host, _ = await two_turns_then_rewind_the_second(hosts)
    await host.aclose()
    # Only the session file knows now: the checkpoint store and the history database are gone
    # (another machine), so the history is rebuilt from the transcript.
    shutil.rmtree(paths.checkpoints_dir())
    paths.history_db().unlink()
    model = ScriptedModel(text_step("third answer"))
    again = await hosts(model, session_id=host.session_id)
    await again.run_turn("third question", Collector())
    sent = request_texts(model.requests[-1])
    assert "first question" in sent and "first answer" in sent
    assert "second question" not in sent and "second answer" not in sent


async def test_undoing_the_rewind_brings_the_turns_back_into_the_models_context(hosts: HostFactory) -> None:
    host, model = await two_turns_then_rewind_the_second(hosts, text_step("third answer"))
    assert host.checkpoints is not None
    records = host.checkpoints.records()
    assert [r.kind for r in records] == ["turn", "turn", "rewind"]
    await host.checkpoints.rewind(records[2], plan=None, conversation=True)  # "before the rewind"
    await host.run_turn("third question", Collector())
    sent = request_texts(model.requests[-1])
    assert "second question" in sent and "second answer" in sent
    assert "second question" in await resumed_and_asked(hosts, host, "fourth question", "fourth answer")


async def test_sessions_show_and_the_export_mark_the_rewound_turn(hosts: HostFactory) -> None:
    host, _ = await two_turns_then_rewind_the_second(hosts)
    await host.aclose()
    out, err = io.StringIO(), io.StringIO()
    assert show_session(host.session_id, out, err=err) == 0, err.getvalue()
    shown = [line for line in out.getvalue().splitlines() if line.startswith("  #")]  # one per turn
    assert len(shown) == 2  # the rewind's own line is not a turn
    [second] = [line for line in shown if "second question" in line]
    [first] = [line for line in shown if "first question" in line]
    assert "rewound" in second and "rewound" not in first
    out = io.StringIO()
    assert export_session(host.session_id, "md", None, out, err=err) == 0
    text = out.getvalue()
    assert text.count("## You") == 2
    assert text.index("**Rewound:**") > text.index("second question")


async def test_the_resumed_transcript_marks_the_rewound_turn(hosts: HostFactory) -> None:
    host, _ = await two_turns_then_rewind_the_second(hosts)
    await host.aclose()
    app = make_app(ScriptedModel(), resume_path=session_file(host), session_id=host.session_id)
    async with ready_app(app) as pilot:
        await wait_for(
            pilot, lambda: any("second question" in str(b.plain_text()) for b in app.chat.transcript.blocks)
        )
        said = notices(app)
        assert sum("Rewound" in text for text in said) == 1


def test_only_a_rewinds_own_line_hides_turns_not_a_turn_that_mentions_one(tmp_path: Path) -> None:
    from zett_tui.sessions.rewind_marks import read_rewound

    lookalike = {"rewind": {"rewound": ["r1"], "restored": []}}
    turn = {
        "version": 1,
        "request_id": "r1",
        "status": "completed",
        "rewind": {"rewound": ["r1"]},  # a turn line, not a rewind's: it has messages
        "messages": [{"kind": 3, "data": {"content": "", "tool_calls": [{"arguments": lookalike}]}}],
    }
    path = tmp_path / "s.jsonl"
    damaged = '{"version":1,"rewind":{"rewound":["r1"'
    path.write_text(json.dumps(turn) + "\n" + damaged + "\n" + json.dumps(lookalike) + "\n")
    assert not read_rewound(path).rewound


async def test_a_fork_of_a_rewound_session_gives_its_model_what_the_originals_model_sees(
    hosts: HostFactory,
) -> None:
    from zett_tui.entry.startup import fork_for_launch
    from zett_tui.sessions.index import SessionIndex

    host, _ = await two_turns_then_rewind_the_second(hosts)
    await host.aclose()
    original = SessionIndex().find(host.session_id)
    assert original is not None
    fork = await asyncio.to_thread(fork_for_launch, original)
    model = ScriptedModel(text_step("forked answer"))
    forked = await hosts(model, session_id=fork.session_id)
    await forked.run_turn("go on in the copy", Collector())
    sent = request_texts(model.requests[-1])
    assert "first question" in sent and "first answer" in sent
    assert "second question" not in sent and "second answer" not in sent
    # The fork's file marks the same turn rewound, as the original's does.
    out, err = io.StringIO(), io.StringIO()
    assert show_session(fork.session_id, out, err=err) == 0, err.getvalue()
    [second] = [line for line in out.getvalue().splitlines() if "second question" in line]
    assert "rewound" in second


async def test_sessions_list_and_show_count_real_turns_and_say_how_many_are_rewound(
    hosts: HostFactory,
) -> None:
    from zett_tui.sessions.cli import list_sessions

    def listed() -> dict[str, object]:
        out = io.StringIO()
        assert list_sessions(True, True, None, out, err=io.StringIO()) == 0
        [row] = [row for row in json.loads(out.getvalue()) if row["session_id"] == host.session_id]
        return row

    model = ScriptedModel(text_step("first answer"), text_step("second answer"))
    host = await hosts(model)
    await host.run_turn("first question", Collector())
    await host.run_turn("second question", Collector())
    assert listed()["turns"] == 2  # cached: the rewind's line is read as new bytes of a grown file
    assert host.checkpoints is not None
    await host.checkpoints.rewind(host.checkpoints.records()[1], plan=None, conversation=True)
    row = listed()
    assert (row["turns"], row.get("rewound"), row["last_prompt"]) == (2, 1, "second question")
    out = io.StringIO()
    assert show_session(host.session_id, out, err=io.StringIO()) == 0
    assert "Turns     2 (1 rewound) · " in out.getvalue()
    (paths.sessions_dir() / ".index.json").unlink()  # and read afresh
    assert (listed()["turns"], listed()["rewound"]) == (2, 1)


async def test_a_session_resumed_after_a_rewind_shows_the_context_of_the_turns_left(
    hosts: HostFactory,
) -> None:
    model = ScriptedModel(
        text_step("first answer", tokens=usage(1000, 10)), text_step("second answer", tokens=usage(3000, 10))
    )
    host = await hosts(model)
    await host.run_turn("first question", Collector())
    await host.run_turn("second question", Collector())
    assert host.checkpoints is not None
    await host.checkpoints.rewind(host.checkpoints.records()[1], plan=None, conversation=True)
    await host.aclose()
    app = make_app(
        ScriptedModel(), resume_path=session_file(host), session_id=host.session_id, model_label="scripted"
    )
    async with ready_app(app) as pilot:
        await wait_for(pilot, lambda: app.chat.host is not None)
        status = app.chat.status
        # The figure the first turn left (the second is out of the context), measured, not guessed.
        assert (status.context_tokens, status.context_estimated) == (1010, False)


LONG = "word " * 2000
#: What the first /compact writes: it summarizes the first two turns.
SUMMARY = "Summary: the user asked the first question and the SECOND QUESTION."


async def three_turns_compacted_then_rewound_to_the_second(
    hosts: HostFactory, *later: object
) -> tuple[AgentHost, ScriptedModel]:
    """Turns 1-3, a /compact (turns 1-2 summarized), then a conversation rewind to before turn 2."""
    model = ScriptedModel(
        text_step("first answer " + LONG),
        text_step("second answer " + LONG),
        text_step("third answer"),
        text_step(SUMMARY),
        *later,
    )
    host = await hosts(model)
    for prompt in ("first question", "second question", "third question"):
        await host.run_turn(prompt, Collector())
    assert await host.compact(Collector())
    assert host.checkpoints is not None
    await host.checkpoints.rewind(host.checkpoints.records()[1], plan=None, conversation=True)
    return host, model


async def test_a_summary_made_before_a_rewind_does_not_bring_the_rewound_turns_back(
    hosts: HostFactory,
) -> None:
    host, model = await three_turns_compacted_then_rewound_to_the_second(hosts, text_step("fourth answer"))
    await host.run_turn("fourth question", Collector())
    sent = request_texts(model.requests[-1])
    assert SUMMARY not in sent and "second answer" not in sent and "third question" not in sent
    assert "first question" in sent and "first answer" in sent and "fourth question" in sent
    sent = await resumed_and_asked(hosts, host, "fifth question", "fifth answer")  # and so after a resume
    assert SUMMARY not in sent and "second question" not in sent
    assert "first answer" in sent and "fourth answer" in sent


async def test_a_compaction_after_a_rewind_summarizes_only_what_the_model_sees(hosts: HostFactory) -> None:
    host, model = await three_turns_compacted_then_rewound_to_the_second(
        hosts,
        text_step("fourth answer"),
        text_step("Summary: the first question was answered."),
        text_step("fifth answer"),
    )
    await host.run_turn("fourth question", Collector())
    assert await host.compact(Collector())  # the first turn summarized, the fourth kept
    summarized = request_texts(model.requests[-1])
    assert "first answer" in summarized
    assert SUMMARY not in summarized and "second answer" not in summarized
    await host.run_turn("fifth question", Collector())
    sent = request_texts(model.requests[-1])
    assert "Summary: the first question was answered." in sent
    assert "first answer" not in sent and SUMMARY not in sent and "second question" not in sent
    assert "fourth question" in sent and "fourth answer" in sent and "fifth question" in sent
    resumed = await resumed_and_asked(hosts, host, "sixth question", "sixth answer")
    assert "Summary: the first question was answered." in resumed and "fourth answer" in resumed
    assert "first answer" not in resumed and "second question" not in resumed


async def test_undoing_a_rewind_after_a_compaction_brings_the_rewound_turns_back(hosts: HostFactory) -> None:
    host, model = await three_turns_compacted_then_rewound_to_the_second(
        hosts,
        text_step("fourth answer"),
        text_step("Summary: the first question was answered."),
        text_step("after the undo"),
    )
    await host.run_turn("fourth question", Collector())
    assert await host.compact(Collector())
    assert host.checkpoints is not None
    rewind = next(record for record in host.checkpoints.records() if record.kind == "rewind")
    await host.checkpoints.rewind(rewind, plan=None, conversation=True)  # "before the rewind"
    await host.run_turn("and now?", Collector())
    sent = request_texts(model.requests[-1])
    assert "second question" in sent and "second answer" in sent and "third answer" in sent
    assert "Summary: the first question was answered." in sent and "fourth question" not in sent


async def test_a_fork_of_a_session_rewound_before_marks_existed_leaves_the_rewound_turn_out(
    hosts: HostFactory,
) -> None:
    from zett_tui.entry.startup import fork_for_launch
    from zett_tui.sessions.index import SessionIndex

    host, _ = await two_turns_then_rewind_the_second(hosts)
    await host.aclose()
    path = session_file(host)
    path.write_text(
        "".join(path.read_text().splitlines(keepends=True)[:2])
    )  # only the checkpoint record knows
    original = SessionIndex().find(host.session_id)
    assert original is not None
    fork = await asyncio.to_thread(fork_for_launch, original)
    model = ScriptedModel(text_step("forked answer"))
    forked = await hosts(model, session_id=fork.session_id)
    await forked.run_turn("go on in the copy", Collector())
    sent = request_texts(model.requests[-1])
    assert "first answer" in sent and "second question" not in sent
    out = io.StringIO()
    assert show_session(fork.session_id, out, err=io.StringIO()) == 0
    assert "Turns     3 (1 rewound)" in out.getvalue()  # the fork's mark says it
