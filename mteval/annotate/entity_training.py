"""Training and scoring of :class:`~mteval.annotate.entity_tagger.EntityTagger` models.

Averaged structured perceptron (Collins 2002, Fig. 1 with parameter averaging, Sec. 2.5): for
every training sentence decode with the current weights and, where the best sequence differs
from the gold one, add the gold features and subtract the predicted ones. The averaged weights
are computed with the usual timestamp trick (``w_avg = w - u / c``). Sentences are visited in a
seeded random order, so training is deterministic.

Scoring is exact-span, exact-type entity precision/recall/F1 over all sentences (micro), as
``conlleval`` and Stanza's ``score_by_entity`` compute it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from mteval.annotate.entity_tagger import (
    NO_GAZETTEER,
    EntityTagger,
    FeatureExtractor,
    Gazetteer,
    Lexicon,
    bio_allowed,
    viterbi,
)
from mteval.annotate.layers.entities import entities
from mteval.annotate.model import Sentence, Word

Example = tuple[Sequence[Word], Sequence[str]]  # words (with predicted tags/parse) and gold BIO tags


def build_lexicon(sentences: Iterable[Sentence]) -> Lexicon:
    """Word statistics from a treebank: count, PROPN count, capitalised-not-first count per form."""
    count: Counter[str] = Counter()
    propn: Counter[str] = Counter()
    caps: Counter[str] = Counter()
    for sent in sentences:
        for i, w in enumerate(sent.words):
            low = w.form.lower()
            count[low] += 1
            propn[low] += w.upos == "PROPN"
            caps[low] += i > 0 and w.form[:1].isupper()
    return Lexicon({w: (c, propn[w], caps[w]) for w, c in count.items()})


@dataclass
class _Averaged:
    """Current and accumulated parameters of the averaged perceptron."""

    weights: np.ndarray
    transitions: np.ndarray
    acc_weights: np.ndarray
    acc_transitions: np.ndarray
    step: int = 1

    def update(self, ids: Sequence[np.ndarray], gold: Sequence[int], pred: Sequence[int], start: int) -> None:
        """Add the gold sequence's features, subtract the predicted one's (where they differ)."""
        prev_g = prev_p = start
        for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
            if g != p:
                for label, sign in ((g, 1.0), (p, -1.0)):
                    self.weights[ids[i], label] += sign
                    self.acc_weights[ids[i], label] += sign * self.step
            if g != p or prev_g != prev_p:
                for a, b, sign in ((prev_g, g, 1.0), (prev_p, p, -1.0)):
                    self.transitions[a, b] += sign
                    self.acc_transitions[a, b] += sign * self.step
            prev_g, prev_p = g, p

    def averaged(self) -> tuple[np.ndarray, np.ndarray]:
        """The averaged weights and transitions."""
        return (self.weights - self.acc_weights / self.step,
                self.transitions - self.acc_transitions / self.step)


def _index(examples: Sequence[Example], lexicon: Lexicon,
           gazetteer: Gazetteer) -> tuple[dict[str, int], list[list[np.ndarray]]]:
    """Feature index over the training data, and every example's feature ids per word."""
    index: dict[str, int] = {}
    encoded = []
    extractor = FeatureExtractor(lexicon, gazetteer)
    for words, _ in examples:
        encoded.append([np.array([index.setdefault(f, len(index)) for f in feats], dtype=np.int64)
                        for feats in extractor.sentence(words)])
    return index, encoded


def train(examples: Sequence[Example], lexicon: Lexicon, epochs: int = 10, seed: int = 0,
          gazetteer: Gazetteer = NO_GAZETTEER) -> EntityTagger:
    """An averaged-perceptron tagger trained on ``examples`` for ``epochs`` passes."""
    labels = sorted({t for _, tags in examples for t in tags} | {"O"}, key=lambda t: (t != "O", t[2:], t))
    label_id = {t: i for i, t in enumerate(labels)}
    index, encoded = _index(examples, lexicon, gazetteer)
    size = len(labels)
    model = _Averaged(np.zeros((len(index), size)), np.zeros((size + 1, size)),
                      np.zeros((len(index), size)), np.zeros((size + 1, size)))
    tagger = EntityTagger(labels, index, model.weights, model.transitions, lexicon, gazetteer)  # shares arrays
    allowed = bio_allowed(labels)
    order = np.arange(len(examples))
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        rng.shuffle(order)
        for k in order.tolist():
            ids, gold = encoded[k], [label_id[t] for t in examples[k][1]]
            pred = viterbi(tagger.emissions(ids), model.transitions, allowed)
            model.update(ids, gold, pred, size)
            model.step += 1
    weights, transitions = model.averaged()
    return _pruned(EntityTagger(labels, index, weights, transitions, lexicon, gazetteer))


def _pruned(tagger: EntityTagger) -> EntityTagger:
    """The same model without the features whose averaged weights are all zero."""
    keep = np.flatnonzero(np.abs(tagger.weights).max(axis=1) > 1e-9)
    names = sorted(tagger.features, key=tagger.features.__getitem__)
    return EntityTagger(tagger.labels, {names[k]: i for i, k in enumerate(keep)}, tagger.weights[keep],
                        tagger.transitions, tagger.lexicon, tagger.gazetteer)


@dataclass(frozen=True)
class EntityScores:
    """Exact-match entity counts and P/R/F1 (micro), overall and per type."""

    correct: int
    predicted: int
    gold: int
    per_type: dict[str, tuple[int, int, int]]

    @staticmethod
    def prf(correct: int, predicted: int, gold: int) -> tuple[float, float, float]:
        """Precision, recall, F1 from counts (0 where undefined)."""
        p = correct / predicted if predicted else 0.0
        r = correct / gold if gold else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)

    @property
    def f1(self) -> float:
        return self.prf(self.correct, self.predicted, self.gold)[2]


def score_entities(predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> EntityScores:
    """Exact span-and-type entity scores of predicted against gold tag sequences."""
    counts: dict[str, list[int]] = {}
    for pred_tags, gold_tags in zip(predicted, gold, strict=True):
        spans = [{(e.type, e.start, e.end) for e in entities(_tagged(tags))} for tags in (pred_tags, gold_tags)]
        for kind, items in enumerate((spans[0] & spans[1], spans[0], spans[1])):
            for etype, _, _ in items:
                counts.setdefault(etype, [0, 0, 0])[kind] += 1
    total = [sum(c[k] for c in counts.values()) for k in range(3)]
    return EntityScores(total[0], total[1], total[2], {t: (c[0], c[1], c[2]) for t, c in sorted(counts.items())})


def _tagged(tags: Sequence[str]) -> Sentence:
    """A bare sentence carrying ``tags`` (for :func:`entities`)."""
    return Sentence(tuple(Word(i + 1, "_", ner=t) for i, t in enumerate(tags)))
