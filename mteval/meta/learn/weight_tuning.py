"""Learning a linear combination of metric features (Kahn, Snover & Ostendorf 2009, §6).

The paper tunes the weights of precision/recall features (EDPM's ``E``, n-gram ``N``, brevity
``B``, TERp's ``T``/``P``) to maximise the *weighted correlation with mean-removed segment scores*,
on one random half of the documents, tests on the other half and vice versa, and reports the mean
test-fold correlation per feature set.

- *Mean removal*: every feature and the human score have their (weighted) mean over a group
  subtracted (a document, or one source segment across systems), so the correlation measures
  differences between translations, not between source documents (§3).
- *Weighted* Pearson: each segment weighs, e.g., its reference length, to avoid emphasis on short
  segments (§6).
- The maximiser: Pearson's r is invariant to the scale of the combination, and on centred data the
  weights maximising the weighted correlation with y are the weighted least-squares coefficients
  (the fit maximises R² = r²; the sign is fixed so that r >= 0). This is exact and closed-form,
  where the paper used TERp's hill-climbing optimiser. An optional ridge term stabilises collinear
  features (P and R of nested decompositions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mteval.errors import InputError


def remove_group_means(x: np.ndarray, groups: Sequence[object] | np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Subtract from each row its group's weighted mean (column-wise for a matrix)."""
    x = np.asarray(x, dtype=np.float64)
    labels = np.asarray(groups)
    if labels.dtype.kind not in "iub":  # mixed or object labels compare as text
        labels = np.asarray([str(g) for g in groups])
    _, codes = np.unique(labels, return_inverse=True)
    w = np.asarray(weights, dtype=np.float64)
    wsum = np.bincount(codes, weights=w)
    flat = x.reshape(len(x), -1)
    sums = np.stack([np.bincount(codes, weights=w * flat[:, j]) for j in range(flat.shape[1])], axis=1)
    means = sums.astype(np.float64) / np.where(wsum > 0, wsum, 1.0)[:, None]
    return (flat - means[codes]).reshape(x.shape)


