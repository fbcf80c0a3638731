"""What a word-prefix shell rule covers: the one matching used by saved rules and ``--allow-shell``.

A prefix rule (``pytest``, ``git diff``) says "commands that start with these words, and only
do what those words make them do". ``prefix_covers(prefix, command, project_root)`` holds when
all of this is true:

1. ``command`` is one plain command (``plain_command``): no ``;``/``&&``/``|``/``&``/newline, no
   substitution or subshell, no ``NAME=value`` in front, no redirection except descriptor
   duplications (``2>&1``) and ``/dev/null``, no ``${...}``;
2. its leading words equal the prefix, whole words (``pytest`` covers ``pytest -x``, not
   ``pytestx``), and no word of it expands (``$X``: its value is only known when it runs);
3. when the command has words beyond the prefix:

   - its program cannot run other programs or write where its options say (``runner_reason``:
     shells, ``env``, ``time``, ``xargs``, ``find``, ``tar``, interpreters, ``make``, ``curl``,
     ``docker``, ``git`` with ``-c``/``-C``/``--git-dir``... or ``git config``/``submodule``...).
     For such a program a rule covers only the very same words: a "prefix" ``make test`` allows
     ``make test`` and nothing longer, and the dialog offers only the exact command;
   - no word beyond the prefix names a path outside the project or in a protected folder
     (``.git/``, ``.zett/``, zett's settings: ``protected_paths``). A word is looked at as a
     whole, and so is the value in ``--opt=VALUE``, ``-oVALUE``, ``key=VALUE``, ``a:VALUE``,
     ``a,VALUE`` and ``@VALUE``: absolute paths, ``~``, ``..`` that escapes, and names that
     resolve elsewhere through a symlink all count; a glob is expanded in the project first.
     So a ``pytest`` rule does not cover ``pytest --basetemp=/tmp/x`` and a ``git diff`` rule
     does not cover ``git diff --output=../x``;
   - no word beyond the prefix is an option known to run a command (``EXECUTING_OPTIONS``,
     ``--exec``, ``--pre``, ``--checkpoint-action``..., and per program ``rsync -e``,
     ``fd -x``, ``git rebase -x``...), or an option that writes a file its value names
     (``WRITING_OPTIONS``: ``git diff --output=a.py`` would overwrite a project file under a
     ``git diff`` rule; per program ``git format-patch -o``, ``sort -o``...), or a brace
     expansion (``{a,/etc}``) the shell would turn into other words.

The runner list and the option lists are the second line; the sandbox every command runs in
is the guarantee. The path rule is structural: whatever the program, a word that points outside
the project is never covered by a rule.
"""

from __future__ import annotations

import glob
import itertools
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from zett_tui.runtime.files.protected_paths import is_inside, protected_reason
from zett_tui.runtime.shell.words import ShellSyntaxError, SimpleCommand, Word, parse

__all__ = [
    "EXECUTING_OPTIONS",
    "RUNNER_COMMANDS",
    "plain_command",
    "prefix_covers",
    "program_name",
    "runner_reason",
    "uncovered_word",
]

