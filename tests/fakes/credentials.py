"""Fake credentials in the real formats, made at run time, and the places they are found in.

Every value is built from a vendor's documented prefix and random characters of the format's
alphabet and length (a seeded generator, so a run is repeatable). None is a real credential, and
none is written out whole in this file: a scanner of the repository (push protection) sees only
prefixes. Used by ``benchmarks/bench_redact.py`` (recall over every format in every placement) and
by ``tests/test_redact_formats.py`` (one test per format family).
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
UPPER_ALNUM = UPPER + DIGITS
LOWER_ALNUM = LOWER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
BASE32 = UPPER + "234567"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


@dataclass(frozen=True)
class Sample:
    """One credential: ``text`` as it appears (a URL, a header, a token) and ``secret``, the part
    that must not reach a file."""

    text: str
    secret: str


@dataclass(frozen=True)
class CredentialFormat:
    """A credential format: ``family`` groups formats for tests (``chat``, ``payment``, ...)."""

    name: str
    family: str
    make: Callable[[random.Random], Sample]


def _r(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _token(*parts: str | tuple[str, int]) -> Callable[[random.Random], Sample]:
    """A maker for a token of literal parts (str) and random runs ((alphabet, length))."""

    def make(rng: random.Random) -> Sample:
        value = "".join(part if isinstance(part, str) else _r(rng, *part) for part in parts)
        return Sample(value, value)

    return make


def _b64(data: bytes, *, url: bool = False) -> str:
    encoded = base64.urlsafe_b64encode(data) if url else base64.b64encode(data)
    return encoded.decode().rstrip("=") if url else encoded.decode()


def _jwt(rng: random.Random) -> Sample:
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode(), url=True)
    claims = _b64(json.dumps({"sub": _r(rng, DIGITS, 10), "name": "Fake"}).encode(), url=True)
    value = f"{header}.{claims}.{_r(rng, B64URL, 43)}"
    return Sample(value, value)


def _pem(kind: str) -> Callable[[random.Random], Sample]:
    def make(rng: random.Random) -> Sample:
        body = "\n".join(_r(rng, B64, 64) for _ in range(6))
        begin, end = "-----BEGIN " + kind + "PRIVATE KEY-----", "-----END " + kind + "PRIVATE KEY-----"
        return Sample(f"{begin}\n{body}\n{end}", body)

    return make


def _url(scheme: str, user: str, tail: str) -> Callable[[random.Random], Sample]:
    def make(rng: random.Random) -> Sample:
        password = _r(rng, ALNUM, 12) + rng.choice("!~*") + _r(rng, ALNUM, 6)
        return Sample(f"{scheme}://{user}:{password}@{tail}", password)

    return make


def _auth(scheme: str, alphabet: str, length: int) -> Callable[[random.Random], Sample]:
    def make(rng: random.Random) -> Sample:
        value = _r(rng, alphabet, length)
        return Sample(f"Authorization: {scheme} {value}", value)

    return make


def _basic(rng: random.Random) -> Sample:
    value = base64.b64encode(f"deploy:{_r(rng, ALNUM, 18)}".encode()).decode()
    return Sample(f"Authorization: Basic {value}", value)


def _azure_storage(rng: random.Random) -> Sample:
    key = base64.b64encode(rng.randbytes(64)).decode()
    text = f"DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey={key};EndpointSuffix=core.windows.net"
    return Sample(text, key)


def _slack_webhook(rng: random.Random) -> Sample:
    path = f"T{_r(rng, UPPER_ALNUM, 10)}/B{_r(rng, UPPER_ALNUM, 10)}/{_r(rng, ALNUM, 24)}"
    return Sample("https://hooks.slack" + ".com/services/" + path, path)


def _discord_webhook(rng: random.Random) -> Sample:
    secret = _r(rng, B64URL, 68)
    return Sample(f"https://discord.com/api/webhooks/{_r(rng, DIGITS, 18)}/{secret}", secret)


def _discord_bot(rng: random.Random) -> Sample:
    user = _b64(_r(rng, DIGITS, 18).encode(), url=True)
    value = f"{user}.{_r(rng, B64URL, 6)}.{_r(rng, B64URL, 38)}"
    return Sample(value, value)


def _telegram(rng: random.Random) -> Sample:
    value = f"{_r(rng, '123456789', 1)}{_r(rng, DIGITS, 9)}:AA{_r(rng, B64URL, 33)}"
    return Sample(value, value)


def _braintree(rng: random.Random) -> Sample:
    value = "access_token$production$" + _r(rng, LOWER_ALNUM, 16) + "$" + _r(rng, HEX, 32)
    return Sample(value, value)


def _fly(rng: random.Random) -> Sample:
    secret = "fm2" + "_" + _r(rng, B64, 120)
    return Sample(f"FlyV1 {secret}", secret)


def _netrc(rng: random.Random) -> Sample:
    password = _r(rng, ALNUM, 20)
    return Sample(f"machine api.example.com login deploy password {password}", password)


def _azure_ad(rng: random.Random) -> Sample:
    value = _r(rng, ALNUM, 3) + _r(rng, DIGITS, 1) + "Q~" + _r(rng, ALNUM + "_~.-", 34)
    return Sample(value, value)


#: Each entry: name, family, maker. Prefixes are written in two parts where a scanner could take
#: prefix + alphabet for a live token.
FORMATS: tuple[CredentialFormat, ...] = tuple(
    CredentialFormat(name, family, make)
    for name, family, make in (
        # AI providers
        ("anthropic-api-key", "ai", _token("sk-ant-" + "api03-", (B64URL, 93), "AA")),
        ("anthropic-admin-key", "ai", _token("sk-ant-" + "admin01-", (B64URL, 93), "AA")),
        ("openai-project-key", "ai", _token("sk-" + "proj-", (B64URL, 120))),
        ("openai-legacy-key", "ai", _token("sk-", (ALNUM, 20), "T3Blbk" + "FJ", (ALNUM, 20))),
        ("openrouter-key", "ai", _token("sk-" + "or-v1-", (HEX, 64))),
        ("groq-key", "ai", _token("gs" + "k_", (ALNUM, 52))),
        ("xai-key", "ai", _token("xa" + "i-", (ALNUM, 80))),
        ("perplexity-key", "ai", _token("pp" + "lx-", (ALNUM, 48))),
        ("replicate-token", "ai", _token("r8" + "_", (ALNUM, 37))),
        ("huggingface-token", "ai", _token("h" + "f_", (ALNUM, 34))),
        ("langsmith-key", "ai", _token("lsv2" + "_pt_", (HEX, 32), "_", (HEX, 10))),
        ("pinecone-key", "ai", _token("pc" + "sk_", (ALNUM, 6), "_", (ALNUM, 64))),
        ("fireworks-key", "ai", _token("f" + "w_", (ALNUM, 24))),
        # Cloud
        ("aws-access-key-id", "cloud", _token("AK" + "IA", (UPPER_ALNUM, 16))),
        ("aws-sts-key-id", "cloud", _token("AS" + "IA", (UPPER_ALNUM, 16))),
        ("google-api-key", "cloud", _token("AI" + "za", (B64URL, 35))),
        ("google-oauth-secret", "cloud", _token("GOC" + "SPX-", (B64URL, 28))),
        ("google-oauth-access-token", "cloud", _token("ya" + "29.", (B64URL, 120))),
        ("azure-storage-key", "cloud", _azure_storage),
        ("azure-ad-client-secret", "cloud", _azure_ad),
        ("digitalocean-token", "cloud", _token("do" + "p_v1_", (HEX, 64))),
        ("digitalocean-oauth-token", "cloud", _token("do" + "o_v1_", (HEX, 64))),
        ("heroku-token", "cloud", _token("HR" + "KU-AA", (B64URL, 58))),
        ("alibaba-access-key-id", "cloud", _token("LT" + "AI", (ALNUM, 20))),
        ("tencent-secret-id", "cloud", _token("AK" + "ID", (ALNUM, 32))),
        ("cloudflare-origin-ca-key", "cloud", _token("v1.0" + "-", (HEX, 24), "-", (HEX, 146))),
        ("fly-token", "cloud", _fly),
        ("scalingo-token", "cloud", _token("tk" + "-us-", (B64URL, 48))),
        ("tailscale-key", "cloud", _token("tskey" + "-auth-", (ALNUM, 12), "-", (ALNUM, 33))),
        ("dynatrace-token", "cloud", _token("dt0" + "c01.", (UPPER_ALNUM, 24), ".", (UPPER_ALNUM, 64))),
        ("new-relic-user-key", "cloud", _token("NR" + "AK-", (UPPER_ALNUM, 27))),
        ("grafana-cloud-token", "cloud", _token("gl" + "c_", (B64, 80), "==")),
        ("grafana-service-account", "cloud", _token("gl" + "sa_", (ALNUM, 32), "_", (HEX, 8))),
        ("sentry-user-token", "cloud", _token("sntr" + "yu_", (HEX, 64))),
        ("databricks-token", "cloud", _token("da" + "pi", (HEX, 32))),
        ("supabase-token", "cloud", _token("sb" + "p_", (HEX, 40))),
        ("planetscale-token", "cloud", _token("pscale" + "_tkn_", (B64URL, 43))),
        ("pulumi-token", "cloud", _token("pu" + "l-", (HEX, 40))),
        ("mapbox-secret-token", "cloud", _token("sk" + ".eyJ", (B64URL, 60), ".", (B64URL, 22))),
        ("infracost-key", "cloud", _token("ic" + "o-", (ALNUM, 32))),
        # CI and code hosting
        ("github-pat", "ci", _token("gh" + "p_", (ALNUM, 36))),
        ("github-oauth", "ci", _token("gh" + "o_", (ALNUM, 36))),
        ("github-app-token", "ci", _token("gh" + "s_", (ALNUM, 36))),
        ("github-refresh-token", "ci", _token("gh" + "r_", (ALNUM, 36))),
        ("github-fine-grained-pat", "ci", _token("github" + "_pat_", (ALNUM, 22), "_", (ALNUM, 59))),
        ("gitlab-pat", "ci", _token("gl" + "pat-", (B64URL, 20))),
        ("gitlab-runner-token", "ci", _token("gl" + "rt-", (B64URL, 20))),
        ("gitlab-deploy-token", "ci", _token("gl" + "dt-", (B64URL, 20))),
        ("gitlab-trigger-token", "ci", _token("gl" + "ptt-", (HEX, 40))),
        ("bitbucket-app-password", "ci", _token("AT" + "BB", (ALNUM, 32))),
        ("circleci-token", "ci", _token("CCI" + "PAT_", (ALNUM, 22), "_", (HEX, 40))),
        ("buildkite-token", "ci", _token("bk" + "ua_", (HEX, 40))),
        ("sourcegraph-token", "ci", _token("sg" + "p_", (HEX, 40))),
        ("terraform-cloud-token", "ci", _token((LOWER_ALNUM, 14), ".atlas" + "v1.", (B64URL, 67))),
        ("vault-service-token", "vault", _token("hv" + "s.", (B64URL, 90))),
        ("vault-batch-token", "vault", _token("hv" + "b.", (B64URL, 120))),
        ("doppler-token", "vault", _token("dp" + ".pt.", (ALNUM, 43))),
        ("onepassword-service-token", "vault", _token("ops" + "_eyJ", (B64URL, 200))),
        ("age-secret-key", "vault", _token("AGE-SECRET" + "-KEY-1", (BECH32, 58))),
        # Package registries
        ("npm-token", "registry", _token("np" + "m_", (ALNUM, 36))),
        ("pypi-token", "registry", _token("pypi" + "-AgEIcHlwaS5vcmc", (B64URL, 80))),
        ("rubygems-key", "registry", _token("rubygems" + "_", (HEX, 48))),
        ("nuget-key", "registry", _token("oy" + "2", (LOWER_ALNUM, 43))),
        ("dockerhub-pat", "registry", _token("dckr" + "_pat_", (B64URL, 27))),
        ("clojars-token", "registry", _token("CLOJARS" + "_", (LOWER_ALNUM, 60))),
        ("jfrog-api-key", "registry", _token("AK" + "Cp", (ALNUM, 69))),
        # Mail
        ("sendgrid-key", "mail", _token("S" + "G.", (B64URL, 22), ".", (B64URL, 43))),
        ("mailgun-key", "mail", _token("ke" + "y-", (HEX, 32))),
        ("mailchimp-key", "mail", _token((HEX, 32), "-us", (DIGITS, 2))),
        ("brevo-key", "mail", _token("xkey" + "sib-", (HEX, 64), "-", (ALNUM, 16))),
        ("resend-key", "mail", _token("r" + "e_", (ALNUM, 8), "_", (ALNUM, 24))),
        # Payment
        ("stripe-secret-key", "payment", _token("sk" + "_live_", (ALNUM, 99))),
        ("stripe-restricted-key", "payment", _token("rk" + "_live_", (ALNUM, 99))),
        ("stripe-webhook-secret", "payment", _token("wh" + "sec_", (ALNUM, 32))),
        ("square-access-token", "payment", _token("EA" + "AA", (B64URL, 60))),
        ("square-oauth-secret", "payment", _token("sq0" + "csp-", (B64URL, 43))),
        ("braintree-token", "payment", _braintree),
        ("shopify-access-token", "payment", _token("sh" + "pat_", (HEX, 32))),
        ("shopify-shared-secret", "payment", _token("sh" + "pss_", (HEX, 32))),
        ("easypost-key", "payment", _token("EZ" + "AK", (ALNUM, 54))),
        ("shippo-token", "payment", _token("shippo" + "_live_", (HEX, 40))),
        # Chat and collaboration
        ("slack-bot-token", "chat", _token("xo" + "xb-", (DIGITS, 11), "-", (DIGITS, 12), "-", (ALNUM, 24))),
        ("slack-user-token", "chat", _token("xo" + "xp-", (DIGITS, 11), "-", (DIGITS, 12), "-", (HEX, 32))),
        (
            "slack-app-token",
            "chat",
            _token("xa" + "pp-1-A", (UPPER_ALNUM, 10), "-", (DIGITS, 13), "-", (HEX, 64)),
        ),
        ("slack-webhook", "chat", _slack_webhook),
        ("discord-webhook", "chat", _discord_webhook),
        ("discord-bot-token", "chat", _discord_bot),
        ("telegram-bot-token", "chat", _telegram),
        ("twilio-api-key", "chat", _token("S" + "K", (HEX, 32))),
        ("linear-key", "chat", _token("lin" + "_api_", (ALNUM, 40))),
        ("notion-token", "chat", _token("nt" + "n_", (DIGITS, 11), (ALNUM, 35))),
        ("atlassian-token", "chat", _token("ATA" + "TT3xFfGF0", (B64URL, 180), "=", ("ABCDEF0123456789", 8))),
        ("figma-token", "chat", _token("fig" + "d_", (B64URL, 40))),
        ("postman-key", "chat", _token("PM" + "AK-", (HEX, 24), "-", (HEX, 34))),
        ("contentful-token", "chat", _token("CF" + "PAT-", (B64URL, 43))),
        ("readme-key", "chat", _token("rd" + "me_", (LOWER_ALNUM, 70))),
        ("prefect-key", "chat", _token("pn" + "u_", (ALNUM, 36))),
        ("dropbox-token", "chat", _token("s" + "l.", (B64URL, 135))),
        # No prefix: only where the value stands, and its randomness, tell
        ("aws-secret-access-key", "unprefixed", _token((B64, 40))),
        ("mistral-style-key", "unprefixed", _token((ALNUM, 32))),
        ("datadog-style-key", "unprefixed", _token((HEX, 32))),
        # Structure: where the place says it is a credential
        ("postgres-url", "url", _url("postgresql", "app", "db.internal:5432/prod")),
        ("mysql-url", "url", _url("mysql", "root", "10.0.0.5:3306/shop")),
        ("mongodb-url", "url", _url("mongodb+srv", "svc", "cluster0.example.net/test")),
        ("redis-url", "url", _url("rediss", "default", "cache.example.com:6380/0")),
        ("amqp-url", "url", _url("amqp", "worker", "mq.example.com:5672/vhost")),
        ("bearer-header", "header", _auth("Bearer", ALNUM, 40)),
        ("basic-header", "header", _basic),
        ("token-header", "header", _auth("token", HEX, 40)),
        ("jwt", "header", _jwt),
        ("netrc", "header", _netrc),
        ("rsa-private-key", "key", _pem("RSA ")),
        ("openssh-private-key", "key", _pem("OPENSSH ")),
        ("pkcs8-private-key", "key", _pem("")),
        ("ec-private-key", "key", _pem("EC ")),
    )
)


def _yaml(text: str) -> str:
    if "\n" not in text:
        return f"settings:\n  item: {text}\n  region: eu-west-1\n"
    block = "\n".join("    " + line for line in text.splitlines())
    return f"settings:\n  item: |\n{block}\n  region: eu-west-1\n"


def _command(text: str) -> str:
    return f"$ deploy-tool push --with '{text}' --region eu-west-1 --verbose"


def _prose(text: str) -> str:
    return f"I looked in the build log and the value there was {text} which we then used for the upload."


#: Where a credential is found: under a neutral key in JSON, YAML and INI, in a command line, in prose.
PLACEMENTS: dict[str, Callable[[str], str]] = {
    "json": lambda text: json.dumps({"config": {"item": text, "retries": 3}}, indent=2),
    "yaml": _yaml,
    "ini": lambda text: f"[upload]\nitem = {text}\nretries = 3\n",
    "command": _command,
    "prose": _prose,
}


def survives(secret: str, output: str, window: int = 10) -> bool:
    """Whether any ``window`` characters of ``secret`` in a row are still in ``output`` (JSON
    escapes of a multi-line secret counted as the newlines they stand for)."""
    texts = (output, output.replace("\\n", "\n"))
    if len(secret) <= window:
        return any(secret in text for text in texts)
    return any(secret[i : i + window] in text for text in texts for i in range(len(secret) - window + 1))


def samples(seed: int = 25) -> list[tuple[CredentialFormat, Sample]]:
    """One sample of every format, the same for the same seed."""
    rng = random.Random(seed)
    return [(fmt, fmt.make(rng)) for fmt in FORMATS]
