"""The private parts of Textual, zett-agent and tomlkit that zett relies on, checked one by one.

They are used only through ``zett_tui/ui/textual_compat.py``, ``zett_tui/runtime/agent_compat.py``
and ``zett_tui/config/tomlkit_compat.py``. When an upgrade changes one of them, the test that fails says what to look at. After checking,
update the compat function (and, for a copied upstream method, the pinned source hash here), then
the upper bound in ``pyproject.toml``.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget

from zett_tui.runtime import agent_compat
from zett_tui.ui import textual_compat

ROOT = Path(__file__).resolve().parent.parent


def _signature(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def _source_hash(function: Any) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]


def _check(condition: bool, what: str) -> None:
    if not condition:
        pytest.fail(f"Upstream changed: {what}", pytrace=False)


# -- the pins ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("distribution", ["textual", "zett-agent", "tomlkit"])
def test_the_upper_bound_is_the_next_minor_of_the_version_tested(distribution: str) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    [requirement] = [
        Requirement(line)
        for line in project["dependencies"]
        if Requirement(line).name.replace("_", "-") == distribution
    ]
    installed = Version(version(distribution))
    _check(
        installed in requirement.specifier,
        f"{distribution} {installed} is installed but pyproject.toml asks for {requirement}",
    )
    upper = [spec for spec in requirement.specifier if spec.operator == "<"]
    expected = Version(f"{installed.major}.{installed.minor + 1}")
    _check(
        [Version(spec.version) for spec in upper] == [expected],
        f"{distribution} {installed} is the version tested: its bound in pyproject.toml should be "
        f"<{expected} (run this file against a new version before moving it)",
    )


# -- Textual ---------------------------------------------------------------------------------------


def test_app_handle_exception_is_still_what_zett_replaces() -> None:
    _check(
        _signature(getattr(App, textual_compat.HANDLE_EXCEPTION_METHOD)) == ["self", "error"],
        "App._handle_exception(error) is gone or takes other arguments: ZettApp's crash handler "
        "(ui/app.py) would not be called and Textual would print a traceback with the prompts in it",
    )
    _check(
        _source_hash(App._handle_exception) == "baea2e7f88e7ac52",
        "App._handle_exception's code changed: diff it against textual_compat.keep_exception_for_tests "
        "and discard_exit_output (ZettApp replaces it without calling it), copy what is new, then "
        "update this hash",
    )


async def test_the_crash_path_keeps_the_exception_for_run_test_and_prints_nothing() -> None:
    """A crash inside the app: the replaced handler runs, run_test re-raises, nothing is printed."""
    handled: list[Exception] = []

    class Crashing(App[None]):
        def on_mount(self) -> None:
            raise ValueError("boom")

        def _handle_exception(self, error: Exception) -> None:
            handled.append(error)
            textual_compat.keep_exception_for_tests(self, error)
            textual_compat.discard_exit_output(self)
            self.exit(None, return_code=1, message="stopped")

    app = Crashing()
    with pytest.raises(ValueError, match="boom"):
        async with app.run_test():
            pass
    _check(len(handled) == 1, "Textual no longer calls App._handle_exception for an exception in a handler")
    _check(app._exit_renderables == [], "App._exit_renderables is not what Textual prints at exit")


def test_the_theme_watcher_is_still_what_zett_copies() -> None:
    _check(
        _signature(App._refresh_truecolor_filter) == ["self", "theme"],
        "App._refresh_truecolor_filter(theme) is gone: themes are set before start the slower way",
    )
    _check(
        _source_hash(App._watch_theme) == "a6de38d37b42f581",
        "App._watch_theme changed: textual_compat.select_theme_before_start does what it does minus "
        "the stylesheet re-parse; copy what is new, then update this hash",
    )


def test_text_area_render_lines_is_still_theme_css_then_the_widgets() -> None:
    from textual.widgets import TextArea

    _check(
        _source_hash(TextArea.render_lines) == "5a3931b3e86abfaf",
        "TextArea.render_lines changed: textual_compat.text_area_lines does what it does after "
        "theme.apply_css(self) (ui/speed/theme_css applies that); copy what is new, then update this hash",
    )


async def test_a_widgets_styles_version_changes_with_its_inline_styles() -> None:
    class Holder(App[None]):
        def compose(self) -> ComposeResult:
            yield Widget()

    app = Holder()
    async with app.run_test() as pilot:
        widget = app.query_one(Widget)
        before = textual_compat.styles_version(widget)
        widget.styles.background = "red"
        await pilot.pause()
        _check(
            textual_compat.styles_version(widget) != before,
            "RenderStyles._cache_key no longer changes with inline styles: the prompt's theme "
            "(ui/speed/theme_css) would keep the styles it was filled in from first",
        )


async def test_a_theme_selected_before_start_is_the_theme_the_app_runs_with() -> None:
    app: App[None] = App()
    textual_compat.select_theme_before_start(app, "textual-light")
    async with app.run_test():
        _check(app.theme == "textual-light", "select_theme_before_start no longer selects the theme")
        _check(app.has_class("-theme-textual-light", "-light-mode"), "the theme classes are not set")
        _check(not app.has_class("-dark-mode"), "the dark-mode class is set for a light theme")


def test_the_redraw_period_is_still_a_module_constant_screens_read() -> None:
    import textual.screen

    _check(
        isinstance(textual_compat.redraw_period(), float),
        "textual.screen.UPDATE_PERIOD is gone: echo_latency cannot raise the redraw rate",
    )
    _check(
        "UPDATE_PERIOD" in inspect.getsource(textual.screen.Screen),
        "Screen no longer reads textual.screen.UPDATE_PERIOD for its update timer: setting it does nothing",
    )


def test_a_widget_is_still_drawn_the_way_the_screen_s_update_timer_draws_it() -> None:
    from textual.screen import Screen

    timer_update = inspect.getsource(Screen._on_timer_update)
    _check(
        "self._compositor.update_widgets(self._dirty_widgets)" in timer_update
        and "self._compositor_refresh()" in timer_update
        and "_batch_count" in timer_update,
        "Screen._on_timer_update no longer draws dirty widgets with update_widgets + _compositor_refresh: "
        "check textual_compat.paint_now (the prompt's immediate echo)",
    )
    check_refresh = inspect.getsource(Widget._check_refresh)
    _check(
        all(
            name in check_refresh
            for name in (
                "_repaint_required",
                "_layout_required",
                "_scroll_required",
                "_refresh_styles_required",
            )
        ),
        "Widget._check_refresh reads other flags: check what textual_compat.paint_now leaves to the frame",
    )


async def test_copied_text_is_textuals_paste_buffer_and_the_driver_writes() -> None:
    app: App[None] = App()
    textual_compat.remember_copied_text(app, "copied")
    _check(app.clipboard == "copied", "App.clipboard no longer returns App._clipboard")
    _check(textual_compat.terminal_driver(app) is None, "App._driver is not None before the app runs")
    async with app.run_test():
        driver = textual_compat.terminal_driver(app)
        _check(driver is not None and callable(driver.write), "App._driver is not the running driver")


async def test_a_virtual_size_is_set_without_a_layout() -> None:
    from textual.geometry import Size
    from textual.scroll_view import ScrollView

    _check(
        _signature(Widget._scroll_update) == ["self", "virtual_size"],
        "Widget._scroll_update(virtual_size) is gone: the transcript takes a layout pass per resize",
    )

    class Scrolling(ScrollView):
        pass

    class Holder(App[None]):
        def compose(self) -> ComposeResult:
            yield Scrolling()

    app = Holder()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(Scrolling)
        textual_compat.set_virtual_size_quietly(view, Size(40, 500))
        await pilot.pause()
        _check(view.virtual_size == Size(40, 500), "set_virtual_size_quietly did not set the size")
        _check(view.max_scroll_y > 0, "the view cannot scroll over its new virtual size")
        _check(view.show_vertical_scrollbar, "Widget._scroll_update no longer shows the scrollbar")


async def test_a_scrolling_widget_s_own_scrollbar_is_the_one_textual_shows_and_scrolls() -> None:
    from textual.geometry import Size
    from textual.scroll_view import ScrollView
    from textual.scrollbar import ScrollBar

    class OwnBar(ScrollBar):
        pass

    class Scrolling(ScrollView):
        @property
        def vertical_scrollbar(self) -> ScrollBar:
            return textual_compat.own_vertical_scrollbar(self, lambda: OwnBar(vertical=True, name="vertical"))

    class Holder(App[None]):
        def compose(self) -> ComposeResult:
            yield Scrolling()

    async with Holder().run_test(size=(40, 10)) as pilot:
        view = pilot.app.query_one(Scrolling)
        textual_compat.set_virtual_size_quietly(view, Size(40, 500))
        await pilot.pause()
        bar = view.vertical_scrollbar
        _check(
            isinstance(bar, OwnBar), "Widget._vertical_scrollbar / App._start_widget changed: Textual's bar"
        )
        _check(bar.parent is view and bar.display, "the own scrollbar is not mounted and shown on the view")
        view.scroll_to(y=100, animate=False, immediate=True)
        await pilot.pause()
        _check(bar.position == 100, "scrolling no longer moves the view's own scrollbar")


async def test_a_widget_s_own_bindings_are_found_by_key() -> None:
    class Bound(Widget):
        BINDINGS = [Binding("ctrl+w", "delete_word", "Delete a word")]

    class Holder(App[None]):
        def compose(self) -> ComposeResult:
            yield Bound()

    async with Holder().run_test() as pilot:
        widget = pilot.app.query_one(Bound)
        found = [binding.action for binding in textual_compat.own_bindings(widget, "ctrl+w")]
        _check(found == ["delete_word"], "DOMNode._bindings.key_to_bindings no longer maps keys to bindings")


def test_typed_keys_parse_as_textual_parses_them() -> None:
    from textual import events

    parsed = textual_compat.parse_terminal_input("a\x1b[A\x1b[200~pasted\x1b[201~\r")
    _check(parsed is not None, "textual._xterm_parser.XTermParser moved: keys typed at start are lost")
    assert parsed is not None
    keys = [event.key if isinstance(event, events.Key) else event for event in parsed]
    _check(keys[:2] == ["a", "up"], f"XTermParser.feed parses keys differently: {keys}")
    _check(
        any(isinstance(event, events.Paste) and event.text == "pasted" for event in parsed),
        "XTermParser no longer turns a bracketed paste into a Paste event",
    )
    _check(keys[-1] == "enter", "XTermParser.feed('') no longer flushes the pending input")


def test_text_area_still_handles_keys_where_the_composer_overrides() -> None:
    from textual.widgets import TextArea

    handler = getattr(TextArea, textual_compat.TEXT_AREA_KEY_METHOD, None)
    _check(
        handler is not None
        and inspect.iscoroutinefunction(handler)
        and _signature(handler) == ["self", "event"],
        "TextArea._on_key(event) is gone or changed: the Composer's Enter, Up/Down and menu keys "
        "(ui/widgets/composer.py) would never run",
    )


def test_the_terminal_driver_still_hands_events_over_through_post_message_coroutines() -> None:
    from textual.driver import Driver
    from textual.drivers.linux_driver import LinuxDriver
    from textual.message_pump import MessagePump

    post = getattr(MessagePump, textual_compat.DRIVER_POST_METHOD, None)
    _check(
        post is not None and inspect.iscoroutinefunction(post) and _signature(post) == ["self", "message"],
        "MessagePump._post_message(message) is gone or changed: ZettApp's override (a key counted as "
        "it arrives, ui/speed/keys_first.py) would break or never run",
    )
    _check(
        "self._app._post_message(" in inspect.getsource(Driver.send_message)
        and "self._app._post_message(" in inspect.getsource(LinuxDriver),
        "The terminal driver no longer hands events over with app._post_message: keys are no longer "
        "counted as they arrive (ui/speed/keys_first.py), and the chat's frames do not wait for them",
    )


def test_every_frame_is_still_written_through_app_display() -> None:
    from textual.app import App
    from textual.screen import Screen

    display = getattr(App, textual_compat.FRAME_WRITTEN_METHOD, None)
    _check(
        display is not None
        and not inspect.iscoroutinefunction(display)
        and _signature(display) == ["self", "screen", "renderable"]
        and "app._display(self, update)" in inspect.getsource(Screen._compositor_refresh),
        "App._display(screen, renderable) is gone, changed, or no longer writes the screen's frames: "
        "ZettApp's override (where a typed character is drawn from the input thread, "
        "ui/speed/predicted_echo.py) would break or never run, and nothing would be drawn ahead",
    )
    _check(
        "driver.write" in inspect.getsource(display) or "_driver.write" in inspect.getsource(display),
        "App._display no longer writes through the driver: the input thread's writes "
        "(ui/speed/predicted_echo.py) may no longer come between frames, never inside one",
    )


def test_a_screen_is_still_removed_through_the_prune_zett_overrides() -> None:
    from textual.screen import Screen

    prune = getattr(App, textual_compat.NODES_REMOVED_METHOD, None)
    _check(
        prune is not None
        and not inspect.iscoroutinefunction(prune)
        and _signature(prune) == ["self", "nodes", "parent"]
        and "self.app._prune(self, parent=self._parent)" in inspect.getsource(Widget.remove),
        "App._prune(*nodes, parent) is gone, changed, or no longer how a screen is removed: "
        "ZettApp's override (a dialog's close draws the chat whole once, not three times) would "
        "break or never run",
    )
    source = inspect.getsource(prune)
    after_removal = source[source.index("def post_mount") : source.index("await_complete = AwaitRemove")]
    _check(
        set(re.findall(r"([\w.]+)\(", after_removal))
        == {"post_mount", "self._update_mouse_over", "parent.refresh"},
        "What App._prune does once the nodes are gone changed: ZettApp's override prunes a screen "
        "with no parent, leaving the hover to the next frame; check what else post_mount does now",
    )
    _check(
        "_update_mouse_over(self)" in inspect.getsource(Screen._compositor_refresh),
        "A frame no longer brings the hover under the pointer up to date: a screen pruned by ZettApp "
        "with no parent (textual_compat.NODES_REMOVED_METHOD) must do it itself",
    )


def test_the_frames_a_dialog_keeps_are_written_as_zett_reads_them() -> None:
    from textual._compositor import ChopsUpdate, LayoutUpdate

    _check(
        _source_hash(ChopsUpdate.render_segments) == "4c1cdb567e0b8354",
        "ChopsUpdate.render_segments changed: ui/speed/shown_rows._written_chops copies which chops it "
        "writes whole and which it cuts; diff the two",
    )
    _check(
        _source_hash(LayoutUpdate.render_segments) == "ff329c722506c983",
        "LayoutUpdate.render_segments changed: ui/speed/shown_rows.ChangedChops writes a whole frame's "
        "rows chop by chop from its strips and region; diff the two",
    )
    display = inspect.getsource(App._display)
    _check(
        all(
            condition in display
            for condition in (
                "self._batch_count",
                "self._running",
                "not self._closed",
                "self._driver is not None",
            )
        ),
        "App._display writes a frame under other conditions: textual_compat.frame_reaches_terminal "
        "(whose frame the terminal shows, ui/speed/shown_rows) must say the same",
    )


def test_a_partial_update_still_renders_the_widgets_the_compositor_lists_as_visible() -> None:
    from textual._compositor import Compositor

    _check(
        "self.visible_widgets" in inspect.getsource(Compositor._get_renders)
        and "self._visible_widgets" in inspect.getsource(Compositor.visible_widgets.fget),
        "Compositor._get_renders no longer renders from visible_widgets (cached in _visible_widgets): "
        "textual_compat._rendering_alone would no longer make the prompt's echo render the prompt alone",
    )


def test_the_compositor_the_terminal_scroll_relies_on() -> None:
    """``ui/speed/terminal_scroll`` and ``textual_compat.screen_compositor`` / ``install_compositor``
    / ``shift_rendered_rows`` / ``move_waiting_repaints``: the names they touch, and that only a
    screenshot asks the compositor for a full render (the terminal scroll leaves it waiting then)."""
    from textual.screen import Screen

    screen, widget = Screen(), Widget()
    _check(
        isinstance(screen._compositor, textual_compat.Compositor)
        and isinstance(widget._repaint_regions, set),
        "Screen._compositor, Widget._styles_cache or Widget._repaint_regions changed: the terminal "
        "scroll (ui/speed/terminal_scroll.py) would break; set [ui] terminal_scroll = false meanwhile",
    )
    cache = widget._styles_cache
    rows_cached = inspect.getsource(type(cache).render)
    _check(
        isinstance(getattr(cache, "_cache", None), dict)
        and isinstance(getattr(cache, "_dirty_lines", None), set)
        and "self._cache[y] = strip" in rows_cached
        and "self._dirty_lines.__contains__" in rows_cached,
        "StylesCache no longer keeps a widget's rendered rows in _cache (row -> strip) with the rows "
        "to render again in _dirty_lines: textual_compat.shift_rendered_rows would keep wrong rows",
    )
    refresh = inspect.getsource(Screen._compositor_refresh)
    _check(
        "self._compositor.render_update(" in refresh
        and "full=True" not in refresh
        and "app._display(self, update)" in refresh
        and "render_update(\n            full=True" in inspect.getsource(App.export_screenshot),
        "Screen._compositor_refresh no longer writes a partial render_update() to the terminal, or "
        "full=True no longer means a screenshot: ScrollingCompositor would write a scroll no frame draws",
    )
    _check(
        "render_segments(" in inspect.getsource(App._display),
        "App._display no longer writes CompositorUpdate.render_segments(): the scroll would not be written",
    )


def test_the_screen_tick_the_chat_holds_for_keys_is_still_where_frames_are_drawn() -> None:
    from textual.screen import Screen

    tick = getattr(Screen, textual_compat.HELD_FRAME_METHOD, None)
    _check(
        tick is not None and not inspect.iscoroutinefunction(tick) and _signature(tick) == ["self"],
        "Screen._on_timer_update() is gone or changed: the chat screen's frames would no longer wait "
        "for a typed key (ui/speed/keys_first.py), or would never be drawn",
    )
    _check(
        "self._update_timer.pause()" in inspect.getsource(tick),
        "Screen._on_timer_update no longer pauses the update timer itself: a skipped tick "
        "(ui/speed/keys_first.py) may stop the timer, and the frame would never come",
    )


def test_the_key_bindings_zett_runs_in_order_are_still_what_the_app_checks() -> None:
    _check(
        _source_hash(App._check_bindings) == "c9643552d942518a",
        "App._check_bindings changed: textual_compat.run_key_bindings copies it (the prompt runs "
        "bindings itself, in order); copy what is new, then update this hash",
    )
    from textual.message import Message

    message = Message()
    _check(not textual_compat.default_prevented(message), "Message._no_default_action is gone")
    message.prevent_default()
    _check(textual_compat.default_prevented(message), "prevent_default no longer sets _no_default_action")


def test_the_driver_still_makes_its_parser_from_the_name_zett_replaces() -> None:
    from textual.drivers import linux_driver

    _check(
        "XTermParser(" in inspect.getsource(linux_driver.LinuxDriver.run_input_thread),
        "LinuxDriver.run_input_thread no longer makes an XTermParser: the terminal's answers "
        "(zett_tui/terminal/replies.py) would reach the prompt as typed text",
    )
    textual_compat.keep_terminal_replies_out_of_input()
    parser = linux_driver.XTermParser()
    keys = [getattr(event, "key", None) for event in [*parser.feed("a\x1b[?1;2cb"), *parser.feed("")]]
    _check(keys == ["a", "b"], f"the reply-filtering parser passes the terminal's answer through: {keys}")


def test_the_driver_input_loop_and_signal_handlers_zett_relies_on_when_the_terminal_goes() -> None:
    from textual.drivers import linux_driver

    loop = inspect.getsource(linux_driver.LinuxDriver.run_input_thread)
    _check(
        "while not self.exit_event.is_set()" in loop,
        "LinuxDriver.run_input_thread no longer loops on exit_event: textual_compat.stop_reading_terminal "
        "would not stop it spinning on a hung-up terminal",
    )
    setup = inspect.getsource(linux_driver.LinuxDriver.__init__)
    _check(
        "signal.SIGTSTP" in setup and "signal.SIGCONT" in setup,
        "LinuxDriver no longer installs its SIGTSTP/SIGCONT handlers when made: check where it does, and "
        "that terminal/resume_guard.py still wraps them after the driver exists",
    )


# -- zett-agent --------------------------------------------------------------------------------------


def test_chat_messages_are_still_rendered_by_the_method_zett_overrides() -> None:
    from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

    method = getattr(OpenAICompatibleProvider, agent_compat.CHAT_MESSAGES_METHOD, None)
    _check(
        method is not None and _signature(method) == ["self", "request"],
        "OpenAICompatibleProvider._messages(request) is gone: runtime/plain_messages.py sends the "
        "messages through the SDK's transform again (slow on long sessions); see its docstring",
    )
    opening = inspect.getsource(OpenAICompatibleProvider._open_chat)
    _check(
        '"messages": self._messages(request)' in opening and "self.request_fields(request)" in opening,
        "OpenAICompatibleProvider._open_chat no longer puts self._messages(request) in the body and "
        "request_fields in extra_body: check runtime/plain_messages.py still sends each message once",
    )


def test_zett_agents_chat_request_has_the_fields_zetts_copy_sends() -> None:
    """zett's providers replace ``_open_chat`` (httpx, no SDK): an upstream request field they do
    not send must show up here. (Their ``__init__``, a copy without the SDK client, is checked by
    what it does: ``tests/test_providers_wire.py``, the same request on the wire.)"""
    from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

    opening = inspect.getsource(OpenAICompatibleProvider._open_chat)
    sent = ('"model"', '"messages"', '"stream"', '"stream_options"', '"tools"', '"temperature"',
            '"tool_choice"', '"prompt_cache_key"', '"extra_body"')  # fmt: skip
    _check(
        all(name in opening for name in sent),
        "OpenAICompatibleProvider._open_chat sends other fields: update PlainMessagesCompatibleProvider._open_chat",
    )
    _check(
        len(re.findall(r'fields\["(\w+)"\]', opening)) == 6,
        "OpenAICompatibleProvider._open_chat sets another optional field: update zett's _open_chat",
    )


def _sent_headers(headers: Any) -> dict[str, str]:
    """``headers`` as a server reads them, a later name replacing an earlier one whatever its case,
    without what only the SDK sends: its telemetry (``X-Stainless-*``) and its name."""
    return {
        name.lower(): value
        for name, value in headers.items()
        if isinstance(value, str) and not name.lower().startswith(("x-stainless-", "user-agent"))
    }


async def test_the_anthropic_sdk_client_sends_what_zetts_messages_request_sends() -> None:
    """zett's Anthropic provider replaces ``_open`` (httpx, ``messages_request``): a header or
    query the SDK client zett-agent builds sends (``anthropic-version``, the key, bearer auth) or
    a step of ``_open`` zett's does not take must show up here. (Its ``__init__``, a copy without
    the SDK client, is checked by what it does: ``tests/test_providers_wire.py``.)"""
    from zett_agent.model import RetryOptions, TimeoutOptions
    from zett_agent.providers.anthropic import AnthropicProvider
    from zett_agent.providers.anthropic_compatible import AnthropicCompatibleProvider

    from zett_tui.providers.messages_stream import ZettAnthropicProvider

    class Bearer(ZettAnthropicProvider):
        bearer_auth = True

    class UpstreamBearer(AnthropicProvider):
        bearer_auth = True

    arguments: dict[str, Any] = {
        "api_key": "k",
        "base_url": "http://127.0.0.1:9/gateway",
        "retry": RetryOptions(max_retries=1),
        "prompt_cache": False,
        "max_tokens": 1000,
        "extra_headers": {"anthropic-beta": "b1", "x-api-key": "k2"},
        "extra_query": {"v": "2"},
        "extra_body": {"b": 3},
        "timeout": TimeoutOptions(idle=9.0),
    }
    pairs = [
        (AnthropicProvider("m", **arguments), ZettAnthropicProvider("m", **arguments)),
        (UpstreamBearer("m", api_key="k"), Bearer("m", api_key="k")),
    ]
    for theirs, ours in pairs:
        try:
            _check(
                str(theirs._client.base_url).rstrip("/") + "/v1/messages" == ours._endpoint.url,
                "the SDK's base URL is not where zett sends the request",
            )
            _check(
                _sent_headers(theirs._client.default_headers) == _sent_headers(ours._endpoint.headers)
                and dict(theirs._client.default_query) == dict(ours._endpoint.query),
                "the anthropic SDK sends other headers or query: update providers/messages_request.py",
            )
        finally:
            await theirs.aclose()
            await ours.aclose()
    opening = inspect.getsource(AnthropicCompatibleProvider._open)
    _check(
        all(
            step in opening
            for step in (
                "self._request_body(request)",
                "self._forget_thinking(error, body)",
                "self._first_byte(",
            )
        ),
        "AnthropicCompatibleProvider._open takes other steps: update ZettAnthropicProvider._open",
    )


def test_the_plain_provider_sends_zett_agents_rendering_of_the_messages() -> None:
    from zett_agent.messages import AssistantMessage, SystemMessage, UserMessage
    from zett_agent.model import ModelRequest
    from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

    from zett_tui.providers.plain_messages import PlainMessagesCompatibleProvider

    provider = PlainMessagesCompatibleProvider(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")
    request = ModelRequest(
        messages=[
            SystemMessage(content="be brief"),
            UserMessage(content="hi"),
            AssistantMessage(content="hello"),
        ]
    )
    fields = provider.request_fields(request)
    _check(
        fields.get("messages") == OpenAICompatibleProvider._messages(provider, request),
        "the messages in extra_body are not zett-agent's own rendering of them",
    )
    _check(provider._messages(request) == [], "the override no longer empties what the SDK transforms")


def test_the_stream_loops_zett_replaces_and_the_parts_its_readers_call() -> None:
    from zett_agent.providers.anthropic_compatible import AnthropicCompatibleProvider
    from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

    chat = OpenAICompatibleProvider
    _check(
        f"self.{agent_compat.CHAT_STREAM_METHOD}" in inspect.getsource(chat.stream),
        "OpenAICompatibleProvider.stream no longer dispatches to _stream_chat: zett's lean reader "
        "(providers/chat_stream.py) is bypassed, and with it the end-signal rule",
    )
    _check(
        _signature(getattr(chat, agent_compat.CHAT_OPEN_METHOD)) == ["self", "request"]
        and _signature(getattr(chat, agent_compat.CHAT_REFUSED_METHOD)) == ["self", "refusal"],
        "OpenAICompatibleProvider._open_chat(request) or _refused(refusal) changed: check chat_stream.py",
    )
    messages = AnthropicCompatibleProvider
    _check(
        _signature(getattr(messages, agent_compat.MESSAGES_OPEN_METHOD)) == ["self", "request"]
        and _signature(getattr(messages, agent_compat.MESSAGES_READ_EVENT_METHOD)) == ["self", "turn", "data"]
        and _signature(getattr(messages, agent_compat.MESSAGES_RENDER_METHOD)) == ["self", "request"],
        "AnthropicCompatibleProvider._open, _read_event or _messages changed: check messages_stream.py",
    )
    turn = agent_compat.messages_turn()
    _check(
        all(
            hasattr(turn, name)
            for name in ("text", "reasoning", "finish_reason", "stop_details", "usage", "streams", "replay")
        ),
        "anthropic_compatible._Turn lost a field messages_stream.py reads",
    )
    _check(agent_compat.messages_tool_input("{bad", 0) == {}, "_lenient_arguments no longer falls back to {}")


def test_the_runtime_calls_only_the_bookkeeping_the_guard_forwards() -> None:
    from zett_agent._agent import lifecycle
    from zett_agent.extensions.base import AgentExtension

    called = set(re.findall(r"\bextension\.(_[a-z]\w*)\(", inspect.getsource(lifecycle)))
    _check(
        called == set(agent_compat.REQUEST_BOOKKEEPING),
        f"zett-agent's runtime calls {sorted(called)} on every extension, zett's GuardedExtension "
        f"forwards {agent_compat.REQUEST_BOOKKEEPING}: update agent_compat.REQUEST_BOOKKEEPING",
    )
    for method in agent_compat.REQUEST_BOOKKEEPING:
        _check(_signature(getattr(AgentExtension, method)) == ["self", "context"], f"AgentExtension.{method}")


def test_the_upstream_recorder_still_writes_every_line_through_the_method_zett_overrides() -> None:
    from zett_agent.extensions.jsonl import JSONLExtension

    method = getattr(JSONLExtension, agent_compat.RECORDER_WRITE_METHOD, None)
    _check(
        method is not None and _signature(method) == ["self", "path", "line"],
        "JSONLExtension._append_line(path, line) is gone: runtime/recorder.py's override (redaction, "
        "0600 files, a failing disk) would not run and turns would be written unredacted",
    )
    source = inspect.getsource(JSONLExtension)
    # one file opening in the whole class, the one inside _append_line
    writes = source.count(".open(") + source.count(".write_text(") + source.count(".write_bytes(")
    _check(".open(" in inspect.getsource(method), "JSONLExtension._append_line no longer opens the file")
    _check(
        "self._append_line" in source and writes == 1 and "self._write_lock" in source,
        "JSONLExtension writes somewhere else than _append_line (or lost _write_lock): check that "
        "runtime/recorder.py still sees every line it writes",
    )


def test_compaction_still_counts_and_splits_the_way_zett_reports_it() -> None:
    from zett_agent.extensions.compaction import CompactionExtension
    from zett_agent.messages import AssistantMessage, SystemMessage, UserMessage

    _check(
        _signature(CompactionExtension._count_context_tokens) == ["self", "context"],
        "CompactionExtension._count_context_tokens(context) changed: runtime/compaction.py's report",
    )
    messages = [
        SystemMessage(content="rules"),
        UserMessage(content="first " * 50),
        AssistantMessage(content="answer " * 50),
        UserMessage(content="second"),
        AssistantMessage(content="short"),
    ]
    window = agent_compat.compaction_window(
        messages, keep_recent_tokens=5, count_tokens=lambda part: sum(len(str(m.content)) for m in part)
    )
    _check(window is not None, "CompactionExtension._select_compaction_window finds nothing to compact")
    assert window is not None
    instructions, older, recent = window
    _check(
        instructions == messages[:1] and older == messages[1:3] and recent == messages[3:],
        "CompactionExtension._select_compaction_window splits differently: check the compaction report",
    )


def test_the_external_event_helpers_zett_s_dialogs_wait_on() -> None:
    from zett_agent.extensions.external import ExternalEventExtension

    _check(
        _signature(ExternalEventExtension._wait_for_external_event)
        == ["self", "context", "correlation_id", "response_event_name"],
        "ExternalEventExtension._wait_for_external_event changed: the edit approval dialog's wait",
    )
    _check(
        _signature(ExternalEventExtension._take_external_event) == ["self", "context"],
        "ExternalEventExtension._take_external_event changed: the edit approval dialog's answer",
    )
    extension = ExternalEventExtension(response_event_name="x_response", correlation_field="tool_call_id")
    _check(
        isinstance(getattr(extension, "_accepted", None), dict),
        "ExternalEventExtension no longer keeps staged answers in _accepted: agent_compat.ask_the_ui "
        "(the sandbox escape, read access and MCP approval questions) would never see an answer",
    )


def test_the_file_tool_helpers_a_preview_must_agree_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zett_agent.tools import coding
    from zett_agent.tools.coding import FileEdit

    monkeypatch.chdir(tmp_path)
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    _check(
        agent_compat.resolve_tool_path("link/f.txt") == (tmp_path / "real" / "f.txt").resolve(),
        "zett_agent.tools.coding._resolve_file_path no longer resolves a relative path from the cwd",
    )
    (tmp_path / "f.txt").write_text("one two", encoding="utf-8")
    _check(agent_compat.read_working_text(tmp_path / "f.txt") == "one two", "_read_working_text changed")
    _check(
        agent_compat.apply_file_edits("one two", [FileEdit(old_text="one", new_text="1")]) == ("1 two", 1),
        "zett_agent.tools.coding._apply_edits changed: the edit approval preview may differ from the edit",
    )
    source = inspect.getsource(coding)
    for name in ("_resolve_file_path(path)", "_apply_edits(content, edits)", "_read_working_text(target)"):
        _check(name in source, f"the edit tools no longer call {name}: check the edit approval preview")


def test_plan_mode_can_still_be_switched_from_the_ui() -> None:
    from zett_agent.extensions.plan_mode import PlanModeExtension

    plan_mode = PlanModeExtension()
    try:
        sessions = agent_compat.plan_mode_sessions(plan_mode)
    except RuntimeError:
        pytest.fail(
            "PlanModeExtension._active_sessions is gone: Shift+Tab cannot switch Plan Mode", pytrace=False
        )
    sessions.add("s1")
    _check(plan_mode.is_plan_mode("s1"), "PlanModeExtension.is_plan_mode no longer reads _active_sessions")


def test_the_sqlalchemy_storage_is_where_zett_agent_resolves_it_lazily() -> None:
    """A session imports SQLAlchemy only when the history database needs zett-agent's storage
    (``history_open.agent_storage``, in a worker thread): ``zett_agent.storage`` must keep resolving
    ``SQLiteSessionStorage`` from a module of its own, and nothing warms that module at start."""
    from zett_agent.storage import SQLiteSessionStorage

    from zett_tui.ui.speed.deferred_imports import AFTER_FIRST_FRAME

    _check(
        SQLiteSessionStorage.__module__ == agent_compat.LAZY_STORAGE_MODULE,
        f"zett_agent.storage.SQLiteSessionStorage now lives in {SQLiteSessionStorage.__module__}: "
        "update agent_compat.LAZY_STORAGE_MODULE",
    )
    assert not any(name.split(".")[0] in ("sqlalchemy", "aiosqlite") for name in AFTER_FIRST_FRAME)
    assert agent_compat.LAZY_STORAGE_MODULE not in AFTER_FIRST_FRAME


# -- zett-agent objects zett wraps: every method handled on purpose ----------------------------------


def test_every_method_of_the_upstream_storage_is_wrapped_forwarded_or_refused() -> None:
    from zett_agent.extensions.persistence import SessionStorage
    from zett_agent.storage import SQLiteSessionStorage

    from zett_tui.runtime import history_store
    from zett_tui.runtime.history_store import HistoryStore

    public = {name for name in dir(SQLiteSessionStorage) if not name.startswith("_")}
    handled = history_store.WRAPPED | history_store.FORWARDED | history_store.NOT_FORWARDED
    _check(
        public <= handled,
        f"zett-agent's SQLiteSessionStorage has new methods {sorted(public - handled)}: decide for each "
        "in runtime/history_store.py (WRAPPED to redact it, FORWARDED if it only reads, NOT_FORWARDED)",
    )
    protocol = {name for name in dir(SessionStorage) if not name.startswith("_")}
    _check(
        protocol <= history_store.WRAPPED,
        f"SessionStorage methods not wrapped: {protocol - history_store.WRAPPED}",
    )
    assert not hasattr(HistoryStore, "__getattr__"), "HistoryStore must not forward unknown attributes"
    from zett_tui.runtime.history_open import _DeferredDatabase
    from zett_tui.runtime.history_sqlite import HistoryDatabase

    for name in history_store.WRAPPED | history_store.FORWARDED:
        assert name in HistoryStore.__dict__, f"HistoryStore does not define {name}"
        # the stand-in for a database not opened yet is called the same way as the real one
        assert name in _DeferredDatabase.__dict__, f"history_open._DeferredDatabase does not define {name}"
        assert name in HistoryDatabase.__dict__, f"history_sqlite.HistoryDatabase does not define {name}"
    store = HistoryStore(SQLiteSessionStorage.__new__(SQLiteSessionStorage), redact=str)
    for name in history_store.NOT_FORWARDED:
        assert not hasattr(store, name), f"HistoryStore offers {name}, listed as not forwarded"


async def test_the_forwarded_reads_reach_the_database(tmp_path: Path) -> None:
    from zett_agent.messages import UserMessage

    from zett_tui.runtime.history_open import open_history

    extension = await open_history(
        tmp_path / "history.sqlite3", redact=lambda text: text.replace("pw", "[R]")
    )
    store = extension.storage
    try:
        await store.append("s1", "user", UserMessage(content="my pw"))
        _check(await store.count_messages("s1") == 1, "count_messages")
        _check((await store.get_session("s1")) is not None, "get_session")
        _check(len(await store.list_sessions()) == 1, "list_sessions")
        [record] = await store.list_raw_messages("s1")
        assert "pw" not in str(record.message.content)
    finally:
        await extension.close()


def test_every_hook_of_agent_extension_is_forwarded_by_the_guard() -> None:
    from zett_agent.extensions.base import AgentExtension

    from zett_tui.runtime.extensions import guard as extension_guard
    from zett_tui.runtime.extensions.guard import GuardedExtension

    hooks = extension_guard.extension_hooks()
    _check(len(hooks) >= 18, f"AgentExtension has fewer hooks than zett knows: {hooks}")
    _check(
        extension_guard.NOT_FORWARDED == (),
        f"AgentExtension has hooks GuardedExtension cannot forward the generic way: "
        f"{extension_guard.NOT_FORWARDED}; forward them by hand in runtime/extension_guard.py",
    )
    for hook in (*hooks, *agent_compat.REQUEST_BOOKKEEPING):
        assert hook in GuardedExtension.__dict__, f"GuardedExtension does not forward {hook}"
    for hook in set(hooks) - extension_guard.HAND_FORWARDED:
        returns = inspect.signature(getattr(AgentExtension, hook)).return_annotation
        _check(
            returns in ("None", None),
            f"AgentExtension.{hook} returns {returns}: the generic forwarder drops results; forward it by hand",
        )


async def test_the_guard_passes_every_lifecycle_hook_on_and_stops_at_the_first_error() -> None:
    from zett_agent.extensions.base import AgentExtension

    from zett_tui.runtime.extensions import guard as extension_guard
    from zett_tui.runtime.extensions.guard import GuardedExtension

    calls: list[tuple[str, tuple[Any, ...]]] = []

    class Recording(AgentExtension):
        pass

    def recorder(hook: str) -> Any:
        async def record(self: Any, *args: Any) -> None:
            calls.append((hook, args))
            if hook == "on_compact":
                raise ValueError("broken")

        return record

    lifecycle = sorted(set(extension_guard.extension_hooks()) - extension_guard.HAND_FORWARDED)
    for hook in lifecycle:
        setattr(Recording, hook, recorder(hook))
    reports: list[str] = []
    guard = GuardedExtension(Recording(), "probe", reports.append)
    for hook in lifecycle:
        if hook == "on_compact":
            continue
        arguments = [object() for _ in _signature(getattr(AgentExtension, hook))[1:]]
        await getattr(guard, hook)(*arguments)
        assert calls[-1] == (hook, tuple(arguments)), f"GuardedExtension.{hook} did not reach the extension"
    await guard.on_compact(object())  # type: ignore[arg-type]
    assert guard.failure is not None and "on_compact" in guard.failure and len(reports) == 1
    before = len(calls)
    await guard.before_run(object())  # type: ignore[arg-type]
    assert len(calls) == before, "a switched-off extension was called again"


def test_the_guard_keeps_the_inner_extension_s_pending_in_step() -> None:
    from zett_agent.extensions.base import AgentExtension

    from zett_tui.runtime.extensions.guard import GuardedExtension

    inner = AgentExtension()
    guard = GuardedExtension(inner, "probe", lambda text: None)
    context = object()
    for method in agent_compat.REQUEST_BOOKKEEPING[:1]:
        getattr(guard, method)(context)
    assert guard.pending and inner.pending
    for method in agent_compat.REQUEST_BOOKKEEPING[1:]:
        getattr(guard, method)(context)
    assert not guard.pending and not inner.pending


def test_the_protected_path_search_the_policy_cache_watches() -> None:
    """runtime/shell/wrap_ahead.py stamps what zett-agent's _protected_in walks; they must agree."""
    import inspect

    from zett_agent.sandbox import policy

    from zett_tui.runtime.agent_compat import protected_path_scan

    skipped, depth, entries = protected_path_scan()
    assert ".git" in skipped and depth >= 1 and entries >= 1, (
        "check zett_agent.sandbox.policy's search limits"
    )
    source = inspect.getsource(policy._protected_in)
    for name in ("_SKIPPED_DIRECTORIES", "_PROTECTED_SEARCH_DEPTH", "_PROTECTED_SEARCH_ENTRIES"):
        assert name in source, f"_protected_in no longer uses {name}: re-read it and update wrap_ahead.py"


