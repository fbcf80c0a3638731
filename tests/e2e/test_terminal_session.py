"""The real ``zett`` in a pseudo-terminal against the fake OpenAI server: screen and files on disk."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, zett_env
from tests.fakes.llm_server import Reply

pytestmark = pytest.mark.e2e

#: The key line of a dialog once it takes keys (until then it shows "…").
DIALOG_TAKES_KEYS = "Enter choose"

ANSWER = "## Result\n\nThe **fake server** answered with a list:\n\n- alpha\n- beta\n"


def session_files(home: Path) -> list[Path]:
    return sorted((home / "data" / "zett" / "sessions").glob("*.jsonl"))


def test_prompt_answer_tool_approval_and_quit(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(
        Reply.tool_call("bash", {"command": "echo from-the-shell > shell.txt"}),
        Reply.text(ANSWER, chunk=6),
    )
    env = zett_env(
        home, OPENAI_API_KEY="sk-test-not-a-real-key-000000000000", OPENAI_BASE_URL=llm_server.openai_base_url
    )
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.wait_for_text("openai:gpt-test")
        terminal.send("make the file")
        terminal.send("\r")
        shown = terminal.wait_for_text("Run this shell command?")
        assert "echo from-the-shell > shell.txt" in shown
        terminal.wait_for_text(DIALOG_TAKES_KEYS)  # keys before that go to the prompt
        terminal.send("\r")
        shown = terminal.wait_for_text("beta")
        assert "fake server" in shown and "Result" in shown
        assert (project / "shell.txt").read_text() == "from-the-shell\n"
        terminal.wait_for(lambda text: "idle" in text)
        terminal.send("\x03")
        terminal.wait_for_text("Ctrl+C again")
        terminal.send("\x03")
        code = terminal.wait_exit()
    finally:
        terminal.close()
    assert code == 0
    assert "To resume this session" in terminal.text()

    [record_file] = session_files(home)
    assert stat.S_IMODE(record_file.stat().st_mode) == 0o600
    [turn] = [json.loads(line) for line in record_file.read_text().splitlines()]
    assert turn["status"] == "completed"
    assert turn["messages"][0]["data"]["content"] == "make the file"
    assert "sk-test-not-a-real-key" not in record_file.read_text()
    bodies = [request.body for request in llm_server.requests]
    assert bodies[0]["model"] == "gpt-test"
    assert any("from-the-shell" in json.dumps(body) for body in bodies[1:])
    assert not (project / ".zett-tool-output").exists()


def test_a_rejected_key_is_one_line_and_the_app_stays_usable(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(Reply.error(401), Reply.text("Works now."))
    env = zett_env(home, OPENAI_API_KEY="sk-wrong", OPENAI_BASE_URL=llm_server.openai_base_url)
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.send("hello\r")
        shown = terminal.wait_for_text("401")
        assert "OPENAI_API_KEY" in shown
        assert "Traceback" not in shown
        terminal.send("again\r")
        terminal.wait_for_text("Works now.")
        terminal.send("\x04")
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()
    [record_file] = session_files(home)
    statuses = [json.loads(line)["status"] for line in record_file.read_text().splitlines()]
    assert statuses == ["failed", "completed"]


def test_plan_mode_entry_and_exit(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    plan = "# Plan\n\n1. Read `index.py`.\n2. Change one function.\n"
    llm_server.script(
        Reply.tool_call("enter_plan_mode", {"reason": "Three modules change."}, call_id="call_enter"),
        Reply.tool_call("exit_plan_mode", {"plan": plan}, call_id="call_exit"),
        Reply.text("Plan approved; starting on step one."),
    )
    key = "sk-test-not-a-real-key-000000000000"
    env = zett_env(home, OPENAI_API_KEY=key, OPENAI_BASE_URL=llm_server.openai_base_url)
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.send("plan the refactor\r")
        shown = terminal.wait_for_text("Enter Plan Mode?")
        assert "Three modules change." in shown
        terminal.wait_for_text(DIALOG_TAKES_KEYS)
        terminal.send("\r")  # Enter Plan Mode (the first, focused choice)
        shown = terminal.wait_for_text("Approve this plan?")
        assert "Change one function." in shown and "plan mode" in shown
        terminal.wait_for_text(DIALOG_TAKES_KEYS)
        terminal.send("\r")  # Approve, ask before edits
        terminal.wait_for_text("starting on step one.")
        shown = terminal.wait_for(lambda text: "idle" in text and "plan mode" not in text)
        assert "approved the plan" in shown
        terminal.send("\x04")
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()
    bodies = [request.body for request in llm_server.requests]
    tool_names = [{tool["function"]["name"] for tool in body.get("tools", [])} for body in bodies]
    assert "enter_plan_mode" in tool_names[0] and "exit_plan_mode" in tool_names[1]
    last_tool_result = [m for m in bodies[2]["messages"] if m["role"] == "tool"][-1]
    assert '"exited": true' in json.dumps(last_tool_result["content"]).replace('\\"', '"')
    [kept] = (home / "data" / "zett" / "plans").glob("*.md")
    assert kept.read_text() == plan.strip() + "\n"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
