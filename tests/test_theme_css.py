"""The prompt fills its theme in from the CSS once per change of styles, not at every key
(``ui/speed/theme_css.py``), and what it draws with is always what a fresh fill would give."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from textual.widgets.text_area import TextAreaTheme

from tests.fakes.scripted_model import ScriptedModel
from tests.ui_helpers import make_app, ready_app
from zett_tui.ui.speed.theme_css import ThemeCss
from zett_tui.ui.themes import DARK_THEME, LIGHT_THEME


def _filled(theme: TextAreaTheme) -> dict[str, Any]:
    return {
        field.name: getattr(theme, field.name)
        for field in fields(theme)
        if field.init and field.name != "name"
    }


def _fresh(composer: Any) -> dict[str, Any]:
    """What ``apply_css`` gives now, on a copy of the prompt's theme as configured."""
    configured = composer._theme._theme_configured_attributes | {"name"}
    theme = TextAreaTheme(
        **{
            field.name: getattr(composer._theme, field.name)
            for field in fields(TextAreaTheme)
            if field.init and field.name in configured
        }
    )
    theme.apply_css(composer)
    return _filled(theme)


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    original = TextAreaTheme.apply_css

    def counted(self: TextAreaTheme, text_area: Any) -> None:
        calls.append(text_area)
        original(self, text_area)

    monkeypatch.setattr(TextAreaTheme, "apply_css", counted)
    return calls


async def test_typing_fills_the_theme_in_once(applied: list[object]) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        await pilot.pause()
        before = len([call for call in applied if call is composer])
        for key in "hello there":
            await pilot.press(key if key != " " else "space")
        await pilot.pause()
        assert composer.text == "hello there"
        assert len([call for call in applied if call is composer]) - before <= 1


async def test_a_theme_switch_and_the_focus_leaving_fill_it_in_again() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        await pilot.press("a")
        await pilot.pause()
        assert _filled(composer._theme) == _fresh(composer)
        dark_cursor = composer._theme.cursor_style
        app.theme = LIGHT_THEME if app.theme == DARK_THEME else DARK_THEME
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert _filled(composer._theme) == _fresh(composer)
        assert composer._theme.cursor_style != dark_cursor  # the light theme's, not the one before
        composer.blur()
        await pilot.pause()
        composer.refresh()
        await pilot.pause()
        assert _filled(composer._theme) == _fresh(composer)


async def test_an_inline_style_fills_it_in_again() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        await pilot.press("a")
        await pilot.pause()
        composer.styles.background = "red"
        await pilot.press("b")
        await pilot.pause()
        assert _filled(composer._theme) == _fresh(composer)
        assert composer._theme.base_style.bgcolor.triplet.hex == "#ff0000"


class _Counted:
    def __init__(self) -> None:
        self.applied = 0

    def apply_css(self, text_area: Any) -> None:
        self.applied += 1


class _Prompt:
    """What ``ThemeCss`` reads of a text area: its theme, component styles and styles' version."""

    def __init__(self) -> None:
        self._theme = _Counted()
        self._component_styles: dict[str, object] = {"text-area--cursor": object()}
        self.styles = type("RenderStyles", (), {"_cache_key": 1})()


def test_a_restyle_is_seen_even_where_the_new_styles_take_the_old_ones_place_in_memory() -> None:
    """The old component styles are dropped before the new ones are made, so CPython often gives
    the new ones the old address: a cache keyed by ``id`` missed every one of these."""
    prompt, cache = _Prompt(), ThemeCss()
    cache.apply(prompt)  # type: ignore[arg-type]
    for expected in range(2, 22):
        prompt._component_styles.pop("text-area--cursor")
        prompt._component_styles["text-area--cursor"] = object()
        cache.apply(prompt)  # type: ignore[arg-type]
        assert prompt._theme.applied == expected
    cache.apply(prompt)  # type: ignore[arg-type]
    assert prompt._theme.applied == 21  # nothing changed: not again
