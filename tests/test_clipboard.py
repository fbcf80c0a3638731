"""Copying: the exact escape sequences for plain terminals, tmux and screen, the size guard and its
file, local tools (never really run here), and the app's /copy, Alt+C and Ctrl+C."""

from __future__ import annotations

import base64
import re
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest
from textual import events

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.core import paths
from zett_tui.terminal import clipboard
from zett_tui.terminal.clipboard import (
    SCREEN_DCS_MAX_BYTES,
    CopyResult,
    copy,
    local_tool,
    osc52,
    terminal_sequences,
)

ESC = "\x1b"
TEXT = "print('héllo')\n\tindented  \n"
PAYLOAD = base64.b64encode(TEXT.encode()).decode()


class Recorder:
    """Stands in for the clipboard tools: records commands and their stdin, answers as told."""

    def __init__(self, *, succeed: Sequence[str] = ()) -> None:
        self.calls: list[tuple[list[str], bytes]] = []
        self.succeed = set(succeed)

    def __call__(self, command: Sequence[str], data: bytes) -> bool:
        self.calls.append((list(command), data))
        return Path(command[0]).name in self.succeed

    @property
    def commands(self) -> list[list[str]]:
        return [command for command, _data in self.calls]


def which_from(*available: str):
    return lambda name: f"/usr/bin/{name}" if name in available else None


def run_copy(text: str, env: dict[str, str], *, tools: Sequence[str] = (), succeed: Sequence[str] = (), **kw):
    written: list[str] = []
    runner = Recorder(succeed=succeed)
    result = copy(
        text,
        env=env,
        write_to_terminal=written.append,
        platform="linux",
        which=which_from(*tools),
        runner=runner,
        **kw,
    )
    return result, written, runner


def decoded(sequence: str) -> str:
    match = re.fullmatch(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07", sequence)
    assert match, repr(sequence)
    return base64.b64decode(match.group(1)).decode()


# -- the sequences ---------------------------------------------------------------------------------


def test_plain_terminal_gets_one_osc52_with_the_text_base64() -> None:
    assert osc52(TEXT.encode()) == f"{ESC}]52;c;{PAYLOAD}\a"
    result, written, _ = run_copy(TEXT, {})
    assert written == [f"{ESC}]52;c;{PAYLOAD}\a"]
    assert decoded(written[0]) == TEXT
    assert result == CopyResult("osc52", True, result.message)
    assert not result.confirmed
    assert result.message.startswith("Sent to the terminal clipboard;")
    assert "set-clipboard on" in result.message and "Copied" not in result.message


def test_tmux_wraps_in_passthrough_with_every_inner_escape_doubled() -> None:
    sequences = terminal_sequences(TEXT.encode(), {"TMUX": "/tmp/tmux-1/default,1,0"})
    assert sequences == [
        f"{ESC}Ptmux;{ESC}{ESC}]52;c;{PAYLOAD}\a{ESC}\\",
        f"{ESC}]52;c;{PAYLOAD}\a",
    ]
    inner = sequences[0][len(f"{ESC}Ptmux;") : -2]
    assert decoded(inner.replace(ESC + ESC, ESC)) == TEXT
    assert terminal_sequences(TEXT.encode(), {"TMUX": "x"}, plain_too=False) == sequences[:1]


def test_screen_splits_into_dcs_chunks_of_at_most_768_bytes() -> None:
    text = "x" * 3000
    sequences = terminal_sequences(text.encode(), {"STY": "1234.pts-0.host"})
    assert len(sequences) > 3
    assert all(len(chunk.encode()) <= SCREEN_DCS_MAX_BYTES for chunk in sequences)
    assert all(chunk.startswith(f"{ESC}P") and chunk.endswith(f"{ESC}\\") for chunk in sequences)
    assert len(sequences[0]) == SCREEN_DCS_MAX_BYTES
    joined = "".join(chunk[2:-2] for chunk in sequences)
    assert joined == osc52(text.encode())
    result, _written, _ = run_copy("hi", {"STY": "1.pts"})
    assert result.method == "osc52-screen"


# -- tmux's own buffer -----------------------------------------------------------------------------


def test_in_tmux_the_tmux_buffer_is_filled_and_only_the_passthrough_form_is_sent() -> None:
    env = {"TMUX": "/tmp/tmux-1/default,1,0"}
    result, written, runner = run_copy(TEXT, env, tools=["tmux"], succeed=["tmux"])
    assert runner.calls == [(["/usr/bin/tmux", "load-buffer", "-w", "-"], TEXT.encode())]
    assert written == [f"{ESC}Ptmux;{ESC}{ESC}]52;c;{PAYLOAD}\a{ESC}\\"]
    assert result.method == "tmux-buffer" and result.ok and result.confirmed
    assert "tmux buffer" in result.message


def test_when_the_tmux_command_fails_both_forms_are_sent_and_the_message_says_sent() -> None:
    env = {"TMUX": "/tmp/tmux-1/default,1,0"}
    result, written, runner = run_copy(TEXT, env, tools=["tmux"])
    assert runner.commands == [
        ["/usr/bin/tmux", "load-buffer", "-w", "-"],
        ["/usr/bin/tmux", "load-buffer", "-"],  # tmux before 3.2 has no -w
    ]
    assert len(written) == 2 and written[1] == osc52(TEXT.encode())
    assert result.method == "osc52-tmux" and result.ok and not result.confirmed
    assert result.message.startswith("Sent to the terminal clipboard through tmux")


# -- local tools -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "tools", "expected"),
    [
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, ["wl-copy", "xclip"], ["/usr/bin/wl-copy"]),
        ({"DISPLAY": ":0"}, ["xclip", "xsel"], ["/usr/bin/xclip", "-selection", "clipboard"]),
        ({"DISPLAY": ":0"}, ["xsel"], ["/usr/bin/xsel", "--clipboard", "--input"]),
        ({"DISPLAY": ":0"}, [], None),
        ({}, ["xclip", "wl-copy"], None),  # no display
    ],
)
def test_local_tool_follows_the_display(env: dict[str, str], tools: list[str], expected) -> None:
    assert local_tool(env, "linux", which_from(*tools)) == expected