# -- tomlkit ---------------------------------------------------------------------------------------


def test_tomlkit_still_inserts_a_key_at_a_position() -> None:
    """config/tomlkit_compat.insert_at puts a new setting above the next table's comments."""
    import tomlkit
    from tomlkit.container import Container

    from zett_tui.config import tomlkit_compat

    _check(
        _signature(Container._insert_at)[:4] == ["self", "idx", "key", "item"],
        "tomlkit's Container._insert_at(idx, key, item) is gone or changed: check "
        "config/tomlkit_compat.py (new settings would land among the next header's comments)",
    )
    document = tomlkit.parse("[ui]\nbell = true\n\n# next\n[other]\n")
    tomlkit_compat.insert_at(document["ui"].value, 1, "theme", "nord")
    _check(
        tomlkit.dumps(document) == '[ui]\nbell = true\ntheme = "nord"\n\n# next\n[other]\n',
        "tomlkit's Container._insert_at no longer inserts at the index given: check config/tomlkit_compat.py",
    )


async def test_a_finished_session_state_can_be_forgotten() -> None:
    from zett_agent.agent import Agent, AgentRunConfig

    from tests.fakes.scripted_model import ScriptedModel, text_step
    from zett_tui.runtime import agent_compat

    model = ScriptedModel(text_step("one"), text_step("two"))
    agent = await Agent.create(model, config=AgentRunConfig(session_id="main"))
    await agent.run("hi", config=AgentRunConfig(session_id="child"))
    _check(agent.get_state("child") is not None, "Agent.get_state no longer keeps a finished session")
    _check(
        agent_compat.forget_session(agent, "child"),
        "Agent._states/_active_configs/_sessions_lock changed: subagents' states are never dropped",
    )
    _check(agent.get_state("child") is None, "Agent.get_state reads something other than _states")
    await agent.run("again", config=AgentRunConfig(session_id="child"))  # a forgotten session starts fresh


