"""The report's numbers, through the pipeline and meta functions: system CIs and significance
clusters (paired bootstrap on segment scores), correlations with human judgements (with CIs),
the metric x metric correlation matrix, and QUEEN/KING/the greedy KING trace (>= 3 references)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from mteval.errors import CacheError, ConfigError
from mteval.evaluate import compare, correlate
from mteval.evaluate import qarla as qarla_report
from mteval.evaluate.metric_ranks import rank_records, ranked_pairs
from mteval.evaluate.selection import Selection
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.io.assessments import Assessments
from mteval.io.corpus import DocumentIndex
from mteval.meta.stats.correlation import kendall, pairwise_accuracy
from mteval.meta.stats.paired import Comparison
from mteval.metrics.registry import higher_is_better
from mteval.report.data import RecordingCache, SystemScores
from mteval.store.cache import ScoreCache, refset_name

Record = dict[str, Any]
LOG = logging.getLogger(__name__)
ALPHA = 0.05  # significance level of the clusters and confidence level of the intervals (95 %)
SYSTEM_CORRELATIONS = ("pearson",)
SEGMENT_CORRELATIONS = ("pearson",)
SEGMENT_RESAMPLES_DIVISOR = 5  # segment-level CIs draw a fifth of the resamples (each is 10^4 points)
RANK_ALPHA = 0.05  # the metrics' significance ranks (WMT's AssignRanks threshold)


@dataclass(frozen=True)
class Significance:
    """One metric's paired tests as ``iqeval -compare`` runs them (:func:`significance`): the
    systems' intervals (the bootstrap's; NaN with ``--test ar``), the ranking clusters (best first)
    and the corrected pairwise p-values of the deciding test; ``rule``: how a resample's system
    score is computed (``stats``: summed statistics; ``mean``; ``recompute``)."""

    result: compare.MetricComparison
    options: compare.Options

    @property
    def comparison(self) -> Comparison:
        """The test that gives the intervals: the bootstrap, else the deciding test."""
        return self.result.bs or self.result.decisive

    @property
    def rule(self) -> str:
        return self.result.aggregate

    @property
    def clusters(self) -> list[list[str]]:
        return self.result.clusters(self.options.alpha, self.options.correction)

    @property
    def test(self) -> str:
        """The test whose p-values decide: ``ar`` (approximate randomisation) or ``bs``."""
        return self.result.decisive.test

    def p_values(self) -> np.ndarray:
        """Pairwise p-values of the deciding test after the correction (``systems`` order)."""
        return self.result.adjusted(self.options.correction)

    def cluster_of(self, system: str) -> int:
        """1-based rank of the system's cluster."""
        return next(i for i, group in enumerate(self.clusters, start=1) if system in group)


def significance(experiment: Experiment, reader: RecordingCache, sel: Selection, texts: LoadedTexts,
                 scores: SystemScores, options: compare.Options) -> dict[str, Significance]:
    """``iqeval -compare``'s paired tests (:func:`mteval.evaluate.compare.compare_systems`: the
    same inputs, tests, resamples, seed and correction, hence the same scores, clusters and
    p-values) of every complete metric; a metric whose statistics cannot be read is left out
    with a warning."""
    chosen = [m for k, m in enumerate(scores.metrics) if scores.complete[k]]
    if len(scores.systems) < 2 or not chosen:
        return {}
    def skipped(metric: str, exc: CacheError) -> None:
        LOG.warning("%s: no significance clusters: %s", metric, exc.format())

    picked = dataclasses.replace(sel, metrics=tuple(chosen), systems=tuple(scores.systems))
    results = compare.compare_systems(experiment, cast(ScoreCache, reader), picked, texts, options, skipped)
    return {r.metric: Significance(r, options) for r in results}


@dataclass(frozen=True)
class Correlations:
    """Correlations with human judgements: records of the system and segment level, the points of
    the system-level scatter, and the metric x metric (plus human) matrix of the segment level."""

    system: list[Record]
    segment: list[Record]
    human_system: dict[str, float]  # system -> human score
    matrix_names: tuple[str, ...]
    matrix: np.ndarray  # Pearson between the oriented segment scores (and the human scores)
    notes: tuple[str, ...]
    ranks: list[Record] = dataclasses.field(default_factory=list)  # the metrics' significance ranks, sys and seg


