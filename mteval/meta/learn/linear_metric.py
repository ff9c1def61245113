"""A learned linear metric: weights on raw feature scores, with the normalisation it was fitted on.

Its score of a segment is ``sum(weights[f] * score_f)``; the additive constant of the
standardised form (``sum(coef * (score - mean) / scale)``) is left out: it changes no correlation,
and the stored scores are then plain weighted sums any reader can recompute. ``kind`` says how the
weights were found (``ridge`` or ``elastic-net`` with an objective, or ``ulc``, Giménez & Màrquez 2008's uniform
linear combination).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mteval.errors import InputError


@dataclass(frozen=True)
class LinearMetric:
    """Raw weights of all features (0: unused), training means and oriented scales of all features."""

    names: tuple[str, ...]
    weights: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    kind: str
    objective: str
    ridge: float | None = None
    l1_ratio: float = 0.0

    def scores(self, x: np.ndarray) -> np.ndarray:
        """Scores of points given their feature matrix (columns in ``names`` order)."""
        return np.asarray(x, dtype=np.float64) @ self.weights

    def apply(self, features: dict[str, np.ndarray]) -> np.ndarray:
        """Scores of segments given the used features by name."""
        used = self.selected()
        missing = [n for n in used if n not in features]
        if missing:
            raise InputError(f"learned metric needs feature(s) {', '.join(missing)}")
        total = np.zeros(len(np.asarray(features[used[0]]))) if used else np.zeros(0)
        for name in used:
            total = total + self.weights[self.names.index(name)] * np.asarray(features[name], dtype=np.float64)
        return total

    def selected(self) -> tuple[str, ...]:
        """The features with a non-zero weight."""
        return tuple(n for n, w in zip(self.names, self.weights, strict=True) if w != 0)

    def to_dict(self) -> dict[str, float]:
        """Used feature -> raw weight (printed, and kept in the stored metric's signature)."""
        return {n: float(self.weights[self.names.index(n)]) for n in self.selected()}

    def as_json(self) -> dict[str, Any]:
        """Plain-JSON form of the combination (features, normalisation, weights)."""
        used = self.selected()
        index = [self.names.index(n) for n in used]
        return {"kind": self.kind, "objective": self.objective, "ridge": self.ridge, "l1_ratio": self.l1_ratio,
                "features": [{"name": n, "weight": float(self.weights[i]), "mean": float(self.mean[i]),
                              "scale": float(self.scale[i]),
                              "standardised_weight": float(self.weights[i] * self.scale[i])}
                             for n, i in zip(used, index, strict=True)]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> LinearMetric:
        """Inverse of :meth:`as_json` (``KeyError``/``TypeError`` on a malformed dictionary)."""
        feats = data["features"]
        def column(key: str) -> np.ndarray:
            return np.asarray([float(f[key]) for f in feats])

        return LinearMetric(tuple(str(f["name"]) for f in feats), column("weight"), column("mean"), column("scale"),
                            str(data["kind"]), str(data["objective"]),
                            None if data.get("ridge") is None else float(data["ridge"]),
                            float(data.get("l1_ratio", 0.0)))
