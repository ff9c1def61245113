"""Uniform linear combination (ULC) of metrics and greedy selection of its metric set.

Giménez & Màrquez 2008 ("A smorgasbord of features for automatic MT evaluation", WMT; Giménez
2008, PhD thesis, ch. 6): ULC_M(t) = 1/|M| * sum over m in M of the normalised score m(t), a
combination with no learned weight, and the metric set M chosen by a greedy search on human
judgements. Normalisation (the papers leave its form open): here each metric is z-scored with the
mean and standard deviation of the *training* points and oriented (higher is better), so metrics
on different scales (TER, BLEU, NIST) weigh alike and nothing is computed from test points.
Greedy forward selection adds, one at a time, the metric whose ULC with the set so far has the
best criterion on the training points, and stops when no metric improves it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mteval.meta.learn.learners import criterion
from mteval.meta.learn.linear_metric import LinearMetric
from mteval.meta.stats.judged import Judged


def _normalisation(train: Judged) -> tuple[np.ndarray, np.ndarray]:
    """Training means and oriented scales (constant features: scale 0, never used)."""
    return train.x.mean(axis=0), train.x.std(axis=0) * train.signs


def ulc(train: Judged, chosen: list[int] | tuple[int, ...], objective: str = "mean-removed") -> LinearMetric:
    """ULC of the features ``chosen`` (column indices), normalised on ``train``."""
    mean, scale = _normalisation(train)
    weights = np.zeros(len(train.names))
    usable = [j for j in chosen if scale[j] != 0]
    for j in usable:
        weights[j] = 1.0 / (len(usable) * scale[j])
    return LinearMetric(train.names, weights, mean, scale, "ulc", objective)


def greedy_ulc(train: Judged, objective: str = "mean-removed", limit: int | None = None) -> LinearMetric:
    """ULC over the metric set found by greedy forward selection on ``train`` (see module)."""
    mean, scale = _normalisation(train)
    usable = np.flatnonzero(scale != 0)
    z = np.zeros_like(train.x)
    z[:, usable] = (train.x[:, usable] - mean[usable]) / scale[usable]
    chosen: list[int] = []
    total: np.ndarray = np.zeros(len(train.human))
    best = -np.inf
    while len(chosen) < (limit or len(usable)):
        candidates = [j for j in usable if j not in chosen]
        if not candidates:
            break
        values = [criterion(objective, train.human, (total + z[:, j]) / (len(chosen) + 1), train.items,
                            train.weights) for j in candidates]
        top = int(np.argmax(values))
        if values[top] <= best + 1e-12:
            break
        best = values[top]
        chosen.append(int(candidates[top]))
        total = total + z[:, candidates[top]]
    return ulc(train, chosen, objective)


def ulc_learner(objective: str = "mean-removed", greedy: bool = True) -> Callable[[Judged], LinearMetric]:
    """A learner for :func:`mteval.meta.learn.nested_cv.nested_cv`: greedy ULC, or ULC of all features."""

    def learn(train: Judged) -> LinearMetric:
        return greedy_ulc(train, objective) if greedy else ulc(train, list(range(len(train.names))), objective)

    return learn
