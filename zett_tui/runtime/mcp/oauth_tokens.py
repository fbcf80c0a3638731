"""Where a remote MCP server's OAuth sign-in is kept: one 0600 file per server under zett's data folder.

``TokenFile`` is the MCP SDK's ``TokenStorage`` for one server: the tokens (with the moment the
access token expires, so a restart knows whether to refresh it) and the client registration zett
got from the server's authorization server. The file is bound to the URL zett reaches (a digest
of it, so a key in the URL is not written out): a server renamed in the config to point somewhere
else starts without them, and a token is never offered to another host. A damaged file counts as
no sign-in. ``forget`` is ``/mcp logout``.

Nothing here logs a token, and nothing writes one anywhere but this file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zett_tui.core import paths

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

log = logging.getLogger(__name__)

_VERSION = 1


def tokens_dir() -> Path:
    return paths.data_dir() / "mcp-oauth"


def token_path(server: str) -> Path:
    """The server's file; ``server`` is a checked server name (letters, digits, '-' and '_')."""
    return tokens_dir() / f"{server}.json"


def _url_digest(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()


class TokenFile:
    """The SDK's ``TokenStorage`` for one server, kept in ``token_path(server)``."""

    def __init__(self, server: str, url: str, path: Path | None = None) -> None:
        self.server = server
        self.path = path or token_path(server)
        self._digest = _url_digest(url)
        self._unsaved: dict[str, Any] | None = None
        """What could not be written (the data folder refuses): the sign-in lasts for this run."""

    def _read(self) -> dict[str, Any]:
        if self._unsaved is not None:
            return self._unsaved
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            log.warning(
                "MCP server %s: its sign-in file %s cannot be read; signing in again", self.server, self.path
            )
            return {}
        if not isinstance(document, dict) or document.get("url") != self._digest:
            return {}
        return document

    def _write(self, **changes: Any) -> None:
        document = {**self._read(), **changes, "version": _VERSION, "url": self._digest}
        self._save(document)

    def _save(self, document: dict[str, Any]) -> None:
        try:
            paths.write_private_text(self.path, json.dumps(document, indent=1))
        except OSError as error:
            if self._unsaved is None:
                log.warning(
                    "MCP server %s: cannot keep its sign-in in %s (%s); it lasts for this run only",
                    self.server,
                    self.path,
                    error.strerror or type(error).__name__,
                )
            self._unsaved = document
        else:
            self._unsaved = None

    def has_tokens(self) -> bool:
        return isinstance(self._read().get("tokens"), dict)

    def expires_at(self) -> float | None:
        value = self._read().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens, ``expires_in`` counted from now (0 once expired; ``expires_at`` is exact)."""
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        document = self._read()
        try:
            tokens = OAuthToken.model_validate(document.get("tokens"))
        except ValidationError:
            return None
        expires_at = document.get("expires_at")
        if isinstance(expires_at, int | float):
            tokens.expires_in = max(0, int(expires_at - time.time()))
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        self._write(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires_at)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        try:
            return OAuthClientInformationFull.model_validate(self._read().get("client"))
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write(client=client_info.model_dump(mode="json", exclude_none=True))

    def forget_client(self) -> None:
        """Drop the registration (its redirect port cannot be listened on again); tokens stay."""
        document = dict(self._read())
        if "client" in document:
            document.pop("client")
            self._save(document)


def forget(server: str) -> bool:
    """``/mcp logout``: remove the server's tokens and registration; whether there were any."""
    path = token_path(server)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def signed_in(server: str) -> bool:
    """Whether a sign-in is stored for ``server`` (whatever URL it was for)."""
    return token_path(server).is_file()
