"""Hooks from the user's side: real scripts in a temp project, run by a host on a scripted model.

Each script reads the event on stdin the way a Claude Code hook script does, and answers with an
exit code, stderr or JSON on stdout; the tests assert on what the model was sent, what the user
was told and what ran.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from zett_agent.messages import SystemMessage

from tests.fakes.host import Collector, live_processes_mentioning
from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from zett_tui.config import pinned_files
from zett_tui.config.hooks import HookConfig
from zett_tui.runtime.events import Notice, ToolFinished
from zett_tui.runtime.modes import PermissionMode


def script(folder: Path, name: str, body: str) -> Path:
    """A Python hook script; it keeps what it read in ``NAME.input.json`` beside itself."""
    path = folder / name
    path.write_text(
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        f"open({str(path) + '.input.json'!r}, 'a').write(json.dumps(event) + '\\n')\n" + body
    )
    return path


def inputs(path: Path) -> list[dict[str, Any]]:
    file = Path(str(path) + ".input.json")
    if not file.exists():
        return []
    return [json.loads(line) for line in file.read_text().splitlines()]


def hook(event: str, path: Path, *, matcher: str = "", timeout: float = 60) -> HookConfig:
    """A user hook running ``path``, allowed as it is now (``/extensions allow``: it lies in the project)."""
    pinned_files.allow([path])
    return HookConfig(event, f"{sys.executable} {path}", matcher=matcher, timeout=timeout)


def read_call(call_id: str = "c1", path: str = "notes.txt") -> Any:
    return tool_step(call_id, "read_file", {"path": path})


@pytest.fixture
def project(project_dir: Path) -> Path:
    (project_dir / "notes.txt").write_text("the notes\n")
    return project_dir


async def test_exit_2_refuses_the_tool_call_and_the_model_reads_stderr(project: Path, hosts) -> None:
    pre = script(project, "pre.py", "sys.stderr.write('reading notes is not allowed here'); sys.exit(2)\n")
    model = ScriptedModel(read_call(), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(hook("PreToolUse", pre, matcher="Read"),))
    sink = Collector()

    finished = await host.run_turn("read the notes", sink)

    assert finished.status == "completed"
    result = last_tool_result(model.requests[1])
    assert "reading notes is not allowed here" in result
    assert "the notes" not in result
    assert [event.state for event in sink.of(ToolFinished)] == ["refused"]
    [seen] = inputs(pre)
    assert seen["hook_event_name"] == "PreToolUse"
    assert seen["tool_name"] == "Read" and seen["zett_tool_name"] == "read_file"
    assert seen["tool_input"]["file_path"] == str(project / "notes.txt")
    assert seen["session_id"] == host.session_id
    assert seen["cwd"] == str(project)
    assert seen["permission_mode"] == "default"
    assert seen["transcript_path"].endswith(".jsonl")


async def test_a_matcher_that_names_another_tool_lets_the_call_run(project: Path, hosts) -> None:
    pre = script(project, "pre.py", "sys.exit(2)\n")
    model = ScriptedModel(read_call(), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(hook("PreToolUse", pre, matcher="Bash|Edit"),))

    await host.run_turn("read the notes", Collector())

    assert "the notes" in last_tool_result(model.requests[1])
    assert inputs(pre) == []


async def test_json_deny_refuses_with_its_reason(project: Path, hosts) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "notes are private",
        }
    }
    pre = script(project, "pre.py", f"print(json.dumps({answer!r}))\n")
    model = ScriptedModel(read_call(), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(hook("PreToolUse", pre, matcher="read_file"),))

    await host.run_turn("read the notes", Collector())

    result = last_tool_result(model.requests[1])
    assert "notes are private" in result and "the notes\n" not in result


async def test_json_ask_puts_the_question_to_the_user(project: Path, hosts) -> None:
    answer = {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "check it"}}
    pre = script(project, "pre.py", f"print(json.dumps({answer!r}))\n")
    model = ScriptedModel(read_call("c1"), read_call("c2"), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(hook("PreToolUse", pre),))
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("read the notes twice", sink))

    first = await sink.decisions.get()
    assert first.kind == "hook_approval_requested"
    assert first.payload["reason"] == "check it" and first.payload["tool"] == "read_file"
    assert host.answer(first, {"tool_call_id": "c1", "decision": "refuse", "note": "not now"})
    second = await sink.decisions.get()
    assert host.answer(second, {"tool_call_id": "c2", "decision": "once"})
    await turn

    assert "not now" in last_tool_result(model.requests[1])
    assert "the notes" in last_tool_result(model.requests[2])


async def test_allow_never_skips_zetts_own_question(project: Path, hosts) -> None:
    """A hook that allows everything does not stop the edit gate from asking in ask mode."""
    answer = {"hookSpecificOutput": {"permissionDecision": "allow"}}
    pre = script(project, "pre.py", f"print(json.dumps({answer!r}))\n")
    write = tool_step("w1", "write_file", {"path": "new.txt", "content": "x"})
    model = ScriptedModel(write, text_step("ok"))
    host = await hosts(
        model, cwd=project, hooks=(hook("PreToolUse", pre),), permission_mode=PermissionMode.ASK
    )
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("write", sink))

    asked = await sink.decisions.get()
    assert asked.kind == "edit_approval_requested"
    host.answer(asked, {"tool_call_id": "w1", "decision": "reject"})
    await turn
    assert not (project / "new.txt").exists()


async def test_post_tool_use_context_and_block_reach_the_model(project: Path, hosts) -> None:
    answer = {
        "decision": "block",
        "reason": "lint failed",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 warnings"},
    }
    post = script(project, "post.py", f"print(json.dumps({answer!r}))\n")
    model = ScriptedModel(read_call(), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(hook("PostToolUse", post, matcher="Read"),))

    await host.run_turn("read the notes", Collector())

    result = last_tool_result(model.requests[1])
    assert "the notes" in result and "lint failed" in result and "3 warnings" in result
    [seen] = inputs(post)
    assert seen["tool_response"]["success"] is True
    assert "the notes" in seen["tool_response"]["content"]


async def test_user_prompt_submit_adds_context_or_blocks_the_prompt(project: Path, hosts) -> None:
    prompt = script(
        project,
        "prompt.py",
        "if 'secret' in event['prompt']:\n"
        "    sys.stderr.write('no secrets in prompts'); sys.exit(2)\n"
        "print('today is a holiday')\n",
    )
    model = ScriptedModel(text_step("noted"))
    host = await hosts(model, cwd=project, hooks=(hook("UserPromptSubmit", prompt),))

    blocked = Collector()
    finished = await host.run_turn("here is my secret", blocked)
    assert finished.status == "blocked" and "no secrets in prompts" in (finished.error or "")
    assert any("no secrets in prompts" in notice.text for notice in blocked.of(Notice))
    assert model.requests == []

    await host.run_turn("what day is it", Collector())
    [request] = model.requests
    sent = str(request.messages[-1].content)
    assert "what day is it" in sent and "today is a holiday" in sent
    assert [seen["prompt"] for seen in inputs(prompt)] == ["here is my secret", "what day is it"]


async def test_session_start_context_reaches_every_request(project: Path, hosts) -> None:
    start = script(project, "start.py", "print('the build is red')\n")
    model = ScriptedModel(text_step("a"), text_step("b"))
    host = await hosts(model, cwd=project, hooks=(hook("SessionStart", start, matcher="startup"),))

    await host.run_turn("one", Collector())
    await host.run_turn("two", Collector())

    for request in model.requests:
        system = " ".join(str(m.content) for m in request.messages if isinstance(m, SystemMessage))
        assert "the build is red" in system
    [seen] = inputs(start)
    assert seen["source"] == "startup" and seen["hook_event_name"] == "SessionStart"


async def test_a_stop_hook_sends_the_model_back_once(project: Path, hosts) -> None:
    stop = script(
        project,
        "stop.py",
        "if not event['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'run the tests first'}))\n",
    )
    model = ScriptedModel(text_step("done"), text_step("tests pass"))
    host = await hosts(model, cwd=project, hooks=(hook("Stop", stop),))

    finished = await host.run_turn("fix it", Collector())

    assert finished.status == "completed" and finished.answer == "tests pass"
    assert "run the tests first" in str(model.requests[1].messages[-1].content)
    assert [seen["stop_hook_active"] for seen in inputs(stop)] == [False, True]


async def test_a_stop_hook_that_always_blocks_cannot_keep_the_turn_going_for_ever(
    project: Path, hosts
) -> None:
    stop = script(project, "stop.py", "sys.stderr.write('not yet'); sys.exit(2)\n")
    model = ScriptedModel(*(text_step(f"answer {n}") for n in range(10)))
    host = await hosts(model, cwd=project, hooks=(hook("Stop", stop),))
    sink = Collector()

    finished = await host.run_turn("go", sink)

    assert finished.status == "completed"
    assert len(model.requests) == 4  # the answer, then three times sent back
    assert any("kept the turn going 3 times" in notice.text for notice in sink.of(Notice))


async def test_a_hook_that_hangs_is_killed_and_the_turn_goes_on(project: Path, hosts) -> None:
    token = f"hook-sleep-{id(project)}"
    slow = HookConfig("PreToolUse", f"sh -c 'sleep 100; : {token}'", timeout=0.5)
    model = ScriptedModel(read_call("c1"), read_call("c2"), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(slow,))
    sink = Collector()

    finished = await host.run_turn("read", sink)

    assert finished.status == "completed"
    assert "the notes" in last_tool_result(model.requests[2])
    failures = [notice.text for notice in sink.of(Notice) if "timed out" in notice.text]
    assert len(failures) == 1  # said once, though it timed out on both calls
    assert live_processes_mentioning(token) == []


async def test_cancelling_the_turn_kills_a_running_hook(project: Path, hosts) -> None:
    token = f"hook-cancel-{id(project)}"
    marker = project / "started"
    slow = HookConfig("PreToolUse", f"touch {marker}; sh -c 'sleep 100; : {token}'")
    host = await hosts(ScriptedModel(read_call()), cwd=project, hooks=(slow,))
    turn = asyncio.create_task(host.run_turn("read", Collector()))
    while not marker.exists() or not live_processes_mentioning(token):
        await asyncio.sleep(0.02)

    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn

    assert live_processes_mentioning(token) == []


async def test_a_crashing_hook_is_reported_once_and_blocks_nothing(project: Path, hosts) -> None:
    crash = script(project, "crash.py", "raise RuntimeError('boom in the hook')\n")
    model = ScriptedModel(read_call("c1"), read_call("c2"), text_step("ok"))
    host = await hosts(
        model,
        cwd=project,
        hooks=(hook("PreToolUse", crash), hook("PostToolUse", crash), HookConfig("Stop", "/no/such/program")),
    )
    sink = Collector()

    finished = await host.run_turn("read", sink)

    assert finished.status == "completed"
    assert "the notes" in last_tool_result(model.requests[2])
    errors = [notice.text for notice in sink.of(Notice) if notice.level == "error"]
    assert len([e for e in errors if "PreToolUse hook" in e and "boom in the hook" in e]) == 1
    assert len([e for e in errors if "PostToolUse hook" in e]) == 1
    assert len([e for e in errors if "Stop hook" in e and "exited with code 127" in e]) == 1


async def test_continue_false_ends_the_turn_with_the_stop_reason(project: Path, hosts) -> None:
    pre = script(
        project, "pre.py", "print(json.dumps({'continue': False, 'stopReason': 'freeze in effect'}))\n"
    )
    model = ScriptedModel(read_call(), text_step("never"))
    host = await hosts(model, cwd=project, hooks=(hook("PreToolUse", pre),))

    finished = await host.run_turn("read", Collector())

    assert finished.status == "failed" and "freeze in effect" in (finished.error or "")
    assert len(model.requests) == 1


async def test_a_shell_script_reading_stdin_with_a_shell_tool_works(project: Path, hosts) -> None:
    """The shape of a typical Claude Code hook: a shell script that greps its stdin."""
    check = project / "check.sh"
    check.write_text(
        "#!/bin/sh\ninput=$(cat)\n"
        'case "$input" in *\'"tool_name": "Read"\'*) echo "blocked by check.sh" >&2; exit 2;; esac\n'
    )
    check.chmod(0o755)
    pinned_files.allow([check])  # the user's hook runs it from the project
    model = ScriptedModel(read_call(), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(HookConfig("PreToolUse", "./check.sh", matcher="Read"),))

    await host.run_turn("read", Collector())

    assert "blocked by check.sh" in last_tool_result(model.requests[1])


async def test_post_tool_use_runs_only_after_a_call_that_succeeded(project: Path, hosts) -> None:
    post = script(project, "post.py", "")
    model = ScriptedModel(read_call("c1", "missing.txt"), read_call("c2"), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(hook("PostToolUse", post),))

    await host.run_turn("read", Collector())

    assert [seen["tool_use_id"] for seen in inputs(post)] == ["c2"]


async def test_without_a_user_to_ask_a_hooks_question_refuses_the_call(project: Path, hosts) -> None:
    """``zett -p``: nobody can answer the hook's "ask", so the call does not run."""
    from zett_tui.runtime.unattended import ShellAllowList, UnattendedPolicy

    answer = {"hookSpecificOutput": {"permissionDecision": "ask"}}
    pre = script(project, "pre.py", f"print(json.dumps({answer!r}))\n")
    model = ScriptedModel(read_call(), text_step("ok"))
    host = await hosts(model, cwd=project, hooks=(hook("PreToolUse", pre),))
    policy = UnattendedPolicy(allow_edits=True, shell=ShellAllowList(), project_root=project)
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("read", sink))

    asked = await sink.decisions.get()
    reply = policy.answer(asked)
    assert host.answer(asked, reply.payload)
    await turn

    assert not reply.allowed
    assert "cannot ask the user" in last_tool_result(model.requests[1])


