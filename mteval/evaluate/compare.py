"""iqeval -compare [-baseline SYS]: paired significance between systems, for every metric in -M.

Every pair of the selected systems (-S, at least two) is tested on the selected segments (-T)
against the selected references (-R) with ``mteval.meta.stats.paired`` (docs/significance-systems.md):
paired bootstrap resampling (``bs``: scores' and differences' 95 % intervals, p-values) and paired
approximate randomisation (``ar``: p-values), one random stream from ``--seed`` for every metric
and pair. A resample's system score follows the metric's own system-score rule (its ``aggregate``):

* ``stats``: the score of the summed per-segment sufficient statistics (BLEU, NIST, chrF, TER,
  GTM, WER/PER, METEOR...), read from the score cache (``ScoreSet.stats``); a file without them
  (written by IQMT/Asiya or an older mteval) is recomputed from the texts when the family needs no
  annotation, else it is an error (run iqsetup again);
* ``mean``: the mean of the cached segment scores (ROUGE, the annotation-based families without
  statistics, users' own metrics).

With ``--test both`` (the default) the bootstrap gives the intervals and the randomisation the
p-values that decide significance (``*``) and the clusters; ``--test bs`` or ``ar`` runs one test,
which then decides. Significance clusters (WMT's ranking clusters, ``mteval.meta.stats.clusters``) use
the pairwise p-values after the ``--correction`` (Holm by default) over all pairs; the ``*`` of a
system against the baseline uses them corrected over the comparisons with the baseline.

Records (``kind``): one ``system`` record per metric and system, best first: ``score`` on the
selected segments, bootstrap ``mean``/``ci_low``/``ci_high``, ``rank``, ``rank_range`` and
``cluster``; with a baseline its ``delta`` (system - baseline), ``delta_low``/``delta_high``,
``p_bs``, ``p_ar``, ``p_adj`` and ``significant``. Without a baseline one ``pair`` record per
metric and pair of systems (``target`` the better ranked, ``baseline`` the other, ``score`` =
``delta``). Every record names its ``aggregate``, ``test``, ``seed``, ``resamples``, ``trials``,
``alpha``, ``correction``, ``ties`` and ``segments``. A field that does not apply (intervals without the
bootstrap, the baseline's own comparison) is left out: ``-`` in TSV, absent in JSON.

Ties (``--ties``, both tests): ``sacrebleu`` (the default, for parity) counts only resampled
differences *beyond* the observed one, so two identical systems get ``p = 1 / (n + 1)``,
"significant"; ``count`` counts ties as at least as extreme (Riezler & Maxwell's and Noreen's
permutation-test rule): identical systems get ``p = 1``. The text view's legend names the rule.
``--resamples`` and ``--trials`` are at most ``MAX_RESAMPLES`` (1,000,000): memory stays bounded
(``mteval.meta.stats.paired``) but time grows with them.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from mteval.errors import CacheError, ConfigError, quote
from mteval.evaluate.outside_qarla import SubsetTexts, check_statistics, level_records
from mteval.evaluate.selection import Selection
from mteval.experiment.spec import Experiment
from mteval.meta.stats.clusters import CORRECTIONS, adjust, adjust_pairwise, ranking
from mteval.meta.stats.paired import (
    AR_TRIALS,
    BS_RESAMPLES,
    DEFAULT_SEED,
    Comparison,
    MetricInput,
    Settings,
    check_count,
    paired_bootstrap,
    paired_randomization,
)
from mteval.metrics import parameters, registry
from mteval.metrics.base import RECOMPUTE, STATS, MetricFamily, Side, StatsFamily
from mteval.metrics.registry import higher_is_better
from mteval.store.cache import ScoreCache, refset_name

LOG = logging.getLogger(__name__)
Record = dict[str, Any]
TESTS = ("both", "bs", "ar")
MEAN = "mean"
VIEW = "compare"  # the records' ``_view``: iqeval renders them with mteval.cli.compare_view
SHOWN = 8  # systems named in an error message
TIES = {"sacrebleu": False, "count": True}  # --ties RULE -> the engine's count_ties (module docstring)


@dataclass(frozen=True)
class Options:
    """How -compare runs (the defaults are sacreBLEU's: 1000 resamples, 10,000 trials, seed 12345)."""

    baseline: str | None = None
    test: str = "both"
    resamples: int = BS_RESAMPLES
    trials: int = AR_TRIALS
    seed: int = DEFAULT_SEED
    alpha: float = 0.05
    correction: str = "holm"
    ties: str = "sacrebleu"

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise ConfigError(f"--test {quote(self.test)}: use one of {', '.join(TESTS)}")
        if self.ties not in TIES:
            raise ConfigError(f"--ties {quote(self.ties)}: use one of {', '.join(TIES)}")
        if self.correction not in CORRECTIONS:
            raise ConfigError(f"--correction {quote(self.correction)}: use one of {', '.join(CORRECTIONS)}")
        check_count(self.resamples, "--resamples")
        check_count(self.trials, "--trials")
        Settings(self.resamples, self.seed, self.alpha)  # checks n, seed and alpha (one line each)
        Settings(self.trials, self.seed, self.alpha)

    @property
    def runs_bs(self) -> bool:
        return self.test in ("both", "bs")

    @property
    def runs_ar(self) -> bool:
        return self.test in ("both", "ar")

    @property
    def count_ties(self) -> bool:
        """The engine's tie rule: ``>=`` (``--ties count``) or sacreBLEU's ``>``."""
        return TIES[self.ties]


@dataclass(frozen=True)
class MetricComparison:
    """One metric's paired tests of every pair of systems: the bootstrap (``bs``) and/or the
    randomisation (``ar``) :class:`Comparison`, and the rule of a resample's system score."""

    metric: str
    aggregate: str  # "stats" or "mean"
    bs: Comparison | None
    ar: Comparison | None

    @property
    def decisive(self) -> Comparison:
        """The test whose p-values decide significance and clusters: randomisation when it ran."""
        found = self.ar or self.bs
        assert found is not None
        return found

    @property
    def systems(self) -> tuple[str, ...]:
        return self.decisive.systems

    def clusters(self, alpha: float, correction: str) -> list[list[str]]:
        """WMT ranking clusters, best first, from the decisive test's corrected p-values."""
        return self.decisive.clusters(alpha, correction)

    def adjusted(self, correction: str, baseline: str | None = None) -> np.ndarray:
        """Corrected p-values of the decisive test: over every pair (matrix), or, with a baseline,
        over the comparisons with it (vector in ``systems`` order, 1 for the baseline itself)."""
        p = self.decisive.p_value
        if baseline is None:
            return adjust_pairwise(p, correction)
        b = self.decisive.index(baseline)
        others = [i for i in range(len(p)) if i != b]
        out = np.ones(len(p))
        out[others] = adjust(p[others, b], correction)
        return out


# ---- the statistics of one metric: the cache, else the texts ----

def _family(metric: str, experiment: Experiment) -> MetricFamily | None:
    """The registered family scoring ``metric`` (None for a user's own metric)."""
    try:
        return registry.create(registry.family_of(metric), experiment.case_sensitive, experiment.language)
    except ConfigError:
        return None


def _recomputed(family: StatsFamily, metric: str, texts: Any, sel: Selection,
                rows: np.ndarray) -> list[np.ndarray] | None:
    """Per-system statistics recomputed from the texts (None when the family needs annotation, a
    selected reference is not a text, e.g. a hybridized reference set, or the metric is a parametric
    name: ``segment_stats`` computes a family's default settings, not ``chrF(whitespace=yes)``'s)."""
    if family.needs_annotation or any(r not in texts.references for r in sel.references):
        return None
    if parameters.split(registry.canonical(metric)) is not None:
        return None
    prepared = family.prepare([Side(r, texts.references[r].segments) for r in sel.references])
    return [family.segment_stats(Side(s, texts.systems[s].segments), prepared)[rows] for s in sel.systems]


def _cached_statistics(metric: str, family: StatsFamily, cache: ScoreCache, sel: Selection, texts: Any,
                       rows: np.ndarray) -> list[np.ndarray]:
    """Every selected system's statistics rows from its score file; recomputed from the texts when
    a file has none (or another family version's) and that is possible, else the file's error."""
    refset, n_segments = refset_name(sel.references), len(texts)
    out = []
    for system in sel.systems:
        path, score_file = cache.read(system, refset, metric, n_segments)
        try:
            check_statistics(family, metric, "sys", path, score_file)
        except CacheError:
            again = _recomputed(family, metric, texts, sel, rows)
            if again is None:
                raise
            LOG.warning("%s: a score file has no usable statistics (%s); recomputed them from the texts "
                        "(run iqsetup again to store them)", metric, path)
            return again
        assert score_file.scores.stats is not None
        out.append(score_file.scores.stats[rows])
    return out


def statistics_for(metric: str, experiment: Experiment, cache: ScoreCache, sel: Selection,
                   texts: Any) -> tuple[MetricInput, str, np.ndarray | None]:
    """The engine's input for one metric on the selected systems and segments, its rule (``stats``:
    summed statistics, a family whose system score is computed so; ``recompute``; or ``mean``) and,
    for ``mean``, the system scores as reported (:func:`_segments_and_reported`; None otherwise)."""
    rows = sel.rows
    direction = higher_is_better(metric)
    family = _family(metric, experiment)
    if isinstance(family, StatsFamily) and family.aggregation("sys") == STATS:
        score = partial(family.scores_from_stats, variant=registry.canonical(metric))
        if len(rows) < len(texts) and family.subset_rule("sys", registry.canonical(metric)) == RECOMPUTE:
            subset = SubsetTexts.of(experiment, texts)  # as -doOQ -T: the lines are the test set
            stats = np.stack([subset.statistics(family.family, system, tuple(sel.references), rows)
                              for system in sel.systems])
            return MetricInput(stats, score, direction), RECOMPUTE, None
        stats = np.stack(_cached_statistics(metric, family, cache, sel, texts, rows))
        return MetricInput(stats, score, direction), STATS, None
    segments, reported = _segments_and_reported(metric, cache, sel, texts, rows)
    return MetricInput.from_segments(segments, direction), MEAN, reported


def _segments_and_reported(metric: str, cache: ScoreCache, sel: Selection, texts: Any,
                           rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A ``mean`` metric's selected segment scores per system and its system scores as ``iqeval
    -doOQ -G sys`` reports them (the stored system score, or with -T the metric's own subset rule:
    ROUGE's bootstrap, a user's file's system score), which may differ from the mean of the segment
    scores that the resamples compute; each file read once."""
    refset, n_segments = refset_name(sel.references), len(texts)
    level = dataclasses.replace(sel, level="sys")
    segments, reported = [], []
    for system in sel.systems:
        found = cache.read(system, refset, metric, n_segments)
        segments.append(found[1].scores.segments[rows])
        reported.append(level_records(found, {"target": system, "refset": refset, "metric": metric}, level,
                                      texts.documents)[0]["score"])
    return np.stack(segments), np.asarray(reported, dtype=np.float64)


# ---- the comparison ----

def check_selection(experiment: Experiment, sel: Selection, baseline: str | None) -> None:
    """One-line errors before any work: fewer than two systems, an unknown baseline."""
    if len(sel.systems) < 2:
        raise ConfigError(f"-compare needs at least two systems, got {len(sel.systems)} "
                          f"({', '.join(sel.systems) or 'none'}): select them with -S")
    if baseline is not None and baseline not in sel.systems:
        where = "not among the selected systems (-S)" if baseline in experiment.system_names else "unknown"
        shown = ", ".join(sel.systems[:SHOWN]) + (f" ... ({len(sel.systems)} in all)"
                                                  if len(sel.systems) > SHOWN else "")
        raise ConfigError(f"-baseline {quote(baseline)}: {where}; the systems are {shown}")
    if not sel.metrics:
        raise ConfigError("-compare needs at least one metric (-M)")


def _as_reported(comparison: Comparison | None, reported: np.ndarray) -> Comparison | None:
    """A ``mean`` metric's test with the reported system scores (:func:`_segments_and_reported`) shown
    and ranked, its bootstrap mean and interval shifted by the same amount (as
    ``mteval.meta.stats.significance.system_level_ci`` centres its intervals); differences and
    p-values stay those of the segment means, which the resamples compute."""
    if comparison is None or np.array_equal(comparison.score, reported):
        return comparison
    shift = reported - comparison.score
    return dataclasses.replace(comparison, score=reported, mean=comparison.mean + shift,
                               low=comparison.low + shift, high=comparison.high + shift)


def compare_systems(experiment: Experiment, cache: ScoreCache, sel: Selection, texts: Any,
                    options: Options | None = None,
                    skip: Callable[[str, CacheError], None] | None = None) -> list[MetricComparison]:
    """Paired tests of every pair of the selected systems, for every selected metric (module
    docstring), on the selected segments: one :class:`MetricComparison` per metric, in -M order.
    A ``mean`` metric shows (and is ranked by) its reported system scores (:func:`_as_reported`).
    A metric whose inputs cannot be read is an error, or, with ``skip``, handed to it and left out."""
    options = options or Options()
    check_selection(experiment, sel, options.baseline)
    inputs, rules, reported = {}, {}, {}
    for metric in sel.metrics:
        try:
            inputs[metric], rules[metric], reported[metric] = statistics_for(metric, experiment, cache, sel, texts)
        except CacheError as exc:
            if skip is None:
                raise
            skip(metric, exc)
    if not inputs:
        return []
    bs = (paired_bootstrap(inputs, sel.systems, options.baseline, options.resamples, options.seed, options.alpha,
                           options.count_ties) if options.runs_bs else {})
    ar = (paired_randomization(inputs, sel.systems, options.baseline, options.trials, options.seed, options.alpha,
                               options.count_ties) if options.runs_ar else {})
    out = []
    for m in inputs:
        shown = reported[m]
        out.append(MetricComparison(m, rules[m], bs.get(m) if shown is None else _as_reported(bs.get(m), shown),
                                    ar.get(m) if shown is None else _as_reported(ar.get(m), shown)))
    return out


# ---- records ----

def _value(array: np.ndarray | None, *index: int) -> float | None:
    """A float of an array; None when the test did not run or gives none (NaN)."""
    if array is None:
        return None
    value = float(array[index])
    return None if np.isnan(value) else value


def _present(record: Record) -> Record:
    """The record without the fields that do not apply (None): ``-`` in TSV, absent in JSON."""
    return {k: v for k, v in record.items() if v is not None}


def _settings(result: MetricComparison, options: Options, refset: str, n_segments: int) -> Record:
    """The fields every record of a metric shares."""
    return {"refset": refset, "metric": result.metric, "level": "sys", "doc": "-", "segment": "-",
            "aggregate": result.aggregate, "test": options.test, "seed": options.seed,
            "resamples": options.resamples if options.runs_bs else None,
            "trials": options.trials if options.runs_ar else None, "alpha": options.alpha,
            "correction": options.correction, "ties": options.ties, "segments": n_segments, "_view": VIEW}


def _ranks(result: MetricComparison, options: Options) -> dict[str, tuple[int, str, int]]:
    """system -> (rank, rank range of its cluster, cluster number)."""
    out, start = {}, 1
    for number, group in enumerate(result.clusters(options.alpha, options.correction), start=1):
        span = f"{start}-{start + len(group) - 1}" if len(group) > 1 else str(start)
        for offset, system in enumerate(group):
            out[system] = (start + offset, span, number)
        start += len(group)
    return out


def _versus(result: MetricComparison, i: int, b: int, p_adj: float, alpha: float) -> Record:
    """System ``i`` against system ``b``: difference, its interval, p-values."""
    bs, ar = result.bs, result.ar
    return {"delta": float(result.decisive.diff[i, b]),
            "delta_low": _value(bs.diff_low if bs else None, i, b),
            "delta_high": _value(bs.diff_high if bs else None, i, b),
            "p_bs": _value(bs.p_value if bs else None, i, b), "p_ar": _value(ar.p_value if ar else None, i, b),
            "p_adj": p_adj, "significant": "yes" if p_adj <= alpha else "no"}


def _system_records(result: MetricComparison, options: Options, shared: Record) -> list[Record]:
    """One record per system, best first, with the comparison with the baseline when there is one."""
    ranks, bs = _ranks(result, options), result.bs
    systems, score = result.systems, result.decisive.score
    base = result.systems.index(options.baseline) if options.baseline else None
    adjusted = result.adjusted(options.correction, options.baseline) if options.baseline else None
    out = []
    for i in ranking(score, result.decisive.higher_is_better):
        rank, span, cluster = ranks[systems[i]]
        record = {"target": systems[i], **shared, "kind": "system", "score": float(score[i]),
                  "mean": _value(bs.mean if bs else None, i), "ci_low": _value(bs.low if bs else None, i),
                  "ci_high": _value(bs.high if bs else None, i), "rank": rank, "rank_range": span,
                  "cluster": cluster, "baseline": options.baseline}
        if base is not None and adjusted is not None and i != base:
            record.update(_versus(result, int(i), base, float(adjusted[i]), options.alpha))
        out.append(_present(record))
    return out


def _pair_records(result: MetricComparison, options: Options, shared: Record) -> list[Record]:
    """Every pair of systems once, the better ranked as ``target`` (score = its difference)."""
    order = ranking(result.decisive.score, result.decisive.higher_is_better)
    adjusted = result.adjusted(options.correction)
    out = []
    for k, i in enumerate(order):
        for j in order[k + 1:]:
            versus = _versus(result, int(i), int(j), float(adjusted[i, j]), options.alpha)
            out.append(_present({"target": result.systems[i], **shared, "kind": "pair", "score": versus["delta"],
                                  "baseline": result.systems[j], **versus}))
    return out


def comparison_records(results: Sequence[MetricComparison], options: Options, refset: str,
                       n_segments: int) -> list[Record]:
    """The tidy records of -compare (module docstring), metric by metric."""
    out: list[Record] = []
    for result in results:
        shared = _settings(result, options, refset, n_segments)
        out += _system_records(result, options, shared)
        if options.baseline is None:
            out += _pair_records(result, options, shared)
    return out
