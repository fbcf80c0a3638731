"""``zett acp`` as an editor uses it, beyond a plain prompt: images, resume and fork, questions that
need the user's own words (forms), subagents, and sessions in two folders at once. Each test
drives the real subprocess with the SDK's client side, against the fake OpenAI server."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    ClientCapabilities,
    DeclineElicitationResponse,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ImageContentBlock,
    RequestPermissionResponse,
)

from tests.fakes.llm_server import Reply
from tests.test_acp import EditorClient, env_for, started
from tests.test_headless import recorded_turns, zett


class FormClient(EditorClient):
    """An editor that also shows forms (ACP's unstable ``elicitation/create``)."""

    def __init__(
        self, answers: list[str | None] | None = None, forms: list[dict[str, Any] | None] | None = None
    ):
        super().__init__(answers)
        self.forms = list(forms or [])
        self.asked_forms: list[tuple[str, Any]] = []

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.asked_forms.append((message, mode))
        content = self.forms.pop(0) if self.forms else None
        if content is None:
            return DeclineElicitationResponse(action="decline")
        return AcceptElicitationResponse(action="accept", content=content)


FORMS = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))


def spawn(client: Any, server: Any, *, model: str = "openai:gpt-test", cwd: str | None = None) -> Any:
    env = {**env_for(server), "ZETT_MODEL": model}
    return spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "zett_tui",
        "acp",
        env=env,
        cwd=cwd or os.getcwd(),
        use_unstable_protocol=True,
    )


def png(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def image_block(data: bytes) -> ImageContentBlock:
    return ImageContentBlock(type="image", data=base64.b64encode(data).decode(), mime_type="image/png")


def request_text(server: Any, index: int = -1) -> str:
    return json.dumps(server.requests[index].body)


# -- images -----------------------------------------------------------------------------------------


async def test_an_image_in_the_prompt_goes_to_the_model_scaled_and_stored_by_hash(llm_server: Any) -> None:
    from zett_tui.core import paths

    llm_server.script(Reply.text("A red square."))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(
            conn.prompt(
                session_id=session_id, prompt=[text_block("what is this?"), image_block(png(4000, 3000))]
            ),
            60,
        )
    assert done.stop_reason == "end_turn" and client.text() == "A red square."
    [message] = [m for m in llm_server.requests[0].body["messages"] if m["role"] == "user"]
    [image] = [part for part in message["content"] if part["type"] == "image_url"]
    sent = base64.b64decode(image["image_url"]["url"].split(",", 1)[1])
    from PIL import Image

    assert max(Image.open(io.BytesIO(sent)).size) < 4000  # scaled to the provider's limit
    [stored] = list((paths.sessions_dir() / "images").iterdir())
    assert len(stored.stem) == 64  # stored once, by its hash, not in the session line
    assert "__kcs_bytes__" not in json.dumps(recorded_turns())


async def test_a_model_that_reads_no_images_refuses_before_anything_is_sent(llm_server: Any) -> None:
    client = EditorClient()
    async with spawn(client, llm_server, model="openai:gpt-3.5-turbo") as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(
            conn.prompt(session_id=session_id, prompt=[text_block("look"), image_block(png(10, 10))]), 60
        )
        with pytest.raises(RequestError, match="Invalid params"):  # not an image at all
            await conn.prompt(
                session_id=session_id,
                prompt=[ImageContentBlock(type="image", data="bm90IGFuIGltYWdl", mime_type="image/png")],
            )
    assert done.stop_reason == "end_turn"
    assert "does not read images, so nothing was sent" in client.text()
    assert llm_server.requests == []


# -- resume and fork --------------------------------------------------------------------------------


async def test_resume_goes_on_without_replay_and_fork_is_a_marked_copy(llm_server: Any) -> None:
    from zett_tui.sessions.index import SessionIndex

    llm_server.script(Reply.text("First answer."))
    assert zett(llm_server, "-p", "first question").returncode == 0
    [turn] = recorded_turns()
    original = turn["session_id"]
    llm_server.script(Reply.text("Resumed answer."), Reply.text("Forked answer."))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.resume_session(cwd=os.getcwd(), session_id=original, mcp_servers=[])
        assert client.updates == [] or not client.of("user_message_chunk")  # nothing replayed
        await asyncio.wait_for(conn.prompt(session_id=original, prompt=[text_block("again")]), 60)
        assert "first question" in request_text(llm_server)  # the history was restored
        forked = await conn.fork_session(cwd=os.getcwd(), session_id=original, mcp_servers=[])
        assert forked.session_id != original
        await asyncio.sleep(0.2)
        [info] = client.of("session_info_update")  # the editor is told it is a fork
        assert info.title.endswith(f"(fork of {original[:8]})") and info.field_meta == {
            "zett": {"forkedFrom": original}
        }
        await asyncio.wait_for(conn.prompt(session_id=forked.session_id, prompt=[text_block("fork")]), 60)
        with pytest.raises(RequestError, match="Invalid params"):
            await conn.fork_session(cwd=os.getcwd(), session_id="no-such-session", mcp_servers=[])
        await conn.close_session(session_id=forked.session_id)
        with pytest.raises(RequestError, match="Invalid params"):  # closed: no longer open here
            await conn.prompt(session_id=forked.session_id, prompt=[text_block("more")])
    assert "first question" in request_text(llm_server) and "again" in request_text(llm_server)
    listed = {summary.session_id: summary for summary in SessionIndex().list_sessions(cwd=Path(os.getcwd()))}
    assert f"(fork of {original[:8]})" in listed[forked.session_id].title
    assert "fork of" not in listed[original].title


# -- questions that need words --------------------------------------------------------------------


async def test_ask_user_with_a_form_takes_the_users_own_words(llm_server: Any) -> None:
    llm_server.script(
        Reply.tool_call("ask_user", {"question": "Which database?", "options": ["SQLite", "Postgres"]}),
        Reply.text("Noted."),
    )
    client = FormClient(forms=[{"answer": "DuckDB, it is all local"}])
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=FORMS)
        new = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        done = await asyncio.wait_for(conn.prompt(session_id=new.session_id, prompt=[text_block("go")]), 60)
    assert done.stop_reason == "end_turn" and client.questions == []
    [(message, mode)] = client.asked_forms
    assert message == "Which database?"
    schema = mode.requested_schema
    assert [option.const for option in schema.properties["choice"].one_of] == ["SQLite", "Postgres"]
    assert "answered: DuckDB, it is all local" in request_text(llm_server)


