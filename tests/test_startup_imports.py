"""What zett imports before its first frame: only what that frame needs.

Import time is most of zett's start-up (``benchmarks/bench_app.py``); the runtime, the provider
SDKs, the Markdown renderer, the slash commands and the dialogs are imported after the first frame
(``zett_tui/ui/speed/deferred_imports.py``). This keeps them from creeping back in front of it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from zett_tui.ui.speed.deferred_imports import AFTER_FIRST_FRAME, import_after_first_frame

#: Packages and modules that must not be imported before the first frame.
AFTER_THE_FIRST_FRAME = (
    "ctypes",
    "anthropic",
    "openai",
    "httpx",
    "sqlalchemy",
    "pydantic",
    "markdown_it",
    "pygments",
    "zett_agent",
    "zett_tui.runtime.host",
    "zett_tui.runtime.events",
    "zett_tui.ui.chat.commands.builtin",
    "zett_tui.ui.chat.commands.copy",
    "zett_tui.ui.chat.commands.core",
    "zett_tui.ui.chat.commands.extensions",
    "zett_tui.ui.chat.commands.models",
    "zett_tui.ui.chat.commands.permissions",
    "zett_tui.ui.chat.commands.sessions",
    "zett_tui.ui.chat.commands.theme",
    "zett_tui.ui.chat.decisions",
    "zett_tui.ui.modals",
    "zett_tui.ui.chat.palette",
    "zett_tui.ui.chat.presenter",
    "zett_tui.ui.widgets.transcript_markdown",
)

PROBE = """
import json, sys
from pathlib import Path
from zett_tui.cli import build_parser
from zett_tui.entry.startup import prepare_launch
from zett_tui.ui.app import ZettApp
launch = prepare_launch(cwd=Path.cwd(), env={"PATH": ""}, model=None, theme=None)
app = ZettApp(launch)
print(json.dumps(sorted(sys.modules)))
"""


def isolated_env(home: Path) -> dict[str, str]:
    """A Python's environment with nothing of this user's: its home and XDG folders under ``home``."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }


def test_the_first_frame_needs_none_of_the_heavy_modules(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.splitlines()[-1])
    early = [
        name
        for name in loaded
        if any(name == heavy or name.startswith(heavy + ".") for heavy in AFTER_THE_FIRST_FRAME)
    ]
    assert early == []


def test_the_deferred_modules_exist_and_import() -> None:
    import_after_first_frame()
    assert all(name in sys.modules for name in AFTER_FIRST_FRAME)


def test_the_warmed_code_lexers_are_built_after_the_first_frame() -> None:
    """A lexer class compiles its rules when first made: warmed, the first code block does not."""
    from pygments.lexers import get_lexer_by_name

    from zett_tui.ui.speed.deferred_imports import WARM_LEXERS

    import_after_first_frame()
    for language in WARM_LEXERS:
        assert "_tokens" in type(get_lexer_by_name(language)).__dict__


def test_the_box_drawn_before_the_app_needs_no_textual_and_no_rich(tmp_path) -> None:
    """``zett_tui.terminal.first_frame`` draws the prompt box from the command line, before the app's
    imports: what reaches it (the command line, the held keys, the background query) stays light."""
    probe = (
        "import json, sys\n"
        "from zett_tui import cli\n"
        "from zett_tui.terminal import background, early_echo, first_frame, typeahead\n"
        "first_frame.frame(80, 24, 'typed')\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.splitlines()[-1])
    heavy = ("textual", "rich", "zett_agent", "pydantic", "openai", "anthropic", "mcp", "zett_tui.ui")
    assert [name for name in loaded if name.split(".")[0] in heavy or name.startswith("zett_tui.ui")] == []


def test_the_code_style_of_the_theme_is_imported_ahead_not_at_the_first_code_block() -> None:
    """Its module was imported on the event loop at an answer's first code block, mid-stream."""
    probe = (
        "import sys\n"
        "from zett_tui.ui.speed.deferred_imports import import_after_first_frame\n"
        "before = 'pygments.styles.gh_dark' in sys.modules\n"
        "import_after_first_frame('gh_dark')\n"
        "import_after_first_frame('no-such-style')\n"  # a theme naming an unknown style: no failure here
        "print(before, 'pygments.styles.gh_dark' in sys.modules)\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert found.stdout.split() == ["False", "True"]


async def test_the_chat_imports_its_theme_s_code_style_with_the_rest(monkeypatch) -> None:
    from tests.fakes.scripted_model import ScriptedModel
    from tests.ui_helpers import make_app, ready_app
    from zett_tui.ui.chat import session_start
    from zett_tui.ui.themes import code_theme_for
    from zett_tui.ui.widgets.transcript_render import choose_code_theme

    asked: list[str | None] = []
    monkeypatch.setattr(
        session_start,
        "import_after_first_frame",
        lambda code_theme=None, key_waiting=None: asked.append(code_theme),
    )
    app = make_app(ScriptedModel())
    async with ready_app(app):
        theme = app.current_theme
        assert asked == [choose_code_theme(theme.dark, code_theme_for(theme))]


OPENING_PROBE = """
import asyncio, json, sys, threading
from tests.fakes.scripted_model import ScriptedModel
from tests.ui_helpers import make_app, ready_app
from zett_tui.ui.chat import session_start

warmed = threading.Event()
warm_up = session_start.import_after_first_frame


def warm_and_say(*args):
    warm_up(*args)
    warmed.set()


session_start.import_after_first_frame = warm_and_say
loop = threading.get_ident()
imported = []


def on_import(event, args):
    if event == "import" and warmed.is_set() and threading.get_ident() == loop and args[0] not in sys.modules:
        imported.append(args[0])


sys.addaudithook(on_import)


async def open_session():
    async with ready_app(make_app(ScriptedModel())):
        pass


asyncio.run(open_session())
print(json.dumps(imported))
"""


def test_opening_the_session_finds_its_modules_imported_by_the_warm_up(tmp_path, project_dir) -> None:
    """Imported on the event loop, they made loop steps of 40-115 ms while typed keys waited; the
    warm-up's thread imports them, stepping aside for keys (``deferred_imports``)."""
    env = {**isolated_env(tmp_path), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    result = subprocess.run(
        [sys.executable, "-c", OPENING_PROBE],
        cwd=project_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    on_the_loop = json.loads(result.stdout.splitlines()[-1])
    heavy = ("zett_agent", "sqlalchemy", "aiosqlite", "sqlite3", "zett_tui.runtime", "zett_tui.entry")
    assert [name for name in on_the_loop if name.startswith(heavy)] == []
