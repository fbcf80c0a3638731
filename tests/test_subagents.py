"""The ``task`` tool: a subagent with its own context, the parent's gates, and its events on the
parent's turn (scripted model; the parent and its children share one model, routed by session)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from zett_agent.messages import SystemMessage, UserMessage
from zett_agent.model import ModelEvent, ModelRequest, RetryOptions

from tests.fakes.host import Collector, HostFactory, wait_until
from tests.fakes.scripted_model import ScriptedModel, Step, last_tool_result, text_step, tool_step, tools_step
from zett_tui.runtime.events import (
    DecisionRequested,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    ToolFinished,
    ToolsStarted,
    TurnFinished,
    UsageReported,
)
from zett_tui.runtime.modes import PermissionMode


def task(call_id: str, prompt: str, kind: str = "general", description: str = "look around") -> Step:
    return tool_step(call_id, "task", {"description": description, "prompt": prompt, "subagent_type": kind})


def user_texts(request: ModelRequest) -> list[str]:
    return [str(m.content) for m in request.messages if isinstance(m, UserMessage)]


def system_text(request: ModelRequest) -> str:
    return "\n".join(str(m.content) for m in request.messages if isinstance(m, SystemMessage))


class RoutedModel:
    """Plays one script per session: the first session seen is the parent's, the next ones are
    children in the order they first asked (for parallel children, routed by their prompt)."""

    retry = RetryOptions(max_retries=0)

    def __init__(self, parent: list[Step], children: dict[str, list[Step]]) -> None:
        self.parent = parent
        self.children = children
        self.requests: list[ModelRequest] = []
        self.scripts: dict[str, list[Step]] = {}
        self.first: str | None = None

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        key = request.cache_key or ""
        if self.first is None:
            self.first = key
        if key not in self.scripts:
            if key == self.first:
                self.scripts[key] = self.parent
            else:
                prompt = user_texts(request)[-1]
                self.scripts[key] = self.children[prompt]
        script = self.scripts[key]
        step = script.pop(0) if script else text_step("(script ended)")
        async for event in step(request):
            yield event

    async def aclose(self) -> None:
        pass


async def test_a_child_has_its_own_context_reads_a_file_and_its_answer_is_the_tool_result(
    project_dir: Path, hosts: HostFactory
) -> None:
    (project_dir / "notes.txt").write_text("the answer is 42\n")
    model = ScriptedModel(
        text_step("First answer."),
        task("t1", "Find the answer in notes.txt", kind="explore"),
        tool_step("r1", "read_file", {"path": "notes.txt"}),
        text_step("The file says 42."),
        text_step("The child found 42."),
    )
    host = await hosts(model)
    await host.run_turn("a secret the child must not see", Collector())
    sink = Collector()
    finished = await host.run_turn("ask a child", sink)

    assert finished.status == "completed"
    child_first = model.requests[2]
    assert user_texts(child_first) == ["Find the answer in notes.txt"]  # not the parent's conversation
    assert "a secret" not in json.dumps([str(m.content) for m in child_first.messages])
    assert "read-only exploration subagent" in system_text(child_first)
    # reads, and a shell that runs read-only (``test_explore_shell_reads_and_cannot_change_anything``)
    assert {tool.name for tool in child_first.tools} <= {"read_file", "view_image", "glob", "grep", "bash"}
    assert last_tool_result(model.requests[4]) == "The file says 42."  # the parent's next request

    [started] = sink.of(SubagentStarted)
    assert started.call_id == "t1" and started.agent_type == "explore"
    assert host.agent is not None and host.agent.get_state(started.session_id) is None  # not kept
    inner = [event.event for event in sink.of(SubagentActivity)]
    assert any(isinstance(e, ToolsStarted) and e.calls[0].name == "read_file" for e in inner)
    assert any(isinstance(e, ToolFinished) and e.state == "done" and "42" in e.output for e in inner)
    [ended] = sink.of(SubagentFinished)
    assert ended.status == "completed" and ended.input_tokens > 0
    # the child's tokens count toward the turn's: two parent calls and two child calls
    assert len(sink.of(UsageReported)) == 4
    # the parent's own rows: the task call only (the child's read is under it)
    parent_rows = [call.name for event in sink.of(ToolsStarted) for call in event.calls]
    assert parent_rows == ["task"]


async def test_a_child_write_asks_naming_the_child_and_a_refusal_keeps_the_file(
    project_dir: Path, hosts: HostFactory
) -> None:
    target = project_dir / "app.py"
    target.write_text("x = 1\n")
    model = ScriptedModel(
        task("t1", "Set x to 2 in app.py", description="bump x"),
        tool_step("w1", "write_file", {"path": "app.py", "content": "x = 2\n"}),
        text_step("I could not: the user refused the write."),
        text_step("The child reports the refusal."),
    )
    host = await hosts(model)
    sink = Collector()
    turn = asyncio.ensure_future(host.run_turn("change it", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 10)
    assert decision.kind == "edit_approval_requested"
    assert decision.asker == "general: bump x"  # the dialog says which child asks
    assert decision.session_id != host.session_id
    assert host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "reject"})
    finished = await asyncio.wait_for(turn, 10)

    assert finished.status == "completed"
    assert target.read_text() == "x = 1\n"
    child_last = model.requests[2]
    assert "did not apply this write" in last_tool_result(child_last)  # the child hears the refusal
    assert last_tool_result(model.requests[3]) == "I could not: the user refused the write."


async def test_explore_cannot_write_even_in_auto_mode(project_dir: Path, hosts: HostFactory) -> None:
    target = project_dir / "app.py"
    target.write_text("x = 1\n")
    attacks = [
        ("w1", "write_file", {"path": "app.py", "content": "pwned"}),
        ("w2", "edit", {"path": "app.py", "edits": [{"old_text": "x = 1", "new_text": "pwned"}]}),
        ("w3", "delete_file", {"path": "app.py"}),
        ("w4", "bash", {"command": "echo pwned > app.py"}),
        ("w5", "bash", {"command": "rm app.py"}),
        ("w6", "task", {"description": "d", "prompt": "write app.py", "subagent_type": "general"}),
        ("w7", "mcp__x__y", {}),
    ]
    model = ScriptedModel(
        task("t1", "look", kind="explore"),
        tools_step(attacks),
        text_step("done"),
        text_step("ok"),
    )
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    sink = Collector()
    finished = await asyncio.wait_for(host.run_turn("go", sink), 20)
    assert finished.status == "completed"
    assert target.read_text() == "x = 1\n"
    inner = [e.event for e in sink.of(SubagentActivity) if isinstance(e.event, ToolFinished)]
    assert len(inner) == len(attacks) and all(e.state in ("failed", "refused") for e in inner)
    assert not sink.of(DecisionRequested)
    assert len(model.requests) == 4  # no grandchild was started


async def test_a_child_cannot_enter_plan_mode_and_the_parent_hears_why(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(
        task("t1", "look", kind="explore"),
        tool_step("p1", "enter_plan_mode", {"reason": "then I get write tools"}),
        text_step("the child failed"),
    )
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    sink = Collector()
    finished = await asyncio.wait_for(host.run_turn("go", sink), 20)
    assert finished.status == "completed"
    assert not sink.of(DecisionRequested)  # Plan Mode never asked the user on the child's behalf
    assert "cannot use enter_plan_mode" in last_tool_result(model.requests[2])
    [ended] = sink.of(SubagentFinished)
    assert ended.status == "failed"


async def test_two_children_run_in_parallel_and_both_finish(project_dir: Path, hosts: HostFactory) -> None:
    both_started = asyncio.Event()
    waiting: list[str] = []

    def waits_for_the_other(answer: str) -> Step:
        async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
            waiting.append(answer)
            if len(waiting) == 2:
                both_started.set()
            await asyncio.wait_for(both_started.wait(), 5)  # only parallel children get past this
            async for event in text_step(answer)(request):
                yield event

        return step

    calls = [
        ("t1", "task", {"description": "one", "prompt": "job one"}),
        ("t2", "task", {"description": "two", "prompt": "job two"}),
    ]
    model = RoutedModel(
        [tools_step(calls), text_step("both done")],
        {"job one": [waits_for_the_other("report one")], "job two": [waits_for_the_other("report two")]},
    )
    host = await hosts(model)  # type: ignore[arg-type]
    sink = Collector()
    finished = await asyncio.wait_for(host.run_turn("two jobs", sink), 20)
    assert finished.status == "completed"
    assert sorted(event.status for event in sink.of(SubagentFinished)) == ["completed", "completed"]
    results = [
        str(m.content) for m in model.requests[-1].messages if str(getattr(m, "role", "")).endswith("tool")
    ]
    assert sorted(results) == ["report one", "report two"]


async def test_esc_stops_both_children_and_their_commands(project_dir: Path, hosts: HostFactory) -> None:
    from tests.fakes.host import live_processes_mentioning

    marker = "zett-child-sleep-7371"
    calls = [
        ("t1", "task", {"description": "one", "prompt": "job one"}),
        ("t2", "task", {"description": "two", "prompt": "job two"}),
    ]
    model = RoutedModel(
        [tools_step(calls)],
        {
            "job one": [tool_step("b1", "bash", {"command": f"sleep 30 # {marker}-1"})],
            "job two": [tool_step("b2", "bash", {"command": f"sleep 30 # {marker}-2"})],
        },
    )
    host = await hosts(model, permission_mode=PermissionMode.AUTO)  # type: ignore[arg-type]
    sink = Collector()
    turn = asyncio.ensure_future(host.run_turn("two jobs", sink))
    await wait_until(lambda: len(live_processes_mentioning(marker)) >= 2, timeout=15)
    started = asyncio.get_running_loop().time()
    turn.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await turn
    stopped_in = asyncio.get_running_loop().time() - started
    assert stopped_in < 1.0
    await wait_until(lambda: not live_processes_mentioning(marker), timeout=3)
    assert isinstance(sink.events[-1], TurnFinished) or any(
        e.status == "cancelled" for e in sink.of(TurnFinished)
    )
    assert host.recorder is not None
    path = host.recorder.session_path(host.session_id)
    await wait_until(lambda: path.exists() and path.read_text().strip() != "", timeout=5)
    [line] = [json.loads(text) for text in path.read_text().splitlines()]
    assert line["status"] == "cancelled"
    children = line["metadata"]["zett"]["subagents"]
    assert {child["status"] for child in children.values()} == {"cancelled"} and len(children) == 2


async def test_a_rewind_of_the_parent_turn_takes_back_the_child_edit(
    project_dir: Path, hosts: HostFactory
) -> None:
    target = project_dir / "app.py"
    target.write_text("x = 1\n")
    model = ScriptedModel(
        task("t1", "Set x to 2"),
        tool_step("w1", "write_file", {"path": "app.py", "content": "x = 2\n"}),
        text_step("changed"),
        text_step("the child changed it"),
    )
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    await host.run_turn("change it", Collector())
    assert target.read_text() == "x = 2\n"
    assert host.checkpoints is not None
    [record] = [r for r in host.checkpoints.records() if r.changes]
    assert any("app.py" in str(change[0]) for change in record.changes)
    plan = await host.checkpoints.plan_rewind(record)
    await host.checkpoints.rewind(record, plan=plan, conversation=False)
    assert target.read_text() == "x = 1\n"


async def test_the_child_run_is_in_the_parent_turn_line_and_no_file_of_its_own(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(task("t1", "say hi"), text_step("hi from the child"), text_step("done"))
    host = await hosts(model)
    await host.run_turn("go", Collector())
    assert host.recorder is not None
    path = host.recorder.session_path(host.session_id)
    [line] = [json.loads(text) for text in path.read_text().splitlines()]
    child = line["metadata"]["zett"]["subagents"]["t1"]
    assert child["type"] == "general" and child["status"] == "completed"
    texts = [m["data"].get("content") for m in child["messages"]]
    assert texts[0] == "say hi" and "hi from the child" in texts
    assert sorted(p.name for p in path.parent.glob("*.jsonl")) == [path.name]


async def test_the_parallel_cap_makes_children_wait_for_a_slot(project_dir: Path, hosts: HostFactory) -> None:
    order: list[str] = []

    def noted(answer: str) -> Step:
        async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
            order.append(f"start {answer}")
            await asyncio.sleep(0.05)
            order.append(f"end {answer}")
            async for event in text_step(answer)(request):
                yield event

        return step

    calls = [
        ("t1", "task", {"description": "one", "prompt": "job one"}),
        ("t2", "task", {"description": "two", "prompt": "job two"}),
    ]
    model = RoutedModel(
        [tools_step(calls), text_step("both done")],
        {"job one": [noted("one")], "job two": [noted("two")]},
    )
    host = await hosts(model, subagent_parallel=1)  # type: ignore[arg-type]
    await asyncio.wait_for(host.run_turn("two jobs", Collector()), 20)
    assert order in (
        ["start one", "end one", "start two", "end two"],
        ["start two", "end two", "start one", "end one"],
    )


def test_the_subagents_table_is_read_from_the_config(tmp_path: Path) -> None:
    from zett_tui.config.settings import load_settings

    config = tmp_path / "config.toml"
    config.write_text("[subagents]\nmax_parallel = 2\nmax_depth = 2\n")
    settings, problems = load_settings(cwd=tmp_path, env={}, user_config=config)
    assert problems == []
    assert settings.subagents.max_parallel == 2 and settings.subagents.max_depth == 2
    config.write_text("[subagents]\nmax_parallel = 0\n")
    settings, problems = load_settings(cwd=tmp_path, env={}, user_config=config)
    assert settings.subagents.max_parallel == 4 and "between 1 and 16" in str(problems[0])


async def test_search_and_export_see_the_child_run(project_dir: Path, hosts: HostFactory) -> None:
    import io

    from zett_tui.sessions.export import write_markdown
    from zett_tui.sessions.index import SessionIndex
    from zett_tui.sessions.search import search_sessions

    (project_dir / "notes.txt").write_text("zebracorn lives here\n")
    model = ScriptedModel(
        task("t1", "Find it", kind="explore"),
        tool_step("r1", "read_file", {"path": "notes.txt"}),
        text_step("found it"),
        text_step("done"),
    )
    host = await hosts(model)
    await host.run_turn("go", Collector())
    await host.aclose()
    assert host.recorder is not None
    [summary] = SessionIndex(host.recorder.session_path(host.session_id).parent).list_sessions()
    [hit] = search_sessions("zebracorn", [summary])  # only the child read it
    assert hit.where == "subagent explore"
    out = io.StringIO()
    write_markdown(summary, out, [])
    assert "Subagent `explore` (completed" in out.getvalue()
    assert "`read_file` `notes.txt` — ok" in out.getvalue()
    from zett_tui.ui.browser.preview import load_preview

    [turn] = load_preview(summary, hit).turns  # the browser's preview paints it as resume does
    [tool] = turn.tools
    assert tool.subagent is not None and tool.subagent.tools == (("read_file", "notes.txt", True),)


async def test_plan_mode_switched_on_while_a_child_runs_holds_it_to_reading(
    project_dir: Path, hosts: HostFactory
) -> None:
    target = project_dir / "app.py"
    target.write_text("x = 1\n")
    holder: list[Any] = []

    def switch_then_write(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        holder[0].set_mode(PermissionMode.PLAN)  # the user pressed Shift+Tab meanwhile
        return tools_step(
            [
                ("w1", "write_file", {"path": "app.py", "content": "pwned"}),
                ("w2", "bash", {"command": "echo pwned > app.py"}),
                ("r1", "read_file", {"path": "app.py"}),
            ]
        )(request)

    model = ScriptedModel(task("t1", "change it"), switch_then_write, text_step("could not"), text_step("ok"))
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    holder.append(host)
    sink = Collector()
    await asyncio.wait_for(host.run_turn("go", sink), 20)
    assert target.read_text() == "x = 1\n"
    inner = {
        e.event.call_id: e.event.state for e in sink.of(SubagentActivity) if isinstance(e.event, ToolFinished)
    }
    assert inner == {"w1": "refused", "w2": "refused", "r1": "done"}
    assert not sink.of(DecisionRequested)


async def test_a_secret_a_child_read_reaches_no_file(project_dir: Path, hosts: HostFactory) -> None:
    secret = "ghp_R8t2Y6u0I4o8P2a6S0d4F8g2H6j0K4l8Z2x6"
    (project_dir / "env.txt").write_text(f"TOKEN={secret}\n")
    model = ScriptedModel(
        task("t1", "read env.txt"),
        tool_step("r1", "read_file", {"path": "env.txt"}),
        text_step(f"The token is {secret}"),
        text_step("done"),
    )
    host = await hosts(model)
    await host.run_turn("go", Collector())
    await host.aclose()
    assert host.recorder is not None
    line = host.recorder.session_path(host.session_id).read_text()
    assert "subagents" in line and secret not in line
    assert host.files is not None
    database = host.files.history_db
    stored = list(database.parent.glob(database.name + "*"))  # the history, its journal and WAL
    assert stored and b"go" in b"".join(path.read_bytes() for path in stored)  # the parent's turn
    for path in stored:
        # the subagent's run is kept in its parent turn's line only: nothing of it is in the history
        assert secret.encode() not in path.read_bytes(), path
        assert b"TOKEN=" not in path.read_bytes(), path  # what only the subagent read


async def test_apply_all_for_the_session_holds_for_its_subagents(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(
        task("t1", "write a"),
        tool_step("w1", "write_file", {"path": "a.txt", "content": "a\n"}),
        text_step("wrote a"),
        task("t2", "write b"),
        tool_step("w2", "write_file", {"path": "b.txt", "content": "b\n"}),
        text_step("wrote b"),
        tool_step("w3", "write_file", {"path": "c.txt", "content": "c\n"}),
        text_step("all written"),
    )
    host = await hosts(model)
    sink = Collector()
    turn = asyncio.ensure_future(host.run_turn("write three", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 10)
    assert decision.asker and decision.payload["path"] == "a.txt"
    host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "apply_all"})
    finished = await asyncio.wait_for(turn, 20)
    assert finished.status == "completed"
    assert len(sink.of(DecisionRequested)) == 1  # the second subagent and the main agent were not asked again
    assert all((project_dir / name).exists() for name in ("a.txt", "b.txt", "c.txt"))


async def test_with_depth_two_a_subagent_may_delegate_once_more_and_its_run_is_nested(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(
        task("t1", "outer job"),
        task("t2", "inner job"),  # the subagent delegates
        text_step("inner report"),
        text_step("outer report"),
        text_step("done"),
    )
    host = await hosts(model, subagent_depth=2)
    await asyncio.wait_for(host.run_turn("go", Collector()), 20)
    assert "task" in {tool.name for tool in model.requests[1].tools}  # the child has it
    assert "task" not in {tool.name for tool in model.requests[2].tools}  # the grandchild not
    assert last_tool_result(model.requests[3]) == "inner report"
    assert host.recorder is not None
    [line] = [
        json.loads(text) for text in host.recorder.session_path(host.session_id).read_text().splitlines()
    ]
    outer = line["metadata"]["zett"]["subagents"]["t1"]
    assert outer["subagents"]["t2"]["status"] == "completed"


async def test_in_plan_mode_the_main_agent_has_no_task_tool(project_dir: Path, hosts: HostFactory) -> None:
    model = ScriptedModel(text_step("planning"))
    host = await hosts(model)
    host.set_mode(PermissionMode.PLAN)
    sink = Collector()
    await asyncio.wait_for(host.run_turn("plan it", sink), 20)
    assert "task" not in {tool.name for tool in model.requests[0].tools}
    assert not sink.of(SubagentStarted)


async def test_a_child_whose_model_fails_reports_it_to_the_parent(
    project_dir: Path, hosts: HostFactory
) -> None:
    from tests.fakes.scripted_model import failing_step

    model = ScriptedModel(
        task("t1", "do it"), failing_step(RuntimeError("the provider is down")), text_step("noted")
    )
    host = await hosts(model)
    sink = Collector()
    finished = await asyncio.wait_for(host.run_turn("go", sink), 20)
    assert finished.status == "completed"  # the main agent goes on
    result = last_tool_result(model.requests[2])
    assert result.startswith("The general subagent failed:")
    [ended] = sink.of(SubagentFinished)
    assert ended.status == "failed" and ended.error
    [row] = [e for e in sink.of(ToolFinished) if e.call_id == "t1"]
    assert row.state == "failed"


async def test_the_child_text_is_passed_on_in_a_few_batches(project_dir: Path, hosts: HostFactory) -> None:
    from zett_tui.runtime.events import TextChunk

    words = " ".join(f"word{index}" for index in range(400))
    model = ScriptedModel(task("t1", "talk"), text_step(words, chunk=4, delay=0.001), text_step("done"))
    host = await hosts(model)
    sink = Collector()
    await asyncio.wait_for(host.run_turn("go", sink), 30)
    chunks = [e.event.text for e in sink.of(SubagentActivity) if isinstance(e.event, TextChunk)]
    assert "".join(chunks) == words  # all of it, in order
    deltas = len(words) // 4
    assert 1 <= len(chunks) < deltas / 10  # a few batches, not one event per delta
    assert sink.text == "done"  # the child's text is not in the main agent's answer
