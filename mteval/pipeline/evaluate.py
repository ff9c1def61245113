"""IQeval's -doOQ (IQMT manual §4.2): metric scores outside QARLA, read from the cache only.

Records share one shape with every iqeval measure: ``target, refset, metric, level, doc,
segment, score`` (``-`` where a column does not apply).

Subsets (``docs/statistics.md``): the system score of a -T subset, and the score of a document
only part of which is selected, are computed as the metric's reference tool computes them on those
segments alone (:meth:`MetricFamily.aggregation`): from the summed sufficient statistics stored in
the cache (``stats``: BLEU, NIST, chrF, TER, GTM and WER/PER systems, METEOR, DPM, EDPM), ROUGE's
bootstrap average (``bootstrap``), or the mean of segment scores (``mean``: the other families and
users' own metrics). Each sys/doc record says which in its ``aggregate`` field (``file``: a user's
metric read as its file gives it). A document missing from a dropped-in file is the mean of its
segment scores.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mteval.errors import CacheError, ConfigError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import MEAN, STATS, MetricFamily, nan_mean
from mteval.pipeline.config import Experiment
from mteval.pipeline.hybrid import spec_of
from mteval.pipeline.sets import resolve, resolve_segments
from mteval.store.cache import ScoreCache, refset_name
from mteval.store.iqxml import ScoreFile

LEVELS = ("seg", "doc", "sys")
LOG = logging.getLogger(__name__)
Record = dict[str, Any]


@dataclass(frozen=True)
class Selection:
    """What -M -S -R -T -G -doref select."""

    metrics: tuple[str, ...]
    systems: tuple[str, ...]
    references: tuple[str, ...]
    segments: tuple[int, ...]
    level: str
    with_references: bool


def default_metrics(experiment: Experiment, cache: ScoreCache,
                    available: list[tuple[str, str, str]] | None = None) -> list[str]:
    """The configured metrics, then any other metric found in the cache (users' own files);
    ``available`` is ``cache.available()`` when the caller already has it."""
    found = sorted({m for _, _, m in (cache.available() if available is None else available)})
    return list(experiment.metrics) + [m for m in found if m not in experiment.metrics]


def select(experiment: Experiment, cache: ScoreCache, n_segments: int, metrics: str | None = None,
           systems: str | None = None, references: str | None = None, segments: str | None = None,
           level: str = "sys", with_references: bool = False) -> Selection:
    """Resolve the set options against the experiment."""
    if level not in LEVELS:
        raise ConfigError(f"-G {level!r}: expected one of {', '.join(LEVELS)}")
    spec = spec_of(experiment)
    if spec is not None and references == spec.name:  # -R HYB: the hybridized reference set
        return dataclasses.replace(select(experiment, cache, n_segments, metrics, systems, None, segments, level,
                                          False), references=(spec.name,))
    available = cache.available()  # one walk of the cache for the metric list and the check below
    sel = Selection(
        metrics=resolve(experiment, "-M", metrics, default_metrics(experiment, cache, available)),
        systems=resolve(experiment, "-S", systems, experiment.system_names),
        references=resolve(experiment, "-R", references, experiment.reference_names),  # default: the real ones
        segments=tuple(resolve_segments(experiment, segments, n_segments)),
        level=level, with_references=with_references,
    )
    return sel if metrics else _complete_user_metrics(experiment, cache, set(available), sel, n_segments)


def _complete_user_metrics(experiment: Experiment, cache: ScoreCache, have: set[tuple[str, str, str]],
                           sel: Selection, n_segments: int) -> Selection:
    """Without -M, a metric found in the cache but not configured (a user's files) is shown only
    where every selected target has a file that reads; otherwise it is left out with one warning
    naming the first missing or unreadable file (with -M it is required: an error)."""
    rows = targets_and_refsets(sel)
    keep = []
    for metric in sel.metrics:
        problem = None if metric in experiment.metrics else _user_metric_problem(cache, have, rows, metric,
                                                                                  n_segments)
        if problem is None:
            keep.append(metric)
        else:
            LOG.warning("metric %r left out: %s (name it with -M to require it)", metric, problem)
    return dataclasses.replace(sel, metrics=tuple(keep))


def _user_metric_problem(cache: ScoreCache, have: set[tuple[str, str, str]], rows: list[tuple[str, str]],
                         metric: str, n_segments: int) -> str | None:
    """Why a user's metric cannot be shown: a (target, refset) without its file, or a file that
    cannot be read even by the tolerant reader of the manual's layout; None when it can."""
    missing = [(t, r) for t, r in rows if (t, r, metric) not in have]
    if missing:
        return "no file for " + ", ".join(f"{t}/{r}" for t, r in missing[:3]) + (" ..." if len(missing) > 3 else "")
    for target, refset in rows:
        try:
            cache.load(target, refset, metric, n_segments)
        except CacheError as exc:
            return exc.format()
    return None


def targets_and_refsets(sel: Selection) -> list[tuple[str, str]]:
    """(target, refset) rows: systems against the selected references, and with -doref each
    reference against the other selected references."""
    rows = [(s, refset_name(sel.references)) for s in sel.systems]
    if sel.with_references:
        for r in sel.references:
            others = tuple(o for o in sel.references if o != r)
            if others:
                rows.append((r, refset_name(others)))
    return rows


FILE = "file"  # the aggregate of a user's metric read as its file gives it (no rule known)


@dataclass(frozen=True)
class Aggregator:
    """How one metric's document and system scores follow from its segments: its family's rule
    (a registered metric) or, for a user's own metric, the file's own score or the mean."""

    metric: str
    family: MetricFamily | None
    variant: str  # the canonical variant the family scores

    @classmethod
    def of(cls, metric: str) -> Aggregator:
        try:
            family = registry.create(registry.family_of(metric))
        except ConfigError:
            return cls(metric, None, metric)
        return cls(metric, family, registry.canonical(metric))

    def rule(self, level: str) -> str:
        return self.family.aggregation(level) if self.family is not None else MEAN

    def stored(self, level: str) -> str:
        """The aggregate of a score read from the file (the whole test set or a whole document)."""
        return self.rule(level) if self.family is not None else FILE

    def subset(self, found: tuple[Path, ScoreFile], rows: np.ndarray, level: str) -> float:
        """The ``level`` score of the segments ``rows`` (0-based) under the metric's rule."""
        path, score_file = found
        if self.family is None:
            return nan_mean(score_file.scores.segments[rows])
        if self.rule(level) == STATS:
            check_statistics(self.family, self.metric, level, path, score_file)
        return self.family.subset_score(score_file.scores, rows, self.variant, level)


def check_statistics(family: MetricFamily, metric: str, level: str, path: Path, score_file: ScoreFile) -> None:
    """A subset score from statistics needs the file's statistics, written by this family's version."""
    if score_file.scores.stats is None:
        raise CacheError(f"{metric}: the file has no sufficient statistics (written by IQMT/Asiya or an older "
                         f"mteval), and the {level} score of part of the test set is computed from them; "
                         "run iqsetup again to add them", path)
    written = dict(part.partition(":")[::2] for part in score_file.signature.split("|"))
    if (written.get("family"), written.get("v")) != (family.family, family.version):
        raise CacheError(f"{metric}: statistics written by family {written.get('family')!r} version "
                         f"{written.get('v')!r}, expected {family.family!r} version {family.version!r}; "
                         "run iqsetup again", path)


def level_records(found: tuple[Path, ScoreFile], base: Record, sel: Selection, documents: DocumentIndex,
                  how: Aggregator | None = None) -> list[Record]:
    """One score file at the selected level as records (``how``: the metric's aggregation; by
    default that of ``base["metric"]``)."""
    how = how or Aggregator.of(str(base["metric"]))
    scores = found[1].scores
    if sel.level == "sys":
        part = len(sel.segments) < len(documents)
        if part:
            value, rule = how.subset(found, np.array(sel.segments) - 1, "sys"), how.rule("sys")
        else:
            value, rule = scores.system, how.stored("sys")
        return [{**base, "level": "sys", "doc": "-", "segment": "-", "score": value, "aggregate": rule,
                 "_subset": part}]
    if sel.level == "doc":
        chosen = np.zeros(len(documents), dtype=bool)
        chosen[np.array(sel.segments, dtype=np.intp) - 1] = True
        out = []
        for doc in documents.documents:
            rows = np.asarray(documents.rows(doc), dtype=np.intp)
            picked = rows[chosen[rows]]
            if not len(picked):
                continue
            stored = scores.documents.get(doc)
            part = len(picked) < len(rows)
            if part:
                value, rule = how.subset(found, picked, "doc"), how.rule("doc")
            elif stored is not None and not np.isnan(stored):
                value, rule = stored, how.stored("doc")
            else:  # a dropped-in file without this document's score
                value, rule = nan_mean(scores.segments[rows]), MEAN
            out.append({**base, "level": "doc", "doc": doc, "segment": "-", "score": float(value),
                        "aggregate": rule, "_subset": part})
        return out
    return [{**base, "level": "seg", "doc": documents.doc_ids[n - 1], "segment": n,
             "score": float(scores.segments[n - 1])} for n in sel.segments]


def outside_qarla(cache: ScoreCache, sel: Selection, documents: DocumentIndex) -> list[Record]:
    """-doOQ: every selected metric for every selected target, at the selected level."""
    records: list[Record] = []
    rules = {metric: Aggregator.of(metric) for metric in sel.metrics}
    for target, refset in targets_and_refsets(sel):
        for metric in sel.metrics:
            found = cache.read(target, refset, metric, len(documents))
            base = {"target": target, "refset": refset, "metric": metric}
            records.extend(level_records(found, base, sel, documents, rules[metric]))
    return records


def higher_is_better(metric: str) -> bool:
    """Direction of a registered metric; users' own metrics are taken as similarities."""
    try:
        family = registry.families()[registry.family_of(metric)]
    except ConfigError:
        return True
    return family().info(metric).higher_is_better
