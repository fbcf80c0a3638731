"""The table of questions ``zett acp`` puts to an editor: every gate's options keep their meaning,
"..., and tell zett why" exists only for a client that takes forms, and a refusal's note reaches
the reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zett_tui.acp.permissions import GATES, NOTE_SUFFIX, question_for
from zett_tui.runtime.decisions import REQUEST_TYPES, EditReply, ReadReply, parse_request
from zett_tui.runtime.events import DecisionRequested

PAYLOADS: dict[str, dict[str, Any]] = {
    "shell_approval_requested": {"command": "make test"},
    "edit_approval_requested": {"path": "a.py", "operation": "edit", "diff": "-a\n+b\n"},
    "read_access_requested": {"tool": "read_file", "path": "/etc/hosts"},
    "sandbox_escape_requested": {"command": "npm install", "reason": "network"},
    "mcp_approval_requested": {"server": "git", "tool": "commit", "arguments": {"m": "x"}},
    "hook_approval_requested": {"tool": "bash", "reason": "policy"},
    "enter_plan_mode": {"reason": "big change"},
    "exit_plan_mode": {"plan": "1. do it"},
    "ask_user": {"question": "Which?", "options": ["A", "B"]},
    "web_fetch_requested": {"url": "https://example.org/", "domain": "example.org"},
}


def request_of(kind: str) -> object:
    return parse_request(DecisionRequested(kind, "s1", {"tool_call_id": "c1", **PAYLOADS[kind]}))


def test_every_gate_has_a_row_in_the_table() -> None:
    assert set(REQUEST_TYPES) == set(PAYLOADS)
    assert set(GATES) == set(REQUEST_TYPES.values())


@pytest.mark.parametrize("kind", sorted(PAYLOADS))
def test_each_question_can_be_allowed_and_refused(kind: str) -> None:
    question = question_for(request_of(kind), Path("/project"))  # type: ignore[arg-type]
    kinds = {option.kind for option in question.options}
    assert "reject_once" in kinds and kinds & {"allow_once", "allow_always"}
    assert question.tool_call.tool_call_id == "c1" and question.tool_call.title
    assert question.refused().declined  # a client that cancels refuses
    assert question.reply("no-such-option").declined
    assert not any(option.option_id.endswith(NOTE_SUFFIX) for option in question.options)


@pytest.mark.parametrize("kind", sorted(PAYLOADS))
def test_a_note_is_offered_only_to_a_client_that_takes_forms(kind: str) -> None:
    question = question_for(request_of(kind), Path("/project"), notes=True)  # type: ignore[arg-type]
    with_note = [option for option in question.options if option.option_id.endswith(NOTE_SUFFIX)]
    for option in with_note:
        plain = question.choices[option.option_id.removesuffix(NOTE_SUFFIX)]
        assert option.kind == plain.kind == "reject_once" and option.name.startswith(plain.name)
        assert question.reply(option.option_id, "because").declined
    expected = kind not in ("enter_plan_mode", "ask_user")  # nothing to say to "continue"/"decline"
    assert bool(with_note) == expected


def test_the_note_reaches_the_reply() -> None:
    edit = question_for(request_of("edit_approval_requested"), Path("/p"), notes=True)  # type: ignore[arg-type]
    assert edit.reply("reject" + NOTE_SUFFIX, "use tabs") == EditReply("c1", "reject", "use tabs")
    read = question_for(request_of("read_access_requested"), Path("/p"), notes=True)  # type: ignore[arg-type]
    assert read.reply("deny" + NOTE_SUFFIX, "private") == ReadReply("c1", "deny", "The user's note: private")
    shell = question_for(request_of("shell_approval_requested"), Path("/p"), notes=True)  # type: ignore[arg-type]
    steer = shell.choices["refuse" + NOTE_SUFFIX].steer
    assert steer is not None and steer("not now") == "I did not let you run `make test`. not now"


def test_a_subagents_question_names_it_and_points_at_its_row() -> None:
    question = question_for(
        request_of("shell_approval_requested"),  # type: ignore[arg-type]
        Path("/p"),
        asker="explore: find the tests",
        call_id="t1/c1",
    )
    assert question.tool_call.title == "[explore: find the tests] Run `make test`"
    assert question.tool_call.tool_call_id == "t1/c1"
    own_words = [option.option_id for option in question_for(request_of("ask_user"), Path("/p")).options]  # type: ignore[arg-type]
    assert "own_words" in own_words
    asked = question_for(request_of("ask_user"), Path("/p"), asker="general: x")  # type: ignore[arg-type]
    assert "own_words" not in [
        option.option_id for option in asked.options
    ]  # its next message is not the child's


def test_a_shell_question_offers_the_hosts_rules_and_a_run_with_the_network() -> None:
    from zett_tui.acp.permissions import Offers
    from zett_tui.runtime.decisions import ShellReply
    from zett_tui.runtime.shell.policy import Rule

    saved: list[Rule] = []
    rule = Rule("prefix", "make")
    offers = Offers(Path("/p"), shell_rules=[rule], save_rule=saved.append, network_once=True)
    question = question_for(request_of("shell_approval_requested"), offers)  # type: ignore[arg-type]
    by_id = {option.option_id: option for option in question.options}
    assert by_id["rule-0"].kind == "allow_always" and "start with `make`" in by_id["rule-0"].name
    assert question.reply("run_with_network") == ShellReply("c1", run=True, network=True)
    assert question.reply("rule-0") == ShellReply("c1", run=True) and saved == []
    then = question.choices["rule-0"].then
    assert then is not None
    then()
    assert saved == [rule]
    plain = question_for(request_of("shell_approval_requested"), Path("/p"))  # type: ignore[arg-type]
    assert [option.option_id for option in plain.options] == ["run", "refuse"]


async def test_a_form_answer_is_said_as_in_the_terminal() -> None:
    """``ask_user`` as a form: several options when the model allows several, free text beside
    them, an option the model did not offer ignored, nothing at all declining."""
    from acp.schema import AcceptElicitationResponse, DeclineElicitationResponse

    from zett_tui.acp.elicitation import ask_in_form
    from zett_tui.runtime.decisions import AskUserReply, AskUserRequest

    class Form:
        def __init__(self, response: Any) -> None:
            self.response = response
            self.asked: list[tuple[str, Any]] = []

        async def create_elicitation(self, message: str, mode: Any) -> Any:
            self.asked.append((message, mode))
            return self.response

    request = AskUserRequest("s1", "c1", "Which checks?", ("lint", "tests", "types"), allow_multiple=True)
    picked = Form(
        AcceptElicitationResponse(
            action="accept", content={"choice": ["lint", "types", "rm -rf"], "answer": " and quickly "}
        )
    )
    reply = await ask_in_form(picked, "s1", "t1/c1", request, "explore: check")
    assert reply == AskUserReply("c1", "chose: lint; types and added: and quickly")
    [(message, mode)] = picked.asked
    assert message == "[explore: check] Which checks?" and mode.tool_call_id == "t1/c1"
    assert [option.const for option in mode.requested_schema.properties["choice"].items.any_of] == [
        "lint",
        "tests",
        "types",
    ]
    empty = await ask_in_form(
        Form(AcceptElicitationResponse(action="accept", content={})), "s1", "c1", request, ""
    )
    declined = await ask_in_form(Form(DeclineElicitationResponse(action="decline")), "s1", "c1", request, "")
    assert empty.declined and declined.declined
