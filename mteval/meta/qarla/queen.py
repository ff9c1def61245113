"""QARLA measures on score arrays: QUEEN, KING and JACK (IQMT manual §3.1, Amigó et al. 2005).

Inputs are numpy arrays of *similarities* (see :class:`QarlaData`); every function here is
vectorised over metrics, systems, references and segments. The literal loop versions of the
definitions live in ``tests/test_meta_qarla.py`` and are the specification.

Conventions (those of Asiya's reference implementation):

* QUEEN_{X,R}(a) = Prob_{<r,r',r''>}( for all x in X: x(a, r) >= x(r', r'') ) over triples with
  r' != r'' (r may equal r' or r''), so a reference set of k references gives k * k(k-1)
  triples per segment; ties count as success. Segment QUEEN = successes / triples; document and
  system QUEEN = summed successes / summed triples over their segments (micro-average).
* A triple in which any selected metric is missing (NaN) is left out of both counts.
* Error metrics (``higher_is_better = False``) are negated first, so that ">=" always means
  "at least as similar".
* ``trans_topic`` (``-TT``, manual §6.3): the reference-pair similarities x(r', r'') are pooled
  over *all* segments, so a segment is compared with k(k-1) * n_segments reference pairs
  instead of k(k-1) (see ``docs/meta-evaluation.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

import numpy as np

from mteval.errors import MtevalError
from mteval.io.corpus import DocumentIndex

_CHUNK = 1 << 24  # boolean elements per broadcast block


@dataclass(frozen=True)
class QarlaData:
    """Similarity arrays of one test bed (NaN = missing).

    ``sys_ref[m, a, r, s]`` = x_m(a, r) on segment s; ``ref_ref[m, r1, r2, s]`` = x_m(r1, r2)
    (diagonal unused); ``sys_sys[m, a1, a2, s]`` = x_m(a1, a2), needed by JACK only.
    """

    metrics: tuple[str, ...]
    systems: tuple[str, ...]
    references: tuple[str, ...]
    sys_ref: np.ndarray
    ref_ref: np.ndarray
    higher_is_better: np.ndarray
    sys_sys: np.ndarray | None = None
    documents: DocumentIndex | None = None

    def __post_init__(self) -> None:
        m, a, k, s = len(self.metrics), len(self.systems), len(self.references), self.n_segments
        _check_shape("sys_ref", self.sys_ref, (m, a, k, s))
        _check_shape("ref_ref", self.ref_ref, (m, k, k, s))
        _check_shape("higher_is_better", np.asarray(self.higher_is_better), (m,))
        if self.sys_sys is not None:
            _check_shape("sys_sys", self.sys_sys, (m, a, a, s))
        if self.documents is not None and len(self.documents) != s:
            raise MtevalError(f"document index has {len(self.documents)} segments, scores have {s}")

    @property
    def n_segments(self) -> int:
        """Number of segments (last axis of the arrays)."""
        return int(self.sys_ref.shape[-1])

    def metric_index(self, names: Sequence[str] | None) -> np.ndarray:
        """Indices of the named metrics (all when ``names`` is None)."""
        if names is None:
            return np.arange(len(self.metrics))
        unknown = [n for n in names if n not in self.metrics]
        if unknown:
            raise MtevalError(f"metrics not in the score arrays: {', '.join(unknown)}")
        return np.asarray([self.metrics.index(n) for n in names], dtype=np.intp)

    def similarity(self, array: np.ndarray, index: np.ndarray) -> np.ndarray:
        """``array[index]`` (metric first) with error metrics negated: higher = more similar."""
        sign = np.where(np.asarray(self.higher_is_better, dtype=bool)[index], 1.0, -1.0)
        picked = np.asarray(array[index], dtype=np.float64)
        return picked * sign.reshape((-1,) + (1,) * (picked.ndim - 1))

    def similarity_arrays(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Direction-aware ``sys_ref`` and ``ref_ref`` restricted to the metrics ``index``."""
        return self.similarity(self.sys_ref, index), self.similarity(self.ref_ref, index)


