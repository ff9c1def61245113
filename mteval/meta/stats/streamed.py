"""Exact statistics of long streams of numbers in memory that does not grow with the stream.

The paired bootstrap (:mod:`mteval.meta.stats.paired`) reports, for every system and pair of systems,
the mean of ``n`` resampled scores, order statistics of them and a p-value that needs the mean
first. Holding the ``n`` scores costs memory in proportion to ``n``; these classes give the same
numbers, bit for bit, from the scores fed a block of columns at a time, over a few passes of the
same stream (the caller regenerates it from its seed):

* :class:`RunningSum`: the mean ``np.mean(x, axis=1)`` gives when ``x`` is laid out column by
  column (Fortran order, as the bootstrap keeps its scores: chunks of ``(rows, systems)`` scores,
  transposed and concatenated): numpy then adds each row left to right from 0.0, not pairwise;
  so does this, a block at a time.
* :class:`Selection`: order statistics ``np.sort(row)[rank]`` of many rows. A pass counts each
  target's values in :data:`BINS` bins of a bracket (first taken from the first block, three times
  its range); the bin holding the rank is kept, and the next pass collects its values (at most
  :data:`CAP` a target) and sorts them. Rarer cases take a pass more: a bin of more than CAP
  values is bracketed again by its smallest and largest value; a rank outside the first bracket
  brackets the rest of the range. ``-inf`` sorts first, ``inf`` and NaN last, as ``np.sort``.
  Memory: targets x (BINS + CAP) numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

BINS = 2048  # a bracket's bins per target
CAP = 4096  # values of one bin collected per target; a fuller bin is bracketed again

HIST, COLLECT, DONE = range(3)  # a target's phase


class RunningSum:
    """Row sums of a ``(rows, n)`` stream fed as consecutive column blocks, added left to right from
    0.0 (``np.cumsum``): what ``np.mean(x, axis=1)`` adds when ``x`` is laid out column by column,
    as the bootstrap's kept scores are (module docstring)."""

    def __init__(self, rows: int, n: int) -> None:
        self.n = n
        self._total: np.ndarray = np.zeros((rows, 1))
        self._fed = 0

    def feed(self, block: np.ndarray) -> None:
        """The next columns of every row."""
        self._total = np.cumsum(np.concatenate([self._total, block], axis=1), axis=1)[:, -1:]
        self._fed += block.shape[1]

    def mean(self) -> np.ndarray:
        """Every row's mean (all ``n`` columns fed)."""
        if self._fed != self.n:
            raise ValueError(f"the sum of {self.n} columns was fed {self._fed}")
        return self._total[:, 0] / self.n


