"""Confidence intervals and significance tests for correlations and for system differences.

* :func:`bootstrap_ci`: percentile bootstrap CI of a correlation, resampling *units* with
  replacement (segments at segment level, so all systems' translations of a segment stay
  together; systems at system level).
* :func:`paired_bootstrap`: metric-vs-metric, the same resamples for both metrics; p-value =
  share of resamples where metric A's correlation is not above metric B's (one-sided).
* :func:`perm_both`: metric-vs-metric PERM-BOTH permutation test (Deutsch et al. 2021), as
  google-research/mt-metrics-eval's ``PermutationSigDiff`` defines it: both metrics' scores are
  z-scored, each position's two metric scores are swapped with probability 1/2, and the p-value
  is the share of permutations whose correlation difference is >= the observed one (one-sided,
  H1: A correlates better than B). No early stopping here (mt-metrics-eval stops blocks early).
* :func:`system_level_ci`: CI of a system-level correlation by resampling segments (each
  resample's system scores are segment means), shifted to the reported value.
* :func:`system_bootstrap`: system-vs-system paired bootstrap (Koehn 2004) for any metric: the
  system score of a resample is the mean of its segment scores, or, for a statistics-based
  metric, ``score_from_stats`` of the summed statistics rows (as sacreBLEU does).

All random draws come from ``numpy.random.default_rng(seed)``; the seed is an argument. The loops
that compute one correlation per resample or permutation show a progress bar (:mod:`mteval.progress`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from mteval import progress
from mteval.errors import MtevalError
from mteval.meta.correlation import correlate, grouped_kendall_b, grouped_kendall_parts, grouped_pair_stats

PAIR_STATISTICS = ("kendall-wmt12", "kendall-wmt20", "accuracy")
_MAX_PAIRS = 20_000_000  # vectorised grouped tau-b above this many within-group pairs: the loop


@dataclass(frozen=True)
class Interval:
    """A point estimate with its (1 - alpha) percentile interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class Comparison:
    """A paired test of A against B: observed difference A - B, its interval, one-sided p-value."""

    delta: float
    low: float
    high: float
    p_value: float


def _unit_rows(units: np.ndarray) -> list[np.ndarray]:
    """Element indices of every resampling unit."""
    order = np.argsort(units, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(units[order])) + 1)


def _resamples(units: np.ndarray, groups: np.ndarray | None, n: int, seed: int,
               label: str = "bootstrap") -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
    """Yield (element indices, group ids) of ``n`` cluster-bootstrap resamples (a progress bar
    ``label`` while they are consumed)."""
    rows = _unit_rows(np.asarray(units))
    sizes = np.asarray([len(r) for r in rows])
    rng = np.random.default_rng(seed)
    with progress.bar(n, label, unit="resample") as shown:
        for _ in range(n):
            draw = rng.integers(0, len(rows), len(rows))
            index = np.concatenate([rows[d] for d in draw])
            new_groups = None
            if groups is not None:  # a unit drawn twice forms two groups
                width = int(np.max(groups)) + 1
                new_groups = np.repeat(np.arange(len(draw)), sizes[draw]) * width + groups[index]
            yield index, new_groups
            shown.update()


def _percentile(values: list[float], alpha: float) -> tuple[float, float]:
    """Percentile interval of the finite draws (NaN, NaN when there are none)."""
    arr = np.asarray(values, dtype=np.float64)
    arr = arr[~np.isnan(arr)]
    if not len(arr):
        return float("nan"), float("nan")
    return float(np.quantile(arr, alpha / 2)), float(np.quantile(arr, 1 - alpha / 2))


def _unit_counts(units: np.ndarray, n: int, seed: int) -> np.ndarray:
    """(n, units) multiplicities of the draws :func:`_resamples` makes (the same generator calls)."""
    size = len(np.unique(units))
    rng = np.random.default_rng(seed)
    return np.stack([np.bincount(rng.integers(0, size, size), minlength=size) for _ in range(n)]) if n else \
        np.zeros((0, size))


