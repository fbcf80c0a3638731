"""Take the wrappers off a command (``sudo``, ``env``, ``xargs``, ``timeout``, ``uv run``...)
to find the command that really runs, the files the wrappers write, and the script a wrapper runs
through a shell (``env -S``, ``watch``, ``flock -c``, ``script -c``)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zett_tui.runtime.shell.command_words import skip_options, split_options, values_of
from zett_tui.runtime.shell.words import Word

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


@dataclass(frozen=True, slots=True)
class Call:
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


def unwrap(words: Sequence[Word]) -> Call | None:
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
            joined = joined_script(name, rest[1:])
            if isinstance(joined, Call):
                return joined
            rest = joined
            continue
        if name in _WRAPPERS:
            elevated |= name in ("sudo", "doas")
            from_input |= name in ("xargs", "parallel")
            options = _WRAPPERS[name]
            taken = split_options(rest[1:], options)
            if taken is None:
                return Call(
                    name, (), word=first, unknown=f"runs a command through {name} that cannot be read"
                )
            used, rest = taken
            writes.extend(values_of(used, _WRAPPER_OUTPUTS.get(name, ())))
            if name == "env":
                split = values_of(used, ("-S", "--split-string"))
                if split:
                    if any(word.expands for word in [*split, *rest]):
                        return Call(
                            name, (), word=first, unknown="runs a command only known when it runs (env -S)"
                        )
                    line = " ".join([split[0].text, *(shlex.quote(word.text) for word in rest)])
                    return Call(name, (), elevated, from_input, first, tuple(writes), script=line)
                chdir = next(iter(values_of(used, ("-C", "--chdir"))), chdir)
                while rest and "=" in rest[0].text and not rest[0].text.startswith("="):
                    rest = rest[1:]
            if name == "flock":
                rest = rest[1:]
                taken = split_options(rest, frozenset({"-c", "--command"}))
                command = values_of(used, ("-c", "--command")) + values_of(
                    taken[0] if taken else [], ("-c", "--command")
                )
                if command:
                    if command[0].expands:
                        return Call(
                            name, (), word=first, unknown="runs a command only known when it runs (flock -c)"
                        )
                    return Call(name, (), elevated, from_input, first, tuple(writes), script=command[0].text)
            elif name in _WRAPPER_OPERAND and rest:
                rest = rest[1:]
            continue
        if name == "script":
            taken = split_options(rest[1:], frozenset({"-c", "--command", "-E", "-O", "-I", "-T", "-B"}))
            command = values_of(taken[0], ("-c", "--command")) if taken else []
            if command:
                if command[0].expands:
                    return Call(
                        name, (), word=first, unknown="runs a command only known when it runs (script -c)"
                    )
                return Call(name, (), elevated, from_input, first, tuple(writes), script=command[0].text)
        if len(rest) > 1 and (name, rest[1].text) in _RUNNERS:
            rest = skip_options(rest[2:], frozenset())
            continue
        return Call(name, tuple(rest[1:]), elevated, from_input, first, tuple(writes), chdir=chdir)
    return None


def joined_script(name: str, args: Sequence[Word]) -> Call | list[Word]:
    """``watch CMD...`` and ``parallel CMD`` run their words joined through ``sh -c``: the line
    to check, or (``watch -x``) the words of the command it runs directly."""
    options = frozenset({"-n", "-d", "--interval", "-j", "--jobs", "-S", "--sshlogin", "--joblog"})
    taken = split_options(args, options)
    if taken is None:
        return Call(name, (), unknown=f"runs a command through {name} that cannot be read")
    used, rest = taken
    if name == "watch" and any(word.text in ("-x", "--exec") for word in used):
        return rest
    end = next((i for i, word in enumerate(rest) if word.text in (":::", "::::")), len(rest))
    command = rest[:end]
    if not command:
        if name == "parallel":
            return Call(name, (), unknown="runs commands read from its input (parallel)")
        return []
    if any(word.expands for word in command):
        return Call(name, (), unknown=f"runs a command only known when it runs ({name})")
    return Call(name, (), from_input=name == "parallel", script=" ".join(word.text for word in command))
