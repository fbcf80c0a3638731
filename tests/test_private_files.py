"""``paths.write_private``: the one way zett replaces a file, atomically and 0600."""

from __future__ import annotations

import stat
import threading
from pathlib import Path

from zett_tui.core import paths


def test_a_name_of_255_bytes_can_still_be_replaced(tmp_path: Path) -> None:
    for name in ("s" * 250 + ".json", "é" * 125 + ".x"):
        target = tmp_path / name
        assert len(target.name.encode()) <= 255
        paths.write_private_text(target, "one")
        paths.write_private_text(target, "two")
        assert target.read_text() == "two"
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


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