def _few_pairs(groups: np.ndarray) -> bool:
    """Whether the within-group pairs are few enough to hold in memory at once."""
    counts = np.unique(np.asarray(groups), return_counts=True)[1]
    return float((counts * (counts - 1) / 2).sum()) <= _MAX_PAIRS


def _group_taus(human: np.ndarray, metric: np.ndarray, groups: np.ndarray) -> np.ndarray | None:
    """Kendall tau-b of every group (in ``np.unique(groups)`` order), or None when too many pairs."""
    if not _few_pairs(groups):
        return None
    human, metric = np.asarray(human, dtype=np.float64), np.asarray(metric, dtype=np.float64)
    pair_group, sign_h, i, j = grouped_kendall_parts(human, metric, groups)
    return grouped_kendall_b(sign_h, np.sign(metric[j] - metric[i]), pair_group, len(np.unique(groups)))


def _weighted_means(counts: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """Per resample, the mean of the defined group taus, each counted as often as it was drawn."""
    finite = ~np.isnan(taus)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts[:, finite] @ taus[finite]) / counts[:, finite].sum(axis=1)


def _fast_kendall(name: str, groups: np.ndarray | None, units: np.ndarray) -> bool:
    """Grouped tau-b resampled by its own groups: computable from per-group taus."""
    return name == "kendall" and groups is not None and np.array_equal(groups, units)


