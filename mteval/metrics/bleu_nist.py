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
over every segment of every reference of the reference set -- with v13a's quirk that a bigram whose
first token is ``0`` is also divided by the total word count (Perl reads the prefix ``"0"`` as false;
``docs/bleu-nist.md``); score
``NIST-n = sum_{k<=n} (sum of info over clipped matches of order k) / max(#hyp k-grams, 1) * LP``,
``LP = exp(-beta * ln(rho)^2)``, ``beta = -ln 0.5 / ln(1.5)^2``, ``rho = hyp words / mean reference
words`` (``LP = 1`` when ``rho >= 1``); ``NISTi-n`` = the order-n term times LP; ``NIST`` = ``NIST-5``.

Segment, document and system scores come from the same statistics (summed over the level), as
mteval computes them. Tokenisation: :func:`mteval.metrics.tokenize.tokenize_13a` (a side's new segments
at once: :func:`~mteval.metrics.tokenize.tokenize_13a_many`; a segment met again while among the
last ones tokenised is not tokenised again: :mod:`mteval.metrics.segment_cache`).

Subsets (``docs/statistics.md``): BLEU of part of the test set is the score of its summed statistics
(``stats``); NIST's is ``recompute``: the information weights of mteval-v13a run on those lines are
counted over their references only, so the pipeline computes the statistics again from those lines.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from mteval.metrics.base import RECOMPUTE, MetricInfo, Side, StatsFamily
from mteval.metrics.ngram_stats import (
    COUNT,
    HYP_LEN,
    INFO,
    MATCH,
    MEAN_REF_LEN,
    N_STATS,
    PERL_FALSE_PREFIX,
    REF_LEN,
    PreparedNgrams,
    ngram_statistics,
    prepare_ngrams,
)
from mteval.metrics.registry import register
from mteval.metrics.segment_cache import SegmentCache
from mteval.metrics.tokenize import tokenize_13a_many

__all__ = ["BleuNist", "bleu_scores", "nist_scores", "nist_information", "COUNT", "HYP_LEN", "INFO", "MATCH",
           "MEAN_REF_LEN", "N_STATS", "REF_LEN"]

BLEU_ORDER = 4
NIST_ORDER = 5
_NIST_BETA = -math.log(0.5) / math.log(1.5) ** 2

BLEU_VARIANTS = ("BLEU",) + tuple(f"BLEU-{n}" for n in range(1, 5)) + tuple(f"BLEUi-{n}" for n in range(1, 5))
NIST_VARIANTS = ("NIST",) + tuple(f"NIST-{n}" for n in range(1, 6)) + tuple(f"NISTi-{n}" for n in range(1, 6))


def nist_information(profiles: Sequence[Counter[tuple[str, ...]]],
                     total_words: int) -> dict[tuple[str, ...], float]:
    """mteval's ``compute_ngram_info`` over n-gram Counters (dict form; the vectorised form used by
    :class:`BleuNist` is :func:`mteval.metrics.ngram_stats.information_weights`), with v13a's ``"0"`` prefix
    quirk: a bigram starting with the token ``0`` is divided by the total word count (line 545)."""
    counts: Counter[tuple[str, ...]] = Counter()
    for profile in profiles:
        counts.update(profile)
    return {ngram: -math.log(count / (counts[ngram[:-1]] if _perl_true_prefix(ngram) else total_words)) / math.log(2)
            for ngram, count in counts.items()}


def _perl_true_prefix(ngram: tuple[str, ...]) -> bool:
    """Perl truth of v13a's ``$mgram`` (the (n-1)-gram joined by spaces): false for ``""`` and ``"0"``."""
    return " ".join(ngram[:-1]) not in ("", PERL_FALSE_PREFIX)


def bleu_scores(stats: np.ndarray, order: int, individual: bool) -> np.ndarray:
    """mteval-v13a ``bleu_score`` for every row: cumulative BLEU-``order`` or individual BLEUi."""
    hyp_len, ref_len = stats[:, HYP_LEN], stats[:, REF_LEN]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(hyp_len > 0, np.exp(np.minimum(0.0, 1.0 - ref_len / hyp_len)), 0.0)
        smooth: np.ndarray = np.ones(len(stats))
        total: np.ndarray = np.zeros(len(stats))
        log_p: np.ndarray = total
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

    def __init__(self, case_sensitive: bool = True, **options: object) -> None:
        super().__init__(case_sensitive, **options)
        self._tokens_of: SegmentCache[str, tuple[str, ...]] = SegmentCache()  # the last segments tokenised

    def subset_rule(self, level: str, variant: str) -> str:
        """NIST's information weights come from the reference lines of the run: ``recompute``."""
        return RECOMPUTE if variant.startswith("NIST") else super().subset_rule(level, variant)

    def _tokens(self, side: Side) -> list[tuple[str, ...]]:
        """The 13a tokens of each segment (the ones not among the last seen tokenised together)."""
        return self._tokens_of.many(side.texts, lambda new: tokenize_13a_many(new, self.case_sensitive))

    def prepare(self, references: Sequence[Side]) -> PreparedNgrams:
        return prepare_ngrams([self._tokens(r) for r in references])

    def segment_stats(self, hypothesis: Side, prepared: PreparedNgrams) -> np.ndarray:
        return ngram_statistics(self._tokens(hypothesis), prepared)

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        name, _, order = variant.partition("-")
        individual = name.endswith("i")
        if name.startswith("BLEU"):
            return bleu_scores(stats, int(order or BLEU_ORDER), individual)
        return nist_scores(stats, int(order or NIST_ORDER), individual)