async def test_ask_user_without_forms_offers_the_options_and_an_own_words_path(llm_server: Any) -> None:
    llm_server.script(
        Reply.tool_call("ask_user", {"question": "Which database?", "options": ["SQLite", "Postgres"]}),
        Reply.text("Tell me then."),
        Reply.tool_call("ask_user", {"question": "Which port?", "options": ["5432", "5433"]}, call_id="c2"),
        Reply.text("5433 it is."),
    )
    client = EditorClient(["own_words", "option-1"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("go")]), 60)
        own_words = request_text(llm_server)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("port?")]), 60)
    (tool_call, options), _ = client.questions
    assert tool_call.title == "Which database?" and tool_call.kind == "think"
    assert [option.name for option in options][:2] == ["SQLite", "Postgres"]
    assert "Answer in my own words (in my next message)" in [option.name for option in options]
    assert "answer this question in their own words, in their next message" in own_words
    assert "chose: 5433" in request_text(llm_server)


async def test_a_refusal_with_a_note_tells_the_model_why(llm_server: Any, project_dir: Path) -> None:
    llm_server.script(
        Reply.tool_call("bash", {"command": "rm -rf build && touch ran.txt"}),
        Reply.text("Understood."),
    )
    client = FormClient(["refuse+note"], forms=[{"note": "keep the build folder, it is cached"}])
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=FORMS)
        new = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        await asyncio.wait_for(conn.prompt(session_id=new.session_id, prompt=[text_block("clean")]), 60)
    [(_tool_call, options)] = client.questions
    assert {option.option_id for option in options} >= {"run", "refuse", "refuse+note"}
    assert not (project_dir / "ran.txt").exists()
    assert "keep the build folder, it is cached" in request_text(llm_server)
    [*_, finished] = client.of("tool_call_update")
    assert finished.raw_output == {"zett_state": "declined"}


