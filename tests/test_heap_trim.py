"""The C heap's free pages go back to the system at the quiet moment's whole collection."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from zett_tui.core import heap_trim, long_lived_objects


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def freed_with_holes(megabytes: int) -> list[bytes]:
    """Blocks made in a thread (its own malloc arena, as SQLite's thread and the to_thread
    workers have), most of them freed again: every 40th stays, so the free ones are holes that
    ``free`` itself never hands back. Returns the ones kept."""
    kept: list[bytes] = []

    def make() -> None:
        blocks = [bytes(4000) for _ in range(megabytes * 1024 // 4)]
        kept.extend(blocks[::40])
        blocks.clear()

    worker = threading.Thread(target=make)
    worker.start()
    worker.join()
    return kept


@pytest.mark.skipif(heap_trim._malloc_trim() is None, reason="malloc_trim is glibc's")
def test_the_freed_holes_of_the_heap_go_back_to_the_system() -> None:
    kept = freed_with_holes(64)
    before = rss_kib()
    assert heap_trim.return_free_memory()
    assert before - rss_kib() > 32 * 1024
    assert len(kept) == 64 * 1024 // 4 // 40 + 1


def test_the_whole_collection_of_a_quiet_moment_returns_the_free_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[bool] = []

    def returned() -> bool:
        calls.append(True)
        return True

    monkeypatch.setattr(long_lived_objects, "return_free_memory", returned)
    try:
        long_lived_objects.collect_everything()
    finally:
        gc.unfreeze()  # tests do not want their objects frozen
    assert calls == [True]
