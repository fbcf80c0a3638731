"""The typed questions and answers of every gate (``runtime.decisions``): what goes over the
runtime, and that "declined" follows from the reply's kind for every gate."""

from __future__ import annotations

from pathlib import Path

from zett_tui.runtime.decisions import (
    REQUEST_TYPES,
    EditReply,
    McpReply,
    McpRequest,
    ReadReply,
    ShellReply,
    UnknownRequest,
    parse_request,
)
from zett_tui.runtime.events import DecisionRequested
from zett_tui.ui.chat.answers import FACTORIES


def decision(kind: str, **payload: object) -> DecisionRequested:
    return DecisionRequested(kind, "s1", {"tool_call_id": "c1", **payload})


def test_every_gate_has_a_request_type_and_a_dialog() -> None:
    assert set(REQUEST_TYPES) == set(FACTORIES)


def test_a_refusal_is_declined_for_every_gate() -> None:
    for kind in REQUEST_TYPES:
        reply = parse_request(decision(kind)).refuse("no")
        assert reply.declined, kind
        assert reply.payload()["tool_call_id"] == "c1", kind


def test_an_unknown_question_is_refused_as_abort() -> None:
    request = parse_request(decision("something_new"))
    assert isinstance(request, UnknownRequest)
    assert request.refuse().payload() == {"tool_call_id": "c1", "decision": "abort"}


def test_a_refused_mcp_call_is_declined_in_the_chat(tmp_path: Path) -> None:
    """It used to say "failed": its answer forgot ``declined``; now the reply's kind says it."""
    request = parse_request(decision("mcp_approval_requested", server="git", tool="push", arguments={}))
    assert isinstance(request, McpRequest)
    _screen, to_answer = FACTORIES[request.kind](request, None, tmp_path)
    refused = to_answer(None)
    assert refused.declined and refused.payload["decision"] == "refuse"
    hook = parse_request(decision("hook_approval_requested", tool="bash"))
    _screen, to_answer = FACTORIES[hook.kind](hook, None, tmp_path)
    assert to_answer(None).declined


def test_gates_read_their_replies_strictly() -> None:
    assert McpReply.parse({"tool_call_id": "c1", "decision": "yes please"}).choice == "refuse"
    assert ReadReply.parse({"tool_call_id": "c1", "decision": "session"}).choice == "session"
    assert EditReply.parse({"tool_call_id": "c1", "decision": "apply_all"}).choice == "apply_all"
    for parse in (ReadReply.parse, EditReply.parse):
        try:
            parse({"tool_call_id": "c1", "decision": "maybe"})
        except ValueError:
            continue
        raise AssertionError(f"{parse} accepted a reply that is none of its choices")


def test_the_shell_reply_keeps_the_runtime_shape() -> None:
    assert ShellReply("c1", run=True, network=True).payload() == {
        "tool_call_id": "c1",
        "decision": "execute",
        "remember": False,
        "network": True,
    }
    assert ShellReply("c1", run=False, network=True).payload()["decision"] == "abort"
    assert "network" not in ShellReply("c1", run=False, network=True).payload()


def test_a_web_fetch_question_is_typed_and_only_a_clear_yes_fetches() -> None:
    from zett_tui.acp.permissions import question_for
    from zett_tui.runtime.decisions import WebReply, WebRequest

    request = parse_request(
        decision(
            "web_fetch_requested", url="https://docs.example/a?t=1", domain="docs.example", query_chars=3
        )
    )
    assert isinstance(request, WebRequest)
    assert (request.url, request.domain, request.query_chars) == (
        "https://docs.example/a?t=1",
        "docs.example",
        3,
    )
    assert WebReply.parse({"tool_call_id": "c1", "decision": "always"}).choice == "always"
    for odd in ("yes", None, "ALWAYS", 1):
        assert WebReply.parse({"tool_call_id": "c1", "decision": odd}).declined, odd
    question = question_for(request, Path("."))
    assert question.tool_call.kind == "fetch"
    assert {option.kind for option in question.options} == {"allow_once", "allow_always", "reject_once"}
    assert question.refused().declined