@pytest.mark.parametrize("how", ["write_file", "bash"])
async def test_a_user_hook_does_not_run_a_project_script_the_agent_rewrote(
    project: Path, hosts, tmp_path: Path, how: str
) -> None:
    # The attack: the user's own hook runs ./pre.py from the project, outside the sandbox; in auto
    # mode the model rewrites pre.py (an edit, or a sandboxed shell command) so the next hook run
    # would write outside the project unsandboxed.
    victim = tmp_path / "outside" / "pwned"
    victim.parent.mkdir()
    pre = script(project, "pre.py", "sys.exit(0)\n")
    hostile = f"open({str(victim)!r}, 'w').write('ran outside the sandbox')\n"
    rewrite = (
        tool_step("c1", "write_file", {"path": "pre.py", "content": hostile})
        if how == "write_file"
        else tool_step("c1", "bash", {"command": f"printf '%s' {json.dumps(hostile)} > pre.py"})
    )
    model = ScriptedModel(rewrite, read_call("c2"), text_step("done"))
    host = await hosts(
        model, cwd=project, hooks=(hook("PreToolUse", pre),), permission_mode=PermissionMode.AUTO
    )
    sink = Collector()

    await host.run_turn("tidy up", sink)

    assert "open(" in pre.read_text()  # the rewrite happened
    assert not victim.exists()
    assert len(inputs(pre)) == 1  # the hook ran for the first call only
    assert "the notes" in last_tool_result(model.requests[2])  # the turn went on
    [warning] = [event.text for event in sink.of(Notice) if "is not as you allowed it" in event.text]
    assert str(pre) in warning and "/extensions allow" in warning


async def test_a_user_hook_does_not_run_a_project_script_rewritten_in_an_earlier_session(
    project: Path, hosts, tmp_path: Path
) -> None:
    """A sandboxed command of the last session rewrote the script: this session does not take the
    planted bytes as it finds them; the hook waits until the user allows them."""
    victim = tmp_path / "outside" / "pwned"
    victim.parent.mkdir()
    pre = script(project, "pre.py", "sys.exit(0)\n")
    configured = hook("PreToolUse", pre)  # allowed as it was
    pre.write_text(pre.read_text() + f"open({str(victim)!r}, 'w').write('ran outside the sandbox')\n")
    model = ScriptedModel(read_call("c1"), read_call("c2"), text_step("done"))
    host = await hosts(model, cwd=project, hooks=(configured,), permission_mode=PermissionMode.AUTO)
    sink = Collector()
    await host.run_turn("read twice", sink)
    assert not victim.exists() and inputs(pre) == []
    warnings = [event.text for event in sink.of(Notice) if "is not as you allowed it" in event.text]
    assert len(warnings) == 1 and "/extensions allow" in warnings[0]  # said once
