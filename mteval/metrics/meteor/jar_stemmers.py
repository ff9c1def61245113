"""The stems of Meteor 1.4's own Snowball stemmers, from the ``snowballstemmer`` 2.x package.

Meteor 1.4's ``stem`` module (``StemMatcher``) stems every word, case and all, with the Java Snowball
stemmer the jar bundles for the language (``Constants.newStemmer``: ``org.tartarus.snowball.ext.*``,
Snowball code of 2012 or before: the jar was built in September 2012). ``snowballstemmer`` 2.x is
generated from a later Snowball.
``tools/meteor_stem_oracle.py`` ran the jar's stemmers and this module on every distinct token of the test
data and UD treebanks of ``../shared`` and their lower-cased forms (German 67,443 words, French 66,481,
Spanish 55,623, Russian 57,269, English 14,534), on 100,000 synthetic words a language (letters of the
language and 0-3 suffixes of the stemmer's tables, some capitalised or upper-cased) and on 50,000 more
aimed at the differences below (``tests/data/oracles/README.md``, "Meteor 1.4's stemmers"). They agree in
Danish, Dutch, English, Italian, Norwegian, Romanian, Spanish, Swedish and Turkish. Where they differ
(snowballstemmer 2.2.0 on 89 German, 390 French and 362 Russian real words; on 15,573 German, 38,264
French, 42,552 Russian and 23,896 Hungarian synthetic ones), this module corrects snowballstemmer's
stem, and then every one of those words stems as in the jar, but 4 synthetic French ones (see
:func:`_french`):

* German: Snowball 2 deletes the ``s`` of ``-niss`` once ``-e``/``-en``/``-es`` is gone (``Ergebnisse``
  -> ``Ergebnis``), the jar does not (``Ergebniss``): the ``s`` is put back (:func:`_german`).
* Russian: Snowball 2 reads ``ё`` as ``е``; for the jar it is a letter of its own, not a vowel, in no
  suffix: a private-use character stands in for it while stemming (:func:`_russian`).
* Hungarian: the jar's tables have the Latin-1 ``õ``/``û`` where Hungarian writes ``ő``/``ű`` (its vowels
  and its suffixes ``-bõl``, ``-tõl`` ...): the two pairs are swapped while stemming (:func:`_hungarian`).
* French: Snowball 2 rewrites ``ë``/``ï`` as ``He``/``Hi`` and drops every ``H`` (``Haus`` -> ``aus``,
  ``héroïque`` -> ``héro``); the jar treats ``ë``/``ï`` as plain vowels, ``H`` as a plain letter, and
  deletes a final ``ë`` after ``gu`` inside RV (``ambiguë`` -> ``ambigu``, ``aiguë`` kept): see
  :func:`_french`.

Finnish and Portuguese are not corrected: Snowball 2 changed their rules (Finnish: 565 of the 100,000
synthetic words differ; Portuguese: 531, the jar's table having Spanish ``-logía``/``-ución`` where
Snowball 2 has ``-logia``/``-ução``), and :data:`DIFFERS` names them for the warning line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from mteval.metrics.stemmers import snowball, snowball_english

DIFFERS = frozenset({"fi", "pt"})  # ISO codes whose snowballstemmer stems are not the jar's
_PRIVATE = tuple(chr(c) for c in range(0xE000, 0xF900))  # private-use letters: no stemmer's vowel or suffix
_GERMAN_NISS = re.compile("ni(?:ss|ß)(?:e|en|es)$")
_HUNGARIAN = str.maketrans({"õ": "ő", "ő": "õ", "û": "ű", "ű": "û"})
_FRENCH_VOWELS = frozenset("aeiouyâàëéêèïîôûù")  # the French stemmer's vowels (g_v)
_FRENCH_SPARE = "àêôùû"  # vowels no rule of the French stemmer names


def _free(word: str, pool: tuple[str, ...] | str, n: int) -> list[str] | None:
    """``n`` characters of ``pool`` that ``word`` does not hold (None: too few)."""
    found = [c for c in pool if c not in word][:n]
    return found if len(found) == n else None


def _german(stem: Callable[[str], str], word: str) -> str:
    """The jar's German stem: snowballstemmer's, with the ``s`` of ``-niss`` kept."""
    out = stem(word)
    return out + "s" if out.endswith("nis") and _GERMAN_NISS.search(word) else out


def _russian(stem: Callable[[str], str], word: str) -> str:
    """The jar's Russian stem: ``ё`` a consonant-like letter of its own, not ``е``."""
    if "ё" not in word:
        return stem(word)
    mark = (_free(word, _PRIVATE, 1) or ["ё"])[0]
    return stem(word.replace("ё", mark)).replace(mark, "ё")


