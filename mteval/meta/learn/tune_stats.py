"""Test-fold statistics of a learned metric and paired bootstrap CIs of its differences.

Three statistics, as the WMT metrics tasks report them:

* ``tau_b``: segment-level Kendall τb within each source line (the translations of one item by
  all systems), averaged over lines (mt-metrics-eval ``avg_by='item'``; equal to
  :func:`mteval.meta.stats.correlation.correlate` ``("kendall", ..., groups=items)``, vectorised with
  the pair counts of :mod:`mteval.meta.stats.wmt_stats`);
* ``segment_r``: Pearson's r of all points pooled;
* ``system_r``: Pearson's r of the systems' mean scores.

:func:`paired_differences` resamples units (source lines, or documents) with replacement, the
same draws for both metrics (Koehn 2004's paired bootstrap), vectorised over resamples: every
statistic is a function of per-unit sums, so a resample is a count vector times a sum matrix.
"""

from __future__ import annotations

import numpy as np

from mteval.meta.stats.correlation import pearson
from mteval.meta.stats.significance import Comparison
from mteval.meta.stats.wmt_stats import Flat, row_counts, variant_values

STATISTICS = ("tau_b", "segment_r", "system_r")


def item_kendall(human: np.ndarray, metric: np.ndarray, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(item ids, τb of each item); NaN for an item with < 2 points or a constant side."""
    ids, codes = np.unique(np.asarray(items), return_inverse=True)
    order = np.argsort(codes, kind="stable")
    flat = Flat(np.asarray(human, float)[order], np.asarray(metric, float)[order], codes[order], len(ids))
    return ids, variant_values(row_counts(flat), "b")


def grouped_kendall(human: np.ndarray, metric: np.ndarray, items: np.ndarray) -> float:
    """Mean τb over source lines (NaN lines skipped; NaN when none is defined)."""
    values = item_kendall(human, metric, items)[1]
    finite = values[~np.isnan(values)]
    return float(finite.mean()) if len(finite) else float("nan")


def system_means(values: np.ndarray, systems: np.ndarray) -> np.ndarray:
    """Mean of the points of every system (system index order)."""
    ids, codes = np.unique(np.asarray(systems), return_inverse=True)
    return np.bincount(codes, weights=values) / np.bincount(codes)


def statistics(human: np.ndarray, metric: np.ndarray, items: np.ndarray, systems: np.ndarray) -> dict[str, float]:
    """``tau_b``, ``segment_r`` and ``system_r`` of one metric (see the module docstring)."""
    return {"tau_b": grouped_kendall(human, metric, items), "segment_r": pearson(human, metric),
            "system_r": pearson(system_means(human, systems), system_means(metric, systems))}


def _draw_counts(n_units: int, n: int, seed: int) -> np.ndarray:
    """``(n, n_units)`` times each unit is drawn in each resample."""
    draws = np.random.default_rng(seed).integers(0, n_units, size=(n, n_units))
    return np.stack([np.bincount(d, minlength=n_units) for d in draws]).astype(np.float64)


def _tau_draws(human: np.ndarray, metric: np.ndarray, items: np.ndarray, unit_of_item: dict[object, int],
               counts: np.ndarray) -> np.ndarray:
    """Mean item τb of every resample (per-unit sums of finite item values over their count)."""
    ids, values = item_kendall(human, metric, items)
    unit = np.asarray([unit_of_item[i] for i in ids], dtype=np.intp)
    finite = ~np.isnan(values)
    size = counts.shape[1]
    sums = np.bincount(unit[finite], weights=values[finite], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ sums) / (counts @ np.bincount(unit[finite], minlength=size))


def _pearson_rows(sums: np.ndarray) -> np.ndarray:
    """Pearson's r from rows of (n, Σh, Σm, Σhh, Σmm, Σhm)."""
    n, sh, sm, shh, smm, shm = sums.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return (n * shm - sh * sm) / np.sqrt((n * shh - sh * sh) * (n * smm - sm * sm))


def _segment_r_draws(human: np.ndarray, metric: np.ndarray, unit: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Pooled Pearson r of every resample."""
    cols = np.stack([np.ones_like(human), human, metric, human * human, metric * metric, human * metric], axis=1)
    per_unit = np.stack([np.bincount(unit, weights=c, minlength=counts.shape[1]) for c in cols.T], axis=1)
    return _pearson_rows(counts @ per_unit)


def _system_r_draws(human: np.ndarray, metric: np.ndarray, unit: np.ndarray, systems: np.ndarray,
                    counts: np.ndarray) -> np.ndarray:
    """System-level Pearson r of every resample (system means of the resampled points)."""
    _, sys_code = np.unique(systems, return_inverse=True)
    n_sys, size = int(sys_code.max()) + 1, counts.shape[1]
    cell = unit * n_sys + sys_code

    def per(values: np.ndarray) -> np.ndarray:
        return counts @ np.bincount(cell, weights=values, minlength=size * n_sys).reshape(size, n_sys)

    with np.errstate(invalid="ignore", divide="ignore"):
        number = per(np.ones_like(human))
        h, m = per(human) / number, per(metric) / number
    hc, mc = h - np.nanmean(h, axis=1, keepdims=True), m - np.nanmean(m, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nansum(hc * mc, axis=1) / np.sqrt(np.nansum(hc * hc, axis=1) * np.nansum(mc * mc, axis=1))


def _comparison(delta: float, draws: np.ndarray, alpha: float) -> Comparison:
    """Observed difference, percentile interval and one-sided p (share of draws <= 0)."""
    finite = draws[~np.isnan(draws)]
    if not len(finite):
        return Comparison(delta, float("nan"), float("nan"), float("nan"))
    low, high = np.quantile(finite, [alpha / 2, 1 - alpha / 2])
    return Comparison(delta, float(low), float(high), float((finite <= 0).mean()))


def paired_differences(human: np.ndarray, a: np.ndarray, b: np.ndarray, items: np.ndarray, systems: np.ndarray,
                       units: np.ndarray | None = None, n: int = 1000, seed: int = 1234,
                       alpha: float = 0.05) -> dict[str, Comparison]:
    """A - B for every statistic with its paired bootstrap interval; ``units`` (per point, the
    resampling unit: default the source line; a line must lie inside one unit)."""
    human, a, b = (np.asarray(v, dtype=np.float64) for v in (human, a, b))
    unit_labels = np.asarray(items if units is None else units)
    unit_ids, unit = np.unique(unit_labels, return_inverse=True)
    unit_of_item = dict(zip(np.asarray(items).tolist(), unit.tolist(), strict=True))
    counts = _draw_counts(len(unit_ids), n, seed)
    observed = {k: statistics(human, a, items, systems)[k] - statistics(human, b, items, systems)[k]
                for k in STATISTICS}
    draws = {"tau_b": _tau_draws(human, a, items, unit_of_item, counts)
             - _tau_draws(human, b, items, unit_of_item, counts),
             "segment_r": _segment_r_draws(human, a, unit, counts) - _segment_r_draws(human, b, unit, counts),
             "system_r": _system_r_draws(human, a, unit, systems, counts)
             - _system_r_draws(human, b, unit, systems, counts)}
    return {k: _comparison(observed[k], draws[k], alpha) for k in STATISTICS}