async def test_a_finished_request_s_messages_can_be_let_go_and_the_next_request_restores_them() -> None:
    from zett_agent.agent import Agent, AgentRunConfig

    from tests.fakes.scripted_model import ScriptedModel, text_step
    from zett_tui.runtime import agent_compat

    model = ScriptedModel(text_step("one"), text_step("two"))
    agent = await Agent.create(model, config=AgentRunConfig(session_id="main"))
    await agent.run("hi", config=AgentRunConfig(session_id="main"))
    before = agent.get_state("main")
    _check(before is not None and len(before.messages) > 1, "Agent.get_state no longer keeps the messages")
    phase = before.phase if before is not None else None
    _check(
        agent_compat.release_finished_messages(agent, "main"),
        "Agent._states/_active_configs/_sessions_lock/AgentState changed: check "
        "agent_compat.release_finished_messages (each session keeps its whole dialogue twice)",
    )
    after = agent.get_state("main")
    _check(
        after is not None and after.messages == () and after.phase == phase and agent.state is after,
        "Agent.get_state/Agent.state read something other than what release_finished_messages swaps",
    )
    _check(not agent.is_conflict("main"), "a released session refuses new requests")
    await agent.run("again", config=AgentRunConfig(session_id="main"))
    said = [message.content for message in model.requests[-1].messages if message.role != "system"]
    _check(
        said == ["hi", "one", "again"],
        "a request no longer restores its history through the extensions: release_finished_messages "
        f"would lose the dialogue (the model saw {said!r})",
    )


