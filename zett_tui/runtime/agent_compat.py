"""Every private part of zett-agent that zett uses, in one place, each behind a named function.

zett-agent is pinned to the minor version tested (``pyproject.toml``); its private names may change
in any release. Nothing else in zett imports an underscore name from ``zett_agent`` or reaches into
an underscore attribute of one of its objects: it calls a function here. Each function's docstring
says what it touches upstream and what to check on an upgrade, and
``tests/test_upstream_contracts.py`` fails, saying what to check, when an upgrade changes one.

The two cases that cannot be a function call are named here too, as constants the callers use:
methods zett *overrides* because the runtime calls them (:data:`CHAT_MESSAGES_METHOD`,
:data:`REQUEST_BOOKKEEPING`, :data:`RECORDER_WRITE_METHOD`).

No Textual, and no zett-agent import at module level: the UI imports this before the first frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zett_agent.agent import AgentRunContext
    from zett_agent.extensions.external import ExternalEvent, ExternalEventExtension
    from zett_agent.extensions.plan_mode import PlanModeExtension
    from zett_agent.messages import AnyMessage, ToolCall
    from zett_agent.model import ModelRequest
    from zett_agent.tools.coding import FileEdit

#: The module that ``zett_agent.storage`` resolves ``SQLiteSessionStorage`` from, lazily (SQLAlchemy):
#: a session imports it only when the history database needs zett-agent's storage (``history_open.
#: agent_storage``). On an upgrade: check that ``zett_agent.storage.SQLiteSessionStorage.__module__``
#: is still this.
LAZY_STORAGE_MODULE = "zett_agent._sql_storage"

#: ``OpenAICompatibleProvider._messages(request)``: renders the Chat Completions messages, and its
#: result goes through the openai SDK's transform (``_open_chat`` puts it under ``"messages"``).
#: ``runtime/plain_messages.py`` overrides it to send the messages in ``extra_body`` instead.
#: On an upgrade: check that ``_open_chat`` still calls ``self._messages(request)`` for the body's
#: ``"messages"`` and merges ``request_fields`` into ``extra_body``.
CHAT_MESSAGES_METHOD = "_messages"

#: What the runtime calls on every registered extension as a request starts and ends (it drives
#: ``AgentExtension.pending``). ``GuardedExtension`` forwards them to the extension it guards.
#: On an upgrade: check ``zett_agent/_agent/lifecycle.py`` for the private methods it calls on each
#: ``extension``.
REQUEST_BOOKKEEPING = ("_request_started", "_request_finished")

#: ``JSONLExtension._append_line(path, line)``: the one place the upstream recorder writes a line,
#: under ``self._write_lock``. ``runtime/recorder.py`` overrides it to redact, create 0600 files and
#: survive a failing disk; if upstream stopped calling it, turns would be written unredacted.
#: On an upgrade: check that ``JSONLExtension`` still writes every line through this method.
RECORDER_WRITE_METHOD = "_append_line"


#: ``OpenAICompatibleProvider._stream_chat(request)``: the Chat Completions stream loop.
#: ``providers/plain_messages.py`` overrides it with ``providers/chat_stream.stream_chat``, which
#: calls :data:`CHAT_OPEN_METHOD` and :data:`CHAT_REFUSED_METHOD` itself. On an upgrade: check
#: that ``stream`` still dispatches to ``_stream_chat`` when ``response`` is off.
CHAT_STREAM_METHOD = "_stream_chat"
#: ``OpenAICompatibleProvider._open_chat(request)``: sends the request through the SDK and returns
#: its ``AsyncStream`` (with ``.response``, the httpx response whose body is not read yet).
CHAT_OPEN_METHOD = "_open_chat"
#: ``OpenAICompatibleProvider._refused(ProviderRefusalError)``: the completed event of a refused request.
CHAT_REFUSED_METHOD = "_refused"
#: ``AnthropicCompatibleProvider._messages(request)``: ``(messages, system)`` as sent;
#: ``providers/messages_stream.py`` overrides it to leave out the blocks the API refuses.
MESSAGES_RENDER_METHOD = "_messages"
#: ``AnthropicCompatibleProvider._open(request)``: the SDK's ``AsyncStream`` of a Messages request.
MESSAGES_OPEN_METHOD = "_open"
#: ``AnthropicCompatibleProvider._read_event(turn, data)``: applies one event (a dict) to the turn
#: state of :func:`messages_turn` and returns the model events it produces.
MESSAGES_READ_EVENT_METHOD = "_read_event"


def messages_turn() -> Any:
    """A fresh ``zett_agent.providers.anthropic_compatible._Turn``: what has arrived of one Messages
    response (``text``, ``reasoning``, ``finish_reason``, ``stop_details``, ``usage``, ``streams``,
    ``replay``). On an upgrade: check those attributes and :data:`MESSAGES_READ_EVENT_METHOD`.
    """
    from zett_agent.providers.anthropic_compatible import _Turn

    return _Turn()


def messages_tool_input(arguments: str, index: int) -> Any:
    """A tool call's input for its replay block, ``{}`` when the streamed JSON is unusable.

    Touches ``zett_agent.providers.anthropic_compatible._lenient_arguments``.
    """
    from zett_agent.providers.anthropic_compatible import _lenient_arguments

    return _lenient_arguments(arguments, index)


def rendered_chat_messages(provider: Any, request: ModelRequest, *, above: type) -> Any:
    """zett-agent's own rendering of ``request``'s messages for Chat Completions: the
    :data:`CHAT_MESSAGES_METHOD` of the class after ``above`` in ``provider``'s MRO (the one a
    subclass overriding it would reach with ``super()``). None when zett-agent has no such method.

    Touches ``OpenAICompatibleProvider._messages``. On an upgrade: check that it still takes the
    request and returns the list of JSON messages ``_open_chat`` sends.
    """
    render = getattr(super(above, provider), CHAT_MESSAGES_METHOD, None)
    return None if render is None else render(request)


def context_tokens(compaction: Any, context: AgentRunContext) -> int:
    """The tokens ``compaction`` (a ``CompactionExtension``) counts for ``context`` when it decides
    whether to compact (the last reported usage plus an estimate of what came after).

    Touches ``CompactionExtension._count_context_tokens(context)``. On an upgrade: check that
    ``compact`` still compares this count with ``max_tokens``.
    """
    count: int = compaction._count_context_tokens(context)
    return count


def compaction_window(
    messages: Sequence[AnyMessage], *, keep_recent_tokens: int, count_tokens: Callable[[Sequence[Any]], int]
) -> tuple[list[Any], list[Any], list[Any]] | None:
    """What a compaction pass would do with ``messages``: ``(instructions, older, recent)``, the
    older part being summarized; None when there is nothing safe to compact.

    Touches the static ``CompactionExtension._select_compaction_window``. On an upgrade: check its
    keyword arguments and that ``compact`` still summarizes the middle part it returns.
    """
    from zett_agent.extensions.compaction import CompactionExtension

    window: tuple[list[Any], list[Any], list[Any]] | None = CompactionExtension._select_compaction_window(
        messages, keep_recent_tokens=keep_recent_tokens, count_tokens=count_tokens
    )
    return window


def wait_for_external_event(
    extension: ExternalEventExtension, context: AgentRunContext, correlation_id: str
) -> AbstractAsyncContextManager[None]:
    """``async with`` it around emitting the event that asks the UI; on exit it has waited for the
    UI's answer (correlated by ``correlation_id``) and staged it for :func:`take_external_event`.

    Touches ``ExternalEventExtension._wait_for_external_event`` (documented for subclasses, but
    private by name). On an upgrade: check its signature and that it still stages the response.
    """
    return extension._wait_for_external_event(context, correlation_id)


async def ask_the_ui(
    extension: ExternalEventExtension,
    context: AgentRunContext,
    call: ToolCall,
    event_name: str,
    payload: dict[str, Any],
    *,
    correlation_id: str | None = None,
) -> dict[str, Any]:
    """Emit ``event_name`` (a custom event carrying ``payload``) for ``call`` and wait for the UI's
    answer; its payload, or ``{}`` when none was staged (callers treat that as a no).

    The question shape the shell's sandbox escape, the read gate and MCP approvals share. Touches
    ``ExternalEventExtension._accepted`` as well as :func:`wait_for_external_event`: on an upgrade,
    check that the staged answers are still kept there, keyed by ``(context, correlation id)``.
    """
    from zett_agent.events import AgentEvent, AgentEventType

    key = correlation_id or call.id
    async with wait_for_external_event(extension, context, key):
        await context.emit(
            AgentEvent(
                AgentEventType.CUSTOM,
                session_id=context.session_id,
                tool_calls=[call],
                name=event_name,
                payload=payload,
            )
        )
    response = extension._accepted.pop((context, key), None)
    return dict(response.payload) if response is not None else {}


def take_external_event(extension: ExternalEventExtension, context: AgentRunContext) -> ExternalEvent:
    """The answer staged by :func:`wait_for_external_event`, once.

    Touches ``ExternalEventExtension._take_external_event``. On an upgrade: check it still pops the
    response of the current tool call and raises ``RuntimeError`` when there is none.
    """
    return extension._take_external_event(context)


def resolve_tool_path(path: str) -> Path:
    """The absolute, resolved path zett-agent's file tools act on for ``path`` (relative to the
    current folder), so a check decides about the very file the tool will touch.

    Touches ``zett_agent.tools.coding._resolve_file_path`` (returns ``(cwd, target)``). On an
    upgrade: check it is still what ``read``/``write``/``edit``/``delete`` resolve with.
    """
    from zett_agent.tools.coding import _resolve_file_path

    return _resolve_file_path(path)[1]


def read_working_text(path: Path) -> str:
    """A file's text as zett-agent's ``edit`` tool reads it (size limit, UTF-8).

    Touches ``zett_agent.tools.coding._read_working_text``. On an upgrade: check the edit tool still
    reads through it.
    """
    from zett_agent.tools.coding import _read_working_text

    return _read_working_text(path)


def apply_file_edits(content: str, edits: Sequence[FileEdit]) -> tuple[str, int]:
    """``content`` after ``edits``, exactly as zett-agent's ``edit`` tool applies them:
    ``(new text, replacements)``; ``ValueError`` when an edit does not apply.

    Touches ``zett_agent.tools.coding._apply_edits``. On an upgrade: check its signature and that
    the edit tool still applies edits through it (a preview must show what will be written).
    """
    from zett_agent.tools.coding import _apply_edits

    return _apply_edits(content, edits)


def plan_mode_sessions(plan_mode: PlanModeExtension) -> set[str]:
    """The live set of session ids in Plan Mode, to switch it from the UI (zett-agent switches it
    only through its tools). Raises ``RuntimeError`` when this zett-agent keeps it elsewhere.

    Touches ``PlanModeExtension._active_sessions``. On an upgrade: check that ``is_plan_mode`` still
    reads this set and that the tools and prompt follow it at the next model call.
    """
    sessions = getattr(plan_mode, "_active_sessions", None)
    if not isinstance(sessions, set):
        raise RuntimeError("this zett-agent version does not let zett switch Plan Mode")
    return sessions


def forget_session(agent: Any, session_id: str) -> bool:
    """Drop a finished session's in-memory state (a subagent's, once its run is recorded): the
    Agent keeps every session's messages for its life. False when it cannot (the session still
    runs, or this zett-agent keeps its states elsewhere).

    Touches ``Agent._states``, ``Agent._active_configs`` and ``Agent._sessions_lock``. On an
    upgrade: check that a session with no state starts fresh, and that nothing else holds it.
    """
    states = getattr(agent, "_states", None)
    active = getattr(agent, "_active_configs", None)
    lock = getattr(agent, "_sessions_lock", None)
    if not isinstance(states, dict) or not isinstance(active, dict) or lock is None:
        return False
    with lock:
        if session_id in active:
            return False
        return states.pop(session_id, None) is not None


def release_finished_messages(agent: Any, session_id: str) -> bool:
    """Let go of the messages of a session's finished request, keeping its phase.

    The Agent keeps the last request's ``AgentState`` (every message of the session, decoded) until
    the next request replaces it with a fresh one restored from the history store: between turns it
    is a second copy of the whole dialogue that nothing reads (``resume_point``, ``compact`` and the
    next request restore their own). It is swapped for an empty state in the same phase, so
    ``is_conflict`` answers as before; a caller still holding the old request's context keeps its
    messages. False when it cannot (the request still runs, or this zett-agent keeps its states
    elsewhere).

    Touches ``Agent._states``, ``Agent._active_configs``, ``Agent._sessions_lock``, ``Agent.state``
    and ``AgentState``'s fields. On an upgrade: check that a request still starts from a fresh
    ``AgentState`` (``_claim_session``) and that nothing but ``get_state`` reads the old one.
    """
    from zett_agent.agent import AgentState

    states = getattr(agent, "_states", None)
    active = getattr(agent, "_active_configs", None)
    lock = getattr(agent, "_sessions_lock", None)
    if not isinstance(states, dict) or not isinstance(active, dict) or lock is None:
        return False
    with lock:
        state = states.get(session_id)
        if session_id in active or not isinstance(state, AgentState):
            return False
        empty = AgentState(phase=state.phase, parent_session_id=state.parent_session_id)
        states[session_id] = empty
        if getattr(agent, "state", None) is state:
            agent.state = empty
    return True


def protected_path_scan() -> tuple[frozenset[str], int, int]:
    """How the sandbox's policy searches a writable folder for protected paths: the folder names it
    skips, how deep it goes and how many entries it reads; a cache of the policy must watch what
    that search saw (``runtime/shell/wrap_ahead.py``).

    Touches ``zett_agent.sandbox.policy._SKIPPED_DIRECTORIES``, ``_PROTECTED_SEARCH_DEPTH`` and
    ``_PROTECTED_SEARCH_ENTRIES``. On an upgrade: check ``_protected_in`` still walks that way.
    """
    from zett_agent.sandbox import policy

    return (
        frozenset(policy._SKIPPED_DIRECTORIES),
        int(policy._PROTECTED_SEARCH_DEPTH),
        int(policy._PROTECTED_SEARCH_ENTRIES),
    )


#: The schemas of tools zett-agent builds afresh for each agent or request (``ask_user``,
#: ``enter_plan_mode``, ``exit_plan_mode``: closures over the request), by what they depend on.
_TOOL_SCHEMAS: dict[Any, Any] = {}


def share_tool_schemas() -> None:
    """Build each tool's argument validator and JSON schemas once per process, not per request.

    ``zett_agent.tools.base._build_agent_tool`` builds a tool's pydantic validator and its argument
    and return JSON schemas every time it is called, and the built-in extensions call it for their
    tools on every request: ~25 ms of CPU per turn, in every host and subagent. The schemas depend
    only on the tool function's code, annotations, defaults and docstring, so they are kept by
    those (the handler, which closes over the request, is still built each time), and each caller
    gets its own copy of the JSON. A function whose parts cannot be a key is built as before.
    Idempotent. On an upgrade: check that ``_build_agent_tool`` still calls the module's
    ``_build_input_schema(function, documentation)`` and ``_build_return_schema(hints)`` by name,
    and that the schemas depend on nothing else (``tests/test_upstream_contracts.py``).
    """
    import copy

    from zett_agent.tools import base

    if getattr(base._build_input_schema, "_zett_shared", False):
        return
    build_input, build_return = base._build_input_schema, base._build_return_schema

    def input_schema(function: Any, documentation: Any) -> Any:
        try:
            key = (
                "input",
                function.__code__,
                function.__module__,
                function.__doc__,
                tuple(function.__annotations__.items()),
                function.__defaults__,
                tuple(sorted((function.__kwdefaults__ or {}).items())),
            )
            built = _TOOL_SCHEMAS.get(key)
        except (AttributeError, TypeError):  # no code object, or an unhashable part
            return build_input(function, documentation)
        if built is None:
            built = _TOOL_SCHEMAS[key] = build_input(function, documentation)
        inputs, fields, parameters, hints = built
        return inputs, fields, copy.deepcopy(parameters), dict(hints)

    def return_schema(hints: Any) -> Any:
        try:
            key = ("return", hints.get("return"))
            found = key in _TOOL_SCHEMAS
        except TypeError:
            return build_return(hints)
        if not found:
            _TOOL_SCHEMAS[key] = build_return(hints)
        return copy.deepcopy(_TOOL_SCHEMAS[key])

    input_schema._zett_shared = True  # type: ignore[attr-defined]
    base._build_input_schema = input_schema
    base._build_return_schema = return_schema
