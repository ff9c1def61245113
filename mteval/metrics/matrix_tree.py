"""Exact expected dependency counts over all non-projective trees (the Matrix-Tree theorem).

EDPM (Kahn, Snover & Ostendorf 2009, §2) takes expected counts of tree decompositions over an
n-best list, with the tree probabilities flattened by an exponent γ. We go beyond the n-best list:
the parser's arc scores define an edge-factored distribution over *all* dependency trees,

    p_γ(T, L) ∝ Π_d exp(γ · (s(h_d, d) + log P(l_d | h_d -> d))),

whose arc marginals are computed exactly in O(n³) with the Matrix-Tree theorem (Koo, Globerson,
Carreras & Collins 2007, §3; Smith & Smith 2007). We use Koo et al.'s **single-root** variant
(exactly one word hangs from the virtual root, as UD requires): the Laplacian's first row is
replaced by the root weights, Z = det(L̂), and (1-based, Koo et al. 2007 eq. 10-11)

    μ(h, d) = [d≠1] A[h,d] L̂⁻¹[d,d] − [h≠1] A[h,d] L̂⁻¹[d,h],      μ(0, d) = r[d] L̂⁻¹[d,1].

The labels follow the same tempered distribution: an arc's label-summed potential is
``γ·s(h,d) + log Σ_l P(l|h,d)^γ`` and, given the arc, P_γ(l) ∝ P(l|h,d)^γ. γ = 1 is the parser's
own distribution, γ -> 0 flattens it towards uniform, γ -> ∞ gives the 1-best tree (which callers
take from the annotation itself). Stability: each dependent's incoming potentials are shifted by
their maximum (this rescales every tree by the same factor, so the marginals are unchanged), and
inverses are batched per sentence length with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from mteval.annotate.model import ArcScores


def _shifted_weights(potentials: np.ndarray) -> np.ndarray:
    """exp(potentials) with column 0 and the diagonal zeroed, each column scaled to max 1."""
    n1 = potentials.shape[-1]
    pot = np.array(potentials, dtype=np.float64, copy=True)
    pot[..., :, 0] = -np.inf
    idx = np.arange(n1)
    pot[..., idx, idx] = -np.inf
    top = pot[..., :, 1:].max(axis=-2, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    weights = np.zeros_like(pot)
    weights[..., :, 1:] = np.exp(pot[..., :, 1:] - top)
    return weights


def _laplacian(weights: np.ndarray) -> np.ndarray:
    """Koo et al.'s single-root Laplacian L̂ (batched), shape ``(..., n, n)``."""
    a = weights[..., 1:, 1:]
    lap = -a.copy()
    n = a.shape[-1]
    idx = np.arange(n)
    lap[..., idx, idx] = a.sum(axis=-2)
    lap[..., 0, :] = weights[..., 0, 1:]
    return lap


COND_LIMIT = 1e7  # above this 1-norm condition number, redo the inverse in extended precision


def _koo_marginals(weights: np.ndarray, inv: np.ndarray) -> np.ndarray:
    """Koo et al.'s marginal formula from the weights and the inverse Laplacian (batched)."""
    a = weights[..., 1:, 1:]
    diag = np.diagonal(inv, axis1=-2, axis2=-1)          # inv[d, d]
    term1 = a * diag[..., None, :]                          # A[h,d] inv[d,d]
    term1[..., :, 0] = 0.0                                  # [d != 1]
    term2 = a * np.swapaxes(inv, -1, -2)                    # A[h,d] inv[d,h]
    term2[..., 0, :] = 0.0                                  # [h != 1]
    marg = np.zeros_like(weights)
    marg[..., 1:, 1:] = term1 - term2
    marg[..., 0, 1:] = weights[..., 0, 1:] * inv[..., :, 0]
    return marg


def _mp_laplacian(weights: np.ndarray) -> Any:
    """Koo et al.'s single-root L̂ of one sentence as an mpmath matrix (exact sums)."""
    import mpmath

    n = weights.shape[0] - 1
    w = [[mpmath.mpf(float(x)) for x in row] for row in weights]
    lap = mpmath.matrix(n, n)
    for d in range(1, n + 1):
        lap[0, d - 1] = w[0][d]
        for h in range(1, n + 1):
            if h != d:
                if d != 1:  # row 1 holds the root weights
                    lap[d - 1, d - 1] += w[h][d]
                if h != 1:
                    lap[h - 1, d - 1] = -w[h][d]
    return lap