def weighted_pearson(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """Weighted Pearson correlation (0 when either side is constant)."""
    w = np.asarray(weights, dtype=np.float64) / np.sum(weights)
    xc = x - np.dot(w, x)
    yc = y - np.dot(w, y)
    den = np.sqrt(np.dot(w, xc * xc) * np.dot(w, yc * yc))
    return float(np.dot(w, xc * yc) / den) if den > 0 else 0.0


@dataclass(frozen=True)
class TunedCombination:
    """A learned linear combination of named features (a metric: ``apply`` gives its scores)."""

    names: tuple[str, ...]
    weights: np.ndarray

    def apply(self, features: Mapping[str, np.ndarray]) -> np.ndarray:
        """Scores of segments given their features by name."""
        missing = [n for n in self.names if n not in features]
        if missing:
            raise InputError(f"tuned combination needs feature(s) {', '.join(missing)}")
        return np.stack([np.asarray(features[n], dtype=np.float64) for n in self.names], axis=1) @ self.weights

    def to_dict(self) -> dict[str, float]:
        """Feature name -> weight (for storing the combination with its scores)."""
        return {n: float(w) for n, w in zip(self.names, self.weights, strict=True)}


def _matrix(features: Mapping[str, np.ndarray], y: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    names = tuple(features)
    if not names:
        raise InputError("weight tuning needs at least one feature")
    x = np.stack([np.asarray(features[n], dtype=np.float64) for n in names], axis=1)
    if x.shape[0] != len(y):
        raise InputError(f"features have {x.shape[0]} segments, human scores {len(y)}")
    return names, x


def tune_weights(features: Mapping[str, np.ndarray], human: np.ndarray, groups: Sequence[object],
                 weights: np.ndarray, ridge: float = 1e-6) -> TunedCombination:
    """Weights maximising the weighted correlation with mean-removed human scores (§6)."""
    y = np.asarray(human, dtype=np.float64)
    names, x = _matrix(features, y)
    w = np.asarray(weights, dtype=np.float64)
    xc, yc = remove_group_means(x, groups, w), remove_group_means(y, groups, w)
    scale = np.sqrt(np.average(xc * xc, axis=0, weights=w))
    scale = np.where(scale > 0, scale, 1.0)
    xs = xc / scale
    gram = xs.T @ (w[:, None] * xs) / w.sum()
    beta = np.linalg.solve(gram + ridge * np.eye(len(names)), xs.T @ (w * yc) / w.sum()) / scale
    if weighted_pearson(xc @ beta, yc, w) < 0:
        beta = -beta
    return TunedCombination(names, beta)


def evaluate(combo: TunedCombination, features: Mapping[str, np.ndarray], human: np.ndarray,
             groups: Sequence[object], weights: np.ndarray) -> float:
    """Weighted correlation of the combination with mean-removed human scores."""
    w = np.asarray(weights, dtype=np.float64)
    scores = remove_group_means(combo.apply(features), groups, w)
    return weighted_pearson(scores, remove_group_means(np.asarray(human, float), groups, w), w)


@dataclass(frozen=True)
class CrossValidation:
    """Two-fold results: test-fold correlations, their mean, and the weights of each fold."""

    test: tuple[float, float]
    train: tuple[float, float]
    folds: tuple[TunedCombination, TunedCombination]

    @property
    def mean_test(self) -> float:
        """The mean of the two test-fold correlations (the paper's reported number)."""
        return float(np.mean(self.test))


def split_documents(documents: Sequence[str], seed: int = 0) -> np.ndarray:
    """Fold (0/1) of every segment: documents randomly split into two halves (§6)."""
    unique = sorted(set(documents))
    order = np.random.default_rng(seed).permutation(len(unique))
    fold_of = {unique[i]: int(k < len(unique) / 2) for k, i in enumerate(order)}
    return np.asarray([fold_of[d] for d in documents])


def cross_validate(features: Mapping[str, np.ndarray], human: np.ndarray, groups: Sequence[object],
                   weights: np.ndarray, fold: np.ndarray, ridge: float = 1e-6) -> CrossValidation:
    """Tune on one fold, test on the other, and vice versa (§6's table reports the mean test r)."""
    fold = np.asarray(fold)
    if set(np.unique(fold)) != {0, 1}:
        raise InputError("two-fold cross-validation needs segments in both folds")
    y, w, g = np.asarray(human, float), np.asarray(weights, float), np.asarray([str(x) for x in groups])
    tests, trains, combos = [], [], []
    for k in (0, 1):
        tr, te = fold == k, fold != k
        sub = {n: np.asarray(v, float)[tr] for n, v in features.items()}
        combo = tune_weights(sub, y[tr], g[tr], w[tr], ridge)
        trains.append(evaluate(combo, sub, y[tr], g[tr], w[tr]))
        tests.append(evaluate(combo, {n: np.asarray(v, float)[te] for n, v in features.items()},
                              y[te], g[te], w[te]))
        combos.append(combo)
    return CrossValidation((tests[0], tests[1]), (trains[0], trains[1]), (combos[0], combos[1]))


def compare_feature_sets(sets: Mapping[str, Mapping[str, np.ndarray]], human: np.ndarray,
                         groups: Sequence[object], weights: np.ndarray, fold: np.ndarray,
                         ridge: float = 1e-6) -> list[tuple[str, float]]:
    """The paper's table: every condition (a union of feature sets, e.g. ``EN``, ``ENB``) with its
    mean test-fold correlation, best first. ``sets`` maps a one-letter set name to its features."""
    letters = list(sets)
    rows = []
    for mask in range(1, 1 << len(letters)):
        chosen = [c for i, c in enumerate(letters) if mask >> i & 1]
        feats = {f"{c}:{n}": v for c in chosen for n, v in sets[c].items()}
        rows.append(("".join(chosen), cross_validate(feats, human, groups, weights, fold, ridge).mean_test))
    return sorted(rows, key=lambda r: -r[1])
