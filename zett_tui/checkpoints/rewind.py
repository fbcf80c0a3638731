"""Going back to the state before a turn: the code, the conversation, or both.

Only what the agent changed is taken back: the files the turns from the chosen one on changed
(each turn's record lists them). A file that differs from what the agent left it as (the user
changed it by hand since) is not overwritten: it is a conflict the user decides (keep mine,
take the checkpoint's). So is a file another zett session on the project changed while or after
these turns ran (its own record lists it): a turn's record is the difference between the files
before and after it, so it holds what another process changed meanwhile too. Files no turn
touched are never touched. A rewind records the state before it as a checkpoint of its own,
listed as "before the rewind", so it can be undone.
All functions block (git): call them in a thread.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from zett_tui.checkpoints.journal import TurnRecord, hidden_after
from zett_tui.checkpoints.restore_files import Entry
from zett_tui.checkpoints.store import CheckpointStore, RestoreReport


class RewindRefused(RuntimeError):
    """The code cannot be rewound to this turn; ``str`` says why in one line."""


@dataclass
class RewindPlan:
    """What a code rewind to ``target`` would do, worked out against the files as they are now."""

    target: TurnRecord
    #: The checkpoint of the files as they are now ("before the rewind").
    now: str
    #: Paths to put back as they were before the target turn (created ones: removed).
    restore: list[str] = field(default_factory=list)
    #: Paths changed by hand since the agent touched them: the user decides.
    conflicts: list[str] = field(default_factory=list)
    #: Files too large to have been recorded: not restored.
    too_large: list[str] = field(default_factory=list)
    #: Files a checkpoint of these turns could not read: not restored (their record may be stale).
    unreadable: list[str] = field(default_factory=list)
    #: The conflicts another zett session on the project changed while or after these turns ran.
    elsewhere: list[str] = field(default_factory=list)


def later_records(records: Sequence[TurnRecord], target: TurnRecord) -> list[TurnRecord]:
    """``target`` and every record after it (the turns and rewinds a rewind to it undoes)."""
    index = next(i for i, record in enumerate(records) if record is target)
    return list(records[index:])


def plan_code_rewind(
    store: CheckpointStore,
    records: Sequence[TurnRecord],
    target: TurnRecord,
    now: str,
    others: Sequence[TurnRecord] = (),
) -> RewindPlan:
    """Which files go back and which ask, for a rewind to just before ``target``; ``others`` are
    the records of the project's other sessions."""
    undone = later_records(records, target)
    missing = [record for record in undone if record.before is None or record.after is None]
    if missing:
        raise RewindRefused(
            f"a checkpoint is missing for {len(missing)} of these turns ({missing[0].missing or 'not taken'});"
            " the code cannot be rewound, the conversation can"
        )
    cache: dict[str, dict[str, Entry]] = {}

    def entries(commit: str) -> dict[str, Entry]:
        if commit not in cache:
            cache[commit] = store.entries(commit)
        return cache[commit]

    unreadable = {p for r in undone for p in r.unreadable}
    plan = RewindPlan(
        target, now, too_large=sorted({p for r in undone for p in r.too_large}), unreadable=sorted(unreadable)
    )
    current = entries(now)
    touched: dict[str, list[TurnRecord]] = {}
    for record in undone:
        for path in record.paths:
            touched.setdefault(path, []).append(record)
    elsewhere = changed_elsewhere(others, since=target.at)
    for path, by in sorted(touched.items()):
        if path in unreadable:
            continue
        assert by[0].before is not None and by[-1].after is not None
        # By hand: between two turns that touched it, or since the last one.
        by_hand = current.get(path) != entries(by[-1].after).get(path)
        for earlier, later in itertools.pairwise(by):
            assert earlier.after is not None and later.before is not None
            if entries(earlier.after).get(path) != entries(later.before).get(path):
                by_hand = True
        wanted = entries(target.before or "").get(path) if target.before else None
        if current.get(path) == wanted:
            continue  # already as it was
        if path in elsewhere:
            plan.elsewhere.append(path)
        (plan.conflicts if by_hand or path in elsewhere else plan.restore).append(path)
    return plan


def changed_elsewhere(others: Sequence[TurnRecord], *, since: str) -> set[str]:
    """The files the ``others``' turns and rewinds changed that ended at or after ``since``."""
    start = _time(since)
    found: set[str] = set()
    for record in others:
        ended = _time(record.ended or record.at)
        if start is None or ended is None or ended >= start:
            found.update(record.paths)
    return found


def _time(text: str | None) -> datetime | None:
    try:
        when = datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None
    return when if when is None or when.tzinfo is not None else when.replace(tzinfo=UTC)


def apply_code_rewind(
    store: CheckpointStore, plan: RewindPlan, take_checkpoints: Collection[str] = ()
) -> RestoreReport:
    """Put back ``plan.restore`` and the conflicts the user chose to take from the checkpoint."""
    assert plan.target.before is not None
    chosen = [path for path in plan.conflicts if path in take_checkpoints]
    return store.restore(plan.target.before, [*plan.restore, *chosen])


def rewind_record(
    target: TurnRecord,
    *,
    before: str | None,
    after: str | None,
    changes: list[list[Any]],
    hidden_requests: list[str],
    restored_requests: list[str] | None = None,
    missing: str | None = None,
) -> TurnRecord:
    """The record of a rewind: its "before" is the state it left, so it can be undone."""
    return TurnRecord(
        kind="rewind",
        turn=f"rewind-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%f')}",
        at=datetime.now(UTC).isoformat(),
        prompt=target.prompt,
        before=before,
        after=after,
        changes=changes,
        target=target.turn,
        hidden_requests=hidden_requests,
        restored_requests=restored_requests or [],
        missing=missing,
        ended=datetime.now(UTC).isoformat(),
    )


def requests_to_hide(records: Sequence[TurnRecord], target: TurnRecord) -> list[str]:
    """The requests of ``target`` and the turns after it: what a conversation rewind hides."""
    return [r.request for r in later_records(records, target) if r.kind == "turn" and r.request]


def conversation_change(records: Sequence[TurnRecord], target: TurnRecord) -> tuple[list[str], list[str]]:
    """What a conversation rewind to just before ``target`` hides and puts back: ``(hide, restore)``.

    The conversation goes back to what the model saw just before ``target``: the turns hidden by
    then stay hidden, ``target`` and every turn after it are hidden, and a turn hidden by a rewind
    from ``target`` on comes back (so choosing "before the rewind" undoes a conversation rewind).
    """
    index = next(i for i, record in enumerate(records) if record is target)
    wanted = hidden_after(records[:index]) | set(requests_to_hide(records, target))
    now = hidden_after(records)
    return sorted(wanted - now), sorted(now - wanted)
