"""Themes: bundled and user files, broken files, contrast, /theme and its picker, NO_COLOR, animations."""

from __future__ import annotations

import asyncio
import os
import re
import termios
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pygments.styles import get_style_by_name
from pygments.token import Comment, Keyword, Name, Number, Operator, String, Token
from rich.color_triplet import ColorTriplet
from textual.app import App
from textual.color import Color
from textual.theme import BUILTIN_THEMES, Theme

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.config.settings import load_settings
from zett_tui.core import paths
from zett_tui.terminal.background import BackgroundQuery, ask, background_from_reply, query_background
from zett_tui.ui.modals.theme_picker import ThemePicker
from zett_tui.ui.sixteen_colours import contrast_ratio
from zett_tui.ui.themes import (
    DARK_THEME,
    HIGH_CONTRAST_THEME,
    LIGHT_THEME,
    ZETT_VARIABLES,
    detect_terminal_background,
    load_themes,
    read_theme_dirs,
    read_theme_file,
    register_themes,
    resolve_theme_name,
    syntax_theme_name,
    theme_variable_defaults,
)
from zett_tui.ui.widgets.activity import BUSY_STILL, SPINNER_FRAMES

BUNDLED = paths.bundled_dir("themes")
BUNDLED_NAMES = {DARK_THEME, LIGHT_THEME, HIGH_CONTRAST_THEME}
ANSWER = "Here:\n\n```python\ndef parse(line: str) -> list[str]:\n    return line.split(',')  # fields\n```\n"


