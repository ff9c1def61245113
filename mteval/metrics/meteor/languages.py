"""Meteor 1.4's languages: what ``-l LANG`` sets, as Asiya passes the experiment's target language.

Asiya runs ``meteor-1.4.jar tst ref -sgml -l LANG -m "<modules>"`` with LANG its code of the target
language (``cz`` for Czech). The jar then takes that language's parameters and module weights (the
weights positionally, as in English), its function-word list (``function/<language>.words``) and its
Snowball stemmer. Tabulated from the jar itself (md5 ``5bf9f1d87aaebf9fcd457eda3734b480``): the
``Parameters:`` and ``Weights:`` lines that ``java -jar meteor-1.4.jar h r -l LANG -m "exact stem
synonym paraphrase"`` prints, for every code its usage text names (``Constants.normLanguageName`` also
takes ``cs`` and ``sv``):

========  ====================  ==================  ===============  ==========================
ISO       ``-l``                alpha beta gamma     module weights   function words, stemmer
                                delta
========  ====================  ==================  ===============  ==========================
en        en                    0.85 0.2 0.6 0.75    1.0 0.6 0.8 0.6  english, Snowball
cs        cz                    0.95 0.2 0.6 0.8     1.0 0.4 0 0      czech, none
de        de                    0.95 1.0 0.55 0.55   1.0 0.8 0.2 0    german, Snowball
es        es                    0.65 1.3 0.5 0.8     1.0 0.8 0.6 0    spanish, Snowball
fr        fr                    0.9 1.4 0.6 0.65     1.0 0.2 0.4 0    french, Snowball
ar        ar                    0.0 0.05 0.8 0.5     1.0 0.6 0 0      none, none
others    da fi hu it nl no pt  0.75 1.4 0.7 0.5     1.0 0.5 0 0      none, Snowball
          ro ru se tr
========  ====================  ==================  ===============  ==========================

("others": the jar's "language-independent parameters"; ``nb`` is taken for ``no``, ``sv`` for ``se``.)
The stem stage (``-m "exact stem"``) stops the jar outside these Snowball languages ("No stemmer for
language (czech)"), the synonym stage outside English ("Synonym dictionary could not be loaded"), and
the paraphrase stage needs ``paraphrase-LANG.gz``, which mteval lacks outside English.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mteval.metrics.meteor.jar_stemmers import DIFFERS
from mteval.metrics.stemmers import stemmer_description

Four = tuple[float, float, float, float]


@dataclass(frozen=True)
class JarLanguage:
    """One language of Meteor 1.4's ``-l`` (see the module's table)."""

    code: str  # as the jar names it in its Eval ID (cz, se)
    name: str  # its function-word file and stemmer: function/<name>.words, <name>Stemmer
    parameters: Four  # alpha, beta, gamma, delta
    weights: Four  # module weights, taken by position
    stemmer: bool  # the jar has a stemmer for it


_INDEPENDENT = ((0.75, 1.4, 0.7, 0.5), (1.0, 0.5, 0.0, 0.0))
JAR_LANGUAGES: dict[str, JarLanguage] = {
    "en": JarLanguage("en", "english", (0.85, 0.2, 0.6, 0.75), (1.0, 0.6, 0.8, 0.6), True),
    "cs": JarLanguage("cz", "czech", (0.95, 0.2, 0.6, 0.8), (1.0, 0.4, 0.0, 0.0), False),
    "de": JarLanguage("de", "german", (0.95, 1.0, 0.55, 0.55), (1.0, 0.8, 0.2, 0.0), True),
    "es": JarLanguage("es", "spanish", (0.65, 1.3, 0.5, 0.8), (1.0, 0.8, 0.6, 0.0), True),
    "fr": JarLanguage("fr", "french", (0.9, 1.4, 0.6, 0.65), (1.0, 0.2, 0.4, 0.0), True),
    "ar": JarLanguage("ar", "arabic", (0.0, 0.05, 0.8, 0.5), (1.0, 0.6, 0.0, 0.0), False),
    **{iso: JarLanguage(code, name, *_INDEPENDENT, True) for iso, code, name in (
        ("da", "da", "danish"), ("fi", "fi", "finnish"), ("hu", "hu", "hungarian"), ("it", "it", "italian"),
        ("nl", "nl", "dutch"), ("no", "no", "norwegian"), ("nb", "no", "norwegian"), ("pt", "pt", "portuguese"),
        ("ro", "ro", "romanian"), ("ru", "ru", "russian"), ("sv", "se", "swedish"), ("tr", "tr", "turkish"))},
}


def _stage_notes(language: str, modules: set[str]) -> list[str]:
    """Why a variant with these modules is not Meteor 1.4's ``-l`` number in a language it has."""
    jar = JAR_LANGUAGES[language]
    notes = []
    if "stem" in modules and not jar.stemmer:
        stemmer = stemmer_description(language)
        uses = f"the stem stage is mteval's extension with {stemmer}" if stemmer else "no stem matches"
        notes.append(f"Meteor 1.4 has no {jar.name.title()} stemmer, so {uses}")
    elif "stem" in modules and language in DIFFERS:
        notes.append(f"{stemmer_description(language)} (snowballstemmer 2) differs from the jar's on some words")
    if "synonym" in modules:
        notes.append("the synonym stage matches nothing (WordNet is English; the jar stops on it outside English)")
    if "wnstem" in modules:
        notes.append("the WordNet-stem stage (not a Meteor 1.4 module) matches nothing")
    if "paraphrase" in modules:
        notes.append(f"the paraphrase stage matches nothing (mteval has no paraphrase-{jar.code}.gz)")
    return notes


def not_jar_variants(language: str, variants: Iterable[str],
                     modules: dict[str, tuple[str, ...]]) -> tuple[list[str], list[str]]:
    """The variants among ``variants`` whose scores in ``language`` (ISO 639-1, one Meteor 1.4 has) are
    not Meteor 1.4's ``-l`` ones, and the reasons (each once); ``modules``: variant -> its modules."""
    names, notes = [], []
    for variant in dict.fromkeys(variants):
        found = _stage_notes(language, set(modules[variant]))
        if found:
            names.append(variant)
            notes += [n for n in found if n not in notes]
    return names, notes
