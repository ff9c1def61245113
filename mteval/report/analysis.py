"""The report's numbers, through the pipeline and meta functions: system CIs and significance
clusters (paired bootstrap on segment scores), correlations with human judgements (with CIs),
the metric x metric correlation matrix, and QUEEN/KING/the greedy KING trace (>= 3 references)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from mteval.errors import CacheError, ConfigError
from mteval.io.corpus import DocumentIndex
from mteval.meta.assessments import Assessments
from mteval.meta.paired import Comparison, MetricInput, paired_bootstrap
from mteval.pipeline import compare, correlate, qarla_report
from mteval.pipeline.config import Experiment
from mteval.pipeline.evaluate import Selection, higher_is_better
from mteval.pipeline.texts import LoadedTexts
from mteval.report.data import RecordingCache, SystemScores
from mteval.store.cache import ScoreCache, refset_name

Record = dict[str, Any]
LOG = logging.getLogger(__name__)
ALPHA = 0.05  # significance level of the clusters and confidence level of the intervals (95 %)
SYSTEM_CORRELATIONS = ("pearson",)
SEGMENT_CORRELATIONS = ("pearson",)
SEGMENT_RESAMPLES_DIVISOR = 5  # segment-level CIs draw a fifth of the resamples (each is 10^4 points)


@dataclass(frozen=True)
class Significance:
    """One metric's paired bootstrap: every system's CI and the ranking clusters (best first);
    ``rule``: how a resample's system score is computed (``stats``: summed statistics; ``mean``)."""

    comparison: Comparison
    clusters: list[list[str]]
    rule: str

    def cluster_of(self, system: str) -> int:
        """1-based rank of the system's cluster."""
        return next(i for i, group in enumerate(self.clusters, start=1) if system in group)


def significance(experiment: Experiment, reader: RecordingCache, sel: Selection, texts: LoadedTexts,
                 scores: SystemScores, n: int, seed: int, correction: str = "holm") -> dict[str, Significance]:
    """Paired bootstrap of every complete metric with the inputs of ``iqeval -compare``
    (``mteval.pipeline.compare.statistics_for``: summed statistics where the metric's system score
    is computed so, else the mean of the segment scores), one random stream for all metrics;
    clusters at :data:`ALPHA` after ``correction`` of the pairwise p-values (Holm by default, as
    ``iqeval -compare``; ``none``: WMT's ``AssignRanks``)."""
    chosen = [m for k, m in enumerate(scores.metrics) if scores.complete[k]]
    if len(scores.systems) < 2 or not chosen:
        return {}
    found = {m: _input(experiment, reader, sel, texts, scores, m) for m in chosen}
    tests = paired_bootstrap({m: i for m, (i, _) in found.items()}, scores.systems, n=n, seed=seed, alpha=ALPHA)
    return {m: Significance(c, c.clusters(None, correction), found[m][1]) for m, c in tests.items()}


def _input(experiment: Experiment, reader: RecordingCache, sel: Selection, texts: LoadedTexts,
           scores: SystemScores, metric: str) -> tuple[MetricInput, str]:
    """A metric's bootstrap input as ``iqeval -compare`` builds it; where its statistics cannot be
    used (a file from another family version, of a family needing annotation), the mean of its
    segment scores, with a warning."""
    try:  # read()/load() as ScoreCache's, each file parsed once
        return compare.statistics_for(metric, experiment, cast(ScoreCache, reader), sel, texts)
    except CacheError as exc:
        LOG.warning("%s: intervals from the mean segment score: %s", metric, exc.format())
        segments = scores.segments[scores.metrics.index(metric)]
        return MetricInput.from_segments(segments, higher_is_better(metric)), "mean"


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
        points = correlate.system_points(human, sets, scores.systems, higher_is_better)
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
    return Correlations(system, segment, rated, names, matrix, tuple(notes))


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
