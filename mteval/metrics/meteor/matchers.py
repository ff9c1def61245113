"""METEOR 1.5's single-word matchers (Denkowski & Lavie 2011, sec. 2.1: exact, stem, synonym).

Each adds every candidate (reference position outer loop, hypothesis position inner loop, as
Meteor does) to the :class:`~mteval.metrics.meteor.alignment.Stage`. Stem and synonym matches
are only made between *different* words; a pair can be both a stem and a synonym candidate.
"""

from __future__ import annotations

from mteval.metrics.meteor.alignment import Match, Stage
from mteval.metrics.meteor.resources import synonym_dictionary
from mteval.metrics.stemmers import snowball_english


def exact(module: int, stage: Stage) -> None:
    """Identical words."""
    for j, r in enumerate(stage.ref):
        for i, h in enumerate(stage.hyp):
            if h == r:
                stage.add(Match(module, j, 1, i, 1))


def stem(module: int, stage: Stage) -> None:
    """Different words with the same Snowball English stem."""
    hs = [snowball_english(w) for w in stage.hyp]
    for j, r in enumerate(stage.ref):
        rs = snowball_english(r)
        for i, h in enumerate(stage.hyp):
            if hs[i] == rs and h != r:
                stage.add(Match(module, j, 1, i, 1))


def synonym(module: int, stage: Stage) -> None:
    """Different words sharing a WordNet synset (of the word or of its base form)."""
    syn = synonym_dictionary()
    hs = [syn.synsets_of(w) for w in stage.hyp]
    for j, r in enumerate(stage.ref):
        rs = syn.synsets_of(r)
        if not rs:
            continue
        for i, h in enumerate(stage.hyp):
            if h != r and not hs[i].isdisjoint(rs):
                stage.add(Match(module, j, 1, i, 1))
