"""web_fetch: asked before any domain is contacted, and never reaching a private address.

The attack variants run through the real address guard (the system resolver turns the numeric
spellings of an address into the address they mean, offline). The redirect, rebinding and size
tests run against a real HTTP server on 127.0.0.1, reached through a test-only resolver and an
``exempt`` address: the guard is exercised for real on every hop.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from zett_tui.runtime.events import DecisionRequested, ToolFinished
from zett_tui.runtime.hooks.protocol import claude_tool_name
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.unattended import ShellAllowList, UnattendedPolicy
from zett_tui.runtime.web.address_guard import AddressRefused, check_url, precheck_url, system_resolver
from zett_tui.runtime.web.extension import WEB_FETCH_EVENT, WebOptions, for_the_model
from zett_tui.runtime.web.fetcher import FetchFailed, FetchLimits, fetch_page

# -- the address guard ------------------------------------------------------------------------------

REFUSED_URLS = [
    "http://127.0.0.1/",
    "http://localhost/",
    "http://[::1]/",
    "http://2130706433/",  # decimal 127.0.0.1
    "http://0177.0.0.1/",  # octal
    "http://0x7f.0.0.1/",  # hex
    "http://0x7f000001/",
    "http://127.1/",
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped IPv6
    "http://[::ffff:7f00:1]/",
    "http://[64:ff9b::7f00:1]/",  # NAT64 of loopback
    "http://[2002:7f00:1::]/",  # 6to4 of loopback
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata
    "http://[fd00:ec2::254]/",  # AWS metadata over IPv6 (unique local)
    "http://10.0.0.1/",
    "http://172.16.3.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",  # CGNAT
    "http://0.0.0.0/",
    "http://0/",
    "http://[::ffff:169.254.169.254]/latest/",  # metadata, IPv4-mapped
    "http://169.254.169.254:80@example.com/",  # user info again
    "http://[::]/",
    "http://[fe80::1]/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "file:///etc/passwd",
    "ftp://example.com/",
    "gopher://example.com/",
    "javascript:alert(1)",
    "http://evil@127.0.0.1/",
    "http://evil.com@127.0.0.1/",
    "http://127.0.0.1@evil.com/",  # user info is refused outright, whichever side is which
    "http://user:pass@example.com/",
    "http:///etc/passwd",
    "http://exa mple.com/",
    "http://example.com\\@127.0.0.1/",
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_special_addresses_and_schemes_are_refused(url: str) -> None:
    with pytest.raises(AddressRefused):
        check_url(url, system_resolver)


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_they_are_refused_before_any_question_or_lookup(url: str) -> None:
    with pytest.raises(AddressRefused):
        precheck_url(url)


def test_a_name_that_resolves_to_loopback_is_refused_after_resolution() -> None:
    with pytest.raises(AddressRefused, match=r"127\.0\.0\.1"):
        check_url("https://docs.example.com/x", lambda host, port: ["127.0.0.1"])


def test_a_name_with_one_private_address_among_public_ones_is_refused() -> None:
    with pytest.raises(AddressRefused, match=r"10\.1\.2\.3"):
        check_url("https://docs.example.com/", lambda host, port: ["93.184.215.14", "10.1.2.3"])


def test_a_public_address_passes_and_is_the_one_connected_to() -> None:
    target = check_url("https://Docs.Example.com./a?b=1#frag", lambda host, port: ["93.184.215.14"])
    assert (target.host, target.port, target.address, target.path) == (
        "docs.example.com",
        443,
        "93.184.215.14",
        "/a?b=1",
    )


def test_hooks_see_web_fetch_as_webfetch() -> None:
    assert claude_tool_name("web_fetch") == "WebFetch"


# -- a local server ---------------------------------------------------------------------------------


class Server:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.port = 0


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            state.paths.append(self.path)
            host = self.headers.get("Host", "")
            if self.path.startswith("/redirect-to?"):
                self.send_response(302)
                self.send_header("Location", self.path.split("?", 1)[1])
                self.end_headers()
                return
            if self.path == "/huge":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(50 * 1024 * 1024))
                self.end_headers()
                block = b"x" * (1024 * 1024)
                try:
                    for _ in range(50):
                        self.wfile.write(block)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            body = (
                "<html><head><script>steal()</script><style>p{}</style></head>"
                f"<body><h1>Docs</h1><p>Hello from {self.path} at {host}</p></body></html>"
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    # polled every 0.05 s, not the default 0.5 s: ``shutdown`` waits for the next poll
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def resolver_for(names: dict[str, list[str]]) -> Any:
    """A test resolver: each name answers its list of addresses in turn (the last one repeats)."""
    calls: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        answers = names[host]
        return [answers.pop(0) if len(answers) > 1 else answers[0]]

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


async def test_a_page_is_fetched_from_the_checked_address_as_markdown(server: Server) -> None:
    resolve = resolver_for({"docs.test": ["127.0.0.1"]})
    page = await fetch_page(f"http://docs.test:{server.port}/guide", resolver=resolve, exempt={"127.0.0.1"})
    assert "# Docs" in page.text and f"Hello from /guide at docs.test:{server.port}" in page.text
    assert "steal" not in page.text and "p{}" not in page.text
    wrapped = for_the_model(page)
    assert wrapped.startswith("<untrusted-web-content") and "untrusted data" in wrapped


async def test_the_local_server_itself_is_refused_without_the_test_exemption(server: Server) -> None:
    with pytest.raises(AddressRefused):
        await fetch_page(f"http://127.0.0.1:{server.port}/")
    assert server.paths == []


async def test_a_same_host_redirect_is_followed_and_checked_again(server: Server) -> None:
    resolve = resolver_for({"docs.test": ["127.0.0.1"]})
    url = f"http://docs.test:{server.port}/redirect-to?/final"
    page = await fetch_page(url, resolver=resolve, exempt={"127.0.0.1"})
    assert "Hello from /final" in page.text
    assert resolve.calls == ["docs.test", "docs.test"]  # resolved and checked on every hop


async def test_a_redirect_whose_name_now_resolves_to_a_private_address_is_refused(server: Server) -> None:
    """DNS rebinding: the first answer passed, the second (for the redirect) is private."""
    resolve = resolver_for({"docs.test": ["127.0.0.1", "10.0.0.7"]})
    url = f"http://docs.test:{server.port}/redirect-to?/final"
    with pytest.raises(AddressRefused, match=r"10\.0\.0\.7"):
        await fetch_page(url, resolver=resolve, exempt={"127.0.0.1"})
    assert server.paths == ["/redirect-to?/final"]


@pytest.mark.parametrize(
    "location",
    ["http://[::1]:{port}/final", "http://169.254.169.254/latest/meta-data/", "http://0177.0.0.1:{port}/"],
)
async def test_a_redirect_to_a_private_address_is_refused(server: Server, location: str) -> None:
    resolve = resolver_for({"docs.test": ["127.0.0.1"]})

    def both(host: str, port: int) -> list[str]:
        return resolve(host, port) if host == "docs.test" else system_resolver(host, port)

    url = f"http://docs.test:{server.port}/redirect-to?{location.format(port=server.port)}"
    # httpx itself rejects an octal address in a Location header; either way nothing is contacted.
    with pytest.raises((AddressRefused, FetchFailed)):
        await fetch_page(url, resolver=both, exempt={"127.0.0.1"}, may_follow=lambda host: True)
    assert server.paths == [url.split(str(server.port), 1)[1]]


async def test_a_redirect_to_another_host_not_allowed_is_reported_not_followed(server: Server) -> None:
    resolve = resolver_for({"docs.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    url = f"http://docs.test:{server.port}/redirect-to?http://other.test:{server.port}/x"
    page = await fetch_page(url, resolver=resolve, exempt={"127.0.0.1"})
    assert page.moved_to == f"http://other.test:{server.port}/x"
    assert "the user will be asked" in for_the_model(page)
    assert len(server.paths) == 1


async def test_a_50_mb_page_is_cut_at_the_bound(server: Server) -> None:
    resolve = resolver_for({"docs.test": ["127.0.0.1"]})
    limits = FetchLimits(max_bytes=2 * 1024 * 1024)
    page = await fetch_page(
        f"http://docs.test:{server.port}/huge", resolver=resolve, exempt={"127.0.0.1"}, limits=limits
    )
    assert page.cut_bytes and page.cut_chars
    assert len(page.text) == limits.max_chars
    assert "only its beginning was read" in for_the_model(page)


async def test_a_slow_server_is_stopped_at_the_time_bound() -> None:
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never answers
    try:
        resolve = resolver_for({"slow.test": ["127.0.0.1"]})
        url = f"http://slow.test:{listener.getsockname()[1]}/"
        with pytest.raises(FetchFailed, match=r"longer than 0\.5 seconds"):
            await fetch_page(url, resolver=resolve, exempt={"127.0.0.1"}, limits=FetchLimits(timeout=0.5))
    finally:
        listener.close()


# -- through the host: asked first, in every mode ---------------------------------------------------


async def _turn(
    host: Any, model: ScriptedModel, answer: str | None
) -> tuple[Collector, list[DecisionRequested]]:
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("go", sink))
    asked: list[DecisionRequested] = []
    while not turn.done():
        getter = asyncio.ensure_future(sink.decisions.get())
        await asyncio.wait({turn, getter}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
        if not getter.done():
            getter.cancel()
            continue
        decision = getter.result()
        asked.append(decision)
        assert answer is not None, decision
        host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": answer})
    await asyncio.wait_for(turn, 20)
    return sink, asked


async def test_a_local_page_is_refused_as_private_without_asking(hosts: Any, server: Server) -> None:
    model = ScriptedModel(
        tool_step("w1", "web_fetch", {"url": f"http://127.0.0.1:{server.port}/"}), text_step("ok")
    )
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    sink, asked = await _turn(host, model, None)
    (row,) = sink.of(ToolFinished)
    assert asked == [] and row.state == "refused" and "private, local or special" in row.output
    assert server.paths == []


@pytest.mark.parametrize("mode", [PermissionMode.AUTO, PermissionMode.ASK, PermissionMode.PLAN])
async def test_a_public_url_asks_with_the_full_url_before_any_connection(
    hosts: Any, mode: PermissionMode
) -> None:
    looked_up: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        looked_up.append(host)
        raise AssertionError("no lookup before the answer")

    url = "https://docs.example.com/guide?" + "&".join(f"p{i}=v{i}" for i in range(20))
    model = ScriptedModel(tool_step("w1", "web_fetch", {"url": url}), text_step("ok"))
    host = await hosts(model, permission_mode=mode, web=WebOptions(resolver=resolve))
    if mode is PermissionMode.PLAN:
        host.plan_guard.set_plan_mode(host.session_id, True)
    sink, asked = await _turn(host, model, "deny")
    assert [d.kind for d in asked] == [WEB_FETCH_EVENT]
    assert asked[0].payload["url"] == url and asked[0].payload["domain"] == "docs.example.com"
    assert asked[0].payload["long_query"] is True
    assert looked_up == []
    (row,) = sink.of(ToolFinished)
    assert row.state == "refused" and "did not let web_fetch contact docs.example.com" in row.output
    assert "web_fetch" in [tool.name for tool in model.requests[0].tools]


async def test_after_yes_without_network_the_fetch_fails_cleanly(hosts: Any) -> None:
    def offline(host: str, port: int) -> list[str]:
        return ["93.184.215.14"]  # public; nothing routes there from this machine

    model = ScriptedModel(tool_step("w1", "web_fetch", {"url": "https://docs.example.com/"}), text_step("ok"))
    web = WebOptions(resolver=offline, limits=FetchLimits(timeout=3))
    host = await hosts(model, web=web)
    sink, asked = await _turn(host, model, "once")
    (row,) = sink.of(ToolFinished)
    assert len(asked) == 1 and row.state == "failed"
    assert "could not fetch https://docs.example.com/" in row.output or "longer than" in row.output


async def test_always_for_a_domain_stops_asking_in_this_project(hosts: Any, server: Server) -> None:
    web = WebOptions(resolver=resolver_for({"docs.test": ["127.0.0.1"]}), exempt={"127.0.0.1"})
    url = f"http://docs.test:{server.port}/a"
    model = ScriptedModel(
        tool_step("w1", "web_fetch", {"url": url}),
        tool_step("w2", "web_fetch", {"url": url}),
        text_step("ok"),
    )
    host = await hosts(model, web=web)
    sink, asked = await _turn(host, model, "always")
    assert len(asked) == 1
    assert [row.state for row in sink.of(ToolFinished)] == ["done", "done"]
    assert "Hello from /a" in sink.of(ToolFinished)[1].output
    from zett_tui.runtime.web.allowed_domains import SavedDomains

    assert "docs.test" in SavedDomains(host.options.cwd).allowed()


async def test_a_secret_in_the_query_is_called_out_and_redacted_on_disk(hosts: Any, tmp_path: Path) -> None:
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
    url = f"https://api.example.com/v1/data?api_key={secret}&q=1"
    model = ScriptedModel(tool_step("w1", "web_fetch", {"url": url}), text_step("done"))
    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    host = await hosts(model, sessions_dir=sessions, history_db=history)
    _sink, asked = await _turn(host, model, "deny")
    assert asked[0].payload["query_secret"] is True and secret in asked[0].payload["url"]
    await host.aclose()
    on_disk = b"".join(path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())
    assert b"api.example.com" in on_disk  # the call was recorded...
    assert secret.encode() not in on_disk  # ...without the secret


def test_print_mode_fetches_only_allowed_domains() -> None:
    policy = UnattendedPolicy(False, ShellAllowList(), Path.cwd(), allow_web=("docs.python.org",))
    allowed = policy.answer(
        DecisionRequested(
            WEB_FETCH_EVENT, "s", {"tool_call_id": "c", "domain": "docs.python.org", "url": "u"}
        )
    )
    refused = policy.answer(
        DecisionRequested(WEB_FETCH_EVENT, "s", {"tool_call_id": "c", "domain": "python.org", "url": "u"})
    )
    assert allowed.allowed and allowed.payload["decision"] == "once"
    assert not refused.allowed and refused.payload["decision"] == "deny"
    assert "--allow-web python.org" in (refused.hint or "")
    assert json.dumps(refused.payload)


# -- turning it off -------------------------------------------------------------------------------


def test_web_fetch_is_turned_off_in_the_users_config_only(tmp_path: Path) -> None:
    from zett_tui.config.settings import load_settings

    user, project = tmp_path / "user.toml", tmp_path / "project"
    (project / ".zett").mkdir(parents=True)
    user.write_text("[web]\nfetch = false\nsearch = true\n")
    settings, problems = load_settings(cwd=project, env={}, user_config=user, project_trusted=True)
    assert settings.web.fetch is False and settings.web.search is True and problems == []
    user.write_text("")
    (project / ".zett" / "config.toml").write_text("[web]\nfetch = false\n")
    settings, problems = load_settings(cwd=project, env={}, user_config=user, project_trusted=True)
    assert settings.web.fetch is True and any("web" in str(problem) for problem in problems)


async def test_turned_off_the_model_is_not_offered_web_fetch(hosts: Any) -> None:
    model = ScriptedModel(text_step("ok"))
    host = await hosts(model, web=WebOptions(enabled=False))
    await host.run_turn("hi", Collector())
    assert "web_fetch" not in [tool.name for tool in model.requests[0].tools]


# -- zett -p --------------------------------------------------------------------------------------


async def _headless(model: ScriptedModel, **options: Any) -> tuple[int, str]:
    import io

    from zett_tui.entry.headless import run_headless
    from zett_tui.entry.launch import LaunchSettings

    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(model_label="scripted", model_factory=lambda: model, cwd=Path.cwd())
    code = await run_headless(launch, "go", out=out, err=err, handle_signals=False, **options)
    return code, err.getvalue()


async def test_print_mode_fetches_nothing_without_allow_web() -> None:
    model = ScriptedModel(
        tool_step("w1", "web_fetch", {"url": "https://docs.example.com/a"}), text_step("ok")
    )
    code, err = await _headless(model)
    assert code == 0 and "refused web fetch of https://docs.example.com/a" in err
    assert "--allow-web docs.example.com" in err


async def test_print_mode_with_allow_web_tries_and_fails_cleanly_offline() -> None:
    model = ScriptedModel(
        tool_step("w1", "web_fetch", {"url": "https://docs.example.invalid/a"}), text_step("ok")
    )
    code, err = await _headless(model, allow_web=["docs.example.invalid"])
    assert code == 0 and "refused" not in err
    from tests.fakes.scripted_model import last_tool_result

    assert "'docs.example.invalid' could not be resolved" in last_tool_result(model.requests[-1])


@pytest.mark.parametrize("given", ["https://docs.python.org", "*.python.org", "docs.python.org/3"])
def test_allow_web_takes_a_host_name_only(given: str) -> None:
    import argparse

    from zett_tui.entry.headless import HeadlessUsageError, headless_request

    options = argparse.Namespace(
        prompt="go",
        output=None,
        allow_edits=False,
        allow_shell=[],
        allow_read=[],
        allow_mcp=[],
        allow_web=[given],
    )
    with pytest.raises(HeadlessUsageError, match="--allow-web"):
        headless_request(options, None)


def test_a_huge_html_page_is_converted_only_as_far_as_the_bound() -> None:
    from zett_tui.runtime.web.page_text import MAX_HTML_CHARS, page_to_text

    page = ("<html><body>" + "<p>word</p>" * (MAX_HTML_CHARS // 5) + "<p>END-MARK</p></body></html>").encode()
    text, cut = page_to_text(page, "text/html", 10_000_000)
    assert cut and "word" in text and "END-MARK" not in text


def test_binary_is_refused_not_handed_over() -> None:
    from zett_tui.runtime.web.page_text import NotText, page_to_text

    with pytest.raises(NotText, match="image/png"):
        page_to_text(b"\x89PNG\r\n", "image/png", 100)


def test_an_always_domain_is_listed_and_can_be_forgotten(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from zett_tui.runtime.web.allowed_domains import DomainPermissions, SavedDomains
    from zett_tui.ui.chat.commands.permissions import _web_lines

    permissions = DomainPermissions(SavedDomains(tmp_path, directory=tmp_path / "perm"))
    permissions.saved.allow("docs.python.org")  # type: ignore[union-attr]
    permissions.allow_for_session("s", "docs.python.org")
    host = SimpleNamespace(web_permissions=permissions)
    assert "docs.python.org" in _web_lines(host)[0]  # type: ignore[arg-type]
    assert permissions.forget("docs.python.org") is True
    assert not permissions.allows("s", "docs.python.org")
    assert "asks before every domain" in _web_lines(host)[0]  # type: ignore[arg-type]
    assert permissions.forget("docs.python.org") is False
