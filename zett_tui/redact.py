"""Credential-shaped strings are replaced by a marker naming their kind before anything is written.

One redaction point for every file zett writes (turn records, logs, exports). It works on text
that may be a serialized JSON line: markers contain no quote or backslash, and matched values
stop at a quote or backslash, so a redacted JSON line stays valid JSON. What the user sees on
screen during the session is not changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_BUILTIN: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----.*?-----END \1PRIVATE KEY-----"),
    ("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{16,}"),
    ("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("aws-access-key", r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"),
    ("github-token", r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    ("slack-token", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
)

#: NAME=value assignments whose name says the value is secret (.env files, shell exports, YAML).
_ASSIGNMENT = re.compile(
    r"(?P<name>\b[A-Za-z_][A-Za-z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY)"
    r"[A-Za-z0-9_]*)(?P<sep>\s*[=:]\s*)(?P<quote>\\?[\"']?)(?P<value>[^\s\"'\\]{3,})",
    re.IGNORECASE,
)

#: Environment variables whose values are provider credentials: removed wherever they appear.
CREDENTIAL_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ZETT_API_KEY")


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass
class Redactor:
    """Callable: ``redactor(text) -> text`` with every secret replaced by ``[REDACTED:kind]``."""

    extra_patterns: Iterable[str] = ()
    known_secrets: Iterable[str] = ()
    _patterns: list[tuple[str, re.Pattern[str]]] = field(init=False)
    _secrets: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self._patterns = [(kind, re.compile(pattern, re.DOTALL)) for kind, pattern in _BUILTIN]
        self._patterns += [("custom", re.compile(pattern)) for pattern in self.extra_patterns]
        self._secrets = sorted({s for s in self.known_secrets if len(s) >= 8}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, marker("credential"))
        for kind, pattern in self._patterns:
            text = pattern.sub(marker(kind), text)
        return _ASSIGNMENT.sub(_replace_assignment, text)


def _replace_assignment(match: re.Match[str]) -> str:
    value = match.group("value")
    if value.startswith("[REDACTED:") or value.lower() in {"none", "null", "true", "false", "changeme"}:
        return match.group(0)
    return f"{match.group('name')}{match.group('sep')}{match.group('quote')}{marker('secret-assignment')}"


def redactor_from_environment(env: Mapping[str, str], extra_patterns: Iterable[str] = ()) -> Redactor:
    """A redactor that also removes the provider keys this process was given."""
    secrets = [env[name] for name in CREDENTIAL_VARIABLES if env.get(name)]
    return Redactor(extra_patterns=extra_patterns, known_secrets=secrets)
