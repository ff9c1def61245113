"""WMT23/24 meta-evaluation statistics, at parity with google-research/mt-metrics-eval.

Scores are ``(systems, items)`` matrices, NaN = missing. ``average_by`` arranges them in *rows*
as mt-metrics-eval's ``_Reshape``: ``none`` one row of everything, ``sys`` one row per system,
``item`` one row per item (the systems' translations of one segment). A pair is two entries of
one row where human and metric scores are both present (mt-metrics-eval drops a pair only for a
missing human score; a missing metric score is an error there, dropped here).

* :func:`kendall_variants`: ``KendallVariants`` 'b', 'c', '23' (tau_eq) and 'acc23' (acc_eq) with
  a metric tie threshold ``epsilon`` (|metric difference| <= epsilon is a tie), Deutsch et al.
  2023, "Ties Matter: Meta-Evaluating Modern Metrics with Pairwise Accuracy and Tie Calibration",
  eqs. for tau_eq = (C + T_hm - D - T_h - T_m) / N and acc_eq = (C + T_hm) / N.
* :func:`tie_calibration`: ``KendallWithTiesOpt`` / ``tau_optimization``: the epsilon maximising
  the row-averaged acc_eq over 0 and every pair's |metric difference| (Deutsch et al. 2023, sec. 5).
  Since tau_eq = 2 acc_eq - 1 in every row, both have the same optimal epsilon. ``search="mtme"``
  replays their float loop (:func:`mtme_search`: bit-equal traces); no pair at all gives NaN.
* :func:`soft_pairwise_accuracy`: WMT24's SPA = 1 - PCE (Thompson et al. 2024, "Improving
  Statistical Significance in Human Evaluation of Automatic Metrics via Soft Pairwise Accuracy"):
  1 - mean over system pairs of |p_human - p_metric|, p from a paired permutation test of the
  segment scores (``pce.compute_pairwise_p_values``, same seeded sign draws, same float32 tie rule;
  ``ties="exact"`` is the exact-arithmetic alternative).
* :func:`williams_test`: Williams' test for two dependent correlations sharing the human variable
  (Williams 1959; Graham & Baldwin 2014), ``WilliamsTest`` / ``WilliamsSigDiff``.
* :func:`average_correlation`: ``AverageCorrelation``: per-row statistic averaged (macro, or micro
  weighted by the row's present entries); rows with < 2 entries and NaN rows skipped (or counted
  as 0 with ``replace_nans_with_zeros``); nothing left gives 0, as theirs.
  :func:`average_correlation_with_p` averages the rows' p-values too (their second return value).
* :func:`pairwise_diff_pearson`: ``Pearson(pdp=True)``, Pearson of the within-row pair differences.
* :func:`acc_eq_draws` and :func:`spa_draws`: bootstrap draws over resampled items/segments,
  vectorised over resamples (the tie threshold is re-optimised in every resample);
  :func:`percentile` turns draws into an interval.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from mteval import progress
from mteval.errors import MtevalError

AVERAGES = ("none", "item", "sys")
VARIANTS = ("b", "c", "23", "acc23")
_CHUNK = 1 << 20  # pairs per block: bounded memory for 'none' over 10,000 segments (5e7 pairs)
LOG = logging.getLogger(__name__)
MAX_SEARCH_PAIRS = 2_000_000  # beyond this the epsilon search samples pairs (see tie_calibration)
TIE_RULES = ("float32", "exact")  # SPA: how a permutation that ties the observed difference counts
_TOL = 1e-12  # values this close to the maximum count as maximal (the smallest epsilon wins)


def rows_of(matrix: ArrayLike, average_by: str) -> np.ndarray:
    """The rows of a ``(systems, items)`` matrix for ``average_by`` (mt-metrics-eval ``_Reshape``)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if average_by == "none":
        return matrix.reshape(1, -1)
    if average_by == "sys":
        return matrix
    if average_by == "item":
        return matrix.T
    raise MtevalError(f"unknown averaging {average_by!r}; use one of {', '.join(AVERAGES)}")


@dataclass(frozen=True)
class Flat:
    """Present (human, metric) entries, sorted by row; ``row`` is the row index of each."""

    human: np.ndarray
    metric: np.ndarray
    row: np.ndarray
    n_rows: int


def flatten(human: ArrayLike, metric: ArrayLike, average_by: str) -> Flat:
    """Rows of both matrices, entries missing in either dropped."""
    h, m = rows_of(human, average_by), rows_of(metric, average_by)
    if h.shape != m.shape:
        raise MtevalError(f"human and metric scores differ in shape: {h.shape} vs {m.shape}")
    keep = ~(np.isnan(h) | np.isnan(m))
    rows = np.broadcast_to(np.arange(h.shape[0])[:, None], h.shape)
    return Flat(h[keep], m[keep], rows[keep], h.shape[0])


