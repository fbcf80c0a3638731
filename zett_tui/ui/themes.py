"""Themes: zett's bundled theme files and the user's, read into Textual ``Theme`` objects.

A theme file is TOML: ``name``, ``dark``, Textual's theme colours (``primary`` ... ``boost``) and a
``[variables]`` table for the rest: Textual's own variables (``text-muted``, ``block-cursor-*``...)
and zett's (``code-theme``, ``diff-*``, ``status-line-*``; see ``ZETT_VARIABLES``). Folders are read
in order (bundled, then the user's), so a user theme named like a bundled one replaces it.

A file that cannot be used is skipped and named in one message; nothing here raises for bad input.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.errors import StyleSyntaxError
from rich.style import Style
from textual.app import App
from textual.color import Color, ColorParseError
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import TokenError
from textual.theme import BUILTIN_THEMES, Theme

from zett_tui.core import paths
from zett_tui.terminal.background import Background
from zett_tui.ui.textual_compat import select_theme_before_start

DARK_THEME = "zett-dark"
LIGHT_THEME = "zett-light"
HIGH_CONTRAST_THEME = "zett-high-contrast"
AUTO = "auto"
"""The setting value (and ``/theme`` argument) that follows the terminal's background."""

CODE_THEME_VARIABLE = "code-theme"
"""The variable naming the Pygments style for code blocks; not a colour."""

ZETT_VARIABLES = (
    "diff-added-background",
    "diff-added-foreground",
    "diff-removed-background",
    "diff-removed-foreground",
    "diff-hunk-foreground",
    "status-line-background",
    "status-line-foreground",
    "status-line-busy",
    "status-line-warning",
)
"""zett's CSS variables; ``theme_variable_defaults`` gives every theme (Textual's too) a value."""

COLOR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_FRACTION_KEYS = ("luminosity_spread", "text_alpha")
_KNOWN_KEYS = frozenset({"name", "dark", "variables", *COLOR_KEYS, *_FRACTION_KEYS})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
_VARIABLE_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_PERCENT = re.compile(r"(?P<color>.+?)\s+(?P<percent>\d{1,3}(\.\d+)?)%")
MAX_FILE_BYTES = 64 * 1024


class ThemeFileError(Exception):
    """One reason a theme file cannot be used; the message names the key when there is one."""


@dataclass
class LoadedThemes:
    """The result of reading the theme folders."""

    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """One line per file that was skipped (or key that was ignored), naming the file."""
    files: dict[str, Path] = field(default_factory=dict)
    """Where each theme came from, by name."""


def theme_dirs() -> list[Path]:
    """The bundled themes, then the user's (which win on equal names)."""
    return [paths.bundled_dir("themes"), paths.config_dir() / "themes"]