@pytest.fixture(autouse=True)
def unknown_background(monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal running the tests must not pick the theme."""
    monkeypatch.delenv("COLORFGBG", raising=False)


def user_themes(config_home: Path) -> Path:
    folder = config_home / "config" / "zett" / "themes"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- loading ------------------------------------------------------------------------------------


def test_bundled_themes_load_without_problems() -> None:
    themes, problems = load_themes([BUNDLED])
    assert problems == []
    by_name = {theme.name: theme for theme in themes}
    assert set(by_name) == BUNDLED_NAMES
    assert by_name[LIGHT_THEME].dark is False
    assert by_name[DARK_THEME].dark is True and by_name[HIGH_CONTRAST_THEME].dark is True
    for path in sorted(BUNDLED.glob("*.toml")):  # the app skips this check for them at start-up
        read_theme_file(path, check_code_theme=True)


def test_default_folders_are_the_bundled_then_the_users(isolated_dirs: Path) -> None:
    (user_themes(isolated_dirs) / "mine.toml").write_text('name = "mine"\nprimary = "#336699"\n')
    themes, problems = load_themes()
    assert problems == []
    assert {theme.name for theme in themes} == BUNDLED_NAMES | {"mine"}


def test_user_theme_loads_and_overrides_a_bundled_one(tmp_path: Path) -> None:
    user = tmp_path / "themes"
    user.mkdir()
    (user / "ocean.toml").write_text(
        'name = "ocean"\ndark = false\nprimary = "#005f87"\nbackground = "#eef6fa"\n'
        '[variables]\ncode-theme = "xcode"\ndiff-added-background = "#cdeccd"\n'
    )
    (user / "my-dark.toml").write_text('name = "zett-dark"\nprimary = "#ff00aa"\n')
    loaded = read_theme_dirs([BUNDLED, user])
    assert loaded.problems == []
    by_name = {theme.name: theme for theme in loaded.themes}
    assert by_name["ocean"].dark is False
    assert by_name["ocean"].variables["code-theme"] == "xcode"
    assert by_name["zett-dark"].primary == "#ff00aa"
    assert loaded.files["zett-dark"] == user / "my-dark.toml"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('name = "x"\nprimary = "#123456"\ndark = \n', "not valid TOML"),
        ('name = "x"\nprimary = "blu"\n', "primary: 'blu' is not a colour"),
        ('primary = "#123456"\n', 'no "name"'),
        ('name = "x"\nprimary = "#123456"\ndark = "yes"\n', "dark: expected true or false"),
        ('name = "x"\nprimary = 12\n', "primary: expected a colour in quotes"),
        ('name = "x y"\nprimary = "#123456"\n', "name: 'x y' is not a usable theme name"),
        ('name = "x"\n', 'no "primary"'),
        ('name = "x"\nprimary = "#123456"\n[variables]\ndiff-added-background = "greenish"\n', "diff-added"),
        ('name = "x"\nprimary = "#123456"\n[variables]\ncode-theme = "nope"\n', "not a Pygments style"),
        ('name = "x"\nprimary = "#123456"\nvariables = 3\n', "variables: expected a table"),
    ],
)
def test_a_broken_file_is_named_with_its_key_and_skipped(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "broken.toml").write_text(text)
    (tmp_path / "fine.toml").write_text('name = "fine"\nprimary = "#123456"\n')
    themes, problems = load_themes([tmp_path])
    assert [theme.name for theme in themes] == ["fine"]
    [problem] = problems
    assert str(tmp_path / "broken.toml") in problem
    assert expected in problem
    assert "skipped" in problem


def test_unknown_keys_are_reported_but_the_theme_loads(tmp_path: Path) -> None:
    (tmp_path / "typo.toml").write_text('name = "typo"\nprimary = "#123456"\nbackgroud = "#000000"\n')
    themes, [problem] = load_themes([tmp_path])
    assert [theme.name for theme in themes] == ["typo"]
    assert "backgroud" in problem and "typo.toml" in problem


def test_missing_folders_are_fine(tmp_path: Path) -> None:
    assert load_themes([tmp_path / "nothing-here"]) == ([], [])


# --- which theme at start ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("colorfgbg", "expected"),
    [
        ("15;0", "dark"),
        ("0;15", "light"),
        ("0;default;15", "light"),
        ("7;8", "dark"),
        ("default", None),
        ("", None),
    ],
)
def test_colorfgbg_gives_the_background(colorfgbg: str, expected: str | None) -> None:
    assert detect_terminal_background({"COLORFGBG": colorfgbg}) == expected


def test_default_theme_follows_the_background_and_a_setting_wins() -> None:
    app: App[None] = App()
    register_themes(app, [BUNDLED])
    assert resolve_theme_name(app, None, "light") == (LIGHT_THEME, None)
    assert resolve_theme_name(app, None, "dark") == (DARK_THEME, None)
    assert resolve_theme_name(app, None, None) == (DARK_THEME, None)
    assert resolve_theme_name(app, "auto", "light") == (LIGHT_THEME, None)
    assert resolve_theme_name(app, "nord", "light") == ("nord", None)
    name, message = resolve_theme_name(app, "zett-ligth", "dark")
    assert name == DARK_THEME
    assert message is not None and "zett-ligth" in message and "zett-light" in message


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (b"\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?62;22c", "dark"),
        (b"\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?1;2c", "light"),
        (b"\x1b]11;rgb:fd/f6/e3\x1b\\", "light"),
        (b"\x1b]11;rgba:1e1e/1e1e/2e2e/ffff\x1b\\", "dark"),
        (b"\x1b[?1;2c", None),
        (b"", None),
    ],
)
def test_osc11_reply_is_classified(reply: bytes, expected: str | None) -> None:
    assert background_from_reply(reply) == expected


def _fake_terminal(master: int, answer: bytes, asked: threading.Event) -> None:
    received = b""
    while b"\x1b[c" not in received:
        received += os.read(master, 100)
    asked.set()
    os.write(master, answer)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [(b"\x1b]11;rgb:f8f8/f8f8/f2f2\x1b\\\x1b[?62c", "light"), (b"\x1b[?62c", None)],
)
def test_osc11_query_on_a_pseudo_terminal_restores_the_mode(answer: bytes, expected: str | None) -> None:
    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        asked = threading.Event()
        terminal = threading.Thread(target=_fake_terminal, args=(master, answer, asked), daemon=True)
        terminal.start()
        reply = ask(slave, timeout=5.0)
        terminal.join(5)
        assert asked.is_set()
        assert background_from_reply(reply) == expected
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


def test_the_answer_read_after_start_up_work_keeps_the_keys_typed_meanwhile() -> None:
    """zett asks as it starts and reads after its imports: by then the deadline may have passed,
    but the answer and the keys typed before it are already there, and both are used."""
    from zett_tui.terminal import typeahead

    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        typeahead.take()
        query = BackgroundQuery.send_on(os.dup(slave))
        assert query is not None
        received = b""
        while b"\x1b[c" not in received:
            received += os.read(master, 100)
        os.write(master, b"hi\x1b]11;rgb:f8f8/f8f8/f2f2\x1b\\\x1b[?62c")
        time.sleep(0.2)  # the imports
        assert query.answer(timeout=0.05) == "light"
        assert query.answer() == "light"  # asked again: the same answer, the terminal not touched
        assert typeahead.take() == "hi"
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


# --- contrast ------------------------------------------------------------------------------------


def contrast(first: Color, second: Color) -> float:
    """WCAG 2 contrast of two Textual colours, by the same formula the 16-colour filter uses."""
    return contrast_ratio(ColorTriplet(first.r, first.g, first.b), ColorTriplet(second.r, second.g, second.b))


_PERCENT = re.compile(r"(?P<color>.+?)\s+(?P<percent>\d+(\.\d+)?)%")


def resolve(value: str, under: Color) -> Color:
    """A Textual CSS colour (``#abc``, ``#abc 40%``, ``auto 87%``) as it shows over ``under``."""
    match = _PERCENT.fullmatch(value.strip())
    name = match.group("color") if match else value.strip()
    alpha = float(match.group("percent")) / 100 if match else 1.0
    if name == "auto":
        return under + under.get_contrast_text(alpha)
    return under + Color.parse(name).multiply_alpha(alpha)


def theme_colors(theme: Theme) -> dict[str, str]:
    return {**theme_variable_defaults(theme), **theme.to_color_system().generate(), **theme.variables}


def bundled(name: str) -> Theme:
    themes, _ = load_themes([BUNDLED])
    return next(theme for theme in themes if theme.name == name)


def text_pairs(theme: Theme) -> dict[str, float]:
    """Contrast of every text colour zett draws on the background it is drawn on."""
    colors = theme_colors(theme)
    black = Color.parse("#000000")
    surface, background = resolve(colors["surface"], black), resolve(colors["background"], black)
    status = resolve(colors["status-line-background"], background)

    def on(foreground: str, backdrop: Color) -> float:
        return contrast(resolve(colors.get(foreground, foreground), backdrop), backdrop)

    pairs = {
        f"{name} on surface": on(name, surface)
        for name in (
            "foreground",
            "text",
            "text-muted",
            "text-primary",
            "text-accent",
            "text-warning",
            "text-error",
            "text-success",
            "primary",
            "warning",
        )
    }
    pairs |= {
        "foreground on background": on("foreground", background),
        "text-muted on background": on("text-muted", background),
        "text-muted on panel": on("text-muted", resolve(colors["panel"], background)),
        "text on primary (focused choice)": on("text", resolve(colors["primary"], surface)),
        "text on error (focused deny)": on("text", resolve(colors["error"], surface)),
        "text on the user prompt": on("text", resolve(f"{colors['primary']} 12%", surface)),
        "foreground on selection": on("foreground", resolve(f"{colors['accent']} 15%", surface)),
        "text on success 18% (diff view)": on("text", resolve(f"{colors['success']} 18%", surface)),
        "text on error 18% (diff view)": on("text", resolve(f"{colors['error']} 18%", surface)),
        "diff hunk on background": on("diff-hunk-foreground", background),
    }
    for side in ("added", "removed"):
        backdrop = resolve(colors[f"diff-{side}-background"], background)
        pairs[f"diff {side}"] = on(f"diff-{side}-foreground", backdrop)
    for part in ("foreground", "busy", "warning"):
        pairs[f"status line {part}"] = on(f"status-line-{part}", status)
    return pairs


@pytest.mark.parametrize("name", sorted(BUNDLED_NAMES))
def test_bundled_theme_text_meets_wcag_aa(name: str) -> None:
    theme = bundled(name)
    minimum = 7.0 if name == HIGH_CONTRAST_THEME else 4.5
    low = {pair: round(ratio, 2) for pair, ratio in text_pairs(theme).items() if ratio < minimum}
    assert low == {}


@pytest.mark.parametrize("name", sorted(BUNDLED_NAMES))
def test_bundled_code_theme_is_readable_on_the_code_background(name: str) -> None:
    theme = bundled(name)
    code_background = Color.parse(theme_colors(theme)["background"])
    style = get_style_by_name(theme.variables["code-theme"])
    tokens = (Token.Text, Comment, Keyword, Keyword.Constant, Name.Function, Name.Class, Name.Builtin)
    tokens += (String, String.Doc, Number, Operator, Name.Decorator)
    for token in tokens:
        color = style.style_for_token(token)["color"]
        if color:
            assert contrast(Color.parse(f"#{color}"), code_background) >= 4.5, (token, color)


# --- in the app -----------------------------------------------------------------------------------


def saved_theme() -> str | None:
    path = paths.config_file()
    return tomllib.loads(path.read_text())["ui"]["theme"] if path.exists() else None


async def test_bundled_themes_are_registered_and_dark_is_the_default() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(90, 24)):
        assert set(app.available_themes) >= BUNDLED_NAMES
        assert app.theme == DARK_THEME


async def test_light_terminal_gets_the_light_theme(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORFGBG", "0;15")
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(90, 24)):
        assert app.theme == LIGHT_THEME
    asked = make_app(ScriptedModel(), terminal_background="dark")  # the OSC 11 answer beats COLORFGBG
    async with ready_app(asked, size=(90, 24)):
        assert asked.theme == DARK_THEME


async def test_theme_problems_are_notices_at_start(isolated_dirs: Path) -> None:
    (user_themes(isolated_dirs) / "bad.toml").write_text('name = "bad"\nprimary = "nocolour"\n')
    app = make_app(ScriptedModel(), theme="no-such-theme")
    async with ready_app(app):
        shown = notices(app)
        assert any("bad.toml" in text and "primary" in text for text in shown)
        assert any("no-such-theme" in text for text in shown)
        assert app.theme == DARK_THEME


async def test_theme_command_switches_and_persists() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/theme zett-light")
        await wait_for(pilot, lambda: app.theme == LIGHT_THEME)
        assert saved_theme() == LIGHT_THEME
        assert any("saved in" in text for text in notices(app))
        await submit(pilot, "/theme zett-lihgt")
        await wait_for(pilot, lambda: any("zett-lihgt" in text for text in notices(app)))
        assert "Did you mean zett-light" in notices(app)[-1]
        assert app.theme == LIGHT_THEME and saved_theme() == LIGHT_THEME
    settings, _ = load_settings(cwd=Path.cwd(), env={})
    assert settings.ui.theme == LIGHT_THEME


async def test_theme_command_reports_a_config_that_cannot_be_saved() -> None:
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text("model = [\n")
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/theme zett-high-contrast")
        await wait_for(pilot, lambda: any("could not be saved" in text for text in notices(app)))
        assert app.theme == HIGH_CONTRAST_THEME
        assert "config.toml" in notices(app)[-1]


async def test_theme_command_leaves_a_read_only_config_alone_and_says_so() -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("# mine, managed elsewhere\n[ui]\nbell = false\n")
    os.chmod(config, 0o444)
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/theme zett-high-contrast")
        await wait_for(pilot, lambda: any("could not be saved" in text for text in notices(app)))
        assert app.theme == HIGH_CONTRAST_THEME
        assert "is read-only" in notices(app)[-1]
        await submit(pilot, "/theme zett-light")  # the app goes on
        await wait_for(pilot, lambda: app.theme == LIGHT_THEME)
    assert config.read_text() == "# mine, managed elsewhere\n[ui]\nbell = false\n"


async def test_picker_previews_on_highlight_and_escape_restores() -> None:
    app = make_app(ScriptedModel(), theme=DARK_THEME)
    async with ready_app(app) as pilot:
        await submit(pilot, "/theme")
        await wait_for(pilot, lambda: isinstance(app.screen, ThemePicker))
        assert app.theme == DARK_THEME
        await pilot.press("down")
        await wait_for(pilot, lambda: app.theme == HIGH_CONTRAST_THEME)
        await pilot.press("down")
        await wait_for(pilot, lambda: app.theme == LIGHT_THEME)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ThemePicker))
        assert app.theme == DARK_THEME
        assert saved_theme() is None
        await submit(pilot, "/theme")
        await wait_for(pilot, lambda: isinstance(app.screen, ThemePicker))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ThemePicker))
        assert app.theme == HIGH_CONTRAST_THEME
        assert saved_theme() == HIGH_CONTRAST_THEME