async def test_a_shell_rule_chosen_in_the_editor_lets_later_commands_run_without_asking(
    llm_server: Any, project_dir: Path
) -> None:
    """As in the terminal's dialog: "from now on without asking" saves a rule for the project."""

    class PicksTheRule(EditorClient):
        async def request_permission(
            self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
        ) -> Any:
            self.questions.append((tool_call, options))
            [rule] = [option for option in options if "start with `touch`" in option.name]
            return RequestPermissionResponse(
                outcome=AllowedOutcome(outcome="selected", option_id=rule.option_id)
            )

    llm_server.script(
        Reply.tool_call("bash", {"command": "touch one.txt"}, call_id="c1"),
        Reply.tool_call("bash", {"command": "touch two.txt"}, call_id="c2"),
        Reply.text("Both there."),
    )
    client = PicksTheRule()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("touch them")]), 90)
    [(tool_call, options)] = client.questions  # the second command did not ask
    rule = next(option for option in options if "start with `touch`" in option.name)
    assert rule.kind == "allow_always" and tool_call.title == "Run `touch one.txt`"
    assert (project_dir / "one.txt").exists() and (project_dir / "two.txt").exists()


# -- subagents ----------------------------------------------------------------------------------------


async def test_a_subagents_run_shows_as_rows_and_its_question_names_it(
    llm_server: Any, project_dir: Path
) -> None:
    (project_dir / "notes.txt").write_text("the notes\n")
    llm_server.script(
        Reply.tool_call(
            "task",
            {"description": "Tidy the notes", "prompt": "Read notes.txt and write done.txt"},
            call_id="t1",
        ),
        Reply.tool_call("read_file", {"path": "notes.txt"}, call_id="c1"),
        Reply.tool_call("write_file", {"path": "done.txt", "content": "done\n"}, call_id="c2"),
        Reply.text("Read and wrote."),
        Reply.text("The subagent tidied up."),
    )
    client = EditorClient(["apply"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("tidy")]), 90)
    assert done.stop_reason == "end_turn"
    assert (project_dir / "done.txt").read_text() == "done\n"
    starts = {update.tool_call_id: update for update in client.of("tool_call")}
    assert (starts["t1"].kind, starts["t1"].title) == ("think", "Tidy the notes")
    assert starts["t1/c1"].title == "Tidy the notes › read_file notes.txt" and starts["t1/c1"].kind == "read"
    assert starts["t1/c1"].field_meta == {"zett": {"parentToolCallId": "t1"}}
    [(question, _options)] = client.questions
    assert question.tool_call_id == "t1/c2" and question.title.startswith("[general: Tidy the notes] ")
    finished = {u.tool_call_id: u.status for u in client.of("tool_call_update") if u.status == "completed"}
    assert {"t1", "t1/c1", "t1/c2"} <= set(finished)
    assert client.text() == "The subagent tidied up."


async def test_a_subagents_own_subagent_shows_under_its_parents_row(
    llm_server: Any, project_dir: Path
) -> None:
    """With ``max_depth = 2`` a subagent delegates once more: the grandchild's rows are under the
    subagent's ``task`` row (``t1/t1/...``), not at the top, though every call id is reused."""
    from zett_tui.core import paths

    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text("[subagents]\nmax_depth = 2\n")
    (project_dir / "notes.txt").write_text("the notes\n")
    llm_server.script(
        Reply.tool_call("task", {"description": "Outer job", "prompt": "Delegate the reading"}, call_id="t1"),
        Reply.tool_call("task", {"description": "Inner job", "prompt": "Read notes.txt"}, call_id="t1"),
        Reply.tool_call("read_file", {"path": "notes.txt"}, call_id="t1"),
        Reply.tool_call("write_file", {"path": "done.txt", "content": "done\n"}, call_id="c1"),
        Reply.text("inner report"),
        Reply.text("outer report"),
        Reply.text("All done."),
    )
    client = EditorClient(["apply"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("go")]), 90)
    assert done.stop_reason == "end_turn" and client.text() == "All done."
    assert (project_dir / "done.txt").read_text() == "done\n"
    starts = {update.tool_call_id: update for update in client.of("tool_call")}
    assert set(starts) == {"t1", "t1/t1", "t1/t1/t1", "t1/t1/c1"}
    assert starts["t1/t1"].title == "Outer job › Inner job"
    assert starts["t1/t1"].field_meta == {"zett": {"parentToolCallId": "t1"}}
    assert starts["t1/t1/t1"].title == "Outer job › Inner job › read_file notes.txt"
    assert starts["t1/t1/t1"].field_meta == {"zett": {"parentToolCallId": "t1/t1"}}
    [(question, _options)] = client.questions
    assert question.tool_call_id == "t1/t1/c1" and question.title.startswith("[general: Inner job] ")
    updates = client.of("tool_call_update")
    said = [
        u
        for u in updates
        if u.tool_call_id == "t1/t1" and u.content and "subagent" in u.content[0].content.text
    ]
    assert said and said[0].field_meta == {"zett": {"parentToolCallId": "t1"}}
    finished = {u.tool_call_id for u in updates if u.status == "completed"}
    assert finished == {"t1", "t1/t1", "t1/t1/t1", "t1/t1/c1"}


