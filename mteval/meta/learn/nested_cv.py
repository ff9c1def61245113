"""Nested cross-validation by document: hyper-parameters chosen on training folds only.

Outer loop: the documents are dealt into K folds (:func:`mteval.meta.stats.judged.kfold_documents`);
each fold is predicted by a model learned on the others. Inner loop, inside an outer training
fold only: its documents are dealt into inner folds, every ridge strength of the grid is fitted
on the inner training part and scored (the objective's own criterion) on the inner held-out part,
and the strength with the best mean inner score is refitted on the whole outer training fold
(ties: the strongest). The outer test fold is never read until its predictions are made.
Kahn et al. 2009 §6 used two folds (halves of the documents) and no inner loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mteval.meta.learn.feature_prep import fit_standardiser
from mteval.meta.learn.learners import RIDGE_GRID, criterion, fit_path
from mteval.meta.learn.linear_metric import LinearMetric
from mteval.meta.learn.tune_stats import grouped_kendall
from mteval.meta.stats.judged import Judged, inner_folds, kfold_documents

Learner = Callable[[Judged], LinearMetric]


def _fit_grid(train: Judged, objective: str, grid: tuple[float, ...], nonneg: bool,
              l1_ratio: float = 0.0) -> list[LinearMetric]:
    """One model per penalty strength, standardised on ``train``."""
    prep = fit_standardiser(train.x, train.signs)
    path = fit_path(prep.transform(train.x), train.human, train.items, train.weights, objective, grid, nonneg,
                    l1_ratio)
    mean, scale = train.x.mean(axis=0), train.x.std(axis=0) * train.signs
    kind = "elastic-net" if l1_ratio > 0 else "ridge"
    return [LinearMetric(train.names, prep.raw_weights(coef, len(train.names)), mean, scale, kind,
                         objective, lam, l1_ratio) for coef, lam in zip(path, grid, strict=True)]


def inner_scores(train: Judged, objective: str, grid: tuple[float, ...] = RIDGE_GRID, nonneg: bool = False,
                 inner_k: int = 3, seed: int = 0, l1_ratio: float = 0.0) -> np.ndarray:
    """Mean inner-validation criterion of every ridge strength (training points only)."""
    folds = inner_folds(train.documents, inner_k, seed)
    scores = []
    for k in np.unique(folds):
        part, held = train.subset(folds != k), train.subset(folds == k)
        scores.append([criterion(objective, held.human, m.scores(held.x), held.items, held.weights)
                       for m in _fit_grid(part, objective, grid, nonneg, l1_ratio)])
    return np.mean(scores, axis=0)


def ridge_learner(objective: str, grid: tuple[float, ...] = RIDGE_GRID, nonneg: bool = False,
                  inner_k: int = 3, seed: int = 0, l1_ratio: float = 0.0) -> Learner:
    """A learner choosing the penalty strength by inner cross-validation, then refitting
    (``l1_ratio`` > 0: the elastic net, :mod:`mteval.meta.learn.learners`)."""

    def learn(train: Judged) -> LinearMetric:
        if len(grid) == 1:
            return _fit_grid(train, objective, grid, nonneg, l1_ratio)[0]
        scores = inner_scores(train, objective, grid, nonneg, inner_k, seed, l1_ratio)
        best = max(range(len(grid)), key=lambda i: (round(float(scores[i]), 12), grid[i]))
        return _fit_grid(train, objective, (grid[best],), nonneg, l1_ratio)[0]

    return learn


def best_single(train: Judged) -> int:
    """The feature with the best line-grouped τb on ``train`` (oriented by its sign)."""
    taus = [grouped_kendall(train.human, train.x[:, j] * train.signs[j], train.items) for j in range(len(train.names))]
    return int(np.nanargmax(np.asarray(taus, dtype=np.float64))) if not np.all(np.isnan(taus)) else 0


@dataclass(frozen=True)
class Nested:
    """Outer folds, the model and best single feature of each, and out-of-fold predictions."""

    folds: np.ndarray
    models: tuple[LinearMetric, ...]
    single: tuple[int, ...]
    predictions: np.ndarray
    single_predictions: np.ndarray


def _on_training_scale(test_scores: np.ndarray, train_scores: np.ndarray) -> np.ndarray:
    """Test scores z-scored with the training scores' mean and deviation, so that predictions of
    different folds' models (any scale) pool into one vector; nothing is taken from test points."""
    spread = float(np.std(train_scores))
    return (test_scores - float(np.mean(train_scores))) / (spread if spread > 0 else 1.0)


def nested_cv(data: Judged, learner: Learner, k: int = 2, seed: int = 0) -> Nested:
    """Outer K-fold by document: learn on K-1 folds (inner selection inside), predict the last;
    predictions on each model's training scale (:func:`_on_training_scale`)."""
    folds = kfold_documents(data.documents, k, seed)
    predictions, single_predictions = np.empty(len(data.human)), np.empty(len(data.human))
    models, singles = [], []
    for fold in range(k):
        train, test = data.subset(folds != fold), folds == fold
        model = learner(train)
        predictions[test] = _on_training_scale(model.scores(data.x[test]), model.scores(train.x))
        j = best_single(train)
        single_predictions[test] = _on_training_scale(data.x[test, j], train.x[:, j]) * data.signs[j]
        models.append(model)
        singles.append(j)
    return Nested(folds, tuple(models), tuple(singles), predictions, single_predictions)
