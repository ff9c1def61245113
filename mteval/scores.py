"""The scores of one metric for one (target, reference set) pair: the data type shared by the
metrics (which compute it), the store (which writes and reads it) and the measures (which use it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScoreSet:
    """System, document and segment scores of one metric variant for one (target, reference set)."""

    system: float
    documents: Mapping[str, float]
    segments: np.ndarray  # float64, shape (n_segments,); NaN = no score for that segment
