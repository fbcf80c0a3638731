"""Every test runs with its own home, config, data and state folders and no provider keys.

Shared fixtures live here too: `hosts` (runtime hosts closed at teardown), `command_host` (a
slash-command context on a real host, no app) and `llm_server`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from tests.fakes.commands import HostStandIn
    from tests.fakes.host import HostFactory

_KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OLLAMA_HOST",
    "ZETT_MODEL",
    "ZETT_THEME",
    "ZETT_REASONING_EFFORT",
    "NO_COLOR",
)

pytest_plugins = ("tests.hang_report", "tests.gc_between_tests")


#: The arming delay of dialogs in tests: short, so that the ~300 tests that answer a dialog do not
#: each wait the real 0.5 s. Tests of arming itself are marked ``real_arming`` and keep 0.5 s.
TEST_ARM_DELAY = 0.05


#: What a test file says when it holds serial tests (``pytest.mark.serial``, ``pytest.mark.e2e``).
_SERIAL_MARKS = ("mark.serial", "mark.e2e")


@functools.cache
def _may_hold_serial_tests(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return any(mark in text for mark in _SERIAL_MARKS)


def pytest_configure(config: pytest.Config) -> None:
    """Every app a test process starts shares one parse of Textual CSS (``tests/css_parse_cache.py``)."""
    from tests import css_parse_cache

    css_parse_cache.install()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The serial pass (``-m serial``) imports only the test files that mark serial tests: the
    other ~190 files cost it seconds of collection for nothing. Every other run collects all
    (and ``pytest_collection_modifyitems`` checks there that no serial test sits elsewhere)."""
    if config.getoption("markexpr") != "serial" or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    return None if _may_hold_serial_tests(collection_path) else True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests in a real terminal (``e2e``) are timing-sensitive: they run in the serial pass too.

    A serial test in a file that does not say ``mark.serial`` or ``mark.e2e`` (a marker given some
    other way) would be skipped by both passes: that is an error of the whole run."""
    unseen: list[str] = []
    for item in items:
        if item.get_closest_marker("e2e") is not None:
            item.add_marker(pytest.mark.serial)
        if item.get_closest_marker("serial") is not None and not _may_hold_serial_tests(item.path):
            unseen.append(item.nodeid)
    if unseen:
        raise pytest.UsageError(
            f"serial tests the serial pass would not collect (their file must say one of {_SERIAL_MARKS}): "
            + ", ".join(unseen)
        )


@pytest.fixture(autouse=True)
def quick_dialog_arming(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("real_arming") is not None:
        return
    from zett_tui.ui.modals import dialog_arming

    monkeypatch.setattr(dialog_arming, "ARM_DELAY", TEST_ARM_DELAY)


@pytest.fixture(autouse=True)
def quick_pilot_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot waits for the app to settle in 2 ms windows instead of 20 (tests/pilot_waits.py)."""
    import textual.app
    import textual.pilot

    from tests.pilot_waits import wait_for_idle

    for module in (textual.app, textual.pilot):  # both import Textual's own by name
        monkeypatch.setattr(module, "wait_for_idle", wait_for_idle)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    # HOME too: skills in ~/.agents/skills, credential stores and tool caches are found from it,
    # and a test must never read the machine's own.
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    for name in _KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TZ", "UTC")
    # Textual picks the colours it sends from TERM and COLORTERM: pinned, so what a test draws
    # does not depend on the terminal it runs in (tests of 16 colours set TERM=xterm themselves)
    monkeypatch.setenv("COLORTERM", "truecolor")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return home


@pytest.fixture
def project_dir() -> Path:
    return Path(os.getcwd())


@pytest.fixture
def llm_server():
    """A fake OpenAI/Anthropic/Ollama streaming server on 127.0.0.1."""
    from tests.fakes.llm_server import FakeLLMServer

    with FakeLLMServer() as server:
        yield server


@pytest.fixture
async def hosts() -> AsyncIterator[HostFactory]:
    """``await hosts(model, **options)`` gives a started host that is closed when the test ends.

    Closing matters even when the test fails half-way: a host left open keeps its aiosqlite
    history connection, whose thread later reports "Event loop is closed" in another test.
    """
    from tests.fakes.host import HostFactory

    factory = HostFactory()
    try:
        yield factory
    finally:
        await factory.aclose()


@pytest.fixture
async def command_host() -> AsyncIterator[Callable[..., Awaitable[HostStandIn]]]:
    """``await command_host(model, **launch)``: a command context on a started host around
    ``model`` (``tests/fakes/commands.py``), launched as ``make_app`` launches the app; every host
    it built is closed when the test ends."""
    from tests.fakes.commands import HostStandIn
    from zett_tui.entry.launch import LaunchSettings

    built: list[HostStandIn] = []

    async def start(model: object, **launch: object) -> HostStandIn:
        settings = LaunchSettings(
            **{"model_label": "scripted:test", "model_factory": lambda: model, "cwd": Path.cwd(), **launch}
        )
        context = await HostStandIn.start(settings)
        built.append(context)
        return context

    try:
        yield start
    finally:
        for context in reversed(built):
            await context.aclose()
