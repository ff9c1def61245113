"""METEOR 1.5 sufficient statistics and score (Denkowski & Lavie 2011, sec. 2.2; Meteor's
``MeteorScorer.computeMetrics``), vectorised over rows of a statistics matrix.

With content/function words weighted by delta and module weights w_i:
P = sum_i w_i (delta m_i^c(h) + (1-delta) m_i^f(h)) / (delta |h_c| + (1-delta) |h_f|), R likewise on
the reference; F_mean = P R / (alpha P + (1-alpha) R); fragmentation frag = ch / m with m the mean
number of matched words; Pen = gamma frag^beta; score = F_mean (1 - Pen). A segment whose words
all match in one chunk has frag = 0. System and document scores use summed statistics.
The operations are done in Meteor's order so that the doubles agree with Java's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mteval.metrics.meteor.alignment import Alignment
from mteval.metrics.meteor.resources import function_words

PARAMETERS = (0.85, 0.2, 0.6, 0.75)  # alpha, beta, gamma, delta: Meteor 1.5 English "rank" defaults
MODULE_WEIGHTS = (1.0, 0.6, 0.8, 0.6)  # English weights, applied to the configured modules by position
MAX_MODULES = 4
# Columns of a statistics row.
T_LEN, R_LEN, T_FUN, R_FUN, CHUNKS, T_WM, R_WM = range(7)
TC, RC, TF, RF = (7 + k * MAX_MODULES for k in range(4))  # per-module content/function matches
N_STATS = 7 + 4 * MAX_MODULES


def alignment_stats(hyp: Sequence[str], ref: Sequence[str], a: Alignment,
                    fw: frozenset[str] | None = None) -> np.ndarray:
    """Statistics row of one aligned pair (``getMeteorStats(Alignment)``, word mode); ``fw``: the
    function words (default Meteor's English list)."""
    fw = function_words() if fw is None else fw
    fun1 = [w.lower() in fw for w in hyp]
    fun2 = [w.lower() in fw for w in ref]
    row = np.zeros(N_STATS)
    row[T_LEN], row[R_LEN], row[T_FUN], row[R_FUN] = len(hyp), len(ref), sum(fun1), sum(fun2)
    row[CHUNKS] = a.chunks
    for m in a.matches:
        for k in range(m.match_length):
            row[(TF if fun1[m.match_start + k] else TC) + m.module] += 1
        for k in range(m.length):
            row[(RF if fun2[m.start + k] else RC) + m.module] += 1
    row[T_WM] = row[TC:TC + MAX_MODULES].sum() + row[TF:TF + MAX_MODULES].sum()
    row[R_WM] = row[RC:RC + MAX_MODULES].sum() + row[RF:RF + MAX_MODULES].sum()
    if row[T_WM] == row[T_LEN] and row[R_WM] == row[R_LEN] and row[CHUNKS] == 1:
        # MeteorStats.addStats does not add the chunk of a perfect segment to an aggregate. Storing 0
        # keeps sums right and leaves the segment's own score unchanged (its frag is 0 either way).
        row[CHUNKS] = 0
    return row


def meteor_scores(stats: np.ndarray, weights: Sequence[float],
                  params: Sequence[float] = PARAMETERS) -> np.ndarray:
    """METEOR score of every row of a statistics matrix (``computeMetrics``, Java's order)."""
    s = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    alpha, beta, gamma, delta = params
    with np.errstate(divide="ignore", invalid="ignore"):
        t_wlen = (delta * (s[:, T_LEN] - s[:, T_FUN])) + ((1.0 - delta) * s[:, T_FUN])
        r_wlen = (delta * (s[:, R_LEN] - s[:, R_FUN])) + ((1.0 - delta) * s[:, R_FUN])
        t_wm: np.ndarray = np.zeros(len(s))
        r_wm: np.ndarray = np.zeros(len(s))
        for i, w in enumerate(weights):
            t_wm = t_wm + s[:, TC + i] * w * delta
        for i, w in enumerate(weights):
            r_wm = r_wm + s[:, RC + i] * w * delta
        for i, w in enumerate(weights):
            t_wm = t_wm + s[:, TF + i] * w * (1.0 - delta)
        for i, w in enumerate(weights):
            r_wm = r_wm + s[:, RF + i] * w * (1.0 - delta)
        precision = t_wm / t_wlen
        recall = r_wm / r_wlen
        f_mean = 1.0 / (((1.0 - alpha) / precision) + (alpha / recall))
        perfect = (s[:, T_WM] == s[:, T_LEN]) & (s[:, R_WM] == s[:, R_LEN]) & (s[:, CHUNKS] == 1)
        frag = np.where(perfect, 0.0, s[:, CHUNKS] / ((s[:, T_WM] + s[:, R_WM]) / 2))
        penalty = gamma * np.power(frag, beta)
        score = f_mean * (1.0 - penalty)
    return np.where(np.isnan(score), 0.0, np.maximum(score, 0.0))
