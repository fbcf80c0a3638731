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
    """The styles a text area's theme was last filled in from.

    The theme and component styles are held, not their ``id``s: an object freed while the prompt
    keeps drawing may leave its address to its replacement, which an ``id`` would take for it."""

    def __init__(self) -> None:
        self._applied_to: tuple[object, ...] = ()
        self._version: int | None = None

    def apply(self, text_area: TextArea) -> None:
        """Fill the theme's missing styles in from the CSS, if anything changed since last time."""
        theme = text_area._theme
        if theme is None:
            return
        objects = (theme, *text_area._component_styles.values())
        version = styles_version(text_area)
        if version != self._version or not _same(objects, self._applied_to):
            theme.apply_css(text_area)
            self._applied_to, self._version = objects, version

    def styles_changed(self) -> None:
        """The widget's styles changed (``notify_style_update``): apply again at the next render."""
        self._version = None


def _same(these: tuple[object, ...], those: tuple[object, ...]) -> bool:
    return len(these) == len(those) and all(a is b for a, b in zip(these, those, strict=True))
