"""How a command's arguments split into options, option values and operands, and which of
them name a file the command writes (``cp``'s target, ``sed -i``'s files, ``curl -o``...).

Used by ``danger`` to find the files a command changes; it knows each command's options only as
far as the tables below say, and errs towards reading an unknown word as an operand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from zett_tui.runtime.shell.words import Word

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


def is_cluster(text: str) -> bool:
    """``-le``, ``-Bc``: single-letter options run together."""
    return len(text) > 2 and text.startswith("-") and not text.startswith("--") and text[1:].isalpha()


def has_option(args: Sequence[Word], options: Iterable[str]) -> bool:
    wanted = tuple(options)
    return any(word.text in wanted or word.text.split("=", 1)[0] in wanted for word in args)


def leading_options(args: Sequence[Word]) -> tuple[list[str], list[Word]]:
    options: list[str] = []
    for index, word in enumerate(args):
        if word.text == "--":
            return options, list(args[index + 1 :])
        if word.text.startswith(("-", "+")) and word.text not in ("-", "+"):
            options.append(word.text)
            continue
        return options, list(args[index:])
    return options, []


def split_options(
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
        if text in with_argument or (is_cluster(text) and f"-{text[-1]}" in with_argument):
            if index + 1 >= len(words):
                return None
            used.append(words[index + 1])
            index += 2
        else:
            index += 1
    return used, list(words[index:])


def values_of(used: Sequence[Word], options: Iterable[str]) -> list[Word]:
    """Values of ``-o X``, ``-oX``, ``--output X`` and ``--output=X`` among leading options."""
    wanted = tuple(options)
    values: list[Word] = []
    for index, word in enumerate(used):
        text = word.text
        for option in wanted:
            clustered = len(option) == 2 and is_cluster(text) and text.endswith(option[1])
            if (text == option or clustered) and index + 1 < len(used):
                values.append(used[index + 1])
            elif option.startswith("--") and text.startswith(option + "="):
                value = text[len(option) + 1 :]
                values.append(Word(value, value, word.expands, word.globs))
            elif not option.startswith("--") and text.startswith(option) and len(text) > len(option):
                value = text[len(option) :]
                values.append(Word(value, value, word.expands, word.globs))
    return values


def skip_options(words: Sequence[Word], with_argument: frozenset[str]) -> list[Word]:
    index = 0
    while index < len(words):
        text = words[index].text
        if text == "--":
            return list(words[index + 1 :])
        if not text.startswith("-") or text == "-":
            break
        index += 2 if text in with_argument else 1
    return list(words[index:])


def options_and_operands(name: str, args: Sequence[Word]) -> tuple[list[Word], list[Word]]:
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


def option_value(options: Sequence[Word], short: Iterable[str], long: Iterable[str]) -> list[Word]:
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


def written_operands(name: str, args: Sequence[Word]) -> list[Word]:
    options, operands = options_and_operands(name, args)
    option_texts = [word.text for word in options]
    if name in _ALL_OPERANDS_WRITTEN:
        return [*operands, *option_value(options, ["-t"], ["--target-directory"])]
    if name in ("chmod", "chown", "chgrp"):
        if any(text.startswith("--reference") for text in option_texts):
            return operands
        return operands[1:]
    if name in ("cp", "ln", "install", "rsync"):
        targets = option_value(options, ["-t"], ["--target-directory"])
        return targets or (operands[-1:] if len(operands) > 1 else [])
    if name == "dd":
        return [Word(w.text[3:], w.raw[3:], w.expands, w.globs) for w in args if w.text.startswith("of=")]
    if name == "sed" and any(t.startswith("-i") or t.startswith("--in-place") for t in option_texts):
        scripted = any(t in ("-e", "-f") or t.startswith(("--expression", "--file")) for t in option_texts)
        return operands if scripted else operands[1:]
    if name == "curl":
        return fetcher_writes(args, _CURL_SHORT_VALUES, _CURL_SHORT_WRITES, _CURL_LONG_WRITES)
    if name == "wget":
        return fetcher_writes(args, _WGET_SHORT_VALUES, _WGET_SHORT_WRITES, _WGET_LONG_WRITES)
    return []


def fetcher_writes(
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


def rm_is_recursive(args: Sequence[Word]) -> bool:
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


def git_clean_forced(args: Sequence[Word]) -> bool:
    rest = skip_options(args, frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"}))
    if not rest or rest[0].text != "clean":
        return False
    for word in rest[1:]:
        text = word.text
        if text == "--force" or (text.startswith("-") and not text.startswith("--") and "f" in text):
            return True
    return False


def shell_script(args: Sequence[Word]) -> Word | None:
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
