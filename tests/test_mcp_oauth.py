"""Signing in to an OAuth-protected remote MCP server (tests/fakes/oauth_mcp_server.py), from zett's side.

The test plays the user's browser: it takes the authorization URL zett hands to the UI, opens it
(the fake authorization server consents at once) and follows the redirect to zett's callback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import stat
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

import httpx2
import pytest

from tests.test_mcp_manager import wait_for
from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp import oauth_tokens
from zett_tui.runtime.mcp.manager import McpManager
from zett_tui.runtime.mcp.server_connection import _FIRST_BACKOFF, ServerState, ServerStatus

if TYPE_CHECKING:
    from tests.fakes.oauth_mcp_server import OAuthMcpServer


def fake() -> ModuleType:
    """The fake OAuth MCP server's module, imported when a test here runs: it imports the MCP SDK
    (about a second of CPU), which every process collecting this file paid, the parallel pass's
    workers too, which never run it (it is serial)."""
    from tests.fakes import oauth_mcp_server

    return oauth_mcp_server


class SignIns:
    """What the UI was asked to show: (server, authorization URL, whether it is a sign-in again)."""

    def __init__(self) -> None:
        self.shown: queue.Queue[tuple[str, str, bool]] = queue.Queue()

    def __call__(self, server: str, url: str, again: bool) -> None:
        self.shown.put((server, url, again))

    def next(self) -> tuple[str, str, bool]:
        return self.shown.get(timeout=30)

    def none_shown(self) -> bool:
        return self.shown.empty()

    def none_shown_past_the_first_retry(self) -> bool:
        """No address comes even after the pause a failed server would be started again after."""
        try:
            self.shown.get(timeout=2 * _FIRST_BACKOFF)
        except queue.Empty:
            return True
        return False


@pytest.fixture
def remote() -> Iterator[OAuthMcpServer]:
    with fake().OAuthMcpServer() as server:
        yield server


@pytest.fixture
def managers(remote: OAuthMcpServer) -> Iterator[list[McpManager]]:
    """Managers stopped before the server: with the server gone first, zett's open stream held
    its shutdown for the whole grace period (a second per test)."""
    started: list[McpManager] = []
    yield started
    for manager in started:
        manager.stop()


def connect(
    managers: list[McpManager], remote: OAuthMcpServer, sign_ins: SignIns, **options: float
) -> McpManager:
    config = McpServerConfig("remote", url=remote.url, transport="http", startup_timeout=10)
    manager = McpManager([config], environ={}, on_sign_in_url=sign_ins, **options)  # type: ignore[arg-type]
    managers.append(manager)
    manager.start()
    return manager


def status(manager: McpManager) -> ServerStatus:
    return manager.statuses()[0]


def ready(manager: McpManager) -> bool:
    return status(manager).state is ServerState.READY


def whoami(manager: McpManager) -> str:
    result = asyncio.run(manager.call_tool("remote", "whoami", {}))
    return str(result.content[0].text)  # type: ignore[union-attr]


def sign_in(manager: McpManager, sign_ins: SignIns) -> None:
    _, url, _ = sign_ins.next()
    page = fake().play_browser(url)
    assert page.status_code == 200 and "signed in to remote" in page.text
    wait_for(lambda: ready(manager))


def test_the_first_connect_asks_to_sign_in_and_then_the_tools_work(
    managers: list[McpManager], remote: OAuthMcpServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sign_ins = SignIns()
    manager = connect(managers, remote, sign_ins)
    server, url, again = sign_ins.next()
    assert (server, again) == ("remote", False)
    assert url.startswith(f"{remote.origin}/authorize?")
    assert status(manager).state is ServerState.SIGNING_IN
    assert status(manager).sign_in == "needs sign-in" and status(manager).sign_in_url == url
    assert fake().play_browser(url).status_code == 200
    wait_for(lambda: ready(manager))
    assert status(manager).sign_in == "signed in"
    client_id = next(iter(remote.authority.clients))
    assert whoami(manager) == f"client {client_id}"
    # the registration's redirect URI is the one zett listened on, on 127.0.0.1
    registered = remote.authority.clients[client_id].redirect_uris or []
    assert [str(uri).rsplit(":", 1)[0] for uri in registered] == ["http://127.0.0.1"]

    stored = oauth_tokens.token_path("remote")
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    token = remote.authority.issued[-1]
    assert token.access_token in stored.read_text()
    assert token.refresh_token is not None
    logged = caplog.text
    assert token.access_token not in logged and token.refresh_token not in logged


def test_a_restart_uses_the_stored_tokens_without_a_new_sign_in(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    sign_ins = SignIns()
    sign_in(connect(managers, remote, sign_ins), sign_ins)
    managers.pop().stop()

    again = connect(managers, remote, sign_ins)
    wait_for(lambda: ready(again))
    assert sign_ins.none_shown()
    assert remote.authority.grants == ["code"]
    assert whoami(again).startswith("client ")


def test_an_expired_access_token_is_refreshed(managers: list[McpManager], remote: OAuthMcpServer) -> None:
    sign_ins = SignIns()
    sign_in(connect(managers, remote, sign_ins), sign_ins)
    managers.pop().stop()
    remote.authority.expire_access_tokens()
    stored = oauth_tokens.token_path("remote")
    document = json.loads(stored.read_text())
    document["expires_at"] = 0  # an hour later
    stored.write_text(json.dumps(document))

    again = connect(managers, remote, sign_ins)
    wait_for(lambda: ready(again))
    assert remote.authority.grants == ["code", "refresh"]
    assert sign_ins.none_shown()
    assert remote.authority.issued[-1].access_token in stored.read_text()
    assert whoami(again).startswith("client ")


def test_a_refresh_the_server_refuses_asks_to_sign_in_again_once(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    sign_ins = SignIns()
    sign_in(connect(managers, remote, sign_ins), sign_ins)
    managers.pop().stop()
    remote.authority.expire_access_tokens()
    remote.authority.revoke_refresh_tokens()
    stored = oauth_tokens.token_path("remote")
    document = json.loads(stored.read_text())
    document["expires_at"] = 0
    stored.write_text(json.dumps(document))

    again = connect(managers, remote, sign_ins, sign_in_timeout=2)
    server, _, asked_again = sign_ins.next()
    assert (server, asked_again) == ("remote", True)
    wait_for(lambda: status(again).state is ServerState.FAILED)
    assert "no sign-in within" in status(again).reason and "/mcp restart remote" in status(again).reason
    assert status(again).sign_in == "needs sign-in"
    assert (
        sign_ins.none_shown_past_the_first_retry()
    )  # the sign-in that timed out is not asked again by itself
    assert status(again).reason == "no sign-in within 2 s; /mcp restart remote asks again"


def test_logout_forgets_the_tokens_and_the_next_connect_asks_again(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    sign_ins = SignIns()
    manager = connect(managers, remote, sign_ins)
    sign_in(manager, sign_ins)
    assert manager.logout("remote") is True
    assert not oauth_tokens.token_path("remote").exists()
    assert status(manager).state is ServerState.SIGNED_OUT
    assert status(manager).sign_in == "needs sign-in"
    assert manager.ready_tools() == []

    manager.restart("remote")
    _, url, again = sign_ins.next()
    assert again is False
    assert fake().play_browser(url).status_code == 200
    wait_for(lambda: ready(manager))
    assert remote.authority.grants == ["code", "code"]


def test_logout_of_an_unknown_server_is_a_key_error(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    manager = connect(managers, remote, SignIns())
    with pytest.raises(KeyError):
        manager.logout("nope")


def test_stopping_while_the_server_still_connects_does_not_wait_for_it(
    managers: list[McpManager], remote: OAuthMcpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quit while a remote server looks up its sign-in: the connection is given up at once (it
    would notice the stop only once connected), not after the stop's time limit."""
    from zett_tui.runtime.mcp import manager as manager_module

    monkeypatch.setattr(manager_module, "_STOP_TIMEOUT", 60.0)
    manager = connect(managers, remote, SignIns())
    assert status(manager).state in (ServerState.STARTING, ServerState.SIGNING_IN)
    started = time.monotonic()
    manager.stop()
    assert time.monotonic() - started < 30  # the limit is 60 s here: it was waited for in full


