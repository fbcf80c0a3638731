"""Garbage collection in a test process: what outlives a test is frozen, as zett does per turn.

A test process holds far more long-lived objects than zett itself (pytest, every test module, the
provider SDKs, the apps' stylesheets), and each full collection Python ran walked them all: about
0.2 s a pass, 11% of the CPU of a file of app tests. After a test that did real work, its garbage
is collected and what is left (modules, caches) is frozen (``gc.freeze``), so later passes walk
only what later tests make: the bargain zett makes at the end of each turn
(``zett_tui.core.long_lived_objects``). A test's own objects are never frozen while it runs.
Cheap tests are skipped: the next test that does real work collects their garbage too.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

#: A test that used this much CPU made enough objects to be worth a collection after it.
WORTH_A_COLLECTION = 0.05


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    started = time.process_time()
    yield
    if time.process_time() - started >= WORTH_A_COLLECTION:
        gc.collect()
        gc.freeze()
