"""Every private part of Textual that zett uses, in one place, each behind a named function.

Textual is pinned to the minor version tested (``pyproject.toml``); its private names may change in
any release. Nothing else in zett imports an underscore module of ``textual`` or reaches into an
underscore attribute of a Textual object: it calls a function here. Each docstring says what it
touches upstream and what to check on an upgrade, and ``tests/test_upstream_contracts.py`` fails,
saying what to check, when an upgrade changes one.

Where zett *overrides* a private method (Textual calls it, so the override must keep its name),
the name is a constant here and the test checks that Textual still calls it:
:data:`HANDLE_EXCEPTION_METHOD` (``ZettApp``), :data:`TEXT_AREA_KEY_METHOD` (``Composer``),
:data:`HELD_FRAME_METHOD` (``ChatScreen``), :data:`DRIVER_POST_METHOD`,
:data:`FRAME_WRITTEN_METHOD` and :data:`NODES_REMOVED_METHOD` (``ZettApp``).

A fallback here keeps zett working on a Textual without the private part, the slower or plainer
way, and logs once that it did: the contract test is what makes such a change loud.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any, cast

# A screen's compositor and the updates it renders for the terminal (``ui/speed/terminal_scroll``
# subclasses them to start an update with a scroll of the terminal's rows, ``ui/speed/shown_rows``
# to leave out what the terminal shows as it is). On an upgrade: check
# ``Screen._compositor_refresh`` still writes ``Compositor.render_update()``'s result (``None``, a
# ``ChopsUpdate`` or a ``LayoutUpdate``) through ``CompositorUpdate.render_segments``, and that
# only a screenshot asks it for ``full=True``.
from textual._compositor import ChopsUpdate as ChopsUpdate
from textual._compositor import Compositor as Compositor
from textual._compositor import CompositorUpdate as CompositorUpdate
from textual._compositor import LayoutUpdate as LayoutUpdate

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from textual.app import App
    from textual.binding import Binding
    from textual.driver import Driver
    from textual.geometry import Region, Size
    from textual.message import Message
    from textual.screen import Screen
    from textual.scrollbar import ScrollBar
    from textual.strip import Strip
    from textual.widget import Widget
    from textual.widgets import TextArea

log = logging.getLogger(__name__)

#: ``App._handle_exception(error)``: what Textual calls with an unhandled exception; its own
#: version prints a traceback (with the locals: prompts, keys) to the terminal. ``ZettApp``
#: replaces it without calling it. On an upgrade: diff the new ``App._handle_exception`` against
#: :func:`keep_exception_for_tests` and :func:`discard_exit_output`, and copy what else it does.
HANDLE_EXCEPTION_METHOD = "_handle_exception"

#: ``TextArea._on_key(event)``: where TextArea turns a key into an edit. ``Composer`` overrides it
#: (and calls it) to take Enter, Up/Down and the menu keys first. On an upgrade: check TextArea
#: still handles keys there and that ``event.prevent_default()`` still stops its edit.
TEXT_AREA_KEY_METHOD = "_on_key"

#: ``Screen._on_timer_update()``: the update timer's tick, which pauses the timer and draws what
#: changed. ``ChatScreen`` overrides it to skip a tick while a typed key is on its way to the prompt
#: (``speed/keys_first``), and calls it otherwise. On an upgrade: check the tick still pauses the
#: timer itself (skipping it must leave the timer running, so the next tick draws).
HELD_FRAME_METHOD = "_on_timer_update"

#: ``MessagePump._post_message(message)``: the coroutine a terminal driver makes in its input thread
#: for each event and runs on the loop (``run_coroutine_threadsafe``). ``ZettApp`` overrides it
#: with a plain method that counts a key there and returns the coroutine. On an upgrade: check the
#: drivers still call it so.
DRIVER_POST_METHOD = "_post_message"

#: ``App._display(screen, renderable)``: writes a frame the screen rendered to the terminal (a
#: screen's update timer and ``paint_now`` both end there). ``ZettApp`` overrides it (and calls
#: it) to read where the prompt's next character goes (``speed/predicted_echo``). On an upgrade:
#: check every frame is still written through it, after the compositor's update.
FRAME_WRITTEN_METHOD = "_display"

#: ``App._prune(*nodes, parent)``: removes widgets or screens, then (``post_mount``) brings the
#: pointer's hover up to date and lays out and repaints ``parent`` whole: for a screen, the app,
#: whose current screen was drawn whole again twice at every dialog's close. ``ZettApp``
#: overrides it (and calls it) to prune a screen with no parent to repaint; the hover is brought
#: up to date after every frame anyway (``Screen._compositor_refresh``). On an upgrade: check
#: ``Widget.remove`` still prunes through it with ``parent=self._parent``, and what ``post_mount``
#: does besides the two.
NODES_REMOVED_METHOD = "_prune"

_warned: set[str] = set()
_MISSING = object()


def _warn_once(what: str) -> None:
    if what not in _warned:
        _warned.add(what)
        log.warning("this Textual has no %s; zett uses the ordinary way (see ui/textual_compat.py)", what)


# -- the app ---------------------------------------------------------------------------------------


def keep_exception_for_tests(app: App[Any], error: Exception) -> None:
    """Remember the first unhandled exception the way Textual's own handler does, so that
    ``App.run_test`` re-raises it in tests.

    Touches ``App._exception`` and ``App._exception_event`` (what ``run_test`` waits on and
    re-raises). On an upgrade: check ``App._handle_exception`` still sets both.
    """
    if app._exception is None:
        app._exception = error
        app._exception_event.set()


def discard_exit_output(app: App[Any]) -> None:
    """Drop what Textual would print to the terminal after the app exits (a traceback, ...).

    Touches ``App._exit_renderables``. On an upgrade: check ``App._print_error_renderables`` still
    prints exactly that list.
    """
    app._exit_renderables.clear()


def remember_copied_text(app: App[Any], text: str) -> None:
    """Set Textual's own paste buffer (``App.clipboard``, read by TextArea's paste) to ``text``,
    as Textual's ``copy_to_clipboard`` does before it writes its escape sequence.

    Touches ``App._clipboard``. On an upgrade: check ``App.clipboard`` still returns it.
    """
    app._clipboard = text


def terminal_driver(app: App[Any]) -> Driver | None:
    """The app's terminal driver (None before it starts and after it stops), whose ``write`` is
    safe from a thread.

    Touches ``App._driver``. On an upgrade: check the attribute and that ``Driver.write`` still
    queues whole writes for the writer thread.
    """
    return app._driver


def frame_reaches_terminal(app: App[Any]) -> bool:
    """Whether a frame the app displays now is written to the terminal (``App._display`` writes
    only while the app runs and no batch of updates is open, with a driver). Headless (tests,
    benchmarks), where it would have been: what they measure is what a terminal is sent.

    Touches ``App._batch_count``, ``App._running``, ``App._closed`` and ``App._driver``. On an
    upgrade: diff ``App._display``'s conditions against these."""
    return not app._batch_count and app._running and not app._closed and app._driver is not None


