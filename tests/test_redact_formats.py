"""Issue 25: real credential formats under neutral keys are redacted, and real code is not.

The samples are fake values in the vendors' formats, made at run time (``tests/fakes/credentials.py``);
each is placed under a neutral key in JSON, YAML and INI, in a command line and in prose.
"""

from __future__ import annotations

import json

import pytest

from tests.fakes.credentials import FORMATS, PLACEMENTS, Sample, samples, survives
from zett_tui.core.redact import Redactor, display_label
from zett_tui.core.secret_shape import looks_random

FAMILIES = sorted({fmt.family for fmt in FORMATS})
SAMPLES = samples()
#: A key with no prefix in the middle of a sentence, with no name before it, is not told from other
#: random-looking data (a hash, a base64 blob): only its place (a value, a flag's value) tells.
NOT_FOUND = {("unprefixed", "prose")}


@pytest.mark.parametrize("family", FAMILIES)
def test_every_format_of_a_family_is_redacted_in_every_placement(family: str) -> None:
    redact = Redactor()
    missed = [
        f"{fmt.name} in {place}"
        for fmt, sample in SAMPLES
        if fmt.family == family
        for place, wrap in PLACEMENTS.items()
        if (family, place) not in NOT_FOUND and survives(sample.secret, redact(wrap(sample.text)))
    ]
    assert missed == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_other_random_values_of_every_format_are_redacted_too(seed: int) -> None:
    redact = Redactor()
    missed = [
        f"{fmt.name} in {place}: {sample.text[:24]}"
        for fmt, sample in samples(seed)
        for place, wrap in PLACEMENTS.items()
        if (fmt.family, place) not in NOT_FOUND and survives(sample.secret, redact(wrap(sample.text)))
    ]
    assert missed == []


#: Formats and the marker their kind gets (what a reader of the file learns about what was there).
KINDS = {
    "sendgrid-key": "sendgrid-key",
    "mailgun-key": "mailgun-key",
    "mailchimp-key": "mailchimp-key",
    "stripe-webhook-secret": "stripe-key",
    "square-access-token": "square-token",
    "shopify-access-token": "shopify-token",
    "github-fine-grained-pat": "github-token",
    "gitlab-runner-token": "gitlab-token",
    "digitalocean-token": "digitalocean-token",
    "vault-service-token": "vault-token",
    "pypi-token": "pypi-token",
    "telegram-bot-token": "telegram-token",
    "discord-bot-token": "discord-token",
    "discord-webhook": "discord-webhook",
    "terraform-cloud-token": "terraform-token",
    "azure-ad-client-secret": "azure-ad-secret",
    "braintree-token": "braintree-token",
    "twilio-api-key": "twilio-key",
    "postgres-url": "url-password",
    "bearer-header": "auth-header",
    "token-header": "auth-header",
    "openrouter-key": "openrouter-key",
}


@pytest.mark.parametrize(("name", "kind"), KINDS.items())
def test_a_known_format_is_named_by_its_kind(name: str, kind: str) -> None:
    sample = next(sample for fmt, sample in SAMPLES if fmt.name == name)
    redacted = Redactor()(f"found {sample.text} here")
    assert f"[REDACTED:{kind}]" in redacted, redacted
    assert redacted.startswith("found ") and redacted.endswith(" here")


def test_the_text_around_a_secret_is_kept() -> None:
    sample = next(sample for fmt, sample in SAMPLES if fmt.name == "sendgrid-key")
    text = f'{{"item": "{sample.text}", "retries": 3}}\nitem: {sample.text}.\n--with {sample.text} --region x'
    assert Redactor()(text) == (
        '{"item": "[REDACTED:sendgrid-key]", "retries": 3}\n'
        "item: [REDACTED:sendgrid-key].\n"
        "--with [REDACTED:sendgrid-key] --region x"
    )


@pytest.mark.parametrize(("fmt", "sample"), SAMPLES, ids=[fmt.name for fmt, _ in SAMPLES])
def test_a_json_line_holding_a_secret_stays_valid_json(fmt: object, sample: Sample) -> None:
    line = json.dumps({"messages": [{"content": f'tool said:\n{{"item": {json.dumps(sample.text)}}}\nend'}]})
    decoded = json.loads(Redactor()(line))
    content = decoded["messages"][0]["content"]
    assert content.startswith("tool said:") and content.endswith("end")
    assert not survives(sample.secret, content)


def test_on_screen_words_are_short() -> None:
    sample = next(sample for fmt, sample in SAMPLES if fmt.name == "sendgrid-key")
    assert Redactor(label=display_label)(f"error: bad key {sample.text}") == "error: bad key [redacted key]"


