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
- commands hidden from a word list: a command word that expands (``$(echo rm) -rf``,
  ``X=rm; $X -rf``) or is a glob (``/bin/r? -rf``); ``env -S 'rm -rf x'``; ``time -p``,
  ``setsid``, ``flock``, ``busybox``, ``taskset``, ``strace``... in front; ``watch``/``script -c``
  /``flock -c``/``trap '...'`` scripts (parsed); a shell or interpreter reading its script from
  its input (``echo 'rm -rf x' | sh``); ``gdb -ex``/``expect -c`` scripts; interpreter inline
  code (``python -c``, ``node -e``, ``perl -e``...) that names a delete or process API
  (``rmtree``, ``os.remove``, ``subprocess``, ``child_process``, ``system``...), not every
  ``python -c``; ``chroot``/``nsenter``;
- ``git -C``/``--git-dir``/``--work-tree`` outside the project, and ``git -c`` setting a
  command git would run (``core.fsmonitor``, ``core.pager``, ``alias.x=!...``...);
- writes into ``.git/``, ``.zett/`` or zett's settings (``protected_paths``), writes below a
  name that ``ln`` created earlier in the same line (``ln -s /elsewhere l; echo x > l/f``),
  writes to a file that has another hard link, and hard links to files outside the project;
  ``/dev/fd/..`` and other ``..`` in paths are resolved before ``/dev/null`` and friends are
  let through;
- anything the parser cannot read: "cannot be parsed safely".

It does not know what a program does with its own arguments (``make clean``, a script file),
and treats a subshell's ``cd`` as if it stayed in effect. It errs towards asking. It is the
second line: the sandbox every command runs in is what keeps the rest of the machine safe.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from zett_tui.runtime.files.protected_paths import is_inside, protected_reason
from zett_tui.runtime.shell.command_unwrap import Call, unwrap
from zett_tui.runtime.shell.command_words import (
    git_clean_forced,
    has_option,
    is_cluster,
    leading_options,
    option_value,
    options_and_operands,
    rm_is_recursive,
    shell_script,
    written_operands,
)
from zett_tui.runtime.shell.words import ShellSyntaxError, SimpleCommand, Word, parse

MAX_SCRIPT_DEPTH = 4
UNPARSEABLE = "cannot be parsed safely"

