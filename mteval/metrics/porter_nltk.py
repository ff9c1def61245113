"""The Porter stemmer as NLTK 3 runs it by default (``PorterStemmer()``, mode ``NLTK_EXTENSIONS``).

rouge-score's ``use_stemmer=True`` stems every token longer than 3 characters with it. It is
Porter's algorithm (Porter 1980, "An algorithm for suffix stripping", Program 14(3)) with the
departures NLTK documents for that mode, which change many stems against ROUGE-1.5.5's Perl
Porter (:func:`mteval.metrics.stemmers.porter_rouge`; ``day`` -> ``day``, not ``dai``):

* a table of irregular forms (``skies`` -> ``sky``, ``dying`` -> ``die``, ``news`` -> ``news``, ...);
* words of at most 2 letters are left alone;
* step 1a: ``-ies`` of a 4-letter word -> ``-ie``; step 1b: ``-ied`` -> ``-ie`` (4 letters) or ``-i``;
* step 1c: ``-y`` -> ``-i`` only after a consonant that is not the word's first letter;
* step 2: ``-alli`` -> ``-al`` then step 2 again, ``-bli`` -> ``-ble``, and ``-fulli`` -> ``-ful``,
  ``-logi`` -> ``-log``;
* condition *o also holds for a 2-letter vowel-consonant stem.

Rules of a step are tried in order; the first whose suffix matches decides (its condition failing
leaves the word as it is). A letter is a consonant unless it is a vowel ``aeiou`` or a ``y`` after
a consonant (a ``y`` that starts the word is a consonant).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

__all__ = ["porter_nltk"]

IRREGULAR = {"sky": "sky", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "news": "news",
             "innings": "inning", "inning": "inning", "outings": "outing", "outing": "outing",
             "cannings": "canning", "canning": "canning", "howe": "howe", "proceed": "proceed",
             "exceed": "exceed", "succeed": "succeed"}
VOWELS = frozenset("aeiou")
Condition = Callable[[str], bool]


def consonants(word: str) -> list[bool]:
    """Whether each letter is a consonant (Porter's definition, ``y`` by its left neighbour)."""
    flags: list[bool] = []
    for i, letter in enumerate(word):
        flags.append(letter not in VOWELS and (letter != "y" or i == 0 or not flags[i - 1]))
    return flags


def measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant transitions of ``[C](VC){m}[V]``."""
    flags = consonants(stem)
    return sum(1 for a, b in zip(flags, flags[1:], strict=False) if not a and b)


def _has_vowel(stem: str) -> bool:
    return not all(consonants(stem))


def _double_consonant(word: str) -> bool:
    """Condition *d: the word ends with two equal consonants."""
    return len(word) >= 2 and word[-1] == word[-2] and consonants(word)[-1]


def _cvc(word: str) -> bool:
    """Condition *o: consonant-vowel-consonant ending, the last not w, x or y (NLTK: or a 2-letter
    vowel-consonant word)."""
    flags = consonants(word)
    if len(word) == 2:
        return not flags[0] and flags[1]
    return len(word) >= 3 and flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy"


def _m_positive(stem: str) -> bool:
    return measure(stem) > 0


def _m_above_one(stem: str) -> bool:
    return measure(stem) > 1


def _first_rule(word: str, rules: tuple[tuple[str, str, Condition | None], ...]) -> str:
    """The first rule whose suffix ends ``word`` decides: ``stem + replacement`` when its condition
    holds for the stem, else ``word`` unchanged."""
    for suffix, replacement, condition in rules:
        if word.endswith(suffix):
            stem = word[:len(word) - len(suffix)]
            return stem + replacement if condition is None or condition(stem) else word
    return word


STEP1A = (("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None))
STEP2 = tuple((s, r, _m_positive) for s, r in (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
    ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"), ("ization", "ize"),
    ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"),
    ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"), ("fulli", "ful")))
STEP3 = tuple((s, r, _m_positive) for s, r in (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", "")))
STEP4 = tuple((s, "", _m_above_one) for s in (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent"))
STEP4_AFTER_ION = tuple((s, "", _m_above_one) for s in ("ou", "ism", "ate", "iti", "ous", "ive", "ize"))


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    return _first_rule(word, STEP1A)


def _step1b(word: str) -> str:
    """-ied, -eed, then -ed / -ing after a vowel, with the tidying of the stem left."""
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        return word[:-1] if measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[:-len(suffix)]):
            return _tidy_1b(word[:-len(suffix)])
    return word


def _tidy_1b(stem: str) -> str:
    """After -ed/-ing: -at, -bl, -iz get an e; a double consonant (not l, s, z) loses one; a short
    *o stem gets an e."""
    for suffix in ("at", "bl", "iz"):
        if stem.endswith(suffix):
            return stem + "e"
    if _double_consonant(stem):
        return stem[:-1] if stem[-1] not in "lsz" else stem
    return stem + "e" if measure(stem) == 1 and _cvc(stem) else stem


def _step1c(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and consonants(word[:-1])[-1]:
        return word[:-1] + "i"
    return word


def _step2(word: str) -> str:
    if word.endswith("alli") and measure(word[:-4]) > 0:
        return _step2(word[:-2])
    for suffix, replacement, condition in STEP2:
        if word.endswith(suffix):
            return word[:-len(suffix)] + replacement if condition(word[:-len(suffix)]) else word
    if word.endswith("logi"):
        return word[:-1] if measure(word[:-3]) > 0 else word
    return word


def _step4(word: str) -> str:
    for suffix, _, condition in STEP4:
        if word.endswith(suffix):
            return word[:-len(suffix)] if condition(word[:-len(suffix)]) else word
    if word.endswith("ion"):
        stem = word[:-3]
        return stem if measure(stem) > 1 and stem[-1] in "st" else word
    return _first_rule(word, STEP4_AFTER_ION)


def _step5(word: str) -> str:
    """5a: a final e goes after m > 1, or m = 1 without *o; 5b: -ll -> -l when m > 1."""
    if word.endswith("e"):
        stem = word[:-1]
        m = measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and measure(word[:-1]) > 1:
        word = word[:-1]
    return word


@lru_cache(maxsize=1 << 17)
def porter_nltk(word: str) -> str:
    """NLTK's ``PorterStemmer().stem(word)`` (lower-cased first; the length test on the word as
    given, as NLTK does)."""
    lower = word.lower()
    if lower in IRREGULAR:
        return IRREGULAR[lower]
    if len(word) <= 2:
        return lower
    return _step5(_step4(_first_rule(_step2(_step1c(_step1b(_step1a(lower)))), STEP3)))
