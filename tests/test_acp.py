"""``zett acp`` as an editor starts it: a real subprocess driven by the SDK's client side
(``acp.spawn_agent_process``), against the fake OpenAI server."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from tests.fakes.host import live_processes_mentioning
from tests.fakes.llm_server import Reply
from tests.test_headless import KEY, cli_env, recorded_turns


class EditorClient:
    """What an editor does: keeps every update, answers each permission request from a script."""

    def __init__(self, answers: list[str | None] | None = None) -> None:
        self.updates: list[Any] = []
        self.questions: list[Any] = []
        self.answers = list(answers or [])
        self.asked = asyncio.Event()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        self.questions.append((tool_call, options))
        self.asked.set()
        answer = self.answers.pop(0) if self.answers else None
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    def of(self, kind: str) -> list[Any]:
        return [update for update in self.updates if update.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(update.content.text for update in self.of(kind))


def env_for(server: Any) -> dict[str, str]:
    return {**cli_env(server), "ZETT_MODEL": "openai:gpt-test"}


def spawn(client: EditorClient, server: Any) -> Any:
    return spawn_agent_process(
        client, sys.executable, "-m", "zett_tui", "acp", env=env_for(server), cwd=os.getcwd()
    )


async def started(conn: Any) -> str:
    init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
    assert init.agent_capabilities.load_session
    new = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
    return new.session_id


async def test_a_streamed_answer_arrives_as_message_chunks(llm_server: Any) -> None:
    llm_server.script(Reply.text("The answer is **42**.", chunk=4, reasoning="thinking it over"))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(
            conn.prompt(session_id=session_id, prompt=[text_block("what is it?")]), 60
        )
    assert done.stop_reason == "end_turn"
    assert client.text() == "The answer is **42**."
    assert len(client.of("agent_message_chunk")) > 1  # streamed, not in one piece
    assert client.text("agent_thought_chunk") == "thinking it over"
    assert client.of("usage_update")  # how full the context is
    [turn] = recorded_turns()
    assert turn["status"] == "completed" and KEY not in str(turn)
    from zett_tui.sessions.index import SessionIndex

    [listed] = SessionIndex().list_sessions(cwd=os.getcwd())  # what `zett sessions list` shows
    assert listed.session_id == session_id and listed.title == "what is it?"


async def test_a_write_asks_and_once_allowed_runs_with_its_diff(llm_server: Any, project_dir: Path) -> None:
    llm_server.script(
        Reply.tool_call("write_file", {"path": "hello.py", "content": "print('hi')\n"}),
        Reply.text("Written."),
    )
    client = EditorClient(["apply"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        done = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("write it")]), 60)
    assert done.stop_reason == "end_turn"
    [(tool_call, options)] = client.questions
    assert tool_call.kind == "edit" and {option.kind for option in options} >= {"allow_once", "reject_once"}
    assert (project_dir / "hello.py").read_text() == "print('hi')\n"
    [start] = client.of("tool_call")
    assert start.kind == "edit" and start.locations[0].path.endswith("hello.py")
    [*_, finished] = client.of("tool_call_update")
    assert finished.status == "completed"
    [diff] = [part for part in finished.content if part.type == "diff"]
    assert diff.new_text == "print('hi')\n" and diff.old_text is None


async def test_a_refused_write_is_declined_and_changes_nothing(llm_server: Any, project_dir: Path) -> None:
    llm_server.script(
        Reply.tool_call("write_file", {"path": "hello.py", "content": "print('hi')\n"}),
        Reply.text("Understood."),
    )
    client = EditorClient(["reject"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("write it")]), 60)
    assert not (project_dir / "hello.py").exists()
    [*_, finished] = client.of("tool_call_update")
    assert finished.status == "failed" and finished.raw_output == {"zett_state": "declined"}


async def test_cancel_mid_stream_stops_the_turn_and_the_session_goes_on(llm_server: Any) -> None:
    llm_server.script(Reply.text("word " * 400, chunk=5, delay=0.02), Reply.text("Still here."))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("talk")]))
        for _ in range(600):
            if client.of("agent_message_chunk"):
                break
            await asyncio.sleep(0.05)
        with pytest.raises(RequestError, match="Invalid request"):  # one turn at a time
            await conn.prompt(session_id=session_id, prompt=[text_block("meanwhile")])
        await conn.cancel(session_id=session_id)
        done = await asyncio.wait_for(turn, 30)
        assert done.stop_reason == "cancelled"
        again = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("go on")]), 60)
        assert again.stop_reason == "end_turn"
    assert "Still here." in client.text()
    assert [turn["status"] for turn in recorded_turns()] == ["cancelled", "completed"]


async def test_load_replays_a_terminal_session_and_lists_it(llm_server: Any) -> None:
    llm_server.script(Reply.text("First answer."))
    from tests.test_headless import zett

    assert zett(llm_server, "-p", "first question").returncode == 0
    [turn] = recorded_turns()
    session_id = turn["session_id"]
    llm_server.script(Reply.text("Second answer."))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        listed = await conn.list_sessions(cwd=os.getcwd())
        assert session_id in [session.session_id for session in listed.sessions]
        await conn.load_session(cwd=os.getcwd(), session_id=session_id, mcp_servers=[])
        assert client.text("user_message_chunk") == "first question"
        assert client.text() == "First answer."
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("second")]), 60)
    assert [turn["session_id"] for turn in recorded_turns()] == [session_id, session_id]
    assert "first question" in str(llm_server.requests[-1].body)  # the history was restored


async def test_modes_are_session_modes(llm_server: Any) -> None:
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        new = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        assert new.modes.current_mode_id == "ask"
        assert [mode.id for mode in new.modes.available_modes] == ["ask", "accept_edits", "plan", "auto"]
        await conn.set_session_mode(session_id=new.session_id, mode_id="accept_edits")
        with pytest.raises(Exception, match="Invalid params"):
            await conn.set_session_mode(session_id=new.session_id, mode_id="anything")
        await asyncio.sleep(0.2)
    assert [update.current_mode_id for update in client.of("current_mode_update")] == ["accept_edits"]


async def test_plan_mode_the_model_enters_is_the_editors_mode(llm_server: Any) -> None:
    """The editor hears the mode the session is in once the model entered Plan Mode (the mode
    the core holds after the change, not the one before it)."""
    llm_server.script(Reply.tool_call("enter_plan_mode", {"reason": "Big."}), Reply.text("Planning."))
    client = EditorClient(["enter"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("plan it")]), 60)
        await asyncio.sleep(0.2)
    assert [update.current_mode_id for update in client.of("current_mode_update")] == ["plan"]


async def test_a_client_that_closes_stdin_mid_turn_ends_it_cleanly(llm_server: Any) -> None:
    llm_server.script(Reply.text("word " * 400, chunk=5, delay=0.02))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, process):
        session_id = await started(conn)
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("talk")]))
        for _ in range(600):
            if client.of("agent_message_chunk"):
                break
            await asyncio.sleep(0.05)
        process.stdin.close()
        code = await asyncio.wait_for(process.wait(), 30)
        turn.cancel()
    assert code == 0
    assert [turn["status"] for turn in recorded_turns()] == ["cancelled"]


def test_the_early_initialize_answer_is_the_sdks_own() -> None:
    """``fast_start`` answers ``initialize`` before the SDK is imported: same version, same shape."""
    import acp
    from acp.schema import InitializeResponse

    from zett_tui.acp.capabilities import PROTOCOL_VERSION, initialize_result

    assert PROTOCOL_VERSION == acp.PROTOCOL_VERSION
    result = initialize_result(PROTOCOL_VERSION + 3)
    parsed = InitializeResponse.model_validate(result)
    assert parsed.protocol_version == PROTOCOL_VERSION
    assert parsed.model_dump(by_alias=True, exclude_unset=True) == result  # every key is the SDK's
    capabilities = parsed.agent_capabilities
    assert capabilities.prompt_capabilities.image  # a model that reads none refuses with a clear line
    sessions = capabilities.session_capabilities
    assert sessions.list and sessions.resume and sessions.fork and sessions.close


def test_bad_input_gets_json_rpc_errors_and_nothing_else_on_stdout(llm_server: Any) -> None:
    import json
    import subprocess
    import threading

    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": PROTOCOL_VERSION}},
        {"jsonrpc": "2.0", "id": 2, "method": "no/such/method", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "session/prompt",
            "params": {"sessionId": "nope", "prompt": []},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "session/new",
            "params": {"cwd": "relative/folder", "mcpServers": []},
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "session/set_mode",
            "params": {"sessionId": "nope", "modeId": "ask"},
        },
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\nnot json at all\n[1, 2]\n"
    process = subprocess.Popen(
        [sys.executable, "-m", "zett_tui", "acp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(llm_server),
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdin.write(text)
    process.stdin.flush()
    watchdog = threading.Timer(60, process.kill)  # a missing answer fails the test, not the suite
    watchdog.start()
    try:
        replies = [json.loads(process.stdout.readline()) for _ in range(len(lines) + 2)]
    finally:
        watchdog.cancel()
    process.stdin.close()  # the client leaves once it has every answer
    assert process.wait(timeout=60) == 0
    assert process.stdout.read() == "" and "Traceback" not in process.stderr.read()
    answers = {answer["id"]: answer for answer in replies}
    assert [answer["error"]["code"] for answer in replies if answer["id"] is None] == [-32700, -32600]
    assert "result" in answers[1]
    assert answers[2]["error"]["code"] == -32601
    assert {answers[number]["error"]["code"] for number in (3, 4, 5)} == {-32602}


async def test_the_editors_mcp_server_joins_behind_zetts_approvals(llm_server: Any) -> None:
    """A stdio server passed in session/new starts; its tool asks first, and a refusal is declined."""
    from acp.schema import EnvVariable, McpServerStdio

    root = str(Path(__file__).resolve().parent.parent)
    llm_server.script(
        Reply.tool_call("mcp__editorfake__write_note", {"text": "hi"}, call_id="c1"),
        Reply.tool_call("mcp__editorfake__write_note", {"text": "hi"}, call_id="c2"),
        Reply.text("Done."),
    )
    server = McpServerStdio(
        name="editorfake",
        command=sys.executable,
        args=["-m", "tests.fakes.mcp_server"],
        env=[EnvVariable(name="PYTHONPATH", value=root)],
    )
    client = EditorClient(["refuse", "once"])
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        new = await conn.new_session(cwd=os.getcwd(), mcp_servers=[server])
        done = await asyncio.wait_for(
            conn.prompt(session_id=new.session_id, prompt=[text_block("note it")]), 90
        )
    assert done.stop_reason == "end_turn"
    assert [tool_call.title for tool_call, _ in client.questions] == ["MCP tool editorfake › write_note"] * 2
    finished = [
        update for update in client.of("tool_call_update") if update.status in ("completed", "failed")
    ]
    assert [update.raw_output for update in finished] == [{"zett_state": "declined"}, {"zett_state": "done"}]
    assert "wrote 2 characters" in str(finished[-1].content)


async def test_cancel_kills_a_running_command(llm_server: Any, project_dir: Path) -> None:
    marker = project_dir / "finished.txt"
    llm_server.script(
        Reply.tool_call("bash", {"command": f"sleep 30 && touch {marker.name}"}, call_id="c1"),
        Reply.text("After."),
    )
    client = EditorClient(["run"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("wait")]))
        await asyncio.wait_for(client.asked.wait(), 60)
        for _ in range(1500):  # until the command is running (its shell is there), not a fixed second
            if live_processes_mentioning(f"touch {marker.name}"):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the command never started")
        await conn.cancel(session_id=session_id)
        done = await asyncio.wait_for(turn, 15)
    assert done.stop_reason == "cancelled"
    assert not marker.exists()
    assert not live_processes_mentioning(f"touch {marker.name}")
    [ended] = [update for update in client.of("tool_call_update") if update.status in ("completed", "failed")]
    assert (ended.tool_call_id, ended.status, ended.raw_output) == (
        "c1",
        "failed",
        {"zett_state": "cancelled"},
    )


async def test_an_untrusted_folder_asks_before_its_files_are_used(llm_server: Any, project_dir: Path) -> None:
    from zett_tui.config import trust

    (project_dir / ".zett").mkdir()
    (project_dir / ".zett" / "config.toml").write_text('model = "openai:gpt-from-the-project"\n')
    llm_server.script(Reply.text("Hello."), Reply.text("Hello again."))
    client = EditorClient(["distrust"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("hi")]), 60)
        await conn.new_session(cwd=os.getcwd(), mcp_servers=[])  # decided: not asked again
    [(tool_call, options)] = client.questions
    assert str(project_dir.resolve()) in tool_call.title
    assert {option.option_id: option.kind for option in options} == {
        "distrust": "reject_always",
        "trust": "allow_always",
    }
    project = trust.project_files(project_dir)
    assert project is not None and trust.trust_state(project) is trust.TrustState.DECLINED
    assert llm_server.requests[-1].body["model"] == "gpt-test"  # the project's model was not used


async def test_advertised_commands_run_as_in_the_terminal(llm_server: Any) -> None:
    """A Markdown command is advertised and expanded; /compact with nothing to compact says so."""
    from zett_tui.core import paths

    commands = paths.config_dir() / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("Say hello to $ARGUMENTS in one word.", encoding="utf-8")
    llm_server.script(Reply.text("Hi."))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        greeted = await asyncio.wait_for(
            conn.prompt(session_id=session_id, prompt=[text_block("/greet Ada")]), 60
        )
        compacted = await asyncio.wait_for(
            conn.prompt(session_id=session_id, prompt=[text_block("/compact")]), 60
        )
    assert greeted.stop_reason == "end_turn" and compacted.stop_reason == "end_turn"
    [advertised] = client.of("available_commands_update")
    assert {"greet", "compact", "continue"} <= {command.name for command in advertised.available_commands}
    assert "Say hello to Ada in one word." in str(llm_server.requests[0].body)
    assert "Nothing to compact yet." in client.text()
    assert len(llm_server.requests) == 1  # /compact called no model


async def test_a_todo_list_becomes_the_editors_plan(llm_server: Any) -> None:
    todos = [
        {"content": "read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "run the tests", "status": "pending", "activeForm": "Running the tests"},
    ]
    llm_server.script(Reply.tool_call("todo_write", {"todos": todos}), Reply.text("On it."))
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("plan it")]), 60)
    [plan] = client.of("plan")
    assert [(entry.content, entry.status) for entry in plan.entries] == [
        ("read the code", "completed"),
        ("Fixing the bug", "in_progress"),  # the step in progress by its activeForm, as on screen
        ("run the tests", "pending"),
    ]