#: Programs that run other programs, or write where their options say: never a prefix rule.
RUNNER_COMMANDS = frozenset(
    {
        # shells and shell builtins that run their arguments
        "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "csh", "tcsh", "fish", "nu",
        "elvish", "xonsh", "pwsh", "powershell", "eval", "exec", "source", ".", "command",
        "builtin", "trap", "noglob",
        # wrappers that run the command after them
        "env", "time", "nice", "ionice", "chrt", "taskset", "timeout", "nohup", "setsid", "flock",
        "script", "stdbuf", "unbuffer", "watch", "xargs", "parallel", "chroot", "unshare",
        "nsenter", "setpriv", "prlimit", "numactl", "systemd-run", "firejail", "bwrap",
        "faketime", "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "expect", "busybox",
        "toybox", "entr", "watchexec", "sudo", "doas", "su", "runuser", "pkexec", "run0",
        # interpreters (a version suffix is ignored: python3.12 is python)
        "python", "pypy", "ipython", "node", "nodejs", "deno", "bun", "perl", "ruby", "irb",
        "php", "lua", "luajit", "tclsh", "wish", "awk", "gawk", "mawk", "nawk",
        "Rscript", "R", "julia", "java", "jshell", "groovy", "scala", "kotlin", "osascript",
        "guile", "racket", "sbcl", "ghci", "runghc", "erl", "elixir", "iex", "swift",
        "sed", "gsed", "ed", "ex", "vi", "vim", "nvim", "emacs",
        # programs that fetch, copy or run things where their options say
        "npx", "pnpx", "bunx", "uvx", "pipx", "find", "gfind", "bfs", "tar", "gtar", "bsdtar",
        "cpio", "zip", "curl", "wget", "ssh", "scp", "sftp", "rsync", "docker", "podman",
        "nerdctl", "make", "gmake", "bmake", "just", "cmake", "dd",
    }
)  # fmt: skip
#: Options that run a command given as their value, whatever the program (also ``--opt=VALUE``).
EXECUTING_OPTIONS = frozenset(
    {
        "--checkpoint-action", "--to-command", "--use-compress-program", "--compress-program",
        "--rsh-command", "--rsh", "--info-script", "--new-volume-script", "--pre", "--exec",
        "--exec-batch", "--ext-diff", "--upload-pack", "--receive-pack", "--exec-path",
        "--open-files-in-pager", "--script-shell", "--extcmd", "--eval", "--command", "--shell",
        "--editor", "--pager", "--interpreter", "--template", "-exec", "-execdir", "-ok", "-okdir",
    }
)  # fmt: skip
#: Options that write a file named by their value, whatever the program (``git diff --output=a.py``
#: overwrites a project file under a rule for ``git diff``).
WRITING_OPTIONS = frozenset(
    {
        "--output", "--output-file", "--output-document", "--output-directory", "--out-file",
        "--outfile", "--out", "--log-file", "--logfile", "--dump", "--save", "--write-out",
    }
)  # fmt: skip
#: Short options that write a file named by their value, per program (``git`` per subcommand).
_WRITING_SHORT: dict[str, frozenset[str]] = {
    "git format-patch": frozenset({"-o"}),
    "git archive": frozenset({"-o"}),
    "sort": frozenset({"-o"}),
    "cc": frozenset({"-o"}),
    "gcc": frozenset({"-o"}),
    "clang": frozenset({"-o"}),
}
#: Short options that run a command, per program (``git`` per subcommand).
_EXECUTING_SHORT: dict[str, frozenset[str]] = {
    "rsync": frozenset({"-e"}),
    "fd": frozenset({"-x", "-X"}),
    "fdfind": frozenset({"-x", "-X"}),
    "cargo": frozenset({"--config"}),
    "git rebase": frozenset({"-x"}),
    "git grep": frozenset({"-O"}),
    "git clone": frozenset({"-u", "-c", "--config"}),
    "git submodule": frozenset({"-c"}),
}
#: ``git`` options before the subcommand that change the repository or the commands git runs.
_GIT_REDIRECTING_OPTIONS = frozenset(
    {"-c", "-C", "--git-dir", "--work-tree", "--exec-path", "--config-env", "--namespace", "--super-prefix"}
)
#: ``git`` subcommands that run commands, change what later git commands run, or send things.
_GIT_RUNNING_SUBCOMMANDS = frozenset(
    {
        "config", "submodule", "bisect", "filter-branch", "filter-repo", "difftool", "mergetool",
        "send-email", "daemon", "instaweb", "credential", "shell", "web--browse", "remote-ext",
        "svn", "p4", "cvsimport", "cvsserver", "hook", "alias", "var",
    }
)  # fmt: skip
#: ``tool subcommand`` pairs whose next word is the program they run.
_PROGRAM_RUNNERS = frozenset(
    {
        ("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run"), ("pipenv", "run"),
        ("npm", "exec"), ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "dlx"), ("conda", "run"),
        ("mamba", "run"), ("pixi", "run"), ("rye", "run"),
    }
)  # fmt: skip
_VERSION_SUFFIX = re.compile(r"(?<=[A-Za-z])[-.]?[0-9][0-9.]*$")
_DEVICE_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_QUOTED = re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")
_GLOB_LIMIT = 200


def program_name(word: str) -> str:
    """The program a command word names: ``/usr/bin/env`` is ``env``, ``python3.12`` is ``python``."""
    name = PurePosixPath(word).name or word
    return _VERSION_SUFFIX.sub("", name) or name


def runner_reason(words: Sequence[str]) -> str | None:
    """Why a command's program can run other programs or write where its options say, or None."""
    if not words:
        return None
    name = program_name(words[0])
    if name in RUNNER_COMMANDS:
        return f"{name} can run other programs or write where its options say"
    if name == "git":
        return _git_runner_reason(words[1:])
    if len(words) > 1 and (name, words[1]) in _PROGRAM_RUNNERS:
        rest = words[2:]
        if not rest or rest[0].startswith("-"):
            return f"{name} {words[1]} runs a program that cannot be told from its options"
        inner = runner_reason(rest)
        return f"{name} {words[1]} runs {inner}" if inner else None
    return None