async def test_a_read_only_subagents_command_is_not_offered_the_network(llm_server: Any) -> None:
    """``explore``'s commands run offline whatever is answered: its question offers no run with the
    network on, which the main agent's question about the same command does."""
    llm_server.script(
        Reply.tool_call(
            "task", {"description": "Look", "prompt": "ls", "subagent_type": "explore"}, call_id="t1"
        ),
        Reply.tool_call("bash", {"command": "ls"}, call_id="c1"),
        Reply.text("looked"),
        Reply.tool_call("bash", {"command": "ls"}, call_id="c2"),
        Reply.text("Done."),
    )
    client = EditorClient(["run", "run"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("go")]), 90)
    assert done.stop_reason == "end_turn"
    (child, child_options), (main, main_options) = client.questions
    assert (child.tool_call_id, main.tool_call_id) == ("t1/c1", "c2")
    assert "run_with_network" in {option.option_id for option in main_options}
    assert "run_with_network" not in {option.option_id for option in child_options}


async def test_a_read_only_subagents_command_offers_no_rule_and_the_main_agent_still_asks(
    llm_server: Any,
) -> None:
    """A user who picks the widest answer each time: for ``explore``'s ``ls`` that is "Run it once"
    (a rule saved there would let the main agent run ``ls`` unasked, where it can write), so the
    main agent's ``ls`` asks again, and there a rule is offered."""

    class PicksTheWidest(EditorClient):
        async def request_permission(
            self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
        ) -> Any:
            self.questions.append((tool_call, options))
            widest = next(
                (option for option in options if option.kind == "allow_always"),
                next(option for option in options if option.option_id == "run"),
            )
            return RequestPermissionResponse(
                outcome=AllowedOutcome(outcome="selected", option_id=widest.option_id)
            )

    llm_server.script(
        Reply.tool_call(
            "task", {"description": "Look", "prompt": "ls", "subagent_type": "explore"}, call_id="t1"
        ),
        Reply.tool_call("bash", {"command": "ls"}, call_id="c1"),
        Reply.text("looked"),
        Reply.tool_call("bash", {"command": "ls"}, call_id="c2"),
        Reply.text("Done."),
    )
    client = PicksTheWidest()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("go")]), 90)
    assert done.stop_reason == "end_turn"
    (child, child_options), (main, main_options) = client.questions
    assert (child.tool_call_id, main.tool_call_id) == ("t1/c1", "c2")
    assert [option.option_id for option in child_options] == ["run", "refuse"]
    assert any(option.kind == "allow_always" for option in main_options)


async def test_loading_a_session_replays_a_subagents_rows_under_its_task(
    llm_server: Any, project_dir: Path
) -> None:
    """``session/load`` of a terminal session: the subagent's rows (and its own subagent's) come
    back as they were shown live, not its prompt or report as the conversation's messages."""
    from zett_tui.core import paths

    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text("[subagents]\nmax_depth = 2\n")
    (project_dir / "notes.txt").write_text("the notes\n")
    llm_server.script(
        Reply.tool_call("task", {"description": "Outer job", "prompt": "Delegate the reading"}, call_id="t1"),
        Reply.tool_call("read_file", {"path": "notes.txt"}, call_id="r1"),
        Reply.tool_call("task", {"description": "Inner job", "prompt": "Read notes.txt"}, call_id="t1"),
        Reply.tool_call("read_file", {"path": "notes.txt"}, call_id="r1"),
        Reply.text("inner report"),
        Reply.text("outer report"),
        Reply.text("All done."),
    )
    assert zett(llm_server, "-p", "go").returncode == 0
    [turn] = recorded_turns()
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.load_session(cwd=os.getcwd(), session_id=turn["session_id"], mcp_servers=[])
    assert client.text("user_message_chunk") == "go" and client.text() == "All done."
    starts = {update.tool_call_id: update for update in client.of("tool_call")}
    assert list(starts) == ["t1", "t1/r1", "t1/t1", "t1/t1/r1"]
    assert [starts[row].title for row in starts] == [
        "Outer job",
        "Outer job › read_file notes.txt",
        "Outer job › Inner job",
        "Outer job › Inner job › read_file notes.txt",
    ]
    assert starts["t1"].field_meta is None
    assert starts["t1/r1"].field_meta == {"zett": {"parentToolCallId": "t1"}}
    assert starts["t1/t1/r1"].field_meta == {"zett": {"parentToolCallId": "t1/t1"}}
    results = {update.tool_call_id: update.status for update in client.of("tool_call_update")}
    assert results == dict.fromkeys(starts, "completed")