def stop_reading_terminal(app: App[Any]) -> None:
    """Tell the terminal driver's input threads to stop, for a terminal that is gone: on a hung-up
    terminal they read end-of-file in a loop that never waits. The driver's own stop then skips
    what needs the terminal (joining them, switching mouse reports off).

    Touches ``LinuxDriver.exit_event`` (the event its input loop checks and ``disable_input``
    sets). On an upgrade: check ``run_input_thread`` still loops ``while not exit_event.is_set()``.
    """
    event = getattr(app._driver, "exit_event", None)
    if event is not None:
        event.set()


def select_theme_before_start(app: App[Any], name: str) -> None:
    """Select a theme before the app runs, without the re-parse of every stylesheet that the
    theme watcher schedules (~15 ms before the first frame): what the watcher does, minus that.

    Touches ``App._refresh_truecolor_filter`` and copies ``App._watch_theme`` (the classes it
    sets). On an upgrade: diff ``_watch_theme``: anything new it does must be done here too. A
    Textual without ``_refresh_truecolor_filter``: the ordinary (slower) way.
    """
    from textual.app import App

    refresh_filter = getattr(app, "_refresh_truecolor_filter", None)
    if refresh_filter is None:
        _warn_once("App._refresh_truecolor_filter")
        app.theme = name
        return
    app.set_reactive(App.theme, name)
    theme = app.current_theme
    app.set_class(True, f"-theme-{name}", update=False)
    app.set_class(theme.dark, "-dark-mode", update=False)
    app.set_class(not theme.dark, "-light-mode", update=False)
    refresh_filter(app.ansi_theme)
    app.stylesheet.set_variables(app.get_css_variables())


