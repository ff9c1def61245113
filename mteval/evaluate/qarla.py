"""iqeval's QARLA actions (-doQUEEN -doKING -doJACK -optimizeKING, -TT): cache -> arrays -> records.

Arrays come from single-reference score files only: ``TARGET/r/METRIC`` for every system and
reference r, ``r1/r2/METRIC`` between references, and (JACK) ``a1/a2/METRIC`` between systems
(``iqsetup -JACK``). A -T segment subset restricts the arrays to those segments, so document and
system QUEEN/KING/JACK are computed on the selected segments only.

Records: ``target, refset, metric, level, doc, segment, score`` plus ``hits`` and ``trials``.
QUEEN rows have the system as target and ``QUEEN`` as metric (a column of iqeval's score matrix,
as in manual Tables 2, 3 and 12). KING, JACK and optimisation rows carry ``table`` (``KING``,
``JACK``, ``optimizeKING``): the text views print each as its own table (KING as Table 11,
metrics as rows). KING rows have ``KING`` as target and the metric (or ``SET`` for the whole
selected set) as metric; JACK rows ``JACK``/``JACK``; KING and optimisation rows carry
``enough_trials`` and ``min_trials``, JACK, SET and optimisation rows the ``metric_set``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from mteval.errors import CacheError
from mteval.evaluate.selection import rows_of
from mteval.io.corpus import DocumentIndex
from mteval.meta.qarla.jack import jack
from mteval.meta.qarla.king import MIN_TRIALS, KingEvaluator, KingResult, reference_queen
from mteval.meta.qarla.optimize import MAX_EXHAUSTIVE, Optimum, exhaustive_king, greedy_king
from mteval.meta.qarla.queen import Counts, QarlaData, aggregate, document_matrix, queen, ratio
from mteval.metrics.base import ScoreSet
from mteval.metrics.registry import higher_is_better
from mteval.store.cache import refset_name

Record = dict[str, Any]


class ScoreSource(Protocol):
    """What the QARLA actions need from the score cache."""

    def load(self, target: str, refset: str, metric: str, n_segments: int | None = None) -> ScoreSet:
        """Scores of a (target, refset, metric) triple; CacheError when missing."""
        ...


def _stack(cache: ScoreSource, targets: Sequence[str], others: Sequence[str], metric: str,
           rows: np.ndarray, n_segments: int) -> np.ndarray:
    """``out[t, o, :]`` = segment scores of target t against o (NaN on the diagonal)."""
    out = np.full((len(targets), len(others), len(rows)), np.nan)
    for i, target in enumerate(targets):
        for j, other in enumerate(others):
            if target != other:
                out[i, j] = cache.load(target, refset_name([other]), metric, n_segments).segments[rows]
    return out


def qarla_arrays(cache: ScoreSource, metrics: Sequence[str], systems: Sequence[str],
                 references: Sequence[str], segments: Sequence[int], documents: DocumentIndex,
                 higher_is_better: Sequence[bool], with_jack: bool = False) -> QarlaData:
    """Load the single-reference score files of a selection into :class:`QarlaData`.

    ``segments`` are 1-based segment numbers (iqeval's -T selection).
    """
    rows = rows_of(segments)
    n = len(documents)
    sys_ref = np.stack([_stack(cache, systems, references, m, rows, n) for m in metrics])
    ref_ref = np.stack([_stack(cache, references, references, m, rows, n) for m in metrics])
    sys_sys = (np.stack([_stack(cache, systems, systems, m, rows, n) for m in metrics])
               if with_jack else None)
    docs = DocumentIndex(tuple(documents.doc_ids[i] for i in rows))
    return QarlaData(tuple(metrics), tuple(systems), tuple(references), sys_ref, ref_ref,
                     np.asarray(higher_is_better, dtype=bool), sys_sys, docs)


def level_records(counts: Counts, names: Sequence[str], base: Record, level: str, data: QarlaData,
                  segments: Sequence[int]) -> list[Record]:
    """Records of per-candidate counts ``(C, S)`` at ``level`` (``names`` label the candidates)."""
    agg = aggregate(counts, level, data.documents)
    values = ratio(agg)
    doc_ids = (data.documents or DocumentIndex.single(data.n_segments)).doc_ids
    out: list[Record] = []
    for i, name in enumerate(names):
        row = {**base, "target": name}
        if level == "sys":
            out.append({**row, "level": "sys", "doc": "-", "segment": "-", "score": float(values[i]),
                        "hits": int(agg.hits[i]), "trials": int(agg.trials[i])})
        elif level == "doc":
            doc_names, _ = document_matrix(data.documents, data.n_segments)
            out += [{**row, "level": "doc", "doc": d, "segment": "-", "score": float(values[i, j]),
                     "hits": int(agg.hits[i, j]), "trials": int(agg.trials[i, j])}
                    for j, d in enumerate(doc_names)]
        else:
            out += [{**row, "level": "seg", "doc": doc_ids[j], "segment": int(seg),
                     "score": float(values[i, j]), "hits": int(agg.hits[i, j]),
                     "trials": int(agg.trials[i, j])} for j, seg in enumerate(segments)]
    return out


def queen_records(data: QarlaData, level: str, segments: Sequence[int], trans_topic: bool = False,
                  with_references: bool = False) -> list[Record]:
    """-doQUEEN: QUEEN of every system (and, with -doref, of every reference against the others)."""
    base = {"refset": refset_name(data.references), "metric": "QUEEN"}
    out = level_records(queen(data, trans_topic=trans_topic), data.systems, base, level, data, segments)
    if with_references:
        counts = reference_queen(data, trans_topic=trans_topic)
        for k, name in enumerate(data.references):
            others = tuple(r for r in data.references if r != name)
            one = Counts(counts.hits[k:k + 1], counts.trials[k:k + 1])
            own: Record = {"refset": refset_name(others), "metric": "QUEEN", "_against": others}  # for text views
            out += level_records(one, [name], own, level, data, segments)
    return out


def _king_record(refset: str, metric: str, level: str, result: KingResult, **extra: Any) -> Record:
    """One KING record (extra keys override the defaults); ``enough_trials`` says whether the
    estimate rests on at least ``min_trials`` trials (:data:`mteval.meta.qarla.king.MIN_TRIALS`)."""
    return {"target": "KING", "refset": refset, "metric": metric, "level": level, "doc": "-",
            "segment": "-", "score": result.value, "hits": result.hits, "trials": result.trials,
            "table": "KING", "enough_trials": result.enough_trials, "min_trials": MIN_TRIALS, **extra}


def king_records(data: QarlaData, level: str, trans_topic: bool = False) -> list[Record]:
    """-doKING: KING of every single metric, then of the whole selected set (metric ``SET``);
    rendered as manual Table 11 (metrics as rows)."""
    evaluator = KingEvaluator(data, level, trans_topic)
    refset = refset_name(data.references)
    out = [_king_record(refset, m, level, evaluator.king([i])) for i, m in enumerate(data.metrics)]
    if len(data.metrics) > 1:
        out.append(_king_record(refset, "SET", level, evaluator.king(list(range(len(data.metrics)))),
                                metric_set=",".join(data.metrics), set_size=len(data.metrics)))
    return out


def jack_records(data: QarlaData, level: str, segments: Sequence[int], trans_topic: bool = False) -> list[Record]:
    """-doJACK: JACK of the selected metric set at ``level`` (one row per segment/document/test set)."""
    counts = jack(data, trans_topic=trans_topic)
    single = Counts(counts.hits[None, :], counts.trials[None, :])
    base = {"refset": refset_name(data.references), "metric": "JACK", "table": "JACK",
            "metric_set": ",".join(data.metrics)}
    return level_records(single, ["JACK"], base, level, data, segments)


def optimize_records(data: QarlaData, level: str, trans_topic: bool = False,
                     exhaustive: bool = False) -> list[Record]:
    """-optimizeKING: the greedy trace (one row per metric tried: ``step``, the candidate set
    ``metric_set`` of ``set_size`` metrics and its KING as ``score``, the metric's own KING as
    ``single``, ``accepted``), then the optimal set (``OPTIMAL``); with ``exhaustive`` (at most
    12 metrics) also the best set over all subsets (``EXHAUSTIVE``)."""
    refset = refset_name(data.references)
    greedy = greedy_king(data, level=level, trans_topic=trans_topic)
    out: list[Record] = []
    chosen: list[str] = []
    for i, step in enumerate(greedy.trace, start=1):
        candidate = chosen + [step.metric]
        out.append(_king_record(refset, step.metric, level, step.combined, target="optimizeKING",
                                table="optimizeKING", step=i, set_size=len(candidate),
                                metric_set=",".join(candidate), single=step.single.value,
                                single_hits=step.single.hits, single_trials=step.single.trials,
                                accepted="yes" if step.accepted else "no"))
        chosen = candidate if step.accepted else chosen
    out.append(_optimum_record(refset, level, "OPTIMAL", greedy))
    if exhaustive and len(data.metrics) <= MAX_EXHAUSTIVE:
        out.append(_optimum_record(refset, level, "EXHAUSTIVE", exhaustive_king(data, level=level,
                                                                                trans_topic=trans_topic)))
    return out


def _optimum_record(refset: str, level: str, label: str, optimum: Optimum) -> Record:
    """The record of a search result, with its metric set and the number of sets evaluated."""
    return _king_record(refset, label, level, optimum.king, target="optimizeKING", table="optimizeKING",
                        metric_set=",".join(optimum.metrics), set_size=len(optimum.metrics),
                        evaluated=optimum.evaluated)


def selection_data(cache: ScoreSource, sel: Any, texts: Any, with_jack: bool = False) -> QarlaData:
    """The QARLA arrays of an iqeval selection, from the cache (metric directions from the registry)."""
    return qarla_arrays(cache, sel.metrics, sel.systems, sel.references, sel.segments, texts.documents,
                        [higher_is_better(m) for m in sel.metrics], with_jack)


def jack_data(cache: ScoreSource, sel: Any, texts: Any) -> QarlaData:
    """:func:`selection_data` with the system/system files; a missing one says to run ``iqsetup -JACK``."""
    try:
        return selection_data(cache, sel, texts, with_jack=True)
    except CacheError as err:
        raise CacheError(f"{err.problem}; -doJACK needs system/system scores: run iqsetup -JACK",
                         err.path) from None
