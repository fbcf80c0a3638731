"""Fetching one web page for the model, within bounds, connecting only where the guard agreed.

Each hop (the URL, then every redirect) goes through ``address_guard.check_url`` and the
connection is opened to the address it checked (``Target.address``), with the name kept for the
``Host`` header and TLS (SNI and certificate check): the name is looked up once per hop, so a
DNS server cannot answer the check and the connection differently. No proxy from the
environment is used (it would connect to the name again, somewhere else).

Bounds: ``max_bytes`` of body (the rest is never read: the result says it was cut), ``timeout``
seconds for the whole fetch, ``max_redirects`` hops. A redirect to another host is followed only
when ``may_follow(host)`` says that host is allowed already; otherwise the result tells the model
where the page moved, so a new host is asked about like any other.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from zett_tui.runtime.web.address_guard import NameNotResolved, Resolver, Target, check_url, system_resolver
from zett_tui.runtime.web.page_text import NotText, page_to_text

if TYPE_CHECKING:
    import httpx

__all__ = ["FetchFailed", "FetchLimits", "Page", "fetch_page"]

REDIRECTS = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "zett (terminal coding assistant; web_fetch)"


class FetchFailed(RuntimeError):
    """The page could not be fetched (network, timeout, HTTP error, not text); the message says why."""


@dataclass(frozen=True, slots=True)
class FetchLimits:
    max_bytes: int = 5 * 1024 * 1024
    timeout: float = 30.0
    max_redirects: int = 5
    #: Characters of text given to the model, after conversion (about 12,000 tokens).
    max_chars: int = 50_000


@dataclass(frozen=True, slots=True)
class Page:
    """What came back: the final URL, its status and type, the text, and what was cut."""

    url: str
    status: int
    content_type: str
    text: str
    #: The body was longer than ``max_bytes``: only that much was read.
    cut_bytes: bool = False
    #: The text was longer than ``max_chars``: only that much is kept.
    cut_chars: bool = False
    #: Set when the page moved to a host not allowed yet: where it points (not fetched).
    moved_to: str | None = None


async def fetch_page(
    url: str,
    *,
    limits: FetchLimits | None = None,
    resolver: Resolver = system_resolver,
    exempt: Collection[str] = (),
    may_follow: Callable[[str], bool] = lambda _host: False,
) -> Page:
    """Fetch ``url`` (see the module docstring); ``address_guard.AddressRefused`` or
    ``FetchFailed`` when not."""
    limits = limits or FetchLimits()
    try:
        async with asyncio.timeout(limits.timeout):
            return await _follow(url, limits, resolver, exempt, may_follow)
    except TimeoutError:
        raise FetchFailed(f"the fetch took longer than {limits.timeout:g} seconds and was stopped") from None


async def _follow(
    url: str,
    limits: FetchLimits,
    resolver: Resolver,
    exempt: Collection[str],
    may_follow: Callable[[str], bool],
) -> Page:
    first_host: str | None = None
    first_url: str | None = None
    for _hop in range(limits.max_redirects + 1):
        try:
            target = await asyncio.to_thread(check_url, url, resolver, exempt)
        except NameNotResolved as error:
            raise FetchFailed(str(error)) from None
        if first_host is not None and target.host != first_host and not may_follow(target.host):
            # Checked (a redirect to a private address is refused, not passed on), not contacted.
            return Page(first_url or url, 0, "", "", moved_to=url)
        first_host = first_host or target.host
        first_url = first_url or url
        status, content_type, location, body, cut = await _request(target, limits)
        if status in REDIRECTS and location:
            url = urljoin(url, location)
            continue
        if status >= 400:
            raise FetchFailed(f"the server answered HTTP {status} for {url}")
        try:
            # A large page takes a while to convert: off the event loop, so the screen stays live.
            text, cut_chars = await asyncio.to_thread(page_to_text, body, content_type, limits.max_chars)
        except NotText as error:
            raise FetchFailed(str(error)) from None
        return Page(url, status, content_type, text, cut_bytes=cut, cut_chars=cut_chars)
    raise FetchFailed(f"more than {limits.max_redirects} redirects; stopped at {url}")


def _address_in_url(address: str) -> str:
    return f"[{address}]" if isinstance(ipaddress.ip_address(address), ipaddress.IPv6Address) else address


def _host_header(target: Target) -> str:
    try:
        host = target.host.encode("idna").decode("ascii")
    except UnicodeError:
        host = target.host
    if ":" in host:
        host = f"[{host}]"
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


async def _request(target: Target, limits: FetchLimits) -> tuple[int, str, str | None, bytes, bool]:
    """One request to the checked address: status, content type, Location, body (bounded), cut."""
    import httpx  # here, not at start-up: only a fetch needs it

    url = f"{target.scheme}://{_address_in_url(target.address)}:{target.port}{target.path}"
    headers = {
        "Host": _host_header(target),
        "User-Agent": USER_AGENT,
        "Accept": "text/html, text/*;q=0.9, */*;q=0.5",
        # Uncompressed: the size bound then counts what the server sends, not a zip bomb's inside.
        "Accept-Encoding": "identity",
    }
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    timeout = httpx.Timeout(limits.timeout, connect=min(10.0, limits.timeout))
    try:
        async with httpx.AsyncClient(trust_env=False, follow_redirects=False, timeout=timeout) as client:
            request = client.build_request("GET", url, headers=headers, extensions=extensions)
            response = await client.send(request, stream=True)
            try:
                body, cut = await _bounded_body(response, limits.max_bytes)
            finally:
                await response.aclose()
    except httpx.HTTPError as error:
        reason = str(error) or type(error).__name__
        raise FetchFailed(f"could not fetch {target.url}: {reason}") from None
    content_type = response.headers.get("content-type", "")
    return response.status_code, content_type, response.headers.get("location"), body, cut


async def _bounded_body(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        if size + len(chunk) > max_bytes:
            chunks.append(chunk[: max_bytes - size])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False