def test_a_callback_with_another_state_is_refused_and_the_real_one_still_signs_in(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    sign_ins = SignIns()
    manager = connect(managers, remote, sign_ins)
    _, url, _ = sign_ins.next()
    with httpx2.Client(timeout=30) as browser:
        redirect = browser.get(url).headers["location"]
        forged = redirect.split("state=")[0] + "state=forged"
        assert browser.get(forged).status_code == 400
        callback_root = redirect.split("/callback")[0]
        assert browser.get(f"{callback_root}/other?{redirect.split('?', 1)[1]}").status_code == 404
        assert status(manager).state is ServerState.SIGNING_IN
        assert browser.get(redirect).status_code == 200
    wait_for(lambda: ready(manager))


def test_a_sign_in_nobody_finishes_times_out_with_a_clear_line_and_no_new_url(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    sign_ins = SignIns()
    manager = connect(managers, remote, sign_ins, sign_in_timeout=1)
    sign_ins.next()
    wait_for(lambda: status(manager).state is ServerState.FAILED)
    assert status(manager).reason == "no sign-in within 1 s; /mcp restart remote asks again"
    assert sign_ins.none_shown_past_the_first_retry()
    assert remote.authority.grants == []


def test_a_refused_consent_is_one_line(managers: list[McpManager], remote: OAuthMcpServer) -> None:
    sign_ins = SignIns()
    manager = connect(managers, remote, sign_ins)
    _, url, _ = sign_ins.next()
    with httpx2.Client(timeout=30) as browser:
        redirect = browser.get(url).headers["location"]
        state = redirect.split("state=")[1].split("&")[0]
        assert browser.get(f"{redirect.split('?')[0]}?error=access_denied&state={state}").status_code == 200
    wait_for(lambda: status(manager).state is ServerState.FAILED)
    assert status(manager).reason == "the sign-in was refused: access_denied; /mcp restart remote asks again"


def test_a_token_file_for_another_url_is_not_used(managers: list[McpManager], remote: OAuthMcpServer) -> None:
    sign_ins = SignIns()
    sign_in(connect(managers, remote, sign_ins), sign_ins)
    managers.pop().stop()
    with fake().OAuthMcpServer() as elsewhere:
        moved = connect(managers, elsewhere, sign_ins)
        _, url, _ = sign_ins.next()
        assert url.startswith(elsewhere.origin)
        assert remote.authority.issued[-1].access_token not in elsewhere.authority.presented
        assert moved.statuses()[0].sign_in == "needs sign-in"


async def test_the_chat_offers_to_open_the_address_and_logout_forgets_the_sign_in(
    remote: OAuthMcpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import webbrowser

    from tests.fakes.scripted_model import ScriptedModel
    from tests.test_dialogs import dialog_closed, open_dialog, shown
    from tests.ui_helpers import make_app, notices, ready_app, submit
    from tests.ui_helpers import wait_for as wait_in_app
    from zett_tui.ui.modals.choice_dialog import ChoiceDialog

    opened: list[str] = []

    def browser(url: str) -> bool:  # the user's browser, in the thread webbrowser.open runs in
        opened.append(url)
        fake().play_browser(url)
        return True

    monkeypatch.setattr(webbrowser, "open", browser)
    config = McpServerConfig("remote", url=remote.url, transport="http", startup_timeout=10)
    app = make_app(ScriptedModel(), mcp_servers=(config,))
    try:
        async with ready_app(app, size=(140, 40)) as pilot:
            dialog = await open_dialog(pilot, ChoiceDialog)
            screen = shown(app)
            assert "Sign in to MCP server remote" in screen and "Open it in the browser" in screen
            assert any(
                f"MCP server remote: it needs you to sign in at {remote.origin}/authorize?" in text
                for text in notices(app)
            )
            await pilot.press("enter")
            await dialog_closed(pilot, dialog)
            manager = app.mcp.manager
            assert manager is not None
            await wait_in_app(pilot, lambda: ready(manager), timeout=30)
            assert opened and opened[0].startswith(f"{remote.origin}/authorize?")
            await submit(pilot, "/mcp")
            await wait_in_app(
                pilot, lambda: any("remote: ready with 1 tool (signed in)" in t for t in notices(app))
            )

            await submit(pilot, "/mcp logout remote")
            await wait_in_app(
                pilot, lambda: any("Signed out of MCP server remote" in t for t in notices(app))
            )
            assert not oauth_tokens.token_path("remote").exists()
            await submit(pilot, "/mcp")
            await wait_in_app(
                pilot,
                lambda: any(
                    "remote: signed out (/mcp restart remote signs in again)" in t for t in notices(app)
                ),
            )
            await submit(pilot, "/mcp logout nosuch")
            await wait_in_app(
                pilot, lambda: any("There is no MCP server 'nosuch'" in t for t in notices(app))
            )

            await submit(pilot, "/mcp restart remote")
            again = await open_dialog(pilot, ChoiceDialog)
            assert "Sign in to MCP server remote" in shown(app)
            await pilot.press("escape")
            await dialog_closed(pilot, again)
            await submit(pilot, "/mcp")
            await wait_in_app(
                pilot,
                lambda: any(
                    "remote: waiting for you to sign in in the browser (needs sign-in)" in t
                    and "sign in at http://127.0.0.1" in t
                    for t in notices(app)
                ),
            )
    finally:
        app.mcp.stop()


async def test_zett_p_prints_the_address_on_stderr_and_waits_for_the_browser(remote: OAuthMcpServer) -> None:
    import io
    import re
    import threading
    from pathlib import Path

    from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
    from zett_tui.entry.headless import run_headless
    from zett_tui.entry.launch import LaunchSettings

    model = ScriptedModel(tool_step("c1", "mcp__remote__whoami", {}), text_step("Done."))
    config = McpServerConfig("remote", url=remote.url, transport="http", startup_timeout=10)
    out, err = io.StringIO(), io.StringIO()

    def user() -> None:  # reads stderr, opens the address
        for _ in range(600):
            found = re.search(r"MCP server remote needs you to sign in: open (\S+)", err.getvalue())
            if found:
                fake().play_browser(found.group(1))
                return
            threading.Event().wait(0.05)

    browser = threading.Thread(target=user, daemon=True)
    browser.start()
    launch = LaunchSettings(
        model_label="scripted", model_factory=lambda: model, cwd=Path.cwd(), mcp_servers=(config,)
    )
    code = await run_headless(launch, "go", out=out, err=err, handle_signals=False, allow_mcp=["remote"])
    browser.join(timeout=30)
    assert code == 0
    assert last_tool_result(model.requests[1]).startswith("client ")
    token = remote.authority.issued[-1]
    assert token.access_token not in err.getvalue() + out.getvalue()


@pytest.mark.serial  # timed: a 0.5 s start-up timeout against a 1.5 s sign-in
def test_a_sign_in_slower_than_the_startup_timeout_still_connects(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    sign_ins = SignIns()
    config = McpServerConfig("remote", url=remote.url, transport="http", startup_timeout=0.5)
    manager = McpManager([config], environ={}, on_sign_in_url=sign_ins)
    managers.append(manager)
    manager.start()
    _, url, _ = sign_ins.next()
    threading.Event().wait(1.5)  # the user reads the page: longer than the startup timeout
    assert status(manager).state is ServerState.SIGNING_IN
    assert fake().play_browser(url).status_code == 200
    wait_for(lambda: ready(manager))
    assert sign_ins.none_shown()


def test_a_registered_port_now_taken_registers_again_on_another(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    import socket

    sign_ins = SignIns()
    sign_in(connect(managers, remote, sign_ins), sign_ins)
    managers.pop().stop()
    stored = oauth_tokens.token_path("remote")
    document = json.loads(stored.read_text())
    old_port = int(document["client"]["redirect_uris"][0].rsplit(":", 1)[1].split("/")[0])
    del document["tokens"]
    stored.write_text(json.dumps(document))
    with socket.socket() as squatter:
        squatter.setsockopt(
            socket.SOL_SOCKET, socket.SO_REUSEADDR, 1
        )  # its last connection may be in TIME_WAIT
        squatter.bind(("127.0.0.1", old_port))
        squatter.listen()
        manager = connect(managers, remote, sign_ins)
        _, url, _ = sign_ins.next()
        assert f"127.0.0.1%3A{old_port}" not in url
        assert fake().play_browser(url).status_code == 200
        wait_for(lambda: ready(manager))
    assert len(remote.authority.clients) == 2


def test_a_data_folder_that_refuses_writes_keeps_the_sign_in_for_the_run(
    managers: list[McpManager], remote: OAuthMcpServer
) -> None:
    folder = oauth_tokens.tokens_dir()
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder")  # whatever the user, writing a file under it fails
    sign_ins = SignIns()
    manager = connect(managers, remote, sign_ins)
    sign_in(manager, sign_ins)
    assert whoami(manager).startswith("client ")
    assert status(manager).sign_in == "signed in"
    assert sign_ins.none_shown_past_the_first_retry()


async def test_a_sign_in_address_that_is_not_http_is_never_shown() -> None:
    from zett_tui.runtime.mcp.deadlines import Deadlines
    from zett_tui.runtime.mcp.oauth import SignIn
    from zett_tui.runtime.mcp.oauth_callback import SignInFailed

    sign_ins = SignIns()
    hostile = SignIn("remote", "http://127.0.0.1:9/mcp", sign_ins, Deadlines(), lambda: None)
    for address in ("file:///etc/passwd", "javascript:alert(1)", "x-terminal-emulator://run"):
        with pytest.raises(SignInFailed, match="not an http"):
            await hostile._redirect(address)
    assert sign_ins.none_shown()
