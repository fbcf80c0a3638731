"""The layers of zett, kept by a test: only the UI uses Textual, and nothing below the UI imports it.

The rules, read from the source with ``ast`` (every ``import``: at the top of a module, inside a
function, and under ``if TYPE_CHECKING:``):

1. Nothing outside ``zett_tui.ui`` imports ``textual`` (entry points included), and neither do the
   bundled extensions (``extensions/*.py``), which run inside the agent.
2. The runtime, the sessions, the configuration, the providers and the other support modules
   (``LOWER_LAYERS``) import nothing from ``zett_tui.ui``, nor from the entry points.
3. The entry points (``ENTRY_POINTS``: ``cli``, the headless ``-p`` run, start-up) sit on top: they
   may start the app, but only with an import inside a function (``cli`` imports
   ``zett_tui.ui.app`` once it knows it will show one), so ``zett -p``, ``zett sessions`` and
   ``--version`` never load Textual. At module level they may import only the modules of
   ``zett_tui.ui`` listed in ``NOT_UI_YET`` (no-Textual modules that live in ``ui/``; none since
   issue 11's regrouping; rule 1 covers them, so they cannot bring Textual in). A probe in
   a subprocess checks the result: importing the entry points loads no ``textual`` module.

``TYPE_CHECKING`` imports count. They cost nothing at run time, but a type named in a signature
is a dependency all the same: a runtime module that types a parameter with a UI class knows the
UI. A lower layer that needs such a type should say what it needs with a ``Protocol`` of its own.

Every module outside ``zett_tui.ui`` must be in exactly one group below, so a new module (or one
moved) is placed on purpose; the groups are packages, so a module added to one is placed already.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "zett_tui"

#: The UI: the only place Textual is imported.
UI = ("zett_tui.ui", "zett_tui.ui.*")

#: On top: they may start the UI from inside a function (rule 3).
ENTRY_POINTS = (
    "zett_tui.__main__",
    "zett_tui.cli",
    "zett_tui.entry",
    "zett_tui.entry.*",
    "zett_tui.acp",
    "zett_tui.acp.*",
)

#: Below the UI, one package per concern; none of them imports Textual or ``zett_tui.ui`` (rules
#: 1 and 2). A new module lands in its package's group by itself.
LOWER_LAYERS: dict[str, tuple[str, ...]] = {
    "runtime": ("zett_tui.runtime", "zett_tui.runtime.*"),
    "sessions": ("zett_tui.sessions", "zett_tui.sessions.*"),
    "configuration": ("zett_tui.config", "zett_tui.config.*"),
    "providers": ("zett_tui.providers", "zett_tui.providers.*"),
    "core": ("zett_tui", "zett_tui.core", "zett_tui.core.*"),
    "terminal": ("zett_tui.terminal", "zett_tui.terminal.*"),
    "workspace": ("zett_tui.workspace", "zett_tui.workspace.*"),
    "checkpoints": ("zett_tui.checkpoints", "zett_tui.checkpoints.*"),
}

#: Modules in ``ui/`` that use no Textual and that an entry point imports at module level (none
#: since issue 11's regrouping; the rule stays for the next one).
NOT_UI_YET: tuple[str, ...] = ()


@dataclass(frozen=True)
class Import:
    module: str
    path: Path
    line: int
    target: str
    #: "module level", "in a function" or "under TYPE_CHECKING"
    where: str

    def __str__(self) -> str:
        return (
            f"{self.path.relative_to(ROOT)}:{self.line}: {self.module} imports {self.target} ({self.where})"
        )


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path, module: str | None = None) -> list[Import]:
    """Every import in ``path``: top level, in functions and classes, under ``TYPE_CHECKING``."""
    module = module or module_name(path)
    found: list[Import] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                inner = "in a function" if where == "module level" else where
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for item in child.body:
                    visit_one(item, "under TYPE_CHECKING")
                for item in child.orelse:
                    visit_one(item, where)
                continue
            visit_one(child, inner)

    def visit_one(child: ast.AST, where: str) -> None:
        if isinstance(child, ast.Import):
            found.extend(Import(module, path, child.lineno, alias.name, where) for alias in child.names)
        elif isinstance(child, ast.ImportFrom):
            base = _absolute(module, path, child)
            found.append(Import(module, path, child.lineno, base, where))
            # ``from zett_tui import ui`` imports a submodule: name it
            found.extend(
                Import(module, path, child.lineno, f"{base}.{alias.name}", where)
                for alias in child.names
                if alias.name != "*"
            )
        visit(child, where)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), "module level")
    return found


def _in(module: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(module, pattern) for pattern in patterns)


def _is_textual(target: str) -> bool:
    return target == "textual" or target.startswith("textual.")


def _is_ui(target: str) -> bool:
    return _in(target, UI)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def package_imports() -> dict[str, list[Import]]:
    """Every module's imports, read on first use: parsing the package takes seconds of CPU, which
    every test worker paid at collection when this was a module constant."""
    return {module: imports_of(path, module) for module, path in MODULES.items()}


def _report(broken: list[Import], rule: str) -> str:
    return f"{rule}:\n" + "\n".join(f"  {item}" for item in broken)


def test_every_module_outside_the_ui_has_a_layer() -> None:
    groups = [ENTRY_POINTS, *LOWER_LAYERS.values()]
    unplaced = [m for m in MODULES if not _in(m, UI) and sum(_in(m, group) for group in groups) != 1]
    assert unplaced == [], (
        "place each of these modules in exactly one group of tests/test_layers.py "
        f"(ENTRY_POINTS or LOWER_LAYERS): {unplaced}"
    )
    assert all(name in MODULES for name in NOT_UI_YET), "NOT_UI_YET names a module that is gone"


def test_only_the_ui_imports_textual() -> None:
    broken = [
        item
        for module, found in package_imports().items()
        if not _in(module, UI)
        for item in found
        if _is_textual(item.target)
    ]
    assert broken == [], _report(broken, "Textual is imported outside zett_tui/ui/")


@pytest.mark.parametrize("layer", sorted(LOWER_LAYERS))
def test_the_lower_layers_import_nothing_from_the_ui(layer: str) -> None:
    broken = [
        item
        for module, found in package_imports().items()
        if _in(module, LOWER_LAYERS[layer])
        for item in found
        if _is_ui(item.target) or _is_textual(item.target)
    ]
    assert broken == [], _report(broken, f"the {layer} layer imports the UI")


@pytest.mark.parametrize("layer", sorted(LOWER_LAYERS))
def test_the_lower_layers_import_nothing_from_the_entry_points(layer: str) -> None:
    """The entry points sit on top: the runtime knows ``HostOptions``, never ``LaunchSettings``
    (``entry/host_options.py`` turns one into the other)."""
    broken = [
        item
        for module, found in package_imports().items()
        if _in(module, LOWER_LAYERS[layer])
        for item in found
        if _in(item.target, ENTRY_POINTS) and item.target != "zett_tui"
    ]
    assert broken == [], _report(broken, f"the {layer} layer imports an entry point")


def test_entry_points_start_the_ui_only_from_inside_a_function() -> None:
    broken = [
        item
        for module, found in package_imports().items()
        if _in(module, ENTRY_POINTS)
        for item in found
        if _is_ui(item.target)
        and item.where != "in a function"
        and not _in(item.target, ("zett_tui.ui", *NOT_UI_YET))
    ]
    assert broken == [], _report(broken, "an entry point imports the UI at module level")


def test_the_modules_not_moved_out_of_the_ui_yet_use_no_textual_nor_ui() -> None:
    broken = [
        item
        for module in NOT_UI_YET
        for item in package_imports()[module]
        if _is_textual(item.target) or (_is_ui(item.target) and not _in(item.target, NOT_UI_YET))
    ]
    assert broken == [], _report(broken, "a module entry points import early brings in the UI")


def test_the_bundled_extensions_import_no_textual_nor_the_ui() -> None:
    broken = [
        item
        for path in sorted((ROOT / "extensions").glob("*.py"))
        for item in imports_of(path, f"extensions.{path.stem}")
        if _is_textual(item.target) or _is_ui(item.target)
    ]
    assert broken == [], _report(broken, "a bundled extension imports Textual or the UI")


PROBE = """
import json, sys
import {modules}
print(json.dumps(sorted(name for name in sys.modules if name == "textual" or name.startswith("textual."))))
"""


def test_importing_the_entry_points_and_lower_layers_loads_no_textual() -> None:
    """What the rules above add up to, checked for real: everything but the UI imports without
    loading a single Textual module (a transitive import the rules missed would show here)."""
    importable = [
        module
        for module in MODULES
        if not _in(module, UI) and module != "zett_tui.__main__"  # __main__ runs the CLI
    ]
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(modules=", ".join(importable))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.splitlines()[-1]) == []


def test_the_import_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The walker itself: a module-level, a function-level, a TYPE_CHECKING and a relative import."""
    package = tmp_path / "zett_tui" / "runtime"
    package.mkdir(parents=True)
    source = package / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import textual.app\n"
        "if TYPE_CHECKING:\n"
        "    from zett_tui.ui.app import ZettApp\n"
        "def later():\n"
        "    from ..ui import widgets\n"
        "class Thing:\n"
        "    def method(self):\n"
        "        import textual\n"
    )
    found = {(item.line, item.target, item.where) for item in imports_of(source, "zett_tui.runtime.probe")}
    assert (2, "textual.app", "module level") in found
    assert (4, "zett_tui.ui.app", "under TYPE_CHECKING") in found
    assert (6, "zett_tui.ui.widgets", "in a function") in found
    assert (9, "textual", "in a function") in found


