"""Which agent each recorded answer (``metadata.zett.decisions``) belongs to.

Call ids are unique only within one agent's session: a subagent's ``c1`` and the main agent's
``c1`` are different calls. So an item names the session that asked, ``subagent_session``:
``null`` for the main agent, the subagent's session id (its run's ``session_id`` in
``metadata.zett.subagents``) for a subagent. An item written before that key existed is read as
it was meant: the line of a subagent's answer ends with ``(subagent <kind>: <job>)``, the label
its run's kind and job make, so such an item belongs to the one recorded run with that label
(and, when several runs share it, with that call); any other old item is the main agent's.

An answer whose owner cannot be told (its run is not recorded, two runs fit, a value of the
wrong type) still shows its line, after the turn's tools, and marks no row: a guess would
mark another agent's call.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The key naming the session that asked (absent in files written before it).
SUBAGENT_SESSION = "subagent_session"

#: A subagent run's place in the turn: the ``task`` call ids from the main agent down to it.
RunPath = tuple[str, ...]

_MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class Decision:
    """One recorded answer: its line (None when the item had none) and whether it said no."""

    text: str | None
    call_id: str | None
    declined: bool


@dataclass(slots=True)
class TurnDecisions:
    """A turn's answers sorted by the agent they belong to."""

    #: The main agent's, by the call they answered (None: a call of no id).
    main: dict[str | None, list[Decision]] = field(default_factory=dict)
    #: Each subagent run's, by its ``RunPath``.
    runs: dict[RunPath, list[Decision]] = field(default_factory=dict)
    #: Those whose owner cannot be told.
    unknown: list[Decision] = field(default_factory=list)
    #: The subagents' answers in the order recorded, with their run.
    _in_order: list[tuple[RunPath, Decision]] = field(default_factory=list)

    def add_to_run(self, path: RunPath, decision: Decision) -> None:
        self.runs.setdefault(path, []).append(decision)
        self._in_order.append((path, decision))

    def declined_main_calls(self) -> set[str]:
        return {
            call_id
            for call_id, items in self.main.items()
            if call_id is not None and any(item.declined for item in items)
        }

    def declined_in(self, path: RunPath) -> set[str]:
        """The calls of the run at ``path`` the user said no to."""
        return {item.call_id for item in self.runs.get(path, ()) if item.declined and item.call_id}

    def lines_of_task(self, call_id: str) -> list[str]:
        """The lines of the answers given to the subagent the main agent's ``call_id`` started, and
        to its own subagents, in the order recorded: shown after that ``task`` row."""
        return [
            item.text for path, item in self._in_order if path[:1] == (call_id,) and item.text is not None
        ]


def turn_decisions(zett: Mapping[str, Any]) -> TurnDecisions:
    """``metadata.zett``'s ``decisions`` sorted by owner; any shape of input gives a result."""
    found = TurnDecisions()
    items = zett.get("decisions")
    if not isinstance(items, list):
        return found
    runs = dict(_runs(zett.get("subagents"), ()))
    by_session = {session: path for path, (session, _, _) in runs.items() if session}
    for item in items:
        if not isinstance(item, dict):
            continue
        text = item.get("text") if isinstance(item.get("text"), str) else None
        call_id = item.get("call_id") if isinstance(item.get("call_id"), str) else None
        decision = Decision(text, call_id, item.get("declined") is True)
        if text is None and not decision.declined:
            continue  # nothing to show and nothing to mark
        if SUBAGENT_SESSION in item:
            session = item[SUBAGENT_SESSION]
            if session is None:
                found.main.setdefault(call_id, []).append(decision)
            elif isinstance(session, str) and session in by_session:
                found.add_to_run(by_session[session], decision)
            else:
                found.unknown.append(decision)
            continue
        owner = _old_owner(text, call_id, runs)
        if owner == ():
            found.main.setdefault(call_id, []).append(decision)
        elif owner is None:
            found.unknown.append(decision)
        else:
            found.add_to_run(owner, decision)
    return found


def _old_owner(
    text: str | None, call_id: str | None, runs: Mapping[RunPath, tuple[str, str, frozenset[str]]]
) -> RunPath | None:
    """The owner of an item written before ``subagent_session``: ``()`` for the main agent, a run's
    path, or None when several runs fit and none by the call."""
    if text is None:
        return ()
    fitting = [path for path, (_, label, _) in runs.items() if text.endswith(f"(subagent {label})")]
    if not fitting:
        return ()
    if len(fitting) == 1:
        return fitting[0]
    by_call = [path for path in fitting if call_id is not None and call_id in runs[path][2]]
    return by_call[0] if len(by_call) == 1 else None


def _runs(value: object, above: RunPath) -> Iterator[tuple[RunPath, tuple[str, str, frozenset[str]]]]:
    """Each recorded subagent run below ``value`` (``metadata.zett.subagents``): its path, and its
    session id, label and call ids (empty when missing)."""
    if not isinstance(value, dict) or len(above) >= _MAX_DEPTH:
        return
    for task_id, run in value.items():
        if not isinstance(task_id, str) or not isinstance(run, dict):
            continue
        path = (*above, task_id)
        session, kind, description = (_text(run.get(key)) for key in ("session_id", "type", "description"))
        label = f"{kind or 'general'}: {' '.join(description.split())}"
        yield path, (session, label, frozenset(_call_ids(run)))
        yield from _runs(run.get("subagents"), path)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _call_ids(run: Mapping[str, Any]) -> Iterator[str]:
    messages = run.get("messages")
    for message in messages if isinstance(messages, list) else ():
        data = message.get("data") if isinstance(message, dict) else None
        calls = data.get("tool_calls") if isinstance(data, dict) else None
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                yield call["id"]
