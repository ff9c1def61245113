"""Significance clusters of ranked systems, with Holm or Bonferroni correction of the p-values.

Ranking clusters as google-research/mt-metrics-eval computes them for the WMT metrics tasks
(``tasks.AssignRanks``): the systems are sorted best first; walking down the ranking, system ``j``
opens a new cluster when some system of the current cluster is *significantly better* than it
(better score and two-sided pairwise p-value <= alpha); otherwise it joins the current cluster. So no
system in a cluster is significantly better than a system ranked below it in the same cluster,
and the first system of every cluster after the first is significantly worse than some system of
the cluster before it.

Metrics are ranked the same way by their correlations with human judgements (``data.AssignRanks`` on
``CompareMetrics``' significance matrix, the WMT metrics tasks' "rank" column): :func:`assign_ranks`.

Multiple comparisons (the family is every unordered pair of systems, ``m (m - 1) / 2`` tests):

* Bonferroni: ``p_adj = min(1, M p)``.
* Holm (1979), "A simple sequentially rejective multiple test procedure", step-down: with the
  p-values sorted ``p_(1) <= ... <= p_(M)``, ``p_adj_(k) = min(1, max_{l <= k} (M - l + 1) p_(l))``;
  rejecting where ``p_adj <= alpha`` is Holm's procedure at family-wise error rate alpha.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from mteval.errors import ConfigError, quote

CORRECTIONS = ("none", "holm", "bonferroni")


def adjust(p_values: ArrayLike, correction: str) -> np.ndarray:
    """Family-wise adjusted p-values of a 1-D family of tests (module docstring)."""
    if correction not in CORRECTIONS:
        raise ConfigError(f"unknown multiple-comparison correction {quote(correction)}: "
                          f"use one of {', '.join(CORRECTIONS)}")
    p = np.asarray(p_values, dtype=np.float64)
    size = len(p)
    if correction == "none" or size == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, size * p)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((size - np.arange(size)) * p[order])
    adjusted = np.empty(size)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


def adjust_pairwise(p_values: ArrayLike, correction: str) -> np.ndarray:
    """A symmetric (m, m) matrix of pairwise p-values adjusted over its m (m - 1) / 2 pairs."""
    p = np.asarray(p_values, dtype=np.float64)
    rows, cols = np.triu_indices(len(p), k=1)
    out = np.ones_like(p)
    out[rows, cols] = out[cols, rows] = adjust(p[rows, cols], correction)
    return out


def ranking(scores: ArrayLike, higher_is_better: bool = True) -> np.ndarray:
    """System indices best first (ties keep the input order)."""
    s = np.asarray(scores, dtype=np.float64)
    return np.argsort(-s if higher_is_better else s, kind="stable")


def clusters(scores: ArrayLike, p_values: ArrayLike, alpha: float = 0.05,
             higher_is_better: bool = True, correction: str = "none") -> list[list[int]]:
    """Ranking clusters (module docstring): lists of system indices, best cluster first.

    ``p_values[i, j]`` is the (two-sided) p-value of the paired test of systems i and j.
    """
    s = np.asarray(scores, dtype=np.float64)
    p = np.asarray(p_values, dtype=np.float64)
    if p.shape != (len(s), len(s)):
        raise ConfigError(f"p-values of shape {p.shape} for {len(s)} systems")
    if np.isnan(p[~np.eye(len(s), dtype=bool)]).any():
        raise ConfigError("clusters need the p-value of every pair of systems")
    significant = adjust_pairwise(p, correction) <= alpha
    sign = 1.0 if higher_is_better else -1.0
    groups: list[list[int]] = []
    for j in ranking(s, higher_is_better):
        beaten = groups and any(significant[i, j] and sign * (s[i] - s[j]) > 0 for i in groups[-1])
        if not groups or beaten:
            groups.append([int(j)])
        else:
            groups[-1].append(int(j))
    return groups


def assign_ranks(p_values: ArrayLike, alpha: float = 0.05) -> list[int]:
    """mt-metrics-eval's ``data.AssignRanks``: ranks (1 = best) of items sorted best first, where
    ``p_values[i, j]`` (i < j; the upper triangle is read) is the one-sided p-value of "item i beats item
    j". Walking down, item ``i`` opens a new rank when some item from the first of the current rank
    up to ``i - 1`` beats it with p <= ``alpha`` (a NaN p-value beats nothing)."""
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise ConfigError(f"ranks need a square matrix of p-values, not shape {p.shape}")
    ranks: list[int] = []
    current, start = 1, 0
    for i in range(len(p)):
        if (p[start:i, i] <= alpha).any():
            current, start = current + 1, i
        ranks.append(current)
    return ranks