def _git_runner_reason(args: Sequence[str]) -> str | None:
    for word in args:
        if not word.startswith("-"):
            if word in _GIT_RUNNING_SUBCOMMANDS:
                return f"git {word} can run other programs or change what git runs"
            return None
        option = word.split("=", 1)[0]
        if option in _GIT_REDIRECTING_OPTIONS:
            return f"git {option} changes which repository or commands git uses"
    return None


def plain_command(command: str) -> SimpleCommand | None:
    """``command`` as one plain command a prefix rule may match, else None (see the docstring)."""
    try:
        parsed = parse(command.strip())
    except ShellSyntaxError:
        return None
    if not parsed.is_simple:
        return None
    simple = parsed.commands[0]
    if simple.assignments or not simple.words:
        return None
    for redirect in simple.redirects:
        if not (redirect.duplicates_descriptor or redirect.target.text == "/dev/null"):
            return None
    if any("${" in word.raw for word in simple.words):
        return None
    return simple


def prefix_covers(prefix: Sequence[str], command: str, project_root: Path) -> bool:
    """Whether a prefix rule of ``prefix`` words allows ``command`` (the rule in the docstring)."""
    simple = plain_command(command)
    if simple is None or not prefix:
        return False
    words = simple.argv
    if words[: len(prefix)] != tuple(prefix) or any(word.expands for word in simple.words):
        return False
    if len(words) == len(prefix):
        return True
    if runner_reason(words) is not None:
        return False
    return uncovered_word(simple.words, len(prefix), project_root) is None


def uncovered_word(words: Sequence[Word], start: int, project_root: Path) -> str | None:
    """Why a word from ``words[start:]`` is not covered by a prefix rule, or None."""
    root = project_root.resolve()
    short_executing = _short_options(words, _EXECUTING_SHORT)
    short_writing = _short_options(words, _WRITING_SHORT)
    for word in words[start:]:
        text = word.text
        option = text.split("=", 1)[0]
        if option in EXECUTING_OPTIONS or option in short_executing:
            return f"{option} runs a command"
        if any(not text.startswith("--") and text.startswith(short) for short in short_executing):
            return f"{text} runs a command"
        if option in WRITING_OPTIONS or option in short_writing:
            return f"{option} writes a file"
        if any(not text.startswith("--") and text.startswith(short) for short in short_writing):
            return f"{text} writes a file"
        if _brace_expands(word.raw):
            return f"{word.raw} expands to other words"
        reason = _path_problem(word, root)
        if reason is not None:
            return reason
    return None


def _short_options(words: Sequence[Word], table: dict[str, frozenset[str]]) -> frozenset[str]:
    name = program_name(words[0].text)
    found = table.get(name, frozenset())
    if name == "git":
        subcommand = next((w.text for w in words[1:] if not w.text.startswith("-")), "")
        found = found | table.get(f"git {subcommand}", frozenset())
    return found


def _brace_expands(raw: str) -> bool:
    unquoted = _QUOTED.sub("", raw)
    return "{" in unquoted and "}" in unquoted and ("," in unquoted or ".." in unquoted)


def _path_problem(word: Word, root: Path) -> str | None:
    candidates = list(_path_candidates(word.text))
    if word.globs:
        try:
            matches = list(itertools.islice(glob.iglob(word.text, root_dir=root), _GLOB_LIMIT + 1))
        except (OSError, ValueError):
            return f"the pattern {word.text} cannot be checked"
        if len(matches) > _GLOB_LIMIT:
            return f"the pattern {word.text} matches too many names to check"
        candidates.extend(matches)
    for candidate in candidates:
        reason = _outside_or_protected(candidate, root)
        if reason is not None:
            return reason
    return None


def _path_candidates(text: str) -> set[str]:
    """The word, and every part of it that may be read as a path (see the docstring)."""
    found = set()
    if text.startswith("-"):
        if not text.startswith("--") and len(text) > 2:
            found.add(text[2:])
            for marker in "/~":
                if marker in text:
                    found.add(text[text.index(marker) :])
    else:
        found.add(text)
    if text.startswith("@"):
        found.add(text[1:])
    for separator in "=:,":
        position = text.find(separator)
        while position >= 0:
            found.add(text[position + 1 :])
            position = text.find(separator, position + 1)
    found.discard("")
    return found


def _outside_or_protected(candidate: str, root: Path) -> str | None:
    if candidate in _DEVICE_SINKS:
        return None
    if candidate.startswith("~"):
        return f"{candidate} is in the home folder"
    path = Path(candidate)
    try:
        resolved = (path if path.is_absolute() else root / path).resolve()
    except (OSError, RuntimeError, ValueError):
        return f"{candidate} cannot be resolved"
    if not is_inside(resolved, root):
        return f"{candidate} is outside the project folder"
    protected = protected_reason(resolved, root)
    if protected is not None:
        return f"{candidate} is in {protected}"
    return None
