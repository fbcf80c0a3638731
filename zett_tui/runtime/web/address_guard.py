"""Which web addresses ``web_fetch`` may connect to: public http(s) hosts only, decided on the
address a name resolves to, never on how the URL spells it.

- Only ``http`` and ``https``; no user info in the URL (``http://evil@127.0.0.1`` and friends),
  no empty host.
- The host is resolved once (``Resolver``; ``getaddrinfo`` by default, which also turns the
  decimal, octal and hex spellings of an IPv4 address into the address they mean) and **every**
  address it gives must be global: not private, loopback, link-local (the cloud metadata address
  169.254.169.254 is one), unspecified, CGNAT (100.64/10), multicast, reserved, documentation,
  benchmarking, 6to4/Teredo/NAT64 wrappings of such an address, or an IPv4-mapped IPv6 address of
  one. One bad address refuses the whole name: a name that answers both a public and a private
  address is a rebinding trap.
- The fetcher connects to the very address checked here (``Target.address``), with the name kept
  for the ``Host`` header and TLS: there is no second lookup a rebinding DNS server could answer
  differently. Each redirect is checked again the same way.

``precheck_url`` refuses what it can before the user is asked and before any DNS lookup (a
lookup of a name already sends it out): an address spelled as the host, ``localhost``.

``exempt`` lets a test allow chosen addresses (a local server); nothing in zett sets it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Collection
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

__all__ = [
    "AddressRefused",
    "NameNotResolved",
    "Resolver",
    "Target",
    "check_url",
    "is_public",
    "parse_web_url",
    "precheck_url",
    "system_resolver",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
"""(host, port) -> the addresses it resolves to, as text."""

SCHEMES = {"http": 80, "https": 443}

#: Networks ``ipaddress``'s ``is_global`` lets through but no web page lives at.
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(net)
    for net in (
        "100.64.0.0/10",  # CGNAT (is_global already says no; kept explicit)
        "192.0.0.0/24",  # IETF protocol assignments
        "198.18.0.0/15",  # benchmarking
        "64:ff9b:1::/48",  # local-use NAT64
    )
)


class AddressRefused(PermissionError):
    """The URL or the address it leads to is one ``web_fetch`` never contacts; the message says why."""


class NameNotResolved(OSError):
    """The host name did not resolve (no network, no such name): nothing was contacted."""


@dataclass(frozen=True, slots=True)
class Target:
    """One checked place to connect to: the URL as parsed, its host name, port and checked address."""

    url: str
    scheme: str
    host: str
    port: int
    address: str
    #: The path and query to request (``/`` when the URL has none).
    path: str


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (IPv4 and IPv6), through the system's resolver."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as error:
        raise NameNotResolved(f"the name {host!r} could not be resolved ({error})") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def parse_web_url(url: str) -> SplitResult:
    """The parts of ``url`` when it is one ``web_fetch`` may try; ``AddressRefused`` otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise AddressRefused("no URL was given")
    if any(ord(ch) < 0x21 or ch == "\\" for ch in url.strip()):
        raise AddressRefused("the URL contains spaces, control characters or backslashes")
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as error:
        raise AddressRefused(f"the URL cannot be parsed ({error})") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        shown = scheme or "no scheme"
        raise AddressRefused(f"only http and https URLs are fetched, not {shown}")
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise AddressRefused("URLs with a user name or password (user@host) are not fetched")
    if not parts.hostname:
        raise AddressRefused("the URL has no host")
    return parts


def is_public(address: IPAddress) -> bool:
    """Whether ``address`` is one the public internet routes to a web server."""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        return is_public(mapped)
    if isinstance(address, ipaddress.IPv6Address):
        sixtofour, teredo = address.sixtofour, address.teredo
        if sixtofour is not None:
            return is_public(sixtofour)
        if teredo is not None:
            return is_public(teredo[1])
        if address in ipaddress.ip_network("64:ff9b::/96"):
            return is_public(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if not address.is_global or address.is_multicast or address.is_reserved:
        return False
    if address.is_private or address.is_loopback or address.is_link_local or address.is_unspecified:
        return False
    return not any(address in network for network in _NOT_PUBLIC)


def _numeric_addresses(host: str) -> list[str]:
    """The addresses ``host`` spells by itself (``127.1``, ``0x7f000001``, ``[::1]``), without DNS."""
    try:
        infos = socket.getaddrinfo(host, None, flags=socket.AI_NUMERICHOST, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def precheck_url(url: str, exempt: Collection[str] = ()) -> str:
    """What can be refused before anyone is asked and before any lookup (a DNS query for a name
    already carries it out): the URL's form, and a host that is an address in any spelling or a
    ``localhost`` name. Returns the host name; ``AddressRefused`` otherwise."""
    parts = parse_web_url(url)
    host = (parts.hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        raise AddressRefused(f"{host!r} is this machine; web_fetch only contacts public internet addresses")
    for text in _numeric_addresses(host):
        if text not in exempt and not is_public(ipaddress.ip_address(text.split("%", 1)[0])):
            raise AddressRefused(
                f"{host!r} is {text}, a private, local or special address; "
                "web_fetch only contacts public internet addresses"
            )
    return host


def check_url(url: str, resolver: Resolver = system_resolver, exempt: Collection[str] = ()) -> Target:
    """The checked target of ``url``: its scheme and host allowed, its name resolved once and every
    address public (or in ``exempt``). Raises ``AddressRefused`` with the reason otherwise."""
    parts = parse_web_url(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".").lower()
    port = parts.port or SCHEMES[scheme]
    addresses = resolver(host, port)
    if not addresses:
        raise NameNotResolved(f"the name {host!r} did not resolve to any address")
    checked: list[IPAddress] = []
    for text in addresses:
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            raise AddressRefused(f"{host!r} resolved to {text!r}, which is not an address") from None
        if text not in exempt and not is_public(address):
            raise AddressRefused(
                f"{host!r} resolves to {address}, a private, local or special address; "
                "web_fetch only contacts public internet addresses"
            )
        checked.append(address)
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(url=url.strip(), scheme=scheme, host=host, port=port, address=str(checked[0]), path=path)
