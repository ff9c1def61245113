"""ROUGE as Google's rouge-score 0.1.2 computes it (``rouge_scorer.RougeScorer``; Lin 2004).

The family ``rouge-score`` has rouge-score's own names: ``rouge1`` .. ``rouge4`` (n-gram overlap),
``rougeL`` (the LCS of the two texts) and ``rougeLsum`` (the summary-level LCS: the union LCS of each
reference sentence with every hypothesis sentence, sentences split on newlines; Lin 2004, section
3.2). A segment's score is ``RougeScorer([...], use_stemmer=...).score(reference, hypothesis)``:

* tokens: the text lower-cased (Python's ``str.lower``), every run of characters outside
  ``[a-z0-9]`` a separator; with ``stem=yes`` (``use_stemmer=True``) every token longer than 3
  characters replaced by NLTK's Porter stem (:mod:`mteval.metrics.porter_nltk`);
* P, R and F unrounded, F = 2PR / (P + R) (0 when P + R = 0): not ROUGE-1.5.5's F of rounded P and
  R (the ``ROUGE`` family);
* ``rougeLsum`` of an mteval segment: a segment is one line, so it is one sentence and
  ``rougeLsum`` equals ``rougeL`` (rouge-score gives the same for one-line texts); several
  lines (a text given through the API or the functions here) are split as rouge-score splits them;
* several references: rouge-score's ``score_multi``, the reference with the highest F per variant
  (the first of equal ones), its P, R or F;
* documents and the system: the mean of their segments' scores, as rouge-score users aggregate
  (``BootstrapAggregator``'s ``mid`` is the median of 1,000 unseeded resample means, which is
  near the mean but differs from run to run: not reproduced).

Parameters (:mod:`mteval.metrics.parameters`): ``stem`` (``no``, rouge-score's default, or
``yes``) and ``measure`` (``fmeasure``, ``precision`` or ``recall``: the field of rouge-score's
``Score``), e.g. ``rougeL(stem=yes)``, ``rouge2(measure=recall)``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from rapidfuzz.distance import LCSseq

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricFamily, MetricInfo, ScoreSet, Side, mean_score_set
from mteval.metrics.clipped_ngrams import clipped_ngram_hits
from mteval.metrics.parameters import Parameter
from mteval.metrics.porter_nltk import porter_nltk
from mteval.metrics.registry import register
from mteval.metrics.rouge import clipped_hits, lcs_length, ngram_counts

_ALNUM = re.compile(r"[a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+$")
Score = tuple[float, float, float]  # (precision, recall, fmeasure), rouge-score's Score
Tokens = tuple[str, ...]
MEASURES = ("fmeasure", "precision", "recall")
FIELDS = {"precision": 0, "recall": 1, "fmeasure": 2}  # positions in a Score
PARAMETERS = {
    "stem": Parameter("stem", "no", choices=("yes", "no"),
                      help="rouge-score's use_stemmer: NLTK's Porter stem of tokens longer than 3 characters"),
    "measure": Parameter("measure", "fmeasure", choices=MEASURES, help="the field of rouge-score's Score"),
}


@lru_cache(maxsize=1 << 14)
def tokens(text: str, stem: bool = False) -> Tokens:
    """rouge-score's ``DefaultTokenizer(use_stemmer=stem).tokenize(text)``."""
    found = _ALNUM.findall(text.lower())
    if stem:
        found = [porter_nltk(t) if len(t) > 3 else t for t in found]
    return tuple(t for t in found if _VALID.match(t))


def fmeasure(precision: float, recall: float) -> float:
    """rouge-score's ``scoring.fmeasure``."""
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def ngram_score(target: Tokens, prediction: Tokens, n: int) -> Score:
    """rouge-score's ``rougeN`` (``_score_ngrams``): clipped n-gram hits over each side's n-grams."""
    target_grams, prediction_grams = ngram_counts(target, n), ngram_counts(prediction, n)
    hits = clipped_hits(target_grams, prediction_grams)
    precision = hits / max(max(len(prediction) - n + 1, 0), 1)
    recall = hits / max(max(len(target) - n + 1, 0), 1)
    return precision, recall, fmeasure(precision, recall)


