"""A session file turned back into what the user saw: prompts, answers, reasoning, tool rows.

Built from the raw message envelopes (``dataclasses.asdict`` of zett-agent messages), read
tolerantly: a missing or odd field gives an empty value, never an exception. What it builds, the
``TurnView`` of each turn with its blocks in the order things happened in, is ``turn_views``.

For a long session, :func:`load_last_turns` reads only the last screenful from the end of the
file, and pages further back with ``before_offset``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zett_tui.core.inert_text import one_line
from zett_tui.core.tool_display import key_argument
from zett_tui.runtime.stop_words import recorded_stop_sentence
from zett_tui.sessions.image_files import IMAGE_KEY
from zett_tui.sessions.live_turn import PARTIAL_ATTRIBUTE
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.reader import (
    Notices,
    TurnRecord,
    iter_records,
    last_record_within,
    read_last_records,
)
from zett_tui.sessions.recorded_decisions import Decision, RunPath, TurnDecisions, turn_decisions
from zett_tui.sessions.rewind_marks import RewoundTurns, mark_of, marks_with_offsets, read_rewound
from zett_tui.sessions.turn_views import (
    Block,
    NoteBlock,
    ReasoningBlock,
    SubagentView,
    TextBlock,
    ToolView,
    TranscriptPage,
    TurnView,
)

_NORMAL_STOPS = {"end_turn", "tool_use"}


def content_text(content: object) -> tuple[str, int]:
    """Text of a message ``content`` (a string or a list of parts) and the number of images in it."""
    if isinstance(content, str):
        return content, 0
    if not isinstance(content, list):
        return "", 0
    texts: list[str] = []
    images = 0
    for part in content:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part, dict) and "source" in part:
            images += 1
    return "\n".join(texts), images


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def content_images(content: object) -> tuple[tuple[str, str | None], ...]:
    """``(name shown, stored file name or None)`` of each image part of a message's ``content``."""
    found: list[tuple[str, str | None]] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict) or "source" not in part:
            continue
        source = part.get("source")
        stored = source.get(IMAGE_KEY) if isinstance(source, dict) else None
        label = _text(part.get("alt_text")) or "image"
        found.append((label, stored if isinstance(stored, str) else None))
    return tuple(found)


def _tool_view(call: dict[str, Any], results: dict[str, dict[str, Any]]) -> ToolView:
    call_id = _text(call.get("id"))
    name = _text(call.get("name")) or "?"
    arguments = call.get("arguments")
    result = results.get(call_id) if call_id else None
    ok: bool | None = None
    output = ""
    if result is not None:
        ok = result.get("success") is not False
        output = content_text(result.get("content"))[0]
    try:
        arguments_json = json.dumps(arguments, ensure_ascii=False)
    except (TypeError, ValueError):
        arguments_json = "{}"
    error = call.get("error") if isinstance(call.get("error"), str) else None
    return ToolView(name, key_argument(name, arguments), ok, output, call_id, arguments_json, error)


def subagent_view(
    data: dict[str, Any], decisions: TurnDecisions | None = None, path: RunPath = ()
) -> SubagentView:
    """The display model of one recorded subagent run (any field may be missing or wrong); with
    its turn's ``decisions`` and its ``path`` there, the calls the user declined are marked."""
    texts: list[str] = []
    declined: list[int] = []
    tools = _run_tools(data, texts, _Declined(decisions or TurnDecisions(), path, declined))
    return SubagentView(
        agent_type=_text(data.get("type")) or "general",
        description=_text(data.get("description")),
        status=_text(data.get("status")) or "unknown",
        tokens=_run_tokens(data),
        tools=tuple(tools),
        text="\n".join(text for text in texts if text),
        declined=frozenset(declined),
    )


@dataclass(frozen=True, slots=True)
class _Declined:
    """Where ``_run_tools`` is in the turn's runs, and the indexes of declined rows it found."""

    decisions: TurnDecisions
    path: RunPath
    found: list[int]

    def below(self, task_id: str) -> _Declined:
        return _Declined(self.decisions, (*self.path, task_id), self.found)