# -- screens and widgets ---------------------------------------------------------------------------


def redraw_period() -> float:
    """Seconds between two redraws of a screen at most (``1 / TEXTUAL_FPS``).

    Touches the module constant ``textual.screen.UPDATE_PERIOD``. On an upgrade: check that a
    screen still reads it when it makes its update timer.
    """
    import textual.screen

    period: float = textual.screen.UPDATE_PERIOD
    return period


def set_redraw_period(seconds: float) -> None:
    """Redraw screens made from now on at most every ``seconds`` (see :func:`redraw_period`)."""
    import textual.screen

    setattr(textual.screen, "UPDATE_PERIOD", seconds)  # noqa: B010  (a Final constant upstream)


def set_virtual_size_quietly(widget: Widget, size: Size) -> None:
    """Give a scrolling widget a new virtual size and update its scrollbars, without the layout of
    the whole screen that assigning ``virtual_size`` asks for (and its second frame).

    Touches ``Widget._scroll_update(virtual_size)``, which is what a ``ScrollView`` runs after a
    layout. On an upgrade: check it still updates the scrollbars for a new virtual size. A Textual
    without it: the assignment (a layout pass).
    """
    from textual.widget import Widget

    scroll_update = getattr(widget, "_scroll_update", None)
    if scroll_update is None:
        _warn_once("Widget._scroll_update")
        widget.virtual_size = size
        return
    widget.set_reactive(Widget.virtual_size, size)
    scroll_update(size)


def text_area_lines(text_area: TextArea, crop: Region) -> list[Strip]:
    """``TextArea.render_lines`` without its first step, ``self._theme.apply_css(self)`` (the caller
    applied it when it was due, ``ui/speed/theme_css``): what follows that step is its
    ``super().render_lines(crop)``. On an upgrade: check ``TextArea.render_lines`` still does only
    that (its source is pinned in ``tests/test_upstream_contracts.py``)."""
    from textual.widgets import TextArea

    return super(TextArea, text_area).render_lines(crop)


def styles_version(widget: Widget) -> int:
    """A number that changes whenever ``widget``'s own styles change, CSS rules or inline
    (``RenderStyles._cache_key``, Textual's own key for what it derives from them)."""
    return cast("int", widget.styles._cache_key)


def own_bindings(widget: Widget, key: str) -> Iterable[Binding]:
    """The bindings ``widget`` itself declares for ``key`` (not its screen's or the app's).

    Touches ``DOMNode._bindings`` (a ``BindingsMap``) and its ``key_to_bindings``. On an upgrade:
    check both, and that ``App.run_action(binding.action, widget)`` still runs one.
    """
    bindings: Iterable[Binding] = widget._bindings.key_to_bindings.get(key, ())
    return bindings


# -- terminal input --------------------------------------------------------------------------------


def parse_terminal_input(text: str) -> list[Message] | None:
    """``text`` as the events Textual's terminal parser makes of it (keys, pastes, ...), so replayed
    keys mean exactly what typed keys mean; None when the parser cannot be found.

    Touches ``textual._xterm_parser.XTermParser`` and its ``feed``. On an upgrade: check the module,
    and that ``feed("")`` still flushes what is pending (a lone Escape).
    """
    try:
        from textual._xterm_parser import XTermParser
    except ImportError:
        _warn_once("textual._xterm_parser")
        return None
    parser = XTermParser()
    return [*parser.feed(text), *parser.feed("")]


