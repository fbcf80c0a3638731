"""The browser's way back to zett after an MCP sign-in: a one-shot listener on 127.0.0.1.

``redirect_port`` picks the port before the flow starts (the one the stored client registration
names, or a free one), because the redirect URI is part of the registration and of the
authorization URL. ``wait_for_callback`` then listens on that port only while the user signs in:
it answers only ``GET /callback`` (anything else is a 404), takes only the ``state`` of the
authorization URL it was given (another one gets a 400 and the wait goes on), answers with a small
page, and gives up after ``timeout`` seconds with ``SignInFailed`` saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import socket
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

CALLBACK_PATH = "/callback"
_MAX_REQUEST = 16 * 1024
_READ_SECONDS = 10.0


class SignInFailed(RuntimeError):
    """The sign-in did not complete (timed out, refused, port taken); the message says so in one line."""


@dataclass(frozen=True)
class Callback:
    code: str
    state: str
    iss: str | None = None


def redirect_uri(port: int) -> str:
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


def port_of(uri: str) -> int | None:
    """The port of one of zett's own redirect URIs, None for anything else."""
    parts = urlsplit(uri)
    if parts.scheme != "http" or parts.hostname != "127.0.0.1" or parts.path != CALLBACK_PATH:
        return None
    return parts.port


def port_is_free(port: int) -> bool:
    """Whether zett can listen on ``port`` (as ``wait_for_callback`` does: a port whose last
    connection is still in TIME_WAIT counts as free)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _page(title: str, text: str) -> bytes:
    return (
        "<!doctype html><meta charset=utf-8><title>zett</title>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
    ).encode()


def _response(status: str, body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
    )
    return head.encode("ascii") + body


async def wait_for_callback(port: int, state: str, timeout: float, server: str) -> Callback:
    """The code the browser brings to ``http://127.0.0.1:PORT/callback`` with ``state``."""
    answer: asyncio.Future[Callback] = asyncio.get_running_loop().create_future()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            status, body = await _handle(reader, state, answer, server)
            writer.write(_response(status, body))
            await writer.drain()
        except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    try:
        listener = await asyncio.start_server(
            serve, "127.0.0.1", port, reuse_address=True, limit=_MAX_REQUEST
        )
    except OSError as error:
        raise SignInFailed(
            f"cannot listen on 127.0.0.1:{port} for the sign-in ({error.strerror or error}); "
            f"/mcp logout {server} and /mcp restart {server} sign in on another port"
        ) from None
    try:
        async with listener:
            try:
                return await asyncio.wait_for(asyncio.shield(answer), timeout)
            except TimeoutError:
                raise SignInFailed(
                    f"no sign-in within {_duration(timeout)}; /mcp restart {server} asks again"
                ) from None
    finally:
        answer.cancel()


def _duration(seconds: float) -> str:
    if seconds >= 60:
        minutes = seconds / 60
        return f"{minutes:g} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} s"


async def _handle(
    reader: asyncio.StreamReader, state: str, answer: asyncio.Future[Callback], server: str
) -> tuple[str, bytes]:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _READ_SECONDS)
    method, _, rest = head.decode("latin-1").partition(" ")
    target = rest.partition(" ")[0]
    parts = urlsplit(target)
    if method != "GET" or parts.path != CALLBACK_PATH:
        return "404 Not Found", _page("Not found", "This address only takes zett's sign-in answer.")
    query = {key: values[0] for key, values in parse_qs(parts.query).items()}
    if answer.done() or query.get("state") != state:
        return "400 Bad Request", _page(
            "Not this sign-in", "zett is not waiting for this answer; start the sign-in again from zett."
        )
    error = query.get("error")
    if error:
        reason = query.get("error_description") or error
        answer.set_exception(
            SignInFailed(f"the sign-in was refused: {reason[:200]}; /mcp restart {server} asks again")
        )
        return "200 OK", _page(
            "Sign-in refused", f"zett was not signed in to {server}. You can close this tab."
        )
    code = query.get("code")
    if not code:
        return "400 Bad Request", _page("No code", "The answer carried no authorization code.")
    answer.set_result(Callback(code=code, state=state, iss=query.get("iss")))
    return "200 OK", _page("Signed in", f"zett is signed in to {server}. You can close this tab.")