def _bins(values: np.ndarray, lo: np.ndarray, span: np.ndarray) -> np.ndarray:
    """Bin numbers (as floats) of values in their target's bracket ``[lo, lo + span)``: monotone in
    the value, and the same float operations in every pass, so a bin is a run of the sorted values."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.clip(np.floor((values - lo) / span * BINS), 0, BINS - 1)


def _buckets(values: np.ndarray, lo: np.ndarray, span: np.ndarray) -> np.ndarray:
    """Each value's bucket: 0 below its target's bracket, 1 + its bin inside, BINS + 1 above it or
    not finite (NaN)."""
    with np.errstate(invalid="ignore"):
        inside = np.where(values < lo + span, _bins(values, lo, span), BINS)
        return (np.where(values < lo, -1, inside) + 1).astype(np.intp)


class Selection:
    """Order statistics of the rows of a stream: target ``t`` is ``np.sort(row[series[t]])[ranks[t]]``
    over the ``n`` columns, exact, in bounded memory (module docstring). Feed every pass's blocks
    with :meth:`feed`, call :meth:`end_pass` after each pass, until :attr:`done`; then :attr:`value`."""

    def __init__(self, n: int, series: Sequence[int] | np.ndarray, ranks: Sequence[int] | np.ndarray) -> None:
        self.n = n
        self.series = np.asarray(series, dtype=np.intp)
        self.ranks = np.asarray(ranks, dtype=np.int64)
        targets, rows = len(self.ranks), int(self.series.max()) + 1 if len(self.series) else 0
        self.value = np.full(targets, np.nan)
        self.phase = np.full(targets, HIST if targets else DONE, dtype=np.int8)
        self._first_pass = True
        self._nan, self._neg, self._pos = (np.zeros(rows, dtype=np.int64) for _ in range(3))
        self._min, self._max = np.full(rows, np.inf), np.full(rows, -np.inf)
        self.lo, self.span = np.full(targets, np.nan), np.full(targets, np.nan)
        self._below = np.zeros(targets, dtype=np.int64)
        self._hist = np.zeros((targets, BINS), dtype=np.int64)
        self._bin, self._before, self._count = (np.zeros(targets, dtype=np.int64) for _ in range(3))
        self._kept: list[list[np.ndarray]] = [[] for _ in range(targets)]
        self._bin_min, self._bin_max = np.full(targets, np.inf), np.full(targets, -np.inf)
        self._uncapped = np.zeros(targets, dtype=bool)
        self._rank = self.ranks.copy()

    @property
    def done(self) -> bool:
        """Every target is known."""
        return bool((self.phase == DONE).all())

    def feed(self, block: np.ndarray) -> None:
        """The next columns ``(rows, k)`` of every row of the stream."""
        finite = np.where(np.isfinite(block), block, np.nan)
        if self._first_pass:
            self._feed_range(block, finite)
        hist = np.flatnonzero(self.phase == HIST)
        if len(hist):
            self._feed_hist(hist, finite[self.series[hist]])
        collect = np.flatnonzero(self.phase == COLLECT)
        if len(collect):
            self._feed_collect(collect, finite[self.series[collect]])

    def _feed_range(self, block: np.ndarray, finite: np.ndarray) -> None:
        """First pass: NaN and infinity counts and the finite range of every row; the first block
        sets each target's bracket (three times the block's finite range, centred on it)."""
        self._nan += np.isnan(block).sum(axis=1)
        self._neg += (block == -np.inf).sum(axis=1)
        self._pos += (block == np.inf).sum(axis=1)
        with np.errstate(invalid="ignore"):
            low, high = np.fmin.reduce(finite, axis=1, initial=np.inf), np.fmax.reduce(finite, axis=1, initial=-np.inf)
        unset = np.flatnonzero((self.phase == HIST) & np.isnan(self.lo) & np.isfinite(low[self.series]))
        if len(unset):
            lo, hi = low[self.series[unset]], high[self.series[unset]]
            self._bracket(unset, lo - (hi - lo), np.nextafter(hi + (hi - lo), np.inf))
        self._min, self._max = np.fmin(self._min, low), np.fmax(self._max, high)

    def _bracket(self, targets: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        """Histogram these targets' values in ``[lo, hi)`` in the next pass."""
        self.phase[targets] = HIST
        self.lo[targets], self.span[targets] = lo, hi - lo
        self._below[targets] = 0
        self._hist[targets] = 0

    def _feed_hist(self, targets: np.ndarray, values: np.ndarray) -> None:
        """Count each target's values below its bracket and in each bin of it."""
        ready = ~np.isnan(self.lo[targets])  # no bracket yet: no finite value seen
        targets, values = targets[ready], values[ready]
        buckets = _buckets(values, self.lo[targets, None], self.span[targets, None])
        buckets += np.arange(len(targets))[:, None] * (BINS + 2)
        counts = np.bincount(buckets.ravel(), minlength=len(targets) * (BINS + 2)).reshape(-1, BINS + 2)
        self._below[targets] += counts[:, 0]
        self._hist[targets] += counts[:, 1:BINS + 1]

    def _members(self, targets: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Whether each value lies in its target's chosen bin (as the histogram binned it)."""
        lo, span = self.lo[targets, None], self.span[targets, None]
        with np.errstate(invalid="ignore"):
            inside = (values >= lo) & (values < lo + span)
            return inside & (_bins(values, lo, span) == self._bin[targets, None])

    def _feed_collect(self, targets: np.ndarray, values: np.ndarray) -> None:
        """Collect the values of each target's bin (when at most CAP), and its smallest and largest."""
        member = self._members(targets, values)
        keep = (self._count[targets] <= CAP) | self._uncapped[targets]
        full = np.flatnonzero(~keep)  # too many to collect: their smallest and largest value
        if len(full):
            ts, inside = targets[full], member[full]
            self._bin_min[ts] = np.fmin(self._bin_min[ts], np.where(inside, values[full], np.inf).min(axis=1))
            self._bin_max[ts] = np.fmax(self._bin_max[ts], np.where(inside, values[full], -np.inf).max(axis=1))
        which, column = np.nonzero(member & keep[:, None])
        if not len(which):
            return
        starts = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
        for start, stop in zip(starts, [*starts[1:], len(which)], strict=True):
            self._kept[targets[which[start]]].append(values[which[start], column[start:stop]])

    def end_pass(self) -> None:
        """After a pass: place the targets whose value is known, choose the next pass's work."""
        if self._first_pass:
            self._first_pass = False
            self._special_ranks()
        histogrammed, collected = np.flatnonzero(self.phase == HIST), np.flatnonzero(self.phase == COLLECT)
        for t in histogrammed:
            self._after_hist(int(t))
        for t in collected:
            self._after_collect(int(t))

    def _special_ranks(self) -> None:
        """Ranks among the infinities and NaN (np.sort: -inf first, inf then NaN last), and rows whose
        finite values are all equal: known after the first pass."""
        rows = self.series
        finite = self.n - self._nan[rows] - self._neg[rows] - self._pos[rows]
        rank = self._rank = self.ranks - self._neg[rows]  # among the finite values
        special = [(rank < 0, -np.inf), (rank >= finite + self._pos[rows], np.nan),
                   ((rank >= finite) & (rank < finite + self._pos[rows]), np.inf),
                   ((rank >= 0) & (rank < finite) & (self._min[rows] == self._max[rows]), self._min[rows])]
        for where, value in special:
            where = where & (self.phase != DONE)
            self.value[where] = value[where] if isinstance(value, np.ndarray) else value
            self.phase[where] = DONE

    def _after_hist(self, t: int) -> None:
        """The bin holding target ``t``'s rank, or the part of the range beyond the bracket."""
        below, inside = int(self._below[t]), int(self._hist[t].sum())
        row = self.series[t]
        if self._rank[t] < below:
            self._bracket(np.array([t]), np.array([self._min[row]]), np.array([self.lo[t]]))
        elif self._rank[t] >= below + inside:
            hi = self.lo[t] + self.span[t]
            self._bracket(np.array([t]), np.array([hi]), np.array([np.nextafter(self._max[row], np.inf)]))
        else:
            cumulative = np.cumsum(self._hist[t])
            b = int(np.searchsorted(cumulative, self._rank[t] - below, side="right"))
            self._bin[t], self._count[t] = b, self._hist[t, b]
            self._before[t] = below + (cumulative[b - 1] if b else 0)
            self._kept[t], self._bin_min[t], self._bin_max[t] = [], np.inf, -np.inf
            self.phase[t] = COLLECT

    def _after_collect(self, t: int) -> None:
        """Target ``t``'s value from its bin's sorted values; a bin too full is bracketed again."""
        offset = int(self._rank[t] - self._before[t])
        if self._count[t] <= CAP or self._uncapped[t]:
            kept = np.sort(np.concatenate(self._kept[t])) if self._kept[t] else np.zeros(0)
            self.value[t], self.phase[t], self._kept[t] = kept[offset], DONE, []
        elif self._bin_min[t] == self._bin_max[t]:
            self.value[t], self.phase[t] = self._bin_min[t], DONE
        else:
            lo, hi = self._bin_min[t], np.nextafter(self._bin_max[t], np.inf)
            if lo == self.lo[t] and hi - lo == self.span[t]:  # the bins split nothing: collect it all
                self._uncapped[t] = True
                self._kept[t], self._bin_min[t], self._bin_max[t] = [], np.inf, -np.inf
                return
            self._bracket(np.array([t]), np.array([lo]), np.array([hi]))
