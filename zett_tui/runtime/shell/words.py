"""Split a shell command line into simple commands, the way a POSIX shell would read it.

The permission checks need to know, for a command such as ``pytest -x; rm -rf /``, that it is two
commands joined by ``;``. ``shlex`` gets this wrong in ways that matter here: ``shlex.split``
keeps ``;`` inside words and reads a newline as a space, and its ``punctuation_chars`` mode
treats ``#`` inside a word as a comment, so ``pytest a#b; rm -rf /`` comes out as
``pytest a`` with the rest hidden. This module is a small quote-aware scanner instead:

- words with their quotes removed, and flags for expansions (``$X``, ``$(..)``) and globs;
- control operators (``;``, ``&&``, ``||``, ``|``, ``|&``, ``&``, newline) and subshells;
- command substitution (``$(..)``, backticks, also inside double quotes) and process
  substitution (``<(..)``, ``>(..)``), whose inner commands are parsed too;
- redirections with their optional file-descriptor number and target word; here-document
  bodies are skipped.

It does not expand anything and knows no shell keywords; the caller decides what a word means.
Anything it cannot read (an unterminated quote or substitution, a stray ``)``) raises
``ShellSyntaxError``, and callers treat that as unsafe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Characters that end an unquoted word.
_WORD_BREAK = frozenset(" \t\n;&|()<>")
_REDIRECT_OPERATORS = ("&>>", "<<<", "<<-", ">>", "<<", "<>", ">&", "<&", ">|", "&>", ">", "<")
_CONTROL_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")

#: Operators that only duplicate or close a descriptor (``2>&1``, ``>&-``) and write no file.
DUPLICATING_REDIRECTS = frozenset({">&", "<&"})
#: Redirections that may create, truncate or append to their target.
WRITING_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-]")


class ShellSyntaxError(ValueError):
    """The command cannot be read safely (unbalanced quotes, parentheses or substitutions)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word after quote removal. ``expands`` means its value is only known when it runs."""

    text: str
    raw: str
    expands: bool = False
    globs: bool = False


@dataclass(frozen=True, slots=True)
class Redirect:
    operator: str
    target: Word
    fd: int | None = None

    @property
    def duplicates_descriptor(self) -> bool:
        """``2>&1``, ``>&2``, ``<&0``, ``>&-``: no file is involved."""
        target = self.target.text
        return self.operator in DUPLICATING_REDIRECTS and (target.isdigit() or target == "-")

    @property
    def writes(self) -> bool:
        return self.operator in WRITING_REDIRECTS and not self.duplicates_descriptor


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """``NAME=value ... word ... [redirections]`` between two control operators."""

    assignments: tuple[Word, ...] = ()
    words: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(word.text for word in self.words)


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """Every simple command in a command line, in the order the scanner finished them.

    Commands inside substitutions and subshells are included (an inner command is finished
    before the one around it). ``operators`` lists every control operator and every
    substitution or subshell opener seen, so an empty tuple means one plain command.
    """

    commands: tuple[SimpleCommand, ...]
    operators: tuple[str, ...]

    @property
    def is_simple(self) -> bool:
        """Exactly one command, no operators, no substitutions, no here-documents."""
        return len(self.commands) == 1 and not self.operators


def parse(command: str) -> ParsedCommand:
    """Parse one command line; raises ``ShellSyntaxError`` when it cannot be read safely."""
    scanner = _Scanner(command)
    scanner.parse_sequence(closer=None)
    return ParsedCommand(tuple(scanner.commands), tuple(scanner.operators))


@dataclass
class _CommandBuilder:
    assignments: list[Word] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    def add_word(self, word: Word) -> None:
        if not self.words and _ASSIGNMENT.match(word.raw):
            self.assignments.append(word)
        else:
            self.words.append(word)

    def build(self) -> SimpleCommand | None:
        if not (self.assignments or self.words or self.redirects):
            return None
        return SimpleCommand(tuple(self.assignments), tuple(self.words), tuple(self.redirects))


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.commands: list[SimpleCommand] = []
        self.operators: list[str] = []
        self._heredocs: list[tuple[str, bool]] = []

    # -- structure -----------------------------------------------------------------------------

    def parse_sequence(self, closer: str | None) -> None:
        """Read commands until ``closer`` (``)`` or a backtick) or, with no closer, the end."""
        current = _CommandBuilder()
        text = self.text
        while True:
            self._skip_blanks()
            if self.pos >= len(text):
                if closer is not None:
                    raise ShellSyntaxError(f"missing {closer!r}")
                self._finish(current)
                return
            char = text[self.pos]
            if closer is not None and char == closer:
                self.pos += 1
                self._finish(current)
                return
            if char == ")":
                raise ShellSyntaxError("unexpected ')'")
            if char == "#":
                self._skip_comment()
                continue
            if char == "\n":
                self.pos += 1
                self.operators.append("\n")
                current = self._finish(current)
                self._skip_heredoc_bodies()
                continue
            if char == "(":
                self.pos += 1
                self.operators.append("(")
                current = self._finish(current)
                self.parse_sequence(closer=")")
                continue
            if char in "<>" and text.startswith("(", self.pos + 1):
                opener = text[self.pos : self.pos + 2]
                self.pos += 2
                self.operators.append(opener)
                self.parse_sequence(closer=")")
                current.add_word(Word(f"{opener}…)", f"{opener}…)", expands=True))
                continue
            redirect = self._match(_REDIRECT_OPERATORS)
            if redirect is not None:
                current.redirects.append(self._read_redirect(redirect, fd=None, closer=closer))
                continue
            control = self._match(_CONTROL_OPERATORS)
            if control is not None:
                self.pos += len(control)
                self.operators.append(control)
                current = self._finish(current)
                continue
            word = self._read_word(closer)
            if word.raw.isdigit() and self.pos < len(text) and text[self.pos] in "<>":
                operator = self._match(_REDIRECT_OPERATORS)
                if operator is not None:
                    current.redirects.append(self._read_redirect(operator, fd=int(word.raw), closer=closer))
                    continue
            current.add_word(word)

    def _finish(self, current: _CommandBuilder) -> _CommandBuilder:
        command = current.build()
        if command is not None:
            self.commands.append(command)
        return _CommandBuilder()

    def _read_redirect(self, operator: str, fd: int | None, closer: str | None) -> Redirect:
        self.pos += len(operator)
        self._skip_blanks()
        if self.pos >= len(self.text) or self.text[self.pos] in _WORD_BREAK:
            raise ShellSyntaxError(f"redirection {operator!r} without a target")
        target = self._read_word(closer)
        if operator in ("<<", "<<-"):
            quoted = target.raw != target.text
            self.operators.append("<<")
            self._heredocs.append((target.text, operator == "<<-"))
            if not quoted:
                target = Word(target.text, target.raw, expands=True)
        return Redirect(operator, target, fd)

    def _skip_heredoc_bodies(self) -> None:
        while self._heredocs:
            delimiter, strip_tabs = self._heredocs.pop(0)
            while True:
                if self.pos >= len(self.text):
                    raise ShellSyntaxError(f"here-document without its end line {delimiter!r}")
                end = self.text.find("\n", self.pos)
                line = self.text[self.pos : end if end >= 0 else len(self.text)]
                self.pos = end + 1 if end >= 0 else len(self.text)
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break

    # -- words ---------------------------------------------------------------------------------

    def _read_word(self, closer: str | None) -> Word:
        text = self.text
        start = self.pos
        out: list[str] = []
        expands = globs = False
        while self.pos < len(text):
            char = text[self.pos]
            if char in _WORD_BREAK or (closer == "`" and char == "`"):
                break
            if char == "\\":
                if self.pos + 1 >= len(text):
                    raise ShellSyntaxError("trailing backslash")
                following = text[self.pos + 1]
                if following != "\n":
                    out.append(following)
                self.pos += 2
            elif char == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote")
                out.append(text[self.pos + 1 : end])
                self.pos = end + 1
            elif char == '"':
                expands |= self._read_double_quoted(out)
            elif char == "$":
                expands |= self._read_dollar(out, quoted=False)
            elif char == "`":
                self._read_backticks(out)
                expands = True
            else:
                if char in "*?[":
                    globs = True
                out.append(char)
                self.pos += 1
        if self.pos == start:
            raise ShellSyntaxError(f"unexpected {text[self.pos]!r}")
        return Word("".join(out), text[start : self.pos], expands, globs)

    def _read_double_quoted(self, out: list[str]) -> bool:
        text = self.text
        self.pos += 1
        expands = False
        while True:
            if self.pos >= len(text):
                raise ShellSyntaxError("unterminated double quote")
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return expands
            if char == "\\" and self.pos + 1 < len(text) and text[self.pos + 1] in '$`"\\\n':
                if text[self.pos + 1] != "\n":
                    out.append(text[self.pos + 1])
                self.pos += 2
            elif char == "$":
                expands |= self._read_dollar(out, quoted=True)
            elif char == "`":
                self._read_backticks(out)
                expands = True
            else:
                out.append(char)
                self.pos += 1

    def _read_dollar(self, out: list[str], *, quoted: bool) -> bool:
        """Read ``$name``, ``${...}``, ``$(...)``; returns whether it expands to something."""
        text = self.text
        following = text[self.pos + 1] if self.pos + 1 < len(text) else ""
        if following == "(":
            self.pos += 2
            self.operators.append("$(")
            self.parse_sequence(closer=")")
            out.append("$(…)")
            return True
        if following == "{":
            end = text.find("}", self.pos + 2)
            if end < 0:
                raise ShellSyntaxError("unterminated ${")
            if not _PLAIN_NAME.fullmatch(text[self.pos + 2 : end]):
                # ${x:-$(cmd)} and friends can run anything; they cannot be checked, only asked about.
                raise ShellSyntaxError("a ${...} expansion with operators cannot be checked safely")
            out.append(text[self.pos : end + 1])
            self.pos = end + 1
            return True
        if following == "'" and not quoted:
            # $'...' (ANSI-C quoting): the escapes are not decoded, but the text stays one word.
            end = text.find("'", self.pos + 2)
            if end < 0:
                raise ShellSyntaxError("unterminated $'")
            out.append(text[self.pos + 2 : end])
            self.pos = end + 1
            return True
        match = _PARAMETER.match(text, self.pos + 1)
        if match is None:
            out.append("$")
            self.pos += 1
            return False
        out.append(text[self.pos : match.end()])
        self.pos = match.end()
        return True

    def _read_backticks(self, out: list[str]) -> None:
        self.pos += 1
        self.operators.append("`")
        self.parse_sequence(closer="`")
        out.append("`…`")

    # -- helpers -------------------------------------------------------------------------------

    def _match(self, operators: tuple[str, ...]) -> str | None:
        return next((op for op in operators if self.text.startswith(op, self.pos)), None)

    def _skip_blanks(self) -> None:
        text = self.text
        while self.pos < len(text):
            if text[self.pos] in " \t":
                self.pos += 1
            elif text.startswith("\\\n", self.pos):
                self.pos += 2
            else:
                return

    def _skip_comment(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end
