"""KING: the discriminative power of a metric set (IQMT manual §3.1.2).

KING_{A,R}(X) = Prob( for all a in A: QUEEN_{X,R-{r}}(r) >= QUEEN_{X,R-{r}}(a) ), estimated by
leave-one-out over the references: each reference r in turn is a *candidate* scored against
R - {r} together with the systems. At ``seg``/``doc`` level an item (r, segment or document) is a
hit when no system has a QUEEN strictly above the reference's; at ``sys`` level there is one
trial per reference, on system-level (micro-averaged) QUEEN.

:class:`KingEvaluator` precomputes, once per test bed, the per-metric pass/fail of every
leave-one-out triple test, so the KING of any metric subset is a boolean AND over the subset:
that is what makes greedy and exhaustive set optimisation (``mteval.meta.qarla.optimize``) cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.errors import MtevalError
from mteval.meta.qarla.queen import Counts, QarlaData, aggregate, queen_counts, require_references, triple_tests

MIN_TRIALS = 100
"""Fewest trials for a KING worth printing. KING is a proportion hits/trials, so its resolution is
1/trials; the manual reports KING to two decimals and separates metrics 0.01 apart (§6.3,
Table 11: NIST-1 0.34, NIST-2 0.37, ...), which needs at least 100 trials. At ``-G sys`` there is
one trial per held-out reference (3 with the manual's three references), always too few."""


@dataclass(frozen=True)
class KingResult:
    """A KING value with the hits and trials it was computed from."""

    value: float
    hits: int
    trials: int

    @property
    def enough_trials(self) -> bool:
        """Whether the estimate rests on at least :data:`MIN_TRIALS` trials."""
        return self.trials >= MIN_TRIALS


@dataclass(frozen=True)
class _Fold:
    """Leave-one-out fold for reference ``held_out``: candidates = systems + that reference."""

    held_out: int
    peer: np.ndarray  # (M, A+1, K-1, S), direction-aware; last candidate = the held-out reference
    ref_ref: np.ndarray  # (M, K-1, K-1, S)


def fold_arrays(data: QarlaData, index: np.ndarray) -> list[_Fold]:
    """Direction-aware leave-one-out arrays of the metrics ``index``, one fold per reference."""
    sys_ref, ref_ref = data.similarity_arrays(index)
    k = len(data.references)
    folds = []
    for held in range(k):
        rest = np.asarray([r for r in range(k) if r != held], dtype=np.intp)
        peer = np.concatenate([sys_ref[:, :, rest, :], ref_ref[:, held:held + 1][:, :, rest, :]], axis=1)
        folds.append(_Fold(held, peer, ref_ref[:, rest][:, :, rest, :]))
    return folds


def fold_hits(counts: Counts) -> tuple[int, int]:
    """Hits and trials of one fold at one level: the last candidate is the reference; an item is a
    hit when no system's QUEEN is strictly above it (compared exactly, as cross products)."""
    ref_h, ref_t = counts.hits[-1], counts.trials[-1]
    sys_h, sys_t = counts.hits[:-1], counts.trials[:-1]
    beaten = (sys_t > 0) & (sys_h * ref_t > ref_h * sys_t)
    valid = ref_t > 0
    hit = valid & ~beaten.any(axis=0)
    return int(hit.sum()), int(valid.sum())


def king_from_counts(fold_counts: Sequence[Counts], level: str, data: QarlaData) -> KingResult:
    """KING at ``level`` from the segment-level QUEEN counts of every fold."""
    hits = trials = 0
    for counts in fold_counts:
        h, t = fold_hits(aggregate(counts, level, data.documents))
        hits, trials = hits + h, trials + t
    return KingResult(hits / trials if trials else float("nan"), hits, trials)


_POPCOUNT = np.asarray([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount(bits: np.ndarray) -> np.ndarray:
    """Set bits of ``(C, B, S)`` packed bytes summed over B: counts ``(C, S)``."""
    count = np.bitwise_count(bits) if hasattr(np, "bitwise_count") else _POPCOUNT[bits]
    return count.sum(axis=1, dtype=np.int64)


def _packed_tests(fold: _Fold) -> tuple[np.ndarray, np.ndarray]:
    """A fold's per-metric triple tests as bits packed along the triple axis: (successes, valid),
    shape ``(M, C, ceil(T/8), S)`` (padding bits are 0, so AND and popcount stay exact)."""
    passed, valid = triple_tests(fold.peer, fold.ref_ref)
    return _pack(passed & valid), _pack(valid)


def _pack(bits: np.ndarray) -> np.ndarray:
    """Pack booleans ``(M, C, T, S)`` into bytes along T (faster than ``np.packbits`` on axis 2)."""
    m, c, t, s = bits.shape
    padded = np.zeros((m, c, -(-t // 8) * 8, s), dtype=np.uint8)
    padded[:, :, :t] = bits
    weights = (1 << np.arange(8, dtype=np.uint8)).reshape(1, 1, 1, 8, 1)
    return (padded.reshape(m, c, -1, 8, s) * weights).sum(axis=3, dtype=np.uint8)


class KingEvaluator:
    """KING of any subset of ``data.metrics``, with the per-metric triple tests computed once
    (bit-packed: the KING of a set is an AND of its metrics' bits and a popcount).

    In trans-topic mode (``-TT``) the pooled comparisons cannot be shared between subsets, so
    each subset is counted afresh (correct, slower).
    """

    def __init__(self, data: QarlaData, level: str = "seg", trans_topic: bool = False) -> None:
        require_references(data)
        if level not in ("seg", "doc", "sys"):
            raise MtevalError(f"unknown level {level!r}; use seg, doc or sys")
        self.data, self.level, self.trans_topic = data, level, trans_topic
        self.folds = fold_arrays(data, np.arange(len(data.metrics)))
        self.tests = [] if trans_topic else [_packed_tests(f) for f in self.folds]

    def start(self, index: int) -> list[tuple[np.ndarray, np.ndarray]] | tuple[int, ...]:
        """The combined test state of the one-metric set ``{index}``."""
        if self.trans_topic:
            return (index,)
        return [(passed[index], valid[index]) for passed, valid in self.tests]

    def extend(self, state: list[tuple[np.ndarray, np.ndarray]] | tuple[int, ...],
               index: int) -> list[tuple[np.ndarray, np.ndarray]] | tuple[int, ...]:
        """The state of the set with metric ``index`` added (a triple must pass every metric)."""
        if isinstance(state, tuple):
            return state + (index,)
        tests = zip(state, self.tests, strict=True)
        return [(p & passed[index], v & valid[index]) for (p, v), (passed, valid) in tests]

    def king_of_state(self, state: list[tuple[np.ndarray, np.ndarray]] | tuple[int, ...]) -> KingResult:
        """KING of a combined state."""
        if isinstance(state, tuple):
            idx = np.asarray(state, dtype=np.intp)
            counts = [queen_counts(f.peer[idx], f.ref_ref[idx], True) for f in self.folds]
        else:
            counts = [Counts(_popcount(p), _popcount(v)) for p, v in state]
        return king_from_counts(counts, self.level, self.data)

    def king(self, index: Sequence[int]) -> KingResult:
        """KING of the metric set given by indices into ``data.metrics``."""
        if len(index) == 0:
            raise MtevalError("KING needs at least one metric")
        state = self.start(int(index[0]))
        for i in index[1:]:
            state = self.extend(state, int(i))
        return self.king_of_state(state)


def king(data: QarlaData, metrics: Sequence[str] | None = None, level: str = "seg",
         trans_topic: bool = False) -> KingResult:
    """KING_{A,R}(X) of one metric set X (all metrics when None) at ``level`` (manual §3.1.2)."""
    index = data.metric_index(metrics)
    sub = _subset(data, index)
    return KingEvaluator(sub, level, trans_topic).king(list(range(len(index))))


def reference_queen(data: QarlaData, metrics: Sequence[str] | None = None,
                    trans_topic: bool = False) -> Counts:
    """QUEEN_{X,R-{r}}(r) of every reference (``-doref``), counts of shape ``(K, S)``."""
    require_references(data)
    index = data.metric_index(metrics)
    rows = []
    for fold in fold_arrays(data, index):
        counts = queen_counts(fold.peer[:, -1:], fold.ref_ref, trans_topic)
        rows.append((counts.hits[0], counts.trials[0]))
    return Counts(np.stack([h for h, _ in rows]), np.stack([t for _, t in rows]))


def _subset(data: QarlaData, index: np.ndarray) -> QarlaData:
    """``data`` restricted to the metrics ``index``."""
    return QarlaData(tuple(data.metrics[i] for i in index), data.systems, data.references,
                     data.sys_ref[index], data.ref_ref[index],
                     np.asarray(data.higher_is_better)[index],
                     None if data.sys_sys is None else data.sys_sys[index], data.documents)
