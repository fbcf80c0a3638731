"""Only the openai SDK resources a session uses are imported, not all of them.

The openai client imports each resource lazily (``client.chat`` imports ``openai.resources.chat``),
but importing any ``openai.resources.X`` first runs ``openai/resources/__init__.py``, which imports
every resource the SDK has: admin, audio, batches, fine-tuning, vector stores... about 490 modules
and 13 MB for a session that only ever calls ``chat.completions`` (``benchmarks/bench_startup.py``).

``import_resources_on_demand`` puts a stand-in for that package into ``sys.modules`` before anything
imports it: its submodules import as usual (it has the package's path), and the first read of a
name only the package's ``__init__`` defines (``openai.resources.Chat``) runs the real ``__init__``
into it, so nothing that reads the package sees a difference. ``tests/test_upstream_contracts.py``
checks the SDK still works this way.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

PACKAGE = "openai.resources"


class _ResourcePackage(types.ModuleType):
    """``openai.resources`` whose ``__init__`` runs at the first read of a name it defines."""

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        if name.startswith("__") or state.get("_zett_index_loaded"):
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")
        state["_zett_index_loaded"] = True
        spec = state["__spec__"]
        spec.loader.exec_module(self)
        return getattr(self, name)


def import_resources_on_demand() -> None:
    """Install the stand-in (once; a no-op when the package is already imported or not installed)."""
    if PACKAGE in sys.modules:
        return
    # find_spec("openai.resources") would import ``openai`` itself (~35 MB, unused by zett's own
    # Chat Completions path): look the package up in the SDK's folder instead.
    try:
        sdk = importlib.util.find_spec(PACKAGE.split(".")[0])
    except (ImportError, ValueError):
        return
    if sdk is None or not sdk.submodule_search_locations:
        return
    spec = importlib.machinery.PathFinder.find_spec(PACKAGE, list(sdk.submodule_search_locations))
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return
    package = _ResourcePackage(PACKAGE)
    package.__spec__ = spec
    package.__path__ = list(spec.submodule_search_locations)
    package.__package__ = PACKAGE
    package.__file__ = spec.origin
    package.__loader__ = spec.loader
    sys.modules.setdefault(PACKAGE, package)