# -- the openai SDK's resources, imported on demand (zett_tui/providers/sdk_resources.py) ----------

RESOURCES_PROBE = """
import asyncio, json, sys
from zett_tui.providers.build import ModelChoice, build_model
model = build_model(ModelChoice("openai", "gpt-test"), {}, {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": sys.argv[1]})
from zett_agent.messages import UserMessage
from zett_agent.model import ModelRequest
async def ask():
    text = []
    async for event in model.stream(ModelRequest(messages=[UserMessage(content="hi")], tools=[])):
        if event.response is not None:
            text.append(str(event.response.message.content))
    return "".join(text)
async def ask_through_the_sdk():
    stream = await model._client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    text = [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
    await model.aclose()
    return "".join(text)
answer = asyncio.run(ask())
sdk_before = "openai" in sys.modules
sdk_answer = asyncio.run(ask_through_the_sdk())
loaded = sorted(name for name in sys.modules if name.startswith("openai.resources."))
import openai.resources
names = [openai.resources.Chat.__name__, openai.resources.AsyncCompletions.__name__]
print(json.dumps({"answer": answer, "sdk_before": sdk_before, "sdk_answer": sdk_answer, "loaded": loaded, "names": names}))
"""


def test_a_chat_session_imports_only_the_openai_resources_it_uses(llm_server: Any, tmp_path: Path) -> None:
    """zett's own Chat Completions path imports no openai SDK at all; where the SDK client is used
    (the Responses API), it imports each resource on first use, and the package's ``__init__``
    (every resource the SDK has) is not needed for that; a name read from the package still runs it."""
    import json
    import subprocess
    import sys

    from tests.fakes.llm_server import Reply

    llm_server.script(Reply.text("Hello there."), Reply.text("Hello again."))
    result = subprocess.run(
        [sys.executable, "-c", RESOURCES_PROBE, llm_server.openai_base_url],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.splitlines()[-1])
    assert found["answer"] == "Hello there."
    assert found["sdk_before"] is False
    assert found["sdk_answer"] == "Hello again."
    loaded = found["loaded"]
    assert any(name.startswith("openai.resources.chat.") for name in loaded)
    assert not any(
        name.startswith(("openai.resources.admin", "openai.resources.fine_tuning")) for name in loaded
    )
    assert found["names"] == ["Chat", "AsyncCompletions"]