async def test_cancel_stops_three_subagents_and_their_commands_and_ends_every_row(
    llm_server: Any, project_dir: Path
) -> None:
    from dataclasses import replace

    from tests.fakes.host import live_processes_mentioning

    jobs = [
        {"call_id": f"t{n}", "tool_name": "task", "arguments": {"description": f"job {n}", "prompt": "wait"}}
        for n in (2, 3)
    ]
    llm_server.script(
        replace(
            Reply.tool_call("task", {"description": "job 1", "prompt": "wait"}, call_id="t1"), more_calls=jobs
        ),
        *[
            Reply.tool_call("bash", {"command": f"sleep 30 && touch late{n}.txt"}, call_id=f"c{n}")
            for n in (1, 2, 3)
        ],
        Reply.text("After."),
    )
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await conn.set_session_mode(session_id=session_id, mode_id="auto")
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("wait")]))
        deadline = asyncio.get_running_loop().time() + 60
        while len(live_processes_mentioning("&& touch late")) < 3:
            assert asyncio.get_running_loop().time() < deadline, "the three commands never ran"
            await asyncio.sleep(0.1)
        await conn.cancel(session_id=session_id)
        done = await asyncio.wait_for(turn, 15)
        assert done.stop_reason == "cancelled"
        await asyncio.sleep(0.3)
        assert not live_processes_mentioning("&& touch late")
        again = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("go on")]), 60)
    assert again.stop_reason == "end_turn" and "After." in client.text()
    assert not list(project_dir.glob("late*.txt"))
    started_rows = {update.tool_call_id for update in client.of("tool_call")}
    assert {"t1", "t2", "t3"} <= started_rows and len(started_rows) == 6
    ended = {
        update.tool_call_id: (update.status, update.raw_output)
        for update in client.of("tool_call_update")
        if update.status in ("completed", "failed")
    }
    assert set(ended) == started_rows  # no row is left spinning in the editor
    assert all(value == ("failed", {"zett_state": "cancelled"}) for value in ended.values())


# -- two folders ----------------------------------------------------------------------------------