def _run_tools(
    data: dict[str, Any],
    texts: list[str] | None,
    declined: _Declined,
    prefix: str = "",
    depth: int = 0,
    tools: list[tuple[str, str, bool | None]] | None = None,
) -> list[tuple[str, str, bool | None]]:
    """A recorded run's tool calls (name, key argument, ok), its texts into ``texts``; a ``task``
    call's own subagent's calls follow it, named after that job and ``›`` (as they showed live)."""
    messages = [
        m for m in data.get("messages") or () if isinstance(m, dict) and isinstance(m.get("data"), dict)
    ]
    results = {
        m["data"]["tool_call_id"]: m["data"]
        for m in messages
        if m.get("kind") == 4 and isinstance(m["data"].get("tool_call_id"), str)
    }
    runs = data.get("subagents")
    nested: dict[str, Any] = runs if isinstance(runs, dict) else {}
    tools = [] if tools is None else tools
    refused = declined.decisions.declined_in(declined.path) if declined.path else set()
    for message in messages:
        body = message["data"]
        if texts is not None:
            texts.append(content_text(body.get("content"))[0])
        for call in body.get("tool_calls") or () if message.get("kind") == 3 else ():
            if not isinstance(call, dict):
                continue
            view = _tool_view(call, results)
            if view.call_id in refused and view.ok is not None:
                declined.found.append(len(tools))
            tools.append((prefix + view.name, view.key_arg, view.ok))
            run = nested.get(view.call_id) if view.call_id else None
            if isinstance(run, dict) and depth < 8:
                job = " ".join(_text(run.get("description")).split()) or view.name
                _run_tools(run, None, declined.below(view.call_id), f"{prefix}{job} › ", depth + 1, tools)
    return tools


def _run_tokens(data: dict[str, Any], depth: int = 0) -> int:
    """A recorded subagent run's tokens, its own subagents' included (as its block counted them
    live); nesting is followed only so deep in a damaged or hostile file."""
    tokens = sum(
        value for key in ("input_tokens", "output_tokens") if isinstance(value := data.get(key), int)
    )
    nested = data.get("subagents")
    if isinstance(nested, dict) and depth < 8:
        tokens += sum(_run_tokens(run, depth + 1) for run in nested.values() if isinstance(run, dict))
    return tokens


def _stop_note(stop: object, answer: str = "") -> NoteBlock | None:
    if not isinstance(stop, dict):
        return None
    reason = stop.get("reason")
    if not isinstance(reason, str) or reason in _NORMAL_STOPS:
        return None
    return NoteBlock("stop", one_line(recorded_stop_sentence(stop, answer), 300))


def _message_model(data: dict[str, Any]) -> str | None:
    """``provider:model`` of an assistant message, when it names its model."""
    model = data.get("model")
    if not isinstance(model, str) or not model:
        return None
    provider = data.get("provider")
    return f"{provider}:{model}" if isinstance(provider, str) and provider else model


def _decision_notes(items: list[Decision]) -> list[NoteBlock]:
    """The lines answers left (``metadata.zett.decisions``), as the live turn showed them."""
    return [NoteBlock("decision", item.text) for item in items if item.text is not None]


def _searches(zett: dict[str, Any]) -> dict[int, list[NoteBlock]]:
    """A turn's hosted web search rows (``metadata.zett.searches``), by the model call (0-based)
    whose answer they came before."""
    found: dict[int, list[NoteBlock]] = {}
    items = zett.get("searches")
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            step = item.get("step")
            place = step if isinstance(step, int) and not isinstance(step, bool) and step >= 0 else 0
            found.setdefault(place, []).append(NoteBlock("search", item["text"]))
    return found


def changes_note(zett: dict[str, Any]) -> NoteBlock | None:
    """The "N files changed" line the turn ended with (``metadata.zett.checkpoint``), as shown live."""
    from zett_tui.checkpoints.summary import turn_changes_text

    noted = zett.get("checkpoint")
    if not isinstance(noted, dict):
        return None
    figures = [noted.get(key) for key in ("files", "added", "removed")]
    if not all(isinstance(f, int) and not isinstance(f, bool) and f >= 0 for f in figures) or not figures[0]:
        return None
    before, after = noted.get("before"), noted.get("after")
    checkpoints = (before, after) if isinstance(before, str) and isinstance(after, str) else None
    return NoteBlock(
        "changes",
        turn_changes_text(*figures),  # type: ignore[arg-type]
        checkpoints=checkpoints,
        files=_changed_files(noted.get("changed")),
    )


