"""Saved "always allow" shell rules, and the shell policy the runtime asks.

- ``ShellRules``: one project's saved rules, ``exact`` (the whole command) or ``prefix`` (leading
  shell words), kept 0600 under ``data_dir()/permissions/``.
- ``ShellPolicy``: zett-agent's ``ShellApprovalStorage``. The shell-approval extension asks it
  before every ``bash`` call, in the ``PermissionMode`` (``runtime.modes``) the user chose; True
  runs the command without a dialog.
- ``dangerous_reason`` (from ``shell_danger``): commands that ask in every mode.

What a prefix rule covers is decided in one place, ``rule_scope.prefix_covers`` (also used by
``zett -p --allow-shell``): one plain command whose leading words are the prefix, and, beyond
the prefix, no word that points outside the project or into ``.git/``/``.zett/``, no option that
runs a command, and a program that cannot run other programs (for those, ``tar``, ``make``,
``python``, ``git -C``..., a rule covers only the very same words). The dialog offers a prefix
only when it is narrow and covers the command it is offered for; else only the exact command.
An exact rule equals the whole command.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from threading import Lock
from typing import Literal

from zett_agent.extensions.shell_approval import ShellApprovalMode

from zett_tui.core import paths
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell.danger import dangerous_reason
from zett_tui.runtime.shell.rule_scope import RUNNER_COMMANDS, plain_command, prefix_covers, runner_reason
from zett_tui.runtime.shell.words import ParsedCommand

__all__ = [
    "Rule",
    "RuleKind",
    "ShellPolicy",
    "ShellRules",
    "ShellVerdict",
    "dangerous_reason",
    "prefix_problem",
    "prefix_words",
    "suggest_rules",
]

log = logging.getLogger(__name__)

RuleKind = Literal["exact", "prefix"]
_FILE_VERSION = 1


# -- rules --------------------------------------------------------------------------------------

#: Tools whose second word picks what they do (``git diff`` vs ``git push``).
MULTI_COMMAND_TOOLS = frozenset(
    {
        "git", "npm", "pnpm", "yarn", "bun", "cargo", "uv", "pip", "pip3", "poetry", "pdm", "hatch",
        "docker", "podman", "kubectl", "helm", "go", "make", "gh", "terraform", "dotnet", "mvn",
        "gradle", "brew", "apt", "apt-get", "systemctl", "conda", "rustup", "deno", "nix",
    }
)  # fmt: skip
#: ``tool subcommand`` pairs that run an arbitrary third word; the suggestion includes it.
RUNNER_SUBCOMMANDS = frozenset(
    {
        ("uv", "run"), ("uv", "tool"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run"),
        ("npm", "run"), ("npm", "exec"), ("pnpm", "run"), ("pnpm", "exec"), ("pnpm", "dlx"),
        ("yarn", "run"), ("yarn", "dlx"), ("bun", "run"), ("bun", "x"), ("cargo", "run"),
        ("go", "run"), ("docker", "run"), ("docker", "exec"), ("podman", "run"), ("podman", "exec"),
        ("kubectl", "exec"), ("gh", "api"), ("nix", "run"), ("deno", "run"),
    }
)  # fmt: skip
#: File-changing tools never offered as a prefix (their arguments are what they change).
FILE_CHANGING_COMMANDS = frozenset(
    {
        "rm", "rmdir", "mv", "cp", "ln", "install", "chmod", "chown", "chgrp", "tee", "kill",
        "pkill", "killall", "shred", "truncate", "mkfs", "unlink",
    }
)  # fmt: skip
#: First words never offered as a prefix: they run code or change files given as arguments.
NO_PREFIX_COMMANDS = FILE_CHANGING_COMMANDS | RUNNER_COMMANDS
_PLAIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:+@-]*")


@dataclass(frozen=True, slots=True)
class Rule:
    kind: RuleKind
    command: str
    created: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"{self.kind} `{self.command}`"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "command": self.command, "created": self.created}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def prefix_words(parsed: ParsedCommand) -> tuple[str, ...] | None:
    """The words of a command a prefix rule may match, or None when only an exact rule may."""
    if not parsed.is_simple:
        return None
    command = parsed.commands[0]
    if command.assignments or not command.words:
        return None
    for redirect in command.redirects:
        if not (redirect.duplicates_descriptor or redirect.target.text == "/dev/null"):
            return None
    return command.argv


def _words_of(command: str) -> tuple[str, ...] | None:
    simple = plain_command(command)
    return simple.argv if simple is not None else None


def prefix_problem(command: str) -> str | None:
    """Why ``command`` cannot be saved as a prefix rule, or None when it can."""
    words = _words_of(command)
    if not words:
        return "A prefix must be plain words of one command (no ;, &&, |, $(...) or redirections)."
    runner = runner_reason(words)
    if runner is not None:
        return f"No prefix rule for this: {runner}. Allow exactly this command instead."
    return None


def suggest_rules(command: str, project_root: Path | None = None) -> list[Rule]:
    """Rules to offer in the approval dialog: the exact command, then at most one narrow prefix.

    A prefix is offered only for a plain command whose program cannot run other programs or
    change the files it is given (``rule_scope.runner_reason``, ``FILE_CHANGING_COMMANDS``):
    first word + subcommand for tools like git/npm/cargo (plus the script or program for
    runners like ``uv run``/``npm run``), the first word alone otherwise. With ``project_root``
    it is offered only when it covers ``command`` (``pytest --basetemp=/tmp/x`` gets none).
    """
    stripped = command.strip()
    suggestions = [Rule("exact", stripped)]
    words = _words_of(stripped)
    if not words or runner_reason(words) is not None:
        return suggestions
    prefix = _narrow_prefix(words)
    if prefix is None:
        return suggestions
    if project_root is not None and not prefix_covers(prefix, stripped, project_root):
        return suggestions
    suggestions.append(Rule("prefix", shlex.join(prefix)))
    return suggestions


def _narrow_prefix(words: tuple[str, ...]) -> tuple[str, ...] | None:
    first = words[0]
    if not _PLAIN_WORD.fullmatch(first):
        return None
    if first in MULTI_COMMAND_TOOLS:
        if len(words) < 2 or not _PLAIN_WORD.fullmatch(words[1]):
            return None
        if (first, words[1]) in RUNNER_SUBCOMMANDS:
            if len(words) < 3 or not _PLAIN_WORD.fullmatch(words[2]):
                return None
            return words[:3]
        return words[:2]
    if first in NO_PREFIX_COMMANDS:
        return None
    return words[:1]


class ShellRules:
    """The saved shell rules of one project folder.

    The file is re-read when another zett process changed it; a damaged file gives no rules and
    a ``problem`` the UI can show, and is moved aside (``.corrupt``) on the next save.
    """

    def __init__(self, project_root: Path, *, directory: Path | None = None) -> None:
        self.project_root = project_root.resolve()
        digest = hashlib.sha256(str(self.project_root).encode("utf-8")).hexdigest()[:16]
        self.path = (directory or paths.data_dir() / "permissions") / f"{digest}.json"
        self.problem: str | None = None
        self._rules: list[Rule] = []
        self._words: dict[str, tuple[str, ...] | None] = {}
        self._stamp: tuple[int, int] | None = None
        self._lock = Lock()
        with self._lock:
            self._load()

    def rules(self) -> list[Rule]:
        with self._lock:
            self._refresh()
            return list(self._rules)

    def match(self, command: str) -> Rule | None:
        """The rule that allows ``command``: an exact rule first, else the longest prefix rule."""
        stripped = command.strip()
        with self._lock:
            self._refresh()
            rules = list(self._rules)
        for rule in rules:
            if rule.kind == "exact" and rule.command == stripped:
                return rule
        best: Rule | None = None
        best_length = 0
        for rule in rules:
            if rule.kind != "prefix":
                continue
            prefix = self._prefix_of(rule)
            if prefix and len(prefix) > best_length and prefix_covers(prefix, stripped, self.project_root):
                best, best_length = rule, len(prefix)
        return best

    def add(self, kind: RuleKind, command: str) -> Rule:
        """Save a rule (an identical one is returned, not duplicated)."""
        stripped = command.strip()
        if kind not in ("exact", "prefix"):
            raise ValueError(f"unknown rule kind: {kind!r}")
        if not stripped:
            raise ValueError("a rule needs a command")
        if kind == "prefix" and not _words_of(stripped):
            # A prefix for a program that runs others (``prefix_problem``) is saved when asked
            # for, but covers only its very own words (``rule_scope.prefix_covers``).
            raise ValueError(f"a prefix rule must be one plain command, not {stripped!r}")
        rule = Rule(kind, stripped, _now())
        with self._lock:
            self._refresh()
            for existing in self._rules:
                if existing == rule:
                    return existing
            self._rules.append(rule)
            self._save()
        return rule

    def remove(self, rule: Rule | int) -> Rule:
        with self._lock:
            self._refresh()
            index = rule if isinstance(rule, int) else self._rules.index(rule)
            removed = self._rules.pop(index)
            self._save()
        return removed

    def suggest_rules(self, command: str) -> list[Rule]:
        return suggest_rules(command, self.project_root)

    # -- storage -------------------------------------------------------------------------------

    def _prefix_of(self, rule: Rule) -> tuple[str, ...] | None:
        if rule.command not in self._words:
            self._words[rule.command] = _words_of(rule.command)
        return self._words[rule.command]

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            status = self.path.stat()
        except OSError:
            return None
        return status.st_mtime_ns, status.st_size

    def _refresh(self) -> None:
        if self._file_stamp() != self._stamp:
            self._load()

    def _load(self) -> None:
        self._stamp = self._file_stamp()
        self._rules, self.problem = [], None
        if self._stamp is None:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            entries = data["rules"]
            if not isinstance(entries, list):
                raise TypeError("rules is not a list")
        except (OSError, ValueError, KeyError, TypeError) as error:
            self.problem = f"saved shell rules could not be read ({self.path}): {error}"
            log.warning("%s", self.problem)
            return
        skipped = 0
        for entry in entries:
            if (
                isinstance(entry, dict)
                and entry.get("kind") in ("exact", "prefix")
                and isinstance(entry.get("command"), str)
                and entry["command"].strip()
            ):
                self._rules.append(
                    Rule(entry["kind"], entry["command"].strip(), str(entry.get("created", "")))
                )
            else:
                skipped += 1
        if skipped:
            self.problem = f"{skipped} saved shell rule(s) in {self.path} were not understood and are ignored"

    def _save(self) -> None:
        if self.problem is not None and self.path.exists():
            self.path.replace(self.path.with_name(self.path.name + ".corrupt"))
        document = {
            "version": _FILE_VERSION,
            "project": str(self.project_root),
            "rules": [rule.to_json() for rule in self._rules],
        }
        paths.write_private_text(self.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        self.problem = None
        self._stamp = self._file_stamp()


# -- policy -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShellVerdict:
    """Whether a command runs without asking, and why (for the dialog and the transcript)."""

    allowed: bool
    reason: str
    dangerous: bool = False
    rule: Rule | None = None


class ShellPolicy:
    """zett-agent's ``ShellApprovalStorage``: allows a command without a dialog when it is not
    dangerous, Plan Mode is off, and the mode is auto or a saved rule matches."""

    def __init__(
        self,
        rules: ShellRules,
        project_root: Path,
        mode_of: Callable[[str], PermissionMode],
        plan_active: Callable[[str], bool],
    ) -> None:
        self.rules = rules
        self.project_root = project_root
        self.mode_of = mode_of
        self.plan_active = plan_active
        self._allowed_by: dict[str, str] = {}

    #: Why commands run without a sandbox (none can start here, or ``[sandbox] mode = "off"``),
    #: or None when they are confined. Set by the host; while set, every command asks.
    sandbox_missing: str | None = None

    def verdict(self, session_id: str, command: str) -> ShellVerdict:
        command = command.strip()
        danger = dangerous_reason(command, self.project_root)
        if danger is not None:
            return ShellVerdict(False, danger, dangerous=True)
        if self.sandbox_missing is not None:
            return ShellVerdict(False, f"no sandbox ({self.sandbox_missing}): every command asks")
        mode = self.mode_of(session_id)
        if mode is PermissionMode.PLAN or self.plan_active(session_id):
            return ShellVerdict(False, "Plan Mode: every command asks")
        if mode is PermissionMode.AUTO:
            return ShellVerdict(True, "auto mode")
        rule = self.rules.match(command)
        if rule is not None:
            return ShellVerdict(True, f"rule: {rule.describe()}", rule=rule)
        return ShellVerdict(False, "no saved rule matches")

    def allowed_by(self, command: str) -> str | None:
        """Why the last run of ``command`` needed no dialog ("auto mode", "rule: prefix `pytest`")."""
        return self._allowed_by.get(command.strip())

    def suggestions(self, command: str) -> list[Rule]:
        """Rules the dialog may offer; none for a dangerous command, nor without a sandbox (they
        would never apply)."""
        if self.sandbox_missing is not None or dangerous_reason(command, self.project_root) is not None:
            return []
        return suggest_rules(command, self.project_root)

    # -- ShellApprovalStorage ------------------------------------------------------------------

    async def is_allowed(self, session_id: str, command: str) -> bool:
        verdict = self.verdict(session_id, command)
        if verdict.allowed:
            self._allowed_by[command.strip()] = verdict.reason
        else:
            self._allowed_by.pop(command.strip(), None)
        return verdict.allowed

    async def allow_command(self, command: str) -> None:
        """The user chose "always" for this exact command (the reply had ``remember: true``)."""
        if dangerous_reason(command, self.project_root) is not None:
            log.info("not saving a rule for a dangerous command")
            return
        self.rules.add("exact", command)

    async def get_session_mode(self, session_id: str) -> ShellApprovalMode:
        return ShellApprovalMode.REVIEW

    async def set_session_mode(self, session_id: str, mode: ShellApprovalMode) -> None:
        """Unused by zett-agent; zett's modes live in ``PermissionMode``."""

    async def clear_session_mode(self, session_id: str) -> None:
        """Unused by zett-agent."""
