"""Whether a string looks like generated randomness (a key) rather than words (an identifier).

Two measures, both cheap on a 20 to 200 character string:

- how often the character class changes (upper, lower, digit, other): random base62 changes on
  about 62% of its characters, hex on 47%, upper case with digits on 40%; ``assertRaisesRegex`` on
  12%, ``test_utf8_decode_invalid`` on 21%;
- Shannon entropy in bits per character, which keeps out ``a1a1a1a1...`` and other repeats.

- wordiness: how much of it is runs of lower-case letters, as words are (``RegEnumKey``,
  ``/usr/lib/python3``); a generic rule, which has no prefix to go by, asks for little of it.

A key must also hold a digit: words with a capital here and there do not.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter

_CLASSES = str.maketrans(
    {
        **dict.fromkeys(string.ascii_uppercase, "A"),
        **dict.fromkeys(string.ascii_lowercase, "a"),
        **dict.fromkeys(string.digits, "0"),
    }
)
_RUN = re.compile(r"(.)\1*")
#: What a word of a name looks like inside a string: ``Warn``, ``option``, ``Key``.
_WORDISH = re.compile(r"[A-Z]?[a-z]{3,}")
_SEPARATORS = str.maketrans(dict.fromkeys("_-.+/=~"))
_DIGIT = re.compile(r"[0-9]")

#: Shortest string judged at all: shorter ones are too often an ordinary word with a number.
MIN_LENGTH = 16


def entropy(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    size = len(text)
    return -sum(count / size * math.log2(count / size) for count in Counter(text).values())


def class_changes(text: str) -> float:
    """The share of characters whose class (upper, lower, digit, other) differs from the one before."""
    if len(text) < 2:
        return 0.0
    return (len(_RUN.findall(text.translate(_CLASSES))) - 1) / (len(text) - 1)


def wordiness(text: str) -> float:
    """The share of ``text``'s characters in runs of three or more lower-case letters (with a capital
    before): most of an identifier, a path or a sentence; about a fifth of random base62."""
    return sum(len(word) for word in _WORDISH.findall(text)) / max(len(text), 1)


def looks_random(
    text: str,
    *,
    min_changes: float = 0.3,
    min_entropy: float = 3.0,
    max_wordy: float = 1.0,
    need_digit: bool = True,
) -> bool:
    """Whether ``text`` (a token's body) looks generated: long enough, with a digit, changing class
    often, not repetitive and (``max_wordy``) not made of words. Separators (``_-.+/=~``) are
    left out of the measures. A token whose prefix is known may lack a digit (``need_digit``)."""
    if len(text) < MIN_LENGTH or (need_digit and _DIGIT.search(text) is None):
        return False
    letters = text.translate(_SEPARATORS)
    return (
        class_changes(letters) >= min_changes
        and (max_wordy >= 1.0 or wordiness(letters) <= max_wordy)
        and entropy(text) >= min_entropy
    )
