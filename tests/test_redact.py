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
#: Issue 12 point 8: one real-shaped (fake) sample of each format that used to survive.
NEW_FORMATS = [
    ("stripe-key", "stripe sk_live_51HqLyjWDarjtT1zdp7dcXyZ0a9 set", "sk_live_51HqLyjWDarjtT1zdp7dcXyZ0a9"),
    ("stripe-key", "restricted rk_live_51HqLyjWDarjtT1zdp7dcQ2 set", "rk_live_51HqLyjWDarjtT1zdp7dcQ2"),
    ("gitlab-token", "GL glpat-Xk9vR2mT7qW4zL8nB3yH here", "glpat-Xk9vR2mT7qW4zL8nB3yH"),
    (
        "npm-token",
        "//registry.npmjs.org/:_authToken npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    ),
    (
        "huggingface-token",
        "HF 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 here",
        "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",
    ),
    (
        "azure-key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYg+/==;"
        "EndpointSuffix=core.windows.net",
        "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYg+/==",
    ),
    (
        "jwt",
        "cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U done",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "slack-webhook",
        "post to https://hooks.slack.com/services/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 now",
        "T04ABCD1EFG/B05HIJK2LMN/q1w2e3r4t5y6u7i8o9p0asdf",
    ),
    ("netrc-password", "machine api.example.com login bob password N3trc-s3cret-pw", "N3trc-s3cret-pw"),
    ("netrc-password", "machine git.example.org\n  login alice\n  password Mult1line-pw", "Mult1line-pw"),
    ("secret-assignment", "MYSQL_PWD=my5ql-r00t-pw", "my5ql-r00t-pw"),
    ("secret-assignment", "PASS=pr1ntenv-pass\nHOME=/home/u", "pr1ntenv-pass"),
    ("secret-assignment", "DEPLOY_KEY=dk-0a9f8e7d6c", "dk-0a9f8e7d6c"),
    ("secret-assignment", "SENTRY_AUTH_TOKEN: sntrys_abc123", "sntrys_abc123"),
    ("secret-assignment", "password: hunter2", "hunter2"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), CASES)
def test_each_kind_is_replaced_by_its_marker(kind: str, text: str, secret: str) -> None:
    redacted = Redactor()(text)
    assert secret not in redacted
    assert f"[REDACTED:{kind}]" in redacted


@pytest.mark.parametrize(("kind", "text", "secret"), NEW_FORMATS)
def test_each_new_format_is_redacted_and_the_text_around_it_kept(kind: str, text: str, secret: str) -> None:
    text = text.replace("\\n", "\n")
    assert Redactor()(text) == text.replace(secret, f"[REDACTED:{kind}]")


@pytest.mark.parametrize(("kind", "text", "secret"), [*CASES, *NEW_FORMATS])
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


#: Text that looks a little like the formats above and must stay as it is.
ORDINARY = [
    "if password != confirm:\n    raise ValueError('the password does not match')",
    "by default password changes need the old password",
    "a machine learning password cracker",
    "KEY=1\nCACHE_KEY=42\nPWD=/home/u/src\nOLDPWD=/tmp\nMAX_TOKENS=4096\nUSE_PASS=no",
    "sort_key = name\nprimary_key=True",
    "request id 550e8400-e29b-41d4-a716-446655440000",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "from huggingface_hub import hf_hub_download\nnpm_config_cache=/home/u/.npm",
    "https://hooks.slack.com/ is where webhooks live; sk_live_ is Stripe's prefix",
    "token: str\npassword: ${DB_PASS}\nSTRIPE_KEY=$STRIPE_KEY",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_text_that_only_resembles_a_secret_is_kept(text: str) -> None:
    assert Redactor()(text) == text


def test_values_of_secret_named_variables_in_the_environment_are_removed_anywhere() -> None:
    from zett_tui.core.redact import environment_secrets, secret_variable_name

    env = {
        "MYSQL_PWD": "plainvalue-mysql",
        "PASS": "another plain one",
        "vendor_api_token": "lowercase-name-value",
        "GIT_ASKPASS": "/usr/lib/ssh/ssh-askpass",
        "USE_PASS": "true",
        "HOME": "/home/someone-plain",
        "PWD": "/home/someone-plain/src",
        "EDITOR": "vim-plain-editor",
    }
    assert [name for name in env if secret_variable_name(name)] == [
        "MYSQL_PWD",
        "PASS",
        "vendor_api_token",
        "GIT_ASKPASS",
        "USE_PASS",
    ]
    assert environment_secrets(env) == ["plainvalue-mysql", "another plain one", "lowercase-name-value"]
    redactor = redactor_from_environment(env)
    text = redactor(
        "it said plainvalue-mysql, another plain one and lowercase-name-value in vim-plain-editor"
    )
    assert (
        text
        == "it said [REDACTED:credential], [REDACTED:credential] and [REDACTED:credential] in vim-plain-editor"
    )
    assert list(redactor.known_secrets) == []  # the sandbox still passes them to a command that asks


def test_exports_use_a_projects_patterns_only_once_it_is_trusted(isolated_dirs, tmp_path) -> None:
    import os
    from pathlib import Path

    from zett_tui.config.redaction import configured_redactor
    from zett_tui.config.trust import find_project, remember

    project = Path.cwd()
    (project / ".zett").mkdir()
    (project / ".zett" / "config.toml").write_text('redact_patterns = ["internal-[0-9]+"]\n')
    env = dict(os.environ)
    assert configured_redactor(project, env)("host internal-42") == "host internal-42"
    found = find_project(project, env)
    assert found is not None
    remember(found, trusted=True)
    assert "internal-42" not in configured_redactor(project, env)("host internal-42")
