"""How a host takes on subagents: the runner its options describe, the extensions that give the
``task`` tool and hold each child to its kind, and the connections made once the session's files
and gates exist (the turn's line and its journal, "for this session" answers). No Textual here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from zett_agent.extensions.base import AgentExtension

from zett_tui.runtime.subagents.extension import SubagentExtension, SubagentToolGate
from zett_tui.runtime.subagents.runner import SubagentRunner
from zett_tui.runtime.subagents.types import agent_types

if TYPE_CHECKING:
    from zett_tui.runtime.agent_options import HostOptions
    from zett_tui.runtime.recorder import TurnRecorder


def subagent_runner(
    options: HostOptions, *, model_label: Callable[[], str], describe: Callable[[BaseException], str]
) -> SubagentRunner:
    """The runner of a host built from ``options`` (the kinds, the limits, the models)."""
    return SubagentRunner(
        agent_types(options.agent_types),
        max_parallel=options.subagent_parallel,
        max_depth=options.subagent_depth,
        model_label=model_label,
        describe=describe,
        model_for=options.model_for,
    )


def subagent_extensions(
    runner: SubagentRunner, plan_active: Callable[[str], bool]
) -> tuple[AgentExtension, AgentExtension]:
    """The gate (the outermost tool middleware) and the ``task`` tool's extension (last)."""
    return SubagentToolGate(runner, plan_active=plan_active), SubagentExtension(runner)


def connect_subagents(runner: SubagentRunner, recorder: TurnRecorder, gates: Iterable[Any]) -> None:
    """Once the session's files and gates exist: a turn's line takes its subagents' runs, the turn
    in progress keeps them as they go (a kill keeps what a child did so far), and what the user
    allowed "for this session" in a gate (``session_of``) holds for the session's subagents too."""
    recorder.subagent_records = runner.take_records
    recorder.journal.subagent_records = runner.live_records
    runner.on_progress = recorder.journal.note_subagents
    for gate in gates:
        gate.session_of = runner.root_session
