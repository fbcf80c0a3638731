"""Decide whether a shell command is destructive enough to ask about in every permission mode.

``dangerous_reason(command, project_root)`` returns a short reason, or None. It catches:

- recursive deletes: ``rm`` with ``-r``/``-R``/``--recursive`` in any option cluster or
  position (``rm -rf``, ``rm -fr``, ``rm x -r``), ``find ... -delete``, ``find ... -exec rm``,
  ``xargs rm`` (the file names come from its input), ``git clean -f`` (any force flag);
- writes outside the project folder: ``>``/``>>``/``&>``/``>|`` redirections, ``tee``,
  ``cp``/``ln``/``install``/``rsync`` targets, every ``mv`` operand (the source goes away),
  ``rm``/``rmdir``/``unlink``/``shred``/``touch``/``mkdir``/``truncate`` operands,
  ``chmod``/``chown``/``chgrp`` files, ``dd of=``, ``sed -i`` files, ``curl -o``, ``wget -O``.
  A path is outside when, resolved against the folder the command would be in, it is not the
  project folder or below it. ``~`` is the user's home; ``cd``/``pushd`` earlier in the line
  move that folder (a ``cd`` to ``-`` or to ``$X`` makes later relative paths unknown);
  symlinks in the parent folders are followed. ``/dev/null`` and friends are fine;
- paths only known when the command runs (``$OUT``, ``$(..)``) as a write target;
- ``sudo``/``doas``/``su``/``pkexec``: runs as another user;
- every command of a compound line, commands inside ``$(..)``/backticks/subshells, after
  ``sudo``/``env``/``nice``/``timeout``/``xargs``/``nohup``/``command``/``exec``/``uv run``/
  ``poetry run``, shell keywords (``then``, ``do``...), ``sh -c '...'``/``bash -lc`` scripts and
  ``eval`` arguments (parsed again, up to a few levels deep);
- anything the parser cannot read: "cannot be parsed safely".

It does not know what a program does with its own arguments (``python -c``, ``make clean``, a
script file), does not follow ``git -C``, and treats a subshell's ``cd`` as if it stayed in
effect. It errs towards asking.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_tui.runtime.shell_words import ShellSyntaxError, SimpleCommand, Word, parse

MAX_SCRIPT_DEPTH = 4
UNPARSEABLE = "cannot be parsed safely"

_DEVICE_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish"})
_ELEVATING = frozenset({"sudo", "doas", "su", "pkexec"})
#: Words that only precede the real command.
_PLAIN_PREFIXES = frozenset(
    {"!", "{", "then", "do", "else", "elif", "if", "while", "until", "time", "nohup", "command", "builtin"}
)
#: Wrappers and the options of theirs that take a separate argument.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset({"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--arg-file", "--delimiter"}),
    "watch": frozenset({"-n", "-d", "--interval"}),
}
#: ``tool subcommand`` pairs that run the command after them.
_RUNNERS = frozenset({("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run")})
#: Commands whose every operand is a file they change (or remove).
_ALL_OPERANDS_WRITTEN = frozenset(
    {"rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee", "mv"}
)
#: Options that take a separate argument, per command, so it is not read as a file.
_OPTION_ARGUMENTS: dict[str, frozenset[str]] = {
    "touch": frozenset({"-d", "-t", "-r"}),
    "mkdir": frozenset({"-m"}),
    "truncate": frozenset({"-s", "-r"}),
    "shred": frozenset({"-n", "-s"}),
    "install": frozenset({"-m", "-o", "-g", "-S", "-t"}),
    "cp": frozenset({"-S", "-t"}),
    "mv": frozenset({"-S", "-t"}),
    "ln": frozenset({"-S", "-t"}),
    "sed": frozenset({"-e", "-f", "-l"}),
    "curl": frozenset({"-o", "--output", "-d", "-H", "-X", "-u", "-A", "-e", "-F", "-T", "--data"}),
    "wget": frozenset({"-O", "-P", "--output-document", "--directory-prefix"}),
}


def dangerous_reason(command: str, project_root: Path) -> str | None:
    """A short human reason when ``command`` deletes recursively or writes outside the project."""
    root = project_root.resolve()
    try:
        reason, _ = _Checker(root).check_line(command, root, depth=0)
    except ShellSyntaxError:
        return UNPARSEABLE
    return reason


@dataclass(frozen=True, slots=True)
class _Call:
    """A command with its wrappers taken off."""

    name: str
    args: tuple[Word, ...]
    elevated: bool = False
    from_input: bool = False


class _Checker:
    def __init__(self, root: Path) -> None:
        self.root = root

    def check_line(self, command: str, cwd: Path | None, depth: int) -> tuple[str | None, Path | None]:
        if depth > MAX_SCRIPT_DEPTH:
            return "nests shell scripts too deeply to check", cwd
        for simple in parse(command).commands:
            reason, cwd = self._check_command(simple, cwd, depth)
            if reason is not None:
                return reason, cwd
        return None, cwd

    def _check_command(
        self, simple: SimpleCommand, cwd: Path | None, depth: int
    ) -> tuple[str | None, Path | None]:
        for redirect in simple.redirects:
            if redirect.writes:
                reason = self._outside(redirect.target, cwd, "writes")
                if reason is not None:
                    return reason, cwd
        call = _unwrap(simple.words)
        if call is None:
            return None, cwd
        if call.name in ("cd", "pushd"):
            return None, self._changed_directory(call.args, cwd)
        if call.name == "popd":
            return None, None
        reason, cwd = self._check_call(call, cwd, depth)
        if reason is None and call.elevated:
            reason = "runs as another user (sudo)"
        return reason, cwd

    def _check_call(self, call: _Call, cwd: Path | None, depth: int) -> tuple[str | None, Path | None]:
        name, args = call.name, call.args
        if name in _ELEVATING:
            return "runs as another user (sudo)", cwd
        if name in _SHELLS:
            script = _shell_script(args)
            if script is None:
                return None, cwd
            if script.expands:
                return f"runs a shell script only known when it runs: {script.raw}", cwd
            return self.check_line(script.text, cwd, depth + 1)
        if name == "eval":
            if any(word.expands for word in args):
                return "runs a command only known when it runs (eval)", cwd
            return self.check_line(" ".join(word.text for word in args), cwd, depth + 1)
        if name == "rm":
            if _rm_is_recursive(args):
                return "deletes recursively", cwd
            if call.from_input:
                return "deletes files named on its input (xargs rm)", cwd
        if name == "find":
            return self._check_find(args, cwd, depth), cwd
        if name == "git" and _git_clean_forced(args):
            return "deletes untracked files (git clean -f)", cwd
        verb = "deletes" if name in ("rm", "rmdir", "unlink", "shred") else "writes"
        for target in _written_operands(name, args):
            reason = self._outside(target, cwd, verb)
            if reason is not None:
                return reason, cwd
        return None, cwd

    def _check_find(self, args: Sequence[Word], cwd: Path | None, depth: int) -> str | None:
        texts = [word.text for word in args]
        if "-delete" in texts:
            return "deletes the files it finds (find -delete)"
        for index, text in enumerate(texts):
            if text not in ("-exec", "-execdir", "-ok", "-okdir"):
                continue
            end = next((i for i in range(index + 1, len(texts)) if texts[i] in (";", "+")), len(texts))
            inner = args[index + 1 : end]
            if not inner:
                continue
            if Path(inner[0].text).name == "rm":
                return "deletes the files it finds (find -exec rm)"
            reason, _ = self._check_command(SimpleCommand(words=tuple(inner)), cwd, depth + 1)
            if reason is not None:
                return reason
        return None

    def _changed_directory(self, args: Sequence[Word], cwd: Path | None) -> Path | None:
        operands = [word for word in args if word.text == "-" or not word.text.startswith("-")]
        if not operands:
            return Path.home().resolve()
        target = operands[0]
        if target.expands or target.text == "-":
            return None
        path = _as_path(target.text, cwd)
        return _resolve(path, follow_name=True) if path is not None else None

    def _outside(self, target: Word, cwd: Path | None, verb: str) -> str | None:
        """The reason ``target`` is outside the project (or cannot be checked), else None."""
        if target.text in _DEVICE_SINKS or target.text.startswith("/dev/fd/"):
            return None
        if target.expands:
            return f"{verb} to a path only known when it runs: {target.raw}"
        path = _as_path(target.text, cwd)
        if path is None:
            if cwd is None:
                return f"{verb} after `cd` to a folder that cannot be checked: {target.text}"
            return f"{verb} to a path that cannot be checked: {target.text}"
        resolved = _resolve(path, follow_name=verb != "deletes")
        if resolved == self.root or self.root in resolved.parents:
            return None
        return f"{verb} outside the project folder: {resolved}"


def _unwrap(words: Sequence[Word]) -> _Call | None:
    """Take off ``sudo``, ``env``, ``xargs``, shell keywords... and return the command they run."""
    rest = list(words)
    elevated = from_input = False
    while rest:
        name = Path(rest[0].text).name if not rest[0].expands else rest[0].text
        if name in _PLAIN_PREFIXES:
            rest = rest[1:]
            continue
        if name in _WRAPPERS:
            elevated |= name in ("sudo", "doas")
            from_input |= name == "xargs"
            rest = _skip_options(rest[1:], _WRAPPERS[name])
            if name == "env":
                while rest and "=" in rest[0].text and not rest[0].text.startswith("="):
                    rest = rest[1:]
            if name == "timeout" and rest:
                rest = rest[1:]
            continue
        if len(rest) > 1 and (name, rest[1].text) in _RUNNERS:
            rest = _skip_options(rest[2:], frozenset())
            continue
        return _Call(name, tuple(rest[1:]), elevated, from_input)
    return None


def _skip_options(words: Sequence[Word], with_argument: frozenset[str]) -> list[Word]:
    index = 0
    while index < len(words):
        text = words[index].text
        if text == "--":
            return list(words[index + 1 :])
        if not text.startswith("-") or text == "-":
            break
        index += 2 if text in with_argument else 1
    return list(words[index:])


def _options_and_operands(name: str, args: Sequence[Word]) -> tuple[list[Word], list[Word]]:
    """Split arguments GNU-style: options may follow operands, ``--`` ends options."""
    takes_argument = _OPTION_ARGUMENTS.get(name, frozenset())
    options: list[Word] = []
    operands: list[Word] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word.text == "--":
            operands.extend(args[index + 1 :])
            break
        if word.text.startswith("-") and word.text != "-":
            options.append(word)
            if word.text in takes_argument and index + 1 < len(args):
                options.append(args[index + 1])
                index += 1
        else:
            operands.append(word)
        index += 1
    return options, operands


def _option_value(options: Sequence[Word], short: Iterable[str], long: Iterable[str]) -> list[Word]:
    """Values of ``-o X``, ``--output X`` and ``--output=X`` among already split options."""
    values: list[Word] = []
    shorts, longs = set(short), set(long)
    for index, word in enumerate(options):
        if (word.text in shorts or word.text in longs) and index + 1 < len(options):
            values.append(options[index + 1])
        for option in longs:
            if word.text.startswith(option + "="):
                value = word.text[len(option) + 1 :]
                values.append(Word(value, value, word.expands, word.globs))
    return values


def _written_operands(name: str, args: Sequence[Word]) -> list[Word]:
    options, operands = _options_and_operands(name, args)
    option_texts = [word.text for word in options]
    if name in _ALL_OPERANDS_WRITTEN:
        return [*operands, *_option_value(options, ["-t"], ["--target-directory"])]
    if name in ("chmod", "chown", "chgrp"):
        if any(text.startswith("--reference") for text in option_texts):
            return operands
        return operands[1:]
    if name in ("cp", "ln", "install", "rsync"):
        targets = _option_value(options, ["-t"], ["--target-directory"])
        return targets or (operands[-1:] if len(operands) > 1 else [])
    if name == "dd":
        return [Word(w.text[3:], w.raw[3:], w.expands, w.globs) for w in args if w.text.startswith("of=")]
    if name == "sed" and any(t.startswith("-i") or t.startswith("--in-place") for t in option_texts):
        scripted = any(t in ("-e", "-f") or t.startswith(("--expression", "--file")) for t in option_texts)
        return operands if scripted else operands[1:]
    if name == "curl":
        return _option_value(options, ["-o"], ["--output"])
    if name == "wget":
        return _option_value(options, ["-O", "-P"], ["--output-document", "--directory-prefix"])
    return []


def _rm_is_recursive(args: Sequence[Word]) -> bool:
    for word in args:
        text = word.text
        if text == "--":
            return False
        if text.startswith("--"):
            if len(text) > 2 and "--recursive".startswith(text.split("=")[0]):
                return True
        elif text.startswith("-") and ("r" in text or "R" in text):
            return True
    return False


def _git_clean_forced(args: Sequence[Word]) -> bool:
    rest = _skip_options(args, frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"}))
    if not rest or rest[0].text != "clean":
        return False
    for word in rest[1:]:
        text = word.text
        if text == "--force" or (text.startswith("-") and not text.startswith("--") and "f" in text):
            return True
    return False


def _shell_script(args: Sequence[Word]) -> Word | None:
    """The script of ``sh -c SCRIPT`` (also ``-lc``, ``-ec``...), or None when there is none."""
    runs_script = False
    for word in args:
        text = word.text
        if text.startswith(("-", "+")) and not text.startswith("--") and len(text) > 1:
            runs_script |= "c" in text[1:]
            continue
        if text.startswith("--"):
            continue
        return word if runs_script else None
    return None if not runs_script else Word("", "")


def _as_path(text: str, cwd: Path | None) -> Path | None:
    """``text`` as an absolute path, or None when it depends on an unknown folder or user."""
    if text.startswith("~"):
        expanded = Path(text).expanduser()
        return expanded if expanded.is_absolute() else None
    path = Path(text)
    if path.is_absolute():
        return path
    return cwd / path if cwd is not None else None


def _resolve(path: Path, *, follow_name: bool) -> Path:
    """Normalize ``..`` lexically, then follow symlinks: in the parent folders always, in the last
    name only when ``follow_name`` (writing through a link changes its target; deleting does not)."""
    normal = Path(os.path.normpath(path))
    if follow_name or normal.name in ("", "..", "."):
        return normal.resolve()
    return normal.parent.resolve() / normal.name