def keep_terminal_replies_out_of_input() -> None:
    """Make Textual's terminal driver drop the terminal's answers to questions (device attributes,
    colours, DCS) before its parser turns them into typed keys (``zett_tui.terminal.replies``).

    Touches ``textual.drivers.linux_driver.XTermParser`` (the name the driver's input thread makes
    its parser from) and ``XTermParser.feed``. On an upgrade: check the driver still makes its
    parser from that module-level name and feeds it every read, with ``feed("")`` at the end.
    """
    try:
        from textual._xterm_parser import XTermParser
        from textual.drivers import linux_driver
    except ImportError:  # not on a POSIX terminal (or the parser moved): nothing to filter here
        _warn_once("textual.drivers.linux_driver.XTermParser")
        return
    if getattr(linux_driver, "XTermParser", None) is not XTermParser:
        return  # done already (or replaced by someone else: leave it)
    from zett_tui.terminal.replies import ReplyFilter

    class ReplyFilteringParser(XTermParser):
        """Textual's parser, fed only what is input (the terminal's answers are taken out)."""

        def __init__(self, debug: bool = False) -> None:
            super().__init__(debug)
            self._replies = ReplyFilter()

        def feed(self, data: str) -> Iterable[Message]:
            if not data:  # the end of input: what was held back goes through as it came
                held = self._replies.flush()
                return [*super().feed(held), *super().feed("")] if held else super().feed("")
            kept = self._replies.feed(data)
            return super().feed(kept) if kept else ()

    linux_driver.XTermParser = ReplyFilteringParser  # type: ignore[misc]


def write_at_once_from_threads() -> None:
    """Make Textual's terminal driver write through ``ui.speed.immediate_writer.ImmediateWriter``,
    which the input thread can write through at once (``written_at_once``).

    Touches ``textual.drivers.linux_driver.WriterThread`` (the name the driver makes its writer
    thread from when it starts). On an upgrade: check it still does, and that the thread still
    writes its queue's texts to ``_file`` in ``run``.
    """
    try:
        from textual.drivers import linux_driver
        from textual.drivers._writer_thread import WriterThread
    except ImportError:  # not on a POSIX terminal (or the writer moved): queued writes only
        _warn_once("textual.drivers.linux_driver.WriterThread")
        return
    if getattr(linux_driver, "WriterThread", None) is not WriterThread:
        return  # done already (or replaced by someone else: leave it)
    from zett_tui.ui.speed.immediate_writer import ImmediateWriter

    linux_driver.WriterThread = ImmediateWriter  # type: ignore[misc]


def written_at_once(driver: Driver, text: str) -> bool:
    """Write ``text`` to the terminal from this thread now, if ``driver``'s writer has nothing
    queued or being written (``ImmediateWriter.write_now``); False: nothing written.

    Touches ``LinuxDriver._writer_thread`` (None once the driver stops).
    """
    writer = getattr(driver, "_writer_thread", None)
    write_now = getattr(writer, "write_now", None)
    return bool(write_now(text)) if write_now is not None else False


# -- keys, in the order they arrived ----------------------------------------------------------------


async def run_key_bindings(screen: Screen[Any], key: str, *, priority: bool) -> bool:
    """Run the binding for ``key`` the way Textual does when the key comes back up to the app
    (priority ones from the app down, the others from the focused widget up), but on ``screen``
    (the focused widget's own screen, not whichever screen is on top), now. True when one ran.

    Copies ``App._check_bindings`` and touches ``Screen._binding_chain`` and
    ``Screen._modal_binding_chain``. On an upgrade: diff ``App._check_bindings`` against this.
    """
    chain = reversed(screen._binding_chain) if priority else screen._modal_binding_chain
    app = screen.app
    for namespace, bindings in chain:
        for binding in bindings.key_to_bindings.get(key, ()):
            if binding.priority == priority and await app.run_action(binding.action, namespace):
                return True
    return False