def bootstrap_ci(name: str, human: np.ndarray, metric: np.ndarray, units: np.ndarray,
                 groups: np.ndarray | None = None, n: int = 1000, alpha: float = 0.05,
                 seed: int = 1234, thresh: float = 25.0) -> Interval:
    """Correlation ``name`` with a percentile bootstrap CI over resampled ``units``."""
    value = correlate(name, human, metric, groups, thresh=thresh)
    if name in PAIR_STATISTICS and groups is not None and np.array_equal(groups, units):
        # pairs never cross units: resampling units = resampling their (numerator, denominator)
        _, num, den = grouped_pair_stats(name, human, metric, groups, thresh)
        if not len(num):  # no group has a scored pair
            return Interval(value, float("nan"), float("nan"))
        counts = np.random.default_rng(seed).multinomial(len(num), np.full(len(num), 1 / len(num)), size=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            return Interval(value, *_percentile(list((counts @ num) / (counts @ den)), alpha))
    taus = _group_taus(human, metric, groups) if groups is not None and _fast_kendall(name, groups, units) else None
    if taus is not None:  # the same draws as the loop below, from per-group tau-b
        return Interval(value, *_percentile(list(_weighted_means(_unit_counts(units, n, seed), taus)), alpha))
    draws = [correlate(name, human[i], metric[i], g, thresh=thresh)
             for i, g in _resamples(units, groups, n, seed, f"bootstrap CI {name}")]
    return Interval(value, *_percentile(draws, alpha))


def paired_bootstrap(name: str, human: np.ndarray, metric_a: np.ndarray, metric_b: np.ndarray,
                     units: np.ndarray, groups: np.ndarray | None = None, n: int = 1000,
                     alpha: float = 0.05, seed: int = 1234, thresh: float = 25.0) -> Comparison:
    """Does metric A correlate better than B? Paired bootstrap over ``units``."""
    delta = (correlate(name, human, metric_a, groups, thresh=thresh)
             - correlate(name, human, metric_b, groups, thresh=thresh))
    fast = groups is not None and _fast_kendall(name, groups, units)
    taus_a = _group_taus(human, metric_a, groups) if fast and groups is not None else None
    taus_b = _group_taus(human, metric_b, groups) if fast and groups is not None else None
    if taus_a is not None and taus_b is not None:  # the same draws as the loop
        counts = _unit_counts(units, n, seed)
        deltas = list(_weighted_means(counts, taus_a) - _weighted_means(counts, taus_b))
    else:
        deltas = [correlate(name, human[i], metric_a[i], g, thresh=thresh)
                  - correlate(name, human[i], metric_b[i], g, thresh=thresh)
                  for i, g in _resamples(units, groups, n, seed, f"paired bootstrap {name}")]
    finite = np.asarray(deltas)[~np.isnan(deltas)]
    p = float((finite <= 0).mean()) if len(finite) else float("nan")
    return Comparison(delta, *_percentile(deltas, alpha), p)


def perm_both(name: str, human: np.ndarray, metric_a: np.ndarray, metric_b: np.ndarray,
              groups: np.ndarray | None = None, n: int = 1000, seed: int = 1234,
              thresh: float = 25.0) -> Comparison:
    """PERM-BOTH permutation test (mt-metrics-eval ``PermutationSigDiff``), H1: A better than B."""
    import scipy.stats  # lazily: it costs 1.5 s of every iqeval start
    keep = ~(np.isnan(human) | np.isnan(metric_a) | np.isnan(metric_b))
    h, a, b = human[keep], scipy.stats.zscore(metric_a[keep]), scipy.stats.zscore(metric_b[keep])
    g = None if groups is None else np.asarray(groups)[keep]
    delta = correlate(name, h, a, g, thresh=thresh) - correlate(name, h, b, g, thresh=thresh)
    rng = np.random.default_rng(seed)
    if name == "kendall" and g is not None and _few_pairs(g):
        deltas = _perm_kendall(h, a, b, g, n, rng)
    elif name == "pearson" and g is None:
        swap = rng.integers(0, 2, size=(n, len(h))).astype(bool)
        perm_a, perm_b = np.where(swap, b, a), np.where(swap, a, b)
        deltas = _rowwise_pearson(h, perm_a) - _rowwise_pearson(h, perm_b)
    else:
        deltas = np.empty(n)
        with progress.bar(n, f"PERM-BOTH {name}", unit="permutation") as shown:
            for i in range(n):
                swap = rng.integers(0, 2, size=len(h)).astype(bool)
                deltas[i] = (correlate(name, h, np.where(swap, b, a), g, thresh=thresh)
                             - correlate(name, h, np.where(swap, a, b), g, thresh=thresh))
                shown.update()
    return Comparison(delta, float("nan"), float("nan"), float(np.mean(deltas >= delta)))


def _perm_kendall(h: np.ndarray, a: np.ndarray, b: np.ndarray, groups: np.ndarray, n: int,
                  rng: np.random.Generator) -> np.ndarray:
    """PERM-BOTH differences of grouped tau-b (the loop's draws), from the pairs' difference signs."""
    pair_group, sign_h, i, j = grouped_kendall_parts(h, a, groups)
    size = len(np.unique(groups))
    deltas = np.empty(n)
    with progress.bar(n, "PERM-BOTH kendall", unit="permutation") as shown:
        for k in range(n):
            swap = rng.integers(0, 2, size=len(h)).astype(bool)
            pa, pb = np.where(swap, b, a), np.where(swap, a, b)
            ta = grouped_kendall_b(sign_h, np.sign(pa[j] - pa[i]), pair_group, size)
            tb = grouped_kendall_b(sign_h, np.sign(pb[j] - pb[i]), pair_group, size)
            deltas[k] = _nanmean(ta) - _nanmean(tb)
            shown.update()
    return deltas


def _nanmean(values: np.ndarray) -> float:
    """Mean of the defined values (NaN when none), as ``correlate`` averages groups."""
    finite = values[~np.isnan(values)]
    return float(finite.mean()) if len(finite) else float("nan")


def _rowwise_pearson(human: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Pearson's r of ``human`` with every row of ``rows`` (vectorised)."""
    hc = human - human.mean()
    rc = rows - rows.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rc @ hc) / (np.sqrt((rc * rc).sum(axis=1)) * np.sqrt(hc @ hc))


def system_bootstrap(segments_a: np.ndarray, segments_b: np.ndarray, n: int = 1000,
                     alpha: float = 0.05, seed: int = 1234,
                     score_from_stats: Callable[[np.ndarray], np.ndarray] | None = None) -> Comparison:
    """Paired bootstrap of two systems' scores on the same segments (Koehn 2004).

    ``segments_x`` are segment scores ``(S,)``, or statistics ``(S, n_stats)`` when
    ``score_from_stats`` (vectorised over rows, e.g. ``StatsFamily.scores_from_stats``) is given.
    Returns delta = score(A) - score(B), its CI, and the share of resamples in which the
    observed winner does not win (one-sided p-value).
    """
    a, b = np.asarray(segments_a, dtype=np.float64), np.asarray(segments_b, dtype=np.float64)
    if a.shape != b.shape or not len(a):
        raise MtevalError(f"systems must be scored on the same segments: {a.shape} vs {b.shape}")
    if score_from_stats is None:  # segments either system lacks are left out
        keep = ~(np.isnan(a) | np.isnan(b))
        a, b = a[keep], b[keep]
    counts = np.random.default_rng(seed).multinomial(len(a), np.full(len(a), 1 / len(a)), size=n)
    if score_from_stats is not None:
        full = score_from_stats(np.stack([a.sum(axis=0), b.sum(axis=0)]))
        delta = float(full[0] - full[1])
        deltas = score_from_stats(counts @ a) - score_from_stats(counts @ b)
    else:
        delta = float(a.mean() - b.mean())
        with np.errstate(invalid="ignore", divide="ignore"):
            deltas = (counts @ a - counts @ b) / counts.sum(axis=1)
    losing = deltas <= 0 if delta > 0 else deltas >= 0
    return Comparison(delta, *_percentile(list(deltas), alpha), float(np.mean(losing)))



def system_level_ci(name: str, value: float, human_segments: np.ndarray, metric_segments: np.ndarray,
                    n: int = 1000, alpha: float = 0.05, seed: int = 1234, thresh: float = 25.0,
                    statistic: Callable[[np.ndarray, np.ndarray], float] | None = None) -> Interval:
    """CI of a system-level correlation by resampling *segments* (as WMT does), not systems.

    ``*_segments`` are ``(A, S)`` (NaN = unscored). In each resample every system's score is the
    mean of its resampled segment scores; since the reported ``value`` may use other system scores
    (corpus BLEU, official human scores), the interval is the percentile interval of the resampled
    correlations shifted by ``value - r_mean`` (r_mean: the correlation of the full-sample means).
    ``statistic`` (human, metric) -> float replaces correlation ``name`` (e.g. a WMT23 acc_eq).
    """
    def corr(h: np.ndarray, m: np.ndarray) -> float:
        """The statistic of one pair of system-score vectors."""
        return statistic(h, m) if statistic is not None else correlate(name, h, m, thresh=thresh)

    h = np.asarray(human_segments, dtype=np.float64)
    m = np.asarray(metric_segments, dtype=np.float64)
    counts = np.random.default_rng(seed).multinomial(h.shape[1], np.full(h.shape[1], 1 / h.shape[1]), size=n)

    def means(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Per-system weighted means of the present scores: ``(A, n_weightings)``."""
        present = ~np.isnan(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.where(present, x, 0.0) @ weights.T) / (present @ weights.T)

    full = corr(means(h, np.ones((1, h.shape[1])))[:, 0], means(m, np.ones((1, h.shape[1])))[:, 0])
    hs, ms = means(h, counts), means(m, counts)
    draws = [corr(hs[:, b], ms[:, b]) for b in range(n)]
    low, high = _percentile(draws, alpha)
    return Interval(value, float(np.clip(low + value - full, -1, 1)), float(np.clip(high + value - full, -1, 1)))