def lcs_score(target: Tokens, prediction: Tokens) -> Score:
    """rouge-score's ``rougeL`` (``_score_lcs``): the LCS over each side's length."""
    if not target or not prediction:
        return 0.0, 0.0, 0.0
    lcs = lcs_length(target, prediction)
    precision, recall = lcs / len(prediction), lcs / len(target)
    return precision, recall, fmeasure(precision, recall)


def sentences(text: str, stem: bool) -> list[Tokens]:
    """rouge-score's ``rougeLsum`` sentences: the text split on newlines, empty lines dropped."""
    return [tokens(s, stem) for s in text.split("\n") if s]


def summary_score(target: list[Tokens], prediction: list[Tokens]) -> Score:
    """rouge-score's ``rougeLsum`` (``_summary_level_lcs``): per reference sentence the union of its
    LCS with each hypothesis sentence, every token counted at most as often as both summaries
    have it left."""
    m, n = sum(map(len, target)), sum(map(len, prediction))
    if not target or not prediction or not m or not n:
        return 0.0, 0.0, 0.0
    if len(target) == 1 and len(prediction) == 1:  # one LCS: every token of it is there to count
        hits = lcs_length(target[0], prediction[0])
    else:
        hits = _union_hits(target, prediction)
    precision, recall = hits / n, hits / m
    return precision, recall, fmeasure(precision, recall)


def _union_hits(target: list[Tokens], prediction: list[Tokens]) -> int:
    """The hits of :func:`summary_score` over several sentences (the token counts clip them)."""
    left_target = Counter(t for s in target for t in s)
    left_prediction = Counter(t for s in prediction for t in s)
    hits = 0
    for sentence in target:
        union = sorted(set().union(*(lcs_positions(sentence, c) for c in prediction)))
        for token in (sentence[i] for i in union):
            if left_prediction[token] > 0 and left_target[token] > 0:
                hits += 1
                left_prediction[token] -= 1
                left_target[token] -= 1
    return hits


def lcs_positions(ref: Tokens, can: Tokens) -> list[int]:
    """The positions in ``ref`` of the LCS rouge-score reads back (``lcs_ind``: its table, then from
    the end a match, else left when the left cell is larger, else up)."""
    table = [[0] * (len(can) + 1)]
    for token in ref:
        above, row = table[-1], [0]
        for j, other in enumerate(can, start=1):
            row.append(above[j - 1] + 1 if token == other else max(above[j], row[j - 1]))
        table.append(row)
    i, j, out = len(ref), len(can), []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.append(i - 1)
            i, j = i - 1, j - 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out[::-1]


def pair_score(kind: str, target: str, prediction: str, stem: bool) -> Score:
    """rouge-score's Score of one variant for one (reference, hypothesis) pair."""
    if kind == "rougeLsum":
        return summary_score(sentences(target, stem), sentences(prediction, stem))
    ref, hyp = tokens(target, stem), tokens(prediction, stem)
    return lcs_score(ref, hyp) if kind == "rougeL" else ngram_score(ref, hyp, int(kind[5:]))


def best_score(kind: str, targets: Sequence[str], prediction: str, stem: bool) -> Score:
    """rouge-score's ``score_multi``: the Score of the reference with the highest F (the first)."""
    found = [pair_score(kind, t, prediction, stem) for t in targets]
    return found[int(np.argmax([f for _, _, f in found]))]


def fmeasures(precision: np.ndarray, recall: np.ndarray) -> np.ndarray:
    """:func:`fmeasure` of every pair of values (the same operations in the same order)."""
    total = precision + recall
    return np.where(total > 0, 2 * precision * recall / np.where(total > 0, total, 1.0), 0.0)


def scores_of(hits: np.ndarray, hyp_total: np.ndarray, ref_total: np.ndarray) -> np.ndarray:
    """(P, R, F) rows, shape (n, 3), as rouge-score divides (by max(total, 1))."""
    precision, recall = hits / np.maximum(hyp_total, 1), hits / np.maximum(ref_total, 1)
    return np.stack([precision, recall, fmeasures(precision, recall)], axis=1)


@dataclass
class Reference:
    """A prepared reference: its texts and, per stemming setting, their token ids."""

    texts: Sequence[str]
    ids: dict[bool, list[tuple[int, ...]]] = field(default_factory=dict)