def _check_shape(name: str, array: np.ndarray, shape: tuple[int, ...]) -> None:
    """Fail with a clear message when an array has the wrong shape."""
    if tuple(np.shape(array)) != shape:
        raise MtevalError(f"{name} has shape {tuple(np.shape(array))}, expected {shape}")


@dataclass(frozen=True)
class Counts:
    """Successes and trials per candidate and segment (integer arrays of the same shape)."""

    hits: np.ndarray
    trials: np.ndarray


def ordered_pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (i, j) with i != j of ``range(k)``, as two index arrays."""
    pairs = list(permutations(range(k), 2))
    if not pairs:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    first, second = zip(*pairs, strict=True)
    return np.asarray(first, np.intp), np.asarray(second, np.intp)


def triple_tests(peer: np.ndarray, ref_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-metric QUEEN tests of every candidate, reference triple and segment.

    ``peer[m, c, r, s]`` = x_m(c, r), ``ref_ref[m, r1, r2, s]``; both already direction-aware.
    Returns ``passed`` and ``valid``, boolean ``(M, C, T, S)`` with T = k * k(k-1) triples
    (manual §3.1.1: x(a, r) >= x(r', r'')).
    """
    first, second = ordered_pairs(ref_ref.shape[1])
    pair = ref_ref[:, first, second, :]  # (M, P, S)
    m, c, k, s = peer.shape
    passed = peer[:, :, :, None, :] >= pair[:, None, None, :, :]
    valid = ~(np.isnan(peer)[:, :, :, None, :] | np.isnan(pair)[:, None, None, :, :])
    return passed.reshape(m, c, k * len(first), s), valid.reshape(m, c, k * len(first), s)


def counts_from_tests(passed: np.ndarray, valid: np.ndarray, index: np.ndarray) -> Counts:
    """QUEEN counts of the metric subset ``index``: a triple succeeds when every metric passes."""
    ok = valid[index].all(axis=0)
    hit = passed[index].all(axis=0) & ok
    return Counts(hit.sum(axis=1), ok.sum(axis=1))


