"""OAuth for a remote MCP server: the SDK's ``OAuthClientProvider`` with zett's storage, browser hand-off and callback.

The SDK does the protocol (the 401, discovery, dynamic client registration, PKCE, the token
exchange and each refresh). zett gives it: ``TokenFile`` (tokens and registration, 0600, per
server), a redirect handler that hands the authorization URL to the UI (``on_url``: the chat shows
it with a key to open it in the browser or copy it, ``zett -p`` prints it on stderr) and pauses
the connection's timeouts, and a callback handler that waits on 127.0.0.1 for the browser's answer
(``oauth_callback``). The redirect port is fixed before the flow begins and is the one in the
registration: a stored registration's port when it is free, else a new port and a new
registration.

When a refresh fails (the refresh token is revoked or expired) the SDK starts a full sign-in; the
URL then goes to the UI marked ``again``, so the user reads "sign in again", and a sign-in that
fails or times out ends the connection with ``SignInFailed`` without retrying by itself: the user
asks again with ``/mcp restart``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from zett_tui.runtime.mcp.oauth_callback import (
    SignInFailed,
    free_port,
    port_is_free,
    port_of,
    redirect_uri,
    wait_for_callback,
)
from zett_tui.runtime.mcp.oauth_tokens import TokenFile

if TYPE_CHECKING:
    from mcp.shared.auth import AuthorizationCodeResult, OAuthToken

    from zett_tui.runtime.mcp.deadlines import Deadlines

log = logging.getLogger("zett_tui.runtime.mcp")

SIGN_IN_TIMEOUT = 300.0
"""How long zett waits for the browser to come back after showing the authorization URL."""

SIGNED_IN = "signed in"
NEEDS_SIGN_IN = "needs sign-in"

OnUrl = Callable[[str, str, bool], None]
"""(server name, authorization URL, whether an earlier sign-in expired) -> None; from the manager's thread."""


class _WatchedTokens(TokenFile):
    """The token file, telling its ``SignIn`` when a sign-in or refresh stored new tokens."""

    def __init__(self, sign_in: SignIn, server: str, url: str) -> None:
        super().__init__(server, url)
        self._sign_in = sign_in

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await super().set_tokens(tokens)
        self._sign_in.stored()


class SignIn:
    """One remote server's OAuth state; ``provider`` is the ``httpx2.Auth`` its transport uses."""

    def __init__(
        self,
        server: str,
        url: str,
        on_url: OnUrl,
        deadlines: Deadlines,
        changed: Callable[[], None],
        timeout: float = SIGN_IN_TIMEOUT,
    ) -> None:
        self.server, self.url = server, url
        self._on_url, self._deadlines, self._changed, self._timeout = on_url, deadlines, changed, timeout
        self.tokens = _WatchedTokens(self, server, url)
        self.state = SIGNED_IN if self.tokens.has_tokens() else ""
        """``signed in``, ``needs sign-in``, or empty while the server has not asked for one."""
        self.waiting_url = ""
        """The authorization URL while zett waits for the browser; empty otherwise."""
        self._expected_state = ""
        self.provider: Any = None

    async def prepare(self) -> SignIn:
        """Choose the redirect port and build the provider (reads the stored registration)."""
        from mcp.shared.auth import OAuthClientMetadata
        from pydantic import AnyUrl

        port = None
        client = await self.tokens.get_client_info()
        if client is not None and client.redirect_uris:
            port = port_of(str(client.redirect_uris[0]))
            if port is None or not port_is_free(port):
                self.tokens.forget_client()  # register again with a port zett can listen on
                port = None
        port = port or free_port()
        self._port = port
        metadata = OAuthClientMetadata(
            client_name="zett",
            redirect_uris=[AnyUrl(redirect_uri(port))],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )
        self.provider = _provider_class()(
            server_url=self.url,
            client_metadata=metadata,
            storage=self.tokens,
            redirect_handler=self._redirect,
            callback_handler=self._callback,
        )
        return self

    def stored(self) -> None:
        if self.state != SIGNED_IN:
            log.info("MCP server %s: signed in", self.server)
        self.state = SIGNED_IN
        self._changed()

    async def _redirect(self, authorization_url: str) -> None:
        if urlsplit(authorization_url).scheme not in ("http", "https"):
            # the address comes from the server's metadata and may be opened in a browser
            raise SignInFailed("the server's sign-in address is not an http(s) address; not opened")
        again = self.state == SIGNED_IN or self.tokens.has_tokens()
        states = parse_qs(urlsplit(authorization_url).query).get("state", [""])
        self._expected_state = states[0]
        self.state, self.waiting_url = NEEDS_SIGN_IN, authorization_url
        self._deadlines.pause()  # resumed by _callback, which the SDK always calls next
        log.info("MCP server %s needs a sign-in%s", self.server, " again" if again else "")
        self._changed()
        try:
            self._on_url(self.server, authorization_url, again)
        except Exception:  # the UI's trouble must not end the sign-in: the URL is in /mcp too
            log.warning("could not show the sign-in address of MCP server %s", self.server, exc_info=True)

    async def _callback(self) -> AuthorizationCodeResult:
        from mcp.shared.auth import AuthorizationCodeResult

        try:
            answer = await wait_for_callback(self._port, self._expected_state, self._timeout, self.server)
        finally:
            self.waiting_url = ""
            self._deadlines.resume()
            self._changed()
        return AuthorizationCodeResult(code=answer.code, state=answer.state, iss=answer.iss)


def _provider_class() -> Any:
    from mcp.client.auth import OAuthClientProvider

    class Provider(OAuthClientProvider):
        """The SDK's provider, also knowing after a restart when the stored access token expires.

        The SDK reads stored tokens without their expiry and would send an expired one, get a 401
        and ask the user to sign in again; with the expiry known it refreshes instead.
        """

        async def _initialize(self) -> None:
            await super()._initialize()
            storage = self.context.storage
            expires_at = storage.expires_at() if isinstance(storage, TokenFile) else None
            if self.context.current_tokens is not None and expires_at is not None:
                self.context.token_expiry_time = max(expires_at, 1.0)  # 0 would read as "never expires"

    return Provider


def wants_oauth(headers: dict[str, str]) -> bool:
    """A server given its own ``Authorization`` header signs in by that, not by OAuth."""
    return not any(name.lower() == "authorization" for name in headers)


def log_sign_in_url(server: str, url: str, again: bool) -> None:
    """Where the address goes when nothing shows it (a manager built without ``on_sign_in_url``)."""
    log.warning("MCP server %s needs a sign-in; nothing shows its address in this run", server)


def sign_in_failure(error: BaseException) -> str | None:
    """The one line of a failed OAuth sign-in inside ``error`` (an anyio group), if it is one."""
    from mcp.client.auth import OAuthFlowError

    if isinstance(error, SignInFailed):
        return str(error)
    if isinstance(error, OAuthFlowError):
        text = str(error).strip().splitlines()
        return f"the sign-in failed: {(text[0] if text else type(error).__name__)[:300]}"
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = sign_in_failure(inner)
            if found is not None:
                return found
    return None
