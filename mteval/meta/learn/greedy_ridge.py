"""Greedy forward selection of the metric set of a ridge combination, on training points only.

Inside one (outer) training fold: its documents are dealt into inner folds; a candidate set S is
scored by the best mean inner-validation criterion over the ridge grid of the ridge fitted on S
(least-squares objectives: ``pearson``, ``mean-removed``). Starting from the empty set, the metric
whose addition scores best is added, until no addition improves the score (the forward search of
Giménez & Màrquez 2008's metric-set optimisation, with a learned instead of a uniform
combination). The chosen set is then fitted by :func:`mteval.meta.learn.nested_cv.ridge_learner`
(the ridge chosen again by inner CV). Cheap because every inner fold's standardisation, Gram
matrix and moments are computed once for all metrics; a set only slices them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mteval.errors import InputError
from mteval.meta.learn.feature_prep import fit_standardiser
from mteval.meta.learn.learners import RIDGE_GRID, normal_equations
from mteval.meta.learn.linear_metric import LinearMetric
from mteval.meta.learn.nested_cv import Learner, ridge_learner
from mteval.meta.learn.weight_tuning import remove_group_means
from mteval.meta.stats.judged import Judged, inner_folds


@dataclass(frozen=True)
class _InnerFold:
    """One inner split: standardised validation features, training Gram matrix and moments over all
    kept metrics, and the validation target prepared for the criterion."""

    position: dict[int, int]
    z_val: np.ndarray
    gram: np.ndarray
    moment: np.ndarray
    target: np.ndarray
    weights: np.ndarray
    items: np.ndarray | None


def _inner_fold(part: Judged, held: Judged, objective: str) -> _InnerFold:
    """Precompute one inner split (see :class:`_InnerFold`)."""
    prep = fit_standardiser(part.x, part.signs)
    gram, moment = normal_equations(prep.transform(part.x), part.human, part.items, part.weights, objective)
    weights = held.weights if objective == "mean-removed" else np.ones(len(held.human))
    items = held.items if objective == "mean-removed" else None
    target = held.human - held.human.mean() if items is None else remove_group_means(held.human, items, weights)
    return _InnerFold({int(j): i for i, j in enumerate(prep.keep)}, prep.transform(held.x), gram, moment,
                      target, weights / weights.sum(), items)


def _set_scores(fold: _InnerFold, chosen: list[int], grid: tuple[float, ...]) -> np.ndarray:
    """The criterion of the ridge on ``chosen`` for every strength (weighted r of centred scores)."""
    index = [fold.position[j] for j in chosen]
    values, vectors = np.linalg.eigh(fold.gram[np.ix_(index, index)])
    projected = vectors.T @ fold.moment[index]
    betas = np.stack([vectors @ (projected / (np.maximum(values, 0.0) + lam)) for lam in grid], axis=1)
    scores = fold.z_val[:, index] @ betas
    if fold.items is None:
        centred = scores - fold.weights @ scores
    else:
        centred = remove_group_means(scores, fold.items, fold.weights)
    w, y = fold.weights, fold.target - fold.weights @ fold.target
    den = np.sqrt((w @ (centred * centred)) * (w @ (y * y)))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (w @ (centred * y[:, None])) / den
    return np.where(den > 0, r, -1.0)


def greedy_set(train: Judged, objective: str, grid: tuple[float, ...] = RIDGE_GRID, inner_k: int = 3,
               seed: int = 0) -> list[int]:
    """Column indices of the greedily chosen metric set (in the order added)."""
    if objective not in ("pearson", "mean-removed"):
        raise InputError("greedy metric-set selection of a ridge works with the least-squares objectives "
                         "(pearson, mean-removed)")
    folds = inner_folds(train.documents, inner_k, seed)
    parts = [_inner_fold(train.subset(folds != k), train.subset(folds == k), objective) for k in np.unique(folds)]
    usable = [j for j in range(len(train.names)) if all(j in p.position for p in parts)]
    chosen: list[int] = []
    best = -np.inf
    while len(chosen) < len(usable):
        candidates = [j for j in usable if j not in chosen]
        values = [float(np.max(np.mean([_set_scores(p, chosen + [j], grid) for p in parts], axis=0)))
                  for j in candidates]
        top = int(np.argmax(values))
        if values[top] <= best + 1e-12:
            break
        best = values[top]
        chosen.append(candidates[top])
    return chosen


def greedy_ridge_learner(objective: str, grid: tuple[float, ...] = RIDGE_GRID, inner_k: int = 3,
                         seed: int = 0) -> Learner:
    """A learner: the greedy metric set, then the ridge on it (strength chosen by inner CV)."""
    fit = ridge_learner(objective, grid, inner_k=inner_k, seed=seed)

    def learn(train: Judged) -> LinearMetric:
        chosen = sorted(greedy_set(train, objective, grid, inner_k, seed))
        sub = Judged(train.x[:, chosen], tuple(train.names[j] for j in chosen), train.human, train.items,
                     train.systems, train.documents, train.weights, train.signs[chosen])
        model = fit(sub)
        weights, mean, scale = (np.zeros(len(train.names)) for _ in range(3))
        weights[chosen], mean[chosen], scale[chosen] = model.weights, model.mean, model.scale
        return LinearMetric(train.names, weights, mean, scale, "ridge-greedy", objective, model.ridge)

    return learn