def _hungarian(stem: Callable[[str], str], word: str) -> str:
    """The jar's Hungarian stem: its ``õ``/``û`` are Hungarian's ``ő``/``ű``."""
    return stem(word.translate(_HUNGARIAN)).translate(_HUNGARIAN)


def _french_rv(word: str) -> int:
    """Where RV starts (Snowball French's ``pV``; its prelude first turns ``u``/``i`` between vowels,
    ``y`` beside a vowel and ``u`` after ``q`` into consonants): after the third letter when the word
    starts with two vowels or with par/col/tap, else after its first vowel past the first letter."""
    chars, vowel = list(word), _FRENCH_VOWELS.__contains__
    for i in range(len(chars) - 1):  # left to right, each mark seen by the next letters' tests
        c, after, then = chars[i], chars[i + 1], chars[i + 2] if i + 2 < len(chars) else ""
        if vowel(c) and after in ("u", "i") and vowel(then):
            chars[i + 1] = after.upper()
        elif vowel(c) and after == "y":
            chars[i + 1] = "Y"
        elif c == "y" and vowel(after):
            chars[i] = "Y"
        elif c == "q" and after == "u":
            chars[i + 1] = "U"
    if (len(chars) > 2 and vowel(chars[0]) and vowel(chars[1])) or "".join(chars[:3]) in ("par", "col", "tap"):
        return 3
    return next((i + 1 for i in range(1, len(chars)) if vowel(chars[i])), len(chars))


def _french(stem: Callable[[str], str], word: str) -> str:
    """The jar's French stem: ``H`` -> a private-use letter and ``ë``/``ï`` -> vowels no rule names
    while snowballstemmer stems, then the jar's residual rule (``ë`` after ``gu``, both in RV: deleted)
    for a word ending ``guë``/``guës`` that no other rule shortened. A word holding ``ë`` or ``ï`` and
    more than three of ``à ê ô ù û`` (none in real text) keeps snowballstemmer's stem."""
    if "H" not in word and "ë" not in word and "ï" not in word:
        return stem(word)
    marks = [c for c in "ëï" if c in word]
    spare = _free(word, _FRENCH_SPARE, len(marks))
    if spare is None:
        return stem(word)
    h = (_free(word, _PRIVATE, 1) or ["H"])[0]
    there, back = "H" + "".join(marks), h + "".join(spare)
    out = stem(word.translate(str.maketrans(there, back))).translate(str.maketrans(back, there))
    base = word[:-1] if word.endswith("guës") else word
    if base.endswith("guë") and out.endswith("guë") and len(out) == len(base) and len(base) - 3 >= _french_rv(word):
        out = out[:-1]
    return out


_CORRECTIONS: dict[str, Callable[[Callable[[str], str], str], str]] = {
    "de": _german, "ru": _russian, "hu": _hungarian, "fr": _french}


@cache
def jar_stemmer(language: str) -> Callable[[str], str] | None:
    """The stems of Meteor 1.4's stemmer for an ISO 639-1 code (``en``: :func:`snowball_english`), one
    cache of stems per language; None when snowballstemmer has none."""
    if language == "en":
        return snowball_english
    plain = snowball(language)
    fix = _CORRECTIONS.get(language)
    if plain is None or fix is None:
        return plain

    @cache
    def corrected(word: str) -> str:
        return fix(plain, word)

    return corrected