@register
class RougeScore(MetricFamily):
    """rouge-score's rouge1..4, rougeL and rougeLsum (mean of segment scores)."""

    family = "rouge-score"
    variants = ("rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeLsum")
    parameters = PARAMETERS

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._vocabulary: defaultdict[str, int] = defaultdict(int)
        self._vocabulary.default_factory = self._vocabulary.__len__  # a new token: the next id

    def info(self, variant: str) -> MetricInfo:
        """P, R or F in [0, 1]; rouge-score lower-cases, so ``case_sensitive`` is ignored."""
        return MetricInfo(variant, self.family, description="rouge-score 0.1.2 (rouge_scorer.RougeScorer)")

    def prepare(self, references: Sequence[Side]) -> list[Reference]:
        """Each reference's texts (their token ids made once per stemming setting, when scored)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        if len({len(r.texts) for r in references}) > 1:
            sizes = ", ".join(f"{r.name}: {len(r.texts)}" for r in references)
            raise InputError(f"references differ in segment count ({sizes})")
        return [Reference(r.texts) for r in references]

    def _ids(self, texts: Sequence[str], stem: bool) -> list[tuple[int, ...]]:
        number = self._vocabulary.__getitem__
        return [tuple(map(number, tokens(t, stem))) for t in texts]

    def pair_scores(self, hyps: Sequence[str], reference: Reference, kinds: set[str],
                    stem: bool) -> dict[str, np.ndarray]:
        """Per kind, every pair's (P, R, F), shape (n, 3): :func:`pair_score` for all pairs at once
        (n-gram hits by :func:`clipped_ngram_hits`, LCS by rapidfuzz; multi-line texts one by one)."""
        refs = reference.texts
        if stem not in reference.ids:
            reference.ids[stem] = self._ids(refs, stem)
        hyp, ref = self._ids(hyps, stem), reference.ids[stem]
        h_len = np.fromiter(map(len, hyp), dtype=np.float64, count=len(hyp))
        r_len = np.fromiter(map(len, ref), dtype=np.float64, count=len(ref))
        orders = sorted(int(k[5:]) for k in kinds if k[5:].isdigit())
        hits = clipped_ngram_hits(hyp, ref, orders)
        out = {f"rouge{n}": scores_of(hits[:, k], np.maximum(h_len - n + 1, 0), np.maximum(r_len - n + 1, 0))
               for k, n in enumerate(orders)}
        if kinds & {"rougeL", "rougeLsum"}:
            lcs = np.fromiter(map(LCSseq.similarity, ref, hyp), dtype=np.float64, count=len(hyp))
            both = (h_len > 0) & (r_len > 0)  # rouge-score: 0 when a side has no token
            lcs_scores = np.where(both[:, None], scores_of(lcs, h_len, r_len), 0.0)
            out.update({k: lcs_scores.copy() for k in kinds & {"rougeL", "rougeLsum"}})
        if "rougeLsum" in out:
            for i, (h, r) in enumerate(zip(hyps, refs, strict=True)):
                if "\n" in h or "\n" in r:
                    out["rougeLsum"][i] = pair_score("rougeLsum", r, h, stem)
        return out

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Per variant: each segment's best reference (``score_multi``), its P, R or F; documents
        and the system the mean of their segments."""
        n = len(prepared[0].texts) if prepared else 0
        if len(hypothesis.texts) != n:
            raise InputError(f"{hypothesis.name}: {len(hypothesis.texts)} segments, but the references have {n}")
        settings = {v: self.settings(v) for v in variants}
        found: dict[bool, list[dict[str, np.ndarray]]] = {}
        for stem in {values["stem"] == "yes" for _, values in settings.values()}:
            kinds = {kind for kind, values in settings.values() if (values["stem"] == "yes") == stem}
            found[stem] = [self.pair_scores(hypothesis.texts, ref, kinds, stem) for ref in prepared]
        result = {}
        for v, (kind, values) in settings.items():
            per_ref = np.stack([f[kind] for f in found[values["stem"] == "yes"]])  # (refs, n, 3)
            best = np.argmax(per_ref[:, :, 2], axis=0)  # the first of equal F
            chosen = per_ref[best, np.arange(n), FIELDS[values["measure"]]]
            result[v] = mean_score_set(chosen, documents)
        return result
