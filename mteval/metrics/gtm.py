"""GTM-1, GTM-2, GTM-3: the General Text Matcher F-measure (GTM 1.4, ``gtm.jar +s +d -e N``).

Melamed, Green & Turian (2003), "Precision and recall of machine translation", HLT-NAACL, §2:
the *maximum match size* with run-length weighting is ``MMS_e = (sum over runs r of |r|^e)^(1/e)``
(eq. 2), where a matching is a set of hits (equal words) with at most one hit per row and column of
the bitext grid and a *run* is a diagonal block of hits; ``P = MMS / |candidate|``,
``R = MMS / |reference|``, ``F = 2PR / (P + R)``. For e = 1 the MMS is the clipped unigram match
count; for e > 1 the maximum is NP-hard and GTM 1.4 (``Bitext.score``) approximates it greedily.
Its procedure, reproduced here:

* the references of a segment are concatenated, each followed by a separator that matches nothing
  (so runs never cross references); hits are the (candidate, reference) positions of equal tokens;
* candidate runs are every diagonal block starting at a hit, of every length up to the end of
  its diagonal, ordered by length (longest first), then by grid point ``candidate position x
  (reference tokens + separators) + reference position`` (largest first);
* runs are taken in that order unless one of their cells shares a row or column with a taken
  run; the total taken length is capped at ``min(|candidate|, mean reference length)`` (a run that
  reaches the cap is shortened to it, possibly to a fraction when the mean is fractional);
* ``MMS_e = (sum taken |run|^e)^(1/e)``; P uses the candidate length and R the **mean** reference
  length. With ``+d``, a document's MMS and lengths are the sums over its segments.

Conventions, checked against Asiya's cached GTM values (``../shared/oracles/asiya-sample``, all
6 systems x 3 variants x (system + document + 3 segments) = 90 values equal to 8 decimals):

* tokens: ASCII-whitespace separated (Java's ``StringTokenizer``), case-sensitive;
* system score: GTM's document score over all segments (summed statistics ``[MMS_e, |cand|,
  mean |ref|]``; Asiya's raw input is one document);
* document scores: Asiya stores the **mean of the document's segment scores** (its
  ``Metrics::get_seg_doc_scores``; sample: google GTM-2 doc 0.51333086 vs system 0.53841814);
* multiple references: references are taken in name order (Asiya passes them in Perl hash order,
  which only matters for ties between equally long runs in different references). Besides the
  single-reference sample, GTM 1.4's own scoring classes run locally on all WMT21 pairs (A+B
  included) gave the same segment statistics (see ``tests/test_lex_gtm.py``).
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MEAN, STATS, MetricInfo, ScoreSet, Side, StatsFamily, mean_score_set
from mteval.metrics.registry import register
from mteval.metrics.segment_cache import PAIR_CACHE_LIMIT, SegmentCache

EXPONENTS = (1, 2, 3)
_DELIMITERS = re.compile(r"[ \t\n\r\f]+")
Words = tuple[str, ...]


def greedy_runs(hyp: Words, refs: Sequence[Words]) -> list[float]:
    """Lengths of the runs GTM 1.4's greedy matching takes (see the module docstring).

    Computed without listing every candidate run (GTM lists all of them: for a 5,000-word
    hypothesis equal to its reference that is 12.5 M runs). Candidates are taken in order and
    cells are only ever used up, so the run taken next is always the *maximal free interval* of
    hit cells along a diagonal with the largest (length, grid point): a longer or earlier candidate
    that were still free would have been taken at its turn. :func:`_free_runs` keeps those
    intervals (one sorted array of the maximal diagonal runs of >= 2 hits, plus a heap of the
    pieces left when a run is cut by a taken one); runs of one cell are the last level
    (:func:`_single_cells`). The cap is applied as GTM applies it: the first free interval at least
    as long as the remaining cap ends the matching with a run of exactly the cap. Short segments
    (most of them) take GTM's own candidate list instead (:func:`_candidate_list_runs`), which is
    faster there: 2.2 s instead of 10.6 s CPU for WMT21 ru-en's 30 pairs of 1,000 lines.
    """
    grid: list[str | None] = []
    for ref in refs:
        grid.extend(ref)
        grid.append(None)  # GTM's "REFERENCE BREAK": matches no token
    cap = min(float(len(hyp)), sum(len(r) for r in refs) / len(refs)) if refs else 0.0
    if len(hyp) * len(grid) <= LITERAL_CELLS:
        return _candidate_list_runs(hyp, grid, cap)
    ids: dict[str, int] = {}
    grid_ids = np.fromiter((-1 if t is None else ids.setdefault(t, len(ids)) for t in grid),
                           dtype=np.int64, count=len(grid))
    hyp_ids = np.fromiter((ids.get(t, -2) for t in hyp), dtype=np.int64, count=len(hyp))
    used_h = np.zeros(len(hyp), dtype=bool)
    used_r = np.zeros(len(grid), dtype=bool)
    runs: list[float] = []
    cap = _free_runs(hyp_ids, grid_ids, used_h, used_r, cap, runs)
    if cap > 0:
        _single_cells(hyp_ids, grid_ids, used_h, used_r, cap, runs)
    return runs


LITERAL_CELLS = 4096  # hypothesis x grid cells up to which GTM's own candidate list is the faster way


def _candidate_list_runs(hyp: Words, grid: Sequence[str | None], cap: float) -> list[float]:
    """GTM 1.4's greedy as GTM runs it: every candidate run (each hit cell with each length its
    diagonal allows), longest first, then largest grid point, taken when all its cells are free,
    the last one cut to the cap. Its list grows with the square of a diagonal's length, so only
    short segments take it (``LITERAL_CELLS``: at most ~90,000 candidates); the same runs as the
    interval search below (``tests/test_long_segments.py`` checks both against this procedure)."""
    width = len(grid)
    positions: dict[str, list[int]] = {}
    for j, token in enumerate(grid):
        if token is not None:
            positions.setdefault(token, []).append(j)
    hits = {(i, j) for i, token in enumerate(hyp) for j in positions.get(token, ())}
    candidates: list[tuple[int, int, int, int]] = []
    for i, j in hits:
        reach = 1
        while (i + reach, j + reach) in hits:
            reach += 1
        candidates.extend((-length, -(i * width + j), i, j) for length in range(1, reach + 1))
    candidates.sort()
    used_h, used_r = [False] * len(hyp), [False] * width
    runs: list[float] = []
    for neg_length, _, i, j in candidates:
        if cap <= 0:
            break
        length = min(float(-neg_length), cap)
        span = range(math.ceil(length))
        if any(used_r[j + k] or used_h[i + k] for k in span):
            continue
        for k in span:
            used_r[j + k] = used_h[i + k] = True
        cap -= length
        runs.append(length)
    return runs


CHUNK = 4096  # runs whose freedom is tested at once (vectorised) in :func:`_free_runs`


DENSE_CELLS = 4_000_000  # at most this many cells of the skewed hit matrix: all diagonals at once


def _diagonal_runs(hyp_ids: np.ndarray, grid_ids: np.ndarray) -> np.ndarray:
    """Every maximal diagonal run of >= 2 hits as one integer key ``length * cells + grid point``
    (``cells = |hyp| x width``, grid point ``i x width + j``), sorted as GTM takes candidates:
    longest first, then largest grid point (8 bytes per run). Segments of usual length take every
    diagonal at once (:func:`_dense_diagonal_runs`, the same keys); long ones one diagonal at a time."""
    n, width = len(hyp_ids), len(grid_ids)
    if n < 2 or width < 2:
        return np.zeros(0, dtype=np.int64)
    if (n + width) * (n + 1) <= DENSE_CELLS:
        out = _dense_diagonal_runs(hyp_ids, grid_ids)
        out.sort()
        return out[::-1]
    cells = n * width
    keys: list[np.ndarray] = []
    for d in range(-(n - 1), width):
        i0, i1 = max(0, -d), min(n, width - d)
        if i1 - i0 < 2:
            continue
        eq = np.concatenate(([False], hyp_ids[i0:i1] == grid_ids[i0 + d:i1 + d], [False]))
        edges = np.flatnonzero(eq[1:] != eq[:-1])
        begin, end = edges[::2], edges[1::2]
        long = end - begin >= 2
        if long.any():
            i = (begin[long] + i0).astype(np.int64)
            keys.append((end[long] - begin[long]).astype(np.int64) * cells + i * width + i + d)
    if not keys:
        return np.zeros(0, dtype=np.int64)
    out = np.concatenate(keys)
    out.sort()
    return out[::-1]


def _dense_diagonal_runs(hyp_ids: np.ndarray, grid_ids: np.ndarray) -> np.ndarray:
    """The keys of :func:`_diagonal_runs`, unsorted, from the hit matrix skewed so that each
    diagonal ``d = j - i + n - 1`` is one row, in row order, ended by a column that is never a hit."""
    n, width = len(hyp_ids), len(grid_ids)
    rows, cols = np.nonzero(hyp_ids[:, None] == grid_ids[None, :])
    skewed = np.zeros((n + width - 1, n + 1), dtype=bool)
    skewed[cols - rows + n - 1, rows] = True
    flat = np.concatenate(([False], skewed.ravel(), [False]))
    edges = np.flatnonzero(flat[1:] != flat[:-1])
    begin, length = edges[::2], edges[1::2] - edges[::2]
    begin = begin[length >= 2].astype(np.int64)
    length = length[length >= 2].astype(np.int64)
    d, i = np.divmod(begin, n + 1)
    return length * (n * width) + i * width + i + d - (n - 1)


def _free_runs(hyp_ids: np.ndarray, grid_ids: np.ndarray, used_h: np.ndarray, used_r: np.ndarray,
               cap: float, runs: list[float]) -> float:
    """Take free intervals of >= 2 cells in GTM's order (see :func:`greedy_runs`); returns the cap left.

    The sorted runs are tested a chunk at a time against prefix sums of the used rows and columns;
    a run that is not entirely free is cut into its free pieces of >= 2 cells (none for a run of 2),
    which go to a heap merged with the sorted runs by key."""
    width = len(grid_ids)
    cells = len(hyp_ids) * width
    keys = _diagonal_runs(hyp_ids, grid_ids)
    pieces: list[int] = []  # negated keys of cut runs (a min-heap)
    k = 0
    while cap > 0 and (k < len(keys) or pieces):
        top = -pieces[0] if pieces else -1
        stop = min(k + CHUNK, len(keys), k + int(np.searchsorted(-keys[k:k + CHUNK], -top)))
        if stop == k:  # the heap's piece comes first
            key = -heapq.heappop(pieces)
            cap = _take_or_cut(key, cells, width, used_h, used_r, cap, runs, pieces)
            continue
        chunk = keys[k:stop]
        length, point = chunk // cells, chunk % cells
        i, j = point // width, point % width
        row_sum = np.concatenate(([0], np.cumsum(used_h)))
        col_sum = np.concatenate(([0], np.cumsum(used_r)))
        free = (row_sum[i + length] == row_sum[i]) & (col_sum[j + length] == col_sum[j])
        first = int(np.argmax(free)) if free.any() else len(chunk)
        for key in _with_pieces(chunk[:first], length[:first], i[:first], j[:first], used_h, used_r).tolist():
            _take_or_cut(key, cells, width, used_h, used_r, cap, runs, pieces)  # cut: keep free pieces
        k += first
        if first < len(chunk) and not (pieces and -pieces[0] > chunk[first]):
            cap = _take_or_cut(int(chunk[first]), cells, width, used_h, used_r, cap, runs, pieces)
            k += 1
    return cap


SHORT = 32  # runs up to this long are tested for free pieces at once (:func:`_with_pieces`)


def _with_pieces(keys: np.ndarray, length: np.ndarray, i: np.ndarray, j: np.ndarray,
                 used_h: np.ndarray, used_r: np.ndarray) -> np.ndarray:
    """Keys of the runs (none entirely free) that still hold two free cells in a row, i.e. a
    piece GTM could take later; the others are dropped without being cut one by one."""
    short = (length > 2) & (length <= SHORT)
    keep = length > SHORT
    if short.any():
        offsets = np.arange(SHORT)
        inside = offsets[None, :] < length[short][:, None]
        rows = np.minimum(i[short][:, None] + offsets[None, :], len(used_h) - 1)
        cols = np.minimum(j[short][:, None] + offsets[None, :], len(used_r) - 1)
        free = inside & ~used_h[rows] & ~used_r[cols]
        keep[np.flatnonzero(short)[(free[:, :-1] & free[:, 1:]).any(axis=1)]] = True
    return keys[keep]


def _take_or_cut(key: int, cells: int, width: int, used_h: np.ndarray, used_r: np.ndarray,
                 cap: float, runs: list[float], pieces: list[int]) -> float:
    """Take the run of ``key`` if all its cells are free (at most the cap), else push its free
    pieces of >= 2 cells; returns the cap left."""
    length, point = divmod(key, cells)
    i, j = divmod(point, width)
    blocked = used_h[i:i + length] | used_r[j:j + length]
    if not blocked.any():
        taken = min(float(length), cap)
        used_h[i:i + math.ceil(taken)] = True
        used_r[j:j + math.ceil(taken)] = True
        runs.append(taken)
        return cap - taken
    free = np.concatenate(([False], ~blocked, [False]))
    edges = np.flatnonzero(free[1:] != free[:-1])
    for begin, end in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        if end - begin >= 2:
            heapq.heappush(pieces, -((end - begin) * cells + (i + begin) * width + j + begin))
    return cap


def _single_cells(hyp_ids: np.ndarray, grid_ids: np.ndarray, used_h: np.ndarray, used_r: np.ndarray,
                  cap: float, runs: list[float]) -> None:
    """The last level, runs of one cell: free hit cells by decreasing grid point (row by row)."""
    order = np.argsort(grid_ids, kind="stable")
    sorted_ids = grid_ids[order]
    for i in range(len(hyp_ids) - 1, -1, -1):
        if used_h[i] or cap <= 0:
            continue
        lo, hi = np.searchsorted(sorted_ids, hyp_ids[i], "left"), np.searchsorted(sorted_ids, hyp_ids[i], "right")
        cols = order[lo:hi]
        cols = cols[~used_r[cols]]
        if len(cols):
            taken = min(1.0, cap)
            used_h[i] = used_r[cols.max()] = True
            runs.append(taken)
            cap -= taken


def mms(runs: Sequence[float], e: int) -> float:
    """Maximum match size ``(sum |r|^e)^(1/e)`` of a set of runs (Melamed et al. 2003, eq. 2).

    Exact where the root is an integer (``64 ** (1/3)`` is 3.9999999999999996 in floating point),
    so that a perfect match scores exactly 1.
    """
    total = sum(n ** e for n in runs)
    root = float(total) ** (1.0 / e)
    near = round(root)
    return float(near) if near ** e == total else root


def f_measure(stats: np.ndarray) -> np.ndarray:
    """GTM F of rows ``[MMS, |hyp|, |ref|]``: ``2PR/(P+R) = 2 MMS / (|hyp| + |ref|)``, 0 without matches."""
    stats = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    m, h, r = stats[:, 0], stats[:, 1], stats[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(h > 0, m / np.where(h > 0, h, 1), 0.0)
        rc = np.where(r > 0, m / np.where(r > 0, r, 1), 0.0)
        return np.where(m > 0, 2 * p * rc / np.where(p + rc > 0, p + rc, 1), 0.0)


@register
class GTM(StatsFamily):
    """GTM-e F-measure for e = 1, 2, 3 (GTM 1.4 as Asiya runs it)."""

    family = "GTM"
    variants = ("GTM-1", "GTM-2", "GTM-3")
    # Time on one pair grows faster than linearly (the runs of long diagonals): one pair of real
    # words (issue 29, docs/reliability.md) took 5.7 s at 40,000 words, 7.4 s at 60,000, 12.8 s
    # at 80,000, 30 s at 120,000 and over 60 s at 170,000 (1 MB) on the shared 2-core machine;
    # against three references of 60,000 words (concatenated), 22 s. A longer segment is refused.
    max_segment_words = 60_000

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._words: SegmentCache[str, Words] = SegmentCache()  # bounded (segment_cache)
        self._mms: SegmentCache[tuple[Words, tuple[Words, ...]], tuple[float, ...]] = SegmentCache(PAIR_CACHE_LIMIT)

    def info(self, variant: str) -> MetricInfo:
        """Similarity in [0, 1]."""
        return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=0.0, upper_bound=1.0,
                          description=f"GTM F-measure, run-length exponent {variant[-1]}")

    def tokens(self, text: str) -> Words:
        """Tokens split on " \\t\\n\\r\\f" as Java's ``StringTokenizer`` (lower-cased unless
        case-sensitive), once per unique string."""
        found = self._words.get(text)
        if found is None:
            line = text if self.case_sensitive else text.lower()
            found = self._words[text] = tuple(t for t in _DELIMITERS.split(line) if t)
        return found

    def segment_mms(self, hyp: Words, refs: tuple[Words, ...]) -> tuple[float, ...]:
        """``MMS_e`` for e = 1, 2, 3 of one segment (one greedy matching serves all e), cached."""
        key = (hyp, refs)
        found = self._mms.get(key)
        if found is None:
            runs = greedy_runs(hyp, refs)
            found = self._mms[key] = tuple(mms(runs, e) for e in EXPONENTS)
        return found

    def prepare(self, references: Sequence[Side]) -> list[list[Words]]:
        """Tokens of each reference, references in name order (the multi-reference tie rule)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return [[self.tokens(t) for t in r.texts] for r in sorted(references, key=lambda r: r.name)]

    def segment_stats(self, hypothesis: Side, prepared: list[list[Words]]) -> np.ndarray:
        """Columns ``[MMS_e, |hyp|, mean |ref|]`` for e = 1, 2, 3 (all references matched jointly)."""
        n = len(hypothesis.texts)
        for ref in prepared:
            if len(ref) != n:
                raise InputError(f"{hypothesis.name}: {n} segments but a reference has {len(ref)}")
        stats = np.zeros((n, 3 * len(EXPONENTS)))
        for i, text in enumerate(hypothesis.texts):
            hyp = self.tokens(text)
            refs = tuple(ref[i] for ref in prepared)
            mean_ref = sum(len(r) for r in refs) / len(refs)
            for k, m in enumerate(self.segment_mms(hyp, refs)):
                stats[i, 3 * k:3 * k + 3] = (m, len(hyp), mean_ref)
        return stats

    def score(self, hypothesis: Side, prepared: list[list[Words]], documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """System and segment scores from statistics; documents as Asiya: mean of segment scores."""
        scores = super().score(hypothesis, prepared, documents, variants)
        return {v: ScoreSet(system=s.system, documents=mean_score_set(s.segments, documents).documents,
                            segments=s.segments, stats=s.stats) for v, s in scores.items()}

    def aggregation(self, level: str) -> str:
        """System: GTM's score of summed statistics; documents: Asiya's mean of segment scores."""
        return STATS if level == "sys" else MEAN

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """GTM-e F of each statistics row."""
        k = EXPONENTS.index(int(variant.split("-")[1]))
        return f_measure(np.atleast_2d(stats)[:, 3 * k:3 * k + 3])
