"""Atomic private writes: a temporary name within what a file system takes, one per writer."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from zett_tui.core import paths
from zett_tui.sessions.meta import read_title, set_title
from zett_tui.sessions.naming import MAX_SESSION_ID_BYTES, meta_path, session_path


def test_the_title_of_a_session_with_the_longest_id_is_written(tmp_path: Path) -> None:
    session_id = "é" * (MAX_SESSION_ID_BYTES // 2)  # 180 bytes in UTF-8
    folder = tmp_path / "sessions"
    folder.mkdir()
    transcript = session_path(folder, session_id)
    assert len(meta_path(transcript).name.encode()) == 250
    set_title(transcript, "a long id's title")
    assert read_title(transcript) == "a long id's title"
    assert stat.S_IMODE(meta_path(transcript).stat().st_mode) == paths.PRIVATE_FILE_MODE
    assert [entry.name for entry in folder.iterdir()] == [meta_path(transcript).name]  # no temp left


@pytest.mark.parametrize("length", [1, 100, 240, 250, 255])
def test_names_up_to_255_bytes_are_replaced_and_leave_no_temporary(tmp_path: Path, length: int) -> None:
    target = tmp_path / "folder" / ("n" * length)
    paths.write_private_text(target, "one")
    paths.write_private_text(target, "two")
    assert target.read_text() == "two"
    assert [entry.name for entry in target.parent.iterdir()] == [target.name]


def test_a_name_of_multibyte_and_undecodable_characters_is_replaced(tmp_path: Path) -> None:
    name = "€" * 80 + os.fsdecode(b"\xff" * 10)
    target = tmp_path / name
    assert len(os.fsencode(target.name)) <= 255
    paths.write_private_text(target, "kept")
    assert target.read_text() == "kept"


def test_write_private_text_to_a_250_byte_name(tmp_path: Path) -> None:
    target = tmp_path / "folder" / ("x" * 250)
    paths.write_private_text(target, "kept")
    assert target.read_text() == "kept"
    assert [entry.name for entry in target.parent.iterdir()] == [target.name]


def test_threads_writing_one_file_at_once_each_finish_and_leave_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    failures: list[BaseException] = []

    def write(text: str) -> None:
        try:
            for _ in range(50):
                paths.write_private_text(target, text, sync=False)
        except BaseException as error:  # the assertion below names it
            failures.append(error)

    threads = [threading.Thread(target=write, args=(str(n) * 1000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert target.read_text() in {str(n) * 1000 for n in range(4)}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
