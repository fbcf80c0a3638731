"""The terminal's answers (device attributes, colours, DCS) are taken out of what is read; keys stay."""

from __future__ import annotations

from zett_tui.terminal.background import typed_keys
from zett_tui.terminal.replies import ReplyFilter, strip_replies


def test_whole_answers_are_taken_out_and_the_keys_around_them_stay_in_order() -> None:
    text = (
        "a\x1b[?62;22cb\x1b]11;rgb:0000/0000/0000\x1b\\c\x1b]10;rgb:ffff/ffff/ffff\x07d\x1bP>|xterm(1)\x1b\\e"
    )
    assert strip_replies(text) == "abcde"
    assert strip_replies("\x1b[>0;276;0cx") == "x"


def test_keys_and_what_textual_parses_itself_are_left_alone() -> None:
    kept = "\x1b[A\x1b[1;3B\x1b\x1b[I\x1b[O\x1b[12;40R\x1b[?2026;2$y\x1b[200~paste\x1b[201~"
    assert strip_replies(kept) == kept
    assert ReplyFilter().feed(kept) == kept


def test_an_answer_split_across_reads_is_taken_out_whole() -> None:
    replies = ReplyFilter()
    assert replies.feed("ab\x1b[?62;") == "ab"
    assert replies.feed("22cde") == "de"
    assert replies.feed("x\x1b]11;rgb:00/00") == "x"
    assert replies.feed("/00\x1b") == ""
    assert replies.feed("\\yz") == "yz"


def test_a_lone_escape_is_never_held_and_a_held_start_comes_out_at_the_end() -> None:
    replies = ReplyFilter()
    assert replies.feed("\x1b") == "\x1b"
    assert replies.feed("\x1b]") == ""  # Alt+] or the start of an answer: wait for the next read
    assert replies.flush() == "\x1b]"


def test_keys_typed_while_the_background_question_was_answered_are_kept() -> None:
    reply = b"hi\x1b]11;rgb:1c1c/1c1c/1c1c\x1b\\ there\x1b[?1;2c"
    assert typed_keys(reply) == b"hi there"
