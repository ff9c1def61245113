"""METEOR 1.5's English resources, and Meteor 1.4's function words of other languages, read once
and shared (``mteval/resources/meteor/``).

* ``english.words``: function words (Denkowski & Lavie 2011, sec. 2.2: delta weighs content
  vs function words); ``czech.words``, ``french.words``, ``german.words``, ``spanish.words``: those
  of ``meteor-1.4.jar`` (:mod:`.languages`; the jar's lists of its other languages are empty);
* ``english.exceptions`` + ``english.synsets.gz``: WordNet 3.0 exception lists and synsets, as
  Meteor's ``SynonymDictionary`` reads them;
* ``paraphrase-en.*``: the English paraphrase table (see :mod:`mteval.metrics.meteor.paraphrase`).

The English files are copies of the data inside ``meteor-1.5.jar`` / the ``pycocoevalcap`` 1.2 wheel,
the other languages' of ``meteor-1.4.jar``'s (see ``mteval/resources/meteor/NOTICE.md``).
"""

from __future__ import annotations

import gzip
from functools import cache, lru_cache
from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[2] / "resources" / "meteor"

# WordNet morphology (Meteor's ``SynonymDictionary.morph``): suffix -> ending, tried in order.
_SUFFIXES = ("s", "ses", "xes", "zes", "ches", "shes", "men", "ies",
             "s", "ies", "es", "es", "ed", "ed", "ing", "ing",
             "er", "est", "er", "est")
_ENDINGS = ("", "s", "x", "z", "ch", "sh", "man", "y",
            "", "y", "e", "", "e", "", "e", "",
            "", "", "e", "e")


FUNCTION_WORD_LISTS = ("czech", "english", "french", "german", "spanish")  # Meteor 1.4's non-empty lists


@cache
def function_words(language: str = "english") -> frozenset[str]:
    """Meteor's function-word list of a language by its Meteor name (compared with the lower-cased
    word): ``<language>.words``, or none where Meteor 1.4's list is empty."""
    if language not in FUNCTION_WORD_LISTS:
        return frozenset()
    return frozenset((RESOURCES / f"{language}.words").read_text(encoding="utf-8").split("\n"))


class SynonymDictionary:
    """WordNet synsets of words and of their base forms (Meteor's ``SynonymDictionary``)."""

    def __init__(self, directory: Path = RESOURCES) -> None:
        self.bases: dict[str, list[str]] = {}
        lines = (directory / "english.exceptions").read_text(encoding="utf-8").split("\n")
        for base, forms in zip(lines[0::2], lines[1::2], strict=False):
            for form in forms.split():
                self.bases.setdefault(form, []).append(base)
        with gzip.open(directory / "english.synsets.gz", "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.synsets: dict[str, frozenset[int]] = {
            w: frozenset(int(x) for x in ids.split()) for w, ids in zip(lines[0::2], lines[1::2], strict=False)}

    def synsets_of(self, word: str) -> frozenset[int]:
        """Synsets of the word itself plus those of its base forms (``getSynSets`` + ``getStemSynSets``)."""
        return self._synsets_of(word)

    @lru_cache(maxsize=200_000)  # noqa: B019 - one dictionary per process (see synonym_dictionary)
    def _synsets_of(self, word: str) -> frozenset[int]:
        own = self.synsets.get(word, frozenset())
        bases = self.bases.get(word)
        if bases is not None:
            stem: frozenset[int] = frozenset().union(*(self.synsets.get(b, frozenset()) for b in bases))
        else:
            stem = self.synsets.get(self.morph(word), frozenset())
        return own | stem

    @lru_cache(maxsize=200_000)  # noqa: B019 - one dictionary per process (see synonym_dictionary)
    def base_forms(self, word: str) -> frozenset[str]:
        """WordNet base forms of a word (METEOR 0.4.3's ``wn_stem``): the word itself when WordNet
        lists it, plus its exception-list bases, or else the base Meteor's suffix rules give."""
        bases = self.bases.get(word)
        found = set(bases) if bases is not None else {self.morph(word)} - {""}
        if word in self.synsets:
            found.add(word)
        return frozenset(found)

    def morph(self, word: str) -> str:
        """WordNet's suffix rules as Meteor 1.5 codes them, including its ``-ful`` quirk.

        The first rule whose result is a WordNet word wins; for a word ending in ``ful`` the
        suffix ``ful`` is appended to that result (Meteor does not strip it first). Returns ``""``
        when no rule applies, the word itself when it ends in ``ss`` or has at most 2 characters.
        """
        end = "ful" if word.endswith("ful") else ""
        if word.endswith("ss") or len(word) <= 2:
            return word
        for suffix, ending in zip(_SUFFIXES, _ENDINGS, strict=True):
            if word.endswith(suffix):
                candidate = word[: len(word) - len(suffix)] + ending
                if candidate in self.synsets:
                    return candidate + end
        return ""


@cache
def synonym_dictionary() -> SynonymDictionary:
    """The shared English synonym dictionary (loaded on first use, ~1 s)."""
    return SynonymDictionary()
