"""The credential formats that are told by their own shape: a vendor's prefix and a body.

The catalogue holds the formats with a prefix of their own among those that gitleaks' and
detect-secrets' rule sets know, and a few more (AI and cloud providers, CI and code hosting,
vaults, package registries, mail, payment, chat), written from the vendors' documented token
formats. Formats with no prefix (a Datadog key is 32 hex characters) are left to the place rules
of :mod:`zett_tui.core.secret_scan`. Each rule is a literal prefix (what a scan looks up, so adding a
rule costs nothing on text that does not hold its prefix) and a body regex matched right after it.

Three kinds of rule have no prefix of their own and are written as :data:`INNER_RULES`: a literal
inside the token (Terraform's ``.atlasv1.``, Azure AD's ``Q~``) or a suffix (Mailchimp's ``-us6``).

A rule with ``random=True`` has a short or word-like prefix (``SK``, ``oy2``, ``re_``): its body must
also look random (:func:`zett_tui.core.secret_shape.looks_random`), so an identifier is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: After a body: not followed by more of a token (a trailing ``.`` of a sentence is not part of it).
_END = r"(?![A-Za-z0-9_\-])"
_B64URL = r"[A-Za-z0-9_\-]"


@dataclass(frozen=True)
class TokenRule:
    """``kind`` is the marker's word; ``prefixes`` start the token; ``body`` follows a prefix."""

    kind: str
    prefixes: tuple[str, ...]
    body: str
    random: bool = False

    def compile(self) -> re.Pattern[str]:
        alternatives = "|".join(re.escape(prefix) for prefix in sorted(self.prefixes, key=len, reverse=True))
        return re.compile(f"(?:{alternatives}){self.body}")


def _rule(kind: str, prefixes: str, body: str, *, random: bool = False) -> TokenRule:
    return TokenRule(kind, tuple(prefixes.split()), body, random)


