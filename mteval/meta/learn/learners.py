"""Regularised linear combinations of standardised features, for three objectives.

* ``pearson``: pooled Pearson's r; its maximiser is the least-squares fit (r² = R²), here ridge.
* ``mean-removed``: Kahn, Snover & Ostendorf 2009 §6, the weighted correlation with mean-removed
  human scores: means removed per source line, points weighted by reference length; its
  maximiser is the weighted least-squares fit on mean-removed data (ridge here).
* ``ranking``: a pairwise logistic loss on the translations of one source line, a smooth
  surrogate of Kendall's τ within lines (Herbrich et al. 2000's ordinal regression; the
  "pairwise ranking objective aimed at Kendall" of the issue): mean over line pairs with different
  human scores of log(1 + exp(-(s_i - s_j))) for the better i, plus the ridge term; L-BFGS.

Every fit returns, for a grid of ridge strengths, the weights on the standardised features.
``nonneg``: weights >= 0 on the oriented features (scipy's NNLS on the ridge-augmented normal
equations; L-BFGS-B bounds for ranking). scipy is imported lazily. ``l1_ratio`` > 0 (least-squares
objectives): the elastic net (Zou & Hastie 2005) penalty λ((1 - a)‖b‖² + 2a‖b‖₁) instead of
λ‖b‖² (a = ``l1_ratio``; a = 0 is the ridge), by cyclic coordinate descent on the normal equations
(Friedman, Hastie & Tibshirani 2010), warm-started along the grid.
"""

from __future__ import annotations

import numpy as np

from mteval.errors import InputError
from mteval.meta.learn.tune_stats import grouped_kendall
from mteval.meta.learn.weight_tuning import remove_group_means, weighted_pearson
from mteval.meta.stats.correlation import pearson, within_group_pairs

OBJECTIVES = ("pearson", "mean-removed", "ranking")
RIDGE_GRID = tuple(10.0 ** k for k in range(-4, 4))
# L-BFGS-B run to the loss's minimiser: with scipy's default tolerances (ftol 2.2e-9) the ranking fit stopped
# ~1e-9 above it, weights 0.2 % off, enough to flip the inner folds' choice of strength (an audit, WMT21 ru-en)
CONVERGED = {"ftol": 1e-15, "gtol": 1e-10, "maxiter": 20000}


def _check(objective: str) -> None:
    if objective not in OBJECTIVES:
        raise InputError(f"unknown tuning objective {objective!r}; use one of {', '.join(OBJECTIVES)}")


def normal_equations(z: np.ndarray, human: np.ndarray, items: np.ndarray, weights: np.ndarray,
                      objective: str) -> tuple[np.ndarray, np.ndarray]:
    """Gram matrix and moment vector of the (weighted, centred) least-squares problem."""
    if objective == "mean-removed":
        w = np.asarray(weights, dtype=np.float64)
        zc, yc = remove_group_means(z, items, w), remove_group_means(human, items, w)
    else:
        w = np.ones(len(human))
        zc, yc = z - z.mean(axis=0), human - human.mean()
    w = w / w.sum()
    return zc.T @ (w[:, None] * zc), zc.T @ (w * yc)


def _least_squares_path(gram: np.ndarray, moment: np.ndarray, grid: tuple[float, ...], nonneg: bool) -> np.ndarray:
    """Ridge solutions for every strength in ``grid`` (rows)."""
    if not nonneg:
        values, vectors = np.linalg.eigh(gram)
        projected = vectors.T @ moment
        return np.stack([vectors @ (projected / (np.maximum(values, 0.0) + lam)) for lam in grid])
    from scipy.optimize import nnls
    out = []
    for lam in grid:  # min b'(G + λI)b - 2c'b, b >= 0  ==  NNLS on (R, R^-T c) with G + λI = R'R
        upper = np.linalg.cholesky(gram + lam * np.eye(len(gram))).T
        out.append(nnls(upper, np.linalg.solve(upper.T, moment))[0])
    return np.stack(out)


