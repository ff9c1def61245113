"""Matrix-Tree marginals against brute-force enumeration of every single-root tree."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mteval.annotate.model import ArcScores
from mteval.metrics.matrix_tree import arc_marginals, expected_arc_labels, label_logprobs, log_partition


def _trees(n: int):
    """Every head vector (heads[d-1] for d = 1..n) that is a tree with exactly one root child."""
    for heads in itertools.product(range(n + 1), repeat=n):
        if sum(h == 0 for h in heads) != 1 or any(h == d + 1 for d, h in enumerate(heads)):
            continue
        ok = True
        for d in range(1, n + 1):
            seen, h = set(), d
            while h != 0 and ok:
                if h in seen:
                    ok = False
                seen.add(h)
                h = heads[h - 1]
        if ok:
            yield heads


def _brute(pot: np.ndarray) -> tuple[np.ndarray, float]:
    n = pot.shape[0] - 1
    marg = np.zeros_like(pot)
    logw = []
    trees = list(_trees(n))
    for heads in trees:
        logw.append(sum(pot[h, d + 1] for d, h in enumerate(heads)))
    logw_arr = np.array(logw)
    logz = np.logaddexp.reduce(logw_arr)
    for heads, lw in zip(trees, logw_arr, strict=True):
        for d, h in enumerate(heads):
            marg[h, d + 1] += np.exp(lw - logz)
    return marg, float(logz)


def test_tree_counts_match_cayley() -> None:
    # single-root trees on n labelled nodes hanging from a root: n^(n-1) (Cayley, rooted)
    for n in range(1, 6):
        assert sum(1 for _ in _trees(n)) == n ** (n - 1)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 5), seed=st.integers(0, 2**31 - 1), scale=st.sampled_from([0.1, 1.0, 5.0, 30.0]))
@example(n=4, seed=1370103, scale=30.0)  # a near-cycle: float64 loses 3 digits, mpmath fallback
def test_marginals_match_brute_force(n: int, seed: int, scale: float) -> None:
    pot = np.random.default_rng(seed).normal(scale=scale, size=(n + 1, n + 1))
    marg = arc_marginals(pot)
    expected, logz = _brute(pot)
    np.testing.assert_allclose(marg, expected, atol=1e-9)
    np.testing.assert_allclose(log_partition(pot), logz, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)
    assert abs(marg[0].sum() - 1.0) < 1e-9  # single root


def test_batched_equals_single() -> None:
    rng = np.random.default_rng(0)
    pots = rng.normal(size=(7, 5, 5))
    batched = arc_marginals(pots)
    for i in range(7):
        np.testing.assert_allclose(batched[i], arc_marginals(pots[i]), atol=1e-12)


def test_long_sentence_is_stable() -> None:
    rng = np.random.default_rng(1)
    n = 100
    pot = rng.normal(scale=20.0, size=(n + 1, n + 1))
    marg = arc_marginals(pot)
    assert np.all(np.isfinite(marg))
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-6)
    assert abs(marg[0].sum() - 1.0) < 1e-6


def _random_scores(n: int, n_labels: int, k: int, rng: np.random.Generator) -> ArcScores:
    arcs = rng.normal(scale=3.0, size=(n + 1, n + 1))
    heads = np.stack([rng.permutation([h for h in range(n + 1) if h != d])[:k] for d in range(1, n + 1)])
    logits = rng.normal(scale=2.0, size=(n, k, n_labels))
    logp = logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)
    return ArcScores(arcs, tuple(f"l{i}" for i in range(n_labels)), heads, logp)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 2**31 - 1), gamma=st.sampled_from([0.25, 1.0, 3.0]))
def test_expected_labels_match_brute_force(n: int, seed: int, gamma: float) -> None:
    """Joint (tree, labels) expectation: enumerate trees, weight each arc by Σ_l P(l)^γ."""
    rng = np.random.default_rng(seed)
    scores = _random_scores(n, 3, min(2, n), rng)
    dense = label_logprobs(scores)
    (expected,) = expected_arc_labels([scores], gamma)
    arc_pot = gamma * scores.arcs + np.logaddexp.reduce(gamma * dense, axis=-1)
    marg, _ = _brute(arc_pot)
    with np.errstate(invalid="ignore"):
        probs = np.exp(gamma * dense - np.logaddexp.reduce(gamma * dense, axis=-1, keepdims=True))
    np.testing.assert_allclose(expected[:, 1:], (marg[..., None] * probs)[:, 1:], atol=1e-9)
    # property: expected dl counts (label of every word) sum to the sentence length
    assert abs(expected.sum() - n) < 1e-9


def test_top_k_label_fallback() -> None:
    rng = np.random.default_rng(3)
    scores = _random_scores(4, 5, 2, rng)
    dense = label_logprobs(scores)
    for d in range(1, 5):
        best = scores.label_heads[d - 1, 0]
        for h in range(5):
            if h == d:
                continue
            ks = np.flatnonzero(scores.label_heads[d - 1] == h)
            want = scores.label_logp[d - 1, ks[0]] if len(ks) else scores.label_logp[d - 1, 0]
            np.testing.assert_allclose(dense[h, d], want)
        assert best in scores.label_heads[d - 1]


def test_split_segment_parts_are_independent_trees() -> None:
    """A segment parsed as two sentences (block-diagonal scores) = two single-root trees."""
    from mteval.annotate.convert import join_arc_scores

    rng = np.random.default_rng(5)
    a, b = (ArcScores(s.arcs.astype(np.float32), s.labels, s.label_heads.astype(np.int16),
                      s.label_logp.astype(np.float16))  # the cache's precision, as join uses
            for s in (_random_scores(3, 4, 2, rng), _random_scores(2, 4, 2, rng)))
    joined = join_arc_scores([a, b])
    (whole,) = expected_arc_labels([joined], 0.5)
    ea, eb = expected_arc_labels([a, b], 0.5)
    np.testing.assert_allclose(whole[np.ix_([0, 1, 2, 3], [0, 1, 2, 3])], ea, atol=1e-6)
    np.testing.assert_allclose(whole[np.ix_([0, 4, 5], [0, 4, 5])], eb, atol=1e-6)
    assert abs(whole.sum() - 5) < 1e-9 and abs(whole[0].sum() - 2) < 1e-9


def test_duplicate_kept_heads() -> None:
    """Padded duplicate heads (as join_arc_scores writes) count once, with the later distribution."""
    rng = np.random.default_rng(7)
    s = _random_scores(4, 3, 3, rng)
    heads = s.label_heads.copy()
    heads[:, 2] = heads[:, 1]
    logp = s.label_logp.copy()
    logp[:, 2] = logp[:, 1]
    dup = ArcScores(s.arcs, s.labels, heads, logp)
    two = ArcScores(s.arcs, s.labels, heads[:, :2], logp[:, :2])
    np.testing.assert_allclose(expected_arc_labels([dup], 0.7)[0], expected_arc_labels([two], 0.7)[0])