async def test_picker_auto_row_saves_auto() -> None:
    app = make_app(ScriptedModel(), theme=LIGHT_THEME, terminal_background="dark")
    async with ready_app(app) as pilot:
        await submit(pilot, "/theme")
        await wait_for(pilot, lambda: isinstance(app.screen, ThemePicker))
        await pilot.press("home", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ThemePicker))
        assert app.theme == DARK_THEME
        assert saved_theme() == "auto"


@pytest.mark.parametrize(("theme", "token_color"), [(DARK_THEME, "#a5d6ff"), (LIGHT_THEME, "#a90d91")])
async def test_code_blocks_use_the_themes_code_style(theme: str, token_color: str, tmp_path: Path) -> None:
    app = make_app(ScriptedModel(text_step(ANSWER)), theme=theme)
    async with ready_app(app) as pilot:
        await submit(pilot, "show code")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        svg = app.export_screenshot()
        app.save_screenshot(str(tmp_path / f"{theme}.svg"))
    assert token_color in svg.lower()


async def test_a_theme_that_changes_only_the_code_style_redraws_the_code_blocks(isolated_dirs: Path) -> None:
    """Two themes alike but for ``code-theme``: the transcript's CSS does not change with the switch,
    and its code blocks used to keep the old style until something else was drawn."""
    dark = (Path(__file__).parent.parent / "themes" / "zett-dark.toml").read_text()
    same_but_monokai = dark.replace('name = "zett-dark"', 'name = "mine"').replace(
        'code-theme = "github-dark"', 'code-theme = "monokai"'
    )
    (user_themes(isolated_dirs) / "mine.toml").write_text(same_but_monokai)
    app = make_app(ScriptedModel(text_step(ANSWER)), theme=DARK_THEME)
    async with ready_app(app) as pilot:
        await submit(pilot, "show code")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert "#a5d6ff" in app.export_screenshot().lower()  # github-dark's string colour
        app.theme = "mine"
        await wait_for(pilot, lambda: "#e6db74" in app.export_screenshot().lower(), timeout=5)  # monokai's


