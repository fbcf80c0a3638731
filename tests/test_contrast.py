"""Every text/background pair zett draws is readable, in every bundled theme, under NO_COLOR and on
a terminal of 16 colours.

Measured on what is drawn, not on a list of pairs: the real app is put in a few states (an answer
with code, a tool row and a notice; the `/` menu open with a row highlighted; a shell dialog), the
screen is rendered, and every cell of text is checked: WCAG contrast of its foreground on its
background at least 4.5:1, 3:1 for dim text and for borders and bars (box-drawing and block
characters only). Every component class (``.completion-menu--highlight``, ``.status-line--busy``...)
of every widget on screen is checked the same way, as resolved by the theme, so a state the scenes
do not show still cannot hide a pair.

On 16 colours (``TERM=xterm``, no ``COLORTERM``) the terminal is sent ANSI colour numbers (Rich's
downgrade of each colour, as Textual writes it) and shows them in its own palette. Each pair is
checked in two: xterm's default palette and Windows Terminal's "Campbell" (its black is not black
and its grey is darker), written out here, not taken from zett.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.color_triplet import ColorTriplet
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.strip import Strip
from textual.widget import Widget

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.ui_helpers import answers, dialog_armed, idle, make_app, ready_app, submit, wait_for
from zett_tui.core import paths
from zett_tui.ui.modals.choice_dialog import ChoiceDialog
from zett_tui.ui.themes import DARK_THEME, HIGH_CONTRAST_THEME, LIGHT_THEME, read_theme_dirs

THEMES = sorted(read_theme_dirs([paths.bundled_dir("themes")]).files)
ANSWER = "Here is **bold**, `code` and a [link](https://example.com).\n\n1. first\n\n```python\nx = 1  # one\n```\n"


def _hexes(*values: str) -> list[ColorTriplet]:
    return [ColorTriplet(*bytes.fromhex(value)) for value in values]


PALETTES = {
    "xterm": _hexes(
        "000000", "cd0000", "00cd00", "cdcd00", "0000ee", "cd00cd", "00cdcd", "e5e5e5",
        "7f7f7f", "ff0000", "00ff00", "ffff00", "5c5cff", "ff00ff", "00ffff", "ffffff",
    ),
    "Campbell": _hexes(
        "0c0c0c", "c50f1f", "13a10e", "c19c00", "0037da", "881798", "3a96dd", "cccccc",
        "767676", "e74856", "16c60c", "f9f1a5", "3b78ff", "b4009e", "61d6d6", "f2f2f2",
    ),
}  # fmt: skip
"""Colours 0-15 as xterm shows them by default, and as Windows Terminal's default scheme does."""

Pairs = Callable[[Style], list[tuple[str, ColorTriplet, ColorTriplet]]]
"""How a terminal shows a style: (where, foreground, background) for each palette it is seen in."""


def test_every_bundled_theme_is_checked() -> None:
    assert {DARK_THEME, LIGHT_THEME, HIGH_CONTRAST_THEME} <= set(THEMES)


def _linear(channel: int) -> float:
    value = channel / 255
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def luminance(color: ColorTriplet) -> float:
    return 0.2126 * _linear(color.red) + 0.7152 * _linear(color.green) + 0.0722 * _linear(color.blue)


def contrast(first: ColorTriplet, second: ColorTriplet) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_contrast_formula_is_wcag() -> None:
    black, white = ColorTriplet(0, 0, 0), ColorTriplet(255, 255, 255)
    assert round(contrast(black, white), 1) == 21.0
    assert contrast(white, white) == 1.0
    assert round(contrast(ColorTriplet(0x76, 0x76, 0x76), white), 2) == 4.54  # the AA grey


def pair_of(style: Style) -> tuple[ColorTriplet, ColorTriplet] | None:
    """(foreground, background) as a truecolor terminal shows them, or None when not both set."""
    foreground, background = style.color, style.bgcolor
    if foreground is None or background is None:
        return None
    if foreground.triplet is None or background.triplet is None:
        return None
    pair = (foreground.triplet, background.triplet)
    return (pair[1], pair[0]) if style.reverse else pair