def test_the_tool_builder_still_takes_its_schemas_from_the_functions_zett_shares() -> None:
    from zett_agent.tools import base

    source = inspect.getsource(base._build_agent_tool)
    _check(
        "_build_input_schema(function, documentation)" in source and "_build_return_schema(hints)" in source,
        "_build_agent_tool no longer builds its schemas through _build_input_schema(function, "
        "documentation) and _build_return_schema(hints): agent_compat.share_tool_schemas shares nothing",
    )
    _check(
        _signature(base._build_input_schema) == ["function", "documentation"]
        and _signature(base._build_return_schema) == ["hints"],
        "the schema builders agent_compat.share_tool_schemas wraps changed their parameters",
    )


async def test_a_tool_built_again_per_request_reuses_its_schemas_and_keeps_its_own_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pydantic
    from zett_agent.tools import base

    agent_compat.share_tool_schemas()
    validators: list[str] = []
    create_model = pydantic.create_model

    def counted(name: str, /, **fields: Any) -> Any:
        validators.append(name)
        return create_model(name, **fields)

    monkeypatch.setattr(pydantic, "create_model", counted)

    def per_request(answer: str) -> Any:
        """As zett-agent's extensions build ``ask_user`` for each request: a closure over it."""

        @base.tool(name="probe")
        async def probe(word: str, count: int = 1) -> list[str]:
            """Repeat a word.

            Args:
                word: The word to repeat.
                count: How many times.

            Guidelines:
                - Use it to repeat a word.
            """
            return [answer, word] * count

        return probe

    first, second, third = per_request("one"), per_request("two"), per_request("three")
    assert len(validators) <= 1  # built once in this process (or earlier), not once per request
    assert first.parameters == second.parameters == third.parameters
    assert first.parameters["properties"]["word"]["description"] == "The word to repeat."
    first.parameters["properties"]["word"]["description"] = "changed by one caller"
    assert second.parameters["properties"]["word"]["description"] == "The word to repeat."
    assert first.return_schema == second.return_schema and first.return_schema is not second.return_schema
    assert await first.handler(word="x") == ["one", "x"] and await third.handler(word="y", count=2) == [
        "three",
        "y",
        "three",
        "y",
    ]
    with pytest.raises(pydantic.ValidationError):
        await second.handler(word="x", extra=True)


