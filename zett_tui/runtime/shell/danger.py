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
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zett_tui.runtime.files.protected_paths import is_inside, protected_reason
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
#: Words that only precede the real command.
_PLAIN_PREFIXES = frozenset({"!", "{", "then", "do", "else", "elif", "if", "while", "until", "builtin"})
#: Wrappers and the options of theirs that take a separate argument.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}),
    "exec": frozenset({"-a"}),
    "command": frozenset(),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u"}),
    "chrt": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset({"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--arg-file", "--delimiter"}),
    "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin", "--joblog", "--results"}),
    "setsid": frozenset(),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "taskset": frozenset(),
    "unshare": frozenset({"-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd"}),
    "prlimit": frozenset({"-p", "--pid"}),
    "numactl": frozenset({"-C", "-N", "-m", "-p", "-i"}),
    "setpriv": frozenset({"--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-P", "-S", "-X"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-l"}),
    "valgrind": frozenset(),
    "faketime": frozenset({"-m", "-f"}),
    "busybox": frozenset(),
    "toybox": frozenset(),
    "catchsegv": frozenset(),
    "unbuffer": frozenset(),
    "firejail": frozenset(),
}
#: Wrapper options whose value is a file they write.
_WRAPPER_OUTPUTS: dict[str, tuple[str, ...]] = {
    "time": ("-o", "--output"),
    "strace": ("-o",),
    "ltrace": ("-o",),
    "parallel": ("--joblog", "--results"),
}
#: Wrappers that take one more word before the command (a timeout, a lock file, a CPU mask).
_WRAPPER_OPERAND = frozenset({"timeout", "flock", "taskset", "chrt"})
#: ``tool subcommand`` pairs that run the command after them.
_RUNNERS = frozenset({("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run")})
#: ``git -c`` keys whose value git runs (the key compared in lower case, by its last part too).
_GIT_COMMAND_KEYS = re.compile(
    r"(^|\.)(fsmonitor|pager|editor|sshcommand|hookspath|askpass|textconv|command|cmd|program|helper"
    r"|external|clean|smudge|process|gitproxy|packobjectshook|sequence\.editor|path)$"
    r"|^(pager|alias|filter|diff|merge|credential|core\.sshcommand|uploadpack)\."
)
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
}
#: curl/wget: short options that take a value (so ``-sSo FILE`` and ``-oFILE`` are read right),
#: those whose value is a file written, and the long ones that write.
_CURL_SHORT_VALUES = frozenset("oDcdHXuAeFTKbwxrmyYzEQCUtP")
_CURL_SHORT_WRITES = frozenset("oDc")
_CURL_LONG_WRITES = frozenset(
    {
        "--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr",
        "--libcurl", "--etag-save", "--hsts", "--alt-svc", "--output-dir",
    }
)  # fmt: skip
_WGET_SHORT_VALUES = frozenset("OoaPeitTwQUBDIXARl")
_WGET_SHORT_WRITES = frozenset("OoaP")
_WGET_LONG_WRITES = frozenset({"--output-document", "--output-file", "--append-output", "--directory-prefix"})


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
    word: Word = field(default_factory=lambda: Word("", ""))
    #: Files the wrappers write (``time -o``, ``strace -o``).
    writes: tuple[Word, ...] = ()
    #: A command line a wrapper runs through a shell (``env -S``, ``watch``, ``flock -c``).
    script: str | None = None
    #: Why the wrapped command cannot be known, when it cannot.
    unknown: str | None = None
    #: ``env -C DIR``: the folder the command runs in.
    chdir: Word | None = None


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
        call = _unwrap(simple.words)
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

    def _check_call(self, call: _Call, cwd: Path | None, depth: int) -> tuple[str | None, Path | None]:
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
        if name in ("gdb", "lldb") and _has_option(args, _DEBUGGER_SCRIPTS):
            return f"runs debugger commands, which can run programs ({name})", cwd
        if name == "expect" and _has_option(args, ("-c",)):
            return "runs an expect script given on the command line", cwd
        if name == "rm":
            if _rm_is_recursive(args):
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
        for target in _written_operands(name, args):
            reason = self._outside(target, cwd, verb)
            if reason is not None:
                return reason, cwd
        if name == "ln":
            return self._check_link(args, cwd), cwd
        return None, cwd

    def _check_shell(self, args: Sequence[Word], cwd: Path | None, depth: int) -> str | None:
        script = _shell_script(args)
        if script is None:
            options, operands = _leading_options(args)
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
        if _git_clean_forced(args):
            return "deletes untracked files (git clean -f)"
        return None

    def _check_link(self, args: Sequence[Word], cwd: Path | None) -> str | None:
        options, operands = _options_and_operands("ln", args)
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
        directory = _option_value(options, ["-t"], ["--target-directory"])
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
            if text == option or (short and _is_cluster(text) and text.endswith(option[1])):
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


