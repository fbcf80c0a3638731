"""The garbage collector's handling: per-turn settling, and the whole collection at a quiet moment."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, make_app, ready_app, submit, wait_for
from zett_tui.ui import app as app_module

# Run in a child process: freezing objects in the test process would keep every later test's garbage.
SETTLING = """
import gc
from zett_tui.core import long_lived_objects as objects

class Node:
    def __init__(self):
        self.me = self

objects.pause_collection()
assert not gc.isenabled()
objects.freeze_startup_objects()
assert gc.isenabled()
frozen = gc.get_freeze_count()

kept = [Node() for _ in range(100)]
for _ in range(1000):
    Node()  # garbage in a cycle, left by "the turn"
objects.settle_after_turn()
assert gc.get_freeze_count() >= frozen + 100  # what survived the turn is frozen
assert gc.get_count()[0] < 50  # and the turn's garbage was collected, not frozen

del kept  # frozen objects that die in a cycle: only a whole collection frees them
for _ in range(objects.TURNS_BETWEEN_FULL_COLLECTIONS - 1):
    objects.settle_after_turn()
assert objects.full_collection_due() and not objects.full_collection_overdue()
before = gc.get_freeze_count()
objects.collect_everything()
assert gc.get_freeze_count() <= before - 100
assert not objects.full_collection_due()
print("ok")
"""


def test_each_turn_collects_its_garbage_and_freezes_what_stays() -> None:
    result = subprocess.run([sys.executable, "-c", SETTLING], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr


# A turn that keeps many objects (an answer's lines, in cycles): counted full passes, with the hold
# and without (Python's default threshold then runs several in the turn).
FULL_PASSES_IN_A_TURN = """
import gc, sys
from zett_tui.core import long_lived_objects as objects

class Node:
    def __init__(self):
        self.me = self

objects.pause_collection()
objects.freeze_startup_objects()
full = []
gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2 and full.append(1))
if sys.argv[1] == "held":
    objects.hold_full_collections()
kept = [Node() for _ in range(300_000)]
during = len(full)
objects.settle_after_turn()  # the turn's end: one full pass, then the usual thresholds
assert gc.get_threshold()[2] == objects._OLDEST_THRESHOLD
print(during)
"""


@pytest.mark.parametrize("held", [True, False], ids=["held", "python-default"])
def test_a_turns_full_collections_wait_for_its_end(held: bool) -> None:
    result = subprocess.run(
        [sys.executable, "-c", FULL_PASSES_IN_A_TURN, "held" if held else "default"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    during = int(result.stdout)
    assert (during == 0) if held else (during > 0)  # the default: what the hold is for


async def test_a_turn_holds_full_collections_when_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from zett_tui.ui.chat import turns as turns_module

    held: list[bool] = []
    monkeypatch.setattr(turns_module, "hold_full_collections", lambda: held.append(True))
    app = make_app(ScriptedModel(text_step("an answer")))
    async with ready_app(app) as pilot:
        await submit(pilot, "a question")
        await wait_for(pilot, lambda: app.chat.turns.settled and len(answers(app)) == 1)
    assert held == [True]


def test_without_the_cli_nothing_is_frozen_per_turn() -> None:
    from zett_tui.core import long_lived_objects as objects

    assert not objects._managed  # tests never call pause_collection in this process
    objects.settle_after_turn()  # a no-op
    assert not objects.full_collection_due()


@pytest.fixture
def collections(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    done: list[float] = []
    monkeypatch.setattr(app_module, "full_collection_due", lambda: True)
    monkeypatch.setattr(app_module, "full_collection_overdue", lambda: False)
    monkeypatch.setattr(app_module, "collect_everything", lambda: done.append(time.monotonic()))
    return done


async def test_a_due_collection_waits_for_a_quiet_moment(collections: list[float]) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app):
        app._last_input = time.monotonic()  # the user just typed
        app.collect_when_quiet()
        assert collections == [] and app._quiet_timer is not None
        app._last_input = time.monotonic() - app_module.QUIET_SECONDS  # then left it alone
        app._quiet_timer.stop()
        app._quiet_timer_fired()
        assert len(collections) == 1 and app._quiet_timer is None


async def test_an_overdue_collection_runs_when_the_turn_ends(
    collections: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "full_collection_overdue", lambda: True)
    app = make_app(ScriptedModel())
    async with ready_app(app):
        app._last_input = time.monotonic()
        app.collect_when_quiet()
        assert len(collections) == 1


async def test_any_key_counts_as_the_user_being_there(collections: list[float]) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        app._last_input = 0.0
        await pilot.press("a")
        assert time.monotonic() - app._last_input < app_module.QUIET_SECONDS


def draw_lines_with_their_places(app: app_module.ZettApp, count: int) -> None:
    """Render ``count`` lines as the transcript draws its lines: each with its place as a style."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    line = Strip([Segment("a line of an answer", Style(bold=True))])
    for y in range(count):
        line.apply_offsets(0, y).render(app.console)


async def test_a_turns_end_forgets_the_styles_of_the_lines_it_drew() -> None:
    from zett_tui.ui.speed.drawn_styles import drawn_styles_kept

    app = make_app(ScriptedModel(*(text_step(f"answer {n}") for n in range(3))))
    async with ready_app(app) as pilot:
        for n in range(3):
            draw_lines_with_their_places(app, 3000)
            assert drawn_styles_kept() >= 3000
            await submit(pilot, f"question {n}")
            # settled, not only idle: the worker's end (which empties the cache) is handled after
            # the worker stops running, and a slow run saw idle before that
            await wait_for(pilot, lambda: app.chat.turns.settled and len(answers(app)) == n + 1)  # noqa: B023
            assert drawn_styles_kept() < 1000  # the frames since the turn's end: one screen's


async def test_the_quiet_moment_forgets_the_styles_of_lines_drawn_long_ago(collections: list[float]) -> None:
    from zett_tui.ui.speed.drawn_styles import drawn_styles_kept

    app = make_app(ScriptedModel())
    async with ready_app(app):
        draw_lines_with_their_places(app, 3000)
        assert drawn_styles_kept() >= 3000
        app._last_input = time.monotonic() - app_module.QUIET_SECONDS
        app.collect_when_quiet()
        assert len(collections) == 1
        assert drawn_styles_kept() < 100


ENDING = """
import atexit, gc, sys
sys.argv = ["zett", "sessions", "list"]
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
from zett_tui.cli import run
run()
"""


def test_the_zett_process_leaves_its_heap_to_the_exit(tmp_path: Path) -> None:
    """The interpreter's shutdown walked every object not frozen (~0.4 s before ``zett acp`` ended,
    once its editor closed its input); ``run`` freezes them first. ``main`` (called in-process by
    tests) does not."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")}
    result = subprocess.run(
        [sys.executable, "-c", ENDING], capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 0, result.stderr
    assert "frozen at exit: True" in result.stdout


def test_main_called_in_process_freezes_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import gc

    from zett_tui import cli

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    before = gc.get_freeze_count()
    assert cli.main(["sessions", "list"]) == 0
    assert gc.get_freeze_count() == before
