"""The scores of one metric for one (target, reference set) pair: the data type shared by the
metrics (which compute it), the store (which writes and reads it) and the measures (which use it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ScoreSet:
    """System, document and segment scores of one metric variant for one (target, reference set).

    ``stats``: the segments' sufficient statistics (shape ``(n_segments, n_stats)``) of a
    statistics-based family, from which its corpus score on any subset is recomputed
    (``docs/statistics.md``); None for other metrics and for files written without them.
    """

    system: float
    documents: Mapping[str, float]
    segments: np.ndarray  # float64, shape (n_segments,); NaN = no score for that segment
    stats: np.ndarray | None = field(default=None, compare=False)