def _digits(cond: float) -> int:
    return int(30 + 2 * np.log10(min(max(cond, 1.0), 1e300)))


def _precise_marginals(weights: np.ndarray, cond: float) -> np.ndarray:
    """Marginals of one sentence with L̂, its inverse and Koo's formula in extended precision.

    A near-cycle of heavy arcs makes L̂ nearly singular although the marginals are well
    conditioned: the diagonal sums (1 + tiny), the LU and the difference of inverse entries in
    the marginal formula each lose up to log10(cond) digits in float64.
    """
    import mpmath

    n = weights.shape[0] - 1
    with mpmath.workdps(_digits(cond)):
        lap = _mp_laplacian(weights)
        inv = mpmath.inverse(lap)
        marg = np.zeros_like(weights)
        for d in range(1, n + 1):
            marg[0, d] = float(lap[0, d - 1] * inv[d - 1, 0])
            for h in range(1, n + 1):
                if h != d and weights[h, d]:
                    keep = inv[d - 1, d - 1] if d != 1 else 0
                    minus = inv[d - 1, h - 1] if h != 1 else 0
                    marg[h, d] = float(mpmath.mpf(float(weights[h, d])) * (keep - minus))
        return marg


def _inv_or_nan(matrix: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(matrix)
    except np.linalg.LinAlgError:
        return np.full_like(matrix, np.nan)


def arc_marginals(potentials: np.ndarray) -> np.ndarray:
    """Arc marginals μ[h, d] of the single-root edge-factored tree distribution (Koo et al. 2007).

    ``potentials[..., h, d]`` are log-potentials (already multiplied by γ), shape
    ``(..., n+1, n+1)`` with index 0 the virtual root; batched over leading axes. Column 0 and
    the diagonal of the result are 0; every column ``d >= 1`` sums to 1. Matrices whose 1-norm
    condition number exceeds ``COND_LIMIT`` are inverted again in extended precision.
    """
    weights = _shifted_weights(potentials)
    n = weights.shape[-1] - 1
    if n == 0:
        return np.zeros_like(weights)
    lap = _laplacian(weights)
    try:
        inv = np.linalg.inv(lap)
    except np.linalg.LinAlgError:  # a singular matrix in the batch: flag it, redo it precisely
        inv = np.stack([_inv_or_nan(m) for m in lap.reshape(-1, n, n)]).reshape(lap.shape)
    cond = np.linalg.norm(lap, 1, axis=(-2, -1)) * np.linalg.norm(inv, 1, axis=(-2, -1))
    bad = ~(cond < COND_LIMIT)
    marg = _koo_marginals(weights, inv)
    if bad.any():
        flat_w, flat_m = weights.reshape(-1, n + 1, n + 1), marg.reshape(-1, n + 1, n + 1)
        flat_cond = np.nan_to_num(cond.reshape(-1), nan=1e300, posinf=1e300)
        for i in np.flatnonzero(bad.reshape(-1)):
            flat_m[i] = _precise_marginals(flat_w[i], float(flat_cond[i]))
    return np.clip(marg, 0.0, 1.0)


def log_partition(potentials: np.ndarray) -> np.ndarray:
    """log Z of the single-root tree distribution (batched), for tests and diagnostics."""
    import mpmath

    pot = np.array(potentials, dtype=np.float64, copy=True)
    n1 = pot.shape[-1]
    idx = np.arange(n1)
    pot[..., :, 0] = -np.inf
    pot[..., idx, idx] = -np.inf
    top = pot[..., :, 1:].max(axis=-2)
    top = np.where(np.isfinite(top), top, 0.0)
    weights = _shifted_weights(potentials)
    lap = _laplacian(weights)
    _, logdet = np.linalg.slogdet(lap)
    cond = np.linalg.cond(lap, 1)
    flat_w, flat_ld, flat_c = weights.reshape(-1, n1, n1), np.array(logdet).reshape(-1), cond.reshape(-1)
    for i in np.flatnonzero(~(flat_c < COND_LIMIT)):
        with mpmath.workdps(_digits(float(np.nan_to_num(flat_c[i], nan=1e300)))):
            flat_ld[i] = float(mpmath.log(mpmath.det(_mp_laplacian(flat_w[i]))))
    return flat_ld.reshape(np.shape(logdet)) + top.sum(axis=-1)


def label_logprobs(scores: ArcScores) -> np.ndarray:
    """Dense log P(label | h -> d), shape ``(n+1, n+1, L)``: the top-K heads' own distributions,
    every other arc the distribution of the dependent's best head (``ArcScores`` docstring)."""
    n = scores.arcs.shape[0] - 1
    n_labels = len(scores.labels)
    dense = np.empty((n + 1, n + 1, n_labels), dtype=np.float64)
    if n == 0:
        return dense
    dense[:, 1:, :] = scores.label_logp[None, :, 0, :]
    heads = np.asarray(scores.label_heads, dtype=np.intp)
    deps = np.broadcast_to(np.arange(1, n + 1)[:, None], heads.shape)
    valid = (heads >= 0) & (heads <= n)
    dense[heads[valid], deps[valid], :] = scores.label_logp[valid]
    dense[:, 0, :] = -np.inf
    return dense


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - top).sum(axis=axis)) + np.squeeze(top, axis=axis)


