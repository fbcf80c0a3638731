"""Where the secrets are in a text: the spans a :class:`~zett_tui.core.redact.Redactor` replaces.

Every recorded line goes through this, so it is built to cost little on ordinary text (in
``benchmarks/bench_redact.py``, 11 to 15 times as fast as the list of regexes it replaced).
Python's ``re`` is fast only when a pattern starts with a literal, so the work is cut into passes:

0. **A quick look.** A short string (most recorded strings) holding no name word, no leading
   literal and no long word is returned at once.
1. **Words.** One simple regex finds every run of 16 or more token characters. Each is looked
   up by its first two characters in the prefix table of :mod:`zett_tui.core.secret_formats`
   (a dict: the cost does not grow with the number of rules); a hit is confirmed by the rule's
   regex. A word no rule claims is judged by its shape and place: a generic ``prefix_`` token
   with a random body; a random word after ``Bearer``, ``token``, ``password:`` and the like; a
   random mixed-case word, or a hex key, where a value goes (after ``:``, ``=``, a ``--flag``).
2. **Names** (:mod:`zett_tui.core.secret_names`). ``str.find`` over the lower-cased text finds
   the words that say a secret follows (``password``, ``token``, ``key``, ``bearer``,
   ``machine``...); the assignment, HTTP header and .netrc rules are then tried only there.
3. **Literal-led shapes** that span characters a word cannot hold, each only where its literal
   is: PEM private keys, a URL's password, webhook URLs, a key masked with stars, a Braintree token.

Spans that overlap are merged, the earliest (then the most specific) naming the kind.
"""

from __future__ import annotations

import re

from zett_tui.core.secret_formats import INNER_RULES, TOKEN_RULES, TokenRule
from zett_tui.core.secret_names import NAME_WORDS, NOT_SECRETS, named_spans, secret_value
from zett_tui.core.secret_shape import looks_random
from zett_tui.core.secret_span import Span, merge, starting

__all__ = ["Span", "find_spans", "merge"]

_LINE_END = r"(?:\r?\n|(?:\\r)?\\n)"
#: The lines of a PEM key's body: base64, or a header (``Proc-Type: ...``).
_PEM_BODY = rf"(?:{_LINE_END}(?:[A-Za-z\-]+: [^\r\n\\]*|[A-Za-z0-9+/=]+)(?={_LINE_END}|$))*"

#: (kind, literal, pattern, rank): searched over texts that hold the literal; each pattern starts
#: with it. A ``keep`` group stays in front of the marker.
_LITERAL_LED: tuple[tuple[str, str, re.Pattern[str], float], ...] = tuple(
    (kind, literal, re.compile(pattern, re.DOTALL), rank)
    for kind, literal, pattern, rank in (
        # A key cut short (output truncated before the END line) is removed up to the last line
        # that looks like a key's (base64, or a "Proc-Type: ..." header).
        (
            "private-key",
            "-----BEGIN ",
            rf"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?:.*?-----END \1PRIVATE KEY-----|{_PEM_BODY})",
            0,
        ),
        (
            "slack-webhook",
            "https://hooks.slack.com/",
            r"(?P<keep>https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/\-]{10,}",
            1,
        ),
        ("discord-webhook", "/api/webhooks/", r"(?P<keep>/api/webhooks/[0-9]{5,}/)[A-Za-z0-9_\-]{20,}", 2),
        # A key as a provider echoes it in an error, partly starred: sk-abc12345***wxyz.
        ("masked-key", "sk-", rf"{starting('sk-')}[A-Za-z0-9_\-]{{3,}}\*{{3,}}[A-Za-z0-9_\-]*", 3),
        (
            "braintree-token",
            "access_token$",
            r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
            4,
        ),
        # The password in a URL: postgres://user:PASSWORD@host.
        ("url-password", "://", r"(?P<keep>://[^/\s:@\"'\\]*:)[^/\s@\"'\\]{3,}(?=@)", 5),
    )
)

#: A run of characters that a token is made of, 16 or more.
_WORD = re.compile(r"[A-Za-z0-9_\-.+/=~]{16,}")
#: Token rules by the first two characters of each prefix: (prefix, regex, rule, rank).
_HEADS: dict[str, list[tuple[str, re.Pattern[str], TokenRule, float]]] = {}
for _index, _rule in enumerate(TOKEN_RULES):
    _compiled = _rule.compile()
    for _prefix in _rule.prefixes:
        _HEADS.setdefault(_prefix[:2], []).append((_prefix, _compiled, _rule, 100 + _index))
for _bucket in _HEADS.values():
    _bucket.sort(key=lambda entry: entry[3])