async def test_sessions_in_two_folders_run_turns_at_the_same_time(llm_server: Any, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    llm_server.script(
        # its first words, then the stream holds the turn open until the second folder's is done
        Reply.stall(60, after_chunks=1, text="word " * 300, chunk=5),
        Reply.tool_call("write_file", {"path": "b.txt", "content": "second\n"}),
        Reply.text("Wrote it."),
    )
    client = EditorClient(["apply"])
    async with spawn(client, llm_server, cwd=str(first)) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        one = await conn.new_session(cwd=str(first), mcp_servers=[])
        two = await conn.new_session(cwd=str(second), mcp_servers=[])
        long_turn = asyncio.ensure_future(conn.prompt(session_id=one.session_id, prompt=[text_block("talk")]))
        for _ in range(600):
            if client.of("agent_message_chunk"):
                break
            await asyncio.sleep(0.05)
        done = await asyncio.wait_for(
            conn.prompt(session_id=two.session_id, prompt=[text_block("write")]), 60
        )
        assert done.stop_reason == "end_turn"
        assert not long_turn.done()  # the first folder's turn was still running meanwhile
        llm_server.release_stalls()
        assert (await asyncio.wait_for(long_turn, 60)).stop_reason == "end_turn"
        await conn.set_session_mode(session_id=two.session_id, mode_id="auto")
    assert (second / "b.txt").read_text() == "second\n" and not (first / "b.txt").exists()
    from zett_tui.sessions.index import SessionIndex

    index = SessionIndex()  # each folder's session recorded, under its own folder
    assert [found.session_id for found in index.list_sessions(cwd=second)] == [two.session_id]
    assert [found.session_id for found in index.list_sessions(cwd=first)] == [one.session_id]
    [(question, _options)] = client.questions
    assert question.locations[0].path == str(second / "b.txt")
    assert "Wrote it." in client.text()


async def test_a_folder_process_that_dies_fails_its_requests_and_the_rest_goes_on(
    llm_server: Any, tmp_path: Path
) -> None:
    import signal

    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    llm_server.script(Reply.text("word " * 300, chunk=5, delay=0.03), Reply.text("First folder here."))
    client = EditorClient()
    async with spawn(client, llm_server, cwd=str(first)) as (conn, process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        one = await conn.new_session(cwd=str(first), mcp_servers=[])
        two = await conn.new_session(cwd=str(second), mcp_servers=[])
        turn = asyncio.ensure_future(conn.prompt(session_id=two.session_id, prompt=[text_block("talk")]))
        for _ in range(600):
            if client.of("agent_message_chunk"):
                break
            await asyncio.sleep(0.05)
        # the folder's own zett process: a direct child (it may be running git or a command itself)
        [child] = [pid for pid in _pids_in(second) if _parent_of(pid) == process.pid]
        os.kill(child, signal.SIGKILL)
        with pytest.raises(RequestError, match="Internal error"):  # answered, not left waiting
            await asyncio.wait_for(turn, 30)
        with pytest.raises(RequestError, match="Invalid params"):  # its session is gone
            await conn.prompt(session_id=two.session_id, prompt=[text_block("again")])
        done = await asyncio.wait_for(conn.prompt(session_id=one.session_id, prompt=[text_block("hi")]), 60)
        assert done.stop_reason == "end_turn" and "First folder here." in client.text()
        again = await conn.new_session(cwd=str(second), mcp_servers=[])  # a new process for it
        assert again.session_id != two.session_id
        process.stdin.close()  # the editor leaves: zett ends, and the new folder process with it
        assert await asyncio.wait_for(process.wait(), 60) == 0
    assert [pid for pid in _pids_in(second) if pid != process.pid] == []


def _pids_in(folder: Path) -> list[int]:
    """The processes working in ``folder`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == folder:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _parent_of(pid: int) -> int | None:
    """The parent process id of ``pid`` (Linux /proc), None once it is gone."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])  # the name in parentheses may hold spaces


# -- the log ------------------------------------------------------------------------------------------


async def test_the_log_on_disk_is_redacted_and_each_record_written_once(llm_server: Any) -> None:
    """A secret-shaped string in something zett logs (a key pasted into the wrong setting of the
    config file, which the session's start logs as a config problem) is redacted in the log file
    itself; and the record is there once, though the log is set up at start and per session."""
    from zett_tui.core import paths

    secret = "sk-proj-" + "zq8" * 20
    config = paths.config_dir() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'reasoning_effort = "{secret}"\n', encoding="utf-8")
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
    written = paths.log_file().read_text()
    assert "unknown reasoning effort" in written  # the record is there
    assert secret not in written and secret[:16] not in written
    ready = [line for line in written.splitlines() if "agent ready" in line]
    assert len(ready) == 2  # two sessions, one line each


def test_a_folder_s_own_zett_tui_is_not_what_its_zett_acp_runs(tmp_path: Path) -> None:
    """The zett acp started for another folder runs in that folder: a ``zett_tui`` package a cloned
    repository (or a sandboxed command) put there is not what it imports."""
    import subprocess

    from zett_tui.acp.folders import child_command

    marker = tmp_path / "ran"
    project = tmp_path / "project"
    (project / "zett_tui").mkdir(parents=True)
    planted = f"open({str(marker)!r}, 'w').close()\n"
    (project / "zett_tui" / "__init__.py").write_text(planted)
    (project / "zett_tui" / "__main__.py").write_text(planted)
    subprocess.run([*child_command(None, None), "--help"], cwd=project, capture_output=True, timeout=60)
    assert not marker.exists()