def pair_blocks(row: np.ndarray, chunk: int = _CHUNK) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Index arrays (i, j), i < j, of every pair within a row, ``row`` sorted; about ``chunk``
    pairs a block."""
    n = len(row)
    partners = np.searchsorted(row, row, side="right") - np.arange(n) - 1
    cum = np.cumsum(partners)
    start = 0
    while start < n:
        before = int(cum[start] - partners[start])
        stop = max(start + 1, int(np.searchsorted(cum, before + chunk, side="right")))
        first = np.repeat(np.arange(start, stop), partners[start:stop])
        offsets = cum[start:stop] - partners[start:stop] - before
        yield first, first + 1 + (np.arange(len(first)) - offsets[first - start])
        start = stop


def classify(dh: np.ndarray, dm: np.ndarray, epsilon: float = 0.0) -> np.ndarray:
    """Pair classes 0..4: concordant, discordant, tied in human only, metric only, both."""
    tie_h = dh == 0
    tie_m = np.abs(dm) <= epsilon
    con = ~tie_h & ~tie_m & (np.sign(dh) == np.sign(dm))
    out = np.where(con, 0, 1)
    out[tie_h & ~tie_m] = 2
    out[~tie_h & tie_m] = 3
    out[tie_h & tie_m] = 4
    return out


def row_counts(flat: Flat, epsilon: float = 0.0) -> np.ndarray:
    """``(n_rows, 5)`` pair counts per row: C, D, T_h, T_m, T_hm (blocked, bounded memory)."""
    counts = np.zeros((flat.n_rows, 5), dtype=np.int64)
    for i, j in pair_blocks(flat.row):
        cls = classify(flat.human[j] - flat.human[i], flat.metric[j] - flat.metric[i], epsilon)
        counts += np.bincount(flat.row[i] * 5 + cls, minlength=flat.n_rows * 5).reshape(-1, 5)
    return counts


def _classes(values: np.ndarray, row: np.ndarray, n_rows: int) -> np.ndarray:
    """Number of distinct values per row."""
    pairs = np.unique(np.stack([row, values]), axis=1)
    return np.bincount(pairs[0].astype(np.int64), minlength=n_rows)


def variant_values(counts: np.ndarray, variant: str, flat: Flat | None = None) -> np.ndarray:
    """Per-row statistic from pair counts (``KendallVariants``); NaN where undefined."""
    con, dis, th, tm, tb = (counts[:, k].astype(np.float64) for k in range(5))
    total = counts.sum(axis=1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "acc23":
            return np.where(total > 0, (con + tb) / total, np.nan)
        if variant == "23":
            return np.where(total > 0, (con + tb - dis - th - tm) / total, np.nan)
        degenerate = (th + tb == total) | (tm + tb == total)
        if variant == "b":
            value = (con - dis) / np.sqrt(total - tm - tb) / np.sqrt(total - th - tb)  # their order: metric ties first
        elif variant == "c" and flat is not None:
            size = np.bincount(flat.row, minlength=len(counts)).astype(np.float64)
            classes = np.minimum(_classes(flat.human, flat.row, len(counts)),
                                 _classes(flat.metric, flat.row, len(counts))).astype(np.float64)
            value = 2 * (con - dis) / (size ** 2 * (classes - 1) / classes)
        else:
            raise MtevalError(f"unknown Kendall variant {variant!r}; use one of {', '.join(VARIANTS)}")
        return np.where(degenerate, np.nan, value)


def _running_sum(values: np.ndarray) -> float:
    """Sum in row order, one addition after the other (as their ``tot_corr += k * corr`` loop)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def average(values: np.ndarray, sizes: np.ndarray, replace_nans_with_zeros: bool = False,
            weights: np.ndarray | None = None) -> float:
    """mt-metrics-eval ``AverageCorrelation``'s average: rows with < 2 entries skipped, NaN rows
    skipped (or 0 with ``replace_nans_with_zeros``), weighted by ``weights`` (micro) or equally
    (macro), summed in row order as theirs (bit-equal for equal row values); 0.0 when no row is left."""
    usable = sizes >= 2
    values, k = values[usable], (np.ones(usable.sum()) if weights is None else weights[usable])
    if replace_nans_with_zeros:
        values = np.nan_to_num(values, nan=0.0)
    finite = ~np.isnan(values)
    total = _running_sum(k[finite])
    return _running_sum(k[finite] * values[finite]) / total if total else 0.0


@dataclass(frozen=True)
class Averaged:
    """``AverageCorrelation``'s three numbers: the averaged statistic and p-value, and their weight."""

    value: float
    p_value: float
    weight: float


