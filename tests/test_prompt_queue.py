"""The prompt queue on its own: taking prompts back and putting them back, and the steering notes."""

from __future__ import annotations

from zett_tui.runtime.prompt_queue import PromptQueue
from zett_tui.ui.widgets.queued_prompts import queue_lines


def test_up_walks_back_through_the_queue_and_stops_at_the_first() -> None:
    queue = PromptQueue(["A", "B"])
    assert queue.take_back("") == "B"
    assert queue.take_back("B") == "A" and queue.items == ["B"]
    assert queue.take_back("A") == "A" and queue.items == ["B"]  # the first: Up stays on it
    assert queue.put_back("A") and queue.items == ["A", "B"]


def test_an_edited_prompt_is_the_users_and_a_draft_is_not_taken_over() -> None:
    queue = PromptQueue(["A", "B"])
    assert queue.take_back("my draft") is None  # Up on a draft is the history's, not the queue's
    assert queue.take_back("") == "B"
    assert queue.take_back("B, edited") is None and not queue.put_back("B, edited")
    assert queue.items == ["A"]


def test_notes_are_delivered_by_their_text_and_a_stop_gives_everything_back() -> None:
    queue = PromptQueue(["later"])
    queue.steer_sent("first note")
    queue.steer_sent("second note")
    queue.steer_delivered("a dialog's own note to the model")
    assert queue.pending_steers == ["first note", "second note"]
    queue.steer_delivered("first note")
    assert queue_lines(queue) == ["↳ into this turn: second note", "⏎ after this turn: later"]
    assert queue.drain() == ["second note", "later"]
    assert queue.items == [] and queue.pending_steers == [] and queue_lines(queue) == []


def test_listeners_hear_every_change() -> None:
    queue = PromptQueue()
    heard: list[int] = []
    queue.on_change(lambda: heard.append(len(queue)))
    queue.add("one")
    queue.add("two")
    queue.pop_next()
    queue.take_back("")
    assert heard == [1, 2, 1, 0]
