"""``/rewind`` (also Esc twice on an empty prompt at idle): back to just before one of this session's turns.

The runtime side is ``zett_tui.checkpoints``; this module only asks (``ui/modals/rewind_dialogs``)
and says what happened, one line per thing, in the transcript.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from zett_tui.checkpoints.rewind import RewindPlan, RewindRefused
from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from textual.screen import Screen

    from zett_tui.checkpoints.journal import TurnRecord
    from zett_tui.checkpoints.recording import SessionCheckpoints
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command("rewind", "Go back to just before a turn: code, conversation or both (also Esc Esc)")
def rewind(ctx: CommandContext, arguments: str) -> None:
    if ctx.turn_running:
        ctx.say("A turn is running; /rewind when it ends (Esc stops it).", "warning")
        return
    host = ctx.host
    if host is None and not ctx.start_failed:
        # Right after ``zett --continue`` the session's turns are there to rewind, but the host
        # that keeps their checkpoints is still starting: wait for it instead of saying "nothing".
        ctx.say("zett is still starting; the rewind opens as soon as it is ready.")
        ctx.run_in_background(_when_started(ctx), group="rewind")
        return
    checkpoints = host.checkpoints if host is not None else None
    if checkpoints is None:
        ctx.say("Nothing to rewind: the model could not start, and it keeps the checkpoints.", "warning")
        return
    ctx.run_in_background(rewind_flow(ctx, checkpoints), group="rewind")


#: How long ``/rewind`` waits for a starting host, and how often it looks.
STARTING_WAIT_SECONDS = 120.0
_LOOK_SECONDS = 0.05


async def _when_started(ctx: CommandContext) -> None:
    """The rewind flow once the host is ready (or one line when it does not come)."""
    waited = 0.0
    while ctx.host is None and not ctx.start_failed and waited < STARTING_WAIT_SECONDS:
        await asyncio.sleep(_LOOK_SECONDS)
        waited += _LOOK_SECONDS
    host = ctx.host
    if host is None or host.checkpoints is None:
        ctx.say("Nothing to rewind: the model could not start, and it keeps the checkpoints.", "warning")
        return
    if ctx.turn_running:
        ctx.say("A turn is running; /rewind when it ends (Esc stops it).", "warning")
        return
    await rewind_flow(ctx, host.checkpoints)


async def ask(ctx: CommandContext, screen: Screen[Any]) -> Any:
    """Open ``screen`` and wait for the value it was dismissed with (None when closed)."""
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(result: Any) -> None:
        if not answer.done():
            answer.set_result(getattr(result, "value", None))

    ctx.open_screen(screen, done)
    return await answer


async def rewind_flow(ctx: CommandContext, checkpoints: SessionCheckpoints) -> None:
    """Which turn, what to take back, the conflicts one by one, then the rewind itself."""
    from zett_tui.ui.modals import rewind_dialogs as dialogs

    try:
        records = await asyncio.to_thread(checkpoints.records)
        size = await asyncio.to_thread(checkpoints.store.size_bytes)
    except OSError as error:
        ctx.say(f"The checkpoint record cannot be read: {error.strerror or error}", "error")
        return
    if not records:
        why = f" checkpoints are off ({checkpoints.off})." if checkpoints.off else " yet."
        ctx.say(f"Nothing to rewind{':' if checkpoints.off else ''}{why}", "warning")
        return
    index = await ask(ctx, dialogs.turn_list_dialog(records, size))
    if not isinstance(index, int) or not 0 <= index < len(records):
        return
    target = records[index]
    plan: RewindPlan | None = None
    refused: str | None = target.missing and "its checkpoint is missing"
    if refused is None:
        try:
            plan = await checkpoints.plan_rewind(target)
        except RewindRefused as error:
            refused = str(error)
        except Exception as error:  # git, the disk: one line, nothing changed
            refused = f"{type(error).__name__}: {error}"
    what = await ask(
        ctx,
        dialogs.what_dialog(
            target,
            code_possible=refused,
            too_large=plan.too_large if plan else [],
            unreadable=plan.unreadable if plan else [],
        ),
    )
    if what not in (dialogs.CODE_AND_CONVERSATION, dialogs.CODE_ONLY, dialogs.CONVERSATION_ONLY):
        ctx.say("Rewind cancelled; nothing changed.")
        return
    code = what in (dialogs.CODE_AND_CONVERSATION, dialogs.CODE_ONLY) and plan is not None
    conversation = what in (dialogs.CODE_AND_CONVERSATION, dialogs.CONVERSATION_ONLY)
    take: set[str] = set()
    if code and plan is not None:
        take = await _decide_conflicts(ctx, checkpoints, plan)
    try:
        outcome = await checkpoints.rewind(
            target, plan=plan if code else None, take_checkpoints=take, conversation=conversation
        )
    except (RewindRefused, OSError) as error:
        ctx.say(f"Rewind failed: {error}", "error")
        return
    report = outcome.report
    if report is not None:
        moved = len(report.restored) + len(report.removed)
        ctx.say(f"Code rewound: {moved} file{'s' if moved != 1 else ''} put back (/rewind again undoes it).")
        for problem in report.problems:
            ctx.say(f"Not restored: {problem}", "warning")
        if outcome.kept:
            ctx.say("Kept as you changed them: " + ", ".join(outcome.kept))
        if outcome.too_large:
            ctx.say(
                "Not recorded (too large), left as they are: " + ", ".join(outcome.too_large[:10]), "warning"
            )
        if outcome.unreadable:
            ctx.say(
                "Could not be read when recorded, left as they are: " + ", ".join(outcome.unreadable[:10]),
                "warning",
            )
    for problem in outcome.problems:
        ctx.say(problem, "warning")
    restored = outcome.record.restored_requests if outcome.record is not None else []
    host = ctx.host
    if conversation and outcome.record is not None and host is not None:
        hidden = outcome.record.hidden_requests
        if hidden or restored:  # the context the next turn starts from changed: so does the meter
            ctx.context_changed(await host.estimate_context())
    if conversation and restored:
        ctx.unmark_rewound()
        count = len(restored)
        ctx.say(
            f"The conversation is back as it was: {count} rewound turn{'s are' if count != 1 else ' is'}"
            " in the model's context again."
        )
    elif conversation:
        ctx.mark_rewound(target.prompt)
        ctx.say(
            "The conversation is back before that turn; the later turns stay in the session file, out of the model's context."
        )
        ctx.put_in_prompt(outcome.prompt)


async def _decide_conflicts(
    ctx: CommandContext, checkpoints: SessionCheckpoints, plan: RewindPlan
) -> set[str]:
    """Ask about each file changed by hand: the ones to take from the checkpoint."""
    from zett_tui.ui.modals import rewind_dialogs as dialogs

    take: set[str] = set()
    target: TurnRecord = plan.target
    for path in plan.conflicts:
        answer = await ask(ctx, dialogs.conflict_dialog(path, elsewhere=path in plan.elsewhere))
        if answer == dialogs.SHOW_DIFF:
            diff = ""
            if target.before is not None:
                diff = await asyncio.to_thread(checkpoints.store.diff_text, plan.now, target.before, [path])
            answer = await ask(ctx, dialogs.conflict_diff_dialog(path, diff))
        if answer == dialogs.TAKE_CHECKPOINT:
            take.add(path)
    return take


@slash_command(
    "diff",
    "Show the files the last turn changed (/diff N: turn N, /diff all: the session)",
    arguments="[N|all]",
)
async def diff(ctx: CommandContext, arguments: str) -> None:
    host = ctx.host
    checkpoints = host.checkpoints if host is not None else None
    if checkpoints is None:
        ctx.say("Nothing to show: the model has not started.", "warning")
        return
    records = [r for r in await asyncio.to_thread(checkpoints.records) if r.kind == "turn"]
    choice = arguments.strip().lower()
    if not records:
        ctx.say("No turn has changed files yet.")
        return
    if choice == "all":
        first = next((r for r in records if r.before), None)
        last = next((r for r in reversed(records) if r.after), None)
        if first is None or last is None or first.before is None or last.after is None:
            ctx.say("The checkpoints of this session are missing; there is nothing to compare.", "warning")
            return
        before, after, title = first.before, last.after, "Changes of this session"
    else:
        if choice:
            if not choice.isdigit() or not 1 <= int(choice) <= len(records):
                ctx.say(f"Usage: /diff [N|all]: N is a turn from 1 to {len(records)}.", "warning")
                return
            record = records[int(choice) - 1]
        else:
            changed = [r for r in records if r.changes]
            if not changed:
                ctx.say("No turn has changed files yet.")
                return
            record = changed[-1]
        if record.before is None or record.after is None:
            ctx.say(f"Turn {records.index(record) + 1}'s checkpoint is missing: {record.missing}", "warning")
            return
        before, after = record.before, record.after
        title = f"Turn {records.index(record) + 1}: {' '.join(record.prompt.split())[:60]}"
    try:
        text = await asyncio.to_thread(checkpoints.store.diff_text, before, after)
        changes = await asyncio.to_thread(checkpoints.store.changes, before, after)
    except Exception as error:  # git, the disk
        ctx.say(f"The diff could not be read: {error}", "error")
        return
    from zett_tui.checkpoints.summary import changes_line
    from zett_tui.ui.modals.turn_diff import TurnDiffScreen

    ctx.open_screen(TurnDiffScreen(title, text, changes_line(len(changes), changes)))
