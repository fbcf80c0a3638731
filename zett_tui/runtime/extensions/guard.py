"""A user's or a project's extension must not break a turn: its first error switches it off.

``GuardedExtension`` stands in for another extension and delegates every zett-agent hook to it.
The hooks are read from zett-agent's ``AgentExtension`` (:func:`extension_hooks`), so a hook a
later zett-agent adds is forwarded too (or, if it cannot be forwarded the generic way, named by
``tests/test_upstream_contracts.py``).
When a hook raises, the failure is reported once ("extension NAME raised in before_model:
ValueError: ..."), the extension is switched off for the rest of the session, and the turn
carries on as if it had never been there:

- a lifecycle hook (``before_model``, ``after_tool``, ...): the error is dropped;
- ``on_model_request``: when the extension fails before the model answered, the request goes to
  the next layer directly; when it fails in the middle of the answer, the rest of the runtime's
  stream is passed on as it comes (the event it was holding included);
- ``on_tool_call``: raising is also how an extension *refuses* a call on purpose (zett-agent turns
  it into a failed tool result the model reads, and ``plan_guard`` does exactly that). So only
  Python's own bug exceptions (``PROGRAMMING_ERRORS``: ``TypeError``, ``AttributeError``,
  ``KeyError``...) count as a broken extension, which is switched off while the call runs without
  it; any other exception fails that one call, as zett-agent documents.

The runtime's own errors are never swallowed: when ``call_next`` raised, whatever the extension
raises after it goes on up unchanged. ``CancelledError`` and other ``BaseException`` s always go
through. zett's bundled safety extensions are not guarded: if they fail, the call fails closed.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from zett_agent.extensions.base import AgentExtension, ModelRequestNext
from zett_agent.model import ModelEventType

from zett_tui.runtime.agent_compat import REQUEST_BOOKKEEPING

if TYPE_CHECKING:
    from zett_agent.agent import AgentRunConfig, AgentRunContext
    from zett_agent.extensions.external import ExternalEvent
    from zett_agent.messages import ToolCall
    from zett_agent.model import ModelEvent, ModelRequest

log = logging.getLogger(__name__)

#: Exceptions that mean an extension's code is broken, not that it refuses a tool call on purpose.
PROGRAMMING_ERRORS: tuple[type[Exception], ...] = (
    AttributeError,
    NameError,
    TypeError,
    LookupError,
    ArithmeticError,
    AssertionError,
    ImportError,
    RecursionError,
    NotImplementedError,
)

Report = Callable[[str], None]


class GuardedExtension(AgentExtension):
    """Delegates every hook to ``inner``; the first exception is reported and switches it off."""

    def __init__(self, inner: AgentExtension, label: str, report: Report) -> None:
        self.inner = inner
        self.label = label
        self._report = report
        #: "raised in HOOK: Type: message" once it failed; None while it runs.
        self.failure: str | None = None
        self.name = inner.name
        self.priority = inner.priority

    @property
    def active(self) -> bool:
        return self.failure is None

    def _fail(self, hook: str, error: BaseException) -> None:
        if self.failure is not None:
            return
        self.failure = f"raised in {hook}: {type(error).__name__}: {error}"
        log.warning("extension %s %s", self.label, self.failure, exc_info=error)
        self._report(
            f"Extension {self.label} {self.failure}. It is off for the rest of this session; "
            "zett carries on without it."
        )

    async def _call(
        self, hook: str, method: Callable[..., Awaitable[None]], *args: Any, **kwargs: Any
    ) -> None:
        if self.failure is not None:
            return
        try:
            await method(*args, **kwargs)
        except Exception as error:
            self._fail(hook, error)

    # -- lifecycle hooks (``before_model``, ``after_tool``, ...) and the request bookkeeping are
    # -- added below the class, one per hook of zett-agent's ``AgentExtension`` ---------------------

    def accept(self, config: AgentRunConfig | None, event: ExternalEvent) -> bool:
        if self.failure is not None:
            return False
        try:
            return bool(self.inner.accept(config, event))
        except Exception as error:
            self._fail("accept", error)
            return False

    # -- middleware --------------------------------------------------------------------------------

    async def on_tool_call(
        self, context: AgentRunContext, call: ToolCall, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        if self.failure is not None:
            return await call_next()
        downstream = _ToolCallNext(call_next)
        try:
            return await self.inner.on_tool_call(context, call, downstream)
        except Exception as error:
            if downstream.failed or not isinstance(error, PROGRAMMING_ERRORS):
                raise  # the runtime's own error, or a refusal on purpose: the call fails
            self._fail("on_tool_call", error)
            if downstream.done:
                return downstream.result
            return await call_next()

    async def on_model_request(
        self, context: AgentRunContext, request: ModelRequest, call_next: ModelRequestNext
    ) -> AsyncIterator[ModelEvent]:
        if self.failure is not None:
            async for event in _relay_closing(call_next(request)):
                yield event
            return
        downstream = _ModelRequestNext(call_next)
        stream: object = None
        answered = False
        passed_on: object = None
        try:
            try:
                stream = self.inner.on_model_request(context, request, downstream)
                async for event in stream:
                    passed_on = event
                    answered = answered or event.type is ModelEventType.RESPONSE
                    yield event
                return
            except Exception as error:
                if downstream.failed:
                    raise
                self._fail("on_model_request", error)
            finally:
                await _close(stream)
            if answered:
                return
            async for event in downstream.rest(request, passed_on, self.label):
                yield event
        finally:
            await downstream.aclose()


#: Hooks forwarded by hand above, each with a failure rule of its own.
HAND_FORWARDED = frozenset({"accept", "on_tool_call", "on_model_request"})


def extension_hooks() -> tuple[str, ...]:
    """Every hook of zett-agent's ``AgentExtension``: its public methods (properties and plain
    attributes such as ``name``, ``pending`` and ``priority`` are not hooks)."""
    return tuple(
        sorted(
            name
            for name in dir(AgentExtension)
            if not name.startswith("_") and inspect.isfunction(inspect.getattr_static(AgentExtension, name))
        )
    )


def _lifecycle_forwarder(hook: str) -> Callable[..., Awaitable[None]]:
    async def forward(self: GuardedExtension, *args: Any, **kwargs: Any) -> None:
        await self._call(hook, getattr(self.inner, hook), *args, **kwargs)

    forward.__name__ = hook
    forward.__qualname__ = f"GuardedExtension.{hook}"
    forward.__doc__ = f"``inner.{hook}``; its first error switches the extension off."
    return forward


def _bookkeeping_forwarder(method: str) -> Callable[..., None]:
    def forward(self: GuardedExtension, context: AgentRunContext) -> None:
        getattr(super(GuardedExtension, self), method)(context)
        getattr(self.inner, method)(context)  # the inner extension's ``pending`` follows the guard's

    forward.__name__ = method
    forward.__qualname__ = f"GuardedExtension.{method}"
    return forward


def _add_forwarders() -> tuple[str, ...]:
    """Give ``GuardedExtension`` a forwarder for every lifecycle hook; returns the hooks that are
    neither forwarded by hand nor ``async`` (which the generic forwarder cannot take)."""
    left_out = []
    for hook in extension_hooks():
        if hook in HAND_FORWARDED:
            continue
        if inspect.iscoroutinefunction(getattr(AgentExtension, hook)):
            setattr(GuardedExtension, hook, _lifecycle_forwarder(hook))
        else:
            left_out.append(hook)
    for method in REQUEST_BOOKKEEPING:
        setattr(GuardedExtension, method, _bookkeeping_forwarder(method))
    return tuple(left_out)


#: Hooks of ``AgentExtension`` that ``GuardedExtension`` does not forward (the contract test
#: requires this to be empty: a new hook of another kind must be forwarded by hand).
NOT_FORWARDED = _add_forwarders()


class _ToolCallNext:
    """``call_next`` for a tool call, remembering whether the runtime ran it and how it ended."""

    def __init__(self, call_next: Callable[[], Awaitable[Any]]) -> None:
        self._call_next = call_next
        self.done = False
        self.failed = False
        self.result: Any = None

    async def __call__(self) -> Any:
        try:
            self.result = await self._call_next()
        except Exception:
            self.failed = True
            raise
        self.done = True
        return self.result


class _ModelRequestNext:
    """``call_next`` for a model request whose stream can be taken over if the extension fails."""

    def __init__(self, call_next: ModelRequestNext) -> None:
        self._call_next = call_next
        self._source: AsyncIterator[ModelEvent] | None = None
        self._relay: Any = None
        self.started = False
        self.finished = False
        self.closed = False
        self.failed = False
        #: The event the extension took last, until it asks for the next one.
        self.held: ModelEvent | None = None
        #: The runtime's final event, once it came.
        self.response: ModelEvent | None = None

    def __call__(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self._source = self._call_next(request)
        self._relay = self._events(self._source)
        return self._relay

    async def _events(self, source: AsyncIterator[ModelEvent]) -> AsyncIterator[ModelEvent]:
        self.started = True
        try:
            while True:
                try:
                    event = await anext(source)
                except StopAsyncIteration:
                    self.finished = True
                    return
                except Exception:
                    self.failed = True
                    raise
                self.held = event
                if event.type is ModelEventType.RESPONSE:
                    self.response = event
                yield event
                self.held = None  # asked for the next one: that event was dealt with
        finally:
            self.closed = not self.finished
            await _close(source)

    async def rest(self, request: ModelRequest, passed_on: object, label: str) -> AsyncIterator[ModelEvent]:
        """What the runtime still has to say after the extension failed."""
        if self._relay is None or not self.started:
            await self.aclose()  # never iterated: nothing reached the provider yet
            async for event in _relay_closing(self._call_next(request)):
                yield event
            return
        pending = self.held if self.held is not None and self.held is not passed_on else None
        if pending is None and self.finished and self.response is not None:
            pending = self.response  # the extension kept the answer back: the runtime needs it
        if pending is not None:
            yield pending
        if self.finished:
            return
        if self.closed:
            raise RuntimeError(f"extension {label} failed in the middle of a model response and closed it")
        async for event in self._relay:
            yield event

    async def aclose(self) -> None:
        if self._relay is not None:
            await _close(self._relay)
        if self._source is not None and not self.started:
            await _close(self._source)


async def _relay_closing(stream: AsyncIterator[ModelEvent]) -> AsyncIterator[ModelEvent]:
    try:
        async for event in stream:
            yield event
    finally:
        await _close(stream)


async def _close(stream: object) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