def test_macos_uses_pbcopy() -> None:
    assert local_tool({}, "darwin", which_from("pbcopy")) == ["/usr/bin/pbcopy"]


@pytest.mark.parametrize("variable", ["SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"])
def test_over_ssh_local_tools_are_skipped(variable: str) -> None:
    env = {variable: "10.0.0.1 5000 10.0.0.2 22", "DISPLAY": "localhost:10.0"}
    result, written, runner = run_copy(TEXT, env, tools=["xclip"], succeed=["xclip"])
    assert runner.calls == []
    assert result.method == "osc52" and written == [osc52(TEXT.encode())]
    assert local_tool(env, "darwin", which_from("pbcopy")) is None


def test_a_local_tool_that_succeeds_is_named_and_osc52_is_still_sent() -> None:
    result, written, runner = run_copy(
        TEXT, {"WAYLAND_DISPLAY": "wayland-0"}, tools=["wl-copy"], succeed=["wl-copy"]
    )
    assert runner.calls == [(["/usr/bin/wl-copy"], TEXT.encode())]
    assert written == [osc52(TEXT.encode())]
    assert result == CopyResult("wl-copy", True, "Copied with wl-copy.", confirmed=True)


def test_a_local_tool_that_fails_falls_back_to_the_osc52_message() -> None:
    result, _written, runner = run_copy(TEXT, {"DISPLAY": ":0"}, tools=["xclip"])
    assert runner.commands == [["/usr/bin/xclip", "-selection", "clipboard"]]
    assert result.method == "osc52" and not result.confirmed


def test_run_tool_reports_exit_status(tmp_path: Path) -> None:
    script = tmp_path / "fake-clip"
    script.write_text(f"#!/bin/sh\ncat > {tmp_path / 'got'}\n")
    script.chmod(0o755)
    assert clipboard.run_tool([str(script)], b"abc") is True
    assert (tmp_path / "got").read_bytes() == b"abc"
    assert clipboard.run_tool(["false"], b"abc") is False
    assert clipboard.run_tool([str(tmp_path / "missing")], b"abc") is False


# -- the size guard --------------------------------------------------------------------------------


