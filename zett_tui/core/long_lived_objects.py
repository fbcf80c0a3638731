"""Keep the garbage collector's full passes short, so they do not pause typing or scrolling.

A full collection walks every object the collector tracks. Once zett is warm (provider SDKs,
pydantic schemas, the stylesheet, zett-agent and its extensions imported and built) that is
hundreds of thousands of objects that live as long as the process, and each full pass paused the
UI for about 200 ms (2-core machine, ``benchmarks/bench_long_session.py``: the longest event-loop
stall of a turn fell from ~210 ms to ~13 ms). ``gc.freeze()`` moves them to the permanent
generation, which collections skip.

Before that, from the start of ``zett`` until the imports are done, collection is paused: start-up
makes hundreds of thousands of long-lived objects and almost no garbage, so the passes it would run
find nothing, yet cost ~10% of the time to the first frame and stall typing while the agent warms up.

A session's turns then add long-lived objects of their own (the history, the transcript's blocks):
at turn 100 a full pass took 30-100 ms and came every few turns, in the middle of a stream or a page
scroll (page-scroll p95 52 ms). So when zett runs for real (the CLI, the benchmarks), each turn's
end collects what that turn left and freezes the rest: only objects made since the last turn are
walked, ~2 ms (page-scroll p95 17 ms at turn 100). Objects frozen that die later in a reference
cycle are not freed by that (~120 KB a turn), so after some turns, once the user has left zett
alone for a while, one whole collection runs (~0.2-0.4 s at 100 turns) and frees them; if no quiet
moment comes for twice as many turns, it runs as a turn ends.

Within a turn, Python still ran full passes over what the turn had made so far: 3-4 in the 58 KB
answer, 30-45 ms each, in the middle of frames (``benchmarks/bench_stream_hops.py``). A running
turn now raises the oldest generation's threshold (:func:`hold_full_collections`), so its full
pass is the one at its end; a very long turn still gets one every ~7 million objects kept.

At the end, the interpreter's own shutdown ran full collections over everything not frozen: ~0.4 s
between an editor closing ``zett acp``'s input and the process ending (ACP's SDK terminates an agent
still there 2 s later). A process that is ending freezes its heap first
(:func:`leave_heap_to_the_exit`): the system takes the memory back at once.
"""

from __future__ import annotations

import gc

from zett_tui.core.heap_trim import return_free_memory

#: Turns after which the next quiet moment gets a whole collection.
TURNS_BETWEEN_FULL_COLLECTIONS = 20

_frozen = False
_paused = False
_managed = False
_turns_since_full = 0
_OLDEST_THRESHOLD = gc.get_threshold()[2]


def pause_collection() -> None:
    """Stop automatic collection until :func:`resume_collection` (the CLI, as zett starts).

    Also switches on the per-turn collection (:func:`settle_after_turn`) for this process: tests
    run many apps in one process and do not want their objects frozen.
    """
    global _paused, _managed
    _managed = True
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


#: While a turn runs, the oldest generation is collected after this many collections of the middle
#: one (Python's default: 10), about every 7 million objects made and kept a while.
THRESHOLD_DURING_TURN = 1000


def hold_full_collections() -> None:
    """A turn starts: its full collections wait for its end (:func:`settle_after_turn`)."""
    if not (_managed and _frozen):
        return
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, THRESHOLD_DURING_TURN)


def settle_after_turn() -> None:
    """A turn ended: collect what it left, then exempt what survived (when zett runs for real)."""
    global _turns_since_full
    if not (_managed and _frozen):
        return
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, _OLDEST_THRESHOLD)
    gc.collect()
    gc.freeze()
    _turns_since_full += 1


def full_collection_due() -> bool:
    return _managed and _frozen and _turns_since_full >= TURNS_BETWEEN_FULL_COLLECTIONS


def full_collection_overdue() -> bool:
    """Twice the turns went by without a quiet moment: collect at the next turn's end anyway."""
    return full_collection_due() and _turns_since_full >= 2 * TURNS_BETWEEN_FULL_COLLECTIONS


def collect_everything() -> None:
    """Collect the whole heap, frozen objects included, and freeze the survivors again, then hand
    the C heap's free pages back (``core.heap_trim``). Slow: call it only when the user is not
    doing anything."""
    global _turns_since_full
    _turns_since_full = 0
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return_free_memory()


def leave_heap_to_the_exit() -> None:
    """The process is ending: its shutdown's full collections skip every object alive now.

    Only for a process that ends right after (``cli.run``), never for code that goes on (tests call
    ``cli.main``). Nothing zett keeps depends on a collection: sessions, journals and logs are closed
    or flushed where they are written, and the system frees the memory with the process.
    """
    gc.freeze()
