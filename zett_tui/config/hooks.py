"""The ``[[hooks.EVENT]]`` tables: shell commands zett runs at points of a session.

The shape follows Claude Code's ``hooks`` settings, written in TOML, one table per command::

    [[hooks.PreToolUse]]
    matcher = "Bash|Edit"          # a regular expression the whole tool name must match
    command = "./scripts/check.sh" # run by /bin/sh in the project folder
    timeout = 30                   # seconds (default 60)

Events: ``SessionStart``, ``UserPromptSubmit``, ``PreToolUse``, ``PostToolUse`` and ``Stop``.
``matcher`` is for the tool events (zett's tool name or its Claude Code name, see
``runtime.hooks.protocol``) and for ``SessionStart`` (``startup`` or ``resume``); no matcher, ``""``
or ``"*"`` matches everything. Each table is checked here, alone: a bad one is one problem line
naming the file, the line and what is wrong, and the others still load.

Nothing here reads files: a project's hooks reach ``Layer`` only through ``load_settings`` once the
folder is trusted (``config.trust`` hashes the config file and the scripts its hooks name).
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zett_tui.config.converters import InvalidValue, describe_value

HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop")
#: Events whose ``matcher`` means something (tool names; for SessionStart, how the session began).
MATCHED_EVENTS = ("PreToolUse", "PostToolUse", "SessionStart")
HOOK_KEYS = ("matcher", "command", "timeout", "type")
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0


@dataclass(frozen=True)
class HookConfig:
    """One hook command as configured."""

    event: str
    """One of ``HOOK_EVENTS``."""
    command: str
    """A shell command line, run by ``/bin/sh -c`` in the project folder."""
    matcher: str = ""
    """A regular expression the whole tool name (or SessionStart source) must match; empty: all."""
    timeout: float = DEFAULT_TIMEOUT
    source: str = "user"
    """``user`` or ``project`` (a trusted ``.zett/config.toml``)."""
    config_file: Path | None = None
    line: int | None = None

    @property
    def where(self) -> str:
        """``/home/me/.config/zett/config.toml:12``: where the table is, for messages and ``/hooks``."""
        if self.config_file is None:
            return self.source
        return f"{self.config_file}:{self.line}" if self.line is not None else str(self.config_file)

    @property
    def label(self) -> str:
        """``PreToolUse hook ./check.sh``: how messages name it."""
        return f"{self.event} hook {_shorten(self.command)}"

    def matches(self, names: Iterable[str]) -> bool:
        """Whether the matcher takes any of ``names`` (a tool's names, a session's source)."""
        if self.matcher in ("", "*"):
            return True
        pattern = re.compile(self.matcher)
        return any(pattern.fullmatch(name) for name in names)


def _shorten(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def convert_command(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidValue(
            f'expected the command to run, such as "./scripts/check.sh", got {describe_value(value)}'
        )
    if "\0" in value:
        raise InvalidValue("the command holds a NUL character")
    return value


def convert_matcher(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidValue(
            f'expected a tool name or a regular expression such as "Bash|Edit", got {describe_value(value)}'
        )
    if value in ("", "*"):
        return value
    try:
        re.compile(value)
    except re.error as error:
        raise InvalidValue(f"not a valid regular expression ({error})") from None
    return value


def convert_timeout(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TIMEOUT:
        raise InvalidValue(f"expected seconds between 0 and {MAX_TIMEOUT:.0f}, got {describe_value(value)}")
    return float(value)


def convert_type(value: object) -> str:
    if value != "command":
        raise InvalidValue(f'only type = "command" hooks exist in zett, got {describe_value(value)}')
    return "command"


_CONVERTERS: Mapping[str, Callable[[object], object]] = {
    "matcher": convert_matcher,
    "command": convert_command,
    "timeout": convert_timeout,
    "type": convert_type,
}

Report = Callable[[tuple[str | int, ...], str], None]
"""(the key, e.g. ``("hooks", "PreToolUse", 0, "timeout")``, what is wrong) -> records it."""


def read_hooks(
    table: object,
    *,
    source: str,
    config_file: Path | None,
    lines: Mapping[tuple[str, int], int],
    report: Report,
) -> list[HookConfig]:
    """The hooks of one file's ``[hooks]`` table; each problem goes to ``report`` and its hook is
    skipped (a bad event name skips that event's hooks)."""
    if not isinstance(table, dict):
        report(("hooks",), f"expected tables such as [[hooks.PreToolUse]], got {describe_value(table)}")
        return []
    hooks: list[HookConfig] = []
    for event, entries in table.items():
        if event not in HOOK_EVENTS:
            close = difflib.get_close_matches(str(event), HOOK_EVENTS, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? " if close else ""
            report(("hooks", event), f"not a hook event; {hint}zett runs {', '.join(HOOK_EVENTS)}")
            continue
        if isinstance(entries, dict):
            entries = [entries]  # [hooks.Stop] written once, without the double brackets
        if not isinstance(entries, list):
            report(("hooks", event), f"expected [[hooks.{event}]] tables, got {describe_value(entries)}")
            continue
        for index, entry in enumerate(entries):
            hook = _one_hook(
                event,
                index,
                entry,
                source=source,
                config_file=config_file,
                line=lines.get((event, index)),
                report=report,
            )
            if hook is not None:
                hooks.append(hook)
    return hooks


def _one_hook(
    event: str,
    index: int,
    entry: object,
    *,
    source: str,
    config_file: Path | None,
    line: int | None,
    report: Report,
) -> HookConfig | None:
    key: tuple[str | int, ...] = ("hooks", event, index)
    if not isinstance(entry, dict):
        report(key, f'expected a table with command = "...", got {describe_value(entry)}; hook ignored')
        return None
    if "hooks" in entry:
        report(
            key,
            "zett takes one command per table: write each of Claude Code's nested hooks as its own "
            f"[[hooks.{event}]] with matcher and command; hook ignored",
        )
        return None
    fields: dict[str, Any] = {}
    for name, value in entry.items():
        convert = _CONVERTERS.get(str(name))
        if convert is None:
            close = difflib.get_close_matches(str(name), HOOK_KEYS, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known here: {', '.join(HOOK_KEYS)}"
            report((*key, name), f"unknown key; {hint}; hook ignored")
            return None
        try:
            fields[str(name)] = convert(value)
        except InvalidValue as error:
            report((*key, name), f"{error}; hook ignored")
            return None
    if "command" not in fields:
        report(key, 'needs command = "..." (the shell command to run); hook ignored')
        return None
    if fields.get("matcher") and event not in MATCHED_EVENTS:
        report((*key, "matcher"), f"{event} hooks take no matcher (they run every time); hook ignored")
        return None
    return HookConfig(
        event=event,
        command=fields["command"],
        matcher=fields.get("matcher", ""),
        timeout=fields.get("timeout", DEFAULT_TIMEOUT),
        source=source,
        config_file=config_file,
        line=line,
    )


_ENTRY_HEADER = re.compile(
    r"""^[ \t]*\[\[[ \t]*hooks[ \t]*\.[ \t]*["']?([A-Za-z]+)["']?[ \t]*\]\]""", re.MULTILINE
)


def hook_entry_lines(text: str) -> dict[tuple[str, int], int]:
    """The 1-based line of each ``[[hooks.EVENT]]`` header, by (event, index within the event)."""
    lines: dict[tuple[str, int], int] = {}
    counts: dict[str, int] = {}
    for match in _ENTRY_HEADER.finditer(text):
        event = match.group(1)
        index = counts.get(event, 0)
        counts[event] = index + 1
        lines[event, index] = text.count("\n", 0, match.start()) + 1
    return lines


def describe_hooks(table: object) -> list[str]:
    """For the trust question: one line per hook a project's raw ``[hooks]`` table would run
    (best effort; ``read_hooks`` does the checking when the settings load)."""
    lines: list[str] = []
    problems: list[str] = []
    hooks = read_hooks(
        table,
        source="project",
        config_file=None,
        lines={},
        report=lambda key, message: problems.append(message),
    )
    for hook in hooks:
        matcher = f" ({hook.matcher})" if hook.matcher not in ("", "*") else ""
        lines.append(f"hook {hook.event}{matcher}: runs {hook.command} (outside the sandbox)")
    if problems:
        lines.append(f"hooks: {len(problems)} not valid; zett would report them and skip them")
    return lines


def hook_commands(table: object) -> list[str]:
    """Every ``command`` of a raw ``[hooks]`` table, valid or not (for the trust hash)."""
    commands: list[str] = []
    for entries in table.values() if isinstance(table, dict) else ():
        for entry in entries if isinstance(entries, list) else [entries]:
            if isinstance(entry, dict) and isinstance(entry.get("command"), str):
                commands.append(entry["command"])
    return commands


def files_named(command: str) -> list[str]:
    """The words of ``command`` that could name a file (``./check.sh``, ``check``, the ``x.toml`` of
    ``--config=x.toml``, ``"$CLAUDE_PROJECT_DIR"/x.sh`` with the variable taken as the project
    folder); whether one does is for the caller to see."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    named: list[str] = []
    for word in words:
        for variable in (
            "$CLAUDE_PROJECT_DIR",
            "${CLAUDE_PROJECT_DIR}",
            "$ZETT_PROJECT_DIR",
            "${ZETT_PROJECT_DIR}",
        ):
            if word.startswith(variable):
                word = "." + word[len(variable) :]
        for candidate in (word, word.split("=", 1)[1] if "=" in word else ""):
            if candidate and "$" not in candidate and "\0" not in candidate:
                named.append(candidate)
    return named
