"""What a dialog shows is what is there: every control, format and invisible character drawn as an
escape (``\\x1b``, ``\\u202e``, ``\\u200b``), highlighted, never sent to the terminal.

An approval is only as good as its picture of what will happen. A command ``touch X #
\\x1b[2K\\x1b[1Gecho hello`` must not show as ``echo hello``; a file whose content holds
``\\x1b[2K\\x1b[1A`` must not erase rows of the diff being approved; a bidi override must not
reorder a line. The strings come from the model (commands, paths, diffs, questions, plans, tool
arguments) and from cloned repositories (``.mcp.json`` command lines, hook lines, config).

One structure for all of them: ``ChoiceDialog`` runs ``show_controls_in`` over everything it
holds when it is mounted. Text widgets (``Static`` and its kind) and button labels are rewritten
with ``shown``; the few widgets that draw text their own way declare that they already do this
(``SHOWS_CONTROLS_VISIBLY``: the diff, the command, Markdown in a dialog); any other widget is not
shown at all, and the log says which, so a new dialog cannot put hostile text on screen by
forgetting a call.
"""

from __future__ import annotations

import logging

from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Input, Static, TextArea

from zett_tui.core.inert_text import hidden_characters, make_visible, visible_escape

__all__ = ["ESCAPE_STYLE", "show_controls_in", "shown", "shows_controls_visibly"]

log = logging.getLogger(__name__)

#: How an escaped character stands out from the text around it.
ESCAPE_STYLE = "reverse"


def shown(content: str | Text, style: str | Style = "") -> Text:
    """``content`` as a ``Text`` with every hidden character written as a highlighted escape; the
    styles of a ``Text`` are kept. Text with nothing hidden comes back as it is (or wrapped).

    Give it the raw string where there is one: ``Text`` itself silently drops BEL, BS, VT, FF and
    CR, so they show only when ``shown`` sees them first."""
    if isinstance(content, str):
        out = Text(style=style)
        start = 0
        for offset in hidden_characters(content):
            out.append(content[start:offset])
            out.append(visible_escape(content[offset]), style=ESCAPE_STYLE)
            start = offset + 1
        out.append(content[start:])
        return out
    offsets = hidden_characters(content.plain)
    if not offsets:
        return content
    pieces = content.divide(index for offset in offsets for index in (offset, offset + 1))
    out = Text(
        style=content.style,
        justify=content.justify,
        overflow=content.overflow,
        no_wrap=content.no_wrap,
        end=content.end,
    )
    for piece in pieces:
        plain = piece.plain
        if len(plain) == 1 and hidden_characters(plain):
            out.append(visible_escape(plain), style=ESCAPE_STYLE)
        else:
            out.append_text(piece)
    return out


def shows_controls_visibly(widget: Widget) -> bool:
    """The widget draws its text with ``shown``/``make_visible`` itself (it says so)."""
    return bool(getattr(widget, "SHOWS_CONTROLS_VISIBLY", False))


def show_controls_in(root: Widget) -> None:
    """Make every text ``root`` holds show its hidden characters (see the module docstring)."""
    for widget in root.query("*"):
        if shows_controls_visibly(widget):
            continue
        if isinstance(widget, Static):
            _show_static(widget)
        elif isinstance(widget, Button):
            label = widget.label
            plain = label.plain if isinstance(label, Content) else str(label)
            if hidden_characters(plain):
                widget.label = shown(plain)
        elif isinstance(widget, Input):
            if hidden_characters(widget.value):
                widget.value = make_visible(widget.value)
        elif isinstance(widget, TextArea):
            if hidden_characters(widget.text):
                widget.load_text(make_visible(widget.text))
        elif not (_draws_no_text(widget) or _own_part(widget)):
            log.error(
                "a dialog held a %s, which may draw hidden characters: not shown", type(widget).__name__
            )
            widget.display = False


def _draws_no_text(widget: Widget) -> bool:
    """A layout widget (``Vertical``, ``VerticalScroll``...): it draws only its children."""
    kind = type(widget)
    return all(
        getattr(kind, name) is getattr(Widget, name) for name in ("render", "render_line", "render_lines")
    )


def _own_part(widget: Widget) -> bool:
    """A part Textual builds inside a widget already checked (a scroll bar, an input's cursor)."""
    parent = widget.parent
    while isinstance(parent, Widget):
        if isinstance(parent, Input | TextArea | Button) or shows_controls_visibly(parent):
            return True
        parent = parent.parent
    return False


def _show_static(widget: Static) -> None:
    if type(widget).render is not Static.render:
        log.error("a dialog held a %s, which draws its own text: not shown", type(widget).__name__)
        widget.display = False
        return
    content = widget.content
    if isinstance(content, str):
        if hidden_characters(content):
            widget.update(shown(content))
    elif isinstance(content, Text):
        if hidden_characters(content.plain):
            widget.update(shown(content))
    elif isinstance(content, Content):
        if hidden_characters(content.plain):
            widget.update(shown(content.plain))
    else:
        log.error(
            "a dialog held a %s in a Static, which may draw hidden characters: not shown", type(content)
        )
        widget.display = False