def truecolor(style: Style) -> list[tuple[str, ColorTriplet, ColorTriplet]]:
    pair = pair_of(style)
    return [] if pair is None else [("", *pair)]


def sixteen_colours(style: Style) -> list[tuple[str, ColorTriplet, ColorTriplet]]:
    """The pair as sent to a 16-colour terminal (an ANSI number each), in each palette."""
    pair = pair_of(style)
    if pair is None:
        return []
    foreground, background = (ansi_number(triplet) for triplet in pair)
    return [
        (f" [{name}: {foreground} on {background}]", palette[foreground], palette[background])
        for name, palette in PALETTES.items()
    ]


def ansi_number(triplet: ColorTriplet) -> int:
    """The colour number Textual sends for ``triplet`` on 16 colours (``Strip.render_ansi``)."""
    number = RichColor.from_triplet(triplet).downgrade(ColorSystem.STANDARD).number
    assert number is not None
    return number


def is_decorative(text: str) -> bool:
    """Borders, rules and bars only (box-drawing U+2500-257F, block elements U+2580-259F)."""
    return all(char.isspace() or "\u2500" <= char <= "\u259f" for char in text)


def low_contrast(style: Style, what: str, shown: Pairs = truecolor, decorative: bool = False) -> str | None:
    minimum = 3.0 if style.dim or decorative else 4.5
    for where, foreground, background in shown(style):
        ratio = contrast(foreground, background)
        if ratio < minimum:
            return f"{what}{where}: {foreground.hex} on {background.hex} is {ratio:.2f}:1 (needs {minimum})"
    return None


def drawn_text(app: App[Any]) -> Iterator[tuple[str, Style]]:
    """Every run of visible text on the screen, with the style it is drawn in; over a dialog,
    only the dialog's (what is behind it is dimmed on purpose)."""
    screen = app.screen
    region = screen.children[0].region if isinstance(screen, ChoiceDialog) else screen.region
    update = screen._compositor.render_full_update()
    for y, strips in enumerate(update.strips):
        x = 0
        for strip in strips:
            for segment in strip:
                inside = region.contains(x, y)
                x += segment.cell_length
                if inside and segment.text.strip() and segment.style is not None and not segment.control:
                    yield segment.text, segment.style


def problems_on_screen(app: App[Any], scene: str, shown: Pairs = truecolor) -> set[str]:
    """What is unreadable on the top screen; a dialog's: the chat dimmed behind it is not read."""
    found = set()
    for text, style in drawn_text(app):
        problem = low_contrast(style, f"{scene} {text.strip()[:24]!r}", shown, is_decorative(text))
        if problem:
            found.add(problem)
    for widget in app.screen.walk_children(Widget, with_self=True):
        for name in sorted(_own_component_classes(widget)):
            if not widget.get_component_styles(name).has_rule("color"):
                continue  # a background only (a selection): the drawn text above checks what is on it
            resolved = as_drawn(app, widget.get_component_rich_style(name))  # blended over what is behind it
            problem = low_contrast(resolved, f"{scene} {type(widget).__name__} .{name}", shown)
            if problem:
                found.add(problem)
    return found


def as_drawn(app: App[Any], style: Style) -> Style:
    """``style`` after the app's line filters, as a run of text in it would reach the terminal."""
    strip = Strip([Segment("Aa", style)])
    background = Color.from_rich_color(style.bgcolor) if style.bgcolor is not None else Color(0, 0, 0)
    for line_filter in app.get_line_filters():
        strip = strip.apply_filter(line_filter, background)
    [segment] = list(strip)
    return segment.style or style


def _own_component_classes(widget: Widget) -> set[str]:
    """The component classes a widget draws with: zett's own widgets' all, Textual's text widgets'
    placeholder (zett restyles it); the rest of Textual's are checked where they are drawn."""
    own = {
        name
        for cls in type(widget).__mro__
        if cls.__module__.startswith("zett_tui")
        for name in cls.__dict__.get("COMPONENT_CLASSES", ())
    }
    return own | {
        name for name in widget.COMPONENT_CLASSES if name.endswith(("--placeholder", "--suggestion"))
    }


