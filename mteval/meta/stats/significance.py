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
* :func:`permutation_sig_diff` and :func:`pairwise_permutation_sig_diff`: mt-metrics-eval's
  ``PermutationSigDiff`` (PERM-BOTH on ``(systems, items)`` matrices, for the WMT statistics too:
  acc_eq/tau_eq re-calibrated per draw, SPA) and ``PairwisePermutationSigDiff`` (pair comparisons
  swapped; WMT23/24's segment-level test of acc_eq), with their early stopping (:class:`EarlyStop`)
  and, with ``stream="mtme"``, their random draws: equal p-values, deltas and draws (tested).
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
from mteval.meta.stats import wmt_stats
from mteval.meta.stats.correlation import (
    correlate,
    grouped_kendall_b,
    grouped_kendall_parts,
    grouped_pair_stats,
    pearson,
)

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
    sizes = np.asarray([len(r) for r in rows], dtype=np.intp)
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
        return paired_from_draws(delta, _weighted_means(counts, taus_a), _weighted_means(counts, taus_b), alpha)
    return paired_from_draws(delta, bootstrap_draws(name, human, metric_a, units, groups, n, seed, thresh),
                             bootstrap_draws(name, human, metric_b, units, groups, n, seed, thresh), alpha)


def bootstrap_draws(name: str, human: np.ndarray, metric: np.ndarray, units: np.ndarray,
                    groups: np.ndarray | None = None, n: int = 1000, seed: int = 1234,
                    thresh: float = 25.0) -> np.ndarray:
    """The statistic in each of the ``n`` resamples of ``units`` drawn from ``seed``: one metric's
    side of :func:`paired_bootstrap` (every metric drawn from one seed sees the same resamples, so the
    draws of several metrics can be computed once and paired in any way)."""
    return np.asarray([correlate(name, human[i], metric[i], g, thresh=thresh)
                       for i, g in _resamples(units, groups, n, seed, f"paired bootstrap {name}")], dtype=np.float64)


def draws_per_metric(name: str, groups: np.ndarray | None, units: np.ndarray) -> bool:
    """Whether :func:`paired_bootstrap` pairs :func:`bootstrap_draws` (not the per-group tau path)."""
    return not (groups is not None and _fast_kendall(name, groups, units))


def paired_from_draws(delta: float, draws_a: np.ndarray, draws_b: np.ndarray, alpha: float = 0.05) -> Comparison:
    """:func:`paired_bootstrap`'s result from both metrics' draws on the same resamples: the interval
    of the differences and the share of finite differences <= 0 (A not better)."""
    deltas = np.asarray(draws_a) - np.asarray(draws_b)
    finite = deltas[~np.isnan(deltas)]
    p = float((finite <= 0).mean()) if len(finite) else float("nan")
    return Comparison(delta, *_percentile(list(deltas), alpha), p)


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
        deltas = _perm_pearson(h, a, b, n, rng)
    else:
        deltas = np.empty(n)
        with progress.bar(n, f"PERM-BOTH {name}", unit="permutation") as shown:
            for i in range(n):
                swap = rng.integers(0, 2, size=len(h)).astype(bool)
                deltas[i] = (correlate(name, h, np.where(swap, b, a), g, thresh=thresh)
                             - correlate(name, h, np.where(swap, a, b), g, thresh=thresh))
                shown.update()
    p_value = float("nan") if np.isnan(delta) else float(np.mean(deltas >= delta))  # NaN >= x is False: not 0
    return Comparison(delta, float("nan"), float("nan"), p_value)


PERM_CHUNK = 2_000_000  # swap entries drawn at once by the vectorised Pearson PERM-BOTH (memory, cache)


def _perm_pearson(h: np.ndarray, a: np.ndarray, b: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """PERM-BOTH differences of Pearson, ``n`` permutations in row blocks of about :data:`PERM_CHUNK`
    entries (the same draws as one ``(n, len(h))`` block: the generator's stream is consumed in
    order; 2.6x faster at 1,000 x 10,000 than one block)."""
    rows = max(1, PERM_CHUNK // max(1, len(h)))
    deltas = np.empty(n)
    for start in range(0, n, rows):
        swap = rng.integers(0, 2, size=(min(rows, n - start), len(h))).astype(bool)
        perm_a, perm_b = np.where(swap, b, a), np.where(swap, a, b)
        deltas[start:start + len(swap)] = _rowwise_pearson(h, perm_a) - _rowwise_pearson(h, perm_b)
    return deltas


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
    """Pearson's r of ``human`` with every row of ``rows`` (vectorised; row sums, not a matrix product,
    so that a row's value does not depend on how many rows are computed with it)."""
    hc = human - human.mean()
    rc = rows - rows.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rc * hc).sum(axis=1) / (np.sqrt((rc * rc).sum(axis=1)) * np.sqrt(hc @ hc))


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


# ---- mt-metrics-eval's permutation tests on (systems, items) matrices (stats.PermutationSigDiff,
# ---- stats.PairwisePermutationSigDiff), with their early stopping and, optionally, their random stream

STREAMS = ("numpy", "mtme")  # default_rng(seed), or np.random.RandomState(seed) drawn as theirs
MATRIX_STATISTICS = ("pearson", "spearman", "kendall", "kendall-c", "acc23", "23", "b", "acc_eq", "tau_eq", "spa")


@dataclass(frozen=True)
class EarlyStop:
    """mt-metrics-eval ``PermutationSigDiffParams``: after every ``block_size`` draws, stop when the
    running p-value is below ``early_min`` or above ``early_max``. Their default block (1000 =
    their default k) never stops early; WMT23/24's tasks use :data:`WMT_EARLY_STOP`."""

    block_size: int = 1000
    early_min: float = 0.02
    early_max: float = 0.5

    def stops(self, draws: int, hits: int) -> bool:
        """Whether to stop after ``draws`` draws of which ``hits`` were at least the observed delta."""
        return draws % self.block_size == 0 and not self.early_min <= hits / draws <= self.early_max


NO_EARLY_STOP = EarlyStop(1 << 62)
WMT_EARLY_STOP = EarlyStop(100, 0.02, 0.5)  # tasks.Task's block_size, early_min, early_max


@dataclass(frozen=True)
class Permutation:
    """A permutation test of A against B: one-sided p (H1: A better than B), delta = stat(A) - stat(B),
    and the draws actually made, ``(k_used, 2)`` = (stat of permuted A, stat of permuted B)."""

    p_value: float
    delta: float
    draws: np.ndarray


def _run(delta: float, draw: Callable[[], tuple[float, float]], k: int, early: EarlyStop, label: str) -> Permutation:
    """Their loop: count draws with stat(A*) - stat(B*) >= delta, stop early at block boundaries."""
    draws: list[tuple[float, float]] = []
    hits = 0
    with progress.bar(k, label, unit="permutation") as shown:
        for i in range(1, k + 1):
            a, b = draw()
            draws.append((a, b))
            hits += a - b >= delta
            shown.update()
            if early.stops(i, hits):
                break
    return Permutation(hits / len(draws) if draws else float("nan"), delta, np.asarray(draws).reshape(-1, 2))


def _coins(stream: str, seed: int) -> Callable[[int | tuple[int, int]], np.ndarray]:
    """Fair 0/1 draws of a shape: ``numpy`` from ``default_rng(seed)``, ``mtme`` as their
    ``np.random.binomial(1, 0.5, shape)`` after ``np.random.seed(seed)``."""
    if stream not in STREAMS:
        raise MtevalError(f"unknown random stream {stream!r}; use one of {', '.join(STREAMS)}")
    if stream == "mtme":
        legacy = np.random.RandomState(seed)
        return lambda shape: legacy.binomial(1, 0.5, shape).astype(bool)
    rng = np.random.default_rng(seed)
    return lambda shape: rng.integers(0, 2, shape).astype(bool)


def _row_average(values: np.ndarray, replace_nans_with_zeros: bool) -> float:
    """Their ``_Corr`` average of row values: NaN rows dropped (or 0), ``np.average``, 0 if none."""
    values = np.nan_to_num(values, nan=0.0) if replace_nans_with_zeros else values[~np.isnan(values)]
    return float(np.average(values)) if len(values) else 0.0


def matrix_statistic(name: str, average_by: str = "none", epsilon: float = 0.0, replace_nans_with_zeros: bool = False,
                     search: str = "exact") -> Callable[[np.ndarray, np.ndarray], float]:
    """(human, metric) ``(systems, items)`` -> the statistic their ``PermutationSigDiff`` computes:
    a per-row correlation averaged over rows (``pearson``, ``spearman``, ``kendall``, ``kendall-c``;
    KendallVariants ``acc23``, ``23``, ``b`` at ``epsilon``), or the tie-calibrated ``acc_eq``/``tau_eq``
    (``KendallWithTiesOpt``, re-calibrated on every call) or ``spa`` (PCE), which average themselves."""
    if name not in MATRIX_STATISTICS:
        raise MtevalError(f"unknown statistic {name!r}; use one of {', '.join(MATRIX_STATISTICS)}")
    if name in ("acc_eq", "tau_eq"):
        variant = "acc23" if name == "acc_eq" else "23"
        return lambda h, m: wmt_stats.tie_calibration(h, m, variant, average_by, search=search).value
    if name == "spa":
        return lambda h, m: wmt_stats.soft_pairwise_accuracy(h, m)
    if name in ("acc23", "23", "b"):
        def variants(h: np.ndarray, m: np.ndarray) -> float:
            """KendallVariants of every row with two or more entries, averaged."""
            flat = wmt_stats.flatten(h, m, average_by)
            values = wmt_stats.variant_values(wmt_stats.row_counts(flat, epsilon), name)
            return _row_average(values[np.bincount(flat.row, minlength=flat.n_rows) >= 2], replace_nans_with_zeros)
        return variants
    one = pearson if name == "pearson" else (lambda h, m: wmt_stats.scipy_statistic(name)(h, m)[0])

    def per_row(h: np.ndarray, m: np.ndarray) -> float:
        """The vector statistic of every row with two or more entries, averaged."""
        rows = zip(wmt_stats.rows_of(h, average_by), wmt_stats.rows_of(m, average_by), strict=True)
        values = [one(hr[k], mr[k]) for hr, mr in rows for k in [~(np.isnan(hr) | np.isnan(mr))] if k.sum() >= 2]
        return _row_average(np.asarray(values, dtype=np.float64), replace_nans_with_zeros)
    return per_row


def _coin_order(human: np.ndarray, a: np.ndarray, b: np.ndarray, average_by: str, everything: bool) -> np.ndarray:
    """Flat indices into the ``(systems, items)`` matrices of the entries that get a coin, in their
    order: the rows of ``average_by`` with a human score (``_ReshapeAndFilter``), or every entry in
    system-major order (``everything``: their ``KendallWithTiesOpt`` case)."""
    present = ~(np.isnan(a) | np.isnan(b))
    if everything:
        return np.flatnonzero(present)
    index = np.arange(human.size).reshape(human.shape)
    rows = wmt_stats.rows_of(index, average_by).astype(np.int64)
    keep = wmt_stats.rows_of(present & ~np.isnan(human), average_by).astype(bool)
    return rows[keep]


def permutation_sig_diff(name: str, human: np.ndarray, metric_a: np.ndarray, metric_b: np.ndarray,
                         average_by: str = "none", k: int = 1000, early: EarlyStop = NO_EARLY_STOP,
                         seed: int = 1234, stream: str = "numpy", epsilon: float = 0.0,
                         replace_nans_with_zeros: bool = False, search: str = "exact",
                         statistic: Callable[[np.ndarray, np.ndarray], float] | None = None) -> Permutation:
    """PERM-BOTH on ``(systems, items)`` matrices (Deutsch et al. 2021; mt-metrics-eval
    ``PermutationSigDiff(corr_b, corr_a, ...)``, whose p is for its second metric): both metrics
    z-scored over the entries with a human score (every entry for ``acc_eq``/``tau_eq``, as theirs),
    each entry's two scores swapped with probability 1/2, p = share of draws with
    stat(A*) - stat(B*) >= stat(A) - stat(B); :func:`matrix_statistic` ``name``; ``early`` stopping.
    ``stream="mtme"`` draws their coins (equal p-values and draws after ``np.random.seed(seed)``).
    ``statistic`` (human, metric) -> float, given, replaces ``name``'s (which then only labels the
    progress bar): e.g. :func:`mteval.meta.stats.correlation.pooled_accuracy`, their ``corr_fcn``."""
    import scipy.stats  # lazily: it costs 1.5 s of every iqeval start
    h, a, b = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (human, metric_a, metric_b))
    if statistic is None:
        statistic = matrix_statistic(name, average_by, epsilon, replace_nans_with_zeros, search)
    order = _coin_order(h, a, b, average_by, name in ("acc_eq", "tau_eq"))
    flat_a, flat_b = np.full(h.size, np.nan), np.full(h.size, np.nan)
    flat_a[order], flat_b[order] = scipy.stats.zscore(a.ravel()[order]), scipy.stats.zscore(b.ravel()[order])
    za, zb = flat_a.reshape(h.shape), flat_b.reshape(h.shape)
    delta = statistic(h, za) - statistic(h, zb)
    coins = _coins(stream, seed)

    def draw() -> tuple[float, float]:
        """One permutation: A keeps its score where the coin is 1."""
        flat_keep = np.zeros(h.size, dtype=bool)
        flat_keep[order] = coins(len(order))
        keep = flat_keep.reshape(h.shape)
        return statistic(h, np.where(keep, za, zb)), statistic(h, np.where(keep, zb, za))

    return _run(delta, draw, k, early, f"PERM-BOTH {name}")


@dataclass(frozen=True)
class _PairClasses:
    """The pairs of every row (rows with an entry, in order): their class under A and under B
    (0..4, as ``wmt_stats.classify``), row of each, and the row sizes."""

    row: np.ndarray
    class_a: np.ndarray
    class_b: np.ndarray
    sizes: np.ndarray  # entries per row (rows with at least one entry)
    first: np.ndarray  # position of each pair's first entry within its row
    second: np.ndarray


def _pair_classes(human: np.ndarray, a: np.ndarray, b: np.ndarray, average_by: str, eps_a: float,
                  eps_b: float) -> _PairClasses:
    """Within-row pairs of the entries with all three scores (their ``_ReshapeAndFilter`` rows)."""
    both = np.where(np.isnan(b), np.nan, a)
    flat_a = wmt_stats.flatten(human, both, average_by)
    flat_b = wmt_stats.flatten(human, np.where(np.isnan(a), np.nan, b), average_by)
    _, row, sizes = np.unique(flat_a.row, return_inverse=True, return_counts=True)
    blocks = list(wmt_stats.pair_blocks(row)) or [(np.zeros(0, np.int64), np.zeros(0, np.int64))]
    i, j = np.concatenate([x for x, _ in blocks]), np.concatenate([y for _, y in blocks])
    dh = flat_a.human[j] - flat_a.human[i]
    starts = np.r_[0, np.cumsum(sizes)][row[i]]
    return _PairClasses(row[i], wmt_stats.classify(dh, flat_a.metric[j] - flat_a.metric[i], eps_a),
                        wmt_stats.classify(dh, flat_b.metric[j] - flat_b.metric[i], eps_b), sizes,
                        i - starts, j - starts)


def _pair_draws(pc: _PairClasses, stream: str, seed: int) -> Callable[[], np.ndarray]:
    """Per draw, whether A keeps each pair: ``numpy`` one coin per pair; ``mtme`` their
    ``np.triu(np.random.binomial(1, 0.5, (n, n)))`` per row of n entries (entry [i, j] for pair i < j)."""
    coins = _coins(stream, seed)
    if stream == "numpy":
        return lambda: coins(len(pc.row))
    offsets = np.r_[0, np.cumsum(pc.sizes ** 2)][pc.row] + pc.first * pc.sizes[pc.row] + pc.second

    def legacy() -> np.ndarray:
        """Their draws, row after row, read at each pair's upper-triangle entry."""
        return np.concatenate([coins((n, n)).ravel() for n in pc.sizes])[offsets] if len(pc.sizes) else \
            np.zeros(0, dtype=bool)
    return legacy


def _epsilon(human: np.ndarray, metric: np.ndarray, given: float | None, variant: str, average_by: str,
             sample_rate: float, seed: int, search: str) -> float:
    """The given epsilon, else the metric's calibrated one (acc23 and 23 only, as theirs)."""
    if given is not None:
        return given
    if variant == "b":
        raise MtevalError("tau-b has no calibrated epsilon: give epsilon_a and epsilon_b")
    return wmt_stats.tie_calibration(human, metric, variant, average_by, sample_rate, seed, search).epsilon


def pairwise_permutation_sig_diff(human: np.ndarray, metric_a: np.ndarray, metric_b: np.ndarray,
                                  variant: str = "acc23", average_by: str = "item", k: int = 1000,
                                  early: EarlyStop = NO_EARLY_STOP, epsilon_a: float | None = None,
                                  epsilon_b: float | None = None, seed: int = 1234, stream: str = "numpy",
                                  replace_nans_with_zeros: bool = False, search: str = "exact",
                                  sample_rate: float = 1.0) -> Permutation:
    """mt-metrics-eval ``PairwisePermutationSigDiff(corr_b, corr_a, ...)`` (WMT23/24's segment-level
    test of acc_eq): pair *comparisons*, not scores, are swapped: each within-row pair takes its
    class under A or under B (A at ``epsilon_a``, B at ``epsilon_b``; None: each metric's tie-calibrated
    epsilon), so metrics with different thresholds compare without re-calibration. KendallVariants
    ``variant`` (acc23, 23, b) per row, rows averaged; p = share of draws with stat(A*) - stat(B*) >=
    stat(A) - stat(B). ``early``: stops at block boundaries (theirs checks only after a draw that
    counts, see docs/meta-evaluation.md). ``stream="mtme"``: their coins. ``sample_rate``: of the
    calibrations (:func:`wmt_stats.tie_calibration`, seeded; theirs draws it from the coins' global
    stream, so below 1 their draws are not reproduced)."""
    if variant not in ("acc23", "23", "b"):
        raise MtevalError(f"the pairwise permutation test supports acc23, 23 and b, not {variant!r}")
    h, a, b = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (human, metric_a, metric_b))
    eps_a, eps_b = (_epsilon(h, m, given, variant, average_by, sample_rate, seed, search)
                    for m, given in ((a, epsilon_a), (b, epsilon_b)))
    if eps_a < 0 or eps_b < 0:
        raise MtevalError("epsilon must be non-negative")
    pc = _pair_classes(h, a, b, average_by, eps_a, eps_b)
    used = pc.sizes >= 2

    def stat(classes: np.ndarray) -> float:
        """Rows' KendallVariants from the pairs' classes, averaged as their ``_Corr``."""
        counts = np.bincount(pc.row * 5 + classes, minlength=len(pc.sizes) * 5).reshape(-1, 5)
        return _row_average(wmt_stats.variant_values(counts, variant)[used], replace_nans_with_zeros)

    delta = stat(pc.class_a) - stat(pc.class_b)
    keeps = _pair_draws(pc, stream, seed)

    def draw() -> tuple[float, float]:
        """One permutation of the pairs' comparisons."""
        keep = keeps()
        return stat(np.where(keep, pc.class_a, pc.class_b)), stat(np.where(keep, pc.class_b, pc.class_a))

    return _run(delta, draw, k, early, f"pairwise permutation {variant}")