def load_themes(dirs: Iterable[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every usable ``*.toml`` theme in ``dirs`` (default: ``theme_dirs()``) and what was wrong."""
    loaded = read_theme_dirs(theme_dirs() if dirs is None else dirs)
    return loaded.themes, loaded.problems


def read_theme_dirs(dirs: Iterable[Path]) -> LoadedThemes:
    """Like ``load_themes``, also telling which file each theme came from."""
    by_name: dict[str, Theme] = {}
    loaded = LoadedThemes()
    bundled = paths.bundled_dir("themes")
    for folder in dirs:
        for path in _theme_files(folder, loaded.problems):
            try:
                # zett's own files are checked by the tests; checking their code styles here would
                # import Pygments before the first frame
                theme, ignored = read_theme_file(path, check_code_theme=folder != bundled)
            except ThemeFileError as error:
                loaded.problems.append(f"Theme file {path}: {error}; the file was skipped.")
                continue
            loaded.problems.extend(f"Theme file {path}: {note}." for note in ignored)
            earlier = loaded.files.get(theme.name)
            if earlier is not None and earlier.parent == path.parent:
                loaded.problems.append(
                    f"Theme file {path}: the name {theme.name!r} is also used by {earlier.name}; "
                    f"using {path.name}."
                )
            by_name[theme.name] = theme
            loaded.files[theme.name] = path
    loaded.themes = list(by_name.values())
    return loaded


def _theme_files(folder: Path, problems: list[str]) -> list[Path]:
    try:
        return sorted(
            path for path in folder.iterdir() if path.suffix == ".toml" and not path.name.startswith(".")
        )
    except FileNotFoundError:
        return []
    except OSError as error:
        problems.append(
            f"Theme folder {folder} cannot be read ({error.strerror or error}); its themes were skipped."
        )
        return []


def read_theme_file(path: Path, *, check_code_theme: bool = True) -> tuple[Theme, list[str]]:
    """The theme in one file, and the keys that were ignored. Raises ``ThemeFileError``."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ThemeFileError(f"larger than {MAX_FILE_BYTES // 1024} KiB, so not a theme")
        text = path.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError:
        raise ThemeFileError("not UTF-8 text") from None
    except OSError as error:
        raise ThemeFileError(f"cannot be read ({error.strerror or error})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ThemeFileError(f"not valid TOML: {error}") from None
    return parse_theme(data, check_code_theme=check_code_theme)


def parse_theme(data: Mapping[str, Any], *, check_code_theme: bool = True) -> tuple[Theme, list[str]]:
    """Check one theme's data and build it. Raises ``ThemeFileError`` naming the first bad key.

    ``check_code_theme=False`` takes the ``code-theme`` variable on trust (no Pygments import).
    """
    name = data.get("name")
    if name is None:
        raise ThemeFileError('no "name" (add a line such as name = "my-theme")')
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ThemeFileError(
            f"name: {name!r} is not a usable theme name (letters, digits, - and _, at most 40)"
        )
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeFileError(f"dark: expected true or false, got {dark!r}")
    if "primary" not in data:
        raise ThemeFileError('no "primary" colour (every theme needs one)')
    fields: dict[str, Any] = {key: _color(key, data[key]) for key in COLOR_KEYS if key in data}
    fields.update((key, _fraction(key, data[key])) for key in _FRACTION_KEYS if key in data)
    raw_variables = data.get("variables", {})
    if not isinstance(raw_variables, dict):
        raise ThemeFileError('variables: expected a table ([variables] with name = "value" lines)')
    variables = {name: _variable(name, value, check_code_theme) for name, value in raw_variables.items()}
    ignored = [f"unknown key {key!r} was ignored" for key in data if key not in _KNOWN_KEYS]
    theme = Theme(name=name, dark=dark, variables=variables, **fields)
    try:
        theme.to_color_system().generate()
        tokenize_values(variables)
    except (ColorParseError, TokenError, ValueError) as error:
        raise ThemeFileError(f"Textual cannot use these colours: {error}") from None
    return theme, ignored


def _color(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeFileError(f'{key}: expected a colour in quotes such as "#1e88e5", got {value!r}')
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(
            f"{key}: {value!r} is not a colour (use #rrggbb, rgb(r, g, b), hsl(...) or a colour name)"
        ) from None
    return value


def _fraction(key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ThemeFileError(f"{key}: expected a number from 0 to 1, got {value!r}")
    return float(value)


def _variable(name: object, value: object, check_code_theme: bool = True) -> str:
    if not isinstance(name, str) or not _VARIABLE_NAME.fullmatch(name):
        raise ThemeFileError(f"variables: {name!r} is not a variable name (lower-case words joined by -)")
    if not isinstance(value, str):
        raise ThemeFileError(f"variables.{name}: expected a value in quotes, got {value!r}")
    if name == CODE_THEME_VARIABLE:
        if check_code_theme and not _is_pygments_style(value):
            raise ThemeFileError(
                f"variables.{name}: {value!r} is not a Pygments style (for example github-dark or xcode)"
            )
    elif name.endswith("style"):
        try:
            Style.parse(value)
        except StyleSyntaxError:
            raise ThemeFileError(
                f"variables.{name}: {value!r} is not a text style (bold, italic, reverse, underline, none)"
            ) from None
    elif not _is_css_color(value):
        raise ThemeFileError(
            f"variables.{name}: {value!r} is not a colour (#rrggbb, a colour name, optionally with a "
            'percentage such as "#1e88e5 40%", or "auto 60%")'
        )
    return value


def _is_css_color(value: str) -> bool:
    """A colour as Textual CSS takes it: ``#1e88e5``, ``red``, ``#1e88e5 40%`` or ``auto 60%``."""
    match = _PERCENT.fullmatch(value.strip())
    color = match.group("color") if match else value.strip()
    if match and float(match.group("percent")) > 100:
        return False
    if color == "auto":
        return match is not None
    try:
        Color.parse(color)
    except ColorParseError:
        return False
    return True


def _is_pygments_style(name: str) -> bool:
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    try:
        get_style_by_name(name)
    except ClassNotFound:
        return False
    return True


# --- the app side ---------------------------------------------------------------------------


def register_themes(app: App[Any], dirs: Iterable[Path] | None = None) -> list[str]:
    """Register every usable theme with ``app``; return the problems, one line per file."""
    themes, problems = load_themes(dirs)
    for theme in themes:
        app.register_theme(theme)
    return problems


def code_theme_for(theme: Theme) -> str | None:
    """The Pygments style a theme asks for, or None to use the dark or light default."""
    return theme.variables.get(CODE_THEME_VARIABLE)


def syntax_theme_name(theme: Theme) -> str:
    """The Pygments style for code anywhere (dialogs too): the theme's, else the dark or light default."""
    from zett_tui.ui.widgets.transcript_render import choose_code_theme

    return choose_code_theme(theme.dark, code_theme_for(theme))


def theme_variable_defaults(theme: Theme) -> dict[str, str]:
    """zett's variables for a theme that does not set them (Textual's own themes), from its colours.

    For ``App.get_theme_variable_defaults``: without these, CSS using ``$diff-added-background``
    would not parse under a Textual theme.
    """
    colors = theme.to_color_system().generate()
    background = Color.parse(colors["background"])
    mix = 0.22 if theme.dark else 0.16
    return {
        "diff-added-background": background.blend(Color.parse(colors["success"]), mix).hex,
        "diff-added-foreground": colors["foreground"],
        "diff-removed-background": background.blend(Color.parse(colors["error"]), mix).hex,
        "diff-removed-foreground": colors["foreground"],
        "diff-hunk-foreground": colors["text-accent"],
        "status-line-background": colors["panel"],
        "status-line-foreground": colors["text-muted"],
        "status-line-busy": colors["text-accent"],
        "status-line-warning": colors["text-warning"],
    }


def detect_terminal_background(env: Mapping[str, str]) -> Background | None:
    """Light or dark from ``COLORFGBG`` (``"15;0"``: foreground;background ANSI numbers), else None.

    Many terminals (Ghostty, Warp, iTerm2...) do not set it; ``terminal_background.query_background``
    asks the terminal itself (OSC 11) before the app starts.
    """
    value = env.get("COLORFGBG", "")
    last = value.rsplit(";", 1)[-1].strip()
    if not last.isdigit():
        return None
    number = int(last)
    if number in (7, *range(9, 16)):
        return "light"
    if 0 <= number <= 8:
        return "dark"
    return None


def default_theme_name(background: Background | None) -> str:
    """zett's theme for the terminal's background; dark when nobody knows."""
    return LIGHT_THEME if background == "light" else DARK_THEME


def resolve_theme_name(
    app: App[Any], configured: str | None, background: Background | None
) -> tuple[str, str | None]:
    """The theme to use and, when ``configured`` is not available, a line that says so."""
    automatic = default_theme_name(background)
    if automatic not in app.available_themes:
        automatic = "textual-light" if background == "light" else "textual-dark"
    if configured is None or configured == AUTO:
        return automatic, None
    if configured in app.available_themes:
        return configured, None
    return automatic, f"There is no theme named {configured!r}; using {automatic}. {suggest(app, configured)}"


def suggest(app: App[Any], wanted: str) -> str:
    """A "did you mean" hint for an unknown theme name."""
    import difflib

    close = difflib.get_close_matches(wanted, list(app.available_themes), n=3, cutoff=0.5)
    hint = f"Did you mean {', '.join(close)}? " if close else ""
    return f"{hint}/theme lists the themes."


def ordered_theme_names(app: App[Any]) -> list[str]:
    """zett's and the user's themes first, then Textual's own, each alphabetical."""
    names = sorted(app.available_themes)
    own = [name for name in names if name not in BUILTIN_THEMES]
    return own + [name for name in names if name in BUILTIN_THEMES]


def effective_background(queried: str | None, env: Mapping[str, str] | None = None) -> Background | None:
    """The background the terminal answered (OSC 11, asked before the app started), else ``COLORFGBG``."""
    if queried == "dark":
        return "dark"
    if queried == "light":
        return "light"
    return detect_terminal_background(os.environ if env is None else env)


def start_themes(
    app: App[Any],
    configured: str | None,
    queried_background: str | None = None,
    *,
    dirs: Iterable[Path] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """Register the themes and select the configured one (or the one for the terminal's background).

    Returns what the user should be told: broken theme files, an unknown configured name.
    """
    problems = register_themes(app, dirs)
    name, unknown = resolve_theme_name(app, configured, effective_background(queried_background, env))
    if app.is_running:
        app.theme = name
    else:
        _select_before_start(app, name)
    return [*problems, *([unknown] if unknown else [])]


def _select_before_start(app: App[Any], name: str) -> None:
    """Select a theme before the app runs, without the re-parse of every stylesheet that the
    theme watcher schedules (~15 ms before the first frame; ``textual_compat``).

    The stylesheet is not parsed yet; it is parsed once, with this theme's variables, at the start.
    """
    select_theme_before_start(app, name)


MONOCHROME_CSS = """
Button:focus:nocolor { text-style: bold underline; }
OptionList:nocolor > .option-list--option-highlighted { text-style: bold reverse; }
Transcript:nocolor > .transcript--selected { text-style: reverse; }
Transcript:nocolor > .transcript--new-output { text-style: bold reverse; }
Transcript:nocolor > .transcript--find-match { text-style: underline; }
Transcript:nocolor > .transcript--find-current { text-style: bold reverse; }
"""
"""Under ``NO_COLOR`` Textual shows every colour as a grey; these keep focus and selection visible."""

READABLE_CSS = """
TextArea > .text-area--placeholder { color: $text-muted; }
Input > .input--placeholder, Input > .input--suggestion { color: $text-muted; }
"""
"""Textual's placeholders are $text-disabled (3.3:1 to 3.7:1 on zett's dark surfaces): muted text
is 4.5:1 or more in every bundled theme (tests/test_contrast.py)."""
