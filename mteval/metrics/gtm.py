"""GTM-1, GTM-2, GTM-3: the General Text Matcher F-measure (GTM 1.4, ``gtm.jar +s +d -e N``).

Melamed, Green & Turian (2003), "Precision and recall of machine translation", HLT-NAACL, §2:
the *maximum match size* with run-length weighting is ``MMS_e = (sum over runs r of |r|^e)^(1/e)``
(eq. 2), where a matching is a set of hits (equal words) with at most one hit per row and column of
the bitext grid and a *run* is a diagonal block of hits; ``P = MMS / |candidate|``,
``R = MMS / |reference|``, ``F = 2PR / (P + R)``. For e = 1 the MMS is the clipped unigram match
count; for e > 1 the maximum is NP-hard and GTM 1.4 (``Bitext.score``) approximates it greedily.
Its procedure, reproduced here:

* the references of a segment are concatenated, each followed by a separator that matches nothing
  (so runs never cross references); hits are the (candidate, reference) positions of equal tokens;
* candidate runs are every diagonal block starting at a hit, of every length up to the end of
  its diagonal, ordered by length (longest first), then by grid point ``candidate position x
  (reference tokens + separators) + reference position`` (largest first);
* runs are taken in that order unless one of their cells shares a row or column with a taken
  run; the total taken length is capped at ``min(|candidate|, mean reference length)`` (a run that
  reaches the cap is shortened to it, possibly to a fraction when the mean is fractional);
* ``MMS_e = (sum taken |run|^e)^(1/e)``; P uses the candidate length and R the **mean** reference
  length. With ``+d``, a document's MMS and lengths are the sums over its segments.

Conventions, checked against Asiya's cached GTM values (``../shared/oracles/asiya-sample``, all
6 systems x 3 variants x (system + document + 3 segments) = 90 values equal to 8 decimals):

* tokens: ASCII-whitespace separated (Java's ``StringTokenizer``), case-sensitive;
* system score: GTM's document score over all segments (summed statistics ``[MMS_e, |cand|,
  mean |ref|]``; Asiya's raw input is one document);
* document scores: Asiya stores the **mean of the document's segment scores** (its
  ``Metrics::get_seg_doc_scores``; sample: google GTM-2 doc 0.51333086 vs system 0.53841814);
* multiple references: references are taken in name order (Asiya passes them in Perl hash order,
  which only matters for ties between equally long runs in different references). Besides the
  single-reference sample, GTM 1.4's own scoring classes run locally on all WMT21 pairs (A+B
  included) gave the same segment statistics (see ``tests/test_lex_gtm.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricInfo, ScoreSet, Side, StatsFamily, mean_score_set
from mteval.metrics.registry import register

EXPONENTS = (1, 2, 3)
_DELIMITERS = re.compile(r"[ \t\n\r\f]+")
Words = tuple[str, ...]


def greedy_runs(hyp: Words, refs: Sequence[Words]) -> list[float]:
    """Lengths of the runs GTM 1.4's greedy matching takes (see the module docstring)."""
    grid: list[str | None] = []
    for ref in refs:
        grid.extend(ref)
        grid.append(None)  # GTM's "REFERENCE BREAK": matches no token
    width = len(grid)
    positions: dict[str, list[int]] = {}
    for j, token in enumerate(grid):
        if token is not None:
            positions.setdefault(token, []).append(j)
    hits = {(i, j) for i, token in enumerate(hyp) for j in positions.get(token, ())}
    candidates = []
    for i, j in hits:
        reach = 1
        while (i + reach, j + reach) in hits:
            reach += 1
        candidates.extend((-length, -(i * width + j), i, j) for length in range(1, reach + 1))
    candidates.sort()
    cap = min(float(len(hyp)), sum(len(r) for r in refs) / len(refs)) if refs else 0.0
    used_h = [False] * len(hyp)
    used_r = [False] * width
    runs: list[float] = []
    for neg_length, _, i, j in candidates:
        if cap <= 0:
            break
        length = min(float(-neg_length), cap)
        span = range(math.ceil(length))
        if any(used_r[j + k] or used_h[i + k] for k in span):
            continue
        for k in span:
            used_r[j + k] = used_h[i + k] = True
        cap -= length
        runs.append(length)
    return runs


def mms(runs: Sequence[float], e: int) -> float:
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
        self._mms: dict[tuple[Words, tuple[Words, ...]], tuple[float, ...]] = {}

    def info(self, variant: str) -> MetricInfo:
        """Similarity in [0, 1]."""
        return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=0.0, upper_bound=1.0,
                          description=f"GTM F-measure, run-length exponent {variant[-1]}")

    def tokens(self, text: str) -> Words:
        """Tokens split on " \\t\\n\\r\\f" as Java's ``StringTokenizer`` (lower-cased unless
        case-sensitive), once per unique string."""
        found = self._words.get(text)
        if found is None:
            line = text if self.case_sensitive else text.lower()
            found = self._words[text] = tuple(t for t in _DELIMITERS.split(line) if t)
        return found

    def segment_mms(self, hyp: Words, refs: tuple[Words, ...]) -> tuple[float, ...]:
        """``MMS_e`` for e = 1, 2, 3 of one segment (one greedy matching serves all e), cached."""
        key = (hyp, refs)
        found = self._mms.get(key)
        if found is None:
            runs = greedy_runs(hyp, refs)
            found = self._mms[key] = tuple(mms(runs, e) for e in EXPONENTS)
        return found

    def prepare(self, references: Sequence[Side]) -> list[list[Words]]:
        """Tokens of each reference, references in name order (the multi-reference tie rule)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return [[self.tokens(t) for t in r.texts] for r in sorted(references, key=lambda r: r.name)]

    def segment_stats(self, hypothesis: Side, prepared: list[list[Words]]) -> np.ndarray:
        """Columns ``[MMS_e, |hyp|, mean |ref|]`` for e = 1, 2, 3 (all references matched jointly)."""
        n = len(hypothesis.texts)
        for ref in prepared:
            if len(ref) != n:
                raise InputError(f"{hypothesis.name}: {n} segments but a reference has {len(ref)}")
        stats = np.zeros((n, 3 * len(EXPONENTS)))
        for i, text in enumerate(hypothesis.texts):
            hyp = self.tokens(text)
            refs = tuple(ref[i] for ref in prepared)
            mean_ref = sum(len(r) for r in refs) / len(refs)
            for k, m in enumerate(self.segment_mms(hyp, refs)):
                stats[i, 3 * k:3 * k + 3] = (m, len(hyp), mean_ref)
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
