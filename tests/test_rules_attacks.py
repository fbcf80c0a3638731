"""Issue 10, point 3: rules mean what they say. Attacks on prefix rules, ``--allow-shell``, the word
classifier, and the edit gate's protected paths, each with its ordinary counterpart so that a
rule that simply refused everything (or allowed everything) would fail here.

Shell attacks that run for real go through a real agent (bash tool + shell-approval extension +
``ShellPolicy``) with every question declined; edit attacks go through the real file tools and
the edit gate, and through ``zett -p`` (``run_headless``) with ``--allow-edits``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.test_edit_approval import SESSION as EDIT_SESSION
from tests.test_edit_approval import run_steps
from tests.test_headless import run as run_headless_turn
from tests.test_permissions import Modes, approvals, run_shell
from zett_tui.core import paths
from zett_tui.runtime.events import DecisionRequested
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell.policy import (
    ShellPolicy,
    ShellRules,
    dangerous_reason,
    prefix_problem,
    suggest_rules,
)
from zett_tui.runtime.shell.rule_scope import prefix_covers, runner_reason
from zett_tui.runtime.unattended import ShellAllowList, UnattendedPolicy
from zett_tui.ui.modals.shell_approval import rule_problem


def prefixes_offered(command: str, root: Path) -> list[str]:
    return [rule.command for rule in suggest_rules(command, root) if rule.kind == "prefix"]


def save_rule_file(project: Path, *rules: tuple[str, str]) -> ShellRules:
    """Write rules straight to the file, as an older zett (or a hand edit) could have saved them."""
    store = ShellRules(project)
    document = {"version": 1, "rules": [{"kind": kind, "command": command} for kind, command in rules]}
    paths.write_private_text(store.path, json.dumps(document))
    return ShellRules(project)


# -- 1. no prefix is offered for a program that runs other programs ------------------------------

RUNNERS = [
    "tar -tf a.tar",
    "bash scripts/build.sh",
    "sh -c 'ls'",
    "env ls",
    "/usr/bin/env ls",
    "command ls",
    "builtin echo hi",
    "time ls",
    "nice ls",
    "timeout 5 ls",
    "xargs ls",
    "find . -name x",
    "strace ls",
    "setsid ls",
    "flock lock ls",
    "script -c ls out",
    "python x.py",
    "python3.12 x.py",
    "/usr/bin/python3 x.py",
    "pypy3 x.py",
    "node x.js",
    "perl x.pl",
    "ruby x.rb",
    "php x.php",
    "lua x.lua",
    "awk '{print}' f",
    "gawk '{print}' f",
    "tclsh x.tcl",
    "Rscript x.R",
    "java -jar x.jar",
    "jshell",
    "make test",
    "make",
    "just build",
    "cmake --build build",
    "git -c core.pager=less log",
    "git -C sub status",
    "git --git-dir=.git log",
    "git --work-tree=. status",
    "git --exec-path=bin status",
    "git config user.name x",
    "git submodule foreach ls",
    "git bisect run ls",
    "git filter-branch --tree-filter ls",
    "git difftool",
    "curl http://127.0.0.1/",
    "wget http://127.0.0.1/",
    "ssh host ls",
    "scp a host:b",
    "rsync -a a b",
    "docker ps",
    "podman ps",
    "busybox ls",
    "chroot / ls",
    "unshare ls",
    "nsenter -t 1 ls",
    "ionice ls",
    "taskset 1 ls",
    "stdbuf -oL ls",
    "parallel ls ::: a",
    "watch ls",
    "gdb ls",
    "valgrind ls",
    "ltrace ls",
    "expect x.exp",
    "nohup ls",
    "sudo ls",
    "npx cowsay",
    "uv run python x.py",
    "poetry run python x.py",
    "sed -n 1p f",
    "vim f",
]


@pytest.mark.parametrize("command", RUNNERS)
def test_no_prefix_is_offered_for_a_program_that_runs_other_programs(project_dir: Path, command: str) -> None:
    assert prefixes_offered(command, project_dir) == []
    assert [rule.kind for rule in suggest_rules(command, project_dir)] == ["exact"]


ORDINARY = [
    ("pytest -x tests/", "pytest"),
    ("ls -la", "ls"),
    ("git status", "git status"),
    ("git diff --stat src/", "git diff"),
    ("git log --oneline HEAD~3..HEAD", "git log"),
    ("git commit -m 'fix: a/b'", "git commit"),
    ("git rebase -i main", "git rebase"),
    ("cargo test --release", "cargo test"),
    ("npm test", "npm test"),
    ("npm run build", "npm run build"),
    ("uv run pytest -q", "uv run pytest"),
    ("ruff check .", "ruff"),
    ("mypy src", "mypy"),
    ("rg TODO src", "rg"),
    ("ninja -C build", "ninja"),
    ("pytest tests/test_x.py::test_a -k 'a or b'", "pytest"),
    ("git diff --stat HEAD~1", "git diff"),  # not --output=FILE: it overwrites a project file
]


@pytest.mark.parametrize(("command", "prefix"), ORDINARY)
def test_ordinary_commands_are_offered_a_prefix_that_covers_them(
    project_dir: Path, command: str, prefix: str
) -> None:
    (project_dir / "src").mkdir(exist_ok=True)
    assert prefixes_offered(command, project_dir) == [prefix]
    rules = ShellRules(project_dir)
    saved = rules.add("prefix", prefix)
    assert rules.match(command) == saved
    assert ShellAllowList([prefix]).match(command, project_dir) == prefix


@pytest.mark.parametrize("prefix", ["tar", "make test", "python", "git config", "uv run python", "env"])
def test_a_runner_prefix_is_refused_by_the_dialog_and_covers_only_its_words(
    project_dir: Path, prefix: str
) -> None:
    problem = prefix_problem(prefix)
    assert problem is not None and "Allow exactly this command instead" in problem
    assert rule_problem("prefix", prefix) == problem
    assert runner_reason(tuple(prefix.split())) is not None
    rules = ShellRules(project_dir)
    saved = rules.add("prefix", prefix)  # a script or an old file may still hold one
    assert rules.match(prefix) == saved
    assert rules.match(f"{prefix} extra") is None


def test_an_ordinary_prefix_can_be_saved(project_dir: Path) -> None:
    assert prefix_problem("pytest") is None and prefix_problem("git diff") is None


# -- 2. a prefix rule matches only what it says --------------------------------------------------

CHECKPOINT = "tar -cf /dev/null a --checkpoint=1 --checkpoint-action=exec='rm -rf victim'"
NOT_COVERED = [
    ("tar", CHECKPOINT),
    ("tar", "tar -xf a.tar --to-command='rm -rf victim'"),
    ("tar", "tar -tf a.tar"),
    ("make", "make test"),
    ("make test", "make test CC='rm -rf victim'"),
    ("python", "python -c 'print(1)'"),
    ("env", "env rm -rf victim"),
    ("find", "find . -exec rm {} +"),
    ("git", "git -C /elsewhere reset --hard"),
    ("git", "git -c core.fsmonitor='rm -rf victim' status"),
    ("git", "git config core.hooksPath x"),
    ("git", "git submodule foreach 'rm -rf victim'"),
    ("git", "git --git-dir=/elsewhere/.git log"),
    ("uv run", "uv run python -c 'import os'"),
    ("pytest", "pytest --basetemp=OUTSIDE"),
    ("pytest", "pytest --basetemp OUTSIDE"),
    ("pytest", "pytest --basetemp=../escape"),
    ("pytest", "pytest --basetemp=link/x"),
    ("pytest", "pytest -o cache_dir=OUTSIDE"),
    ("pytest", "pytest --rootdir=/"),
    ("pytest", "pytest ~/x"),
    ("pytest", "pytest $HOME"),
    ("pytest", "pytest {a,/etc}"),
    ("pytest", "pytest .git/hooks"),
    ("pytest", "pytest -p/elsewhere/plugin"),
    ("git diff", "git diff --output=OUTSIDE"),
    ("git diff", "git diff --output=../x"),
    ("git diff", "git diff --output=.git/hooks/pre-commit"),
    ("git diff", "git diff --ext-diff"),
    ("git rebase", "git rebase -x 'rm -rf victim' main"),
    ("git rebase", "git rebase --exec='rm -rf victim' main"),
    ("git grep", "git grep -O'rm -rf victim' x"),
    ("rg", "rg --pre=./evil.sh x"),
    ("rg", "rg --pre ./evil.sh x"),
    ("fd", "fd -x rm"),
    ("ls", "ls link/"),
    ("ls", "ls lin*"),
    ("cp", "cp a OUTSIDE"),
]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    victim = tmp_path / "outside"
    victim.mkdir()
    (victim / "keep.txt").write_text("keep\n")
    return victim


@pytest.fixture
def linked(project_dir: Path, outside: Path) -> Path:
    (project_dir / "link").symlink_to(outside)
    return project_dir / "link"


@pytest.mark.parametrize(("prefix", "command"), NOT_COVERED)
def test_a_prefix_does_not_cover_what_it_does_not_say(
    project_dir: Path, outside: Path, linked: Path, prefix: str, command: str
) -> None:
    command = command.replace("OUTSIDE", str(outside))
    rules = save_rule_file(project_dir, ("prefix", prefix))
    assert rules.match(command) is None
    assert not prefix_covers(tuple(prefix.split()), command, project_dir)
    allow = ShellAllowList([prefix])
    assert allow.match(command, project_dir) is None
    policy = UnattendedPolicy(allow_edits=False, shell=allow, project_root=project_dir)
    answer = policy.answer(DecisionRequested("shell_approval_requested", "s", {"command": command}))
    assert not answer.allowed and answer.payload["decision"] == "abort"


def test_a_runner_prefix_still_covers_its_own_words_exactly(project_dir: Path) -> None:
    rules = save_rule_file(project_dir, ("prefix", "make test"))
    assert rules.match("make test") is not None
    assert rules.match("make test V=1") is None
    assert ShellAllowList(["make test"]).match("make test", project_dir) == "make test"


def test_a_glob_is_covered_when_everything_it_matches_is_inside(project_dir: Path, outside: Path) -> None:
    (project_dir / "a.txt").write_text("a")
    rules = ShellRules(project_dir)
    rules.add("prefix", "ls")
    assert rules.match("ls *.txt") is not None
    (project_dir / "b.txt").symlink_to(outside / "keep.txt")
    assert rules.match("ls *.txt") is None


def test_allow_shell_and_saved_rules_use_one_matching(project_dir: Path) -> None:
    """Both call ``rule_scope.prefix_covers``: the same answer for every pair above and below."""
    pairs = [(p, c) for p, c in NOT_COVERED if "OUTSIDE" not in c] + [(c.split()[0], c) for c, _ in ORDINARY]
    for prefix, command in pairs:
        saved = save_rule_file(project_dir, ("prefix", prefix)).match(command) is not None
        flag = ShellAllowList([prefix]).match(command, project_dir) is not None
        assert saved == flag == prefix_covers(tuple(prefix.split()), command, project_dir), (prefix, command)


# -- a saved prefix rule, for real: the attack asks, is declined, and the victim stays ---------


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "data.txt").write_text("precious\n")
    return folder


async def test_a_saved_tar_rule_does_not_run_a_checkpoint_action(project_dir: Path, victim: Path) -> None:
    rules = save_rule_file(project_dir, ("prefix", "tar"))
    (project_dir / "a").write_text("a")
    policy = ShellPolicy(rules, project_dir, Modes().mode_of, Modes().plan_active)
    command = f"tar -cf /dev/null a --checkpoint=1 --checkpoint-action=exec='rm -rf {victim}'"
    events, _ = await run_shell(policy, command)
    assert len(approvals(events)) == 1
    assert (victim / "data.txt").read_text() == "precious\n"
    assert policy.suggestions(command) == []  # the classifier flags it too: no rule at all
    assert [rule.kind for rule in policy.suggestions("tar -tf a.tar")] == ["exact"]


async def test_a_pytest_rule_does_not_run_pytest_with_an_outside_basetemp(
    project_dir: Path, victim: Path
) -> None:
    rules = ShellRules(project_dir)
    rules.add("prefix", "pytest")
    policy = ShellPolicy(rules, project_dir, Modes().mode_of, Modes().plan_active)
    events, _ = await run_shell(policy, f"pytest --basetemp={victim} -p no:cacheprovider")
    assert len(approvals(events)) == 1
    assert (victim / "data.txt").read_text() == "precious\n"


async def test_a_git_diff_rule_does_not_write_an_outside_output(project_dir: Path, victim: Path) -> None:
    rules = ShellRules(project_dir)
    rules.add("prefix", "git diff")
    policy = ShellPolicy(rules, project_dir, Modes().mode_of, Modes().plan_active)
    target = victim / "data.txt"
    events, _ = await run_shell(policy, f"git diff --no-index --output={target} /dev/null /dev/null")
    assert len(approvals(events)) == 1
    assert target.read_text() == "precious\n"


async def test_a_rule_still_runs_what_it_covers(project_dir: Path) -> None:
    rules = ShellRules(project_dir)
    rules.add("prefix", "echo")
    policy = ShellPolicy(rules, project_dir, Modes().mode_of, Modes().plan_active)
    events, model = await run_shell(policy, "echo covered-word")
    assert approvals(events) == []
    assert "covered-word" in last_tool_result(model.requests[-1])


async def test_allow_shell_refuses_an_uncovered_command_for_real(project_dir: Path, victim: Path) -> None:
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": f"touch {victim}/new.txt"}),
        tool_step("c2", "bash", {"command": "touch inside.txt"}),
        text_step("ok"),
    )
    result = await run_headless_turn(model, output="json", allow_shell=["touch"])
    assert not (victim / "new.txt").exists()
    assert (project_dir / "inside.txt").exists()
    assert [event["target"] for event in result.of("approved")] == ["touch inside.txt"]


# -- 5. the word classifier: variants that hid a command ------------------------------------------

DANGEROUS = [
    "$(echo rm) -rf victim",
    "`echo rm` -rf victim",
    "env -S 'rm -rf victim'",
    "/usr/bin/env -S 'rm -rf victim'",
    "env --split-string='rm -rf victim'",
    "time -p rm -rf victim",
    "echo 'rm -rf victim' | sh",
    "echo 'rm -rf victim' | bash -s",
    "cat script | python3",
    "/bin/r? -rf victim",
    "/bin/[r]m -rf victim",
    "X=rm; $X -rf victim",
    "busybox rm -rf victim",
    "toybox rm -rf victim",
    "setsid rm -rf victim",
    "setsid -f rm -rf victim",
    "command -p rm -rf victim",
    "flock lockfile rm -rf victim",
    "flock lockfile -c 'rm -rf victim'",
    "taskset -c 0 rm -rf victim",
    "stdbuf -oL rm -rf victim",
    "strace -f rm -rf victim",
    "watch 'rm -rf victim'",
    "script -qc 'rm -rf victim' /dev/null",
    "script -c 'rm -rf victim' /dev/null",
    "parallel rm -rf ::: victim",
    "git -C /elsewhere reset --hard",
    "git --git-dir=/elsewhere/.git --work-tree=/elsewhere checkout .",
    "git -c core.fsmonitor='rm -rf victim' status",
    "git -c alias.st='!rm -rf victim' st",
    "git --exec-path=bin status",
    "trap 'rm -rf victim' EXIT",
    'trap "rm -rf victim" EXIT; true',
    "python3 -c \"import shutil; shutil.rmtree('victim')\"",
    "python -c 'import os; os.system(\"rm -rf victim\")'",
    'python3 -c \'__import__("shutil").rmtree("victim")\'',
    "node -e \"require('fs').rmSync('victim', {recursive: true})\"",
    "perl -e 'system(\"rm -rf victim\")'",
    "ruby -e 'FileUtils.rm_rf(\"victim\")'",
    "curl -o OUTSIDE/x http://127.0.0.1/",
    "curl -so OUTSIDE/x http://127.0.0.1/",
    "curl -oOUTSIDE/x http://127.0.0.1/",
    "curl http://127.0.0.1/ --output=OUTSIDE/x",
    "wget -qO OUTSIDE/x http://127.0.0.1/",
    "wget -P OUTSIDE http://127.0.0.1/",
    "time -o OUTSIDE/t ls",
    "strace -o OUTSIDE/t ls",
    "echo x > /dev/fd/../../..OUTSIDE/x",
    "echo x > /dev/null/../..OUTSIDE/x",
    "ln -s OUTSIDE l; echo x > l/f",
    "ln -s OUTSIDE l && cp a l/",
    "ln -sf OUTSIDE/keep.txt l; echo x >> l",
    "ln OUTSIDE/keep.txt hard",
    "env -C OUTSIDE touch x",
    "echo x > .git/hooks/pre-commit",
    "echo x >> .git/config",
    "cp evil .git/config",
    "tee .zett/config.toml < x",
    "chroot / ls",
    "gdb -batch -ex 'shell rm -rf victim' ls",
    "sudo -u nobody ls",
    "tar -cf /dev/null a --checkpoint=1 --checkpoint-action=exec='rm -rf victim'",
    "git rebase --exec 'rm -rf victim' main",
]


@pytest.mark.parametrize("command", DANGEROUS)
def test_hidden_commands_are_dangerous(project_dir: Path, outside: Path, command: str) -> None:
    command = command.replace("OUTSIDE", str(outside))
    assert dangerous_reason(command, project_dir) is not None
    modes = Modes()
    modes.mode = PermissionMode.AUTO
    policy = ShellPolicy(ShellRules(project_dir), project_dir, modes.mode_of, modes.plan_active)
    verdict = policy.verdict("s", command)
    assert not verdict.allowed and verdict.dangerous
    assert policy.suggestions(command) == []


def test_a_write_to_a_hard_linked_file_is_dangerous(project_dir: Path, outside: Path) -> None:
    os.link(outside / "keep.txt", project_dir / "hard.txt")
    assert dangerous_reason("echo x >> hard.txt", project_dir) is not None
    (project_dir / "single.txt").write_text("x")
    assert dangerous_reason("echo x >> single.txt", project_dir) is None


HARMLESS = [
    "ls -la",
    "pytest -x",
    "git status",
    "git diff --stat",
    "git -C sub status",
    "git --no-pager log --oneline",
    "git log --oneline | head -5",
    "python3 -c 'print(1)'",
    "python -c 'import sys; print(sys.version)'",
    "node -p '1 + 1'",
    "python -m pytest -q",
    "python3 --version",
    "bash --version",
    "bash scripts/check.sh",
    "make test",
    "time pytest",
    "env FOO=1 pytest",
    "timeout 60 pytest -x",
    "echo x > /dev/fd/2",
    "echo x >&2",
    "curl -sS http://127.0.0.1/ -o out.json",
    "wget -qO page.html http://127.0.0.1/",
    "ln -s target name",
    "ln -s ../x l; cat l/f",
    "trap - EXIT",
    "watch -n 1 ls",
    "cat a | grep x",
]


@pytest.mark.parametrize("command", HARMLESS)
def test_ordinary_commands_are_not_dangerous(project_dir: Path, command: str) -> None:
    (project_dir / "sub").mkdir(exist_ok=True)
    assert dangerous_reason(command, project_dir) is None


async def test_a_hidden_delete_asks_in_auto_mode_for_real(project_dir: Path) -> None:
    (project_dir / "victim").mkdir()
    (project_dir / "victim" / "data.txt").write_text("precious\n")
    modes = Modes()
    modes.mode = PermissionMode.AUTO
    policy = ShellPolicy(ShellRules(project_dir), project_dir, modes.mode_of, modes.plan_active)
    for command in ("$(echo rm) -rf victim", "env -S 'rm -rf victim'", "echo 'rm -rf victim' | sh"):
        events, _ = await run_shell(policy, command)
        assert len(approvals(events)) == 1, command
        assert (project_dir / "victim" / "data.txt").read_text() == "precious\n"
    events, model = await run_shell(policy, "echo auto-still-runs")
    assert approvals(events) == [] and "auto-still-runs" in last_tool_result(model.requests[-1])


# -- 4. .git/ and .zett/ ask in every mode; zett -p never applies them ---------------------------


def reject(payload: dict[str, Any]) -> dict[str, Any]:
    return {"tool_call_id": payload["tool_call_id"], "decision": "reject"}


def apply_all(payload: dict[str, Any]) -> dict[str, Any]:
    return {"tool_call_id": payload["tool_call_id"], "decision": "apply_all"}


@pytest.fixture
def repo(project_dir: Path) -> Path:
    (project_dir / ".git" / "hooks").mkdir(parents=True)
    (project_dir / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (project_dir / ".zett").mkdir()
    (project_dir / ".zett" / "config.toml").write_text("# project settings\n")
    (project_dir / "sub" / ".git").mkdir(parents=True)
    (project_dir / "sub" / ".git" / "config").write_text("[core]\n")
    (project_dir / "notes.txt").write_text("notes\n")
    return project_dir


PROTECTED = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/info/attributes",
    ".zett/config.toml",
    ".zett/extensions/evil.py",
    "sub/.git/config",
    ".GIT/config",
    "./src/../.git/config",
    "CONFIG_DIR/config.toml",
    "config-link",
]


def protected_path(name: str, project: Path) -> str:
    if name == "config-link":
        link = project / "config-link"
        if not link.is_symlink():
            link.symlink_to(project / ".git" / "config")
        return name
    return name.replace("CONFIG_DIR", str(paths.config_dir()))


@pytest.mark.parametrize("mode", [PermissionMode.AUTO, PermissionMode.ACCEPT_EDITS, PermissionMode.ASK])
@pytest.mark.parametrize("name", PROTECTED)
async def test_protected_files_ask_in_every_mode_and_stay_when_refused(
    repo: Path, name: str, mode: PermissionMode
) -> None:
    path = protected_path(name, repo)
    target = (repo / path).resolve() if not Path(path).is_absolute() else Path(path)
    before = target.read_bytes() if target.exists() else None
    run = await run_steps(
        tool_step("w1", "write_file", {"path": path, "content": "[core]\n\tfsmonitor = rm -rf ~\n"}),
        reply=reject,
        mode=mode,
    )
    [asked] = run.asked
    assert asked["protected"]
    assert (target.read_bytes() if target.exists() else None) == before


async def test_apply_all_does_not_cover_protected_files(repo: Path) -> None:
    answers = iter([apply_all, reject, reject])
    run = await run_steps(
        tool_step("w1", "write_file", {"path": "notes.txt", "content": "one\n"}),
        tool_step("w2", "write_file", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nrm -rf ~\n"}),
        tool_step("w3", "edit", {"path": ".zett/config.toml", "edits": [{"old_text": "#", "new_text": "x"}]}),
        tool_step("w4", "write_file", {"path": "notes.txt", "content": "two\n"}),
        reply=lambda payload: next(answers)(payload),
    )
    assert [p["tool_call_id"] for p in run.asked] == ["w1", "w2", "w3"]
    assert run.gate.approves_all(EDIT_SESSION)
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert (repo / ".zett" / "config.toml").read_text() == "# project settings\n"
    assert (repo / "notes.txt").read_text() == "two\n"


async def test_ordinary_files_still_apply_without_asking_in_auto_mode(repo: Path) -> None:
    run = await run_steps(
        tool_step("w1", "write_file", {"path": "notes.txt", "content": "auto\n"}),
        tool_step("w2", "write_file", {"path": ".github/workflows/ci.yml", "content": "on: push\n"}),
        tool_step("w3", "write_file", {"path": ".gitignore", "content": "build/\n"}),
        mode=PermissionMode.AUTO,
    )
    assert run.asked == []
    assert (repo / "notes.txt").read_text() == "auto\n"
    assert (repo / ".gitignore").read_text() == "build/\n"


async def test_a_symlink_inside_that_points_outside_is_an_outside_change(
    project_dir: Path, outside: Path
) -> None:
    (project_dir / "inner").symlink_to(outside / "keep.txt")
    (project_dir / "folder").symlink_to(outside)
    run = await run_steps(
        tool_step("w1", "write_file", {"path": "inner", "content": "overwritten\n"}),
        tool_step("w2", "write_file", {"path": "folder/new.txt", "content": "new\n"}),
        tool_step("d1", "delete_file", {"path": "inner"}),
        reply=reject,
        mode=PermissionMode.AUTO,
    )
    assert [p["outside_project"] for p in run.asked] == [True, True, True]
    assert (outside / "keep.txt").read_text() == "keep\n"
    assert not (outside / "new.txt").exists()


async def test_a_hard_linked_file_is_replaced_not_written_through(project_dir: Path, outside: Path) -> None:
    """zett-agent writes a temporary file and renames it, so the other name keeps its content."""
    os.link(outside / "keep.txt", project_dir / "hard.txt")
    run = await run_steps(
        tool_step("w1", "write_file", {"path": "hard.txt", "content": "changed\n"}),
        tool_step(
            "e1", "edit", {"path": "hard.txt", "edits": [{"old_text": "changed", "new_text": "again"}]}
        ),
        mode=PermissionMode.AUTO,
    )
    assert run.asked == []
    assert (project_dir / "hard.txt").read_text() == "again\n"
    assert (outside / "keep.txt").read_text() == "keep\n"
    assert (outside / "keep.txt").stat().st_nlink == 1


@pytest.mark.parametrize("name", [".git/config", ".git/hooks/pre-commit", ".zett/config.toml", "config-link"])
async def test_zett_p_never_applies_protected_changes(repo: Path, name: str) -> None:
    path = protected_path(name, repo)
    target = (repo / path).resolve()
    before = target.read_bytes() if target.exists() else None
    model = ScriptedModel(
        tool_step("c1", "write_file", {"path": path, "content": "[core]\n\tfsmonitor = rm -rf ~\n"}),
        tool_step("c2", "write_file", {"path": "notes.txt", "content": "applied\n"}),
        text_step("ok"),
    )
    result = await run_headless_turn(model, output="json", allow_edits=True)
    assert (target.read_bytes() if target.exists() else None) == before
    [refused] = result.of("refused")
    assert refused["kind"] == "edit" and "never changed in a non-interactive run" in refused["reason"]
    assert (repo / "notes.txt").read_text() == "applied\n"
    assert ".git/" in last_tool_result(model.requests[1])


def test_the_unattended_policy_refuses_a_protected_path_even_without_the_gate_saying_so(repo: Path) -> None:
    policy = UnattendedPolicy(allow_edits=True, shell=ShellAllowList(), project_root=repo)
    payload = {"tool_call_id": "c1", "path": ".git/config", "absolute_path": str(repo / ".git" / "config")}
    answer = policy.answer(DecisionRequested("edit_approval_requested", "s", payload))
    assert not answer.allowed and answer.payload["decision"] == "reject"
    inside = {"tool_call_id": "c2", "path": "notes.txt", "absolute_path": str(repo / "notes.txt")}
    assert policy.answer(DecisionRequested("edit_approval_requested", "s", inside)).allowed