def forward_input(widget: Widget, event: Message) -> None:
    """Hand an input event read by the app to ``widget``, as Textual hands one to the focused widget.

    Touches ``Widget._forward_event`` (it marks the event forwarded, so the app does not take it as
    new input when it bubbles back up). On an upgrade: check ``App.on_event`` still forwards so.
    """
    widget._forward_event(event)  # type: ignore[arg-type]


def default_prevented(event: Message) -> bool:
    """Whether a handler called ``event.prevent_default()`` (TextArea does when it types a key).

    Touches ``Message._no_default_action``. On an upgrade: check ``prevent_default`` sets it.
    """
    prevented: bool = event._no_default_action
    return prevented


def screen_compositor(screen: Screen) -> Compositor:
    """``screen``'s compositor (``Screen._compositor``: what lays out and renders its widgets)."""
    compositor: Compositor = screen._compositor
    return compositor


def install_compositor(screen: Screen, compositor: Compositor) -> None:
    """Give ``screen`` (just made, nothing laid out yet) ``compositor`` instead of its own.

    Touches ``Screen._compositor``, which ``Screen.__init__`` sets and everything else reads."""
    screen._compositor = compositor


def shift_rendered_rows(widget: Widget, shift: int, rows: range, *, render_again: Iterable[int] = ()) -> None:
    """The terminal moved ``widget``'s ``rows`` up by ``shift`` (down when negative): the rows it
    rendered there (``Widget._styles_cache``, keyed by row) are now ``shift`` rows higher, so keep
    each one where it went instead of rendering them all again at the next frame, which renders the
    whole widget (``Compositor._get_renders``). Rows of ``rows`` brought in have nothing kept and
    are rendered; rows outside ``rows`` stay as they were; ``render_again``: rows to render again
    without repainting them (what they show on the terminal is right; what they carry is not).

    Touches ``StylesCache._cache`` (row -> strip) and ``_dirty_lines`` (rows to render again)."""
    cache = widget._styles_cache
    kept: dict[int, Strip] = {}
    for row, strip in cache._cache.items():
        if row not in rows:
            kept[row] = strip
        elif (row - shift) in rows:
            kept[row - shift] = strip
    cache._cache = kept
    dirty = cache._dirty_lines
    moved = {row - shift for row in dirty if row in rows and (row - shift) in rows}
    dirty |= moved  # rows asked for before the move: rendered again where they were and went
    dirty.update(render_again)


def move_waiting_repaints(widget: Widget, shift: int) -> None:
    """The terminal is to move ``widget``'s rows up by ``shift`` (down when negative) before the
    next frame draws the rows that wait to be repainted (``Widget._repaint_regions``, kept relative
    to the widget and placed on screen only when that frame is drawn): what waits to be replaced
    will then be ``shift`` rows higher, so the rows there wait too. The rows first asked for stay
    asked for (they will show other lines, which drawing again shows right)."""
    waiting = widget._repaint_regions
    if not waiting:
        return
    outer = widget.outer_size.region
    moved = {moved for region in waiting if (moved := region.translate((0, -shift)).intersection(outer))}
    waiting.update(moved)


def own_vertical_scrollbar(widget: Widget, make: Callable[[], ScrollBar]) -> ScrollBar:
    """``widget``'s vertical scrollbar, created by ``make`` the first time (Textual creates a plain
    ``ScrollBar``); for a ``vertical_scrollbar`` property that overrides Textual's.

    Touches ``Widget._vertical_scrollbar`` (where the property keeps it) and ``App._start_widget``
    (how Textual mounts a scrollbar), as ``Widget.vertical_scrollbar`` does. On an upgrade: diff that
    property against this function. A Textual without them: Textual's own scrollbar.
    """
    existing = getattr(widget, "_vertical_scrollbar", _MISSING)
    start = getattr(widget.app, "_start_widget", None)
    if existing is _MISSING or start is None:
        _warn_once("Widget._vertical_scrollbar")
        from textual.widget import Widget as _Widget

        return _Widget.vertical_scrollbar.fget(widget)  # type: ignore[attr-defined]
    if existing is not None:
        return cast("ScrollBar", existing)
    bar = make()
    bar.display = False
    widget._vertical_scrollbar = bar
    start(widget, bar)
    return bar


