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


#: Where a key may start: not inside a word, but right after a JSON escape (``\n``) in a JSON line.
_START = r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9_]))"

_LINE_END = r"(?:\r?\n|(?:\\r)?\\n)"
_PEM_BODY = rf"(?:{_LINE_END}(?:[A-Za-z\-]+: [^\r\n\\]*|[A-Za-z0-9+/=]+)(?={_LINE_END}|$))*"


def _starting(prefix: str) -> str:
    """``prefix`` (fixed width) where a key may start (as :data:`_START`), tested after the
    literal so that the regex engine can scan for it: much faster on long text."""
    return rf"{prefix}(?:(?<=\\[nrt]{prefix})|(?<![A-Za-z0-9_]{prefix}))"


#: Between the words of a .netrc entry: blanks and line ends, real or escaped in a JSON line.
_NETRC_SEP = r"(?:[ \t\r\n]|\\[nrt])+"
_NETRC_TOKEN = r"[^\s\"'\\]+"

#: (kind, pattern). A ``keep`` group is kept in front of the marker (the word ``Bearer``).
_BUILTIN: tuple[tuple[str, str], ...] = (
    # A key cut short (a tool's output truncated before the END line) is removed up to the last
    # line that looks like a key's (base64, or a "Proc-Type: ..." header).
    (
        "private-key",
        rf"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?:.*?-----END \1PRIVATE KEY-----|{_PEM_BODY})",
    ),
    ("anthropic-key", rf"{_START}sk-ant-[A-Za-z0-9_\-]{{16,}}"),
    ("openai-key", rf"{_START}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}"),
    # A key as a provider echoes it in an error, partly starred: sk-abc12345***wxyz.
    ("masked-key", rf"{_START}sk-[A-Za-z0-9_\-]{{3,}}\*{{3,}}[A-Za-z0-9_\-]*"),
    ("provider-key", rf"{_START}(?:xai|gsk|pplx|csk)-?_?[A-Za-z0-9]{{20,}}\b"),
    ("aws-access-key", rf"{_START}(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{{16}}\b"),
    ("github-token", rf"{_START}(?:gh[pousr]_[A-Za-z0-9]{{20,}}|github_pat_[A-Za-z0-9_]{{20,}})"),
    ("slack-token", rf"{_START}xox[abposr]-[A-Za-z0-9\-]{{10,}}"),
    ("google-api-key", rf"{_START}AIza[0-9A-Za-z_\-]{{30,}}"),
    # The password in a URL: postgres://user:PASSWORD@host.
    ("url-password", r"(?P<keep>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@\"'\\]*:)[^/\s@\"'\\]{3,}(?=@)"),
    # An HTTP credential; the token must hold a digit, so "basic approach" is left alone.
    (
        "auth-header",
        rf"(?P<keep>{_START}(?i:bearer|basic)\s+)(?=[A-Za-z0-9._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{{8,}}",
    ),
    ("stripe-key", rf"{_starting('[sr]k_')}(?:live|test)_[A-Za-z0-9]{{16,}}"),
    ("gitlab-token", rf"{_starting('gl')}(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_\-]{{20,}}"),
    # npm and Hugging Face tokens: letters and digits only, so identifiers (hf_hub_download) differ.
    ("npm-token", rf"{_starting('npm_')}(?=[A-Za-z]*\d)[A-Za-z0-9]{{30,}}\b"),
    ("huggingface-token", rf"{_starting('hf_')}[A-Za-z0-9]{{30,}}\b"),
    # An Azure storage connection string: ...;AccountKey=<base64>;...
    ("azure-key", r"(?P<keep>(?:Account|SharedAccess)Key=)[A-Za-z0-9+/]{20,}={0,2}"),
    (
        "slack-webhook",
        r"(?P<keep>https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/\-]{10,}",
    ),
    # A JWT: header and claims are base64url JSON objects (eyJ is '{"'); after auth-header, so
    # "Bearer <jwt>" keeps its marker. Base64 data holds no dots, so an image is not matched.
    ("jwt", rf"{_starting('eyJ')}[A-Za-z0-9_\-]{{10,}}\.eyJ[A-Za-z0-9_\-]{{10,}}\.[A-Za-z0-9_\-]*"),
    # A .netrc entry (one line or several): machine HOST login USER password SECRET. The login is
    # required, so prose ("by default password ...") is left alone.
    (
        "netrc-password",
        rf"(?P<keep>(?:{_starting('machine')}{_NETRC_SEP}{_NETRC_TOKEN}|{_starting('default')})"
        rf"(?:{_NETRC_SEP}(?:login|account|port){_NETRC_SEP}{_NETRC_TOKEN})+{_NETRC_SEP}password{_NETRC_SEP})"
        rf"{_NETRC_TOKEN}",
    ),
)
_COMPILED = tuple((kind, re.compile(pattern, re.DOTALL)) for kind, pattern in _BUILTIN)

