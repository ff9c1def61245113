"""JACK: the reliability of a test set (IQMT manual §3.1.3; Asiya has no implementation).

JACK(A, R, X) = Prob_r( exists a != a' in A: QUEEN_{X,R}(a) > 0 and QUEEN_{X,R}(a') > 0 and
for all x in X: x(a, a') <= x(a, r) ).

Our reading of the definition, applied per segment: the sample space is the (reference,
segment) pairs; for reference r on segment s the trial is a hit when two different systems both
have a positive segment QUEEN on s and, for every metric, the first one's similarity to the
second (``sys_sys[m, a, a', s]``, a scored against a') is at most its similarity to r. Segment
JACK = hits / references; document and system (test-set) JACK = summed hits / summed trials.
A trial whose reference scores are missing (NaN) is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mteval.errors import MtevalError
from mteval.meta.qarla.queen import Counts, QarlaData, queen


def surrounded(sys_sys: np.ndarray, sys_ref: np.ndarray) -> np.ndarray:
    """``close[a, a', r, s]``: for every metric, x(a, a') <= x(a, r) (inputs direction-aware)."""
    m, a, k, s = sys_ref.shape
    close = np.ones((a, a, k, s), dtype=bool)
    for i in range(m):
        close &= sys_sys[i][:, :, None, :] <= sys_ref[i][:, None, :, :]
    return close


def jack(data: QarlaData, metrics: Sequence[str] | None = None, trans_topic: bool = False) -> Counts:
    """JACK hits and trials per segment, shape ``(S,)`` (aggregate with ``qarla.aggregate``)."""
    if data.sys_sys is None:
        raise MtevalError("JACK needs system-vs-system scores (run iqsetup with -JACK)")
    index = data.metric_index(metrics)
    positive = queen(data, metrics, trans_topic).hits > 0  # (A, S)
    sys_ref = data.similarity(data.sys_ref, index)
    close = surrounded(data.similarity(data.sys_sys, index), sys_ref)
    n_sys = len(data.systems)
    distinct = ~np.eye(n_sys, dtype=bool)
    pair_ok = positive[:, None, :] & positive[None, :, :] & distinct[:, :, None]  # (A, A, S)
    exists = (close & pair_ok[:, :, None, :]).any(axis=(0, 1))  # (K, S)
    valid = ~np.isnan(sys_ref).any(axis=(0, 1))  # (K, S)
    return Counts((exists & valid).sum(axis=0), valid.sum(axis=0))