async def test_no_color_still_runs_and_keeps_selection_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(ScriptedModel(text_step(ANSWER)))
    async with ready_app(app) as pilot:
        assert app.no_color
        await submit(pilot, "show code")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        transcript = app.chat.transcript
        assert transcript.get_component_rich_style("transcript--selected").reverse
        assert "def parse" in "\n".join(
            transcript.line_text(y) for y in range(transcript.virtual_size.height)
        )
        svg = app.export_screenshot()
    colours = {match.lower() for match in re.findall(r"#[0-9a-fA-F]{6}", svg)}
    window_chrome = {"#c5c8c6", "#ff5f57", "#febc2e", "#28c840"}
    assert all(hex[1:3] == hex[3:5] == hex[5:7] for hex in colours - window_chrome), "only greys"


def running_timers(app: App[Any]) -> list[str]:
    """Repeating timers that are ticking (one-shot ``set_timer`` calls end by themselves)."""
    nodes: list[Any] = [app]
    for screen in app.screen_stack:
        nodes += [screen, *screen.walk_children()]
    return [
        f"{type(node).__name__}:{timer.name}"
        for node in nodes
        for timer in list(node._timers)
        if timer._repeat is None
        and timer._task is not None
        and not timer._task.done()
        and timer._active.is_set()
    ]


