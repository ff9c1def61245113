"""GTM-1, GTM-2, GTM-3: the General Text Matcher F-measure (GTM 1.4, ``gtm.jar +s +d -e N``).

Melamed, Green & Turian (2003), "Precision and recall of machine translation", HLT-NAACL, §2:
the *maximum match size* of a candidate and a reference with run-length weighting is
``MMS_e = (sum over aligned runs r of |r|^e)^(1/e)`` (eq. 2), where a matching is a set of
hits (equal words) with at most one hit per row and column of the bitext grid, and a *run* is a
maximal diagonal block of hits. ``P = MMS / |candidate|``, ``R = MMS / |reference|`` and
``F = 2PR / (P + R)``. For e = 1 the MMS is the clipped unigram match count. For e > 1 finding
the maximum is NP-hard and GTM approximates it greedily: repeatedly take the longest run of
hits whose rows and columns are all still free, until no hit is left.

Conventions, checked against Asiya's cached GTM values (``../shared/oracles/asiya-sample``, all
6 systems x 3 variants x (3 segments + system) = 72 values equal to the 8 printed decimals):

* tokens: whitespace-separated, case-sensitive (Asiya's sample used pre-tokenised ``.tok`` files);
* ``+s``/``+d``: GTM prints segment and document scores; a document's (and the system's) MMS is
  the **sum of its segments' MMS** and its lengths are the summed lengths, i.e. per-segment
  statistics ``[MMS_e, |hyp|, |ref|]`` summed before the F-measure (runs never cross segments);
* document scores: Asiya stores the **mean of the document's segment scores** (its
  ``Metrics::get_seg_doc_scores``; sample: google GTM-2 doc 0.51333086 vs system 0.53841814);
* ties between equally long runs: the earliest candidate position, then the earliest reference
  position (not verified: the sample values do not depend on it);
* multiple references (not verified, no oracle): per segment and variant, the statistics of the
  reference with the highest segment F (first in name order on ties).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricInfo, ScoreSet, Side, StatsFamily, mean_score_set
from mteval.metrics.registry import register

EXPONENTS = (1, 2, 3)
Words = tuple[str, ...]


def greedy_runs(hyp: Words, ref: Words) -> list[int]:
    """Lengths of the runs of GTM's greedy matching (longest free run first; Melamed et al. 2003, §2)."""
    hits = [(i, j) for i, w in enumerate(hyp) for j, v in enumerate(ref) if w == v]
    free_h = [True] * len(hyp)
    free_r = [True] * len(ref)
    runs: list[int] = []
    while hits:
        best = (0, 0, 0)
        for i, j in hits:
            if i > 0 and j > 0 and free_h[i - 1] and free_r[j - 1] and hyp[i - 1] == ref[j - 1]:
                continue  # not the start of a free run
            n = 1
            while (i + n < len(hyp) and j + n < len(ref) and free_h[i + n] and free_r[j + n]
                   and hyp[i + n] == ref[j + n]):
                n += 1
            if n > best[0]:
                best = (n, i, j)
        n, i, j = best
        for k in range(n):
            free_h[i + k] = free_r[j + k] = False
        runs.append(n)
        hits = [(a, b) for a, b in hits if free_h[a] and free_r[b]]
    return runs


def mms(runs: Sequence[int], e: int) -> float:
    """Maximum match size ``(sum |r|^e)^(1/e)`` of a set of runs (Melamed et al. 2003, eq. 2).

    Exact where the root is an integer (``64 ** (1/3)`` is 3.9999999999999996 in floating point),
    so that a perfect match scores exactly 1.
    """
    total = sum(n ** e for n in runs)
    root = float(total) ** (1.0 / e)
    near = round(root)
    return float(near) if near ** e == total else root


def f_measure(stats: np.ndarray) -> np.ndarray:
    """GTM F of rows ``[MMS, |hyp|, |ref|]``: ``2PR/(P+R) = 2 MMS / (|hyp| + |ref|)``, 0 without matches."""
    stats = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    m, h, r = stats[:, 0], stats[:, 1], stats[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(h > 0, m / np.where(h > 0, h, 1), 0.0)
        rc = np.where(r > 0, m / np.where(r > 0, r, 1), 0.0)
        return np.where(m > 0, 2 * p * rc / np.where(p + rc > 0, p + rc, 1), 0.0)


@register
class GTM(StatsFamily):
    """GTM-e F-measure for e = 1, 2, 3 (GTM 1.4 as Asiya runs it)."""

    family = "GTM"
    variants = ("GTM-1", "GTM-2", "GTM-3")

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._words: dict[str, Words] = {}
        self._mms: dict[tuple[Words, Words], tuple[float, ...]] = {}

    def info(self, variant: str) -> MetricInfo:
        """Similarity in [0, 1]."""
        return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=0.0, upper_bound=1.0,
                          description=f"GTM F-measure, run-length exponent {variant[-1]}")

    def tokens(self, text: str) -> Words:
        """Whitespace tokens (lower-cased unless case-sensitive), once per unique string."""
        found = self._words.get(text)
        if found is None:
            found = self._words[text] = tuple((text if self.case_sensitive else text.lower()).split())
        return found

    def pair_mms(self, hyp: Words, ref: Words) -> tuple[float, ...]:
        """``MMS_e`` for e = 1, 2, 3 of one segment pair (one greedy matching serves all e)."""
        key = (hyp, ref)
        found = self._mms.get(key)
        if found is None:
            runs = greedy_runs(hyp, ref)
            found = self._mms[key] = tuple(mms(runs, e) for e in EXPONENTS)
        return found

    def prepare(self, references: Sequence[Side]) -> list[list[Words]]:
        """Tokens of each reference, references in name order (the multi-reference tie rule)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return [[self.tokens(t) for t in r.texts] for r in sorted(references, key=lambda r: r.name)]

    def segment_stats(self, hypothesis: Side, prepared: list[list[Words]]) -> np.ndarray:
        """Columns ``[MMS_e, |hyp|, |ref|]`` for e = 1, 2, 3, each from its best reference."""
        n = len(hypothesis.texts)
        stats = np.zeros((n, 3 * len(EXPONENTS)))
        best = np.full((n, len(EXPONENTS)), -1.0)
        for ref in prepared:
            if len(ref) != n:
                raise InputError(f"{hypothesis.name}: {n} segments but a reference has {len(ref)}")
            for i, text in enumerate(hypothesis.texts):
                hyp = self.tokens(text)
                size = len(hyp) + len(ref[i])
                for k, m in enumerate(self.pair_mms(hyp, ref[i])):
                    f = 2 * m / size if m > 0 else 0.0  # = f_measure of the row
                    if f > best[i, k]:
                        best[i, k] = f
                        stats[i, 3 * k:3 * k + 3] = (m, len(hyp), len(ref[i]))
        return stats

    def score(self, hypothesis: Side, prepared: list[list[Words]], documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """System and segment scores from statistics; documents as Asiya: mean of segment scores."""
        scores = super().score(hypothesis, prepared, documents, variants)
        return {v: ScoreSet(system=s.system, documents=mean_score_set(s.segments, documents).documents,
                            segments=s.segments) for v, s in scores.items()}

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """GTM-e F of each statistics row."""
        k = EXPONENTS.index(int(variant.split("-")[1]))
        return f_measure(np.atleast_2d(stats)[:, 3 * k:3 * k + 3])