#: Words in a name that say its value is secret: ``DB_PASSWORD``, ``apiKey``, ``x-api-key``.
_SECRET_WORDS = (
    r"(?i:password|passwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
    r"|auth[_\-]?key|credentials?)"
)
#: NAME=value and NAME: value (.env files, shell exports, YAML, JSON, TOML). The secret word ends
#: the name or is followed by ``_``, ``-`` or a capital (``TOKEN_FILE``, ``secretKey``), so
#: ``max_tokens: 4096`` and ``tokenizer: x`` are not matched. The value stops at a quote,
#: backslash, bracket or separator, and a value followed by ``(`` or ``[`` is code, not a secret.
_ASSIGNMENT = re.compile(
    rf"(?P<name>\b[A-Za-z0-9_.\-]*?{_SECRET_WORDS}(?:[_\-][A-Za-z0-9_\-]*|[A-Z][A-Za-z0-9_\-]*)?)"
    r"(?P<sep>\\?[\"']?[ \t]*[=:][ \t]*)(?P<quote>\\?[\"']?)"
    r"(?P<value>[^\s\"'\\,;(){}\[\]<>]{3,}+)(?![(\[{])"
)
#: An environment variable's name that says its value is secret (``STRIPE_KEY``, ``GITLAB_TOKEN``,
#: ``MYSQL_PWD``, ``PASS``, ``SMTP_PASSWORD_1``). Upper case only in text (``sort_key = x`` is code).
_SECRET_VARIABLE = r"[A-Z0-9_]*(?:_KEY|_TOKEN|_SECRET|_PWD|PASS)|[A-Z0-9_]*PASSWORD[A-Z0-9_]*"
_SECRET_VARIABLE_NAME = re.compile(_SECRET_VARIABLE)
#: NAME=value (``printenv``, ``.env``, ``export``) and NAME: value for such a name.
_VARIABLE_ASSIGNMENT = re.compile(
    rf"(?P<name>{_START}(?:{_SECRET_VARIABLE})(?![A-Za-z0-9_]))"
    r"(?P<sep>\\?[\"']?[ \t]*[=:][ \t]*)(?P<quote>\\?[\"']?)"
    r"(?P<value>[^\s\"'\\,;(){}\[\]<>]{3,}+)(?![(\[{])"
)
#: Values that are not secrets: placeholders, literals and type names (``password: str``).
_PLACEHOLDERS = ("none", "null", "nil", "true", "false", "yes", "no", "changeme", "undefined", "required")
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
_NOT_SECRETS = frozenset((*_PLACEHOLDERS, *_TYPE_NAMES, "optional", "secretstr"))
_NUMBER = re.compile(r"\d+(?:\.\d+)?")

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
    _patterns: list[tuple[str, re.Pattern[str]]] = field(init=False, repr=False)
    _secrets: list[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._patterns = [*_COMPILED, *(("custom", re.compile(pattern)) for pattern in self.extra_patterns)]
        self._secrets = sorted(
            {s for s in (*self.known_secrets, *self.environment_secrets) if len(s) >= MIN_KNOWN_SECRET},
            key=len,
            reverse=True,
        )

    def __repr__(self) -> str:  # never show the known secrets
        return f"Redactor(extra_patterns={len(self._patterns) - len(_COMPILED)}, known={len(self._secrets)})"

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, self.label("credential"))
        for kind, pattern in self._patterns:
            text = pattern.sub(self._replacement(kind), text)
        text = _ASSIGNMENT.sub(self._replace_assignment, text)
        return _VARIABLE_ASSIGNMENT.sub(self._replace_assignment, text)

    def _replacement(self, kind: str) -> Callable[[re.Match[str]], str]:
        label = self.label(kind)

        def replace(match: re.Match[str]) -> str:
            keep = match.groupdict().get("keep") if kind != "custom" else None
            return (keep or "") + label

        return replace

    def _replace_assignment(self, match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        lowered = value.lower()
        if (
            lowered in _NOT_SECRETS
            or lowered.startswith(("[redacted", "$", "%", "{{"))
            or _NUMBER.fullmatch(value)
            or lowered.rsplit(".", 1)[-1] == name.lower().rsplit(".", 1)[-1]  # token=self.token
        ):
            return match.group(0)
        return f"{name}{match.group('sep')}{match.group('quote')}{self.label('secret-assignment')}"


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
        and value.lower() not in _NOT_SECRETS
        and not _NUMBER.fullmatch(value)
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


def configured_redactor(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Redactor:
    """The redactor for commands that do not go through startup (``zett sessions export``): the
    config's patterns and endpoint keys as seen from ``cwd``, and the environment's keys."""
    env = os.environ if env is None else env
    try:
        from zett_tui.config.settings import load_settings
        from zett_tui.config.trust import project_trusted

        folder = cwd or Path.cwd()
        settings, _problems = load_settings(cwd=folder, env=env, project_trusted=project_trusted(folder, env))
    except Exception:  # a config that cannot be read must not stop an export; keys still go
        return redactor_from_environment(env)
    return redactor_from_environment(env, settings.redact_patterns, settings.endpoints.values())


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