def _is_cluster(text: str) -> bool:
    """``-le``, ``-Bc``: single-letter options run together."""
    return len(text) > 2 and text.startswith("-") and not text.startswith("--") and text[1:].isalpha()


def _has_option(args: Sequence[Word], options: Iterable[str]) -> bool:
    wanted = tuple(options)
    return any(word.text in wanted or word.text.split("=", 1)[0] in wanted for word in args)


def _leading_options(args: Sequence[Word]) -> tuple[list[str], list[Word]]:
    options: list[str] = []
    for index, word in enumerate(args):
        if word.text == "--":
            return options, list(args[index + 1 :])
        if word.text.startswith(("-", "+")) and word.text not in ("-", "+"):
            options.append(word.text)
            continue
        return options, list(args[index:])
    return options, []


def _unwrap(words: Sequence[Word]) -> _Call | None:
    """Take off ``sudo``, ``env``, ``xargs``, shell keywords... and return the command they run."""
    rest = list(words)
    elevated = from_input = False
    writes: list[Word] = []
    chdir: Word | None = None
    while rest:
        first = rest[0]
        name = Path(first.text).name if not first.expands else first.text
        if name in _PLAIN_PREFIXES:
            rest = rest[1:]
            continue
        if name in ("watch", "parallel"):
            joined = _joined_script(name, rest[1:])
            if isinstance(joined, _Call):
                return joined
            rest = joined
            continue
        if name in _WRAPPERS:
            elevated |= name in ("sudo", "doas")
            from_input |= name in ("xargs", "parallel")
            options = _WRAPPERS[name]
            taken = _split_options(rest[1:], options)
            if taken is None:
                return _Call(
                    name, (), word=first, unknown=f"runs a command through {name} that cannot be read"
                )
            used, rest = taken
            writes.extend(_values_of(used, _WRAPPER_OUTPUTS.get(name, ())))
            if name == "env":
                split = _values_of(used, ("-S", "--split-string"))
                if split:
                    if any(word.expands for word in [*split, *rest]):
                        return _Call(
                            name, (), word=first, unknown="runs a command only known when it runs (env -S)"
                        )
                    line = " ".join([split[0].text, *(shlex.quote(word.text) for word in rest)])
                    return _Call(name, (), elevated, from_input, first, tuple(writes), script=line)
                chdir = next(iter(_values_of(used, ("-C", "--chdir"))), chdir)
                while rest and "=" in rest[0].text and not rest[0].text.startswith("="):
                    rest = rest[1:]
            if name == "flock":
                rest = rest[1:]
                taken = _split_options(rest, frozenset({"-c", "--command"}))
                command = _values_of(used, ("-c", "--command")) + _values_of(
                    taken[0] if taken else [], ("-c", "--command")
                )
                if command:
                    if command[0].expands:
                        return _Call(
                            name, (), word=first, unknown="runs a command only known when it runs (flock -c)"
                        )
                    return _Call(name, (), elevated, from_input, first, tuple(writes), script=command[0].text)
            elif name in _WRAPPER_OPERAND and rest:
                rest = rest[1:]
            continue
        if name == "script":
            taken = _split_options(rest[1:], frozenset({"-c", "--command", "-E", "-O", "-I", "-T", "-B"}))
            command = _values_of(taken[0], ("-c", "--command")) if taken else []
            if command:
                if command[0].expands:
                    return _Call(
                        name, (), word=first, unknown="runs a command only known when it runs (script -c)"
                    )
                return _Call(name, (), elevated, from_input, first, tuple(writes), script=command[0].text)
        if len(rest) > 1 and (name, rest[1].text) in _RUNNERS:
            rest = _skip_options(rest[2:], frozenset())
            continue
        return _Call(name, tuple(rest[1:]), elevated, from_input, first, tuple(writes), chdir=chdir)
    return None


