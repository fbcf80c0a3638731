"""A message the user sent into a running turn, shown where the runtime delivered it."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from zett_tui.core.inert_text import make_inert
from zett_tui.ui.widgets.transcript_blocks import Block, user_bar
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

#: The words over a steering message (also in an export: ``sessions.export``).
STEER_LABEL = "you, during the turn"


class SteerBlock(Block):
    """The user's steering message: the prompt's bar, with a label saying it went in mid-turn."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = make_inert(text)

    def plain_text(self) -> str:
        return self.text

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        styles = ctx.styles
        body = Text(f"↳ {STEER_LABEL}: ", style=styles.user + Style(italic=True))
        body.append(self.text.rstrip("\n") or " ", style=styles.user)
        return user_bar(body, width, ctx)