def _changed_files(value: Any) -> tuple[tuple[Any, ...], ...]:
    """The well-formed ``[path, added, removed, status]`` rows of a turn's line (others skipped)."""
    rows: list[tuple[Any, ...]] = []
    for item in value if isinstance(value, list) else ():
        if (
            isinstance(item, list)
            and len(item) >= 3
            and isinstance(item[0], str)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in item[1:3])
        ):
            status = item[3] if len(item) > 3 and isinstance(item[3], str) else ""
            rows.append((item[0], item[1], item[2], status))
    return tuple(rows)


def _context(zett: dict[str, Any]) -> tuple[int, bool] | None:
    figure = zett.get("context")
    if not isinstance(figure, dict):
        return None
    tokens = figure.get("tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
        return None
    return tokens, figure.get("estimated") is True


def new_messages_of(record: TurnRecord, previous: TurnRecord | None) -> tuple[dict[str, Any], ...]:
    """The messages of ``record`` that ``previous`` (the line before) does not have already: all of
    them, except for a ``/continue`` turn, whose line zett-agent starts at the prompt it carries on
    (the prompt is kept, the repeated part dropped)."""
    messages = record.messages
    if previous is None or record.zett.get("continues") is not True:
        return messages
    before = [m for m in previous.messages if not is_partial(m)]
    same = 0
    while same < min(len(before), len(messages)) and messages[same] == before[same]:
        same += 1
    return messages[:1] + messages[same:] if same else messages


def is_partial(envelope: dict[str, Any]) -> bool:
    """Text that was still streaming when the turn ended (``sessions.live_turn``): never in the history."""
    data = envelope.get("data")
    attributes = data.get("attributes") if isinstance(data, dict) else None
    return isinstance(attributes, dict) and attributes.get(PARTIAL_ATTRIBUTE) is True


def turn_view(
    record: TurnRecord, previous: TurnRecord | None = None, rewound: RewoundTurns | None = None
) -> TurnView:
    """The display model of one turn (``previous``, the line before, trims a ``/continue``)."""
    continues = record.zett.get("continues") is True
    messages = new_messages_of(record, previous)
    results = {
        data["tool_call_id"]: data
        for envelope in messages
        if envelope["kind"] == 4 and isinstance((data := envelope["data"]).get("tool_call_id"), str)
    }
    prompt = ""
    prompt_images = 0
    prompt_image_files: tuple[tuple[str, str | None], ...] = ()
    seen_prompt = False
    blocks: list[Block] = []
    tools: list[ToolView] = []
    answers: list[str] = []
    reasonings: list[str] = []
    message_model: str | None = None
    decisions = turn_decisions(record.zett)
    searches = _searches(record.zett)
    step = 0
    declined = decisions.declined_main_calls()
    tasks_shown: set[str] = set()
    children = record.zett.get("subagents")
    for envelope in messages:
        kind, data = envelope["kind"], envelope["data"]
        if kind == 2 and not seen_prompt:
            prompt, prompt_images = content_text(data.get("content"))
            prompt_image_files = content_images(data.get("content"))
            seen_prompt = True
        elif kind == 2:
            blocks.append(NoteBlock("steer", content_text(data.get("content"))[0]))
        elif kind == 6:
            blocks.append(NoteBlock("agent", content_text(data.get("content"))[0]))
        elif kind == 5:
            blocks.append(NoteBlock("checkpoint", content_text(data.get("content"))[0]))
        elif kind == 3:
            blocks.extend(searches.pop(step, ()))  # the hosted searches of this model call
            step += 1
            reasoning = data.get("reasoning")
            if isinstance(reasoning, str) and reasoning.strip():
                blocks.append(ReasoningBlock(reasoning))
                reasonings.append(reasoning)
            text = data.get("content")
            if isinstance(text, str) and text.strip():
                blocks.append(TextBlock(text))
                answers.append(text)
            calls = data.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict):
                    view = _tool_view(call, results)
                    if view.call_id and view.call_id in declined:
                        view = dataclasses.replace(view, declined=True)
                    if isinstance(children, dict) and isinstance(children.get(view.call_id), dict):
                        child = subagent_view(children[view.call_id], decisions, (view.call_id,))
                        view = dataclasses.replace(view, subagent=child)
                    blocks.append(view)
                    tools.append(view)
                    blocks.extend(_decision_notes(decisions.main.pop(view.call_id, [])))
                    if view.call_id and view.call_id not in tasks_shown:
                        tasks_shown.add(view.call_id)  # its subagents' answers, as they showed live
                        blocks.extend(
                            NoteBlock("decision", text) for text in decisions.lines_of_task(view.call_id)
                        )
            answer = data.get("content")
            note = _stop_note(data.get("stop"), answer if isinstance(answer, str) else "")
            if note is not None:
                blocks.append(note)
            message_model = _message_model(data) or message_model
    # asked of no tool shown, or of no agent that can be told
    blocks.extend(note for items in decisions.main.values() for note in _decision_notes(items))
    for task_id in dict.fromkeys(path[0] for path in decisions.runs):
        if task_id not in tasks_shown:
            blocks.extend(NoteBlock("decision", text) for text in decisions.lines_of_task(task_id))
    blocks.extend(_decision_notes(decisions.unknown))
    blocks.extend(note for _step, notes in sorted(searches.items()) for note in notes)  # an answer not kept
    changes = changes_note(record.zett)
    if changes is not None:
        blocks.append(changes)
    error = record.error
    error_text = None
    if error is not None:
        kind_name = error.get("type") if isinstance(error.get("type"), str) else "Error"
        message = error.get("message") if isinstance(error.get("message"), str) else ""
        error_text = f"{kind_name}: {message}" if message else kind_name
    model = record.zett.get("model")
    return TurnView(
        index=record.index,
        prompt=prompt,
        answer_text="\n\n".join(answers),
        reasoning_text="\n\n".join(reasonings),
        tools=tuple(tools),
        status=record.status,
        error=error_text,
        model=model if isinstance(model, str) and model else message_model,
        blocks=tuple(blocks),
        started_at=record.started_at,
        completed_at=record.completed_at,
        prompt_images=prompt_images,
        prompt_image_files=prompt_image_files,
        offset=record.offset,
        context=_context(record.zett),
        continues=continues,
        rewound=rewound is not None and record.data.get("request_id") in rewound,
    )


