"""``zett -p``: in process with a scripted model, and as the real command against the fake server."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import Reply
from tests.fakes.scripted_model import (
    ScriptedModel,
    failing_step,
    last_tool_result,
    text_step,
    tool_step,
)
from zett_tui.core import paths
from zett_tui.entry.headless import (
    HeadlessUsageError,
    demo_fallback_reason,
    headless_request,
    read_prompt,
    run_headless,
)
from zett_tui.entry.launch import LaunchSettings
from zett_tui.entry.startup import prepare_launch
from zett_tui.runtime.events import DecisionRequested
from zett_tui.runtime.shell.policy import ShellRules
from zett_tui.runtime.unattended import ShellAllowList, UnattendedPolicy

# -- helpers ---------------------------------------------------------------------------------------


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    @property
    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.splitlines()]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [event for event in self.events if event["type"] == kind]


async def run(model: ScriptedModel, prompt: str = "go", **options: Any) -> Run:
    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(model_label="scripted", model_factory=lambda: model, cwd=Path.cwd())
    code = await run_headless(launch, prompt, out=out, err=err, handle_signals=False, **options)
    return Run(code, out.getvalue(), err.getvalue())


def recorded_turns() -> list[dict[str, Any]]:
    files = sorted(paths.sessions_dir().glob("*.jsonl"))
    assert len(files) == 1, files
    return [json.loads(line) for line in files[0].read_text().splitlines()]


def decision(kind: str, **payload: Any) -> DecisionRequested:
    return DecisionRequested(kind, "s1", {"tool_call_id": "c1", **payload})


# -- text and JSON output --------------------------------------------------------------------------


async def test_text_mode_streams_the_answer_and_reports_tools_on_stderr(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("hello\n")
    model = ScriptedModel(
        tool_step("c1", "read_file", {"path": "notes.txt"}, text="Let me look."),
        text_step("It says **hello**.", chunk=3),
    )
    result = await run(model, "what is in notes.txt?")
    assert result.code == 0
    assert result.out == "Let me look.\n\nIt says **hello**.\n"
    assert result.err == "zett: read_file notes.txt\n"
    [turn] = recorded_turns()
    assert turn["status"] == "completed"
    assert turn["messages"][0]["data"]["content"] == "what is in notes.txt?"


async def test_json_mode_prints_one_event_per_line(project_dir: Path) -> None:
    model = ScriptedModel(
        tool_step("c1", "glob", {"pattern": "*.txt"}),
        text_step("Nothing here.", reasoning="look first"),
    )
    result = await run(model, output="json")
    assert result.code == 0 and result.err == ""
    kinds = [event["type"] for event in result.events]
    assert kinds[0] == "session" and kinds[-1] == "turn_finished"
    session = result.events[0]
    assert session["model"] == "scripted" and session["resumed"] is False
    [started] = result.of("tool_started")
    assert started == {
        "type": "tool_started",
        "call_id": "c1",
        "name": "glob",
        "arguments": {"pattern": "*.txt"},
    }
    [finished] = result.of("tool_finished")
    assert finished["state"] == "done" and finished["call_id"] == "c1"
    assert "".join(event["text"] for event in result.of("text")) == "Nothing here."
    assert "".join(event["text"] for event in result.of("reasoning")) == "look first"
    assert len(result.of("usage")) == 2
    assert result.events[-1] == {
        "type": "turn_finished",
        "status": "completed",
        "error": None,
        "session_id": session["session_id"],
    }


async def test_a_failed_turn_exits_1_with_one_line_and_is_recorded(project_dir: Path) -> None:
    result = await run(ScriptedModel(failing_step(RuntimeError("the provider broke"))))
    assert result.code == 1
    assert result.out == ""
    [line] = result.err.splitlines()
    assert line.startswith("zett: ") and "Traceback" not in result.err
    assert [turn["status"] for turn in recorded_turns()] == ["failed"]


async def test_a_model_that_cannot_start_exits_1(project_dir: Path) -> None:
    def broken() -> Any:
        raise RuntimeError("no such model")

    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(model_label="broken", model_factory=broken, cwd=project_dir)
    code = await run_headless(launch, "hi", output="json", out=out, err=err, handle_signals=False)
    assert code == 1
    [event] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert event["type"] == "turn_finished" and event["status"] == "failed"
    assert event["error"].startswith("could not start the model")
    assert err.getvalue().startswith("zett: could not start the model")


# -- shell commands --------------------------------------------------------------------------------


async def test_an_allowed_prefix_runs_the_command(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch made.txt"}), text_step("Done."))
    result = await run(model, allow_shell=["touch"])
    assert result.code == 0
    assert (project_dir / "made.txt").exists()
    assert result.err == "zett: ran `touch made.txt`\n"


async def test_a_command_without_a_flag_is_refused_with_how_to_allow_it(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch made.txt"}), text_step("I could not."))
    result = await run(model, allow_shell=["ls"])
    assert result.code == 0
    assert not (project_dir / "made.txt").exists()
    assert result.err == (
        "zett: refused shell command `touch made.txt` "
        "(not allowed in non-interactive mode; allow it with --allow-shell touch)\n"
    )
    told = last_tool_result(model.requests[-1])
    [turn] = recorded_turns()  # the session keeps what the flags decided, as a declined call
    assert turn["metadata"]["zett"]["decisions"] == [
        {
            "text": "✗ zett -p refused shell command `touch made.txt` (not allowed in non-interactive "
            "mode; allow it with --allow-shell touch)",
            "call_id": "c1",
            "subagent_session": None,
            "declined": True,
        }
    ]
    assert "aborted by user" not in told  # nobody was asked: the model is told the rule's reason
    assert "not allowed in non-interactive mode; allow it with --allow-shell touch" in told
    assert result.out == "I could not.\n"


async def test_compound_and_dangerous_commands_are_refused_despite_a_prefix(project_dir: Path) -> None:
    (project_dir / "keep").mkdir()
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": "touch a.txt; touch b.txt"}),
        tool_step("c2", "bash", {"command": "rm -rf keep"}),
        text_step("ok"),
    )
    result = await run(model, output="json", allow_shell=["touch", "rm"])
    assert result.code == 0
    assert not (project_dir / "a.txt").exists() and (project_dir / "keep").is_dir()
    compound, dangerous = result.of("refused")
    assert compound["kind"] == "shell" and compound["target"] == "touch a.txt; touch b.txt"
    assert "compound" in compound["hint"]
    assert dangerous["target"] == "rm -rf keep" and "recursive" in dangerous["reason"]
    assert not result.of("approved")


async def test_json_mode_reports_approvals_with_the_flag(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch made.txt"}), text_step("ok"))
    result = await run(model, output="json", allow_shell=["touch made.txt"])
    [approved] = result.of("approved")
    [session] = result.of("session")
    assert approved == {
        "type": "approved",
        "kind": "shell",
        "call_id": "c1",
        "session_id": session["session_id"],
        "target": "touch made.txt",
        "reason": "--allow-shell 'touch made.txt'",
    }


async def test_a_rule_saved_in_the_app_still_applies_and_is_reported(project_dir: Path) -> None:
    ShellRules(project_dir).add("prefix", "touch")
    model = ScriptedModel(tool_step("c1", "bash", {"command": "touch made.txt"}), text_step("ok"))
    text = await run(model)
    assert (project_dir / "made.txt").exists()
    assert text.err.splitlines() == [
        "zett: ran `touch made.txt`",
        "zett: Ran without asking: allowed by rule: prefix `touch`.",
    ]


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("pytest", True),
        ("pytest -x tests/", True),
        ("pytest -x 2>&1", True),
        ("pytestx", False),
        ("pytest; rm -rf /", False),
        ("pytest && rm x", False),
        ("pytest | tee out", False),
        ("pytest & rm x", False),
        ("pytest $(rm x)", False),
        ("pytest `rm x`", False),
        ("pytest > out.txt", False),
        ("pytest < in.txt", False),
        ("pytest\nrm x", False),
        ("pytest ${x:-$(rm x)}", False),
        ("FOO=1 pytest", False),
        ("python -m pytest", False),
    ],
)
def test_prefixes_match_whole_words_of_one_plain_command(command: str, allowed: bool) -> None:
    assert (ShellAllowList(["pytest"]).match(command) == "pytest") is allowed


def test_the_longest_prefix_wins_and_bad_prefixes_are_refused() -> None:
    rules = ShellAllowList(["git", "git diff"])
    assert rules.match("git diff --stat") == "git diff"
    assert rules.match("git status") == "git"
    for bad in ("", "a; b", "x | y", "$(x)"):
        with pytest.raises(ValueError):
            ShellAllowList([bad])


async def test_a_bad_allow_shell_prefix_is_a_usage_error(project_dir: Path) -> None:
    result = await run(ScriptedModel(text_step("never")), allow_shell=["make; rm"])
    assert result.code == 2 and "--allow-shell" in result.err
    assert not paths.sessions_dir().exists()


# -- edits, questions, Plan Mode -------------------------------------------------------------------


async def test_edits_are_refused_without_allow_edits(project_dir: Path) -> None:
    model = ScriptedModel(
        tool_step("c1", "write_file", {"path": "new.py", "content": "x = 1\n"}), text_step("Not written.")
    )
    result = await run(model)
    assert result.code == 0
    assert not (project_dir / "new.py").exists()
    assert "refused change to new.py" in result.err and "--allow-edits" in result.err
    assert "--allow-edits" in last_tool_result(model.requests[-1])


async def test_allow_edits_applies_changes_inside_the_project_only(project_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    model = ScriptedModel(
        tool_step("c1", "write_file", {"path": "new.py", "content": "x = 1\n"}),
        tool_step("c2", "write_file", {"path": str(outside), "content": "no\n"}),
        text_step("ok"),
    )
    result = await run(model, output="json", allow_edits=True)
    assert (project_dir / "new.py").read_text() == "x = 1\n"
    assert not outside.exists()
    [approved] = result.of("approved")
    assert approved["kind"] == "edit" and approved["reason"] == "--allow-edits"
    [refused] = result.of("refused")
    assert refused["target"] == str(outside) and "outside the project" in refused["reason"]


async def test_questions_for_the_user_are_declined(project_dir: Path) -> None:
    model = ScriptedModel(
        tool_step("c1", "ask_user", {"question": "Which file?"}), text_step("I picked one myself.")
    )
    result = await run(model)
    assert result.code == 0
    assert "declined the model's question “Which file?”" in result.err
    sent = last_tool_result(model.requests[-1])
    assert '"declined": true' in sent and "non-interactive" in sent
    assert result.out == "I picked one myself.\n"


def test_plan_mode_is_declined_with_the_strict_reply_shape() -> None:
    policy = UnattendedPolicy(allow_edits=True, shell=ShellAllowList(), project_root=Path.cwd())
    for kind in ("enter_plan_mode", "exit_plan_mode"):
        answer = policy.answer(decision(kind, reason="big change"))
        assert answer.payload == {"session_id": "s1", "tool_call_id": "c1", "approved": False}
        assert not answer.allowed
    unknown = policy.answer(decision("something_new"))
    assert unknown.payload == {"tool_call_id": "c1", "decision": "abort"} and not unknown.allowed


# -- stopping --------------------------------------------------------------------------------------


async def test_sigint_cancels_the_turn_records_it_and_exits_130(project_dir: Path) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("first part, then a long wait", gate=gate))
    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(model_label="scripted", model_factory=lambda: model, cwd=project_dir)
    task = asyncio.create_task(run_headless(launch, "wait", out=out, err=err))
    for _ in range(500):
        if out.getvalue():
            break
        await asyncio.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)
    assert await asyncio.wait_for(task, 10) == 130
    assert err.getvalue() == "zett: cancelled\n"
    assert [turn["status"] for turn in recorded_turns()] == ["cancelled"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError


async def test_a_closed_stdout_cancels_the_turn_quietly(project_dir: Path) -> None:
    model = ScriptedModel(text_step("nobody reads this"))
    err = io.StringIO()
    launch = LaunchSettings(model_label="scripted", model_factory=lambda: model, cwd=project_dir)
    code = await run_headless(launch, "hi", out=ClosedPipe(), err=err, handle_signals=False)
    assert code == 141 and err.getvalue() == ""
    assert [turn["status"] for turn in recorded_turns()] == ["cancelled"]


# -- the prompt and the flags ----------------------------------------------------------------------


def pipe_with(data: bytes) -> Any:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return open(read_end, encoding="utf-8")


def options(**values: Any) -> argparse.Namespace:
    defaults = {"prompt": None, "output": None, "allow_edits": False, "allow_shell": []}
    return argparse.Namespace(**{**defaults, **values})


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_prompt_from_the_flag_stdin_or_both() -> None:
    assert read_prompt("explain", Terminal()) == "explain"
    with pipe_with(b"def f(): pass\n") as stdin:
        assert read_prompt("explain", stdin) == "explain\n\ndef f(): pass\n"
    with pipe_with(b"question from a pipe") as stdin:
        assert read_prompt("-", stdin) == "question from a pipe"
    with pipe_with(b"  \n") as stdin, pytest.raises(HeadlessUsageError):
        read_prompt(None, stdin)
    with pytest.raises(HeadlessUsageError):
        read_prompt("   ", Terminal())


def test_which_command_lines_run_without_the_app() -> None:
    assert headless_request(options(), Terminal()) is None
    with pytest.raises(HeadlessUsageError, match="--allow-shell only apply with -p"):
        headless_request(options(allow_shell=["ls"]), Terminal())
    with pipe_with(b"piped question") as stdin:
        request = headless_request(options(), stdin)
    assert request is not None and request.prompt == "piped question" and request.output == "text"
    with pytest.raises(HeadlessUsageError, match="one plain command"):
        headless_request(options(prompt="hi", allow_shell=["make && rm"]), Terminal())
    request = headless_request(options(prompt="hi", output="json", allow_shell=["ls"]), Terminal())
    assert request is not None and (request.prompt, request.output, request.allow_shell) == (
        "hi",
        "json",
        ["ls"],
    )


def test_a_fallback_to_the_demo_is_a_failure_but_asking_for_it_is_not(project_dir: Path) -> None:
    fallback = prepare_launch(cwd=project_dir, env={})
    reason = demo_fallback_reason(fallback)
    assert reason is not None and "--demo" in reason and "ANTHROPIC_API_KEY" in reason
    assert demo_fallback_reason(prepare_launch(cwd=project_dir, env={}, model="demo")) is None


async def test_the_fallback_exits_1_without_running(project_dir: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    launch = prepare_launch(cwd=project_dir, env={})
    assert await run_headless(launch, "hi", out=out, err=err, handle_signals=False) == 1
    assert out.getvalue() == ""
    assert err.getvalue().startswith("zett: no usable model")
    assert not paths.sessions_dir().exists()


# -- the real command against the fake OpenAI server -----------------------------------------------

KEY = "sk-test-not-a-real-key-000000000000"


def cli_env(server: Any, key: str = KEY) -> dict[str, str]:
    """The test's own folders (set by conftest) and the fake server's address."""
    home = str(Path(os.environ["XDG_DATA_HOME"]).parent)
    return {**os.environ, "HOME": home, "OPENAI_API_KEY": key, "OPENAI_BASE_URL": server.openai_base_url}


def zett(server: Any, *args: str, stdin: str = "", key: str = KEY) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zett_tui", "--model", "openai:gpt-test", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(server, key),
        timeout=60,
    )


def test_cli_prints_the_answer_and_records_the_turn(llm_server) -> None:
    llm_server.script(Reply.text("The answer is **42**.", chunk=4))
    done = zett(llm_server, "-p", "what is the answer?")
    assert (done.returncode, done.stdout, done.stderr) == (0, "The answer is **42**.\n", "")
    [turn] = recorded_turns()
    assert turn["status"] == "completed"
    assert turn["messages"][0]["data"]["content"] == "what is the answer?"
    assert KEY not in json.dumps(turn)


def test_cli_a_rejected_key_exits_1_with_one_line(llm_server) -> None:
    llm_server.script(Reply.error(401))
    done = zett(llm_server, "-p", "hi", key="sk-wrong")
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("zett: ") and "401" in line and "OPENAI_API_KEY" in line
    assert [turn["status"] for turn in recorded_turns()] == ["failed"]


def test_cli_runs_allowed_shell_commands_and_refuses_the_others(llm_server, project_dir: Path) -> None:
    llm_server.script(
        Reply.tool_call("bash", {"command": "touch ran.txt"}),
        Reply.tool_call("bash", {"command": "ls -la"}, call_id="call_fake_2"),
        Reply.text("Created it; listing was refused."),
    )
    done = zett(llm_server, "-p", "make the file", "--allow-shell", "touch")
    assert done.returncode == 0, done.stderr
    assert (project_dir / "ran.txt").exists()
    assert done.stdout == "Created it; listing was refused.\n"
    assert done.stderr.splitlines() == [
        "zett: ran `touch ran.txt`",
        "zett: refused shell command `ls -la` "
        "(not allowed in non-interactive mode; allow it with --allow-shell ls)",
    ]
    told = json.dumps(llm_server.requests[-1].body)
    assert "aborted by user" not in told
    assert "not allowed in non-interactive mode" in told


def test_cli_reads_stdin_prints_json_and_appends_piped_context(llm_server) -> None:
    llm_server.script(Reply.text("From stdin.", chunk=4), Reply.text("Explained."))
    first = zett(llm_server, "--output", "json", stdin="a question on stdin\n")
    second = zett(llm_server, "-p", "explain", "--continue", stdin="print('hi')\n")
    assert (first.returncode, first.stderr) == (0, "")
    events = [json.loads(line) for line in first.stdout.splitlines()]
    assert events[0]["type"] == "session" and events[0]["model"] == "openai:gpt-test"
    assert "".join(event["text"] for event in events if event["type"] == "text") == "From stdin."
    assert events[-1]["type"] == "turn_finished" and events[-1]["status"] == "completed"
    assert (second.returncode, second.stdout) == (0, "Explained.\n"), second.stderr
    turns = recorded_turns()
    assert [turn["messages"][0]["data"]["content"] for turn in turns] == [
        "a question on stdin\n",
        "explain\n\nprint('hi')\n",
    ]
    assert turns[0]["session_id"] == turns[1]["session_id"]


def test_cli_sigterm_cancels_and_records_the_turn(llm_server) -> None:
    llm_server.script(Reply.stall(60, after_chunks=1))
    process = subprocess.Popen(
        [sys.executable, "-m", "zett_tui", "--model", "openai:gpt-test", "-p", "wait"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(llm_server),
    )
    try:
        assert process.stdout is not None
        process.stdout.read(1)  # the first streamed piece: the turn is running
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 143, stderr
    assert stderr.strip().endswith("zett: cancelled")
    assert [turn["status"] for turn in recorded_turns()] == ["cancelled"]


def test_cli_usage_errors_exit_2(llm_server) -> None:
    done = zett(llm_server, "-p", "")
    assert done.returncode == 2 and "empty" in done.stderr
    done = zett(llm_server, "--allow-edits", stdin="")
    assert done.returncode == 2 and "the prompt is empty" in done.stderr
    assert llm_server.requests == []
