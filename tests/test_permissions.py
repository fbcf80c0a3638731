"""Permission modes, saved shell rules, dangerous commands, and the shell policy in a real agent."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.bash import BashExtension
from zett_agent.extensions.external import ExternalEvent
from zett_agent.extensions.memory import InMemoryMessageAccumulator
from zett_agent.extensions.shell_approval import ShellApprovalExtension
from zett_agent.model import ReasoningEffort

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from zett_tui.core import paths
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell.policy import (
    Rule,
    ShellPolicy,
    ShellRules,
    dangerous_reason,
    suggest_rules,
)
from zett_tui.runtime.shell.words import ShellSyntaxError, parse

SESSION = "perm-session"
CONFIG = AgentRunConfig(session_id=SESSION)


# -- modes --------------------------------------------------------------------------------------


def test_modes_cycle_in_shift_tab_order() -> None:
    mode = PermissionMode.ASK
    seen = []
    for _ in range(5):
        seen.append(mode)
        mode = mode.next()
    assert seen == [
        PermissionMode.ASK,
        PermissionMode.ACCEPT_EDITS,
        PermissionMode.PLAN,
        PermissionMode.AUTO,
        PermissionMode.ASK,
    ]
    assert PermissionMode("accept_edits").label == "accept edits"


# -- parsing ------------------------------------------------------------------------------------


def test_parser_sees_what_shlex_hides() -> None:
    # shlex's punctuation mode reads "a#b" as a comment start and drops "; rm -rf /".
    parsed = parse("pytest a#b; rm -rf /")
    assert [c.argv for c in parsed.commands] == [("pytest", "a#b"), ("rm", "-rf", "/")]
    assert parse("pytest x\nrm y").operators == ("\n",)
    inner = parse('echo "a $(rm -rf /) b"')
    assert ("rm", "-rf", "/") in [c.argv for c in inner.commands] and not inner.is_simple
    assert parse("pytest -x 2>&1").is_simple
    for broken in ('echo "open', "echo $(x", "a )", "cat <"):
        with pytest.raises(ShellSyntaxError):
            parse(broken)


# -- rules --------------------------------------------------------------------------------------


@pytest.fixture
def rules(project_dir: Path) -> ShellRules:
    return ShellRules(project_dir)


def test_prefix_rules_match_whole_words(rules: ShellRules) -> None:
    git_diff = rules.add("prefix", "git diff")
    pytest_rule = rules.add("prefix", "pytest")
    assert rules.match("git diff --stat") == git_diff
    assert rules.match("git diff") == git_diff
    assert rules.match("git  diff   src/") == git_diff
    assert rules.match("git diff-tree HEAD") is None
    assert rules.match("git diffx") is None
    assert rules.match("git status") is None
    assert rules.match("pytest -x tests/") == pytest_rule
    assert rules.match("pytest -x 2>&1") == pytest_rule
    assert rules.match("pytest -q > /dev/null") == pytest_rule
    assert rules.match("pytestx") is None


@pytest.mark.parametrize(
    "command",
    [
        "pytest; rm -rf /",
        "pytest a#b; rm -rf /",
        "pytest && rm -rf /",
        "pytest || rm -rf /",
        "pytest | sh",
        "pytest & rm x",
        "pytest\nrm -rf /",
        "pytest `rm -rf /`",
        "pytest $(rm -rf /)",
        'pytest "$(rm -rf /)"',
        "pytest <(rm -rf /)",
        "pytest >(rm -rf /)",
        "pytest > out.txt",
        "pytest >> out.txt",
        "pytest 2> errors.txt",
        "LD_PRELOAD=evil.so pytest",
        "(pytest)",
        'pytest "unterminated',
    ],
)
def test_compound_commands_are_never_matched_by_a_prefix(rules: ShellRules, command: str) -> None:
    rules.add("prefix", "pytest")
    assert rules.match(command) is None


def test_exact_rules_match_only_the_whole_command(rules: ShellRules) -> None:
    exact = rules.add("exact", "git status && git diff")
    assert rules.match("git status && git diff") == exact
    assert rules.match("  git status && git diff  ") == exact
    assert rules.match("git status && git diff --stat") is None
    assert rules.match("git status") is None


def test_the_longest_prefix_wins_and_adding_twice_keeps_one(rules: ShellRules) -> None:
    rules.add("prefix", "git")
    narrow = rules.add("prefix", "git diff")
    assert rules.match("git diff --stat") == narrow
    assert rules.add("prefix", "git diff") == narrow
    assert len(rules.rules()) == 2


def test_a_prefix_rule_must_be_one_plain_command(rules: ShellRules) -> None:
    for bad in ("git status && git diff", "pytest > out.txt", "FOO=1 make", ""):
        with pytest.raises(ValueError):
            rules.add("prefix", bad)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git diff --stat src/", [("exact", "git diff --stat src/"), ("prefix", "git diff")]),
        ("pytest -x tests/", [("exact", "pytest -x tests/"), ("prefix", "pytest")]),
        ("uv run pytest -q", [("exact", "uv run pytest -q"), ("prefix", "uv run pytest")]),
        ("npm test", [("exact", "npm test"), ("prefix", "npm test")]),
        ("git status && rm -rf ~", [("exact", "git status && rm -rf ~")]),
        ("pytest; ls", [("exact", "pytest; ls")]),
        ("git -C elsewhere status", [("exact", "git -C elsewhere status")]),
        ("git", [("exact", "git")]),
        ("rm old.txt", [("exact", "rm old.txt")]),
        ("bash -c 'make'", [("exact", "bash -c 'make'")]),
        ("python -m pytest", [("exact", "python -m pytest")]),
        ("FOO=1 pytest", [("exact", "FOO=1 pytest")]),
        ("tar -tf a.tar", [("exact", "tar -tf a.tar")]),
        ("make test", [("exact", "make test")]),
        ("git config user.name x", [("exact", "git config user.name x")]),
        ("uv run python x.py", [("exact", "uv run python x.py")]),
        ("/usr/bin/env ls", [("exact", "/usr/bin/env ls")]),
        ("docker ps", [("exact", "docker ps")]),
    ],
)
def test_suggestions(command: str, expected: list[tuple[str, str]]) -> None:
    assert [(rule.kind, rule.command) for rule in suggest_rules(command)] == expected


def test_a_prefix_is_offered_only_when_it_covers_the_command(project_dir: Path) -> None:
    outside = project_dir.parent / "elsewhere"
    assert [r.kind for r in suggest_rules(f"pytest --basetemp={outside}", project_dir)] == ["exact"]
    assert [r.kind for r in suggest_rules("pytest --basetemp=tmp", project_dir)] == ["exact", "prefix"]


def test_rules_persist_privately_per_project(project_dir: Path) -> None:
    first = ShellRules(project_dir)
    first.add("prefix", "pytest")
    first.add("exact", "make lint && make test")
    digest = hashlib.sha256(str(project_dir.resolve()).encode()).hexdigest()[:16]
    assert first.path == paths.data_dir() / "permissions" / f"{digest}.json"
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o600

    again = ShellRules(project_dir)
    assert [(r.kind, r.command) for r in again.rules()] == [
        ("prefix", "pytest"),
        ("exact", "make lint && make test"),
    ]
    assert all(rule.created for rule in again.rules())
    assert again.problem is None

    other = ShellRules(project_dir.parent)
    assert other.rules() == [] and other.path != first.path

    again.remove(0)
    again.remove(Rule("exact", "make lint && make test"))
    assert ShellRules(project_dir).rules() == []


def test_rules_saved_by_another_process_are_seen(project_dir: Path) -> None:
    mine, theirs = ShellRules(project_dir), ShellRules(project_dir)
    theirs.add("prefix", "cargo test")
    assert mine.match("cargo test --all") is not None
    mine.add("prefix", "pytest")
    assert [r.command for r in ShellRules(project_dir).rules()] == ["cargo test", "pytest"]


def test_a_corrupt_rules_file_gives_no_rules_and_a_problem(project_dir: Path) -> None:
    path = ShellRules(project_dir).path
    paths.write_private_text(path, "{not json")
    rules = ShellRules(project_dir)
    assert rules.rules() == []
    assert rules.problem is not None and str(path) in rules.problem
    assert rules.match("pytest") is None

    rules.add("prefix", "pytest")
    assert rules.problem is None
    assert path.with_name(path.name + ".corrupt").read_text() == "{not json"
    assert [r.command for r in ShellRules(project_dir).rules()] == ["pytest"]


def test_unknown_rule_entries_are_skipped_with_a_problem(project_dir: Path) -> None:
    path = ShellRules(project_dir).path
    document = {"version": 1, "rules": [{"kind": "glob", "command": "*"}, {"kind": "exact", "command": "ls"}]}
    paths.write_private_text(path, json.dumps(document))
    rules = ShellRules(project_dir)
    assert [r.command for r in rules.rules()] == ["ls"]
    assert rules.problem is not None and "1 saved shell rule" in rules.problem


# -- dangerous commands -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf build", "deletes recursively"),
        ("rm -r build", "deletes recursively"),
        ("rm -R build", "deletes recursively"),
        ("rm -fr build", "deletes recursively"),
        ("rm --recursive build", "deletes recursively"),
        ("rm build -r", "deletes recursively"),
        ("cd / && rm -r x", "deletes recursively"),
        ("sudo rm -rf x", "deletes recursively"),
        ("env FOO=1 rm -r x", "deletes recursively"),
        ("git ls-files | xargs rm -r", "deletes recursively"),
        ("echo $(rm -rf ~)", "deletes recursively"),
        ("bash -lc 'rm -rf build'", "deletes recursively"),
        ("find . -delete", "deletes the files it finds (find -delete)"),
        ("find . -name '*.pyc' -exec rm {} \\;", "deletes the files it finds (find -exec rm)"),
        ("git clean -fdx", "deletes untracked files (git clean -f)"),
        ("git ls-files | xargs rm", "deletes files named on its input (xargs rm)"),
        ("echo x > /etc/hosts", "writes outside the project folder: /etc/hosts"),
        ("echo x >> /etc/hosts", "writes outside the project folder: /etc/hosts"),
        ("cat notes | tee -a /etc/motd", "writes outside the project folder: /etc/motd"),
        ("cp a ~/b", "writes outside the project folder: {HOME}/b"),
        ("chmod 600 /etc/passwd", "writes outside the project folder: /etc/passwd"),
        ("ls > $OUT", "writes to a path only known when it runs: $OUT"),
        ('echo "unterminated', "cannot be parsed safely"),
        ("sudo ls", "runs as another user (sudo)"),
    ],
)
def test_dangerous_commands(project_dir: Path, command: str, reason: str) -> None:
    # ``{HOME}`` is filled in when the test runs: each test has a home folder of its own.
    assert dangerous_reason(command, project_dir) == reason.replace("{HOME}", str(Path.home().resolve()))


def test_dangerous_paths_relative_to_the_project(project_dir: Path) -> None:
    outside = project_dir.parent.resolve()
    assert dangerous_reason("mv a ../b", project_dir) == f"writes outside the project folder: {outside / 'b'}"
    assert dangerous_reason("mv ../a b", project_dir) == f"writes outside the project folder: {outside / 'a'}"
    assert dangerous_reason("rm ../notes.txt", project_dir) == (
        f"deletes outside the project folder: {outside / 'notes.txt'}"
    )
    assert dangerous_reason("cd .. && touch x", project_dir) == (
        f"writes outside the project folder: {outside / 'x'}"
    )
    assert dangerous_reason("cd - && touch x", project_dir) == (
        "writes after `cd` to a folder that cannot be checked: x"
    )
    (project_dir / "escape").symlink_to(outside)
    assert dangerous_reason("echo x > escape/file", project_dir) == (
        f"writes outside the project folder: {outside / 'file'}"
    )


@pytest.mark.parametrize(
    "command",
    [
        "rm file.txt",
        "rm -f file.txt",
        "ls -la",
        "echo hi > out.txt",
        "echo hi >> logs/out.txt",
        "pytest -x 2>&1",
        "make > /dev/null 2>&1",
        "cd src && touch new.py",
        "mkdir -p build/out",
        "cp a.txt b.txt",
        "mv old.py new.py",
        "git clean -n",
        "git diff --stat",
        "find . -name '*.py'",
        "cat <<EOF > notes.md\nrm -rf / is only text here\nEOF",
    ],
)
def test_harmless_commands(project_dir: Path, command: str) -> None:
    assert dangerous_reason(command, project_dir) is None


# -- the policy in a real agent -----------------------------------------------------------------


class Modes:
    """Session modes as the UI would keep them."""

    def __init__(self) -> None:
        self.mode = PermissionMode.ASK
        self.plan = False

    def mode_of(self, session_id: str) -> PermissionMode:
        return self.mode

    def plan_active(self, session_id: str) -> bool:
        return self.plan


@pytest.fixture
def modes() -> Modes:
    return Modes()


@pytest.fixture
def policy(rules: ShellRules, project_dir: Path, modes: Modes) -> ShellPolicy:
    return ShellPolicy(rules, project_dir, modes.mode_of, modes.plan_active)


async def run_shell(
    policy: ShellPolicy, command: str, reply: dict[str, Any] | None = None
) -> tuple[list[AgentEvent], ScriptedModel]:
    """Run one ``bash`` call through a real agent; answer any approval with ``reply``."""
    model = ScriptedModel(tool_step("call-1", "bash", {"command": command}), text_step("done"))
    agent = await Agent.create(
        model,
        config=CONFIG,
        system_prompt="test",
        extensions=[InMemoryMessageAccumulator(), BashExtension(), ShellApprovalExtension(storage=policy)],
        reasoning_effort=ReasoningEffort.OFF,
    )
    events: list[AgentEvent] = []
    async for event in agent.stream("run it", config=CONFIG):
        events.append(event)
        if event.type is AgentEventType.CUSTOM and event.name == "shell_approval_requested":
            answer = reply or {"decision": "abort"}
            payload = {"tool_call_id": (event.payload or {})["tool_call_id"], **answer}
            assert agent.emit_external_event(ExternalEvent("shell_approval_response", payload), config=CONFIG)
    return events, model


def approvals(events: list[AgentEvent]) -> list[AgentEvent]:
    return [e for e in events if e.type is AgentEventType.CUSTOM and e.name == "shell_approval_requested"]


async def test_a_rule_matched_command_runs_without_asking(policy: ShellPolicy, rules: ShellRules) -> None:
    rules.add("prefix", "echo")
    events, model = await run_shell(policy, "echo ruled-run")
    assert approvals(events) == []
    assert "ruled-run" in last_tool_result(model.requests[-1])
    assert policy.allowed_by("echo ruled-run") == "rule: prefix `echo`"


async def test_an_unmatched_command_asks_and_abort_stops_it(policy: ShellPolicy, project_dir: Path) -> None:
    events, model = await run_shell(policy, "touch made.txt")
    assert len(approvals(events)) == 1
    assert not (project_dir / "made.txt").exists()
    assert "aborted by user" in last_tool_result(model.requests[-1])
    assert policy.allowed_by("touch made.txt") is None


async def test_auto_mode_runs_without_asking(policy: ShellPolicy, modes: Modes) -> None:
    modes.mode = PermissionMode.AUTO
    events, model = await run_shell(policy, "echo auto-run")
    assert approvals(events) == []
    assert "auto-run" in last_tool_result(model.requests[-1])
    assert policy.allowed_by("echo auto-run") == "auto mode"


async def test_a_dangerous_command_asks_even_in_auto_mode(
    policy: ShellPolicy, modes: Modes, rules: ShellRules, project_dir: Path
) -> None:
    modes.mode = PermissionMode.AUTO
    rules.add("exact", "rm -r build")
    (project_dir / "build").mkdir()
    events, _ = await run_shell(policy, "rm -r build")
    assert len(approvals(events)) == 1
    assert (project_dir / "build").is_dir()
    verdict = policy.verdict(SESSION, "rm -r build")
    assert not verdict.allowed and verdict.dangerous and verdict.reason == "deletes recursively"
    assert policy.suggestions("rm -r build") == []


async def test_plan_mode_asks_even_when_a_rule_matches(
    policy: ShellPolicy, modes: Modes, rules: ShellRules
) -> None:
    rules.add("prefix", "echo")
    modes.plan = True
    events, _ = await run_shell(policy, "echo planned")
    assert len(approvals(events)) == 1
    modes.plan, modes.mode = False, PermissionMode.PLAN
    assert not policy.verdict(SESSION, "echo planned").allowed


async def test_remember_saves_an_exact_rule(policy: ShellPolicy, rules: ShellRules) -> None:
    events, model = await run_shell(policy, "echo remember-me", {"decision": "execute", "remember": True})
    assert len(approvals(events)) == 1
    assert "remember-me" in last_tool_result(model.requests[-1])
    assert [(r.kind, r.command) for r in rules.rules()] == [("exact", "echo remember-me")]
    events, _ = await run_shell(policy, "echo remember-me")
    assert approvals(events) == []
    assert policy.allowed_by("echo remember-me") == "rule: exact `echo remember-me`"


async def test_remember_does_not_save_a_rule_for_a_dangerous_command(
    policy: ShellPolicy, rules: ShellRules
) -> None:
    await policy.allow_command("rm -rf nothing-here")
    assert rules.rules() == []


def test_parameter_expansion_with_operators_is_never_matched_and_always_asks(tmp_path: Path) -> None:
    from zett_tui.runtime.shell.policy import ShellRules, dangerous_reason

    rules = ShellRules(tmp_path, directory=tmp_path / "rules")
    rules.add("prefix", "pytest")
    sneaky = "pytest ${x:-$(rm -rf /)}"
    assert rules.match(sneaky) is None
    assert dangerous_reason(sneaky, tmp_path) is not None
    # A word whose value is only known when it runs is never covered by a prefix (it may be a
    # path outside the project); the same command with the value written out is.
    assert rules.match("pytest ${HOME}") is None and rules.match("pytest $HOME") is None
    assert rules.match("pytest home") is not None
