"""BLEU and NIST exactly as NIST's mteval-v13a.pl computes them (the numbers Asiya reports).

BLEU (Papineni et al. 2002) with mteval-v13a's conventions (sub ``bleu_score``): clipped n-gram
precisions against the maximum count over references; brevity penalty
``BP = exp(min(0, 1 - r/c))`` with ``r`` the *closest* reference length (ties -> the shorter one);
smoothing for an order without matches: ``smooth *= 2``, precision ``1/(smooth * #hyp n-grams)``;
an order with no hypothesis n-grams contributes log-precision 0 (individual score 1).
``BLEU-n`` = ``exp(mean of the first n log precisions) * BP``; ``BLEUi-n`` = ``p_n`` without BP;
``BLEU`` = ``BLEU-4``.

NIST (Doddington 2002; mteval sub ``nist_score``): information weight
``info(w1..wn) = -log2(count(w1..wn) / count(w1..wn-1))`` (unigrams: ``count/total words``), counted
over every segment of every reference of the reference set; score
``NIST-n = sum_{k<=n} (sum of info over clipped matches of order k) / max(#hyp k-grams, 1) * LP``,
``LP = exp(-beta * ln(rho)^2)``, ``beta = -ln 0.5 / ln(1.5)^2``, ``rho = hyp words / mean reference
words`` (``LP = 1`` when ``rho >= 1``); ``NISTi-n`` = the order-n term times LP; ``NIST`` = ``NIST-5``.

Segment, document and system scores come from the same statistics (summed over the level), as
mteval computes them. Tokenisation: :func:`mteval.metrics.tokenize.tokenize_13a`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mteval.metrics.base import MetricInfo, Side, StatsFamily
from mteval.metrics.ngrams import Ngram, max_counts, ngram_counts
from mteval.metrics.registry import register
from mteval.metrics.tokenize import tokenize_13a

BLEU_ORDER = 4
NIST_ORDER = 5
_NIST_BETA = -math.log(0.5) / math.log(1.5) ** 2

# statistics columns
HYP_LEN, REF_LEN, MEAN_REF_LEN = 0, 1, 2
MATCH = slice(3, 3 + NIST_ORDER)
COUNT = slice(3 + NIST_ORDER, 3 + 2 * NIST_ORDER)
INFO = slice(3 + 2 * NIST_ORDER, 3 + 3 * NIST_ORDER)
N_STATS = 3 + 3 * NIST_ORDER

BLEU_VARIANTS = ("BLEU",) + tuple(f"BLEU-{n}" for n in range(1, 5)) + tuple(f"BLEUi-{n}" for n in range(1, 5))
NIST_VARIANTS = ("NIST",) + tuple(f"NIST-{n}" for n in range(1, 6)) + tuple(f"NISTi-{n}" for n in range(1, 6))


@dataclass(frozen=True)
class PreparedReferences:
    """What a reference set contributes: clipping counts and lengths per segment, NIST weights."""

    max_counts: list[Counter[Ngram] | dict[Ngram, int]]
    lengths: list[tuple[int, ...]]
    info: dict[Ngram, float]
    n_refs: int


def _closest_length(hyp_len: int, ref_lengths: tuple[int, ...]) -> int:
    """mteval's reference length for BLEU: closest to the hypothesis, ties -> shorter."""
    return min(ref_lengths, key=lambda r: (abs(hyp_len - r), r)) if ref_lengths else 0


def nist_information(profiles: Sequence[Counter[Ngram]], total_words: int) -> dict[Ngram, float]:
    """mteval's ``compute_ngram_info``: information weight of every reference n-gram."""
    counts: Counter[Ngram] = Counter()
    for profile in profiles:
        counts.update(profile)
    info: dict[Ngram, float] = {}
    for ngram, count in counts.items():
        denominator = counts[ngram[:-1]] if len(ngram) > 1 else total_words
        info[ngram] = -math.log(count / denominator) / math.log(2)
    return info


