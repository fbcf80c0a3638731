"""The line a session keeps for an answer given outside the terminal's dialogs (the editor's in
``zett acp``): in the terminal's words, read from the gate's request and reply
(``runtime.decisions.answer_lines``)."""

from __future__ import annotations

from zett_tui.runtime.decisions import (
    AskUserReply,
    AskUserRequest,
    EditReply,
    EditRequest,
    McpReply,
    McpRequest,
    ReadReply,
    ReadRequest,
    ShellReply,
    ShellRequest,
    WebReply,
    WebRequest,
)
from zett_tui.runtime.decisions.answer_lines import answer_line, settled_line
from zett_tui.runtime.decisions.ask_user import OWN_WORDS_TEXT


def test_each_answer_reads_as_the_terminal_says_it() -> None:
    shell = ShellRequest("s", "c1", "make test")
    assert answer_line(shell, ShellReply("c1", run=True)) == "✓ You allowed: make test"
    assert answer_line(shell, ShellReply("c1", run=True, network=True)) == (
        "✓ You allowed, once with the network on: make test"
    )
    assert answer_line(shell, ShellReply("c1", run=False, note="not now")) == (
        "✗ You refused: make test — your note: not now"
    )
    edit = EditRequest("s", "c1", "a.py", added=2, removed=1)
    assert answer_line(edit, EditReply("c1", "apply")) == "✓ You applied: edit a.py (+2 −1)"
    assert answer_line(edit, EditReply("c1", "reject", "use tabs")) == (
        "✗ You did not apply: edit a.py (+2 −1) — your note: use tabs"
    )
    read = ReadRequest("s", "c1", "read_file", "/etc/hosts")
    assert answer_line(read, ReadReply("c1", "deny", "The user's note: private")) == (
        "✗ You did not let read_file read /etc/hosts — your note: private"
    )
    mcp = McpRequest("s", "c1", "git", "commit")
    assert (
        answer_line(mcp, McpReply("c1", "session")) == "✓ You let MCP tool git › commit run for this session"
    )
    web = WebRequest("s", "c1", "https://example.org/", "example.org")
    assert answer_line(web, WebReply("c1", "once")) == "✓ You let web_fetch contact example.org once"
    assert (
        settled_line(shell, "the rule `make`")
        == "✓ Ran without asking: make test (allowed by the rule `make`)"
    )


def test_a_question_answered_later_in_the_users_own_words_is_not_said_to_be_declined() -> None:
    question = AskUserRequest("s", "c1", "Which port?")
    assert answer_line(question, AskUserReply("c1", "chose: 5433")) == "✓ You chose: 5433"
    assert answer_line(question, question.refuse()) == "✗ You declined to answer: Which port?"
    assert answer_line(question, question.refuse(OWN_WORDS_TEXT)) == (
        "✗ You chose to answer in your own words, in your next message: Which port?"
    )
