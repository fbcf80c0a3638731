"""Readable on a 16-colour terminal: a line filter that fixes the pairs the ANSI downgrade spoils.

A terminal that offers only the 16 ANSI colours (``TERM=xterm`` or ``screen`` without
``COLORTERM=truecolor``) gets every theme colour as its nearest ANSI colour (Rich's
``Color.downgrade``, matched against the VGA palette), and the terminal then shows that colour
number in its *own* palette. Two theme colours that read well in truecolor can land on a pair
that does not: zett-light's muted grey becomes ANSI 8 (4.0:1 on white in xterm's palette), a
dark status line becomes ANSI 8 (on which nothing reaches 4.5:1 in Windows Terminal's Campbell
palette), Pygments' amber and green turn into yellow on white.

No theme colour can fix that for every theme, a user's and the code styles' included, so the
pairs are fixed where they are drawn: ``ReadableIn16Colours`` runs last among the app's line
filters (``ZettApp.get_line_filters``, only in 16-colour mode) and looks at each run of text:

- a background on which no colour is readable in both reference palettes (ANSI 8, 12, 13) is
  moved to the nearest one that is (a dark grey to black, a light one to white); a reversed
  blank (the scrollbar's thumb) is a bar, not a background, and is left alone;
- text that is not readable on its background in *both* palettes, xterm's and Campbell's
  (``REFERENCE_PALETTES``), gets the nearest ANSI colour that is: 4.5:1, or 3:1 for borders
  and bars (box-drawing and block characters only).

The terminal's real palette is its own; these two are the defaults of the most common terminals
that differ most (Campbell's black is not black, its grey is darker). Colours that pass are not
touched, so a theme that already reads well in 16 colours looks as its author made it.
"""

from __future__ import annotations

import colorsys
import re
from collections.abc import Sequence
from functools import lru_cache

from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.color_triplet import ColorTriplet
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter


def _palette(*hexes: str) -> tuple[ColorTriplet, ...]:
    return tuple(ColorTriplet(*bytes.fromhex(value)) for value in hexes)


XTERM = _palette(
    "000000", "cd0000", "00cd00", "cdcd00", "0000ee", "cd00cd", "00cdcd", "e5e5e5",
    "7f7f7f", "ff0000", "00ff00", "ffff00", "5c5cff", "ff00ff", "00ffff", "ffffff",
)  # fmt: skip
"""xterm's default colours 0-15 (its ``XTerm`` resources)."""
CAMPBELL = _palette(
    "0c0c0c", "c50f1f", "13a10e", "c19c00", "0037da", "881798", "3a96dd", "cccccc",
    "767676", "e74856", "16c60c", "f9f1a5", "3b78ff", "b4009e", "61d6d6", "f2f2f2",
)  # fmt: skip
"""Windows Terminal's default scheme, "Campbell"."""
REFERENCE_PALETTES = {"xterm": XTERM, "Campbell": CAMPBELL}
"""The palettes a pair must read well in: zett cannot know the terminal's own."""
VGA = _palette(
    "000000", "aa0000", "00aa00", "aa5500", "0000aa", "aa00aa", "00aaaa", "aaaaaa",
    "555555", "ff5555", "55ff55", "ffff55", "5555ff", "ff55ff", "55ffff", "ffffff",
)  # fmt: skip
"""Rich's ``STANDARD_PALETTE``: what the downgrade matches against. A colour set to one of these
is sent as exactly that ANSI number."""

TEXT_CONTRAST = 4.5
DECORATIVE_CONTRAST = 3.0
_DECORATIVE = re.compile(r"[\s\u2500-\u259f]+")
"""Box-drawing and block characters: borders, rules, bars."""