def _pooled_counts(peer: np.ndarray, ref_ref: np.ndarray) -> Counts:
    """Trans-topic QUEEN counts: each x(c, r, s) is tested against the reference pairs of all
    segments (manual §6.3). A query's successes = pool samples below it in every metric."""
    first, second = ordered_pairs(ref_ref.shape[1])
    pool: np.ndarray = ref_ref[:, first, second, :].reshape(ref_ref.shape[0], -1)  # (M, P*S)
    pool = pool[:, ~np.isnan(pool).any(axis=0)]
    m, c, k, s = peer.shape
    queries = peer.reshape(m, -1)
    if pool.shape[1] <= _MAX_BITSET_POOL:
        hits = _dominated_bitsets(queries, pool)
    else:
        hits = np.zeros(queries.shape[1], dtype=np.int64)
        step = max(1, _CHUNK // max(1, m * pool.shape[1]))
        for start in range(0, queries.shape[1], step):
            block = queries[:, start:start + step]
            hits[start:start + step] = (block[:, :, None] >= pool[:, None, :]).all(axis=0).sum(axis=1)
    ok = ~np.isnan(queries).any(axis=0)
    hits = np.where(ok, hits, 0).reshape(c, k, s).sum(axis=1)
    trials = (ok * pool.shape[1]).reshape(c, k, s).sum(axis=1)
    return Counts(hits, trials)


_MAX_BITSET_POOL = 16_000  # prefix tables take M * N^2 / 8 bytes


def _dominated_bitsets(queries: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """For every query column q, #pool columns u with u[m] <= q[m] for all m.

    Per metric, the pool samples at most q[m] are a prefix of that metric's sorted order, so a
    table of packed prefix bitsets turns each test into a lookup; the metrics' bitsets of a query
    are ANDed and counted.
    """
    m, n = pool.shape
    ranks = np.empty(queries.shape, dtype=np.intp)
    tables = []
    for i in range(m):
        order = np.argsort(pool[i], kind="stable")
        ranks[i] = np.searchsorted(pool[i][order], queries[i], side="right")
        prefix = np.arange(n + 1)[:, None] > np.argsort(order)[None, :]  # row j: the j smallest samples
        tables.append(np.packbits(prefix, axis=1))
    hits = np.zeros(queries.shape[1], dtype=np.int64)
    step = max(1, _CHUNK // max(1, tables[0].shape[1] * 8))
    for start in range(0, queries.shape[1], step):
        cut = slice(start, start + step)
        acc = tables[0][ranks[0, cut]]
        for i in range(1, m):
            acc &= tables[i][ranks[i, cut]]
        hits[cut] = (np.bitwise_count(acc) if hasattr(np, "bitwise_count")
                     else np.unpackbits(acc, axis=1)).sum(axis=1)
    return hits


def queen_counts(peer: np.ndarray, ref_ref: np.ndarray, trans_topic: bool = False) -> Counts:
    """QUEEN successes and triples, shape ``(C, S)``, for candidates ``peer[m, c, r, s]``."""
    if trans_topic:
        return _pooled_counts(peer, ref_ref)
    m, c, k, s = peer.shape
    per_segment = max(1, m * c * k * k * max(1, k - 1))
    step = max(1, _CHUNK // per_segment)
    hits, trials = np.zeros((c, s), np.int64), np.zeros((c, s), np.int64)
    everything = np.arange(m)
    for start in range(0, s, step):
        cut = slice(start, start + step)
        passed, valid = triple_tests(peer[..., cut], ref_ref[..., cut])
        part = counts_from_tests(passed, valid, everything)
        hits[:, cut], trials[:, cut] = part.hits, part.trials
    return Counts(hits, trials)


def require_references(data: QarlaData, minimum: int = 3) -> None:
    """QUEEN needs three references (two for r' != r'' plus r): fail clearly otherwise."""
    if len(data.references) < minimum:
        raise MtevalError(f"QUEEN/KING/JACK need at least {minimum} references, got "
                          f"{len(data.references)} ({', '.join(data.references) or 'none'})")


def queen(data: QarlaData, metrics: Sequence[str] | None = None, trans_topic: bool = False) -> Counts:
    """QUEEN_{X,R}(a) counts for every system and segment (manual §3.1.1), shape ``(A, S)``."""
    require_references(data)
    index = data.metric_index(metrics)
    if len(index) == 0:
        raise MtevalError("QUEEN needs at least one metric")
    sim_sys_ref, sim_ref_ref = data.similarity_arrays(index)
    return queen_counts(sim_sys_ref, sim_ref_ref, trans_topic)


def document_matrix(documents: DocumentIndex | None, n_segments: int) -> tuple[tuple[str, ...], np.ndarray]:
    """Document names and a 0/1 matrix ``(S, D)`` that sums segment counts into documents."""
    if documents is None:
        documents = DocumentIndex.single(n_segments)
    names = documents.documents
    onehot = np.zeros((n_segments, len(names)), dtype=np.int64)
    for j, name in enumerate(names):
        onehot[documents.rows(name), j] = 1
    return names, onehot


def aggregate(counts: Counts, level: str, documents: DocumentIndex | None = None) -> Counts:
    """Counts at ``seg`` (unchanged), ``doc`` (``(C, D)``) or ``sys`` (``(C,)``) level (micro sums)."""
    if level == "seg":
        return counts
    if level == "sys":
        return Counts(counts.hits.sum(axis=-1), counts.trials.sum(axis=-1))
    if level == "doc":
        _, onehot = document_matrix(documents, counts.hits.shape[-1])
        return Counts(counts.hits @ onehot, counts.trials @ onehot)
    raise MtevalError(f"unknown level {level!r}; use seg, doc or sys")


def ratio(counts: Counts) -> np.ndarray:
    """hits / trials, NaN where there are no trials."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts.trials > 0, counts.hits / np.maximum(counts.trials, 1), np.nan)
