"""A function of glibc's own (``malloc_trim``, ``mallopt``), loaded through ctypes when first asked
for: ctypes is not imported before the first frame (``tests/test_startup_imports.py``). Elsewhere
than glibc on Linux (musl, macOS, Windows) there is none."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any


def glibc_function(name: str, argtypes: Sequence[str], restype: str) -> Callable[..., Any] | None:
    """glibc's ``name`` with its C signature (ctypes' type names: ``"c_int"``); None off glibc."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here, not at start-up: the first frame does not need it

    try:
        function = getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):  # not glibc
        return None
    function.argtypes = [getattr(ctypes, argtype) for argtype in argtypes]
    function.restype = getattr(ctypes, restype)
    return function
