"""ROUGE-1.5.5's system score: the mean of 1000 bootstrap resamples drawn with Perl's ``rand``.

``computeAverages``/``bootstrapResampling`` (ROUGE-1.5.5.pl): the evaluation ids ``"1.X"``,
``"2.X"``, ... are sorted as **strings**; resample ``s`` (s = 0..999) calls ``srand(s)`` and draws
``N`` ids ``instances[int(rand(N))]`` with replacement; the resample's value is the mean of the
drawn per-segment scores; ``Average`` is the mean of the 1000 resample values (summed in ascending
order), printed with ``%7.5f``.

Perl >= 5.20 implements ``rand`` with its own ``drand48``: ``srand(s)`` sets the 48-bit state
``x = (s << 16) + 0x330E``; each call ``x = (0x5DEECE66D * x + 0xB) mod 2^48`` and returns
``x / 2^48``. The draw indices depend only on ``N``, so they are computed once per ``N``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

RESAMPLES = 1000
_A = np.uint64(0x5DEECE66D)
_C = np.uint64(0xB)
_MASK = np.uint64((1 << 48) - 1)


def drand48_streams(n_seeds: int, n_draws: int) -> np.ndarray:
    """``drand48`` outputs, shape (n_seeds, n_draws): row ``s`` is the stream after ``srand(s)``."""
    state = (np.arange(n_seeds, dtype=np.uint64) << np.uint64(16)) + np.uint64(0x330E)
    out = np.empty((n_seeds, n_draws), dtype=np.float64)
    for k in range(n_draws):
        state = (state * _A + _C) & _MASK  # uint64 wrap-around keeps the low 48 bits exact
        out[:, k] = state.astype(np.float64) * 2.0 ** -48
    return out


@lru_cache(maxsize=64)
def resample_rows(n: int, resamples: int = RESAMPLES) -> np.ndarray:
    """Segment rows (0-based) drawn by each resample, shape (resamples, n), for ``n`` segments."""
    order = np.array(sorted(range(1, n + 1), key=lambda i: f"{i}.X"), dtype=np.intp) - 1
    draws = (drand48_streams(resamples, n) * n).astype(np.intp)  # int(rand(N)) truncates
    rows = order[draws]
    rows.setflags(write=False)
    return rows


def bootstrap_average(scores: np.ndarray, resamples: int = RESAMPLES) -> float:
    """ROUGE-1.5.5's ``Average_F`` of per-segment scores (already rounded to 5 decimals)."""
    values = np.asarray(scores, dtype=np.float64)
    n = len(values)
    if n == 0:
        return 0.0
    # np.cumsum adds left to right, as Perl does (np.sum would add pairwise).
    means = np.cumsum(values[resample_rows(n, resamples)], axis=1)[:, -1] / n
    total = np.cumsum(np.sort(means))[-1]
    return float(f"{total / resamples:.5f}")
