"""Standardised features without duplicates, fitted on training points only.

Ridge penalties are meaningful only on a common scale, so every feature is z-scored with its
training mean and standard deviation. Constant features, exact duplicates and near-collinear
features (|r| > 0.9999 with a feature kept before them, in the given order) are dropped: they add
nothing a linear combination can use, and make the normal equations singular (the issue's 33
collinear features). Features are also *oriented*: multiplied by their sign (+1 when higher is
better), so that non-negative weights mean "agrees with the metric's direction".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COLLINEAR = 0.9999


@dataclass(frozen=True)
class Standardiser:
    """Columns kept, with their training means and (oriented) scales; ``dropped`` maps a dropped
    column to the kept column it duplicates (-1: constant)."""

    keep: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    dropped: dict[int, int]

    def transform(self, x: np.ndarray) -> np.ndarray:
        """Standardised, oriented kept columns of ``x``."""
        return (x[:, self.keep] - self.mean) / self.scale

    def raw_weights(self, coef: np.ndarray, width: int) -> np.ndarray:
        """Weights on the raw columns (0 for dropped ones) giving the same scores up to a constant."""
        out = np.zeros(width)
        out[self.keep] = coef / self.scale
        return out


def fit_standardiser(x: np.ndarray, signs: np.ndarray, threshold: float = COLLINEAR) -> Standardiser:
    """Means and scales of ``x``'s columns; constant and collinear columns dropped (see module)."""
    x = np.asarray(x, dtype=np.float64)
    mean, std = x.mean(axis=0), x.std(axis=0)
    varying = std > 1e-12 * np.maximum(1.0, np.abs(mean))
    z = np.zeros_like(x)
    z[:, varying] = (x[:, varying] - mean[varying]) / std[varying]
    corr = z.T @ z / max(1, len(x))
    dropped = {int(j): -1 for j in np.flatnonzero(~varying)}
    kept: list[int] = []
    for j in np.flatnonzero(varying):
        twins = [i for i in kept if abs(corr[i, j]) > threshold]
        if twins:
            dropped[int(j)] = twins[0]
        else:
            kept.append(int(j))
    keep = np.asarray(kept, dtype=np.int64)
    return Standardiser(keep, mean[keep], std[keep] * np.asarray(signs, dtype=np.float64)[keep], dropped)