def bleu_scores(stats: np.ndarray, order: int, individual: bool) -> np.ndarray:
    """mteval-v13a ``bleu_score`` for every row: cumulative BLEU-``order`` or individual BLEUi."""
    hyp_len, ref_len = stats[:, HYP_LEN], stats[:, REF_LEN]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(hyp_len > 0, np.exp(np.minimum(0.0, 1.0 - ref_len / hyp_len)), 0.0)
        smooth = np.ones(len(stats))
        total = np.zeros(len(stats))
        log_p = total
        for j in range(order):
            matches, count = stats[:, MATCH][:, j], stats[:, COUNT][:, j]
            no_match = (count > 0) & (matches == 0)
            smooth = np.where(no_match, smooth * 2, smooth)
            log_p = np.where(count == 0, 0.0,
                             np.where(no_match, np.log(1.0 / (smooth * count)), np.log(matches / count)))
            total = total + log_p
    if individual:
        return np.exp(log_p)
    return np.exp(total / order) * bp


def nist_scores(stats: np.ndarray, order: int, individual: bool) -> np.ndarray:
    """mteval-v13a ``nist_score`` for every row: cumulative NIST-``order`` or individual NISTi."""
    terms = stats[:, INFO][:, :order] / np.maximum(stats[:, COUNT][:, :order], 1.0)
    value = terms[:, -1] if individual else terms.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(stats[:, MEAN_REF_LEN] > 0, stats[:, HYP_LEN] / stats[:, MEAN_REF_LEN], 1.0)
        penalty = np.where(rho >= 1, 1.0,
                           np.where(rho <= 0, 0.0, np.exp(-_NIST_BETA * np.log(rho) ** 2)))
    return value * penalty


@register
class BleuNist(StatsFamily):
    """BLEU and NIST of mteval-v13a (one pass computes both; groups ``BLEU`` and ``NIST``)."""

    family = "mteval-v13a"
    variants = BLEU_VARIANTS + NIST_VARIANTS
    groups: ClassVar[dict[str, tuple[str, ...]]] = {"BLEU": BLEU_VARIANTS, "NIST": NIST_VARIANTS}
    version = "13a"

    def info(self, variant: str) -> MetricInfo:
        upper = 1.0 if variant.startswith("BLEU") else None
        return MetricInfo(variant, self.family, True, 0.0, upper, "mteval-v13a " + variant)

    def signature(self, variant: str) -> str:
        return super().signature(variant) + "|tok:13a"

    def _profile(self, text: str) -> tuple[int, Counter[Ngram]]:
        tokens = tokenize_13a(text, self.case_sensitive)
        return len(tokens), ngram_counts(tokens, NIST_ORDER)

    def prepare(self, references: Sequence[Side]) -> PreparedReferences:
        n_segments = {len(r) for r in references}
        if len(n_segments) != 1:
            raise ValueError(f"references differ in length: {sorted(n_segments)}")
        per_segment = [[self._profile(ref.texts[i]) for ref in references] for i in range(len(references[0]))]
        profiles = [p for seg in per_segment for _, p in seg]
        total_words = sum(n for seg in per_segment for n, _ in seg)
        return PreparedReferences(
            max_counts=[max_counts([p for _, p in seg]) for seg in per_segment],
            lengths=[tuple(n for n, _ in seg) for seg in per_segment],
            info=nist_information(profiles, total_words),
            n_refs=len(references),
        )

    def segment_stats(self, hypothesis: Side, prepared: PreparedReferences) -> np.ndarray:
        if len(hypothesis) != len(prepared.lengths):
            raise ValueError(f"{hypothesis.name}: {len(hypothesis)} segments, references have "
                             f"{len(prepared.lengths)}")
        stats = np.zeros((len(hypothesis), N_STATS))
        info = prepared.info
        for i, text in enumerate(hypothesis.texts):
            hyp_len, profile = self._profile(text)
            ref_max = prepared.max_counts[i]
            row = stats[i]
            row[HYP_LEN] = hyp_len
            row[REF_LEN] = _closest_length(hyp_len, prepared.lengths[i])
            row[MEAN_REF_LEN] = sum(prepared.lengths[i]) / prepared.n_refs
            for n in range(1, NIST_ORDER + 1):
                row[COUNT.start + n - 1] = max(hyp_len - n + 1, 0)
            for ngram, count in profile.items():
                ref_count = ref_max.get(ngram)
                if ref_count:
                    clipped = min(count, ref_count)
                    k = len(ngram) - 1
                    row[MATCH.start + k] += clipped
                    row[INFO.start + k] += info[ngram] * clipped
        return stats

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        name, _, order = variant.partition("-")
        individual = name.endswith("i")
        if name.startswith("BLEU"):
            return bleu_scores(stats, int(order or BLEU_ORDER), individual)
        return nist_scores(stats, int(order or NIST_ORDER), individual)