def average_correlation_with_p(statistic: Callable[[np.ndarray, np.ndarray], tuple[float, ...]],
                               human: ArrayLike, metric: ArrayLike, average_by: str = "none",
                               replace_nans_with_zeros: bool = False, macro: bool = True) -> Averaged:
    """``AverageCorrelation.Corr``: a statistic returning (r, p[, weight]) (``scipy.stats.pearsonr``,
    :func:`scipy_statistic`) averaged over rows with its p-values: each row weighted 1 (macro) or by
    its third value, else its entry count (micro); NaN rows skipped, or counted with r = p = 0 when
    ``replace_nans_with_zeros``; rows with < 2 entries skipped; (0, 0, 0) when nothing is left."""
    h, m = rows_of(human, average_by), rows_of(metric, average_by)
    rows = []
    for hr, mr in zip(h, m, strict=True):
        keep = ~(np.isnan(hr) | np.isnan(mr))
        if keep.sum() >= 2:
            ret = statistic(hr[keep], mr[keep])
            weight = 1 if macro else (ret[2] if len(ret) > 2 else int(keep.sum()))
            rows.append((float(ret[0]), float(ret[1]), weight))
    used = [(r, p, k) for r, p, k in rows if not np.isnan(r)]
    n = sum(k for r, p, k in rows if not np.isnan(r) or replace_nans_with_zeros)
    if not n:
        return Averaged(0.0, 0.0, 0.0)
    value = _running_sum(np.array([k * r for r, _, k in used]))
    p_value = _running_sum(np.array([k * p for _, p, k in used]))
    return Averaged(value / n, p_value / n, float(n))


def scipy_statistic(name: str) -> Callable[[np.ndarray, np.ndarray], tuple[float, float]]:
    """(r, p) of ``pearson``, ``spearman``, ``kendall`` (tau-b) or ``kendall-c`` from scipy.stats,
    (NaN, NaN) for a constant vector (``AverageCorrelation``'s rule for Pearson and Spearman)."""
    import warnings

    import scipy.stats  # lazily: it costs 1.5 s of every iqeval start
    functions: dict[str, Callable[..., Any]] = {
        "pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr,
        "kendall": scipy.stats.kendalltau, "kendall-c": lambda h, m: scipy.stats.kendalltau(h, m, variant="c")}
    if name not in functions:
        raise MtevalError(f"no p-value for {name!r}; use one of {', '.join(functions)}")

    def statistic(h: np.ndarray, m: np.ndarray) -> tuple[float, float]:
        """(r, p) of one row."""
        if np.all(h == h[0]) or np.all(m == m[0]):
            return float("nan"), float("nan")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ret = functions[name](h, m)
        return float(ret[0]), float(ret[1])

    return statistic


def pdp_parts(flat: Flat) -> np.ndarray:
    """``(n_rows, 3)``: per row the sums over its pairs of dh * dm, dh^2 and dm^2 (dh, dm: human and
    metric differences), as n * sum((h - mean)(m - mean)) etc. (the pair sums without the pairs)."""
    n = np.bincount(flat.row, minlength=flat.n_rows).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        hc = flat.human - (np.bincount(flat.row, flat.human, flat.n_rows) / n)[flat.row]
        mc = flat.metric - (np.bincount(flat.row, flat.metric, flat.n_rows) / n)[flat.row]
    sums = [np.bincount(flat.row, x, flat.n_rows) for x in (hc * mc, hc * hc, mc * mc)]
    return np.stack(sums, axis=1) * n[:, None]


def pdp_value(parts: np.ndarray) -> float:
    """Pearson of the pooled pair differences from :func:`pdp_parts` (summed over rows), NaN when
    all human or all metric differences are 0. Their difference vectors (every ordered pair, the
    zero diagonal too) have mean 0, so Pearson is sum(dh dm) / sqrt(sum dh^2 sum dm^2)."""
    hm, hh, mm = parts.sum(axis=0)
    return float(np.clip(hm / np.sqrt(hh * mm), -1.0, 1.0)) if hh > 0 and mm > 0 else float("nan")


def pairwise_diff_pearson(human: ArrayLike, metric: ArrayLike, average_by: str = "item") -> float:
    """Pairwise-difference Pearson (PDP; mt-metrics-eval ``Correlation.Pearson(pdp=True)``,
    ``AverageCorrelation(..., pdp=True)``): one Pearson over the differences of every pair of
    entries within a row (``item``: the systems' translations of a segment), pooled over rows, not
    averaged. Over one row (``none``) it equals Pearson. Fewer than 2 columns: an error, as theirs."""
    if rows_of(human, average_by).shape[1] < 2:
        raise MtevalError("pairwise-difference Pearson needs at least 2 entries per row (2 systems at 'item')")
    return pdp_value(pdp_parts(flatten(human, metric, average_by)))


def kendall_variants(human: ArrayLike, metric: ArrayLike, variant: str = "b", epsilon: float = 0.0,
                     average_by: str = "none", replace_nans_with_zeros: bool = False) -> float:
    """``KendallVariants`` averaged over rows (``Correlation.KendallVariants``)."""
    if epsilon < 0:
        raise MtevalError("epsilon must be non-negative")
    if epsilon > 0 and variant == "c":
        raise MtevalError("a non-zero epsilon is not defined for tau-c")
    flat = flatten(human, metric, average_by)
    values = variant_values(row_counts(flat, epsilon), variant, flat)
    return average(values, np.bincount(flat.row, minlength=flat.n_rows), replace_nans_with_zeros)


