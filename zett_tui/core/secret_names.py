"""Secrets after a word that names one: ``DB_PASSWORD=...``, ``apiKey: ...``, ``Bearer ...``,
a ``.netrc`` entry, an Azure connection string.

The words that lead to these rules (``password``, ``token``, ``key``, ``bearer``, ``machine``...)
are found with ``str.find`` in the lower-cased text; each rule is then tried only there, anchored,
so the regexes never scan a whole text. What is assigned must also look like a value and not like
code (``cache_token = current_token``) or a placeholder (``password: ${DB_PASS}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from zett_tui.core.secret_formats import TOKEN_RULES
from zett_tui.core.secret_span import START, Span, starting

#: Between the words of a .netrc entry: blanks and line ends, real or escaped in a JSON line.
_NETRC_SEP = r"(?:[ \t\r\n]|\\[nrt])+"
_NETRC_TOKEN = r"[^\s\"'\\]+"

#: What an HTTP credential header looks like; the token must hold a digit ("basic approach").
_AUTH_HEADER = re.compile(
    rf"(?P<keep>{START}(?i:bearer|basic)\s+)(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{{8,}}={{0,2}}(?![=\w])"
)
#: A .netrc entry (one line or several): machine HOST login USER password SECRET. The login is
#: required, so prose ("by default password ...") is left alone.
_NETRC = re.compile(
    rf"(?P<keep>(?:{starting('machine')}{_NETRC_SEP}{_NETRC_TOKEN}|{starting('default')})"
    rf"(?:{_NETRC_SEP}(?:login|account|port){_NETRC_SEP}{_NETRC_TOKEN})+{_NETRC_SEP}password{_NETRC_SEP})"
    rf"{_NETRC_TOKEN}",
    re.DOTALL,
)
#: An Azure storage connection string: ...;AccountKey=<base64>;...
_AZURE = re.compile(r"(?P<keep>(?:Account|SharedAccess)Key=)[A-Za-z0-9+/]{20,}={0,2}")

#: Words in a name that say its value is secret: ``DB_PASSWORD``, ``apiKey``, ``x-api-key``.
_SECRET_WORDS = (
    r"(?i:password|passwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
    r"|auth[_\-]?key|credentials?)"
)
#: NAME=value and NAME: value (.env files, shell exports, YAML, JSON, TOML). A name's parts are
#: bounded (64 characters), so that a long run of name characters costs linear time. The secret word ends
#: the name or is followed by ``_``, ``-`` or a capital (``TOKEN_FILE``, ``secretKey``), so
#: ``max_tokens: 4096`` and ``tokenizer: x`` are not matched. The value stops at a quote,
#: backslash, bracket or separator, and a value followed by ``(`` or ``[`` is code, not a secret.
ASSIGNMENT = re.compile(
    rf"(?P<name>\b[A-Za-z0-9_.\-]{{0,64}}?{_SECRET_WORDS}(?:[_\-][A-Za-z0-9_\-]{{0,64}}|[A-Z][A-Za-z0-9_\-]{{0,64}})?)"
    r"(?P<sep>\\?[\"']?[ \t]*[=:][ \t]*)(?P<quote>\\?[\"']?)"
    r"(?P<value>[^\s\"'\\,;(){}\[\]<>]{3,}+)(?![(\[{])"
)
#: An environment variable's name that says its value is secret (``STRIPE_KEY``, ``GITLAB_TOKEN``,
#: ``MYSQL_PWD``, ``PASS``, ``SMTP_PASSWORD_1``). Upper case only in text (``sort_key = x`` is code).
SECRET_VARIABLE = r"[A-Z0-9_]{0,64}(?:_KEY|_TOKEN|_SECRET|_PWD|PASS)|[A-Z0-9_]{0,64}PASSWORD[A-Z0-9_]{0,64}"
#: NAME=value (``printenv``, ``.env``, ``export``) and NAME: value for such a name.
VARIABLE_ASSIGNMENT = re.compile(
    rf"(?P<name>{START}(?:{SECRET_VARIABLE})(?![A-Za-z0-9_]))"
    r"(?P<sep>\\?[\"']?[ \t]*[=:][ \t]*)(?P<quote>\\?[\"']?)"
    r"(?P<value>[^\s\"'\\,;(){}\[\]<>]{3,}+)(?![(\[{])"
)
#: Values that are not secrets: placeholders, literals and type names (``password: str``).
_PLACEHOLDERS = ("none", "null", "nil", "true", "false", "yes", "no", "changeme", "undefined", "required")
#: Values that are the name of a secret rather than one (``http://user:pass@host``, ``passwd='pass'``).
_NAMES_OF_SECRETS = ("pass", "password", "passwd", "pwd", "secret", "token", "dummy", "example")
_TYPE_NAMES = (
    "str",
    "string",
    "int",
    "integer",
    "bytes",
    "bool",
    "boolean",
    "float",
    "number",
    "any",
    "object",
)
NOT_SECRETS = frozenset((*_PLACEHOLDERS, *_NAMES_OF_SECRETS, *_TYPE_NAMES, "optional", "secretstr"))
NUMBER = re.compile(r"\d+(?:\.\d+)?")

#: The words that lead to a name rule, in the lower-cased text.
NAME_WORDS = ("pass", "secret", "token", "key", "pwd", "credential", "bearer", "basic", "machine", "default")
#: The characters of a name (``db.password``, ``x-api-key``), read backwards from its secret word.
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.\-]{1,64}$")
#: An HTTP header outranks a JWT in it ("Bearer <jwt>" says auth-header) but not a known format.
AUTH_RANK = 100 + next(i for i, rule in enumerate(TOKEN_RULES) if rule.kind == "jwt") - 0.5


def named_spans(text: str, lowered: str) -> Iterator[Span]:
    """Secrets after a word that says one follows: assignments, HTTP headers, .netrc entries."""
    names: set[int] = set()
    for word in NAME_WORDS:
        position = lowered.find(word)
        while position != -1:
            yield from _spans_at(text, word, position, names)
            position = lowered.find(word, position + 1)


def _spans_at(text: str, word: str, position: int, names: set[int]) -> Iterator[Span]:
    if word in ("bearer", "basic"):
        match = _AUTH_HEADER.match(text, position)
        if match:
            yield Span(match.end("keep"), match.end(), "auth-header", AUTH_RANK)
        return
    if word in ("machine", "default"):
        match = _NETRC.match(text, position)
        if match:
            yield Span(match.end("keep"), match.end(), "netrc-password", 6)
        return
    tail = _NAME_TAIL.search(text, max(0, position - 64), position)
    name = tail.start() if tail else position
    if name not in names:
        names.add(name)
        yield from _assignment_spans(text, name, position)


def _assignment_spans(text: str, name: int, keyword: int) -> Iterator[Span]:
    azure = _AZURE.match(text, name)
    if azure:
        yield Span(azure.end("keep"), azure.end(), "azure-key", 7)
        return
    starts = [name]
    if name > 0 and text[name - 1] == "\\" and text[name] in "nrt":
        starts.append(name + 1)
    starts += [index + 1 for index in range(name, keyword) if text[index] in ".-"]
    for pattern in (ASSIGNMENT, VARIABLE_ASSIGNMENT):
        for start in starts:
            match = pattern.match(text, start)
            if match:
                if secret_value(match.group("name"), match.group("value")) and not _code(text, match):
                    yield Span(match.start("value"), match.end("value"), "secret-assignment", 290)
                break


def secret_value(name: str, value: str) -> bool:
    """Whether ``value``, assigned to a secret-named ``name``, is a secret: not a placeholder
    (``xxx``, ``***``), a type, a number, a marker, a variable or the same attribute
    (``token=self.token``, ``lasttoken = token``), and the name not one of a secret's attributes
    (``token_type``, ``password_file``)."""
    lowered = value.lower()
    named = name.lower().rstrip("\"' \t:=`")
    return not (
        lowered in NOT_SECRETS
        or lowered.startswith(("[redacted", "$", "%", "{{"))
        or NUMBER.fullmatch(value)
        or set(lowered) <= _FILLER
        or named.endswith(lowered.rsplit(".", 1)[-1])
        or _ABOUT_A_SECRET.search(named)
    )


def _code(text: str, match: re.Match[str]) -> bool:
    """Whether an assignment is code rather than configuration: an unquoted value that is an
    attribute (``self._authkey``), a snake_case name or a word without digits after `` = ``
    (``cache_token = current_token``, ``password = credentials``), a term of an expression (``Ignore + PlainToken``,
    ``user, password``), or a word followed by more words (``password: The password for...``)."""
    if match.group("quote"):
        return False
    value, after = match.group("value"), text[match.end() : match.end() + 3]
    if _ATTRIBUTE.fullmatch(value):
        return True
    if not _PLAIN_WORD.fullmatch(value):
        return False
    spaced = " " in match.group("sep")
    python_style = spaced and "=" in match.group("sep")
    return (
        (python_style and ("_" in value or not any(c.isdigit() for c in value)))
        or after[:1] in (",", ")")
        or (spaced and _MORE_WORDS.match(after) is not None)
    )


_ATTRIBUTE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_PLAIN_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MORE_WORDS = re.compile(r" (?:[A-Za-z]|[+|&*-] )")

#: The characters of a placeholder value: ``xxxx``, ``****``, ``...``.
_FILLER = frozenset("x*.-_<>")
#: A name for something about a secret, not the secret: the secret word followed by one of these.
_ABOUT_A_SECRET = re.compile(
    r"(?:password|passwd|passphrase|secret|token|key|pwd|credentials?)s?[_\-.]?"
    r"(?:types?|kinds?|counts?|len|length|size|ends|starts|url|uri|endpoint|file|path|dir|name|prompt"
    r"|mgr|manager|field|label|class|regexp?|re|pattern|format|fmt|expiry|expires|expiration|ttl"
    r"|timeout|source|env|var|header|param|hint|policy|limit|id|index|idx|list|map|dict|set|provider"
    r"|store|storage|helper|handler|reset|required|changed|set|validator|callback|func|fn|chars|spec)$"
)