async def every_scene(app: App[Any], pilot: Any, shown: Pairs = truecolor) -> set[str]:
    found: set[str] = set()
    await submit(pilot, "show me")
    await dialog_armed(pilot)  # armed: the choices are no longer dimmed
    found |= problems_on_screen(app, "shell dialog", shown)
    await pilot.press("escape")
    await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
    found |= problems_on_screen(app, "transcript", shown)
    app.chat.composer.focus()
    await pilot.press("/", "e")
    await wait_for(pilot, lambda: app.chat.screen.query_one("CompletionMenu").has_class("-open"))
    await pilot.pause()
    found |= problems_on_screen(app, "/ menu", shown)
    await pilot.press("down")
    await pilot.pause()
    found |= problems_on_screen(app, "/ menu, second row", shown)
    return found


def scripted() -> ScriptedModel:
    return ScriptedModel(tool_step("c1", "bash", {"command": "echo hi"}), text_step(ANSWER))


@pytest.mark.parametrize("theme", THEMES)
async def test_every_pair_drawn_in_a_bundled_theme_is_readable(theme: str) -> None:
    app = make_app(scripted(), theme=theme)
    async with ready_app(app, size=(100, 34)) as pilot:
        assert app.theme == theme
        found = await every_scene(app, pilot)
    assert not found, "\n".join(sorted(found))


async def test_every_pair_drawn_under_no_color_is_readable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(scripted())
    async with ready_app(app, size=(100, 34)) as pilot:
        assert app.no_color
        found = await every_scene(app, pilot)
    assert not found, "\n".join(sorted(found))


@pytest.fixture
def sixteen_colour_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal that says only ``TERM=xterm``: Textual then sends the 16 ANSI colours."""
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("COLORTERM", raising=False)


@pytest.mark.usefixtures("sixteen_colour_terminal")
@pytest.mark.parametrize("theme", THEMES)
async def test_every_pair_drawn_on_16_colours_is_readable_in_a_bundled_theme(theme: str) -> None:
    app = make_app(scripted(), theme=theme)
    async with ready_app(app, size=(100, 34)) as pilot:
        assert app.theme == theme and app.console.color_system == "standard"
        found = await every_scene(app, pilot, sixteen_colours)
    assert not found, "\n".join(sorted(found))


@pytest.mark.usefixtures("sixteen_colour_terminal")
async def test_every_pair_drawn_on_16_colours_under_no_color_is_readable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(scripted())
    async with ready_app(app, size=(100, 34)) as pilot:
        assert app.no_color and app.console.color_system == "standard"
        found = await every_scene(app, pilot, sixteen_colours)
    assert not found, "\n".join(sorted(found))


@pytest.mark.usefixtures("sixteen_colour_terminal")
async def test_on_16_colours_the_transcript_scrollbar_still_shows_where_the_reader_is() -> None:
    """The thumb is a bar in its own colour (ANSI 8 in zett-dark), not a background for text: moving
    dark greys to black for the text on them must not make it the track's black."""
    from tests.test_find import fill

    app = make_app(ScriptedModel(), theme=DARK_THEME)
    async with ready_app(app, size=(100, 30)) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 30)
        await wait_for(pilot, lambda: not transcript.update_pending and transcript.max_scroll_y > 0)
        await pilot.pause()
        scrollbar = transcript.vertical_scrollbar.region
        column = scrollbar.x
        update = app.screen._compositor.render_full_update()
        drawn: set[int] = set()
        for y, strips in enumerate(update.strips):
            if not scrollbar.contains(column, y):
                continue
            x = 0
            for strip in strips:
                for segment in strip:
                    style = segment.style
                    if x <= column < x + segment.cell_length and style is not None:
                        background = style.color if style.reverse else style.bgcolor
                        if background is not None and background.triplet is not None:
                            drawn.add(ansi_number(background.triplet))
                    x += segment.cell_length
    assert len(drawn) >= 2, f"the scrollbar is one colour: ANSI {drawn}"