async def test_a_request_s_first_phase_notice_comes_from_the_task_that_runs_it() -> None:
    """``turn_stop.RunWatch`` takes the task that runs a request from its LOADING_CONTEXT notice.

    Were zett-agent to send that notice from the reader's task (or another), a stopped turn would
    fall back to cancelling the reader, and a run that drops the cancellation would wait out the
    teardown limit: this checks the watch finds a task of its own, alive while the model answers.
    """
    import asyncio

    from tests.fakes.scripted_model import ScriptedModel, text_step
    from zett_tui.runtime.host import AgentHost, HostOptions

    seen: list[tuple[asyncio.Task[Any] | None, bool]] = []
    host: AgentHost | None = None

    def step_seeing_the_watch(request: Any) -> Any:
        assert host is not None
        run = host._run_watch.run_of(host.session_id)
        current = asyncio.current_task()
        seen.append((run.task if run else None, run is not None and run.task is current))
        return text_step("answer")(request)

    model = ScriptedModel(step_seeing_the_watch)
    host = AgentHost(HostOptions(model_factory=lambda: model, model_label="scripted"))
    await host.start()
    reader = asyncio.current_task()
    try:
        await host.run_turn("go", lambda event: None)
    finally:
        await host.aclose()
    [(task, runs_the_model)] = seen
    _check(task is not None, "no task was seen at a request's LOADING_CONTEXT phase notice")
    _check(task is not reader, "the LOADING_CONTEXT notice came from the stream's reader, not the run")
    _check(runs_the_model, "the task at LOADING_CONTEXT is not the one that asks the model")