def average_correlation(statistic: Callable[[np.ndarray, np.ndarray], float], human: ArrayLike,
                        metric: ArrayLike, average_by: str = "none", replace_nans_with_zeros: bool = False,
                        macro: bool = True) -> float:
    """Any vector statistic averaged over rows as ``AverageCorrelation`` does (see :func:`average`)."""
    h, m = rows_of(human, average_by), rows_of(metric, average_by)
    values, sizes = np.empty(len(h)), np.empty(len(h))
    for r, (hr, mr) in enumerate(zip(h, m, strict=True)):
        keep = ~(np.isnan(hr) | np.isnan(mr))
        sizes[r] = keep.sum()
        values[r] = statistic(hr[keep], mr[keep]) if sizes[r] >= 2 else np.nan
    return average(values, sizes, replace_nans_with_zeros, None if macro else sizes)


@dataclass(frozen=True)
class TieCalibration:
    """Result of the epsilon search: the statistic at the best epsilon, and the whole trace."""

    value: float
    epsilon: float
    thresholds: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class Sweep:
    """Pairs sorted by |metric difference|: row, |diff|, change of the row's acc_eq numerator
    when the pair becomes a metric tie (concordant -1, human-tied +1, else 0)."""

    row: np.ndarray
    diff: np.ndarray
    delta: np.ndarray
    agree: np.ndarray  # (n_rows,) C + T_hm at epsilon 0
    pairs: np.ndarray  # (n_rows,) pairs per row


def sweep(flat: Flat, sample_rate: float = 1.0, seed: int = 1234, nonzero_only: bool = False) -> Sweep:
    """The pairs of the epsilon search (``tau_optimization._enumerate_pairs``), sampled at
    ``sample_rate`` (seeded); ``nonzero_only`` keeps only pairs whose tie changes the value."""
    rng = np.random.default_rng(seed)
    rows, diffs, deltas = [], [], []
    agree = np.zeros(flat.n_rows, dtype=np.int64)
    pairs = np.zeros(flat.n_rows, dtype=np.int64)
    for i, j in pair_blocks(flat.row):
        if sample_rate < 1.0:
            keep = rng.random(len(i)) <= sample_rate
            i, j = i[keep], j[keep]
        cls = classify(flat.human[j] - flat.human[i], flat.metric[j] - flat.metric[i])
        row = flat.row[i]
        agree += np.bincount(row, weights=(cls == 0) | (cls == 4), minlength=flat.n_rows).astype(np.int64)
        pairs += np.bincount(row, minlength=flat.n_rows)
        delta = np.where(cls == 0, -1, np.where(cls == 2, 1, 0)).astype(np.int8)
        sel = delta != 0 if nonzero_only else slice(None)
        rows.append(row[sel].astype(np.int32))
        diffs.append(np.abs(flat.metric[j] - flat.metric[i])[sel])
        deltas.append(delta[sel])
    diff_all = np.concatenate(diffs) if diffs else np.zeros(0)
    del diffs
    order = np.argsort(diff_all, kind="stable")
    diff_all = diff_all[order]
    row_all = (np.concatenate(rows) if rows else np.zeros(0, dtype=np.int32))[order]
    delta_all = (np.concatenate(deltas) if deltas else np.zeros(0, dtype=np.int8))[order]
    return Sweep(row_all, diff_all, delta_all, agree, pairs)


def _trace(sw: Sweep) -> tuple[np.ndarray, np.ndarray]:
    """(thresholds, row-averaged acc_eq at each): 0 first, then every distinct |diff|."""
    present = sw.pairs > 0
    n_rows = int(present.sum())
    if not n_rows:
        return np.zeros(1), np.full(1, np.nan)
    base = float((sw.agree[present] / sw.pairs[present]).sum())
    steps = np.cumsum(sw.delta / np.where(present, sw.pairs, 1)[sw.row])
    last = np.flatnonzero(np.r_[sw.diff[1:] != sw.diff[:-1], True]) if len(sw.diff) else np.zeros(0, int)
    thresholds, values = sw.diff[last], base + steps[last]
    if not len(thresholds) or thresholds[0] != 0:
        thresholds, values = np.r_[0.0, thresholds], np.r_[base, values]
    return thresholds, values / n_rows


SEARCHES = ("exact", "mtme")  # tie calibration: exact pair counts, or mt-metrics-eval's float loop


def _no_pairs(average_by: str) -> TieCalibration:
    """The result of a search without a single pair: NaN, with a warning naming the cause."""
    LOG.warning(f"tie calibration: no row (average_by={average_by}) has two entries with human and metric "
                "scores, so acc_eq/tau_eq is undefined: NaN (mt-metrics-eval divides by zero)")
    return TieCalibration(float("nan"), 0.0, np.zeros(1), np.full(1, np.nan))


