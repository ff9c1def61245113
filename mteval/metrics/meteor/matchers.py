"""METEOR 1.5's single-word matchers (Denkowski & Lavie 2011, sec. 2.1: exact, stem, synonym), and
METEOR 0.4.3's ``wn_stem`` (IQMT manual §5.1: same WordNet base form), which Meteor 1.5 dropped.

Each adds every candidate (reference position outer loop, hypothesis position inner loop, as
Meteor does) to the :class:`~mteval.metrics.meteor.alignment.Stage`. Stem and synonym matches
are only made between *different* words; a pair can be both a stem and a synonym candidate.
"""

from __future__ import annotations

from collections.abc import Callable

from mteval.metrics.meteor.alignment import Match, Matcher, Stage
from mteval.metrics.meteor.resources import synonym_dictionary
from mteval.metrics.stemmers import snowball_english


def _positions(keys: list) -> dict:
    """Hypothesis positions (ascending) of every key."""
    out: dict = {}
    for i, k in enumerate(keys):
        out.setdefault(k, []).append(i)
    return out


def exact(module: int, stage: Stage) -> None:
    """Identical words (implicit in the stage: :meth:`Stage.add_exact`), or added one by one if
    another stage came first."""
    if not any(stage.matches) and stage.exact is None:
        stage.add_exact(module)
        return
    where = _positions(list(stage.hyp_keys))
    for j, r in enumerate(stage.ref_keys):
        for i in where.get(r, ()):
            stage.add(Match(module, j, 1, i, 1))


def stem(module: int, stage: Stage) -> None:
    """Different words with the same Snowball English stem."""
    _stem_matches(snowball_english, module, stage)


def stem_with(stemmer: Callable[[str], str]) -> Matcher:
    """The stem matcher of another language's stemmer (issue 36: :func:`stemmers.language_stemmer`)."""
    def stem_other(module: int, stage: Stage) -> None:
        _stem_matches(stemmer, module, stage)
    return stem_other


def nothing(module: int, stage: Stage) -> None:
    """A stage without its resource in this language (English synonyms and paraphrases elsewhere)."""


def _stem_matches(stemmer: Callable[[str], str], module: int, stage: Stage) -> None:
    """Words of different keys whose stems have the same key (``StemMatcher``; keys: :class:`Stage`)."""
    key, hyp_keys = stage.key, stage.hyp_keys
    where = _positions([key(stemmer(w)) for w in stage.hyp])
    for j, r in enumerate(stage.ref):
        for i in where.get(key(stemmer(r)), ()):
            if hyp_keys[i] != stage.ref_keys[j]:
                stage.add(Match(module, j, 1, i, 1))


def synonym(module: int, stage: Stage) -> None:
    """Different words sharing a WordNet synset (of the word or of its base form)."""
    syn = synonym_dictionary()
    hyp = stage.hyp
    by_synset: dict = {}
    for i, w in enumerate(hyp):
        for s in syn.synsets_of(w):
            by_synset.setdefault(s, []).append(i)
    for j, r in enumerate(stage.ref):
        found = sorted({i for s in syn.synsets_of(r) for i in by_synset.get(s, ())})
        for i in found:
            if hyp[i] != r:
                stage.add(Match(module, j, 1, i, 1))


def wnstem(module: int, stage: Stage) -> None:
    """Different words sharing a WordNet base form (``wn_stem`` of METEOR 0.4.3, with Meteor 1.5's
    WordNet 3.0 exception lists and suffix rules: :meth:`SynonymDictionary.base_forms`)."""
    syn = synonym_dictionary()
    hyp = stage.hyp
    by_base: dict = {}
    for i, w in enumerate(hyp):
        for b in syn.base_forms(w):
            by_base.setdefault(b, []).append(i)
    for j, r in enumerate(stage.ref):
        found = sorted({i for b in syn.base_forms(r) for i in by_base.get(b, ())})
        for i in found:
            if hyp[i] != r:
                stage.add(Match(module, j, 1, i, 1))
