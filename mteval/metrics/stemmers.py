"""Stemmers used by the lexical metrics.

* :func:`porter_rouge`: the Porter (1980) suffix stripper exactly as ROUGE-1.5.5 runs it (the
  regular-expression formulation of the algorithm, with Chin-Yew Lin's 2004 change to step 4:
  a word ending in ``-ement`` is not tried again with ``-ment``/``-ent``). ROUGE's ``-m`` option.
* :func:`snowball_english`: the Snowball English ("Porter2") stemmer that METEOR's ``stem`` module
  uses (via the pure-Python ``snowballstemmer`` package).
* :func:`snowball`: the Snowball stemmer of another language (issue 36), for METEOR's stem stage
  and ROUGE's ``-m`` when the experiment's ``language:`` is not English; :func:`language_stemmer`
  adds Czech's light stemmer (:mod:`mteval.metrics.stemmer_czech`), which Snowball lacks.

Both are cached per unique word: the same word is never stemmed twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache

from mteval.metrics.stemmer_czech import czech_light

# Porter's word classes, written as ROUGE-1.5.5 writes them (``y`` is both a consonant and a vowel
# for the regular expressions; backtracking decides).
_C1 = "[^aeiou]"  # consonant
_V1 = "[aeiouy]"  # vowel
_CS = f"{_C1}[^aeiouy]*"  # consonant sequence
_VS = f"{_V1}[aeiou]*"  # vowel sequence
_M_GT0 = re.compile(f"^({_CS})?{_VS}{_CS}")  # [C]VC...   measure m > 0
_M_EQ1 = re.compile(f"^({_CS})?{_VS}{_CS}({_VS})?$")  # [C]VC[V]   m = 1
_M_GT1 = re.compile(f"^({_CS})?{_VS}{_CS}{_VS}{_CS}")  # [C]VCVC... m > 1
_HAS_V = re.compile(f"^({_CS})?{_V1}")  # the stem contains a vowel
_CVC = re.compile(f"^{_CS}{_V1}[^aeiouwxy]$")  # *o condition on a short stem

_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize",
          "bli": "ble", "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize",
          "ation": "ate", "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful",
          "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble", "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP2_RE = re.compile("(" + "|".join(_STEP2) + ")$")
_STEP3_RE = re.compile("(" + "|".join(_STEP3) + ")$")
_STEP4_RE = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")


def _step1(w: str) -> str:
    """Porter (1980) steps 1a, 1b and 1c: plurals, -ed/-ing, terminal y."""
    m = re.search("(ss|i)es$", w)
    if m:
        w = w[:m.start()] + m.group(1)
    else:
        m = re.search("([^s])s$", w)
        if m:
            w = w[:m.start()] + m.group(1)
    if w.endswith("eed"):
        if _M_GT0.search(w[:-3]):
            w = w[:-1]
    else:
        m = re.search("(ed|ing)$", w)
        if m and _HAS_V.search(w[:m.start()]):
            w = w[:m.start()]
            if re.search("(at|bl|iz)$", w):
                w += "e"
            elif re.search(r"([^aeiouylsz])\1$", w):
                w = w[:-1]
            elif _CVC.search(w):
                w += "e"
    if w.endswith("y") and _HAS_V.search(w[:-1]):
        w = w[:-1] + "i"
    return w


def _step2to4(w: str) -> str:
    """Porter (1980) steps 2, 3 and 4 (step 4 with ROUGE-1.5.5's ``-ement`` change)."""
    for pattern, table in ((_STEP2_RE, _STEP2), (_STEP3_RE, _STEP3)):
        m = pattern.search(w)
        if m and _M_GT0.search(w[:m.start()]):
            w = w[:m.start()] + table[m.group(1)]
    m = _STEP4_RE.search(w)
    if m and _M_GT1.search(w[:m.start()]):
        w = w[:m.start()]
    if w.endswith("ment") and _M_GT1.search(w[:-4]):
        w = w[:-4]
    if w.endswith("ent"):
        if _M_GT1.search(w[:-3]):
            w = w[:-3]
    else:
        m = re.search("(s|t)(ion)$", w)
        if m and _M_GT1.search(w[:m.start()] + m.group(1)):
            w = w[:m.start()] + m.group(1)
    return w


@cache
def porter_rouge(word: str) -> str:
    """Porter stem of a lower-case word as ROUGE-1.5.5's ``stem`` computes it (Porter 1980, steps 1-5)."""
    if len(word) < 3:
        return word
    initial_y = word[0] == "y"
    w = "Y" + word[1:] if initial_y else word
    w = _step2to4(_step1(w))
    if w.endswith("e"):
        stem = w[:-1]
        if _M_GT1.search(stem) or (_M_EQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if w.endswith("ll") and _M_GT1.search(w):
        w = w[:-1]
    if initial_y:
        w = w[0].lower() + w[1:]
    return w


@cache
def snowball_english(word: str) -> str:
    """Snowball English (Porter2) stem of a word, as METEOR's ``stem`` module uses it."""
    return _snowball().stemWord(word)


@lru_cache(maxsize=1)
def _snowball():  # type: ignore[no-untyped-def]
    """The shared Snowball English stemmer object (imported lazily)."""
    import snowballstemmer

    return snowballstemmer.stemmer("english")


# ISO 639-1 codes of the languages the Snowball project has a stemmer for (snowballstemmer's names);
# English keeps snowball_english (METEOR) and porter_rouge (ROUGE), as the reference tools do.
SNOWBALL_LANGUAGES = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "da": "danish", "nl": "dutch",
    "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian",
    "id": "indonesian", "ga": "irish", "it": "italian", "lt": "lithuanian", "ne": "nepali",
    "no": "norwegian", "nb": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}


def base_language(language: str) -> str:
    """``pt-BR`` / ``pt_BR`` -> ``pt``: the code the language resources are chosen by."""
    return language.replace("_", "-").split("-")[0].lower()


@cache
def snowball(language: str) -> Callable[[str], str] | None:
    """The Snowball stemmer of a non-English language (one cache of stems per language), or None
    when Snowball has none (Czech, for one)."""
    name = SNOWBALL_LANGUAGES.get(base_language(language))
    if name is None:
        return None
    import snowballstemmer  # noqa: PLC0415

    stemmer = snowballstemmer.stemmer(name)
    return cache(stemmer.stemWord)


# Stemmers of languages Snowball has none for: ISO 639-1 code -> (name in the signatures, what the
# warning lines call it, the stemmer).
LIGHT_STEMMERS: dict[str, tuple[str, str, Callable[[str], str]]] = {
    "cs": ("czech-light", "the Czech light stemmer (Dolamic & Savoy 2009)", czech_light),
}


def language_stemmer(language: str) -> Callable[[str], str] | None:
    """The stemmer METEOR and ROUGE use outside English: Snowball's, else a light stemmer of
    :data:`LIGHT_STEMMERS` (Czech), else None (no stem matches)."""
    found = snowball(language)
    light = LIGHT_STEMMERS.get(base_language(language))
    return found if found is not None or light is None else light[2]


def stemmer_option(language: str) -> dict[str, str]:
    """What the signature adds for a light stemmer (``{"stemmer": "czech-light"}`` in Czech): a
    Snowball stemmer is implied by the language (signatures of issue 36 unchanged)."""
    light = LIGHT_STEMMERS.get(base_language(language))
    return {"stemmer": light[0]} if light else {}


def stemmer_description(language: str) -> str | None:
    """``Snowball's Russian stemmer`` / ``the Czech light stemmer (Dolamic & Savoy 2009)`` / None."""
    code = base_language(language)
    if code in SNOWBALL_LANGUAGES:
        return f"Snowball's {SNOWBALL_LANGUAGES[code].title()} stemmer"
    return LIGHT_STEMMERS[code][1] if code in LIGHT_STEMMERS else None