def paint_now(widget: Widget) -> bool:
    """Draw ``widget``'s pending repaint on the terminal now, as the screen's update timer would at
    its next tick, and nothing else; True when drawn. False (nothing touched: the timer draws it as before) when the
    change needs more than a repaint of the widget (a layout, a scroll, a style or screen refresh),
    when its screen is not the one shown, or while the app batches updates.

    Touches ``Widget._repaint_required`` / ``_layout_required`` / ``_scroll_required`` /
    ``_refresh_styles_required`` / ``_recompose_required`` (what ``Widget._check_refresh`` reads
    before it posts ``messages.Update``), ``Screen._dirty_widgets``, ``Screen._layout_required`` /
    ``_scroll_required`` / ``_repaint_required`` / ``_recompose_required``, ``App._batch_count``
    and ``Screen._compositor`` / ``Screen._compositor_refresh`` (what ``Screen._on_timer_update``
    runs for dirty widgets). On an upgrade: diff ``Screen._on_timer_update`` and
    ``Widget._check_refresh`` against this. A Textual without one of them: False.
    """
    try:
        screen = widget.screen
        app = widget.app
        if app.screen is not screen or app._batch_count or not widget._repaint_required:
            return False
        if (
            widget._layout_required
            or widget._scroll_required
            or widget._refresh_styles_required
            or widget._recompose_required
            or screen._layout_required
            or screen._scroll_required
            or screen._repaint_required
            or screen._recompose_required
            or not widget.display
        ):
            return False
        dirty = screen._dirty_widgets
        update_widgets = screen._compositor.update_widgets
        refresh = screen._compositor_refresh
    except AttributeError:
        _warn_once("Screen._compositor_refresh (a key's echo waits for the next frame)")
        return False
    except Exception:  # no screen (not mounted, or the app is closing): nothing to draw on
        return False
    # Only this widget's region: the others waiting for the timer (the transcript's rows, say)
    # stay dirty, and the timer draws them at its own pace.
    others = dirty - {widget}
    widget._repaint_required = False
    update_widgets({widget})
    with _rendering_alone(screen._compositor, widget):
        refresh()
    dirty |= others
    return True


@contextlib.contextmanager
def _rendering_alone(compositor: Any, widget: Widget) -> Iterator[None]:
    """While drawing ``widget``'s region, have the compositor render ``widget`` only.

    A partial update renders, whole, every widget whose clip meets the region drawn
    (``Compositor._get_renders``), and keeps only the rows drawn: for the prompt's echo that was the
    whole transcript, its scrollbar and the status line, ~1.5 of the echo's ~2.5 ms while an answer
    streams (``benchmarks/bench_stream_hops.py``). When nothing is in front of ``widget`` and every
    region waiting to be drawn is inside it, the update holds its rows alone, so only it is rendered
    (``Compositor._visible_widgets``, the cache ``visible_widgets`` returns, is swapped for the
    draw). Otherwise the draw is left as it was.
    """
    try:
        visible = compositor.visible_widgets
        placed = visible.get(widget)
        alone = placed is not None and all(
            placed[0].contains_region(region) for region in compositor._dirty_regions
        )
        for other, (region, _clip) in visible.items():
            if not alone or other is widget:
                break
            alone = not region.overlaps(placed[0])  # in front of the widget (render order)
        everyone = compositor._visible_widgets
    except (AttributeError, TypeError):
        yield
        return
    if not alone or everyone is not visible:
        yield
        return
    compositor._visible_widgets = {widget: placed}
    try:
        yield
    finally:
        compositor._visible_widgets = everyone
