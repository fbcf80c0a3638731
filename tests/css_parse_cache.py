"""Parsed Textual CSS shared by every app a test process starts.

Each ``App`` parses all of its CSS (every widget's ``DEFAULT_CSS``, zett's own, the theme's
variables substituted) into rule sets, and Textual's cache for that is the stylesheet's own: a new
app parses everything again. Across the hundreds of apps a test worker starts that was about a
sixth of starting one. zett starts one app per process, so only the tests pay it again and again.

The shared cache is keyed as Textual's own is, plus the stylesheet's variables (the theme), which
the parse substitutes. Parsed rule sets are not changed after parsing; a parse that fails is not
cached (it raises as before). ``tests/test_css_parse_cache.py`` checks that an app styled from the
cache draws what an app that parsed its CSS itself draws.
"""

from __future__ import annotations

from typing import Any

from textual.css.stylesheet import Stylesheet

_parsed: dict[tuple[Any, ...], Any] = {}
_own_parse = Stylesheet._parse_rules


def _shared_parse(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> Any:
    key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(sorted(self._variables.items())))
    rules = _parsed.get(key)
    if rules is None:
        rules = _own_parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        _parsed[key] = rules
    return rules


def install() -> None:
    Stylesheet._parse_rules = _shared_parse  # type: ignore[method-assign]


def uninstall() -> None:
    Stylesheet._parse_rules = _own_parse  # type: ignore[method-assign]
