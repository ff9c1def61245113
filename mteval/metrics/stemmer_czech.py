"""The Czech light stemmer of Dolamic & Savoy (2009), for ROUGE's ``-m`` and METEOR's stem stage in
Czech, which Snowball has no stemmer for.

Dolamic, L. and Savoy, J. (2009), "Indexing and stemming approaches for the Czech language",
Information Processing & Management 45(6): the "light" stemmer removes the case endings of nouns
and adjectives (the longest ending that leaves a long enough stem), then a possessive suffix, then
normalises the stem's last consonants (the palatalisations ``č``/``c`` -> ``k``, ``ž``/``z`` -> ``h``,
``čt`` -> ``ck``, ``št`` -> ``sk``; a mobile ``e`` dropped; ``ů`` -> ``o``), so that a word's forms
share one (not always readable) stem: ``pánové``, ``pánům``, ``pána`` -> ``pán``; ``ženách``,
``ženou`` -> ``žn``. The rules and length thresholds are those of the authors' published stemmer as
Apache Lucene implements it (``CzechStemmer``); ``tests/test_stemmer_czech.py`` checks Lucene's
own test words. Input is expected lower-cased (ROUGE lower-cases; so does METEOR unless asked not to).
"""

from __future__ import annotations

from functools import cache

# (the word must be longer than this, its case endings of one length): tried in this order.
CASE_ENDINGS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (7, ("atech",)),
    (6, ("ětem", "etem", "atům")),
    (5, ("ech", "ich", "ích", "ého", "ěmi", "emi", "ému", "ěte", "ete", "ěti", "eti", "ího", "iho",
         "ími", "ímu", "imu", "ách", "ata", "aty", "ých", "ama", "ami", "ové", "ovi", "ými")),
    (4, ("em", "es", "ém", "ím", "ům", "at", "ám", "os", "us", "ým", "mi", "ou")),
    (3, tuple("aeiouůyáéíýě")),
)
POSSESSIVES = ("ov", "in", "ův")  # removed from a stem longer than 5 characters
REWRITES = (("čt", "ck"), ("št", "sk"))  # the stem's last two letters
LAST = {"c": "k", "č": "k", "z": "h", "ž": "h"}  # the stem's last letter


def remove_case(word: str) -> str:
    """``word`` without its case ending (the first group of :data:`CASE_ENDINGS` that applies)."""
    for longer_than, endings in CASE_ENDINGS:
        if len(word) > longer_than and word.endswith(endings):
            return word[: -len(endings[0])]
    return word


def remove_possessive(stem: str) -> str:
    """``stem`` without a possessive suffix (``-ov``, ``-in``, ``-ův``) when longer than 5."""
    return stem[:-2] if len(stem) > 5 and stem.endswith(POSSESSIVES) else stem


def normalize(stem: str) -> str:
    """The stem's end normalised: ``čt``/``št`` -> ``ck``/``sk``, ``[cč]`` -> ``k``, ``[zž]`` -> ``h``,
    else a mobile ``e`` before the last letter dropped, else ``ů`` before it -> ``o``."""
    for ending, replacement in REWRITES:
        if stem.endswith(ending):
            return stem[:-2] + replacement
    if stem[-1] in LAST:
        return stem[:-1] + LAST[stem[-1]]
    if len(stem) > 1 and stem[-2] == "e":
        return stem[:-2] + stem[-1]
    if len(stem) > 2 and stem[-2] == "ů":
        return stem[:-2] + "o" + stem[-1]
    return stem


@cache
def czech_light(word: str) -> str:
    """The light stem of a lower-cased Czech word (each distinct word stemmed once)."""
    stem = remove_possessive(remove_case(word))
    return normalize(stem) if stem else stem