def _joined_script(name: str, args: Sequence[Word]) -> _Call | list[Word]:
    """``watch CMD...`` and ``parallel CMD`` run their words joined through ``sh -c``: the line
    to check, or (``watch -x``) the words of the command it runs directly."""
    options = frozenset({"-n", "-d", "--interval", "-j", "--jobs", "-S", "--sshlogin", "--joblog"})
    taken = _split_options(args, options)
    if taken is None:
        return _Call(name, (), unknown=f"runs a command through {name} that cannot be read")
    used, rest = taken
    if name == "watch" and any(word.text in ("-x", "--exec") for word in used):
        return rest
    end = next((i for i, word in enumerate(rest) if word.text in (":::", "::::")), len(rest))
    command = rest[:end]
    if not command:
        if name == "parallel":
            return _Call(name, (), unknown="runs commands read from its input (parallel)")
        return []
    if any(word.expands for word in command):
        return _Call(name, (), unknown=f"runs a command only known when it runs ({name})")
    return _Call(name, (), from_input=name == "parallel", script=" ".join(word.text for word in command))


def _split_options(
    words: Sequence[Word], with_argument: frozenset[str]
) -> tuple[list[Word], list[Word]] | None:
    """Leading options (with their separate values) and the words after them."""
    used: list[Word] = []
    index = 0
    while index < len(words):
        text = words[index].text
        if text == "--":
            return used, list(words[index + 1 :])
        if not text.startswith("-") or text == "-":
            break
        used.append(words[index])
        if text in with_argument or (_is_cluster(text) and f"-{text[-1]}" in with_argument):
            if index + 1 >= len(words):
                return None
            used.append(words[index + 1])
            index += 2
        else:
            index += 1
    return used, list(words[index:])


def _values_of(used: Sequence[Word], options: Iterable[str]) -> list[Word]:
    """Values of ``-o X``, ``-oX``, ``--output X`` and ``--output=X`` among leading options."""
    wanted = tuple(options)
    values: list[Word] = []
    for index, word in enumerate(used):
        text = word.text
        for option in wanted:
            clustered = len(option) == 2 and _is_cluster(text) and text.endswith(option[1])
            if (text == option or clustered) and index + 1 < len(used):
                values.append(used[index + 1])
            elif option.startswith("--") and text.startswith(option + "="):
                value = text[len(option) + 1 :]
                values.append(Word(value, value, word.expands, word.globs))
            elif not option.startswith("--") and text.startswith(option) and len(text) > len(option):
                value = text[len(option) :]
                values.append(Word(value, value, word.expands, word.globs))
    return values


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
        return _fetcher_writes(args, _CURL_SHORT_VALUES, _CURL_SHORT_WRITES, _CURL_LONG_WRITES)
    if name == "wget":
        return _fetcher_writes(args, _WGET_SHORT_VALUES, _WGET_SHORT_WRITES, _WGET_LONG_WRITES)
    return []


def _fetcher_writes(
    args: Sequence[Word],
    short_values: frozenset[str],
    short_writes: frozenset[str],
    long_writes: frozenset[str],
) -> list[Word]:
    """The files ``curl``/``wget`` write: ``-o F``, ``-oF``, ``-sSLo F``, ``--output=F``..."""
    written: list[Word] = []
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        following = args[index + 1] if index + 1 < len(args) else None
        if text == "--":
            break
        if text.startswith("--"):
            option, equals, value = text.partition("=")
            if option in long_writes:
                if equals:
                    written.append(Word(value, value, word.expands, word.globs))
                elif following is not None:
                    written.append(following)
                    index += 1
        elif text.startswith("-") and len(text) > 1:
            for position, letter in enumerate(text[1:], start=1):
                if letter not in short_values:
                    continue
                value_text = text[position + 1 :]
                attached: Word | None = None
                if value_text:
                    attached = Word(value_text, value_text, word.expands, word.globs)
                elif following is not None:
                    attached = following
                    index += 1
                if attached is not None and letter in short_writes:
                    written.append(attached)
                break
        index += 1
    return written


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
