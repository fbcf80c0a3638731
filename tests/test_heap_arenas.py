"""zett's threads share a few glibc heaps: the limit is set once, before the threads that work per
turn start (the history's aiosqlite thread, the ``to_thread`` pool), and never off glibc or when
the user chose ``MALLOC_ARENA_MAX`` themselves. glibc's ``mallopt`` is faked: no memory sizes."""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import wait_ready
from zett_tui.core import heap_arenas
from zett_tui.entry.headless import run_headless
from zett_tui.entry.launch import LaunchSettings


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What happened, in order: the heap limit set (glibc's ``mallopt`` faked) and each thread
    started (by the name of the function it runs)."""
    happened: list[str] = []

    def mallopt(option: int, value: int) -> int:
        happened.append(f"mallopt({option}, {value})")
        return 1

    monkeypatch.setattr(heap_arenas, "_done", False)
    monkeypatch.setattr(heap_arenas, "_mallopt", lambda: mallopt)
    monkeypatch.delenv(heap_arenas.USER_SETTING, raising=False)
    start = threading.Thread.start

    def started(thread: threading.Thread) -> None:
        target = getattr(thread, "_target", None)
        happened.append(f"thread {getattr(target, '__name__', type(thread).__name__)}")
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", started)
    yield happened


def test_the_limit_is_one_heap_and_set_once(events: list[str]) -> None:
    assert heap_arenas.limit_heaps(env={})
    assert not heap_arenas.limit_heaps(env={})
    assert events == [f"mallopt(-8, {heap_arenas.HEAPS})"]


def test_a_user_who_set_malloc_arena_max_keeps_their_choice(events: list[str]) -> None:
    assert not heap_arenas.limit_heaps(env={"MALLOC_ARENA_MAX": "4"})
    assert events == []


def test_the_process_environment_is_read_when_none_is_given(
    events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "2")
    assert not heap_arenas.limit_heaps()
    assert events == []


@pytest.mark.parametrize("platform", ["darwin", "win32", "freebsd14"])
def test_nothing_happens_off_linux(monkeypatch: pytest.MonkeyPatch, platform: str) -> None:
    loaded: list[str] = []
    monkeypatch.setattr(heap_arenas, "_done", False)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr("ctypes.CDLL", lambda name: loaded.append(name))
    assert not heap_arenas.limit_heaps(env={})
    assert loaded == []


@pytest.mark.parametrize("failure", [OSError("libc.so.6: cannot open shared object file"), AttributeError])
def test_nothing_happens_off_glibc(monkeypatch: pytest.MonkeyPatch, failure: BaseException) -> None:
    def no_glibc(name: str) -> Any:
        raise failure

    monkeypatch.setattr(heap_arenas, "_done", False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr("ctypes.CDLL", no_glibc)
    assert not heap_arenas.limit_heaps(env={})


def test_glibc_refusing_the_limit_is_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap_arenas, "_done", False)
    monkeypatch.setattr(heap_arenas, "_mallopt", lambda: lambda option, value: 0)
    assert not heap_arenas.limit_heaps(env={})


def first_thread_after_the_limit(events: list[str]) -> Callable[[str], bool]:
    """Whether a thread running ``name`` started, and only after the limit was set."""
    limit = events.index(f"mallopt(-8, {heap_arenas.HEAPS})")
    return lambda name: f"thread {name}" in events[limit:] and f"thread {name}" not in events[:limit]


async def test_zett_p_sets_the_limit_before_its_first_thread_and_the_history_s(
    project_dir: Path, events: list[str]
) -> None:
    launch = LaunchSettings(
        model_label="scripted", model_factory=lambda: ScriptedModel(text_step("hi")), cwd=Path.cwd()
    )
    code = await run_headless(launch, "go", out=io.StringIO(), err=io.StringIO(), handle_signals=False)
    assert code == 0
    assert events[0] == f"mallopt(-8, {heap_arenas.HEAPS})"
    assert events.count(events[0]) == 1
    started_after = first_thread_after_the_limit(events)
    assert started_after("_worker")  # the to_thread pool's, where the history's statements run
    assert not any("_connection_worker_thread" in event for event in events)  # no aiosqlite any more


async def test_the_chat_sets_the_limit_before_its_first_thread(project_dir: Path, events: list[str]) -> None:
    from zett_tui.ui.app import ZettApp

    launch = LaunchSettings(
        model_label="scripted", model_factory=lambda: ScriptedModel(text_step("hi")), cwd=Path.cwd()
    )
    app = ZettApp(launch)  # ctypes waits for the first frame: test_startup_imports
    async with app.run_test() as pilot:
        await wait_ready(pilot)
        started_after = first_thread_after_the_limit(events)
        assert started_after("_worker")
        assert not any("_connection_worker_thread" in event for event in events)
        assert events.count(f"mallopt(-8, {heap_arenas.HEAPS})") == 1