def _label_normalisers(batch: Sequence[ArcScores], gamma: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per sentence: log Σ_l P(l|h_k,d)^γ (``(n, K)``) and the tempered distributions
    (``(n, K, L)``), computed in one vectorised pass per (K, L) shape over the whole batch.

    Only K + 1 distinct label distributions exist per dependent (``ArcScores`` docstring), so the
    normaliser is computed per (dependent, k) and broadcast, never over the dense (n+1)² x L grid.
    """
    out: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(batch)
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, s in enumerate(batch):
        groups.setdefault(tuple(np.shape(s.label_logp)[1:]), []).append(i)
    for members in groups.values():
        scaled = gamma * np.concatenate([np.asarray(batch[i].label_logp, dtype=np.float64)
                                         for i in members])
        lse = _logsumexp(scaled, axis=-1)
        with np.errstate(invalid="ignore"):
            probs = np.exp(scaled - lse[..., None])
        probs[np.isnan(probs)] = 0.0
        cuts = np.cumsum([np.shape(batch[i].label_logp)[0] for i in members])[:-1]
        for i, l_part, p_part in zip(members, np.split(lse, cuts), np.split(probs, cuts), strict=True):
            out[i] = (l_part, p_part)
    return [o for o in out if o is not None]


def _tempered(scores: ArcScores, gamma: float, lse: np.ndarray) -> np.ndarray:
    """Label-summed arc potentials ``γ·s(h,d) + log Σ_l P(l|h,d)^γ``, ``(n+1, n+1)``."""
    n = scores.arcs.shape[0] - 1
    arcs = gamma * np.asarray(scores.arcs, dtype=np.float64)
    pot = arcs.copy()
    if n == 0:
        return pot
    deps = np.arange(1, n + 1)
    pot[:, 1:] += lse[:, 0][None, :]
    heads = np.asarray(scores.label_heads, dtype=np.intp)
    for k in range(1, heads.shape[1]):  # later k win, as in label_logprobs
        valid = (heads[:, k] >= 0) & (heads[:, k] <= n)
        h, d = heads[valid, k], deps[valid]
        pot[h, d] = arcs[h, d] + lse[valid, k]
    return pot


@dataclass(frozen=True)
class ArcExpectation:
    """Expected arcs of one sentence, compactly: arc marginals μ[h, d] (``(n+1, n+1)``) and, per
    dependent, the label distributions of its K kept heads (``heads`` ``(n, K)``, ``probs``
    ``(n, K, L)``); any other head uses k = 0's distribution, and among repeated heads the last
    k wins (as :func:`label_logprobs`). E[h -> d with label l] = μ[h, d] · P(l | h, d)."""

    marg: np.ndarray
    heads: np.ndarray
    probs: np.ndarray

    @cached_property
    def _overrides(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(heads, dependents, P_k − P_0) of every kept head k >= 1 that overrides k = 0."""
        n, n_kept = self.heads.shape
        deps = np.arange(1, n + 1)
        out = []
        for k in range(1, n_kept):
            ok = (self.heads[:, k] >= 0) & (self.heads[:, k] <= n)
            for later in range(k + 1, n_kept):
                ok &= self.heads[:, later] != self.heads[:, k]
            out.append((self.heads[ok, k], deps[ok], self.probs[ok, k] - self.probs[ok, 0]))
        return out

    def dense(self, positions: np.ndarray | None = None) -> np.ndarray:
        """E[h, d, l], shape ``(n+1, n+1, L)``; or only over ``positions`` (sorted, with 0)."""
        n = self.marg.shape[0] - 1
        base = np.zeros((n + 1, self.probs.shape[-1]))
        base[1:] = self.probs[:, 0] if n else base[1:]
        if positions is None:
            positions = np.arange(n + 1)
        local = np.full(n + 1, -1)
        local[positions] = np.arange(len(positions))
        expected = self.marg[np.ix_(positions, positions)][:, :, None] * base[positions][None, :, :]
        for h, d, delta in self._overrides:
            ok = (local[h] >= 0) & (local[d] >= 0)
            expected[local[h[ok]], local[d[ok]], :] += self.marg[h[ok], d[ok]][:, None] * delta[ok]
        return expected

    def by_dependent(self) -> np.ndarray:
        """Σ_h E[h, d, l]: the expected label of every word, ``(n+1, L)`` (row 0 empty)."""
        n = self.marg.shape[0] - 1
        out = np.zeros((n + 1, self.probs.shape[-1]))
        if n:
            out[1:] = self.marg[:, 1:].sum(axis=0)[:, None] * self.probs[:, 0]
        for h, d, delta in self._overrides:
            out[d] += self.marg[h, d][:, None] * delta
        return out

    def by_head(self) -> np.ndarray:
        """Σ_d E[h, d, l]: expected inbound labels of every head position, ``(n+1, L)``."""
        n = self.marg.shape[0] - 1
        if n == 0:
            return np.zeros((1, self.probs.shape[-1]))
        out = self.marg[:, 1:] @ self.probs[:, 0]
        for h, d, delta in self._overrides:
            np.add.at(out, h, self.marg[h, d][:, None] * delta)
        return out


def blocks(arcs: np.ndarray) -> list[np.ndarray]:
    """Word ids (1-based) of each part of a segment: the connected components of the finite
    word-word arcs. A segment the tokenizer split into several sentences has block-diagonal scores
    (:func:`mteval.annotate.convert.join_arc_scores`); each part is a single-root tree of its own."""
    n = arcs.shape[0] - 1
    if n == 0:
        return []
    finite = np.isfinite(np.asarray(arcs[1:, 1:], dtype=np.float64))
    if finite.sum() == n * n - n:  # every word-word arc scored: one part
        return [np.arange(1, n + 1)]
    from scipy.sparse import csr_matrix  # noqa: PLC0415 (scipy costs 0.2 s of start-up; rarely needed)
    from scipy.sparse.csgraph import connected_components  # noqa: PLC0415

    _, comp = connected_components(csr_matrix(finite), directed=False)
    return [np.flatnonzero(comp == c) + 1 for c in np.unique(comp)]


def expected_arcs(batch: Sequence[ArcScores], gamma: float) -> list[ArcExpectation]:
    """Exact expected arcs and labels of every sentence under the γ-tempered parser scores.

    Each part (see :func:`blocks`) is an independent single-root tree; parts are grouped by
    length and their determinants/inverses batched. Every word has exactly one expected head and
    label: ``marg[:, 1:].sum(axis=0)`` is all ones.
    """
    if gamma <= 0:
        raise ValueError(f"gamma must be > 0, got {gamma}")
    labels = _label_normalisers(batch, gamma)
    pots_all = [_tempered(s, gamma, lse) for s, (lse, _) in zip(batch, labels, strict=True)]
    margs = [np.zeros(s.arcs.shape) for s in batch]
    groups: dict[int, list[tuple[int, np.ndarray]]] = {}
    for i, s in enumerate(batch):
        for part in blocks(s.arcs):
            idx = np.concatenate([[0], part])
            groups.setdefault(len(idx), []).append((i, idx))
    for members in groups.values():
        pots = np.stack([pots_all[i][np.ix_(idx, idx)] for i, idx in members])
        marg = arc_marginals(pots)
        for j, (i, idx) in enumerate(members):
            margs[i][np.ix_(idx, idx)] = marg[j]
    return [ArcExpectation(m, np.asarray(s.label_heads, dtype=np.intp), t[1])
            for m, s, t in zip(margs, batch, labels, strict=True)]


def expected_arc_labels(batch: Sequence[ArcScores], gamma: float) -> list[np.ndarray]:
    """Dense E[count of arc h -> d with label l], ``(n+1, n+1, L)`` per sentence."""
    return [e.dense() for e in expected_arcs(batch, gamma)]
