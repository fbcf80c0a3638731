"""Steer or queue in the real ``zett`` in a pseudo-terminal: keys in, screen and requests out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, zett_env
from tests.fakes.llm_server import Reply

pytestmark = pytest.mark.e2e

SLOW = "I am reading the loader and the tests, one file after another, slowly. " * 4


def last_user_text(body: dict) -> str:
    users = [message for message in body["messages"] if message.get("role") == "user"]
    return json.dumps(users[-1]["content"]) if users else ""


def test_enter_steers_the_running_turn_and_tab_queues_for_after_it(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(
        Reply.text(SLOW, chunk=4, delay=0.04),
        Reply.text("Steered: tests mentioned."),
        Reply.text("The queued one, answered."),
    )
    env = zett_env(
        home, OPENAI_API_KEY="sk-test-steer-000000000000", OPENAI_BASE_URL=llm_server.openai_base_url
    )
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.wait_for(lambda text: "idle" in text)
        terminal.send("refactor the loader\r")
        terminal.wait_for_text("Enter: tell the running turn")
        terminal.send("mention the tests\r")
        terminal.wait_for_text("into this turn: mention the tests")
        terminal.send("then update the README\t")
        terminal.wait_for_text("after this turn: then update the README")
        terminal.wait_for_text("The queued one, answered.")
        shown = terminal.wait_for(lambda text: "idle" in text)
        assert "you, during the turn: mention the tests" in shown
        assert "into this turn" not in shown and "after this turn" not in shown
    finally:
        terminal.close()
    bodies = [request.body for request in llm_server.requests]
    assert len(bodies) == 3
    assert "mention the tests" in last_user_text(bodies[1])  # the same turn's next model call
    assert "then update the README" in last_user_text(bodies[2])  # a turn of its own, after it


def test_esc_stops_the_turn_and_the_queued_prompt_comes_back_unsent(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(Reply.text(SLOW * 4, chunk=4, delay=0.04), Reply.text("Only after Enter."))
    env = zett_env(
        home, OPENAI_API_KEY="sk-test-steer-000000000000", OPENAI_BASE_URL=llm_server.openai_base_url
    )
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.wait_for(lambda text: "idle" in text)
        terminal.send("a turn that goes wrong\r")
        terminal.wait_for_text("Enter: tell the running turn")
        terminal.send("the next question\t")
        terminal.wait_for_text("after this turn: the next question")
        terminal.send("\x1b")
        shown = terminal.wait_for(lambda text: "idle" in text and "after this turn" not in text)
        assert "the next question" in shown  # back in the prompt box
        assert len(llm_server.requests) == 1  # nothing sent by the stop
        terminal.send("\r")
        terminal.wait_for_text("Only after Enter.")
    finally:
        terminal.close()
    assert len(llm_server.requests) == 2
    assert "the next question" in last_user_text(llm_server.requests[1].body)
