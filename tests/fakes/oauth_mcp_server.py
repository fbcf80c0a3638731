"""An OAuth-protected streamable-HTTP MCP server on 127.0.0.1, in the test's process (uvicorn in a thread).

Built from the SDK's own server-side pieces: ``MCPServer`` with ``AuthSettings`` serves the
protected-resource and authorization-server metadata, dynamic client registration, ``/authorize``,
``/token`` (codes and refreshes) and checks the bearer token on ``/mcp``. ``MemoryAuthority`` is the
authorization server's memory; its ``/authorize`` consents at once (the user said yes), so a test
plays the browser by GETting the authorization URL and following the redirect to zett's callback
(``play_browser``). It records each grant, and ``expire_access_tokens``/``revoke_refresh_tokens``
make what a long pause or a revoked grant would.

Tool: ``whoami`` answers with the client id of the token it was called with.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

import httpx2
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from zett_tui.runtime.mcp.oauth_callback import free_port


class MemoryAuthority:
    """The authorization server's clients, codes and tokens, in memory."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.grants: list[str] = []
        """``code`` or ``refresh`` per token issued, in order."""
        self.issued: list[OAuthToken] = []
        self.presented: list[str] = []
        """Every bearer token a request to ``/mcp`` came with."""

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.grants.append("code")
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.grants.append("refresh")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        self.presented.append(token)
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        raise NotImplementedError

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + 3600,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        token = OAuthToken(
            access_token=access, expires_in=3600, refresh_token=refresh, scope=" ".join(scopes) or None
        )
        self.issued.append(token)
        return token

    def expire_access_tokens(self) -> None:
        """Every access token issued so far stops working (as after an hour away)."""
        self.access.clear()

    def revoke_refresh_tokens(self) -> None:
        self.refresh.clear()


class OAuthMcpServer:
    """``with OAuthMcpServer() as server:`` serves ``server.url`` until the block ends."""

    def __init__(self) -> None:
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.origin}/mcp"
        self.authority = MemoryAuthority()
        mcp = MCPServer(
            "oauth-fake",
            auth_server_provider=self.authority,
            auth=AuthSettings(
                issuer_url=self.origin,  # type: ignore[arg-type]
                resource_server_url=self.url,  # type: ignore[arg-type]
                client_registration_options=ClientRegistrationOptions(enabled=True),
                validate_token_resource=False,
            ),
        )

        @mcp.tool()
        def whoami() -> str:
            """The client id of the token this call came with."""
            token = get_access_token()
            return f"client {token.client_id if token else 'nobody'}"

        config = uvicorn.Config(
            mcp.streamable_http_app(),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            timeout_graceful_shutdown=1,  # a stream the client left open does not hold up the test
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="oauth-mcp-server", daemon=True)

    def __enter__(self) -> OAuthMcpServer:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the OAuth MCP test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


def play_browser(authorization_url: str) -> httpx2.Response:
    """What the user's browser does: open the URL (the fake consents at once) and follow the
    redirect to zett's callback; the callback's answer."""
    with httpx2.Client(timeout=30) as browser:
        consent = browser.get(authorization_url)
        assert consent.status_code in (302, 303, 307), consent.text
        return browser.get(consent.headers["location"])
