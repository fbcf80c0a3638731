"""A fetched body as text for the model: HTML to Markdown (markdownify), other text as it is.

Scripts, styles and other parts a reader never sees are removed first. Bodies that are not text
(images, archives, PDFs) are refused with a message rather than handed over as noise.
"""

from __future__ import annotations

import re

__all__ = ["NotText", "page_to_text"]

_INVISIBLE = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "application/javascript")
_BLANK_LINES = re.compile(r"\n{3,}")
#: HTML converted at most (characters): the text kept is bounded anyway, and converting costs about
#: a second per 200 KB on a loaded machine (``benchmarks/bench_images_web.py``).
MAX_HTML_CHARS = 500_000


class NotText(ValueError):
    """The body is not text; the message names its type."""


def _charset(content_type: str) -> str:
    match = re.search(r"charset=([\w.:-]+)", content_type, re.IGNORECASE)
    return match.group(1) if match else "utf-8"


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def is_html(content_type: str, body: bytes) -> bool:
    media = _media_type(content_type)
    if media in ("text/html", "application/xhtml+xml"):
        return True
    return not media and body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html"))


def page_to_text(body: bytes, content_type: str, max_chars: int) -> tuple[str, bool]:
    """The text of ``body`` (Markdown for HTML) and whether it was cut at ``max_chars``."""
    media = _media_type(content_type)
    if media and not media.startswith(_TEXT_TYPES) and not media.endswith(("+json", "+xml")):
        raise NotText(f"the page is {media}, not text; web_fetch only reads text and HTML")
    try:
        decoded = body.decode(_charset(content_type), errors="replace")
    except LookupError:
        decoded = body.decode("utf-8", errors="replace")
    if "\x00" in decoded[:4096]:
        raise NotText("the page looks binary, not text; web_fetch only reads text and HTML")
    html = is_html(content_type, body)
    cut = html and len(decoded) > MAX_HTML_CHARS
    text = html_to_markdown(decoded[:MAX_HTML_CHARS]) if html else decoded
    text = _BLANK_LINES.sub("\n\n", text).strip()
    if len(text) > max_chars:
        return text[:max_chars], True
    return text, cut


def html_to_markdown(html: str) -> str:
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(_INVISIBLE):
        tag.decompose()
    return str(MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup))