#: A generic token: a short word (``sk``, ``ghp``, ``xkeysib``) and up to two more (``dop_v1_``,
#: ``shippo_live_``), each ending in ``_``, ``-`` or ``.``, 14 characters at most; then the body.
_GENERIC_PREFIX = re.compile(
    r"(?=[A-Za-z0-9_\-.]{3,14}(?<=[_\-.])[A-Za-z0-9])[A-Za-z]{2,10}[0-9]?[_\-.](?:[A-Za-z0-9]{1,10}[_\-.]){0,2}"
)
#: Hex groups joined by dashes (a UUID, a MIME boundary): an identifier, not a key.
_HEX_GROUPS = re.compile(r"[0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)+")
_GENERIC_BODY = re.compile(r"[A-Za-z0-9_\-]+")
#: A value judged by randomness alone: base64 or base64url, padded at most at the end.
_RANDOM_VALUE = re.compile(r"[A-Za-z0-9+/_\-]+={0,2}")
#: Right before a value, past quotes and separators, a word that says credential (an HTTP scheme,
#: ``api_key``, ``password``).
_NAMED_ENDINGS = (
    "bearer",
    "basic",
    "digest",
    "token",
    "auth",
    "authorization",
    "apikey",
    "api_key",
    "api-key",
    "key",
    "secret",
    "password",
    "passwd",
    "pwd",
    "credential",
    "credentials",
    "bot",
)
_SCHEMES = ("bearer", "basic", "digest", "token")
#: What stands between a name and its value: ``": "``, `` = '``, ``=``.
_BETWEEN = " \t\"'`:=\\"
#: A command line's option, whose value follows it: ``--with``, ``-p``.
_FLAG = re.compile(r"--?[A-Za-z][A-Za-z0-9_\-]*")
#: A digest's algorithm before it (``sha512-<base64>`` in a lock file): not a token's prefix.
_DIGEST = re.compile(r"(?i:sha(?:1|224|256|384|512)?|md5|blake2[bs]?|crc32)[-:=_]")
#: A key that is hex alone (Datadog, Twilio's auth token, Algolia...), in a value place, upper or
#: lower case, as long as an MD5, SHA-1 or SHA-256: named by its key unless that says hash or id.
_HEX_KEY = re.compile(r"(?:[0-9a-f]{32}|[0-9A-F]{32}|[0-9a-f]{40}|[0-9A-F]{40}|[0-9a-f]{64}|[0-9A-F]{64})")
_HASH_NAMES = (
    "sha",
    "hash",
    "digest",
    "md5",
    "sum",
    "commit",
    "rev",
    "id",
    "etag",
    "fingerprint",
    "hex",
    "nonce",
    "oid",
    "ref",
    "head",
    "tree",
    "parent",
    "blob",
    "object",
    "version",
    "integrity",
)
#: A Telegram bot token: the bot's number, a colon, then ``AA`` and 33 characters.
_TELEGRAM_ID = re.compile(r"(?<![0-9])[0-9]{8,10}:$")
_TELEGRAM_BODY = re.compile(r"AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])")
#: The name and ``=`` of a word that is an assignment (``KEY=value``; not base64 padding).
_ASSIGNED = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*=(?=[^=])")
#: Longest word judged by shape alone: longer runs are data (an image, a bundle), not a key.
_MAX_GENERIC = 256


#: A text this short is first asked whether any pass could find anything in it: most recorded
#: strings are short and hold nothing, and the passes' fixed cost is what they would pay.
_SHORT = 1024
#: In the lower-cased text: a name word or a literal that leads a pass.
_QUICK = (*NAME_WORDS, "://", "-----begin", "***", "/api/webhooks/")


def _maybe_secret(text: str, lowered: str) -> bool:
    """Whether any pass could find something in ``text``: a few substring tests, then one search."""
    for literal in _QUICK:
        if literal in lowered:
            return True
    return _WORD.search(text) is not None


def find_spans(text: str) -> list[Span]:
    """Every secret found in ``text``, as spans (unsorted, possibly overlapping)."""
    lowered = _lowered(text)
    if len(text) <= _SHORT and not _maybe_secret(text, lowered):
        return []
    spans: list[Span] = []
    for kind, literal, pattern, rank in _LITERAL_LED:
        if literal not in text:
            continue
        for match in pattern.finditer(text):
            start = match.end("keep") if "keep" in pattern.groupindex else match.start()
            if kind != "url-password" or text[start : match.end()].lower() not in NOT_SECRETS:
                spans.append(Span(start, match.end(), kind, rank))
    for match in _WORD.finditer(text):
        start, end = match.span()
        span = _word_span(text, start, end)
        while span is not None:
            spans.append(span)
            span = _rest_span(text, span, end)
    spans.extend(named_spans(text, lowered))
    return spans


