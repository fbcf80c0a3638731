"""Credential-shaped strings are replaced by a marker naming their kind before anything is written.

The one redaction point of zett: turn records, the SQLite history, logs and exports go through a
:class:`Redactor` (``[REDACTED:kind]`` markers); error sentences shown on screen go through the
same rules with shorter words (:func:`display_label`, used by ``runtime.errors.redact_secrets``).
What the user sees of a turn while it runs is not changed. Besides the shapes of known credentials,
a value is removed when a variable's name says it is secret (``MYSQL_PWD=...`` in any text), and
the values of zett's own secret-named environment variables are removed wherever they appear.

A redactor works on plain text and on a serialized JSON line alike: markers contain no quote or
backslash, and matched values stop at a quote or backslash, so a redacted JSON line stays valid
JSON. Structured records are better redacted leaf by leaf (:func:`redact_data`,
:func:`redact_json_line`): the rules then see real newlines and unescaped text.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from zett_tui.core.secret_names import NOT_SECRETS, NUMBER, SECRET_VARIABLE
from zett_tui.core.secret_scan import Span, find_spans, merge

Label = Callable[[str], str]


def marker(kind: str) -> str:
    """What replaces a secret in a file: ``[REDACTED:kind]``."""
    return f"[REDACTED:{kind}]"


_DISPLAY_LABELS = {
    "private-key": "[redacted private key]",
    "secret-assignment": "[redacted]",
    "auth-header": "[redacted]",
    "url-password": "[redacted]",
}


def display_label(kind: str) -> str:
    """What replaces a secret in a sentence on screen: ``[redacted key]`` and the like."""
    return _DISPLAY_LABELS.get(kind, "[redacted key]")


#: An environment variable's name that says its value is secret (any case here).
_SECRET_VARIABLE_NAME = re.compile(SECRET_VARIABLE)

#: Environment variables whose values are provider credentials: removed wherever they appear.
CREDENTIAL_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ZETT_API_KEY")
#: Known secret values shorter than this are not searched for (too likely to be ordinary words).
MIN_KNOWN_SECRET = 8


@dataclass
class Redactor:
    """Callable: ``redactor(text) -> text`` with every secret replaced by ``label(kind)``.

    Args:
        extra_patterns: The user's regexes (``redact_patterns`` in the config), kind ``custom``.
        known_secrets: Values removed whatever they look like (the provider keys in use; the
            shell sandbox also keeps them out of a command's environment).
        label: What a secret becomes; :func:`marker` for files, :func:`display_label` on screen.
        environment_secrets: Values removed whatever they look like: those of zett's environment
            variables whose names say they are secret (:func:`environment_secrets`).
    """

    extra_patterns: Iterable[str] = ()
    known_secrets: Iterable[str] = ()
    label: Label = marker
    environment_secrets: Iterable[str] = ()
    _patterns: list[re.Pattern[str]] = field(init=False, repr=False)
    _secrets: list[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._patterns = [re.compile(pattern) for pattern in self.extra_patterns]
        self._secrets = sorted(
            {s for s in (*self.known_secrets, *self.environment_secrets) if len(s) >= MIN_KNOWN_SECRET},
            key=len,
            reverse=True,
        )

    def __repr__(self) -> str:  # never show the known secrets
        return f"Redactor(extra_patterns={len(self._patterns)}, known={len(self._secrets)})"

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, self.label("credential"))
        spans = find_spans(text)
        for pattern in self._patterns:
            spans.extend(Span(match.start(), match.end(), "custom", 500) for match in pattern.finditer(text))
        if not spans:
            return text
        pieces: list[str] = []
        done = 0
        for span in merge(spans):
            if span.end > span.start:
                pieces += (text[done : span.start], self.label(span.kind))
                done = span.end
        pieces.append(text[done:])
        return "".join(pieces)


#: zett-agent's JSON form of bytes (an attached image): base64, left alone.
_BYTES_KEY = "__kcs_bytes__"


def redact_data(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with every string passed through ``redact``.

    Encoded bytes (``{"__kcs_bytes__": base64}``) are not text and are left as they are.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        if set(value) == {_BYTES_KEY}:
            return value
        return {redact_data(key, redact): redact_data(item, redact) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(item, redact) for item in value]
    return value


def redact_json_line(line: str, redact: Callable[[str], str]) -> str:
    """One compact JSON line redacted leaf by leaf; text that is not JSON is redacted as text."""
    try:
        data = json.loads(line)
    except ValueError:
        return redact(line)
    return json.dumps(redact_data(data, redact), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class _Endpoint(Protocol):
    @property
    def api_key(self) -> str | None: ...

    @property
    def api_key_env(self) -> str | None: ...


def credential_values(env: Mapping[str, str], endpoints: Iterable[_Endpoint] = ()) -> list[str]:
    """The provider keys this process may use: the built-in variables and every endpoint's key."""
    values = [env.get(name, "") for name in CREDENTIAL_VARIABLES]
    for endpoint in endpoints:
        values += [endpoint.api_key or "", env.get(endpoint.api_key_env or "", "")]
    return [value for value in values if value]


def secret_variable_name(name: str) -> bool:
    """Whether an environment variable's name says its value is secret (``*_KEY``, ``*_TOKEN``,
    ``*_SECRET``, ``*PASSWORD*``, ``*_PWD``, ``*PASS``; any case)."""
    return _SECRET_VARIABLE_NAME.fullmatch(name.upper()) is not None


def environment_secrets(env: Mapping[str, str]) -> list[str]:
    """The values of ``env``'s secret-named variables that could be searched for as they are: not
    a placeholder, a number or a path (``GIT_ASKPASS=/usr/lib/ssh/askpass`` names a program)."""
    return [
        value
        for name, value in env.items()
        if secret_variable_name(name)
        and len(value) >= MIN_KNOWN_SECRET
        and value.lower() not in NOT_SECRETS
        and not NUMBER.fullmatch(value)
        and not value.startswith(("/", "~", "./", "../"))
    ]


def redactor_from_environment(
    env: Mapping[str, str], extra_patterns: Iterable[str] = (), endpoints: Iterable[_Endpoint] = ()
) -> Redactor:
    """A redactor that also removes the provider keys this process was given, and the values of
    its secret-named environment variables wherever they appear."""
    return Redactor(
        extra_patterns=extra_patterns,
        known_secrets=credential_values(env, endpoints),
        environment_secrets=environment_secrets(env),
    )


#: A file is redacted in blocks of about this many bytes, cut at line ends (a longer line is cut
#: too: the patterns scan words, and one huge word would make a block cost seconds).
_FILE_BLOCK_BYTES = 1 << 16


def redact_file(path: Path, redact: Callable[[str], str]) -> None:
    """Rewrite ``path`` redacted, block by block (a command's output may be large), as a 0600 file.

    A file that cannot be rewritten (the disk is full) is deleted rather than kept unredacted.
    """
    if not path.is_file():
        return
    temporary = path.with_name(f".{path.name}.redacting")
    try:
        with (
            path.open("rb") as source,
            open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as target,
        ):
            while block := source.read(_FILE_BLOCK_BYTES):
                block += source.readline(_FILE_BLOCK_BYTES)  # end the block at a line end where one is near
                text = block.decode("utf-8", errors="surrogateescape")
                target.write(redact(text).encode("utf-8", errors="surrogateescape"))
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        path.unlink(missing_ok=True)