#: Longer prefixes of one kind first is not needed (alternatives are sorted), but a rule whose
#: prefix extends another's (``sk-ant-`` and ``sk-``) must come first: the first rule that matches wins.
TOKEN_RULES: tuple[TokenRule, ...] = (
    # AI providers
    _rule("anthropic-key", "sk-ant-", rf"{_B64URL}{{16,}}"),
    _rule("openrouter-key", "sk-or-v1-", rf"[a-f0-9]{{64}}{_END}"),
    _rule("openai-key", "sk-", rf"(?:proj-|svcacct-|admin-)?{_B64URL}{{20,}}"),
    _rule("provider-key", "xai gsk pplx csk", r"-?_?[A-Za-z0-9]{20,}(?![A-Za-z0-9])"),
    _rule("replicate-token", "r8_", rf"[A-Za-z0-9]{{30,}}{_END}"),
    _rule("huggingface-token", "hf_", r"[A-Za-z0-9]{30,}\b"),
    _rule("langsmith-key", "lsv2_pt_ lsv2_sk_", rf"[a-f0-9]{{32}}_[a-f0-9]{{10}}{_END}"),
    _rule("pinecone-key", "pcsk_", rf"[A-Za-z0-9]{{4,}}_[A-Za-z0-9]{{40,}}{_END}"),
    _rule("fireworks-key", "fw_", rf"[A-Za-z0-9]{{20,}}{_END}", random=True),
    # Cloud
    _rule(
        "aws-access-key",
        "AKIA ASIA AGPA AIDA AROA ANPA ANVA AIPA ABIA ACCA A3T",
        r"[0-9A-Z]{16,17}(?![A-Za-z0-9])",
    ),
    _rule("google-api-key", "AIza", rf"{_B64URL}{{30,}}"),
    _rule("google-oauth-secret", "GOCSPX-", rf"{_B64URL}{{20,}}"),
    _rule("google-oauth-token", "ya29.", rf"{_B64URL}{{20,}}"),
    _rule("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", rf"[a-f0-9]{{64}}{_END}"),
    _rule("heroku-key", "HRKU-", rf"{_B64URL}{{20,}}"),
    _rule("alibaba-key", "LTAI", rf"[A-Za-z0-9]{{12,24}}{_END}", random=True),
    _rule("tencent-key", "AKID", rf"[A-Za-z0-9]{{13,40}}{_END}", random=True),
    _rule("cloudflare-ca-key", "v1.0-", rf"[a-f0-9]{{24}}-[a-f0-9]{{146}}{_END}"),
    _rule("fly-token", "fm1a_ fm1r_ fm2_", r"[A-Za-z0-9+/=_\-]{50,}"),
    _rule("scalingo-token", "tk-us-", rf"{_B64URL}{{40,}}"),
    _rule("tailscale-key", "tskey-", rf"[a-z]*-?[A-Za-z0-9]{{6,}}-[A-Za-z0-9]{{20,}}{_END}"),
    _rule("dynatrace-token", "dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}(?![A-Z0-9])"),
    _rule("newrelic-key", "NRAK- NRJS- NRII- NRAA-", rf"[A-Za-z0-9]{{27,}}{_END}"),
    _rule("grafana-token", "glc_", r"[A-Za-z0-9+/]{32,}={0,2}"),
    _rule("grafana-token", "glsa_", rf"[A-Za-z0-9]{{32}}_[A-Fa-f0-9]{{8}}{_END}"),
    _rule("sentry-token", "sntrys_ sntryu_", r"[A-Za-z0-9+/=_]{40,}"),
    _rule("databricks-token", "dapi", rf"[a-f0-9]{{32}}(?:-[0-9]+)?{_END}", random=True),
    _rule("supabase-key", "sbp_ sb_secret_", rf"{_B64URL}{{32,}}"),
    _rule("planetscale-token", "pscale_tkn_ pscale_pw_ pscale_oauth_", r"[A-Za-z0-9_\-=.]{32,}"),
    _rule("pulumi-token", "pul-", rf"[a-f0-9]{{40}}{_END}"),
    _rule("mapbox-token", "sk.eyJ", rf"{_B64URL}{{30,}}\.{_B64URL}{{20,}}"),
    _rule("infracost-key", "ico-", rf"[A-Za-z0-9]{{32}}{_END}", random=True),
    # Code hosting and CI
    _rule("github-token", "ghp_ gho_ ghu_ ghs_ ghr_", r"[A-Za-z0-9]{20,}"),
    _rule("github-token", "github_pat_", r"[A-Za-z0-9_]{20,}"),
    _rule(
        "gitlab-token",
        "glpat- gldt- glrt- glptt- glsoat- glcbt- glimt- glagent- gloas- glffct- glft- GR1348941",
        rf"{_B64URL}{{20,}}",
    ),
    _rule("bitbucket-token", "ATBB ATCTT3", r"[A-Za-z0-9_=.\-]{32,}"),
    _rule("circleci-token", "CCIPAT_ CCIPRJ_", r"[A-Za-z0-9_]{30,}"),
    _rule("buildkite-token", "bkua_", rf"[a-f0-9]{{40}}{_END}"),
    _rule("sourcegraph-token", "sgp_", rf"(?:[a-fA-F0-9]{{16}}_|local_)?[a-fA-F0-9]{{40}}{_END}"),
    # Vaults and secret managers
    _rule("vault-token", "hvs. hvb. hvr.", rf"{_B64URL}{{24,}}"),
    _rule("doppler-token", "dp.pt. dp.st. dp.ct. dp.sa. dp.scim. dp.audit.", r"[A-Za-z0-9]{40,44}"),
    _rule("onepassword-token", "ops_eyJ", r"[A-Za-z0-9+/_\-=]{100,}"),
    _rule("age-secret-key", "AGE-SECRET-KEY-1", r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    # Package registries
    _rule("npm-token", "npm_", r"(?=[A-Za-z]*\d)[A-Za-z0-9]{30,}\b"),
    _rule("pypi-token", "pypi-AgEIcHlwaS5vcmc pypi-AgENdGVzdC5weXBpLm9yZw", rf"{_B64URL}{{50,}}"),
    _rule("rubygems-key", "rubygems_", rf"[a-f0-9]{{48}}{_END}"),
    _rule("nuget-key", "oy2", rf"[a-z0-9]{{43}}{_END}", random=True),
    _rule("dockerhub-token", "dckr_pat_ dckr_oat_", rf"{_B64URL}{{20,}}"),
    _rule("clojars-token", "CLOJARS_", rf"[a-z0-9]{{60}}{_END}"),
    _rule("jfrog-key", "AKCp", rf"[A-Za-z0-9]{{60,}}{_END}", random=True),
    _rule("jfrog-key", "cmVmdGtuOjAxOj", rf"[A-Za-z0-9]{{40,}}{_END}"),
    # Mail
    _rule("sendgrid-key", "SG.", rf"{_B64URL}{{20,24}}\.{_B64URL}{{40,50}}"),
    _rule("mailgun-key", "key-", rf"[a-f0-9]{{32}}{_END}", random=True),
    _rule("brevo-key", "xkeysib- xsmtpsib-", rf"[a-f0-9]{{64}}-[A-Za-z0-9]{{16}}{_END}"),
    _rule("resend-key", "re_", rf"[A-Za-z0-9]{{8}}_[A-Za-z0-9]{{24}}{_END}", random=True),
    # Payment and commerce
    _rule("stripe-key", "sk_live_ sk_test_ rk_live_ rk_test_", r"[A-Za-z0-9]{16,}"),
    _rule("stripe-key", "whsec_", r"[A-Za-z0-9+/=]{32,}"),
    _rule("square-token", "EAAA", r"[A-Za-z0-9_\-+=]{60,}", random=True),
    _rule("square-token", "sq0atp- sq0csp- sq0idp-", rf"{_B64URL}{{22,}}"),
    _rule("shopify-token", "shpat_ shpca_ shppa_ shpss_", rf"[a-fA-F0-9]{{32}}{_END}"),
    _rule("easypost-key", "EZAK EZTK", rf"[A-Za-z0-9]{{54}}{_END}"),
    _rule("shippo-token", "shippo_live_ shippo_test_", rf"[a-f0-9]{{40}}{_END}"),
    # Chat, collaboration and other services
    _rule("slack-token", "xoxb- xoxa- xoxp- xoxo- xoxs- xoxr- xoxe- xoxe.xoxp-", r"[A-Za-z0-9\-]{10,}"),
    _rule("slack-token", "xapp-", r"[0-9]+-[A-Za-z0-9\-]{20,}"),
    _rule("twilio-key", "SK", rf"[0-9a-fA-F]{{32}}{_END}", random=True),
    _rule("linear-key", "lin_api_ lin_oauth_", rf"[A-Za-z0-9]{{40,}}{_END}"),
    _rule("notion-token", "ntn_", rf"[A-Za-z0-9]{{40,}}{_END}"),
    _rule("notion-token", "secret_", rf"[A-Za-z0-9]{{43}}{_END}", random=True),
    _rule("atlassian-token", "ATATT3", r"[A-Za-z0-9_\-=]{100,}"),
    _rule("figma-token", "figd_ figu_", rf"{_B64URL}{{40,}}"),
    _rule("postman-key", "PMAK-", rf"[a-f0-9]{{24}}-[a-f0-9]{{34}}{_END}"),
    _rule("contentful-token", "CFPAT-", rf"{_B64URL}{{43,}}"),
    _rule("readme-key", "rdme_", rf"[a-z0-9]{{70}}{_END}"),
    _rule("prefect-key", "pnu_", rf"[A-Za-z0-9]{{36}}{_END}"),
    _rule("dropbox-token", "sl.", r"[A-Za-z0-9_\-=.]{100,}"),
    _rule("typeform-token", "tfp_", rf"{_B64URL}{{40,}}"),
    _rule("netlify-token", "nfp_ nfc_", rf"[A-Za-z0-9]{{36,}}{_END}"),
    _rule("render-key", "rnd_", rf"[A-Za-z0-9]{{32,}}{_END}", random=True),
    _rule("airtable-token", "pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![A-Za-z0-9])"),
    # A JWT: header and claims are base64url JSON objects (eyJ is '{"'). Base64 data holds no
    # dots, so an image is not matched.
    _rule("jwt", "eyJ", rf"{_B64URL}{{10,}}\.eyJ{_B64URL}{{10,}}\.{_B64URL}*"),
)


@dataclass(frozen=True)
class InnerRule:
    """A token told by a literal inside it (``marker``), matched over a whole candidate word."""

    kind: str
    marker: str
    pattern: re.Pattern[str]


INNER_RULES: tuple[InnerRule, ...] = (
    InnerRule(
        "terraform-token", ".atlasv1.", re.compile(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,70}")
    ),
    InnerRule("azure-ad-secret", "Q~", re.compile(r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}")),
    InnerRule("mailchimp-key", "-us", re.compile(r"[a-f0-9]{32}-us[0-9]{1,2}(?![A-Za-z0-9])")),
    # A Discord bot token: the user id in base64 (M, N or O first), a timestamp, an HMAC.
    InnerRule(
        "discord-token",
        ".",
        re.compile(r"[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}"),
    ),
)
