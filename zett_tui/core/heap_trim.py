"""Hand the C heap's free pages back to the system (glibc's ``malloc_trim``), at a quiet moment.

Each turn of a long session builds and drops data that grows with the session (the whole history
read back for the model's request, its JSON, the rows SQLite returns in its own thread). Freed, that
memory stays in glibc's arenas: the thread arenas are hardly ever trimmed, and a hole between live
blocks never is. ``bench_growth`` found 2-6 MB of it at turn 100 and more later, counted in the
process's PSS as if in use. ``malloc_trim(0)`` returns those free pages (``madvise``) in every
arena; it takes a few milliseconds, so zett calls it with the whole collection it runs when the
user has left it alone (``long_lived_objects.collect_everything``).

Elsewhere than glibc (musl, macOS) there is no such call, and this does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from zett_tui.core.glibc import glibc_function


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    return glibc_function("malloc_trim", ("c_size_t",), "c_int")


def return_free_memory() -> bool:
    """Give the heap's free pages back to the system; False where that cannot be done."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