async def test_animations_off_shows_a_still_dot_and_leaves_no_timers() -> None:
    gate = asyncio.Event()
    app = make_app(ScriptedModel(text_step("Hello there, all done.", gate=gate)), animations=False)
    async with ready_app(app) as pilot:
        assert app.animation_level == "none"
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: app.chat.status.activity not in ("idle", "starting…"))
        status = app.chat.status
        assert not status.spinner.running
        assert str(status.render()).startswith(f"{BUSY_STILL} ")
        gate.set()
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert running_timers(app) == []


async def test_animations_on_spin_only_while_busy() -> None:
    gate = asyncio.Event()
    app = make_app(ScriptedModel(text_step("Hello there, all done.", gate=gate)))
    async with ready_app(app) as pilot:
        status = app.chat.status
        assert not status.spinner.running
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: status.spinner.running)
        assert str(status.render())[0] in SPINNER_FRAMES
        gate.set()
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert not status.spinner.running
        assert str(status.render()).startswith("○ idle")
        assert [name for name in running_timers(app) if "activity" in name] == []


def test_no_query_without_a_terminal() -> None:
    """Under pytest standard input is not a terminal: nothing is written, nothing is waited for."""
    assert query_background({"TERM": "xterm-256color"}) is None
    assert query_background({"TERM": "dumb"}) is None