def tie_calibration(human: ArrayLike, metric: ArrayLike, variant: str = "acc23", average_by: str = "item",
                    sample_rate: float = 1.0, seed: int = 1234, search: str = "exact") -> TieCalibration:
    """acc_eq ('acc23') or tau_eq ('23') at the optimal metric tie threshold (``KendallWithTiesOpt``).

    The search evaluates epsilon = 0 and every pair's |metric difference| (ties introduced for all
    pairs at or below it) and keeps the first maximum, as mt-metrics-eval's ``tau_optimization``.
    ``search="exact"``: one sort and cumulative sum, values within 1e-12 of the maximum count as
    maximal (the smallest epsilon wins); above :data:`MAX_SEARCH_PAIRS` pairs the search samples
    pairs (their ``sample_rate``) and the value is recomputed over all pairs at the chosen epsilon.
    ``search="mtme"``: their loop replayed (:func:`mtme_search`), bit-equal trace, epsilon and value.
    No pair anywhere: NaN with a warning.
    """
    if variant not in ("acc23", "23"):
        raise MtevalError(f"tie calibration supports the variants acc23 and 23, not {variant!r}")
    if not 0 < sample_rate <= 1:
        raise MtevalError(f"sample rate must be in (0, 1], got {sample_rate}")
    if search not in SEARCHES:
        raise MtevalError(f"unknown tie calibration search {search!r}; use one of {', '.join(SEARCHES)}")
    flat = flatten(human, metric, average_by)
    sizes = np.bincount(flat.row, minlength=flat.n_rows)
    n_pairs = int((sizes * (sizes - 1) // 2).sum())
    if not n_pairs:
        return _no_pairs(average_by)
    if search == "mtme":
        return mtme_search(flat, variant, sample_rate, seed) or _no_pairs(average_by)
    rate = min(sample_rate, MAX_SEARCH_PAIRS / n_pairs)
    thresholds, values = _trace(sweep(flat, rate, seed))
    best = int(np.flatnonzero(values >= np.nanmax(values) - _TOL)[0]) if np.isfinite(values).any() else 0
    counts = row_counts(flat, float(thresholds[best]))
    value = average(variant_values(counts, "acc23"), sizes)  # = kendall_variants at that epsilon, bit for bit
    if variant == "23":
        value, values = 2 * value - 1, 2 * values - 1
    return TieCalibration(value, float(thresholds[best]), thresholds, values)


@dataclass(frozen=True)
class _MtmePairs:
    """The pairs of their search in their order (Python lists): row, |metric difference|, change
    of the acc_eq numerator when tied (concordant -1, human-tied +1); numerators at epsilon 0."""

    row: list[int]
    diff: list[float]
    delta: list[int]
    numerator: list[int]  # per row: C + T_hm (acc23) or C + T_hm - D - T_h - T_m (23)
    pairs: list[int]  # per row


def _mtme_pairs(flat: Flat, variant: str, sample_rate: float, seed: int) -> _MtmePairs:
    """Their ``_enumerate_pairs`` (rows, then i < j; sampled with one ``np.random.random()`` per pair
    of a legacy ``RandomState(seed)``), stably sorted by |metric difference| (``pairs.sort``)."""
    blocks = list(pair_blocks(flat.row))
    i = np.concatenate([b[0] for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    j = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    if sample_rate < 1.0:
        keep = np.random.RandomState(seed).random_sample(len(i)) <= sample_rate
        i, j = i[keep], j[keep]
    cls = classify(flat.human[j] - flat.human[i], flat.metric[j] - flat.metric[i])
    counts = np.bincount(flat.row[i] * 5 + cls, minlength=flat.n_rows * 5).reshape(-1, 5)
    con, dis, th, tm, tb = counts.T
    numerator = con + tb if variant == "acc23" else con + tb - dis - th - tm
    diff = np.abs(flat.metric[i] - flat.metric[j])
    order = np.argsort(diff, kind="stable")
    delta = np.where(cls == 0, -1, np.where(cls == 2, 1, 0))[order]
    return _MtmePairs(flat.row[i][order].tolist(), diff[order].tolist(), delta.tolist(), numerator.tolist(),
                      counts.sum(axis=1).tolist())


def mtme_search(flat: Flat, variant: str, sample_rate: float = 1.0, seed: int = 1234) -> TieCalibration | None:
    """mt-metrics-eval's ``tau_optimization`` replayed in its float arithmetic (a Python loop): row
    values numerator / pairs (tau_23's numerator moves twice acc_23's), a running sum started as
    ``sum()`` over their set of rows, updated pair by pair (old value out, new value in), trace value
    sum / rows, first ``nanargmax``. None when no pair is sampled."""
    p = _mtme_pairs(flat, variant, sample_rate, seed)
    if not p.row:
        return None
    num, step = p.numerator, 2 if variant == "23" else 1
    present: set[int] = set()
    for r in range(flat.n_rows):
        if p.pairs[r]:
            present.add(r)  # their set of rows, filled in enumeration order (its iteration order counts)
    value = {r: num[r] / p.pairs[r] for r in sorted(present)}
    total, n_rows = sum(value[r] for r in present), len(present)
    thresholds, taus = [0.0], [total / n_rows]
    for r, diff, delta in zip(p.row, p.diff, p.delta, strict=True):
        total -= value[r]
        num[r] += step * delta
        value[r] = num[r] / p.pairs[r]
        total += value[r]
        if thresholds[-1] == diff:
            taus[-1] = total / n_rows
        else:
            thresholds.append(diff)
            taus.append(total / n_rows)
    best = int(np.nanargmax(taus))
    return TieCalibration(taus[best], thresholds[best], np.asarray(thresholds), np.asarray(taus))


def percentile(draws: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """Percentile interval of the finite draws."""
    finite = draws[np.isfinite(draws)]
    if not len(finite):
        return float("nan"), float("nan")
    return float(np.quantile(finite, alpha / 2)), float(np.quantile(finite, 1 - alpha / 2))


def item_resamples(n_items: int, n: int, seed: int) -> np.ndarray:
    """``(n, n_items)`` multiplicity of every item in ``n`` bootstrap resamples of the items."""
    return np.random.default_rng(seed).multinomial(n_items, np.full(n_items, 1 / n_items), size=n)


def acc_eq_draws(human: np.ndarray, metric: np.ndarray, counts: np.ndarray, variant: str = "acc23",
                 block: int = 32) -> np.ndarray:
    """Item-averaged, tie-calibrated acc_eq / tau_eq of every resample of the items.

    ``counts`` is :func:`item_resamples` (``(B, items)``). A resample's value is the maximum over
    thresholds of sum_r c_r acc_r(eps) / sum_r c_r over items r with pairs: the same value as
    :func:`tie_calibration` on the resampled matrix (an item drawn twice is two rows). Only
    thresholds whose pairs raise some row's value can be a maximum (c_r >= 0 keeps every pair's
    sign), so the pairs are summed per such threshold in one sparse product for all resamples.
    """
    import scipy.sparse  # lazily, as scipy.stats
    sw = sweep(flatten(human, metric, "item"), nonzero_only=True)
    present = sw.pairs > 0
    per_row = np.where(present, sw.pairs, 1)
    c = np.asarray(counts, dtype=np.float64)[:, :len(present)]
    base = c @ np.where(present, sw.agree / per_row, 0.0)
    best = base.copy()
    group = np.r_[0, np.cumsum(sw.diff[1:] != sw.diff[:-1])] if len(sw.diff) else np.zeros(0, int)
    # a threshold can be a maximum only if its group raises some row and the next group lowers one
    # (an all-rising next group is at least as good in every resample: c_r >= 0)
    n_groups = int(group[-1]) + 1 if len(group) else 0
    falls = np.zeros(n_groups + 1, dtype=bool)
    falls[group[sw.delta < 0]] = True
    falls[n_groups] = True
    up = np.unique(group[sw.delta > 0])
    rising = up[falls[up + 1]]
    if len(rising):  # pair -> the first candidate threshold at or after it (later pairs never count)
        segment = np.searchsorted(rising, group)
        keep = segment < len(rising)
        steps = scipy.sparse.csr_matrix(
            ((sw.delta / per_row[sw.row])[keep], (segment[keep], sw.row[keep])), shape=(len(rising), len(present)))
        with progress.bar(len(c), "tie calibration bootstrap", unit="resample") as shown:
            for start in range(0, len(c), block):  # (thresholds, block) at a time: cache-sized
                values = np.asarray(steps @ c[start:start + block].T)
                np.cumsum(values, axis=0, out=values)
                part = slice(start, start + block)
                best[part] = np.maximum(best[part], base[part] + values.max(axis=0))
                shown.update(len(c[part]))
    with np.errstate(invalid="ignore", divide="ignore"):
        draws = best / (c @ present)
    return 2 * draws - 1 if variant == "23" else draws


def tie_calibration_ci(human: np.ndarray, metric: np.ndarray, variant: str = "acc23", average_by: str = "item",
                       n: int = 1000, alpha: float = 0.05, seed: int = 1234) -> tuple[TieCalibration, float, float]:
    """:func:`tie_calibration` with a percentile CI over ``n`` resamples of the items (columns):
    vectorised (:func:`acc_eq_draws`) for ``item``, one search per resample otherwise."""
    result = tie_calibration(human, metric, variant, average_by)
    counts = item_resamples(np.shape(human)[-1], n, seed)
    if average_by == "item":
        draws = acc_eq_draws(human, metric, counts, variant)
    else:
        h, m = np.atleast_2d(human), np.atleast_2d(metric)
        draws = np.empty(len(counts))
        with progress.bar(len(counts), "tie calibration bootstrap", unit="resample") as shown:
            for b, c in enumerate(counts):
                i = np.repeat(np.arange(counts.shape[1]), c)
                draws[b] = tie_calibration(h[:, i], m[:, i], variant, average_by).value
                shown.update()
    return (result, *percentile(draws, alpha))


def _complete(human: np.ndarray, metric: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The segments (columns) every system has both scores for."""
    h, m = np.asarray(human, dtype=np.float64), np.asarray(metric, dtype=np.float64)
    if h.shape != m.shape or h.ndim != 2:
        raise MtevalError(f"soft pairwise accuracy needs (systems, segments) matrices: {h.shape} vs {m.shape}")
    keep = ~(np.isnan(h) | np.isnan(m)).any(axis=0)
    return h[:, keep], m[:, keep]


@functools.lru_cache(maxsize=4)
def permutation_signs(n_segments: int, n_permutations: int = 1000, seed: int = 4) -> np.ndarray:
    """``(P, L)`` float32 signs +-1 of the paired permutation test: the draws of mt-metrics-eval's
    ``pce.compute_pairwise_p_values`` for the same seed (uniform float32, rounded). Cached, read-only
    (a permutation test of SPA asks for the same signs in every draw)."""
    signs = np.random.default_rng(seed).random(size=(n_permutations, n_segments), dtype=np.float32)
    signs = np.rint(signs) * np.float32(2) - np.float32(1)
    signs.flags.writeable = False
    return signs


@functools.lru_cache(maxsize=8)
def _cached_p_values(data: bytes, shape: tuple[int, int], n_permutations: int, seed: int, ties: str) -> np.ndarray:
    """:func:`pairwise_p_values` of a float64 matrix given as bytes (the human side of repeated SPAs)."""
    x = np.frombuffer(data, dtype=np.float64).reshape(shape)
    return pairwise_p_values(x, permutation_signs(shape[1], n_permutations, seed), ties)


def _p_values_float32(x: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """mt-metrics-eval's test of ``(M, systems, segments)`` matrices (``pce.compute_pairwise_p_values``):
    in float32, partial = signs @ scores.T (one BLAS product for all M), sums = scores.sum(axis=-1)
    (numpy's pairwise sum), and a permutation counts when partial_i - partial_j >= sums_i - sums_j.
    ``(M, pairs)``."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    n_mat, n_sys, n_seg = x.shape
    sums = x.sum(axis=-1)
    partial = np.ascontiguousarray(np.matmul(signs, x.reshape(-1, n_seg).T).T).reshape(n_mat, n_sys, len(signs))
    observed = sums[:, :, None] - sums[:, None, :]  # (M, i, j): sum_i - sum_j in float32
    counts = [np.count_nonzero(partial[:, i:i + 1] - partial[:, i + 1:] >= observed[:, i, i + 1:, None], axis=-1)
              for i in range(n_sys - 1)]
    return np.concatenate(counts, axis=-1) / len(signs) if counts else np.zeros((n_mat, 0))


def decimal_integers(x: np.ndarray, decimals: int = 9) -> np.ndarray:
    """The scores rounded to ``decimals`` places, as integers (units of 10^-decimals): int64 where
    no sum of a row can overflow, else Python integers (exact, slower)."""
    scaled = np.round(np.asarray(x, dtype=np.float64) * 10.0 ** decimals)
    if np.abs(scaled).max(initial=0.0) * max(1, np.shape(x)[-1]) < 2.0 ** 62:
        return scaled.astype(np.int64)
    return np.vectorize(int, otypes=[object])(scaled)


def _p_values_exact(x: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """The same test in exact arithmetic on the scores rounded to 9 decimals (:func:`decimal_integers`;
    MQM's 0.1 * 3 = 0.30000000000000004 is 0.3): partial_i - partial_j >= sums_i - sums_j exactly
    when the flipped segments' sum of x_i - x_j is <= 0. ``(M, pairs)``."""
    scores = decimal_integers(x)
    n_mat, n_sys, n_seg = scores.shape
    flipped = np.matmul((signs < 0).astype(scores.dtype), scores.reshape(-1, n_seg).T).reshape(-1, n_mat, n_sys)
    i, j = np.triu_indices(n_sys, 1)
    return np.count_nonzero(flipped[:, :, i] - flipped[:, :, j] <= 0, axis=0) / len(signs)


def pairwise_p_values(scores: np.ndarray, signs: np.ndarray, ties: str = "float32",
                      stacked: bool = False) -> np.ndarray:
    """p-values of "system i > system j" for every pair i < j (upper triangle, row by row; last axis).

    ``scores`` is ``(..., systems, segments)``; p = share of permutations whose difference of summed
    signed scores is >= the observed difference of sums. ``ties`` decides a permutation that ties
    the observed difference exactly (the identity always does; with decimal scores such as MQM's
    0.1 weights many do): ``float32`` computes as mt-metrics-eval (:func:`_p_values_float32`; bit
    for bit its values, where float32 rounding decides such ties), ``exact`` in integer arithmetic
    on the scores rounded to 9 decimals (a tie counts, :func:`_p_values_exact`). Each matrix is its
    own BLAS product, as theirs: a product's float32 rounding depends on its shape, so one product
    for all matrices (``stacked``, 20x faster for 31 matrices) may decide float32 ties otherwise.
    """
    if ties not in TIE_RULES:
        raise MtevalError(f"unknown tie rule {ties!r}; use one of {', '.join(TIE_RULES)}")
    x = np.asarray(scores)
    lead, (n_sys, n_seg) = x.shape[:-2], x.shape[-2:]
    one = _p_values_float32 if ties == "float32" else _p_values_exact
    flat = x.reshape((-1, n_sys, n_seg))
    if stacked or len(flat) == 1:
        out = one(flat, signs)
    else:
        out = np.concatenate([one(m[None], signs) for m in flat]) if len(flat) else np.zeros((0, 0))
    return out.reshape(lead + (n_sys * (n_sys - 1) // 2,))


def soft_pairwise_accuracy(human: np.ndarray, metric: np.ndarray, n_permutations: int = 1000,
                           seed: int = 4, ties: str = "float32") -> float:
    """SPA = 1 - PCE (Thompson et al. 2024; WMT24): ``(systems, segments)`` matrices, segments any
    system lacks dropped; NaN with fewer than 2 systems or no complete segment. ``ties``: see
    :func:`pairwise_p_values` (the default reproduces mt-metrics-eval's ``PairwiseConfidenceError``)."""
    h, m = _complete(human, metric)
    if h.shape[0] < 2 or not h.shape[1]:
        return float("nan")
    signs = permutation_signs(h.shape[1], n_permutations, seed)
    p_human = _cached_p_values(np.ascontiguousarray(h).tobytes(), h.shape, n_permutations, seed, ties)
    return float(1.0 - np.abs(p_human - pairwise_p_values(m, signs, ties)).mean())


def spa_draws(human: np.ndarray, metrics: np.ndarray, n: int = 1000, seed: int = 1234,
              n_permutations: int = 1000, perm_seed: int = 4, ties: str = "float32") -> np.ndarray:
    """``(n, M)`` SPA of every metric of ``metrics`` (``(M, systems, segments)``) in ``n`` resamples
    of the complete segments; each resample reuses the permutation signs, as a call of
    mt-metrics-eval's PCE on the resampled matrix does (its seed is fixed). One product per
    resample for human and metrics (``stacked``): float32 ties may fall otherwise than in
    :func:`soft_pairwise_accuracy` of the resample (never with ``ties="exact"``)."""
    metrics = np.asarray(metrics, dtype=np.float64)
    keep = ~(np.isnan(human) | np.isnan(metrics).any(axis=0)).any(axis=0)
    stack = np.concatenate([np.asarray(human)[None], metrics])[:, :, keep]
    if ties == "float32":  # converted once (the test converts to float32 anyway)
        stack = stack.astype(np.float32)
    n_seg = stack.shape[2]
    if stack.shape[1] < 2 or not n_seg:
        return np.full((n, len(metrics)), np.nan)
    signs = permutation_signs(n_seg, n_permutations, perm_seed)
    rng = np.random.default_rng(seed)
    draws = np.empty((n, len(metrics)))
    with progress.bar(n, "SPA bootstrap", unit="resample") as shown:
        for b in range(n):
            p = pairwise_p_values(stack[:, :, rng.integers(0, n_seg, n_seg)], signs, ties, stacked=True)
            draws[b] = 1.0 - np.abs(p[1:] - p[0]).mean(axis=1)
            shown.update()
    return draws


def williams_test(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """Williams' test p-value that r12 and r13 differ, given r23 and n (``WilliamsTest``;
    Graham & Baldwin 2014, eq. 1): t = (r12 - r13) sqrt((n-1)(1+r23)) /
    sqrt(2 (n-1)/(n-3) |R| + rbar^2 (1-r23)^3), |R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23,
    in their order of operations (bit-equal p-values for the same r). Equal correlations (two
    identical metrics: r23 = 1 and the denominator 0 in exact arithmetic) give t = 0, p = 0.5
    (two-sided 1): theirs gives 0.5 where rounding leaves |R| > 0 and NaN where it does not."""
    import scipy.stats  # lazily: it costs 1.5 s of every iqeval start
    if n <= 3:
        return float("nan")
    if r12 == r13:
        return 0.5 if one_sided else 1.0
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    tnum = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    with np.errstate(invalid="ignore", divide="ignore"):
        tden = np.sqrt(2 * (n - 1) / (n - 3) * k + rbar ** 2 * (1 - r23) ** 3)
        p = float(scipy.stats.t.sf(np.abs(tnum / tden), n - 3))
    return p if one_sided else 2 * p


def williams(human: np.ndarray, metric_a: np.ndarray, metric_b: np.ndarray,
             statistic: Callable[[np.ndarray, np.ndarray], float], n: int | None = None,
             one_sided: bool = True) -> tuple[float, float, float]:
    """``WilliamsSigDiff``: (p, r(human, A), r(human, B)) with r(A, B) from the same ``statistic``;
    ``n`` defaults to ``len(human)``, missing human scores included, as theirs."""
    r1, r2 = statistic(human, metric_a), statistic(human, metric_b)
    r12 = statistic(metric_a, metric_b)
    return williams_test(r1, r2, r12, len(np.ravel(human)) if n is None else n, one_sided), r1, r2
