"""Every text/background pair zett draws is readable, in every bundled theme and under NO_COLOR.

Measured on what is drawn, not on a list of pairs: the real app is put in a few states (an answer
with code, a tool row and a notice; the `/` menu open with a row highlighted; a shell dialog), the
screen is rendered, and every cell of text is checked: WCAG contrast of its foreground on its
background at least 4.5:1, 3:1 for dim text. Every component class (``.completion-menu--highlight``,
``.status-line--busy``...) of every widget on screen is checked the same way, as resolved by the
theme, so a state the scenes do not show still cannot hide a pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rich.color_triplet import ColorTriplet
from rich.style import Style
from textual.app import App
from textual.widget import Widget

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.ui_helpers import answers, idle, make_app, ready_app, submit, wait_for
from zett_tui.ui.modals.choice_dialog import ChoiceDialog
from zett_tui.ui.themes import DARK_THEME, HIGH_CONTRAST_THEME, LIGHT_THEME

THEMES = [DARK_THEME, LIGHT_THEME, HIGH_CONTRAST_THEME]
ANSWER = "Here is **bold**, `code` and a [link](https://example.com).\n\n1. first\n\n```python\nx = 1  # one\n```\n"


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


def low_contrast(style: Style, what: str) -> str | None:
    pair = pair_of(style)
    if pair is None:
        return None
    ratio = contrast(*pair)
    minimum = 3.0 if style.dim else 4.5
    if ratio >= minimum:
        return None
    return f"{what}: {pair[0].hex} on {pair[1].hex} is {ratio:.2f}:1 (needs {minimum})"


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


def problems_on_screen(app: App[Any], scene: str) -> set[str]:
    """What is unreadable on the top screen; a dialog's: the chat dimmed behind it is not read."""
    found = set()
    for text, style in drawn_text(app):
        problem = low_contrast(style, f"{scene} {text.strip()[:24]!r}")
        if problem:
            found.add(problem)
    for widget in app.screen.walk_children(Widget, with_self=True):
        for name in sorted(_own_component_classes(widget)):
            if not widget.get_component_styles(name).has_rule("color"):
                continue  # a background only (a selection): the drawn text above checks what is on it
            resolved = widget.get_component_rich_style(name)  # blended over what is behind it
            problem = low_contrast(resolved, f"{scene} {type(widget).__name__} .{name}")
            if problem:
                found.add(problem)
    return found


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


async def every_scene(app: App[Any], pilot: Any) -> set[str]:
    found: set[str] = set()
    await submit(pilot, "show me")
    await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog))
    await pilot.pause(0.6)  # armed: the choices are no longer dimmed
    found |= problems_on_screen(app, "shell dialog")
    await pilot.press("escape")
    await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
    found |= problems_on_screen(app, "transcript")
    app.chat.composer.focus()
    await pilot.press("/", "e")
    await wait_for(pilot, lambda: app.chat.screen.query_one("CompletionMenu").has_class("-open"))
    await pilot.pause()
    found |= problems_on_screen(app, "/ menu")
    await pilot.press("down")
    await pilot.pause()
    found |= problems_on_screen(app, "/ menu, second row")
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
