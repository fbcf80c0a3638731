"""The warm-up's import thread steps aside while a typed key is on its way to the prompt
(``ui/speed/import_pauses.py``): each new module it imports waits until the key is handled."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from zett_tui.ui.speed import import_pauses
from zett_tui.ui.speed.import_pauses import imports_step_aside


def fresh_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> str:
    (tmp_path / f"{name}.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


class KeyOnItsWay:
    """A key on its way to the prompt until ``handled`` is set; ``asked`` once the thread asked."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.handled = threading.Event()

    def waiting(self) -> bool:
        self.asked.set()
        return not self.handled.is_set()


def test_a_new_module_waits_while_a_key_is_on_its_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = fresh_module(tmp_path, monkeypatch, "warm_up_probe_waits")
    monkeypatch.setattr(import_pauses, "MAX_PAUSE", 60.0)  # only the key's arrival ends the wait here
    key = KeyOnItsWay()
    imported = threading.Event()

    def warm_up() -> None:
        with imports_step_aside(key.waiting):
            __import__(name)
        imported.set()

    thread = threading.Thread(target=warm_up)
    thread.start()
    try:
        assert key.asked.wait(10)
        assert not imported.is_set() and name not in sys.modules
    finally:
        key.handled.set()
        thread.join(10)
    assert imported.is_set() and sys.modules[name].LOADED


def test_other_threads_import_while_the_warm_up_steps_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop itself never waits for a key it has to handle."""
    held = fresh_module(tmp_path, monkeypatch, "warm_up_probe_held")
    other = fresh_module(tmp_path, monkeypatch, "warm_up_probe_other")
    monkeypatch.setattr(import_pauses, "MAX_PAUSE", 60.0)
    key = KeyOnItsWay()

    def warm_up() -> None:
        with imports_step_aside(key.waiting):
            __import__(held)

    thread = threading.Thread(target=warm_up)
    thread.start()
    try:
        assert key.asked.wait(10)
        assert __import__(other).LOADED and held not in sys.modules
    finally:
        key.handled.set()
        thread.join(10)
