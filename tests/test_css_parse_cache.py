"""The suite's shared parse of Textual CSS (``tests/css_parse_cache.py``) styles an app as the
app's own parse does: every node of the screen gets the same rules, in two themes, and after a
switch of theme in the running app."""

from __future__ import annotations

from typing import Any

import pytest

from tests import css_parse_cache
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, idle, make_app, ready_app, submit, wait_for
from zett_tui.ui.themes import DARK_THEME, LIGHT_THEME

ANSWER = "# Title\n\nSome *text* and `code`.\n\n```python\ndef parse(x):\n    return x + 1\n```\n"


def applied_styles(app: Any) -> list[tuple[str, str, list[str], list[tuple[str, str]]]]:
    """Each node of the screen (in order): its type, id, classes and the CSS rules applied to it."""
    return [
        (
            type(node).__name__,
            str(node.id),
            sorted(node.classes),
            sorted((rule, repr(value)) for rule, value in node.styles.base.get_rules().items()),
        )
        for node in app.screen.walk_children(with_self=True)
    ]


async def styled(theme: str) -> list[Any]:
    """The styles of an app's nodes after an answer, and after switching to the other theme."""
    other = LIGHT_THEME if theme == DARK_THEME else DARK_THEME
    app = make_app(ScriptedModel(text_step(ANSWER)), theme=theme)
    found: list[Any] = []
    async with ready_app(app, size=(100, 30)) as pilot:
        await submit(pilot, "show code")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        found.append(applied_styles(app))
        app.theme = other
        await pilot.pause()
        found.append(applied_styles(app))
    return found


@pytest.mark.parametrize("theme", [DARK_THEME, LIGHT_THEME])
async def test_an_app_styled_from_the_shared_parse_draws_what_its_own_parse_draws(theme: str) -> None:
    await styled(theme)  # fills the shared parse (it may be filled already)
    shared = await styled(theme)
    css_parse_cache.uninstall()
    try:
        own = await styled(theme)
    finally:
        css_parse_cache.install()
    assert len(shared[0]) >= 5 and shared[0] != shared[1]  # many nodes; the theme changed them
    assert shared == own
