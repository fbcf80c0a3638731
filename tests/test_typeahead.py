"""Keys typed while zett starts are kept as typed (Enter stays Enter) and reach the prompt box."""

from __future__ import annotations

import io
import os
import select
import termios
from collections.abc import Iterator

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import make_app, prompts, ready_app, wait_for
from zett_tui.terminal import typeahead


@pytest.fixture(autouse=True)
def empty_buffer() -> Iterator[None]:
    typeahead.release()
    typeahead.take()
    yield
    typeahead.release()
    typeahead.take()


@pytest.fixture
def terminal() -> Iterator[tuple[int, io.TextIOWrapper]]:
    """A pseudo-terminal in its default (cooked) mode: the master end, and the slave as a file."""
    master, slave = os.openpty()
    slave_file = os.fdopen(slave, "r", closefd=True)
    yield master, slave_file
    slave_file.close()
    os.close(master)


def wait_readable(fd: int) -> None:
    assert select.select([fd], [], [], 5)[0], "nothing arrived on the terminal"


def test_keys_typed_in_cooked_mode_are_kept_with_enter_as_enter(terminal) -> None:
    master, slave = terminal
    before = termios.tcgetattr(slave)
    assert before[3] & termios.ICANON and before[0] & termios.ICRNL
    os.write(master, b"hello\r")  # the line discipline makes this "hello\n"
    wait_readable(slave.fileno())

    typeahead.hold(slave)

    assert typeahead.take() == "hello\r"
    raw = termios.tcgetattr(slave)
    assert not raw[3] & (termios.ICANON | termios.ECHO)
    assert not raw[0] & termios.ICRNL
    assert raw[3] & termios.ISIG, "Ctrl+C must still stop a slow start"


def test_keys_typed_after_hold_arrive_untranslated_and_release_restores(terminal) -> None:
    master, slave = terminal
    before = termios.tcgetattr(slave)
    typeahead.hold(slave)
    os.write(master, b"x\r")
    wait_readable(slave.fileno())
    assert os.read(slave.fileno(), 16) == b"x\r"

    typeahead.release()
    typeahead.release()
    assert termios.tcgetattr(slave) == before


def test_not_a_terminal_changes_nothing() -> None:
    typeahead.hold(io.StringIO())
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "r") as pipe:
        typeahead.hold(pipe)
    os.close(write_end)
    assert typeahead.take() == ""


def test_bytes_kept_by_others_come_after_in_order() -> None:
    typeahead.keep(b"ab")
    typeahead.keep("ç\r".encode())
    assert typeahead.take() == "abç\r"
    assert typeahead.take() == ""


async def test_a_prompt_typed_while_starting_is_sent_once_the_model_is_ready() -> None:
    typeahead.keep(b"hello\r")
    model = ScriptedModel(text_step("Hi."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(model.requests))
        assert prompts(app) == ["hello"]


async def test_a_draft_typed_while_starting_lands_in_the_prompt_box() -> None:
    typeahead.keep(b"draft")
    app = make_app(ScriptedModel())
    async with ready_app(app):
        assert app.chat.composer.text == "draft"
        assert app.focused is app.chat.composer


async def test_text_typed_while_starting_is_in_the_first_frame() -> None:
    typeahead.keep(b"draft")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(100, 30)):
        assert app.chat.composer.text == "draft"  # run_test returns once the app is mounted


async def test_keys_after_the_text_are_replayed_in_order() -> None:
    typeahead.keep(b"ab\rcd")  # "ab" goes in directly; Enter and "cd" are replayed after it
    model = ScriptedModel(text_step("Hi."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(model.requests))
        assert prompts(app) == ["ab"]
        assert app.chat.composer.text == "cd"
