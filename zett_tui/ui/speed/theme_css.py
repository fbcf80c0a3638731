"""Apply a text area's theme CSS when its styles change, not at every render.

Textual's ``TextArea.render_lines`` starts with ``theme.apply_css(self)``: six component styles
looked up and the widget's Rich style built by walking its ancestors for their backgrounds, at every
render. The prompt renders at every typed key (``key_echo``), so that was about a quarter of a
key's handling on the loop (cProfile of 150 keys: 2.1 of 6.9 ms a key). The result changes only
when the styles do: the widget's own (CSS rules, after which Textual calls ``notify_style_update``,
or inline ones: ``styles_version``), its component classes' (restyled as new ``Styles`` objects,
which may come without that call), or the theme object itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.textual_compat import styles_version

if TYPE_CHECKING:
    from textual.widgets import TextArea


class ThemeCss:
    """The styles a text area's theme was last filled in from."""

    def __init__(self) -> None:
        self._applied: tuple[object, ...] | None = None

    def apply(self, text_area: TextArea) -> None:
        """Fill the theme's missing styles in from the CSS, if anything changed since last time."""
        theme = text_area._theme
        if theme is None:
            return
        key = (id(theme), styles_version(text_area), *map(id, text_area._component_styles.values()))
        if key != self._applied:
            theme.apply_css(text_area)
            self._applied = key

    def styles_changed(self) -> None:
        """The widget's styles changed (``notify_style_update``): apply again at the next render."""
        self._applied = None