_DEVICE_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_DESCRIPTOR_PATH = re.compile(r"/dev/fd/[0-9]+|/proc/self/fd/[0-9]+")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh"})
_ELEVATING = frozenset({"sudo", "doas", "su", "pkexec", "runuser", "run0"})
#: Interpreters and the options that give them their program as a string.
_INLINE_CODE: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "pypy": frozenset({"-c"}),
    "node": frozenset({"-e", "-p", "--eval", "--print"}),
    "nodejs": frozenset({"-e", "-p", "--eval", "--print"}),
    "deno": frozenset({"eval"}),
    "bun": frozenset({"-e", "--eval"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "php": frozenset({"-r"}),
    "lua": frozenset({"-e"}),
    "Rscript": frozenset({"-e"}),
}
#: Inline code that names one of these deletes files, renames them, or runs other programs.
_RISKY_CODE = re.compile(
    r"rmtree|os\s*\.\s*(remove|unlink|rmdir|removedirs|system|popen|exec|spawn|rename|replace|kill)"
    r"|\.unlink\s*\(|\.rmdir\s*\(|shutil\s*\.\s*move|subprocess|pty\s*\.\s*spawn|__import__|importlib"
    r"|\bexec\s*\(|\beval\s*\(|child_process|\b(rm|rmdir|unlink|rmSync|rmdirSync|unlinkSync)\s*\("
    r"|\b(unlink|rmdir|rmtree|remove_dir_all)\b|execSync|spawnSync|\bsystem\b|\bexec\b|\bqx\b|`|%x|FileUtils|File\s*\.\s*delete|rm_rf"
)
#: Options whose value is a command line the program runs through a shell.
_SCRIPT_OPTIONS = frozenset(
    {
        "--checkpoint-action",
        "--to-command",
        "--use-compress-program",
        "--rsh-command",
        "--exec",
        "--info-script",
        "--new-volume-script",
    }
)
#: Debugger options that run debugger commands (which include ``shell``).
_DEBUGGER_SCRIPTS = ("-ex", "-x", "-iex", "-ix", "--eval-command", "--command", "-o", "--one-line")
#: ``git -c`` keys whose value git runs (the key compared in lower case, by its last part too).
_GIT_COMMAND_KEYS = re.compile(
    r"(^|\.)(fsmonitor|pager|editor|sshcommand|hookspath|askpass|textconv|command|cmd|program|helper"
    r"|external|clean|smudge|process|gitproxy|packobjectshook|sequence\.editor|path)$"
    r"|^(pager|alias|filter|diff|merge|credential|core\.sshcommand|uploadpack)\."
)


def dangerous_reason(command: str, project_root: Path) -> str | None:
    """A short human reason when ``command`` deletes recursively or writes outside the project."""
    root = project_root.resolve()
    try:
        reason, _ = _Checker(root).check_line(command, root, depth=0)
    except ShellSyntaxError:
        return UNPARSEABLE
    return reason


class _Checker:
    def __init__(self, root: Path) -> None:
        self.root = root
        #: Names ``ln`` made earlier in this line: what is below them is not known.
        self.links: list[Path] = []

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
        call = unwrap(simple.words)
        if call is None:
            return None, cwd
        if call.unknown is not None:
            return call.unknown, cwd
        for target in call.writes:
            reason = self._outside(target, cwd, "writes")
            if reason is not None:
                return reason, cwd
        if call.script is not None:
            reason, _ = self.check_line(call.script, cwd, depth + 1)
            return (reason or ("runs as another user (sudo)" if call.elevated else None)), cwd
        if call.word.expands:
            return f"runs a command only known when it runs: {call.word.raw}", cwd
        if call.word.globs:
            return f"runs a command named by a pattern: {call.word.raw}", cwd
        if call.name in ("cd", "pushd"):
            return None, self._changed_directory(call.args, cwd)
        if call.name == "popd":
            return None, None
        run_in = cwd
        if call.chdir is not None:
            run_in = self._changed_directory((call.chdir,), cwd)
        reason, after = self._check_call(call, run_in, depth)
        if reason is None and call.elevated:
            reason = "runs as another user (sudo)"
        return reason, (after if call.chdir is None else cwd)

    def _check_call(self, call: Call, cwd: Path | None, depth: int) -> tuple[str | None, Path | None]:
        name, args = call.name, call.args
        if name in _ELEVATING:
            return "runs as another user (sudo)", cwd
        if name in ("chroot", "nsenter"):
            return f"runs a command in another root or namespace ({name})", cwd
        if name in _SHELLS:
            return self._check_shell(args, cwd, depth), cwd
        interpreter = _interpreter_of(name)
        if interpreter is not None:
            return _check_interpreter(interpreter, args), cwd
        if name == "eval":
            if any(word.expands for word in args):
                return "runs a command only known when it runs (eval)", cwd
            return self.check_line(" ".join(word.text for word in args), cwd, depth + 1)
        if name == "trap":
            return self._check_trap(args, cwd, depth), cwd
        if name in ("gdb", "lldb") and has_option(args, _DEBUGGER_SCRIPTS):
            return f"runs debugger commands, which can run programs ({name})", cwd
        if name == "expect" and has_option(args, ("-c",)):
            return "runs an expect script given on the command line", cwd
        if name == "rm":
            if rm_is_recursive(args):
                return "deletes recursively", cwd
            if call.from_input:
                return "deletes files named on its input (xargs rm)", cwd
        if name == "find":
            return self._check_find(args, cwd, depth), cwd
        if name == "git":
            reason = self._check_git(args, cwd)
            if reason is not None:
                return reason, cwd
        for script in _option_scripts(args):
            if script.expands:
                return f"runs a command only known when it runs: {script.raw}", cwd
            reason, _ = self.check_line(script.text, cwd, depth + 1)
            if reason is not None:
                return reason, cwd
        verb = "deletes" if name in ("rm", "rmdir", "unlink", "shred") else "writes"
        for target in written_operands(name, args):
            reason = self._outside(target, cwd, verb)
            if reason is not None:
                return reason, cwd
        if name == "ln":
            return self._check_link(args, cwd), cwd
        return None, cwd

    def _check_shell(self, args: Sequence[Word], cwd: Path | None, depth: int) -> str | None:
        script = shell_script(args)
        if script is None:
            options, operands = leading_options(args)
            if any(text in ("--version", "--help") for text in options):
                return None
            if (
                not operands
                or operands[0].text == "-"
                or any("s" in text[1:] for text in options if not text.startswith("--"))
            ):
                return "runs a shell script from its input (… | sh): the script is not known"
            return None
        if script.expands:
            return f"runs a shell script only known when it runs: {script.raw}"
        reason, _ = self.check_line(script.text, cwd, depth + 1)
        return reason

    def _check_trap(self, args: Sequence[Word], cwd: Path | None, depth: int) -> str | None:
        if not args or args[0].text in ("-", "-p", "-l", "--") or args[0].text.isdigit():
            return None
        if args[0].expands:
            return f"sets a trap that runs a command only known when it runs: {args[0].raw}"
        reason, _ = self.check_line(args[0].text, cwd, depth + 1)
        return reason

    def _check_git(self, args: Sequence[Word], cwd: Path | None) -> str | None:
        index = 0
        while index < len(args):
            word = args[index]
            text = word.text
            if not text.startswith("-"):
                break
            option, _, attached = text.partition("=")
            value: Word | None = None
            if option == "--exec-path" and attached:
                return f"git --exec-path runs git's own programs from {attached}"
            if option in ("-C", "--git-dir", "--work-tree", "-c", "--config-env"):
                if attached:
                    value = Word(attached, attached, word.expands, word.globs)
                elif index + 1 < len(args):
                    value = args[index + 1]
                    index += 1
            index += 1
            if value is None:
                continue
            if option in ("-c", "--config-env"):
                key = value.text.split("=", 1)[0].lower()
                if value.expands or _GIT_COMMAND_KEYS.search(key) or "=!" in value.text:
                    return f"git -c sets a command for git to run: {value.text}"
                continue
            path = _as_path(value.text, cwd)
            if value.expands or path is None:
                return f"runs git in a folder only known when it runs: {value.raw} (git {option})"
            resolved = _resolve(path, follow_name=True)
            if not is_inside(resolved, self.root):
                return f"runs git in a folder outside the project: {resolved} (git {option})"
        if git_clean_forced(args):
            return "deletes untracked files (git clean -f)"
        return None

    def _check_link(self, args: Sequence[Word], cwd: Path | None) -> str | None:
        options, operands = options_and_operands("ln", args)
        symbolic = any(
            text == "--symbolic" or (not text.startswith("--") and "s" in text[1:])
            for text in (word.text for word in options)
        )
        if not symbolic:
            for source in operands[:-1] if len(operands) > 1 else operands:
                path = _as_path(source.text, cwd)
                if source.expands or path is None:
                    return f"hard-links a file only known when it runs: {source.raw}"
                resolved = _resolve(path, follow_name=True)
                if not is_inside(resolved, self.root):
                    return f"hard-links a file from outside the project folder: {resolved}"
        directory = option_value(options, ["-t"], ["--target-directory"])
        names: list[Path] = []
        sources = operands if directory else operands[:-1] if len(operands) > 1 else operands
        for folder in directory or ([operands[-1]] if len(operands) > 1 else []):
            base = _as_path(folder.text, cwd)
            if base is not None:
                if not directory:
                    names.append(base)
                names.extend(base / Path(source.text).name for source in sources)
        if len(operands) == 1 and not directory and cwd is not None:
            names.append(cwd / Path(operands[0].text).name)
        self.links.extend(Path(os.path.normpath(name)) for name in names)
        return None

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
        if target.expands:
            return f"{verb} to a path only known when it runs: {target.raw}"
        text = target.text
        if text.startswith("/"):
            text = os.path.normpath(text)
            if text.startswith("//"):
                text = text[1:]
        if text in _DEVICE_SINKS or _DESCRIPTOR_PATH.fullmatch(text):
            return None
        path = _as_path(text, cwd)
        if path is None:
            if cwd is None:
                return f"{verb} after `cd` to a folder that cannot be checked: {target.text}"
            return f"{verb} to a path that cannot be checked: {target.text}"
        normal = Path(os.path.normpath(path))
        for link in self.links:
            if normal == link or link in normal.parents:
                return f"{verb} through a link made earlier in the same command: {link}"
        resolved = _resolve(path, follow_name=verb != "deletes")
        if not is_inside(resolved, self.root):
            return f"{verb} outside the project folder: {resolved}"
        protected = protected_reason(resolved, self.root)
        if protected is not None:
            return f"{verb} in {protected}: {resolved}"
        if verb == "writes" and _has_other_links(resolved):
            return f"writes to a file with another hard link (it may be outside the project): {resolved}"
        return None


def _option_scripts(args: Sequence[Word]) -> list[Word]:
    """Command lines given to options that run them (``tar --checkpoint-action=exec=CMD``,
    ``--to-command``, ``git rebase --exec``...): checked like the rest of the line."""
    scripts: list[Word] = []
    for index, word in enumerate(args):
        option, equals, value = word.text.partition("=")
        if option not in _SCRIPT_OPTIONS:
            continue
        if equals:
            script = Word(value, value, word.expands, word.globs)
        elif index + 1 < len(args):
            script = args[index + 1]
        else:
            continue
        if option == "--checkpoint-action":
            if not script.text.startswith("exec="):
                continue
            script = Word(script.text[5:], script.raw, script.expands, script.globs)
        scripts.append(script)
    return scripts


def _has_other_links(path: Path) -> bool:
    try:
        status = path.stat()
    except OSError:
        return False
    return path.is_file() and status.st_nlink > 1


def _interpreter_of(name: str) -> str | None:
    base = re.sub(r"(?<=[A-Za-z])[-.]?[0-9][0-9.]*$", "", name)
    return base if base in _INLINE_CODE else None


def _check_interpreter(interpreter: str, args: Sequence[Word]) -> str | None:
    """Inline code that names a delete or process API, or a script read from the input.

    Other inline code is let through: most ``python -c`` lines print or compute, and asking
    about each would teach the user to say yes. The sandbox contains the rest.
    """
    code_options = _INLINE_CODE[interpreter]
    for index, word in enumerate(args):
        text = word.text
        code: Word | None = None
        for option in code_options:
            short = len(option) == 2 and option.startswith("-")
            if text == option or (short and is_cluster(text) and text.endswith(option[1])):
                code = args[index + 1] if index + 1 < len(args) else Word("", "")
            elif short and text.startswith(option) and len(text) > 2:
                code = Word(text[2:], text[2:], word.expands, word.globs)
        if code is not None:
            if code.expands:
                return f"runs {interpreter} code only known when it runs: {code.raw}"
            if _RISKY_CODE.search(code.text):
                return f"runs {interpreter} code that deletes files or runs programs"
            return None
        if text == "-":
            return f"runs a {interpreter} script from its input: the script is not known"
        if text.startswith("-"):
            continue
        return None
    if not args:
        return f"runs a {interpreter} script from its input: the script is not known"
    return None


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