def _lowered(text: str) -> str:
    """``text`` lower-cased, each character where it was (a few lengthen when lowered: ``İ``)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(character.lower() if character.isascii() else "\0" for character in text)
    return lowered


#: The shortest rest of a word, after a token in it, that is looked at again.
_MIN_REST = 16


def _rest_span(text: str, token: Span, end: int) -> Span | None:
    """What follows a token that ended inside its word: another token (two glued together), or
    random characters, taken as more of the same token, or nothing."""
    if end - token.end < _MIN_REST:
        return None
    span = _word_span(text, token.end, end)
    if span is None and looks_random(text[token.end : end], max_wordy=0.6):
        return token._replace(start=token.end, end=end)
    return span


def _word_span(text: str, start: int, end: int) -> Span | None:
    """The secret in the word ``text[start:end]``, if any: a token of a known format where one may
    begin (past leading punctuation, past the ``n`` of an escaped ``\\n``, after ``=`` or ``/``),
    else one told by an inner mark, else one told by shape and place."""
    head = start
    while text[head] in _LEADING:
        head += 1
        if head == end:
            return None
    span = _format_span(text, head, end)
    if span is not None:
        return span
    if _MORE.search(text, head, end) is None:  # no other place to begin, no inner mark, no digit
        return None
    if head and text[head - 1] == "\\" and text[head] in "nrt":
        span = _format_span(text, head + 1, end)
        if span is not None:
            return span
    for separator in "=/":
        position = text.find(separator, head, end)
        while position != -1:
            span = _format_span(text, position + 1, end)
            if span is not None:
                return span
            position = text.find(separator, position + 1, end)
    for inner in INNER_RULES:
        if text.find(inner.marker, head, end) != -1:
            match = inner.pattern.match(text, head, end)
            if match:
                return Span(head, match.end(), inner.kind, 200)
    if _DIGIT.search(text, head, end) is None:  # every shape below holds a digit
        return None
    assigned = _ASSIGNED.match(text, head, end)  # NAME=value: the value is what is judged
    if assigned:
        head = assigned.end()
    while end > head and text[end - 1] == ".":
        end -= 1
    return _shaped_span(text, head, end)


_LEADING = frozenset("-.+/=~")
#: What a word needs for more than its first characters to be looked at: a separator where a token
#: may begin, an inner rule's mark (all of which hold a digit or one of these), or a digit.
_MORE = re.compile(r"[=/0-9]|Q~")
_DIGIT = re.compile(r"[0-9]")


def _format_span(text: str, position: int, end: int) -> Span | None:
    bucket = _HEADS.get(text[position : position + 2])
    if bucket is None:
        return None
    for prefix, pattern, rule, rank in bucket:
        if not text.startswith(prefix, position):
            continue
        match = pattern.match(text, position, end)
        if match and (
            not rule.random or looks_random(text[position + len(prefix) : match.end()], need_digit=False)
        ):
            return Span(position, match.end(), rule.kind, rank)
    return None


def _shaped_span(text: str, start: int, end: int) -> Span | None:
    """A word no format claims, judged by its shape and by what stands before it."""
    word = text[start:end]
    if len(word) > _MAX_GENERIC or text.startswith("@", end):  # too long, or an address's user
        return None
    if _DIGEST.match(word):
        return None
    if word.startswith("AA") and start and text[start - 1] == ":":
        found = _TELEGRAM_ID.search(text, max(0, start - 11), start)
        token = _TELEGRAM_BODY.match(text, start, end)
        if found and token:
            return Span(found.start(), token.end(), "telegram-token", 210)
    prefix = _GENERIC_PREFIX.match(word)
    body = word[prefix.end() :] if prefix else ""
    if (
        len(body) >= 20
        and _GENERIC_BODY.fullmatch(body)
        and not _HEX_GROUPS.fullmatch(body)
        and looks_random(body, max_wordy=0.6)
    ):
        return Span(start, end, "prefixed-token", 300)
    before = text[max(0, start - 40) : start]
    name = before.rstrip(_BETWEEN).lower()
    if (
        name.endswith(_NAMED_ENDINGS)
        and looks_random(word, min_changes=0.25, max_wordy=0.6)
        and secret_value(name, word)
    ):
        return Span(start, end, "auth-header" if name.endswith(_SCHEMES) else "secret-assignment", 310)
    if (
        len(word) >= 20
        and _value_place(before)
        and _RANDOM_VALUE.fullmatch(word)
        and _mixed_case(word)
        and looks_random(word, min_changes=0.35, min_entropy=3.5, max_wordy=0.6)
    ):
        return Span(start, end, "random-value", 320)
    if (
        _HEX_KEY.fullmatch(word)
        and _value_place(before)
        and not _names_a_hash(before)
        and looks_random(word, min_changes=0.25)
    ):
        return Span(start, end, "hex-value", 330)
    return None


def _names_a_hash(before: str) -> bool:
    """Whether the name a hex value is given says it is a hash or an id (``sha``, ``commit``...)."""
    stripped = before.rstrip(_BETWEEN).lower()
    name = stripped[
        max(stripped.rfind(" "), stripped.rfind("\t"), stripped.rfind('"'), stripped.rfind("'")) + 1 :
    ]
    return any(word in name for word in _HASH_NAMES)


def _value_place(before: str) -> bool:
    """Whether a value stands here: after ``key:``, ``key =``, ``"key": "``, ``--flag '``."""
    stripped = before.rstrip(" \t\"'`\\")
    if stripped.endswith((":", "=")):
        return True
    option = stripped[max(stripped.rfind(" "), stripped.rfind("\t")) + 1 :]
    return option.startswith("-") and _FLAG.fullmatch(option) is not None


def _mixed_case(word: str) -> bool:
    return not word.islower() and not word.isupper()
