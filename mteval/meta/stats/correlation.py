"""Correlation of metric scores with human judgements (vectors and grouped vectors).

Every statistic takes two aligned 1-D float vectors ``human`` and ``metric``; pairs where either
is NaN are dropped first. :func:`correlate` adds grouping, as google-research/mt-metrics-eval's
``average_by``: ``none`` flattens everything into one vector; ``item`` computes the statistic
within each item (the translations of one source segment) and averages; ``sys`` within each
system. Pair-counting statistics (the Kendall family, pairwise accuracy) average *micro*
(summed pair counts), the others *macro* (mean of the groups' values, NaN groups skipped).

Statistics (the name is the key of :data:`STATISTICS`):

* ``pearson``, ``spearman``: as ``scipy.stats.pearsonr`` / ``spearmanr`` (tested equal; unweighted
  Pearson in scipy 1.17's order of operations, bit-equal);
  with ``weights`` Pearson is the weighted Pearson of seed 003 (Kahn et al. 2009: length-weighted,
  "to avoid emphasis on short segments").
* ``kendall`` (tau-b) and ``kendall-c`` (tau-c): ``scipy.stats.kendalltau``; the pair counts
  used by the WMT variants give the same values (:func:`kendall_from_counts`, tested).
* ``kendall-wmt12`` (seed 001; Callison-Burch et al. 2012): (concordant - discordant) /
  (concordant + discordant) over pairs the humans did not tie; a metric tie is discordant.
* ``kendall-wmt20`` (WMT20 "Kendall-like", mt-metrics-eval ``KendallLike``): pairs whose human
  scores differ by at least ``thresh`` (25 DA points by default); concordant when the metric
  orders them strictly the same way, otherwise (metric tie included) discordant.
* ``accuracy``: pairwise accuracy (Kocmi et al. 2021): the share of pairs on which
  sign(human difference) == sign(metric difference) (mt-metrics-eval ``Agreement``);
  :func:`pooled_accuracy` sums its pairs over several test sets' systems (global accuracy).

Mean-removed correlation (seed 003) is :func:`mean_removed`, applied to both vectors before
correlating: each value minus the mean of its group (a segment or a document) over the
systems that have both scores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mteval.errors import MtevalError

_PAIR_BLOCK = 1 << 22


@dataclass(frozen=True)
class PairCounts:
    """Pair statistics of two vectors (each unordered pair counted once)."""

    concordant: int
    discordant: int
    tie_human: int  # tied in human only
    tie_metric: int  # tied in metric only
    tie_both: int


def aligned(human: np.ndarray, metric: np.ndarray, *more: np.ndarray | None) -> list[Any]:
    """The vectors restricted to the positions where neither ``human`` nor ``metric`` is NaN
    (a ``None`` among ``more`` stays ``None``)."""
    human, metric = np.asarray(human, dtype=np.float64), np.asarray(metric, dtype=np.float64)
    if human.shape != metric.shape:
        raise MtevalError(f"human and metric scores differ in length: {human.shape} vs {metric.shape}")
    keep = ~(np.isnan(human) | np.isnan(metric))
    return [human[keep], metric[keep]] + [None if v is None else np.asarray(v)[keep] for v in more]


def _scipy_pearson(h: np.ndarray, m: np.ndarray) -> float:
    """Pearson's r in ``scipy.stats.pearsonr``'s (1.17, numpy 2) order of operations: centred vectors
    scaled by their largest magnitude, normalised, one dot product, clipped; n = 2 gives exactly +-1
    (bit-equal values, tested: Williams' test with r near 1 turns the last bits into digits)."""
    norm = getattr(np.linalg, "vector_norm", lambda x, axis: np.sqrt(np.dot(x, x)))  # numpy < 2: no vector_norm
    dot = getattr(np, "vecdot", np.dot)
    hm, mm = h - h.mean(), m - m.mean()
    hmax, mmax = np.abs(hm).max(), np.abs(mm).max()
    norm_h, norm_m = hmax * norm(hm / hmax, axis=-1), mmax * norm(mm / mmax, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = float(np.clip(dot(hm / norm_h, mm / norm_m), -1.0, 1.0))
    return float(np.round(r)) if len(h) == 2 else r


def pearson(human: np.ndarray, metric: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Pearson's r (weighted when ``weights`` are given: weighted means and covariances)."""
    h, m, w = aligned(human, metric, weights)
    if len(h) < 2 or np.ptp(h) == 0 or np.ptp(m) == 0:  # constant input: undefined, as scipy
        return float("nan")
    if w is None:
        return _scipy_pearson(h, m)
    w = np.asarray(w, dtype=np.float64)
    w = w / w.sum()
    hc, mc = h - w @ h, m - w @ m
    denominator = np.sqrt((w @ (hc * hc)) * (w @ (mc * mc)))
    if denominator == 0:
        return float("nan")
    return float(np.clip((w @ (hc * mc)) / denominator, -1.0, 1.0))


def spearman(human: np.ndarray, metric: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of the average ranks."""
    import scipy.stats  # lazily: it costs 1.5 s of every iqeval start
    h, m = aligned(human, metric)
    return pearson(scipy.stats.rankdata(h), scipy.stats.rankdata(m))


def pair_counts(human: np.ndarray, metric: np.ndarray, thresh: float = 0.0) -> PairCounts:
    """Concordant/discordant/tied pair counts over all unordered pairs (blocked, vectorised).

    With ``thresh > 0`` a pair whose human difference is below ``thresh`` counts as a human tie.
    """
    h, m = aligned(human, metric)
    n = len(h)
    totals = np.zeros(5, dtype=np.int64)
    step = max(1, _PAIR_BLOCK // max(1, n))
    for start in range(0, n, step):
        rows = np.arange(start, min(n, start + step))
        dh = h[rows, None] - h[None, :]
        dm = m[rows, None] - m[None, :]
        upper = np.arange(n)[None, :] > rows[:, None]
        th = (np.abs(dh) < thresh) if thresh > 0 else (dh == 0)
        tm = dm == 0
        totals += [((dh * dm > 0) & ~th & upper).sum(), ((dh * dm < 0) & ~th & upper).sum(),
                   (th & ~tm & upper).sum(), (tm & ~th & upper).sum(), (th & tm & upper).sum()]
    return PairCounts(*map(int, totals))


def kendall(human: np.ndarray, metric: np.ndarray, variant: str = "b") -> float:
    """Kendall's tau-b or tau-c: ``scipy.stats.kendalltau(human, metric, variant=...)`` itself
    (O(n log n); pair counting is kept for the WMT variants, which compare within segments)."""
    import scipy.stats  # lazily: it costs 1.5 s of every iqeval start
    if variant not in ("b", "c"):
        raise MtevalError(f"unknown Kendall variant {variant!r}; use b or c")
    h, m = aligned(human, metric)
    if len(h) < 2 or np.ptp(h) == 0 or np.ptp(m) == 0:
        return float("nan")
    return float(scipy.stats.kendalltau(h, m, variant=variant)[0])


def kendall_from_counts(c: PairCounts, n: int, classes: int, variant: str = "b") -> float:
    """tau-b / tau-c from pair counts (the textbook formulas; tested equal to scipy)."""
    total = c.concordant + c.discordant + c.tie_human + c.tie_metric + c.tie_both
    tie_h, tie_m = c.tie_human + c.tie_both, c.tie_metric + c.tie_both
    if n < 2 or tie_h == total or tie_m == total:
        return float("nan")
    if variant == "b":
        return float((c.concordant - c.discordant) / np.sqrt((total - tie_h) * (total - tie_m)))
    return float(2 * (c.concordant - c.discordant) / (n ** 2 * (classes - 1) / classes))


def wmt_kendall_counts(human: np.ndarray, metric: np.ndarray, thresh: float | None) -> tuple[int, int]:
    """(concordant, discordant) of the WMT Kendall variants: ``thresh=None`` is WMT12 (human ties
    ignored, metric ties discordant), a number is WMT20's "Kendall-like" threshold."""
    c = pair_counts(human, metric, thresh or 0.0)
    return c.concordant, c.discordant + c.tie_metric


def kendall_wmt12(human: np.ndarray, metric: np.ndarray) -> float:
    """WMT12 Kendall's tau: (con - dis) / (con + dis), human ties ignored, metric ties penalised."""
    con, dis = wmt_kendall_counts(human, metric, None)
    return (con - dis) / (con + dis) if con + dis else float("nan")


def kendall_wmt20(human: np.ndarray, metric: np.ndarray, thresh: float = 25.0) -> float:
    """WMT20 "Kendall-like" tau over pairs with |human difference| >= ``thresh``."""
    con, dis = wmt_kendall_counts(human, metric, thresh)
    return (con - dis) / (con + dis) if con + dis else float("nan")


def accuracy_counts(human: np.ndarray, metric: np.ndarray) -> tuple[int, int]:
    """(agreeing pairs, pairs): sign(human diff) == sign(metric diff), ties agree with ties."""
    c = pair_counts(human, metric)
    return c.concordant + c.tie_both, c.concordant + c.discordant + c.tie_human + c.tie_metric + c.tie_both


def pairwise_accuracy(human: np.ndarray, metric: np.ndarray) -> float:
    """Pairwise accuracy (Kocmi et al. 2021), as mt-metrics-eval's ``Agreement``."""
    agree, pairs = accuracy_counts(human, metric)
    return agree / pairs if pairs else float("nan")


def block_pairs(sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays (i, j), i < j, of every pair within each of the consecutive blocks of ``sizes``
    (a vector concatenating several test sets' systems)."""
    starts = np.r_[0, np.cumsum(np.asarray(sizes, dtype=np.int64))][:-1]
    parts = [np.triu_indices(int(n), k=1) for n in sizes]
    first = [start + i for start, (i, _) in zip(starts, parts, strict=True)]
    second = [start + j for start, (_, j) in zip(starts, parts, strict=True)]
    empty = np.zeros(0, dtype=np.int64)
    return np.concatenate([empty, *first]).astype(np.int64), np.concatenate([empty, *second]).astype(np.int64)


def pooled_accuracy_counts(human: np.ndarray, metric: np.ndarray, sizes: Sequence[int]) -> tuple[int, int]:
    """(agreeing pairs, pairs) over the pairs within each block of ``sizes`` (global pairwise accuracy,
    Kocmi et al. 2021: mt-metrics-eval ``CompareMetricsWithGlobalAccuracy``'s sums of ``Agreement``)."""
    h, m = np.ravel(np.asarray(human, dtype=np.float64)), np.ravel(np.asarray(metric, dtype=np.float64))
    if len(h) != len(m) or len(h) != int(np.sum(sizes)):
        raise MtevalError(f"pooled accuracy: vectors of {len(h)} and {len(m)} scores for blocks of {sum(sizes)}")
    i, j = block_pairs(sizes)
    return int(np.sum(np.sign(h[i] - h[j]) == np.sign(m[i] - m[j]))), len(i)


def pooled_accuracy(sizes: Sequence[int]) -> Callable[[np.ndarray, np.ndarray], float]:
    """(human, metric) -> global pairwise accuracy over blocks of ``sizes`` (:func:`pooled_accuracy_counts`;
    NaN without pairs): a statistic for :func:`mteval.meta.stats.significance.permutation_sig_diff`,
    whose arguments are concatenated system vectors (any shape, read flat)."""
    i, j = block_pairs(sizes)
    total = int(np.sum(sizes))

    def statistic(human: np.ndarray, metric: np.ndarray) -> float:
        """Agreeing within-block pairs / within-block pairs."""
        h, m = np.ravel(human), np.ravel(metric)
        if len(h) != total or len(m) != total:
            raise MtevalError(f"pooled accuracy: vectors of {len(h)} and {len(m)} scores for blocks of {total}")
        return int(np.sum(np.sign(h[i] - h[j]) == np.sign(m[i] - m[j]))) / len(i) if len(i) else float("nan")
    return statistic


# name -> statistic of one pair of vectors
STATISTICS: dict[str, Callable[..., float]] = {
    "pearson": pearson,
    "spearman": spearman,
    "kendall": kendall,
    "kendall-c": lambda h, m: kendall(h, m, "c"),
    "kendall-wmt12": kendall_wmt12,
    "kendall-wmt20": kendall_wmt20,
    "accuracy": pairwise_accuracy,
}

# pair-counting statistics: name -> (numerator, denominator), summed over groups (micro average)
_MICRO: dict[str, Callable[..., tuple[int, int]]] = {
    "kendall-wmt12": lambda h, m, **kw: _signed(wmt_kendall_counts(h, m, None)),
    "kendall-wmt20": lambda h, m, thresh=25.0: _signed(wmt_kendall_counts(h, m, thresh)),
    "accuracy": lambda h, m, **kw: accuracy_counts(h, m),
}


def _signed(counts: tuple[int, int]) -> tuple[int, int]:
    """(con, dis) -> (con - dis, con + dis), the tau numerator and denominator."""
    con, dis = counts
    return con - dis, con + dis


def mean_removed(values: np.ndarray, groups: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
    """Each value minus the mean of its group (seed 003), over the positions in ``present``."""
    values = np.asarray(values, dtype=np.float64)
    present = ~np.isnan(values) if present is None else present
    _, inverse = np.unique(np.asarray(groups), return_inverse=True)
    sums = np.bincount(inverse, weights=np.where(present, values, 0.0))
    counts = np.bincount(inverse, weights=present.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return np.where(present, values - means[inverse], np.nan)


def within_group_pairs(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays (i, j), i < j in a stable group order, of every pair inside the same group."""
    order = np.argsort(groups, kind="stable")
    sorted_groups = groups[order]
    n = len(order)
    ends = np.searchsorted(sorted_groups, sorted_groups, side="right")
    partners = ends - np.arange(n) - 1
    first = np.repeat(np.arange(n), partners)
    offsets = np.cumsum(partners) - partners
    second = first + 1 + (np.arange(len(first)) - offsets[first])
    return order[first], order[second]


def grouped_pair_stats(name: str, human: np.ndarray, metric: np.ndarray, groups: np.ndarray,
                       thresh: float = 25.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-group (numerator, denominator) of a pair statistic over within-group pairs, vectorised:
    returns (group ids, numerators, denominators); the statistic is sum(num) / sum(den)."""
    keep = ~(np.isnan(human) | np.isnan(metric))
    h, m, g = np.asarray(human)[keep], np.asarray(metric)[keep], np.asarray(groups)[keep]
    ids, g = np.unique(g, return_inverse=True)
    i, j = within_group_pairs(g)
    dh, dm = h[j] - h[i], m[j] - m[i]
    if name == "accuracy":
        num, den = (np.sign(dh) == np.sign(dm)).astype(float), np.ones(len(i))
    else:
        counted = np.abs(dh) >= thresh if name == "kendall-wmt20" else dh != 0
        concordant = counted & (dh * dm > 0)
        num, den = concordant.astype(float) - (counted & ~concordant), counted.astype(float)
    size = len(ids)
    return ids, np.bincount(g[i], weights=num, minlength=size), np.bincount(g[i], weights=den, minlength=size)


def grouped_kendall_parts(human: np.ndarray, metric: np.ndarray, groups: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Within-group pairs of the points where both vectors are defined, vectorised: (group index of
    each pair into ``np.unique(groups)``, sign of the human difference, i, j) with i, j indices into
    the input vectors; tau-b of a group is sum(sign_h * sign_m) / sqrt(#(sign_h != 0) * #(sign_m != 0))."""
    keep = np.flatnonzero(~(np.isnan(human) | np.isnan(metric)))
    _, inverse = np.unique(np.asarray(groups), return_inverse=True)
    i, j = within_group_pairs(inverse[keep])
    i, j = keep[i], keep[j]
    return inverse[i], np.sign(human[j] - human[i]), i, j


def grouped_kendall_b(sign_h: np.ndarray, sign_m: np.ndarray, pair_group: np.ndarray, size: int) -> np.ndarray:
    """Kendall tau-b of every group from the signs of its pairs' differences (NaN: no untied pair)."""
    s = np.bincount(pair_group, weights=sign_h * sign_m, minlength=size)
    th = np.bincount(pair_group, weights=sign_h != 0, minlength=size)
    tm = np.bincount(pair_group, weights=sign_m != 0, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((th > 0) & (tm > 0), s / np.sqrt(th * tm), np.nan)


def correlate(name: str, human: np.ndarray, metric: np.ndarray, groups: np.ndarray | None = None,
              thresh: float = 25.0) -> float:
    """Statistic ``name`` of two aligned vectors; averaged over ``groups`` when given (see module).
    ``thresh`` is the human-difference threshold of ``kendall-wmt20`` (ignored otherwise)."""
    if name not in STATISTICS:
        raise MtevalError(f"unknown correlation {name!r}; known: {', '.join(STATISTICS)}")

    def one(h: np.ndarray, m: np.ndarray) -> float:
        """The statistic of one (sub)vector pair."""
        return STATISTICS[name](h, m, thresh) if name == "kendall-wmt20" else STATISTICS[name](h, m)

    if groups is None:
        return one(human, metric)
    human, metric, groups = np.asarray(human), np.asarray(metric), np.asarray(groups)
    if name in _MICRO:
        _, num, den = grouped_pair_stats(name, human, metric, groups, thresh)
        return float(num.sum() / den.sum()) if den.sum() else float("nan")
    order = np.argsort(groups, kind="stable")
    parts = np.split(order, np.flatnonzero(np.diff(groups[order])) + 1)
    values = np.asarray([one(human[r], metric[r]) for r in parts])
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else float("nan")