def iter_turns(path: Path, notices: Notices) -> Iterator[TurnView]:
    """Every readable turn in order, one line at a time (a rewind's line is not a turn: the turns
    it rewound are marked ``rewound``)."""
    rewound = read_rewound(path)
    previous: TurnRecord | None = None
    for record in iter_records(path, notices):
        if mark_of(record.data) is not None:
            continue
        yield turn_view(record, previous, rewound)
        previous = record


def load_transcript(path: Path, notices: Notices) -> list[TurnView]:
    return list(iter_turns(path, notices))


def load_last_turns(
    path: Path, count: int, notices: Notices, *, before_offset: int | None = None
) -> TranscriptPage:
    """The last ``count`` turns (before ``before_offset`` when paging back), oldest first."""
    tail = read_last_records(path, count, notices, before_offset=before_offset)
    rewound = read_rewound(path)
    records = [record for record in tail.records if mark_of(record.data) is None]
    turns = [
        turn_view(record, records[index - 1] if index else None, rewound)
        for index, record in enumerate(records)
    ]
    return TranscriptPage(turns, tail.has_earlier, tail.start_offset)


def last_turn_in_context(path: Path, within_bytes: int) -> TurnRecord | None:
    """The last turn whose context figure is still the model's context, or None.

    Usually the file's last line. After a conversation rewind the last lines are the rewind's and
    the turns it took out: the figure is then the last turn still in the context's, when the
    rewinds since it only took out turns after it (one that put earlier turns back, or took some
    out, changed the context that figure measured: None, and the caller estimates). Raises
    ``OSError`` when the file cannot be read; reads at most ``within_bytes`` back from the end.
    """
    last = last_record_within(path, within_bytes)
    if last is None or mark_of(last.data) is None:
        return last  # no rewind since the last turn (a mark only ever follows the turns it names)
    marks = marks_with_offsets(path)
    now = RewoundTurns()
    for _, mark in marks:
        now.apply(mark)
    after: set[str] = set()  # the rewound turns after the one looked for
    size = path.stat().st_size
    notices = ReadNotices(detail_limit=0)
    before_offset: int | None = None
    while True:
        tail = read_last_records(path, 16, notices, before_offset=before_offset)
        for record in reversed(tail.records):
            if mark_of(record.data) is not None:
                continue
            request = record.data.get("request_id")
            if request in now:
                after.add(str(request))
                continue
            then = RewoundTurns()
            for offset, mark in marks:
                if offset < record.offset:
                    then.apply(mark)
            changed = now.rewound ^ then.rewound
            return record if changed <= after else None
        if not tail.records or tail.start_offset == 0 or size - tail.start_offset > within_bytes:
            return None
        before_offset = tail.start_offset