#: Ordinary code and text from the standard library and tools' output that looks a little like a
#: secret (a name that says secret, a random-looking word, a place where a value goes).
LEFT_ALONE = [
    "token_type = 'phrase'",
    "obs_local_part.token_type = 'invalid-obs-local-part'",
    "TOKEN_ENDS = TSPECIALS | WSP",
    "lasttoken = token",
    "cache_token = current_token",
    "node_token = current_ast_node.value",
    "Token = Ignore + PlainToken",
    "AES_KEY = aes_key_st",
    "conn = Client(self._address, authkey=self._authkey)",
    "self.user, self.password = user, password",
    "urllib.request.HTTPBasicAuthHandler(password_mgr=auth)",
    "    - password:     The password for the authentication.",
    'publicKeyToken="XXXX">',
    "GetLastError = windll.kernel32.GetLastError",
    "RegEnumKey = win32api.RegEnumKey",
    "'SOABI': 'cpython-311-x86_64-linux-gnu',",
    "'HAVE_GETHOSTBYNAME_R_3_ARG': 0,",
    "func = dll._testfunc_array_in_struct2a",
    "'LDFLAGS=-L/usr/local/lib/python3.11/config-3.11-x86_64-linux-gnu'",
    "expected['filesystem_errors'] = self.UTF8_MODE_ERRORS",
    'PY_PYTHON3="PythonTestSuite/3.100-arm64",',
    'boundary="b1_76a486bee62b0d200f33dc2ca08220ad"',
    "Message-ID: <f30c0419-f549-4218-848f-d7d0131da931@y3g2000vbm.googlegroups.com>",
    "Doug Hellmann <doug.hellmann-Re5JQEeQqe8AvxtiuMwx3w@public.gmane.org>",
    "<A29863FA-F388-40C3-AA25-0FD06B09B5BF@gmail.com>",
    "=?us-ascii?Q?LCSwrV11+IB0rSbSker+M9vWR7wEDSuGqmHD89Gt=ea0nJFSaiz4vX3XMJPT4vrE?=",
    "('Foo, Bar [España]', '=?utf-8?q?Foo=2C_Bar_=5BEspa=C3=B1a=5D?=')",
    "# basic method=c14n tests from the c14n 2.0 specification.",
    'fp = urlopen("http://user:pass@python.org/")',
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "commit: 3f786850e387550fdab836ed7e6dc881de23001b",
    "id: 550e8400-e29b-41d4-a716-446655440000",
    "integrity: sha512-Zm9vYmFy",
    "test_utf8_decode_invalid_sequences_2 = 1",
    "from tests.fakes.credentials import FORMATS",
    "self.assertEqual(binascii.b2a_base64(b'x'), b'eA==\\n')",
    "--output /tmp/build/x86_64-linux-gnu/lib",
    "key: " + "QUJD" * 80,  # long base64 data under a key: data, not a key
    '{"sha": "3f786850e387550fdab836ed7e6dc881de23001b", "parent_commit": "9f86d081884c7d659a2feaa0c55ad015"}',
    "pip install x==1.0 --hash=sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    '"integrity": "sha512-Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy"',
]


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_code_and_data_that_only_resemble_a_secret_are_kept(text: str) -> None:
    assert Redactor()(text) == text


def test_a_hex_key_is_redacted_where_a_value_goes_unless_its_name_says_hash() -> None:
    key = "d41d8cd98f00b204e9800998ecf8427e"
    assert Redactor()(f'{{"item": "{key}"}}') == '{"item": "[REDACTED:hex-value]"}'
    assert Redactor()(f"--with {key}") == "--with [REDACTED:hex-value]"
    assert Redactor()(f'{{"md5": "{key}"}}') == f'{{"md5": "{key}"}}'
    assert Redactor()(f"the checksum was {key}") == f"the checksum was {key}"


def test_random_looking_is_not_word_like() -> None:
    assert looks_random("Zx9Cv8Bn7Mm6Lk5Jh4Gf3Dd2Qw1")
    assert looks_random("d41d8cd98f00b204e9800998ecf8427e")
    assert looks_random("assertRaisesRegexWithCallable2")  # by class changes alone
    assert not looks_random("assertRaisesRegexWithCallable2", max_wordy=0.5)
    assert not looks_random("PySys_AddWarnOption1", max_wordy=0.5)
    assert not looks_random("a1a1a1a1a1a1a1a1a1a1a1a1")
    assert not looks_random("abcdefghijklmnopqrstuvwxyz")


def _sample(name: str) -> str:
    return next(sample.text for fmt, sample in SAMPLES if fmt.name == name)


#: Ways a token could be written to slip past a rule: in a query string, glued to a name or to
#: another token, in Markdown, after a JSON escape, in a URL path.
def _variants() -> list[tuple[str, str]]:
    github, sendgrid, telegram = _sample("github-pat"), _sample("sendgrid-key"), _sample("telegram-bot-token")
    return [
        (f"https://api.example.com/v1?access_token={github}&page=2", github),
        (f"curl -H 'X-Api-Key:{sendgrid}' https://api.example.com", sendgrid),
        (f"token:{github}", github),
        (f"--token={github}", github),
        (f"`{github}` and *{sendgrid}*", sendgrid),
        (f"[{sendgrid}](https://example.com)", sendgrid),
        (json.dumps(f"line one\n{github}\nline two"), github),
        (f"https://api.telegram.org/bot{telegram}/sendMessage", telegram),
        (f"{github}{github}", github),
        (f"{github}.{sendgrid}", sendgrid),
        (f"{github}.{sendgrid}", github),
    ]


@pytest.mark.parametrize(("text", "secret"), _variants())
def test_a_token_written_to_slip_past_a_rule_is_still_redacted(text: str, secret: str) -> None:
    assert not survives(secret, Redactor()(text))
