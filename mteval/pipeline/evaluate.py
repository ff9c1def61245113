"""IQeval's -doOQ (IQMT manual §4.2): metric scores outside QARLA, read from the cache only.

Records share one shape with every iqeval measure: ``target, refset, metric, level, doc,
segment, score`` (``-`` where a column does not apply).

Conventions: a system-level score with a -T segment subset is the mean of the selected segment
scores (the cache holds scores, not statistics); a document missing from a dropped-in file is the
mean of its segment scores.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from mteval.errors import CacheError, ConfigError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import ScoreSet
from mteval.pipeline.config import Experiment
from mteval.pipeline.hybrid import spec_of
from mteval.pipeline.sets import resolve, resolve_segments
from mteval.store.cache import ScoreCache, refset_name

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


def level_records(scores: ScoreSet, base: Record, sel: Selection, documents: DocumentIndex) -> list[Record]:
    """One score set at the selected level as records."""
    all_segments = len(sel.segments) == len(documents)
    if sel.level == "sys":
        value = scores.system if all_segments else float(np.nanmean(scores.segments[np.array(sel.segments) - 1]))
        return [{**base, "level": "sys", "doc": "-", "segment": "-", "score": value}]
    if sel.level == "doc":
        chosen = set(sel.segments)
        out = []
        for doc in documents.documents:
            rows = documents.rows(doc)
            if not chosen.intersection(int(i) + 1 for i in rows):
                continue
            stored = scores.documents.get(doc)
            value = stored if stored is not None and not np.isnan(stored) else (
                float(np.nanmean(scores.segments[rows])) if len(rows) else float("nan"))
            out.append({**base, "level": "doc", "doc": doc, "segment": "-", "score": float(value)})
        return out
    return [{**base, "level": "seg", "doc": documents.doc_ids[n - 1], "segment": n,
             "score": float(scores.segments[n - 1])} for n in sel.segments]


def outside_qarla(cache: ScoreCache, sel: Selection, documents: DocumentIndex) -> list[Record]:
    """-doOQ: every selected metric for every selected target, at the selected level."""
    records: list[Record] = []
    for target, refset in targets_and_refsets(sel):
        for metric in sel.metrics:
            scores = cache.load(target, refset, metric, len(documents))
            base = {"target": target, "refset": refset, "metric": metric}
            records.extend(level_records(scores, base, sel, documents))
    return records


def higher_is_better(metric: str) -> bool:
    """Direction of a registered metric; users' own metrics are taken as similarities."""
    try:
        family = registry.families()[registry.family_of(metric)]
    except ConfigError:
        return True
    return family().info(metric).higher_is_better