def test_too_large_is_not_sent_but_saved_to_a_private_file() -> None:
    text = "a" * 80_000  # 106,668 bytes of OSC 52
    result, written, _ = run_copy(text, {})
    assert written == []
    path = paths.data_dir() / "last-copy.txt"
    assert result == CopyResult("file", False, result.message, saved_to=path)
    assert result.message == f"Too large to copy through the terminal (79 KB); saved to {path}."
    assert path.read_text() == text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_too_large_but_a_local_tool_took_it() -> None:
    result, written, _ = run_copy("a" * 80_000, {"DISPLAY": ":0"}, tools=["xclip"], succeed=["xclip"])
    assert written == [] and result.method == "xclip" and result.saved_to is None
    assert not (paths.data_dir() / "last-copy.txt").exists()


def test_the_limit_is_on_the_encoded_sequence() -> None:
    text = "b" * 300
    limit = len(osc52(text.encode()))
    assert run_copy(text, {}, max_osc52_bytes=limit)[0].method == "osc52"
    assert run_copy(text, {}, max_osc52_bytes=limit - 1)[0].method == "file"


def test_a_terminal_that_cannot_be_written_falls_back_to_the_file(tmp_path: Path) -> None:
    def broken(data: str) -> None:
        raise OSError("gone")

    target = tmp_path / "copy.txt"
    result = copy("x", env={}, write_to_terminal=broken, which=which_from(), fallback_path=target)
    assert result.method == "file" and not result.ok
    assert result.message == f"Could not reach the terminal; saved to {target}."


# -- in the app ------------------------------------------------------------------------------------

ANSWER = (
    "Two ways:\n\n```bash\nls -la   # list\n```\n\nand a long one:\n\n"
    "```python\ndef greet(name):\n    return 'hello ' + name + '" + "x" * 150 + "'\n```\n"
)
SECOND = "def greet(name):\n    return 'hello ' + name + '" + "x" * 150 + "'"


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the app writes to the terminal, with no display, tmux, screen or SSH around."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "TMUX", "STY", "SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(clipboard, "local_tool", lambda env, platform, which: None)  # no pbcopy on macOS
    written: list[str] = []
    monkeypatch.setattr("zett_tui.ui.copying.terminal_writer", lambda app: written.append)
    return written


async def test_copy_command_copies_the_raw_code_block(terminal: list[str]) -> None:
    app = make_app(ScriptedModel(text_step(ANSWER)))
    async with ready_app(app, size=(60, 30)) as pilot:  # narrow: the long line is soft-wrapped on screen
        await submit(pilot, "greet")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        await submit(pilot, "/copy")
        await wait_for(pilot, lambda: len(terminal) == 1)
        assert app._clipboard == SECOND
        assert decoded(terminal[0]) == SECOND
        await submit(pilot, "/copy 1")
        await wait_for(pilot, lambda: len(terminal) == 2)
        assert app._clipboard == "ls -la   # list"
        await submit(pilot, "/copy all")
        await wait_for(pilot, lambda: len(terminal) == 3)
        assert app._clipboard == ANSWER.strip("\n")
        await submit(pilot, "/copy 7")
        assert any("has 2 code blocks" in text for text in notices(app))
        assert len(terminal) == 3


async def test_alt_c_copies_the_last_code_block(terminal: list[str]) -> None:
    app = make_app(ScriptedModel(text_step(ANSWER)))
    async with ready_app(app) as pilot:
        await submit(pilot, "greet")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        app.chat.composer.focus()
        app.post_message(events.Key("alt+c", "c"))  # what a terminal's ESC c becomes: printable "c"
        await wait_for(pilot, lambda: len(terminal) == 1)
        assert app._clipboard == SECOND
        assert app.chat.composer.text == ""


async def test_copy_with_no_answer_says_so(terminal: list[str]) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/copy")
        assert any("no answer to copy" in text for text in notices(app))
        assert terminal == []


async def test_ctrl_c_copies_the_composer_selection_and_keeps_the_text(terminal: list[str]) -> None:
    from textual.widgets.text_area import Selection

    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.load_text("keep this and copy that")
        composer.focus()
        composer.selection = Selection((0, 14), (0, 23))
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: len(terminal) == 1)
        assert app._clipboard == "copy that"
        assert decoded(terminal[0]) == "copy that"
        assert composer.text == "keep this and copy that"  # the copy came first, nothing was cleared
        await wait_for(
            pilot, lambda: any("Sent to the terminal clipboard" in n.message for n in app._notifications)
        )
