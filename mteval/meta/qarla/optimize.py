"""Finding a metric set with high KING (IQMT manual §3.3, ``-optimizeKING``).

* :func:`greedy_king`: rank single metrics by KING (stable: ties keep the input order), then
  follow that order, adding a metric only if the set's KING *strictly* increases. The first
  (best) metric always starts the set.
* :func:`exhaustive_king`: every non-empty subset of at most 12 metrics (4095 sets), by a
  depth-first walk that reuses the combined tests of the parent set; ties are broken towards
  smaller sets, then towards the earlier set in input order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mteval.errors import MtevalError
from mteval.meta.qarla.king import KingEvaluator, KingResult
from mteval.meta.qarla.queen import QarlaData

MAX_EXHAUSTIVE = 12


@dataclass(frozen=True)
class GreedyStep:
    """One step of the greedy search: the metric tried, its own KING and the set's KING with it."""

    metric: str
    single: KingResult
    combined: KingResult
    accepted: bool


@dataclass(frozen=True)
class Optimum:
    """The result of a search: the chosen set, its KING, and (greedy) the trace."""

    metrics: tuple[str, ...]
    king: KingResult
    trace: tuple[GreedyStep, ...] = ()
    evaluated: int = 0


def rank_single(evaluator: KingEvaluator, names: Sequence[str]) -> list[tuple[str, KingResult]]:
    """Every metric with its own KING, best first (stable sort: ties keep the given order)."""
    singles = [(n, evaluator.king_of_state(evaluator.start(evaluator.data.metrics.index(n))))
               for n in names]
    order = sorted(range(len(singles)), key=lambda i: -singles[i][1].value)
    return [singles[i] for i in order]


def greedy_king(data: QarlaData, metrics: Sequence[str] | None = None, level: str = "seg",
                trans_topic: bool = False) -> Optimum:
    """Greedy KING optimisation of manual §3.3, with the full trace."""
    names = list(data.metrics if metrics is None else metrics)
    data.metric_index(names)
    if not names:
        raise MtevalError("-optimizeKING needs at least one metric")
    evaluator = KingEvaluator(data, level, trans_topic)
    ranked = rank_single(evaluator, names)
    first, best = ranked[0]
    state = evaluator.start(data.metrics.index(first))
    chosen, trace = [first], [GreedyStep(first, best, best, True)]
    for name, single in ranked[1:]:
        candidate = evaluator.extend(state, data.metrics.index(name))
        combined = evaluator.king_of_state(candidate)
        accepted = combined.value > best.value
        trace.append(GreedyStep(name, single, combined, accepted))
        if accepted:
            state, best = candidate, combined
            chosen.append(name)
    return Optimum(tuple(chosen), best, tuple(trace), len(ranked) * 2 - 1)


def exhaustive_king(data: QarlaData, metrics: Sequence[str] | None = None, level: str = "seg",
                    trans_topic: bool = False) -> Optimum:
    """The best KING over all non-empty subsets of at most :data:`MAX_EXHAUSTIVE` metrics."""
    names = list(data.metrics if metrics is None else metrics)
    if not 0 < len(names) <= MAX_EXHAUSTIVE:
        raise MtevalError(f"exhaustive KING search takes 1..{MAX_EXHAUSTIVE} metrics, got {len(names)}")
    evaluator = KingEvaluator(data, level, trans_topic)
    index = [int(i) for i in data.metric_index(names)]
    best: list = [None, (), 0]  # king, set, evaluated

    def visit(state: object, chosen: tuple[int, ...], start: int) -> None:
        """Score the set ``chosen`` and recurse into its supersets with later metrics."""
        result = evaluator.king_of_state(state)  # type: ignore[arg-type]
        best[2] += 1
        if best[0] is None or _better(result, chosen, best[0], best[1]):
            best[0], best[1] = result, chosen
        for j in range(start, len(index)):
            visit(evaluator.extend(state, index[j]), chosen + (j,), j + 1)  # type: ignore[arg-type]

    for j in range(len(index)):
        visit(evaluator.start(index[j]), (j,), j + 1)
    return Optimum(tuple(names[j] for j in best[1]), best[0], (), best[2])


def _better(result: KingResult, chosen: tuple[int, ...], best: KingResult, best_set: tuple[int, ...]) -> bool:
    """Higher KING wins; then the smaller set; then the earlier set (lexicographic indices)."""
    if result.value != best.value:
        return bool(result.value > best.value)
    if len(chosen) != len(best_set):
        return len(chosen) < len(best_set)
    return chosen < best_set