def test_dialogs_get_a_readable_syntax_style_for_textual_themes_too() -> None:
    assert syntax_theme_name(bundled(LIGHT_THEME)) == "xcode"
    assert syntax_theme_name(Theme(name="plain-light", primary="#004578", dark=False)) == "default"
    assert syntax_theme_name(Theme(name="plain-dark", primary="#0178d4")) == "monokai"


@pytest.mark.parametrize("name", sorted(BUNDLED_NAMES))
def test_bundled_themes_set_every_zett_variable(name: str) -> None:
    assert set(ZETT_VARIABLES) | {"code-theme", "text-muted"} <= set(bundled(name).variables)


def test_textual_themes_get_defaults_for_zett_variables() -> None:
    for theme in BUILTIN_THEMES.values():
        assert set(theme_variable_defaults(theme)) == set(ZETT_VARIABLES), theme.name


async def test_theme_command_rereads_the_theme_files(isolated_dirs: Path) -> None:
    folder = user_themes(isolated_dirs)
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        (folder / "mine.toml").write_text('name = "mine"\nprimary = "#336699"\nbackground = "#101010"\n')
        await submit(pilot, "/theme mine")
        await wait_for(pilot, lambda: app.theme == "mine")
        assert app.screen.styles.background.hex == "#101010"
        (folder / "mine.toml").write_text('name = "mine"\nprimary = "#336699"\nbackground = "#202020"\n')
        (folder / "broken.toml").write_text("name = \n")
        await submit(pilot, "/theme mine")
        await wait_for(pilot, lambda: app.screen.styles.background.hex == "#202020")
        assert any("broken.toml" in text for text in notices(app))


def test_keys_typed_during_the_background_query_are_kept_for_the_app() -> None:
    from zett_tui.terminal import typeahead
    from zett_tui.terminal.background import typed_keys

    reply = b"he\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\ll\x1b[?62;22co\r"
    assert typed_keys(reply) == b"hello\r"
    assert typed_keys(b"ab\x1b]11;rgb:ffff/ffff/ffff\x07c\x1b[?1;2c") == b"abc"
    typeahead.take()
    typeahead.keep(typed_keys(reply))
    assert typeahead.take() == "hello\r"
