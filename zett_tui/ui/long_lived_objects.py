"""Keep the garbage collector's full passes short, so they do not pause typing.

A full collection walks every object the collector tracks. Once zett is warm (provider SDKs,
pydantic schemas, the stylesheet, zett-agent and its extensions imported and built) that is
hundreds of thousands of objects that live as long as the process, and each full pass paused the
UI for about 200 ms (2-core machine, ``benchmarks/bench_long_session.py``: the longest event-loop
stall of a turn fell from ~210 ms to ~13 ms). ``gc.freeze()`` moves them to the permanent
generation, which collections skip. Objects made later (a session's turns) are collected as usual.

Before that, from the start of ``zett`` until the imports are done, collection is paused: start-up
makes hundreds of thousands of long-lived objects and almost no garbage, so the passes it would run
find nothing, yet cost ~10% of the time to the first frame and stall typing while the agent warms up.
"""

from __future__ import annotations

import gc

_frozen = False
_paused = False


def pause_collection() -> None:
    """Stop automatic collection until :func:`resume_collection` (the CLI, as zett starts)."""
    global _paused
    if gc.isenabled():
        _paused = True
        gc.disable()


def resume_collection() -> None:
    """Undo :func:`pause_collection`; a no-op when it was not paused (tests, ``zett -p``)."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()


def freeze_startup_objects() -> None:
    """Exempt everything alive now from later collections; only the first call does anything.

    Called once the agent is ready. Cyclic garbage alive at that moment is never collected, so it is
    done once per process (a session switch must not freeze the screen it leaves).
    """
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()
    resume_collection()
