"""Atomic private writes keep their temporary file name within what a file system takes."""

from __future__ import annotations

import os
import stat
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
def test_temporary_names_stay_within_255_bytes_and_apart(length: int) -> None:
    name = "n" * length
    temporary = paths.temporary_name(name)
    assert len(os.fsencode(temporary)) <= paths.MAX_NAME_BYTES
    assert temporary.startswith(".n") and temporary.endswith(f".tmp-{os.getpid()}")
    assert temporary != paths.temporary_name("n" * (length - 1) + "m")  # the digest tells them apart
    if length <= 200:
        assert temporary == f".{name}.tmp-{os.getpid()}"  # a short name is kept whole


def test_a_name_of_multibyte_and_undecodable_characters_is_bounded_in_bytes() -> None:
    name = "€" * 80 + os.fsdecode(b"\xff" * 10)
    temporary = paths.temporary_name(name)
    assert len(os.fsencode(temporary)) <= paths.MAX_NAME_BYTES


def test_write_private_text_to_a_250_byte_name(tmp_path: Path) -> None:
    target = tmp_path / "folder" / ("x" * 250)
    paths.write_private_text(target, "kept")
    assert target.read_text() == "kept"
    assert [entry.name for entry in target.parent.iterdir()] == [target.name]
