"""Every kind of credential is replaced by a marker, and a redacted JSON line stays valid JSON."""

from __future__ import annotations

import json

import pytest

from zett_tui.core.redact import Redactor, redactor_from_environment

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest0123456789abcdef\nmorelines==\n"
    "-----END RSA PRIVATE KEY-----"
)

CASES = [
    ("anthropic-key", "key is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-xyz ok", "sk-ant-api03"),
    ("openai-key", "OPENAI=sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345", "sk-proj-AbCd"),
    ("aws-access-key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("github-token", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", "ghp_abcdef"),
    ("slack-token", "xoxb-123456789012-abcdefghijkl", "xoxb-1234"),
    ("google-api-key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA123"),
    ("private-key", PEM, "MIIEowIBAAKCAQEAtest"),
    ("secret-assignment", "DB_PASSWORD=hunter2hunter2\nAPI_TOKEN='t0k3n-value'", "hunter2"),
    ("secret-assignment", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), CASES)
def test_each_kind_is_replaced_by_its_marker(kind: str, text: str, secret: str) -> None:
    redacted = Redactor()(text)
    assert secret not in redacted
    assert f"[REDACTED:{kind}]" in redacted


@pytest.mark.parametrize(("kind", "text", "secret"), CASES)
def test_a_redacted_json_line_stays_valid(kind: str, text: str, secret: str) -> None:
    line = json.dumps({"messages": [{"content": f"tool said:\n{text}\nend"}]})
    redacted = Redactor()(line)
    decoded = json.loads(redacted)
    assert secret not in json.dumps(decoded)
    assert decoded["messages"][0]["content"].startswith("tool said:")


def test_user_patterns_and_known_credentials() -> None:
    redactor = redactor_from_environment(
        {"OPENAI_API_KEY": "weird-shaped-credential-123"}, extra_patterns=[r"corp-[0-9]{6}"]
    )
    text = redactor("a weird-shaped-credential-123 and corp-123456 here")
    assert "weird-shaped" not in text and "corp-123456" not in text
    assert "[REDACTED:credential]" in text and "[REDACTED:custom]" in text


def test_ordinary_text_is_unchanged() -> None:
    text = "def token_count(text):\n    return len(text.split())  # PASSWORD policy doc\nsk-short"
    assert Redactor()(text) == text


def test_exports_use_a_projects_patterns_only_once_it_is_trusted(isolated_dirs, tmp_path) -> None:
    import os
    from pathlib import Path

    from zett_tui.config.trust import find_project, remember
    from zett_tui.core.redact import configured_redactor

    project = Path.cwd()
    (project / ".zett").mkdir()
    (project / ".zett" / "config.toml").write_text('redact_patterns = ["internal-[0-9]+"]\n')
    env = dict(os.environ)
    assert configured_redactor(project, env)("host internal-42") == "host internal-42"
    found = find_project(project, env)
    assert found is not None
    remember(found, trusted=True)
    assert "internal-42" not in configured_redactor(project, env)("host internal-42")