def _elastic_net_path(gram: np.ndarray, moment: np.ndarray, grid: tuple[float, ...], l1_ratio: float,
                      nonneg: bool, sweeps: int = 500, tol: float = 1e-10) -> np.ndarray:
    """Minimisers of b'Gb - 2c'b + λ((1 - a)‖b‖² + 2a‖b‖₁) for every λ (strongest first, warm)."""
    p = len(moment)
    beta, out = np.zeros(p), {}
    for lam in sorted(grid, reverse=True):
        shrink, denominator = lam * l1_ratio, np.diag(gram) + lam * (1.0 - l1_ratio)
        for _ in range(sweeps):
            before = beta.copy()
            for j in range(p):
                rho = moment[j] - gram[j] @ beta + gram[j, j] * beta[j]
                value = np.sign(rho) * max(abs(rho) - shrink, 0.0) / denominator[j]
                beta[j] = max(value, 0.0) if nonneg else value
            if np.max(np.abs(beta - before)) <= tol * max(1.0, float(np.max(np.abs(beta)))):
                break
        out[lam] = beta.copy()
    return np.stack([out[lam] for lam in grid])


def ranking_pairs(z: np.ndarray, human: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Feature differences (better minus worse) of every same-line pair with different human scores."""
    i, j = within_group_pairs(np.unique(np.asarray(items), return_inverse=True)[1])
    diff = human[i] - human[j]
    keep = diff != 0
    sign = np.sign(diff[keep])[:, None]
    return sign * (z[i[keep]] - z[j[keep]])


def _ranking_path(pairs: np.ndarray, grid: tuple[float, ...], nonneg: bool) -> np.ndarray:
    """Logistic pairwise solutions for every strength (largest first, warm-started)."""
    from scipy.optimize import minimize
    p = pairs.shape[1]
    if not len(pairs):
        raise InputError("the ranking objective needs two translations of a line with different human scores")

    def loss(beta: np.ndarray, lam: float) -> tuple[float, np.ndarray]:
        margin = pairs @ beta
        value = np.logaddexp(0.0, -margin).mean() + lam * beta @ beta
        grad = -(pairs.T @ (0.5 * (1.0 - np.tanh(margin / 2)))) / len(pairs) + 2 * lam * beta
        return float(value), grad

    bounds = [(0.0, None)] * p if nonneg else None
    beta, out = np.zeros(p), {}
    for lam in sorted(grid, reverse=True):
        beta = minimize(loss, beta, args=(lam,), jac=True, method="L-BFGS-B", bounds=bounds, options=CONVERGED).x
        out[lam] = beta
    return np.stack([out[lam] for lam in grid])


def fit_path(z: np.ndarray, human: np.ndarray, items: np.ndarray, weights: np.ndarray, objective: str,
             grid: tuple[float, ...] = RIDGE_GRID, nonneg: bool = False, l1_ratio: float = 0.0) -> np.ndarray:
    """``(len(grid), features)`` weights on standardised features ``z`` for every penalty strength."""
    _check(objective)
    if not 0.0 <= l1_ratio <= 1.0:
        raise InputError(f"the elastic net's l1 ratio must lie in [0, 1], got {l1_ratio}")
    if z.shape[1] == 0:
        raise InputError("no feature varies on the training points")
    if objective == "ranking":
        if l1_ratio > 0:
            raise InputError("the elastic net works with the least-squares objectives (pearson, mean-removed)")
        return _ranking_path(ranking_pairs(z, human, items), grid, nonneg)
    gram, moment = normal_equations(z, human, items, weights, objective)
    if l1_ratio > 0:
        return _elastic_net_path(gram, moment, grid, l1_ratio, nonneg)
    return _least_squares_path(gram, moment, grid, nonneg)


def criterion(objective: str, human: np.ndarray, scores: np.ndarray, items: np.ndarray,
              weights: np.ndarray) -> float:
    """What ``objective`` maximises, measured on (validation) points; NaN, and constant scores (an
    all-zero combination), count as -1."""
    _check(objective)
    if not len(scores) or np.ptp(scores) == 0:
        return -1.0
    if objective == "pearson":
        value = pearson(human, scores)
    elif objective == "mean-removed":
        w = np.asarray(weights, dtype=np.float64)
        value = weighted_pearson(remove_group_means(scores, items, w), remove_group_means(human, items, w), w)
    else:
        value = grouped_kendall(human, scores, items)
    return -1.0 if np.isnan(value) else float(value)
