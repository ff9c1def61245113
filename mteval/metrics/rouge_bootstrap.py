"""ROUGE-1.5.5's system score: the mean of 1000 bootstrap resamples drawn with Perl's ``rand``.

``computeAverages``/``bootstrapResampling`` (ROUGE-1.5.5.pl): the evaluation ids ``"1.X"``,
``"2.X"``, ... are sorted as **strings**; resample ``s`` (s = 0..999) calls ``srand(s)`` and draws
``N`` ids ``instances[int(rand(N))]`` with replacement; the resample's value is the mean of the
drawn per-segment scores; ``Average`` is the mean of the 1000 resample values (summed in ascending
order), printed with ``%7.5f``.

Perl >= 5.20 implements ``rand`` with its own ``drand48``: ``srand(s)`` sets the 48-bit state
``x = (s << 16) + 0x330E``; each call ``x = (0x5DEECE66D * x + 0xB) mod 2^48`` and returns
``x / 2^48``. The draw indices depend only on ``N``, so they are computed once per ``N`` (the last
two kept, in the smallest integer type: 20 MB for N = 10,000), ``CHUNK`` resamples at a time; the
k-th state is ``a^k x + c (a^(k-1) + ... + 1)``, all resamples' k-th draws at once. Summing a
resample adds its values in draw order, as Perl does (``tests/test_rouge_score_fast_paths.py``
checks the sums against ``np.cumsum``'s).

Memory (issue 35): the cached draws hold ``N x 1000`` indices, so they are cached only up to
``CACHED_DRAWS`` of them (N = 33,554); for more segments each call draws its indices again, a block
of ``BLOCK`` draws of ``CHUNK`` resamples at a time (a few MB), carrying each resample's running sum
from block to block so that it still adds the values in draw order -- the same floats as the
cached path; every score vector of one call (:func:`bootstrap_averages`) shares those draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

RESAMPLES = 1000
CHUNK = 100  # resamples computed together (bounds the temporary arrays: CHUNK x N values)
CACHED_DRAWS = 1 << 25  # draw indices cached at most (N x RESAMPLES); beyond, drawn again by blocks
BLOCK = 8192  # draws per block when not cached (BLOCK x CHUNK values at a time)
_A = np.uint64(0x5DEECE66D)
_C = np.uint64(0xB)
_MASK = np.uint64((1 << 48) - 1)


def drand48_streams(n_seeds: int, n_draws: int, first: int = 0, draws: slice = slice(None)) -> np.ndarray:
    """``drand48`` outputs, shape (n_seeds, n_draws): row ``s`` is the stream after
    ``srand(first + s)`` (uint64 arithmetic wraps modulo 2^64, whose low 48 bits are exact);
    ``draws``: only those columns."""
    state = (np.arange(first, first + n_seeds, dtype=np.uint64) << np.uint64(16)) + np.uint64(0x330E)
    power, offset = (a[draws] for a in _jumps(n_draws))
    states = (state[:, None] * power[None, :] + offset[None, :]) & _MASK
    return states.astype(np.float64) * 2.0 ** -48


@lru_cache(maxsize=2)
def _jumps(n_draws: int) -> tuple[np.ndarray, np.ndarray]:
    """``(a^k, c (a^(k-1) + ... + 1))`` mod 2^64 for k = 1..n_draws: the k-th state from the seed's."""
    power = np.multiply.accumulate(np.full(n_draws, _A, dtype=np.uint64))
    sums = np.ones(n_draws, dtype=np.uint64)
    sums[1:] += np.cumsum(power[:-1], dtype=np.uint64)
    return power, sums * _C


def resample_rows(n: int, resamples: int = RESAMPLES) -> np.ndarray:
    """Segment rows (0-based) drawn by each resample, shape (resamples, n), for ``n`` segments."""
    return _draws(n, resamples).T


@lru_cache(maxsize=2)
def _draws(n: int, resamples: int) -> np.ndarray:
    """:func:`resample_rows` stored draw by draw, shape (n, resamples), C order: a block of
    resamples' drawn values, ``values[draws[:, lo:hi]]``, is summed draw after draw by numpy's
    reduction over its first axis (sequential per column; only the contiguous axis is summed
    pairwise)."""
    order = np.array(sorted(range(1, n + 1), key=lambda i: f"{i}.X"), dtype=np.intp) - 1
    draws = np.empty((n, resamples), dtype=np.min_scalar_type(max(n - 1, 0)))
    for lo in range(0, resamples, CHUNK):
        hi = min(lo + CHUNK, resamples)
        draws[:, lo:hi] = order[(drand48_streams(hi - lo, n, lo) * n).astype(np.intp)].T  # int(rand(N)) truncates
    draws.setflags(write=False)
    return draws


def bootstrap_average(scores: np.ndarray, resamples: int = RESAMPLES) -> float:
    """ROUGE-1.5.5's ``Average_F`` of per-segment scores (already rounded to 5 decimals)."""
    return bootstrap_averages([scores], resamples)[0]


def bootstrap_averages(vectors: Sequence[np.ndarray], resamples: int = RESAMPLES) -> list[float]:
    """:func:`bootstrap_average` of each vector of per-segment scores (all of one length)."""
    values = [np.asarray(v, dtype=np.float64) for v in vectors]
    n = len(values[0]) if values else 0
    if n == 0:
        return [0.0] * len(values)
    means = np.empty((len(values), resamples))
    if n * resamples <= CACHED_DRAWS:
        draws = _draws(n, resamples)
        for lo in range(0, resamples, CHUNK):
            for k, v in enumerate(values):
                # left to right, as Perl adds: a reduction over the first (not the contiguous) axis
                means[k, lo:lo + CHUNK] = np.add.reduce(v[draws[:, lo:lo + CHUNK]], axis=0) / n
    else:
        _streamed_means(values, resamples, means)
    return [float(f"{np.cumsum(np.sort(m))[-1] / resamples:.5f}") for m in means]


def _streamed_means(values: list[np.ndarray], resamples: int, means: np.ndarray) -> None:
    """The resample means of :func:`bootstrap_averages` without the cached draws: ``BLOCK`` draws of
    ``CHUNK`` resamples at a time, each block's sums started from the previous blocks' (a first row
    of the reduction), so that every resample still adds its values one after another."""
    n = len(values[0])
    order = np.array(sorted(range(1, n + 1), key=lambda i: f"{i}.X"), dtype=np.intp) - 1
    for lo in range(0, resamples, CHUNK):
        hi = min(lo + CHUNK, resamples)
        sums: list[np.ndarray | None] = [None] * len(values)
        for a in range(0, n, BLOCK):
            block = slice(a, min(a + BLOCK, n))
            # C order, as the cached draws: a reduction over a contiguous first axis would be pairwise
            rows = np.ascontiguousarray(order[(drand48_streams(hi - lo, n, lo, block) * n).astype(np.intp)].T)
            for k, v in enumerate(values):
                drawn = v[rows]
                previous = sums[k]
                sums[k] = np.add.reduce(drawn if previous is None else np.vstack([previous[None, :], drawn]), axis=0)
        for k, total in enumerate(sums):
            assert total is not None
            means[k, lo:hi] = total / n