def relative_luminance(color: ColorTriplet) -> float:
    """WCAG 2 relative luminance."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(color.red) + 0.7152 * linear(color.green) + 0.0722 * linear(color.blue)


def contrast_ratio(first: ColorTriplet, second: ColorTriplet) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def ansi_number(color: RichColor) -> int:
    """The ANSI colour (0-15) a colour is sent as on a 16-colour terminal."""
    number = color.downgrade(ColorSystem.STANDARD).number
    assert number is not None
    return number


def is_decorative(text: str) -> bool:
    """Only borders, rules and bars: 3:1 is enough for these."""
    return _DECORATIVE.fullmatch(text) is not None


def readable(foreground: int, background: int, minimum: float = TEXT_CONTRAST) -> bool:
    """Does ANSI ``foreground`` on ANSI ``background`` reach ``minimum`` in every reference palette?"""
    return all(
        contrast_ratio(palette[foreground], palette[background]) >= minimum
        for palette in REFERENCE_PALETTES.values()
    )


_READABLE_ON = {
    decorative: [
        tuple(
            fg for fg in range(16) if readable(fg, bg, DECORATIVE_CONTRAST if decorative else TEXT_CONTRAST)
        )
        for bg in range(16)
    ]
    for decorative in (False, True)
}
"""The ANSI colours readable on each ANSI background, for text and for borders and bars."""
_USABLE_BACKGROUNDS = tuple(background for background in range(16) if _READABLE_ON[False][background])


def _distance(first: ColorTriplet, second: ColorTriplet) -> float:
    """Rich's colour distance (the one its downgrade uses)."""
    red_mean = (first.red + second.red) // 2
    red, green, blue = first.red - second.red, first.green - second.green, first.blue - second.blue
    return (((512 + red_mean) * red * red) >> 8) + 4 * green * green + (((767 - red_mean) * blue * blue) >> 8)


_GREYS = (0, 8, 7, 15)


def _nearest(color: ColorTriplet, choices: Sequence[int]) -> int:
    """The choice closest to ``color``; a grey stays a grey where one is readable (by distance
    alone, zett-light's muted grey would turn magenta)."""
    if _is_grey(color):
        greys = [number for number in choices if number in _GREYS]
        choices = greys or choices
    return min(choices, key=lambda number: _distance(color, VGA[number]))


def _is_grey(color: ColorTriplet) -> bool:
    """Saturation (HLS) under 0.15, as Rich's own downgrade to 256 colours decides it."""
    _hue, _lightness, saturation = colorsys.rgb_to_hls(*color.normalized)
    return saturation < 0.15


def _usable_background(color: ColorTriplet) -> int:
    """The ANSI background for ``color`` on which text can be read: its own, or the nearest such;
    a grey halfway between goes to black or white by its luminance."""
    number = ansi_number(RichColor.from_triplet(color))
    if number in _USABLE_BACKGROUNDS:
        return number
    if number == 8:  # as far from black as from light grey: let its lightness decide
        return 0 if relative_luminance(color) < 0.18 else 15
    return _nearest(color, _USABLE_BACKGROUNDS)


def readable_style(style: Style, decorative: bool, blank: bool) -> Style:
    """``style`` with its drawn colours moved to ANSI colours that read well (see the module
    docstring); ``style`` itself when they already do."""
    if style.reverse:
        if blank:
            return style  # a bar drawn in its colour (the scrollbar's thumb)
        foreground, background = style.bgcolor, style.color
    else:
        foreground, background = style.color, style.bgcolor
    if background is None:
        return style
    new_fore, new_back = _repair(None if blank else foreground, background, decorative)
    if new_fore is None and new_back is None:
        return style
    if style.reverse:
        return style + Style(color=new_back, bgcolor=new_fore)
    return style + Style(color=new_fore, bgcolor=new_back)


@lru_cache(maxsize=4096)
def _repair(
    foreground: RichColor | None, background: RichColor, decorative: bool
) -> tuple[RichColor | None, RichColor | None]:
    """(new foreground, new background) for a drawn pair, None for a colour that stays. Cached on
    the colours: a style also carries each row's offsets, so styles rarely repeat."""
    if background.triplet is None:
        return None, None
    back = _usable_background(background.triplet)
    new_back = None if back == ansi_number(background) else RichColor.from_triplet(VGA[back])
    if foreground is None or foreground.triplet is None:
        return None, new_back
    readable_on = _READABLE_ON[decorative][back]
    fore = ansi_number(foreground)
    if fore in readable_on:
        return None, new_back
    return RichColor.from_triplet(VGA[_nearest(foreground.triplet, readable_on)]), new_back


class ReadableIn16Colours(LineFilter):
    """Moves unreadable text/background pairs to ANSI colours that read well (module docstring)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        fixed: list[Segment] = []
        for segment in segments:
            text, style, control = segment
            if style is None or control:
                fixed.append(segment)
                continue
            blank = not text or text.isspace()
            new = readable_style(style, not blank and is_decorative(text), blank)
            fixed.append(segment if new is style else Segment(text, new, control))
        return fixed


def runs_in_16_colours(color_system: str | None) -> bool:
    """Does the console (``App.console.color_system``) send only the 16 ANSI colours?"""
    return color_system == "standard"