def correlations(human: Assessments, scores: SystemScores, reader: RecordingCache, rows: np.ndarray,
                 n_segments: int, n: int, seed: int) -> Correlations:
    """System- and segment-level Pearson of every complete metric, with bootstrap CIs (``n``
    resamples at system level, ``n / 5`` at segment level)."""
    chosen = [m for k, m in enumerate(scores.metrics) if scores.complete[k]]
    sets = {m: {s: reader.load(s, scores.refset, m, n_segments) for s in scores.systems} for m in chosen}
    notes: list[str] = []
    system: list[Record] = []
    segment: list[Record] = []
    try:
        values = {m: {s: float(scores.system[scores.metrics.index(m), k]) for k, s in enumerate(scores.systems)}
                  for m in chosen}  # -T: the subset's system scores, as the report's own table
        points = correlate.system_points(human, sets, scores.systems, higher_is_better, rows, values)
        system = correlate.correlation_records(points, "sys", scores.refset, SYSTEM_CORRELATIONS,
                                               n_resamples=n, seed=seed)
    except ConfigError as exc:
        notes.append(f"system level: {exc.problem}")
    try:
        seg_points = correlate.segment_points(human, sets, scores.systems, higher_is_better, rows)
        segment = correlate.correlation_records(seg_points, "seg", scores.refset, SEGMENT_CORRELATIONS,
                                                n_resamples=max(1, n // SEGMENT_RESAMPLES_DIVISOR), seed=seed)
        names, matrix = metric_matrix(seg_points)
    except ConfigError as exc:
        notes.append(f"segment level: {exc.problem}")
        names, matrix = (), np.zeros((0, 0))
    rated = {s: float(human.system[s]) for s in scores.systems if s in human.system}
    ranks = (_ranks(points, system, scores.refset, n, seed) if system else []) + (
        _ranks(seg_points, segment, scores.refset, max(1, n // SEGMENT_RESAMPLES_DIVISOR), seed) if segment else [])
    return Correlations(system, segment, rated, names, matrix, tuple(notes), ranks)


def _ranks(points: correlate.Points, records: list[Record], refset: str, n: int, seed: int) -> list[Record]:
    """The metrics' significance ranks on Pearson (``iqeval --significance``'s: PERM-BOTH, ``n``
    permutations, mt-metrics-eval's AssignRanks at :data:`RANK_ALPHA`), testing only the pairs the
    ranks read."""
    if len(points.metrics) < 2:
        return []
    level = str(records[0]["level"])
    tests = correlate.significance_records(points, level, refset, "pearson", n_resamples=n, seed=seed,
                                           permutation_only=True, pairs=ranked_pairs(records, "pearson"))
    return rank_records([*records, *tests], RANK_ALPHA)


@dataclass(frozen=True)
class Agreement:
    """How one metric ranks the judged systems against the humans (system level): pairwise
    accuracy (Kocmi et al. 2021, ties agree with ties) and Kendall's tau-b over the systems; the
    metric's rank of every judged system (1 = best) and the system it misplaces most."""

    metric: str
    accuracy: float
    kendall: float
    ranks: dict[str, int]
    worst: str  # the system with the largest |metric rank - human rank|


def ranks_of(values: dict[str, float], higher_is_better: bool = True) -> dict[str, int]:
    """Competition ranks (1 = best; ties share the better rank)."""
    sign = 1.0 if higher_is_better else -1.0
    return {s: 1 + sum(sign * v > sign * values[s] for v in values.values()) for s in values}


def agreements(scores: SystemScores, human_system: dict[str, float]) -> list[Agreement]:
    """:class:`Agreement` of every metric with every judged system's score."""
    judged = [s for s in scores.systems if s in human_system]
    if len(judged) < 2:
        return []
    human = np.array([human_system[s] for s in judged])
    human_ranks = ranks_of(dict(zip(judged, human, strict=True)))
    out = []
    for k, metric in enumerate(scores.metrics):
        values = np.array([scores.system[k, scores.systems.index(s)] for s in judged])
        if np.isnan(values).any():
            continue
        oriented = values if higher_is_better(metric) else -values
        ranks = ranks_of(dict(zip(judged, oriented, strict=True)))
        worst = max(judged, key=lambda s: abs(ranks[s] - human_ranks[s]))
        out.append(Agreement(metric, pairwise_accuracy(human, oriented), kendall(human, oriented, "b"), ranks, worst))
    return out


def metric_matrix(points: correlate.Points) -> tuple[tuple[str, ...], np.ndarray]:
    """Pearson between every two of the metrics and the human scores, over the (system, segment)
    points where both have a score."""
    names = ("human", *points.metrics)
    columns = [points.human, *points.metrics.values()]
    k = len(columns)
    out = np.eye(k)
    for i in range(k):
        for j in range(i + 1, k):
            out[i, j] = out[j, i] = _pearson(columns[i], columns[j])
    return names, out


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson over the positions where both are numbers (NaN when undefined)."""
    keep = ~(np.isnan(a) | np.isnan(b))
    if keep.sum() < 3 or np.std(a[keep]) == 0 or np.std(b[keep]) == 0:
        return float("nan")
    return float(np.corrcoef(a[keep], b[keep])[0, 1])


@dataclass(frozen=True)
class Qarla:
    """QUEEN per system (system level), KING per metric and the greedy trace (segment level)."""

    metrics: tuple[str, ...]
    queen: list[Record]
    king: list[Record]
    trace: list[Record]


def qarla(reader: RecordingCache, metrics: Sequence[str], systems: Sequence[str], references: Sequence[str],
          segments: Sequence[int], documents: DocumentIndex) -> Qarla | None:
    """QARLA on the metrics whose single-reference files (system/reference and reference/reference)
    all read; None with fewer than 3 references or no such metric."""
    if len(references) < 3:
        return None
    n = len(documents)
    pairs = [(t, refset_name([r])) for t in (*systems, *references) for r in references if t != r]
    chosen = [m for m in metrics if reader.complete(pairs, m, n)]
    if not chosen:
        return None
    data = qarla_report.qarla_arrays(reader, chosen, systems, references, segments, documents,
                                     [higher_is_better(m) for m in chosen])
    return Qarla(tuple(chosen), qarla_report.queen_records(data, "sys", segments),
                 qarla_report.king_records(data, "seg"), qarla_report.optimize_records(data, "seg"))