def test_textual_still_caches_the_ansi_codes_of_styles_in_an_lru_cache() -> None:
    """``ui.speed.drawn_styles`` empties that cache as each turn ends: each transcript line's style
    is its own (its offset), and a full cache held ~8.6 MB of styles drawn long ago."""
    from rich.color import ColorSystem
    from rich.style import Style
    from textual.strip import Strip

    from zett_tui.ui.speed.drawn_styles import drawn_styles_kept, forget_drawn_styles

    render_ansi = Strip.render_ansi
    _check(
        hasattr(render_ansi, "cache_clear") and hasattr(render_ansi, "cache_info"),
        "Strip.render_ansi is no longer an lru_cache: does Textual still keep the codes of every style "
        "drawn? If not, ui.speed.drawn_styles has nothing to do (remove it); if elsewhere, empty that",
    )
    render_ansi(Style(bold=True, meta={"offset": (0, 1)}), ColorSystem.TRUECOLOR)
    _check(drawn_styles_kept() >= 1, "Strip.render_ansi no longer fills its cache")
    forget_drawn_styles()
    _check(drawn_styles_kept() == 0, "emptying Strip.render_ansi's cache left entries in it")


def test_the_history_databases_statements_name_the_upstream_tables_columns() -> None:
    """``runtime/history_sqlite.py`` writes and reads zett-agent's tables itself, and
    ``history_schema`` creates and checks them: a column or index added, renamed or dropped upstream,
    or a change in how metadata is encoded, must be seen there, or its rows would not be what
    zett-agent reads."""
    import zett_agent._sql_storage as upstream
    import zett_agent.storage

    from zett_tui.runtime import history_schema, history_sqlite

    tables = {
        table.name: ({column.name for column in table.columns}, {index.name for index in table.indexes})
        for table in upstream.Base.metadata.sorted_tables
    }
    ours = {name: (set(columns), set(indexes)) for name, (columns, indexes) in history_schema.TABLES.items()}
    _check(tables == ours, f"zett-agent's tables changed ({tables}): update runtime/history_schema.py")
    written = {"id", "sequence", "created_at", "updated_at", "role", "content", "tool_name"}
    raw = {name.strip() for name in history_sqlite._RAW_COLUMNS.split(",")} | written
    snapshot = {name.strip() for name in history_sqlite._SNAPSHOT_COLUMNS.split(",")}
    _check(
        tables["raw_messages"][0] == raw and tables["session_snapshots"][0] == snapshot,
        "raw_messages' or session_snapshots' columns changed upstream: update runtime/history_sqlite.py",
    )
    for value, keys in (
        ({"b": 1, "a": "é", "n": [1.5, None, {"x": True}]}, False),
        (None, True),
        ({" ": 1}, True),
    ):
        args = {"field_name": "Message tags", "nonempty_keys": keys}
        try:
            expected: object = upstream._encode_context_data(value, **args)
        except ValueError as error:
            expected = str(error)
        try:
            got: object = history_sqlite.encode_context(value, **args)
        except ValueError as error:
            got = str(error)
        _check(got == expected, f"_sql_storage._encode_context_data changed: {expected!r}, zett {got!r}")
    for payload in ('{"a": 1}', "[1]", "not json"):
        outcomes = []
        for decode in (upstream._decode_context_data, history_sqlite.decode_context):
            try:
                outcomes.append(decode(payload, field_name="message tags", nonempty_keys=True))
            except ValueError as error:
                outcomes.append(str(error))
        _check(outcomes[0] == outcomes[1], f"_sql_storage._decode_context_data changed: {outcomes}")
    _check(
        zett_agent.storage._DEFAULT_SESSION_TYPE == history_sqlite.DEFAULT_SESSION_TYPE,
        "zett_agent.storage._DEFAULT_SESSION_TYPE changed: update history_sqlite.DEFAULT_SESSION_TYPE",
    )
