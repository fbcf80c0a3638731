"""Ctrl+G in a real terminal: zett suspends, the editor gets the prompt, and what it saved comes back."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, zett_env

pytestmark = pytest.mark.e2e


def test_ctrl_g_hands_the_terminal_to_the_editor_and_takes_the_text_back(tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    seen = tmp_path / "seen.txt"
    editor = tmp_path / "editor.sh"
    # The "editor" checks it owns the terminal (stdin is a tty), keeps what it got, and rewrites the file.
    editor.write_text(
        "#!/bin/sh\n"
        f'[ -t 0 ] && echo tty > "{seen}.tty"\n'
        f'cp "$1" "{seen}"\n'
        'printf "written by the editor" > "$1"\n'
    )
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    env = zett_env(home, EDITOR=str(editor))
    terminal = Terminal(["--demo"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.send("draft prompt")
        terminal.wait_for_text("draft prompt")
        terminal.send("\x07")  # Ctrl+G
        shown = terminal.wait_for_text("written by the editor")
        assert "draft prompt" not in shown
        terminal.send("\x11")  # Ctrl+Q
        terminal.wait_exit()
    finally:
        terminal.close()
    assert seen.read_text() == "draft prompt"
    assert Path(f"{seen}.tty").read_text().strip() == "tty"