def _import_graph(*, within: tuple[str, ...], typing_too: bool) -> dict[str, set[str]]:
    """Which of zett's modules matching ``within`` each such module imports: at module level or in
    a function, and with ``typing_too`` under ``TYPE_CHECKING`` as well. A package's own
    ``__init__`` is left out as a target: importing ``a.b`` runs ``a`` first, which is no tie back."""
    graph: dict[str, set[str]] = {}
    for module, found in package_imports().items():
        if not _in(module, within):
            continue
        targets: set[str] = set()
        for item in found:
            if item.where == "under TYPE_CHECKING" and not typing_too:
                continue
            target = item.target
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != module and _in(target, within) and MODULES[target].name != "__init__.py":
                targets.add(target)
        graph[module] = targets
    return graph


def _ui_import_graph() -> dict[str, set[str]]:
    """Which UI modules each UI module imports at run time (module level or in a function)."""
    return _import_graph(within=UI, typing_too=False)


def _a_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (each module followed by one it imports), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        state[module] = 2
        path.pop()
        return []

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return []


def test_the_ui_has_no_import_cycle() -> None:
    """Issue 11: 15 UI modules imported each other in a ring, closed by imports inside functions
    (the screen, the commands, the palette, the composer, the browser and the app). Commands now
    get a context and post messages to the app; the registry imports no command; the composer is
    given its commands. A function-level import counts here: it only hides a cycle."""
    cycle = _a_cycle(_ui_import_graph())
    assert cycle == [], "the UI imports in a circle: " + " -> ".join(cycle)


def test_zett_has_no_import_cycle_even_among_type_hints() -> None:
    """The last circles outside the UI were tied by imports for type hints only (the host and the
    subagents through ``HostOptions``, the config's layers and schema, the ACP server and its
    questions): harmless at run time, but each made two modules one. None is left; keep it so."""
    cycle = _a_cycle(_import_graph(within=("zett_tui", "zett_tui.*"), typing_too=True))
    assert cycle == [], "zett's modules import each other in a circle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _a_cycle({"a": {"b"}, "b": set()}) == []


COMMANDS = ("zett_tui.ui.chat.commands", "zett_tui.ui.chat.commands.*")
#: What a slash command must not see: it is given a CommandContext and posts app messages.
NOT_FOR_COMMANDS = (
    "zett_tui.ui.app",
    "zett_tui.ui.chat.screen",
    "zett_tui.ui.browser",
    "zett_tui.ui.browser.*",
)


def test_slash_commands_see_only_their_context() -> None:
    broken = [
        item
        for module, found in package_imports().items()
        if _in(module, COMMANDS)
        for item in found
        if _in(item.target, NOT_FOR_COMMANDS)
    ]
    assert broken == [], _report(broken, "a slash command reaches past its CommandContext")
