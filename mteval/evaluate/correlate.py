"""iqeval -assessments FILE: correlation of cached metric scores with human judgements.

Segment level: every (system, segment) with both a human and a metric score is one point.
Pearson/Spearman/Kendall use the ``average`` grouping (``none`` = one flattened vector, the
default; ``item`` = per source segment, averaged; ``sys`` = per system, averaged). The pair
statistics (``kendall-wmt12``, ``kendall-wmt20``, ``accuracy``) compare only translations of the
same segment (grouped by item, micro-averaged), as WMT does. CIs resample segments (all systems of
a segment together). System level: one point per system (the metric's system score from the
cache, the human system score from the assessments); CIs resample segments too, with system
scores as segment means in each resample, shifted to the reported value
(``significance.system_level_ci``); without segment-level human scores they resample systems.

Metric scores are oriented so that higher is better (an error metric with
``higher_is_better = False`` is negated; Asiya's ``-WER``/``-TER`` already are), so every
correlation with a higher-is-better human score is expected positive.

WMT23/24 statistics (``mteval.meta.stats.wmt_stats``, at parity with mt-metrics-eval): ``acc_eq`` and
``tau_eq`` (Deutsch et al. 2023: pairwise accuracy / tau with tie calibration, mt-metrics-eval
``KendallWithTiesOpt`` variants ``acc23`` / ``23``; segment level grouped by item unless
``--average`` says otherwise, as WMT23/24's ``avg_by='item'``; system level over the system
vector; the record's ``epsilon`` is the calibrated metric tie threshold; CIs resample items, with
the threshold re-optimised in every resample), ``spa`` (WMT24 soft pairwise accuracy, system
level, from the systems' segment scores), ``pdp`` (pairwise-difference Pearson, ``Pearson(pdp=True)``,
rows of ``--average``, default item). With ``--significance`` and Pearson first among the
``--corr`` correlations, Williams' test rows (``williams:pearson``) join PERM-BOTH and the bootstrap;
with acc_eq/tau_eq/spa first, mt-metrics-eval's tests of WMT23/24 (``perm-pairs`` at segment level,
``perm-both`` at system level; ``--early-stop BLOCK,MIN,MAX``).

Records: ``target`` = the correlation name (``pearson``, ``pearson/mean-removed``,
``pearson/weighted``...), ``metric``, ``level``, ``score`` = the correlation, with
``correlation``, ``variant`` (plain, mean-removed, weighted), ``n``, ``ci_low``, ``ci_high``;
with significance, one row per ordered metric pair (metric ``A>B``, target ``perm-both:NAME`` or
``bootstrap:NAME``), ``score`` = difference and ``p_value`` (H1: A correlates better than B), then one
row per metric with its significance rank (``rank:TEST:NAME``, :mod:`mteval.evaluate.metric_ranks`).

``-compare`` / ``-compareSystems`` (paired significance between systems) is
``mteval.evaluate.compare``; the options ``--resamples`` and ``--seed`` registered here serve both
(``--seed`` defaults to 1234 here, to sacreBLEU's 12345 there).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mteval.errors import ConfigError
from mteval.evaluate.metric_ranks import rank_records
from mteval.evaluate.outside_qarla import SubsetTexts, level_records
from mteval.evaluate.records import record as _record
from mteval.evaluate.wmt12 import wants_wmt12, wmt12_records
from mteval.io.assessments import UNKNOWN_SYSTEMS, Assessments, read_assessments
from mteval.io.corpus import DocumentIndex
from mteval.meta.learn.model_file import in_sample_metrics
from mteval.meta.stats import wmt_stats
from mteval.meta.stats.correlation import STATISTICS, correlate, mean_removed, pearson
from mteval.meta.stats.paired import check_alpha, check_count
from mteval.meta.stats.significance import (
    NO_EARLY_STOP,
    Comparison,
    EarlyStop,
    bootstrap_ci,
    bootstrap_draws,
    draws_per_metric,
    paired_bootstrap,
    paired_from_draws,
    pairwise_permutation_sig_diff,
    perm_both,
    permutation_sig_diff,
    system_level_ci,
)
from mteval.metrics.base import ScoreSet
from mteval.metrics.registry import higher_is_better
from mteval.store.cache import refset_name

Record = dict[str, Any]
LOG = logging.getLogger(__name__)
PAIR_STATISTICS = ("kendall-wmt12", "kendall-wmt20", "accuracy")
DEFAULT_CORRELATIONS = ("pearson", "spearman", "kendall", "kendall-wmt12", "accuracy")
WMT_STATISTICS = ("acc_eq", "tau_eq", "spa", "pdp")  # mteval.meta.stats.wmt_stats
WMT_TESTED = ("acc_eq", "tau_eq", "spa")  # --significance: mt-metrics-eval's permutation tests
KNOWN = (*STATISTICS, *WMT_STATISTICS)
ASSESSMENT_SEED = 1234  # -assessments' default --seed


@dataclass(frozen=True)
class Points:
    """Aligned human and metric scores of one level, with grouping and resampling ids."""

    human: np.ndarray
    metrics: dict[str, np.ndarray]
    items: np.ndarray  # segment id (seg) or system index (sys): the resampling unit
    systems: np.ndarray  # system index of every point
    weights: np.ndarray | None = None
    # system level only: (A, S) segment scores, for CIs that resample segments
    human_segments: np.ndarray | None = None
    metric_segments: dict[str, np.ndarray] | None = None


def segment_points(human: Assessments, scores: dict[str, dict[str, ScoreSet]], systems: Sequence[str],
                   orient: Callable[[str], bool], rows: np.ndarray,
                   lengths: np.ndarray | None = None) -> Points:
    """Points of the segment level: ``scores[metric][system]`` from the cache, ``rows`` 0-based."""
    rated = [s for s in systems if s in human.systems]
    if not rated:
        raise ConfigError("no selected system has human assessments; assessed: " + ", ".join(human.systems))
    h = np.concatenate([human.segment_scores(s)[rows] for s in rated])
    metric = {m: np.concatenate([per[s].segments[rows] for s in rated]) * (1 if orient(m) else -1)
              for m, per in scores.items()}
    items = np.tile(np.arange(len(rows)), len(rated))
    sys_ids = np.repeat(np.arange(len(rated)), len(rows))
    weights = None if lengths is None else np.tile(np.asarray(lengths, dtype=np.float64)[rows], len(rated))
    return Points(h, metric, items, sys_ids, weights)


def system_points(human: Assessments, scores: dict[str, dict[str, ScoreSet]], systems: Sequence[str],
                  orient: Callable[[str], bool], rows: np.ndarray | None = None,
                  values: dict[str, dict[str, float]] | None = None) -> Points:
    """Points of the system level: one per system with a human system score. ``rows`` (0-based, a
    -T subset): the human system score is the mean of the system's judgements of those segments and
    ``values[metric][system]`` the metric's system score of them (``iqeval -doOQ -G sys -T``'s);
    without, the stored system scores and the file's human ones (its system rows, else the mean of
    its segments)."""
    subset = rows is not None and len(rows) < human.segments.shape[1]
    if subset and values is None:
        raise ValueError("system_points: a -T subset needs the metrics' system scores of it")
    found = {s: _human_system(human, s, rows if subset else None) for s in systems}
    own = {s: value for s, value in found.items() if value is not None}
    rated = list(own)
    if len(rated) < 3:
        raise ConfigError(f"system-level correlation needs at least 3 assessed systems, got {len(rated)}")
    h = np.asarray([own[s] for s in rated])
    sign = {m: 1 if orient(m) else -1 for m in scores}
    metric = {m: np.asarray([values[m][s] if values is not None else per[s].system for s in rated]) * sign[m]
              for m, per in scores.items()}
    ids = np.arange(len(rated))
    keep = rows if subset and rows is not None else slice(None)
    human_seg = np.stack([human.segment_scores(s)[keep] for s in rated])
    metric_seg = {m: np.stack([per[s].segments[keep] for s in rated]) * sign[m] for m, per in scores.items()}
    usable = not np.all(np.isnan(human_seg))
    return Points(h, metric, ids, ids, None, human_seg if usable else None, metric_seg if usable else None)


def _human_system(human: Assessments, system: str, rows: np.ndarray | None) -> float | None:
    """The human system score (absent: the system is not rated), of the segments ``rows`` when given
    (a system judged at system level only cannot be narrowed to them: refused)."""
    if rows is None:
        return human.system.get(system)
    judged = human.segment_scores(system)[rows]
    if np.all(np.isnan(judged)):
        if system in human.system and np.all(np.isnan(human.segment_scores(system))):
            raise ConfigError(f"-T: system {system!r} is judged at system level only; a judgement of the whole "
                              "test set cannot be narrowed to the selected segments (drop -T)")
        return None
    return float(np.nanmean(judged))


def _groups(points: Points, name: str, level: str, average: str | None) -> np.ndarray | None:
    """Grouping of a statistic: pair statistics stay within segments at segment level; ``--average``
    groups segment-level points only (at system level each system is one point, and a group of one
    has no correlation: every value and test was NaN, the permutation test's p-value 0)."""
    if level != "seg":
        return None
    if name in PAIR_STATISTICS:
        return points.items
    return {"none": None, "item": points.items, "sys": points.systems}[average or "none"]


def _variants(points: Points, level: str, mean_remove: bool) -> list[tuple[str, Points]]:
    """The plain points and, with ``mean_remove`` at segment level, mean-removed ones: each metric's
    values and the human ones mean-removed on that metric's support (the points where both exist),
    so a metric's value does not depend on the others selected. Metrics with the same support (every
    complete one) share one human vector; a metric with missing segments gets its own Points."""
    out = [("plain", points)]
    if not (mean_remove and level == "seg"):
        return out
    shared: dict[bytes, np.ndarray] = {}
    for m, values in points.metrics.items():
        present = ~(np.isnan(values) | np.isnan(points.human))
        key = present.tobytes()
        if key not in shared:
            shared[key] = mean_removed(points.human, points.items, present)
        removed = {m: mean_removed(values, points.items, present)}
        last = out[-1][1] if len(out) > 1 else None
        if last is not None and last.human is shared[key]:
            last.metrics.update(removed)  # the same support as the metric before: one Points
        else:
            out.append(("mean-removed", Points(shared[key], removed, points.items, points.systems)))
    return out


def correlation_records(points: Points, level: str, refset: str, correlations: Sequence[str],
                        average: str | None = None, mean_remove: bool = False, n_resamples: int = 1000,
                        seed: int = 1234, thresh: float = 25.0) -> list[Record]:
    """One record per metric, correlation and variant, with its bootstrap CI."""
    unknown = [c for c in correlations if c not in KNOWN]
    if unknown:
        raise ConfigError(f"--corr: unknown correlation(s) {unknown}; known: {', '.join(KNOWN)}")
    out: list[Record] = []
    spa = _spa(points, level, n_resamples, seed) if "spa" in correlations else {}
    for variant, pts in _variants(points, level, mean_remove):
        for metric, values in pts.metrics.items():
            for name in correlations:
                if variant == "mean-removed" and name in (*PAIR_STATISTICS, *WMT_STATISTICS):
                    continue  # within-segment pairs: removing the segment mean changes nothing
                if name in WMT_STATISTICS:
                    out.append(_wmt_record(pts, level, refset, name, metric, average, n_resamples, seed, spa))
                    continue
                if level == "sys" and pts.human_segments is not None and pts.metric_segments is not None:
                    value = correlate(name, pts.human, values, thresh=thresh)
                    ci = system_level_ci(name, value, pts.human_segments, pts.metric_segments[metric],
                                         n=n_resamples, seed=seed, thresh=thresh)
                else:
                    ci = bootstrap_ci(name, pts.human, values, pts.items, _groups(pts, name, level, average),
                                      n=n_resamples, seed=seed, thresh=thresh)
                n = int((~(np.isnan(pts.human) | np.isnan(values))).sum())
                label = name if variant == "plain" else f"{name}/{variant}"
                out.append(_record(label, refset, metric, level, ci.value, correlation=name, variant=variant,
                                   n=n, ci_low=ci.low, ci_high=ci.high))
        if points.weights is not None and variant == "plain" and level == "seg":
            out += _weighted_records(pts, refset, n_resamples, seed)
    return out


def _matrix(points: Points, values: np.ndarray) -> np.ndarray:
    """The ``(systems, items)`` matrix of segment-level point values (NaN where absent)."""
    out = np.full((int(points.systems.max()) + 1, int(points.items.max()) + 1), np.nan)
    out[points.systems, points.items] = values
    return out


def _spa(points: Points, level: str, n_resamples: int, seed: int) -> dict[str, tuple[float, float, float]]:
    """metric -> (SPA, CI low, CI high) (WMT24; CIs resample the segments, all metrics at once)."""
    if level != "sys":
        raise ConfigError("--corr spa is a system-level statistic (WMT24 soft pairwise accuracy): use -G sys")
    if points.human_segments is None or points.metric_segments is None:
        raise ConfigError("--corr spa needs segment-level human scores of the systems (a 'system segment score' file)")
    names = list(points.metric_segments)
    stack = np.stack([points.metric_segments[m] for m in names])
    draws = wmt_stats.spa_draws(points.human_segments, stack, n_resamples, seed)
    return {m: (wmt_stats.soft_pairwise_accuracy(points.human_segments, stack[k]),
                *wmt_stats.percentile(draws[:, k])) for k, m in enumerate(names)}


def _wmt_record(points: Points, level: str, refset: str, name: str, metric: str, average: str | None,
                n_resamples: int, seed: int, spa: dict[str, tuple[float, float, float]]) -> Record:
    """One record of a WMT23/24 statistic (acc_eq, tau_eq: with the calibrated epsilon; spa)."""
    values = points.metrics[metric]
    n = int((~(np.isnan(points.human) | np.isnan(values))).sum())
    if name == "spa":
        value, low, high = spa[metric]
        return _record(name, refset, metric, level, value, correlation=name, variant="plain", n=n,
                       ci_low=low, ci_high=high)
    if name == "pdp":
        return _pdp_record(points, level, refset, metric, average, n_resamples, seed, n)
    variant = "acc23" if name == "acc_eq" else "23"
    if level == "seg":
        result, low, high = wmt_stats.tie_calibration_ci(_matrix(points, points.human), _matrix(points, values),
                                                         variant, average or "item", n_resamples, seed=seed)
    else:
        result = wmt_stats.tie_calibration(points.human, values, variant, "none")
        low, high = _system_ci(points, metric, result.value, variant, n_resamples, seed)
    return _record(name, refset, metric, level, result.value, correlation=name, variant="plain", n=n,
                   ci_low=low, ci_high=high, epsilon=result.epsilon)


def _pdp_record(points: Points, level: str, refset: str, metric: str, average: str | None, n_resamples: int,
                seed: int, n: int) -> Record:
    """Pairwise-difference Pearson (mt-metrics-eval ``Pearson(pdp=True)``): at segment level over the
    rows of ``average`` (default item: differences between the systems' translations of a segment),
    CI by resampling items; at system level over the system vector (= Pearson), CI as the others."""
    if level == "sys":
        def stat(h: np.ndarray, m: np.ndarray) -> float:
            """PDP of one system vector."""
            return wmt_stats.pairwise_diff_pearson(h, m, "none")

        value = stat(points.human, points.metrics[metric])
        low, high = _system_ci_of(points, metric, value, stat, n_resamples, seed)
    else:
        h, m = _matrix(points, points.human), _matrix(points, points.metrics[metric])
        value = wmt_stats.pairwise_diff_pearson(h, m, average or "item")
        counts = wmt_stats.item_resamples(h.shape[1], n_resamples, seed)
        draws = np.empty(len(counts))
        for b, c in enumerate(counts):
            i = np.repeat(np.arange(h.shape[1]), c)
            draws[b] = wmt_stats.pairwise_diff_pearson(h[:, i], m[:, i], average or "item")
        low, high = wmt_stats.percentile(draws)
    return _record("pdp", refset, metric, level, value, correlation="pdp", variant="plain", n=n,
                   ci_low=low, ci_high=high)


def _system_ci(points: Points, metric: str, value: float, variant: str, n_resamples: int,
               seed: int) -> tuple[float, float]:
    """CI of a system-level acc_eq / tau_eq: segments resampled (as system_level_ci), else systems."""
    def stat(h: np.ndarray, m: np.ndarray) -> float:
        """The tie-calibrated statistic of one system vector."""
        return wmt_stats.tie_calibration(h, m, variant, "none").value

    return _system_ci_of(points, metric, value, stat, n_resamples, seed, variant)


def _system_ci_of(points: Points, metric: str, value: float, stat: Callable[[np.ndarray, np.ndarray], float],
                  n_resamples: int, seed: int, name: str = "pdp") -> tuple[float, float]:
    """CI of a system-level statistic ``stat``: segments resampled (system_level_ci), else systems."""
    if points.human_segments is not None and points.metric_segments is not None:
        ci = system_level_ci(name, value, points.human_segments, points.metric_segments[metric],
                             n=n_resamples, seed=seed, statistic=stat)
        return ci.low, ci.high
    rng = np.random.default_rng(seed)
    size = len(points.human)
    draws = [stat(points.human[i], points.metrics[metric][i]) for i in rng.integers(0, size, (n_resamples, size))]
    return wmt_stats.percentile(np.asarray(draws))


def _weighted_records(points: Points, refset: str, n_resamples: int, seed: int) -> list[Record]:
    """Length-weighted Pearson (seed 003), CI by resampling segments."""
    out: list[Record] = []
    weights = points.weights
    if weights is None:
        return out
    rows = [np.flatnonzero(points.items == u) for u in np.unique(points.items)]
    for metric, values in points.metrics.items():
        value = pearson(points.human, values, weights)
        draws = []
        rng = np.random.default_rng(seed)
        for _ in range(n_resamples):
            idx = np.concatenate([rows[d] for d in rng.integers(0, len(rows), len(rows))])
            draws.append(pearson(points.human[idx], values[idx], weights[idx]))
        finite = np.asarray(draws)[~np.isnan(draws)]
        low, high = (np.quantile(finite, [0.025, 0.975]) if len(finite) else (np.nan, np.nan))
        out.append(_record("pearson/weighted", refset, metric, "seg", value, correlation="pearson",
                           variant="weighted",
                           n=int((~(np.isnan(points.human) | np.isnan(values))).sum()),
                           ci_low=float(low), ci_high=float(high)))
    return out


def significance_records(points: Points, level: str, refset: str, correlation: str, average: str | None = None,
                         n_resamples: int = 1000, seed: int = 1234, thresh: float = 25.0,
                         early: EarlyStop = NO_EARLY_STOP, permutation_only: bool = False,
                         pairs: Sequence[tuple[str, str]] | None = None) -> list[Record]:
    """Every ordered metric pair A>B (or the given ``pairs``): PERM-BOTH and paired-bootstrap p-values
    (and Williams' test for Pearson; ``permutation_only``: PERM-BOTH alone, what the ranks read); for
    acc_eq, tau_eq and spa mt-metrics-eval's permutation tests (:func:`_wmt_tests`)."""
    if correlation in WMT_TESTED:
        return _wmt_tests(points, level, refset, correlation, average, n_resamples, seed, early)
    if correlation not in STATISTICS:
        raise ConfigError(f"--significance tests one of {', '.join((*STATISTICS, *WMT_TESTED))}: "
                          "put one first in --corr")
    out: list[Record] = []
    groups = _groups(points, correlation, level, average)
    boot_draws: dict[str, np.ndarray] = {}

    def paired(a: str, b: str) -> Comparison:
        """The paired bootstrap of A vs B, each metric's resamples computed once for all its pairs."""
        if not draws_per_metric(correlation, groups, points.items):
            return paired_bootstrap(correlation, points.human, points.metrics[a], points.metrics[b],
                                    points.items, groups, n=n_resamples, seed=seed, thresh=thresh)
        for m in (a, b):
            if m not in boot_draws:
                boot_draws[m] = bootstrap_draws(correlation, points.human, points.metrics[m], points.items, groups,
                                                n_resamples, seed, thresh)
        delta = (correlate(correlation, points.human, points.metrics[a], groups, thresh=thresh)
                 - correlate(correlation, points.human, points.metrics[b], groups, thresh=thresh))
        return paired_from_draws(delta, boot_draws[a], boot_draws[b])

    for a, b in _ordered_pairs(list(points.metrics), pairs):
        perm = perm_both(correlation, points.human, points.metrics[a], points.metrics[b], groups,
                         n=n_resamples, seed=seed, thresh=thresh)
        label = f"{a}>{b}"
        out.append(_record(f"perm-both:{correlation}", refset, label, level, perm.delta,
                           correlation=correlation, test="perm-both", p_value=perm.p_value))
        if permutation_only:
            continue
        boot = paired(a, b)
        out.append(_record(f"bootstrap:{correlation}", refset, label, level, boot.delta,
                           correlation=correlation, test="bootstrap", p_value=boot.p_value,
                           ci_low=boot.low, ci_high=boot.high))
        if correlation == "pearson":
            out.append(_williams_record(points, level, refset, a, b, groups))
    return out


def _ordered_pairs(names: list[str], pairs: Sequence[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """Every ordered pair of distinct ``names``, or ``pairs`` as given."""
    return [(a, b) for a in names for b in names if a != b] if pairs is None else list(pairs)


def _wmt_tests(points: Points, level: str, refset: str, name: str, average: str | None, n_resamples: int,
               seed: int, early: EarlyStop) -> list[Record]:
    """mt-metrics-eval's tests of WMT23/24 for every ordered pair A>B: segment-level acc_eq/tau_eq
    ``PairwisePermutationSigDiff`` (``perm-pairs``: pair comparisons swapped, each metric at its own
    calibrated epsilon, rows of ``--average``, default item); system-level acc_eq/tau_eq and spa
    ``PermutationSigDiff`` (``perm-both``, tie calibration re-run / SPA recomputed in every draw)."""
    if name == "spa" and (level != "sys" or points.human_segments is None or points.metric_segments is None):
        raise ConfigError("--significance on spa needs -G sys and segment-level human scores")
    out: list[Record] = []
    names = list(points.metrics)
    for a in names:
        for b in names:
            if a == b:
                continue
            if name == "spa" and points.human_segments is not None and points.metric_segments is not None:
                test, result = "perm-both", permutation_sig_diff(
                    "spa", points.human_segments, points.metric_segments[a], points.metric_segments[b], "none",
                    n_resamples, early, seed)
            elif level == "seg":
                test, result = "perm-pairs", pairwise_permutation_sig_diff(
                    _matrix(points, points.human), _matrix(points, points.metrics[a]),
                    _matrix(points, points.metrics[b]), "acc23" if name == "acc_eq" else "23", average or "item",
                    n_resamples, early, seed=seed)
            else:
                test, result = "perm-both", permutation_sig_diff(
                    name, points.human, points.metrics[a], points.metrics[b], "none", n_resamples, early, seed)
            out.append(_record(f"{test}:{name}", refset, f"{a}>{b}", level, result.delta, correlation=name,
                               test=test, p_value=result.p_value, trials=len(result.draws)))
    return out


def _williams_record(points: Points, level: str, refset: str, a: str, b: str, groups: np.ndarray | None) -> Record:
    """Williams' test (mt-metrics-eval ``WilliamsSigDiff``) of Pearson(A) > Pearson(B); n = the points
    with a human and both metric scores; p-value one-sided for H1: A correlates better than B."""
    ma, mb = points.metrics[a], points.metrics[b]
    keep = ~(np.isnan(points.human) | np.isnan(ma) | np.isnan(mb))
    g = None if groups is None else groups[keep]

    def stat(x: np.ndarray, y: np.ndarray) -> float:
        """Pearson with the grouping of the significance tests."""
        return correlate("pearson", x, y, g)

    p, r1, r2 = wmt_stats.williams(points.human[keep], ma[keep], mb[keep], stat, n=int(keep.sum()))
    return _record("williams:pearson", refset, f"{a}>{b}", level, r1 - r2, correlation="pearson",
                   test="williams", p_value=p if r1 > r2 else 1 - p)


@dataclass(frozen=True)
class AssessOptions:
    """-assessments' options, by iqeval's names (``corr``: comma-separated names; ``seed`` None:
    :data:`ASSESSMENT_SEED`; ``early_stop``: ``BLOCK,MIN,MAX`` or None)."""

    corr: str = ",".join(DEFAULT_CORRELATIONS)
    average: str | None = None
    mean_removed: bool = False
    weighted: bool = False
    significance: bool = False
    early_stop: str | None = None
    resamples: int = 1000
    seed: int | None = None
    thresh: float = 25.0
    alpha: float = 0.05  # --significance's metric ranks (mt-metrics-eval's AssignRanks threshold)
    unknown_systems: str = "refuse"  # or "skip": rows of systems the experiment lacks are left out, with a warning
    human_lower_better: bool = False  # the judgements are errors, HTER or ranks: negated as they are read


def correlation_names(value: str) -> list[str]:
    """The comma-separated ``--corr`` names; an empty list (``--corr=``, ``--corr ,``) is refused."""
    names = [c.strip() for c in value.split(",") if c.strip()]
    if not names:
        raise ConfigError(f"--corr {value!r}: names no correlation; give one or more of {', '.join(KNOWN)}")
    return names


def early_stop(value: str | None) -> EarlyStop:
    """``--early-stop BLOCK,MIN,MAX`` (None: no early stopping)."""
    if value is None:
        return NO_EARLY_STOP
    try:
        block, low, high = value.split(",")
        stop = EarlyStop(int(block), float(low), float(high))
    except ValueError:
        raise ConfigError(f"--early-stop {value!r}: give BLOCK,MIN,MAX, e.g. 100,0.02,0.5") from None
    if stop.block_size < 1 or not 0 <= stop.early_min <= stop.early_max <= 1:
        raise ConfigError(f"--early-stop {value!r}: BLOCK must be >= 1 and 0 <= MIN <= MAX <= 1")
    return stop


def reference_lengths(texts: Any, references: Sequence[str]) -> np.ndarray:
    """Mean whitespace word count of the selected references, per segment (for --weighted)."""
    counts = [[len(seg.split()) for seg in texts.references[r].segments] for r in references]
    return np.mean(np.asarray(counts, dtype=np.float64), axis=0)


def _warn_in_sample(cache: Any, target: str, refset: str, metrics: Sequence[str], assessments: str) -> None:
    """Warn about learned metrics (``mteval tune``) evaluated on the judgements they were trained on."""
    for metric in in_sample_metrics(cache, target, refset, list(metrics), assessments):
        LOG.warning(f"IN-SAMPLE: {metric} was learned (mteval tune) on {assessments}; its correlations with these "
                    "judgements are in-sample and optimistic (mteval tune's report has its test-fold values)")


def read_human(assessments: str, texts: Any, unknown_systems: str = "refuse",
               lower_is_better: bool = False) -> Assessments:
    """The judgements of ``assessments`` for the experiment's systems and references; with
    ``unknown_systems="skip"`` the rows of other systems are left out and named in one warning;
    ``lower_is_better`` (errors, HTER, ranks) negates them, so that every correlation reads as for
    a higher-is-better judgement and the metrics' scores (oriented so) correlate positively."""
    if unknown_systems not in UNKNOWN_SYSTEMS:
        raise ConfigError(f"--unknown-systems {unknown_systems!r}: give {' or '.join(UNKNOWN_SYSTEMS)}")
    human = read_assessments(assessments, len(texts), texts.documents, systems=[*texts.systems, *texts.references],
                             skip_unknown=unknown_systems == "skip")
    if human.skipped:
        shown = ", ".join(f"{name} ({rows})" for name, rows in list(human.skipped.items())[:8])
        more = f" and {len(human.skipped) - 8} more" if len(human.skipped) > 8 else ""
        LOG.warning(f"{assessments}: the rows of {len(human.skipped)} system(s) the experiment lacks are left out "
                    f"(--unknown-systems skip): {shown}{more}")
    if lower_is_better:
        human = dataclasses.replace(human, segments=-human.segments,
                                    system={name: -value for name, value in human.system.items()})
    return human


SIGNED = ("pearson", "spearman", "kendall", "kendall-wmt12", "kendall-wmt20")  # 0 = no relation; < 0 = reversed


def reversed_warning(records: Sequence[Record], assessments: str) -> str | None:
    """One line when every metric (two or more) correlates negatively with the judgements on the first
    signed correlation: the judgements are then most likely lower-is-better (error counts, HTER,
    ranks), and reading the table as it is would trust the worst metric most."""
    first = next((r["correlation"] for r in records if r.get("correlation") in SIGNED), None)
    values = [r["score"] for r in records if r.get("correlation") == first and r.get("variant") == "plain"
              and not np.isnan(r["score"])]
    if first is None or len(values) < 2 or max(values) >= 0:
        return None
    return (f"{assessments}: every metric's {first} with these judgements is negative ({min(values):.2f} to "
            f"{max(values):.2f}), while the metrics' scores are oriented higher-is-better: if lower is better in "
            "this file (errors, MQM penalties, HTER, ranks), add --human-lower-better")


def threshold_warning(points: Points, level: str, correlations: Sequence[str], thresh: float,
                      assessments: str) -> str | None:
    """One line when ``kendall-wmt20`` is asked but no two translations it compares (of one segment; at
    -G sys any two systems) differ by ``thresh`` in human score, so that every value is NaN (mt-metrics-eval's
    ``KendallLike`` gives 0 there): WMT20's 25 is in raw DA points, and z-scores or MQM rarely reach it."""
    if "kendall-wmt20" not in correlations:
        return None
    human = points.human
    groups = _groups(points, "kendall-wmt20", level, None)
    keys = np.zeros(len(human), dtype=np.int64) if groups is None else np.asarray(groups)
    rated = ~np.isnan(human)
    if not rated.any():
        return None
    spread = 0.0
    for key in np.unique(keys[rated]):
        chosen = human[rated & (keys == key)]
        spread = max(spread, float(chosen.max() - chosen.min()))
    if spread >= thresh:
        return None
    return (f"{assessments}: no two translations that kendall-wmt20 compares differ by {thresh:g} or more in human "
            f"score (the largest difference is {spread:.4g}), so it is NaN: --thresh is in the judgements' units "
            "(WMT20's 25 is for raw DA on 0-100; z-scores or MQM need a smaller one)")


def subset_system_scores(files: dict[str, dict[str, tuple[Any, Any]]], sel: Any, documents: DocumentIndex,
                         subset: SubsetTexts | None) -> dict[str, dict[str, float]] | None:
    """metric -> system -> the system score of the -T segments (``iqeval -doOQ -G sys -T``'s: the
    metric's own subset rule, NIST computed again from ``subset``'s texts), from the files already
    read (``files[metric][system]``: :meth:`ScoreCache.read`'s); None without -T."""
    if len(sel.rows) == len(documents):
        return None
    refset = refset_name(sel.references)
    at_sys = dataclasses.replace(sel, level="sys")
    return {m: {s: float(level_records(found, {"target": s, "refset": refset, "metric": m}, at_sys, documents,
                                       texts=subset)[0]["score"]) for s, found in per.items()}
            for m, per in files.items()}


def assess(assessments: str, cache: Any, sel: Any, texts: Any, options: AssessOptions,
           language: str = "en", subset: SubsetTexts | None = None) -> list[Record]:
    """iqeval -assessments FILE at -G seg or sys: correlations of the selected metrics with the human
    assessments in ``assessments`` (and metric-vs-metric tests with ``options.significance``);
    ``--corr wmt12``: WMT12's tau over relative rankings (:mod:`mteval.evaluate.wmt12`; ``language``
    picks the rankings' pair into it). At -G sys with -T, both sides are of the selected segments
    (:func:`system_points`; ``subset``: the texts NIST's subset score is computed from)."""
    correlations = correlation_names(options.corr)
    if wants_wmt12(correlations):
        seed = ASSESSMENT_SEED if options.seed is None else options.seed
        return wmt12_records(assessments, language, cache, sel, texts, options.resamples, seed,
                             options.significance)
    check_count(options.resamples, "--resamples")
    check_alpha(options.alpha)
    human = read_human(assessments, texts, options.unknown_systems, options.human_lower_better)
    refset = refset_name(sel.references)
    files = {m: {s: cache.read(s, refset, m, len(texts)) for s in sel.systems} for m in sel.metrics}
    scores = {m: {s: found[1].scores for s, found in per.items()} for m, per in files.items()}
    _warn_in_sample(cache, sel.systems[0], refset, sel.metrics, assessments)
    seed = ASSESSMENT_SEED if options.seed is None else options.seed
    if sel.level == "seg":
        lengths = reference_lengths(texts, sel.references) if options.weighted else None
        points = segment_points(human, scores, sel.systems, higher_is_better,
                                sel.rows, lengths)
    elif sel.level == "sys":
        points = system_points(human, scores, sel.systems, higher_is_better, sel.rows,
                               subset_system_scores(files, sel, texts.documents, subset))
    else:
        raise ConfigError("-assessments works at -G seg or -G sys")
    out = correlation_records(points, sel.level, refset, correlations, options.average, options.mean_removed,
                              options.resamples, seed, options.thresh)
    for line in (reversed_warning(out, assessments),
                 threshold_warning(points, sel.level, correlations, options.thresh, assessments)):
        if line:
            LOG.warning(line)
    if options.significance and len(sel.metrics) > 1:
        tested = next((c for c in correlations if c in STATISTICS or c in WMT_TESTED), "")
        tests = significance_records(points, sel.level, refset, tested, options.average,
                                     options.resamples, seed, options.thresh, early_stop(options.early_stop))
        out += tests + rank_records([*out, *tests], options.alpha)
    return out
