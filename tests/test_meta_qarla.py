"""QUEEN, KING, JACK and KING optimisation: hand-computed values, the literal loop versions
(tests/test_meta_literal.py) and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_meta_literal import greedy_literal, jack_literal, king_literal, queen_all, queen_segment

from mteval.errors import MtevalError
from mteval.io.corpus import DocumentIndex
from mteval.meta.qarla.jack import jack
from mteval.meta.qarla.king import king, reference_queen
from mteval.meta.qarla.optimize import exhaustive_king, greedy_king
from mteval.meta.qarla.queen import QarlaData, aggregate, queen, ratio

# One metric, three references R0 R1 R2, two systems a b, one segment.
# x(r', r'') for the ordered pairs: x(0,1)=x(1,0)=0.5, x(0,2)=x(2,0)=0.4, x(1,2)=x(2,1)=0.6
REF_REF = np.array([[[0.0, 0.5, 0.4], [0.5, 0.0, 0.6], [0.4, 0.6, 0.0]]])[..., None]
# x(a, R0..R2) = 0.5 0.3 0.7 ; x(b, R0..R2) = 0.45 0.45 0.45
SYS_REF = np.array([[[0.5, 0.3, 0.7], [0.45, 0.45, 0.45]]])[..., None]
# x(a, b) = 0.6, x(b, a) = 0.46
SYS_SYS = np.array([[[1.0, 0.6], [0.46, 1.0]]])[..., None]


def tiny(**kw) -> QarlaData:
    args = dict(metrics=("M",), systems=("a", "b"), references=("R0", "R1", "R2"), sys_ref=SYS_REF,
                ref_ref=REF_REF, higher_is_better=np.array([True]), sys_sys=SYS_SYS)
    args.update(kw)
    return QarlaData(**args)


def test_queen_hand_computed():
    # 3 refs x 6 ordered pairs = 18 triples; pair values {0.5, 0.5, 0.4, 0.4, 0.6, 0.6}
    # a: r=R0 0.5 >= 0.5,0.5,0.4,0.4 (ties succeed) -> 4; r=R1 0.3 -> 0; r=R2 0.7 -> 6: 10/18
    # b: 0.45 >= 0.4,0.4 for each r -> 2+2+2 = 6/18
    counts = queen(tiny())
    assert counts.hits[:, 0].tolist() == [10, 6]
    assert counts.trials[:, 0].tolist() == [18, 18]
    assert ratio(counts)[:, 0] == pytest.approx([10 / 18, 1 / 3])


def test_king_hand_computed():
    # held R0 (pairs x(1,2)=x(2,1)=0.6): R0 scores 0.5,0.4 -> 0/4; a: 0.3,0.7 -> 2/4 > 0: miss
    # held R1 (pairs 0.4,0.4): R1 0.5,0.6 -> 4/4; a 0.5,0.7 -> 4/4; b 0.45 -> 4/4: ties, hit
    # held R2 (pairs 0.5,0.5): R2 0.4,0.6 -> 2/4; a 0.5,0.3 -> 2/4; b -> 0/4: hit
    result = king(tiny(), level="seg")
    assert (result.hits, result.trials) == (2, 3)
    assert result.value == pytest.approx(2 / 3)
    ref = reference_queen(tiny())
    assert ref.hits[:, 0].tolist() == [0, 4, 2] and ref.trials[:, 0].tolist() == [4, 4, 4]


def test_jack_hand_computed():
    # QUEEN(a)=10/18>0, QUEEN(b)=6/18>0. Pair (a,b): x(a,b)=0.6 <= x(a,r) only for R2 (0.7);
    # pair (b,a): x(b,a)=0.46 > 0.45 for every r. JACK = 1 of 3 references.
    counts = jack(tiny())
    assert (int(counts.hits[0]), int(counts.trials[0])) == (1, 3)


def test_error_metric_is_negated():
    # the same numbers stored as an error metric (lower is better): compare the other way round
    flipped = tiny(sys_ref=-SYS_REF, ref_ref=-REF_REF, sys_sys=-SYS_SYS, higher_is_better=np.array([False]))
    assert queen(flipped).hits[:, 0].tolist() == [10, 6]
    assert king(flipped).hits == 2


def test_fewer_than_three_references_is_an_error():
    two = tiny(references=("R0", "R1"), sys_ref=SYS_REF[:, :, :2], ref_ref=REF_REF[:, :2, :2])
    with pytest.raises(MtevalError, match="at least 3 references"):
        queen(two)
    with pytest.raises(MtevalError, match="at least 3 references"):
        king(two)


def test_shape_mismatch_is_an_error():
    with pytest.raises(MtevalError, match="sys_ref has shape"):
        tiny(sys_ref=SYS_REF[:, :1])


def random_data(seed: int, m=3, a=4, k=3, s=6, nan=0.0, levels=4, docs=2) -> QarlaData:
    """Random scores on a coarse grid (many ties), some NaN, a mix of directions."""
    rng = np.random.default_rng(seed)
    def grid(shape):
        x = rng.integers(0, levels, size=shape).astype(float)
        x[rng.random(shape) < nan] = np.nan
        return x
    documents = DocumentIndex(tuple(f"d{i % docs}" for i in range(s)))
    return QarlaData(tuple(f"m{i}" for i in range(m)), tuple(f"s{i}" for i in range(a)),
                     tuple(f"r{i}" for i in range(k)), grid((m, a, k, s)), grid((m, k, k, s)),
                     rng.random(m) < 0.7, grid((m, a, a, s)), documents)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 4), st.sampled_from([0.0, 0.1]))
def test_queen_matches_literal(seed, k, nan):
    data = random_data(seed, k=k, nan=nan)
    hits, trials = queen_all(data.sys_ref, data.ref_ref, list(data.higher_is_better))
    counts = queen(data)
    np.testing.assert_array_equal(counts.hits, hits)
    np.testing.assert_array_equal(counts.trials, trials)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["seg", "doc", "sys"]), st.sampled_from([0.0, 0.1]))
def test_king_matches_literal(seed, level, nan):
    data = random_data(seed, nan=nan)
    hits, trials = king_literal(data.sys_ref, data.ref_ref, list(data.higher_is_better), level,
                                data.documents)
    result = king(data, level=level)
    assert (result.hits, result.trials) == (hits, trials)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_jack_matches_literal(seed):
    data = random_data(seed)
    hits, trials = jack_literal(data.sys_ref, data.ref_ref, data.sys_sys, list(data.higher_is_better))
    counts = jack(data)
    assert (int(counts.hits.sum()), int(counts.trials.sum())) == (hits, trials)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_greedy_matches_literal(seed):
    data = random_data(seed, m=4, s=8)
    names, value = greedy_literal(data.sys_ref, data.ref_ref, list(data.higher_is_better), data.metrics)
    result = greedy_king(data)
    assert list(result.metrics) == names
    assert result.king.value == pytest.approx(value)
    assert exhaustive_king(data).king.value >= result.king.value


def test_exhaustive_is_optimal_over_all_subsets():
    from itertools import combinations
    data = random_data(7, m=4, s=10)
    best = max(king(data, list(c)).value for n in range(1, 5) for c in combinations(data.metrics, n))
    assert exhaustive_king(data).king.value == best
    assert exhaustive_king(data).evaluated == 15


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_queen_properties(seed):
    data = random_data(seed, nan=0.05)
    q = ratio(aggregate(queen(data), "sys"))
    assert np.all((q[~np.isnan(q)] >= 0) & (q[~np.isnan(q)] <= 1))
    # adding a redundant (duplicated) metric never changes QUEEN (manual §3.1.1 (v))
    dup = QarlaData(data.metrics + ("copy",), data.systems, data.references,
                    np.concatenate([data.sys_ref, data.sys_ref[:1]]),
                    np.concatenate([data.ref_ref, data.ref_ref[:1]]),
                    np.concatenate([data.higher_is_better, data.higher_is_better[:1]]))
    np.testing.assert_array_equal(queen(dup).hits, queen(data).hits)


def test_system_identical_to_the_references_gets_queen_one():
    # Identical texts get the maximal similarity (1.0 here) from every metric. A system
    # identical to reference R0 passes every triple with r = R0 (so QUEEN >= 1/k); when it is
    # at least as close to every reference as the references are to each other, QUEEN = 1.
    rng = np.random.default_rng(3)
    k, s = 3, 5
    ref_ref = rng.random((2, k, k, s)) * 0.9
    sys_ref = np.concatenate([ref_ref[:, :1].copy(), rng.random((2, 1, k, s)) * 0.9], axis=1)
    sys_ref[:, 0, 0, :] = 1.0  # system 0 is identical to R0
    data = QarlaData(("m1", "m2"), ("copy_of_R0", "other"), ("R0", "R1", "R2"), sys_ref, ref_ref,
                     np.array([True, True]))
    q = queen(data)
    assert np.all(q.hits[0] >= 6) and np.all(q.trials[0] == 18)
    closest = sys_ref.copy()
    closest[:, 0] = 1.0  # identical to all references (all references are the same text)
    assert np.all(ratio(queen(QarlaData(data.metrics, data.systems, data.references, closest, ref_ref,
                                        data.higher_is_better)))[0] == 1.0)


def test_trans_topic_pools_reference_pairs_over_segments():
    data = random_data(11, s=5)
    tt = queen(data, trans_topic=True)
    hib = list(data.higher_is_better)
    # literal: a triple is (r, r', r'', t) over all segments t for reference pairs
    for a in range(len(data.systems)):
        for s in range(5):
            hits = 0
            for r in range(3):
                for r1 in range(3):
                    for r2 in range(3):
                        for t in range(5):
                            if r1 != r2:
                                hits += all((data.sys_ref[m, a, r, s] if hib[m] else -data.sys_ref[m, a, r, s])
                                            >= (data.ref_ref[m, r1, r2, t] if hib[m]
                                                else -data.ref_ref[m, r1, r2, t]) for m in range(3))
            assert tt.hits[a, s] == hits and tt.trials[a, s] == 3 * 6 * 5
    assert king(data, trans_topic=True).trials == 15


def test_literal_helper_consistency():
    assert queen_segment(SYS_REF[:, 0], REF_REF, [True], 0, range(3)) == (10, 18)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_trans_topic_bitsets_equal_direct_comparison(seed):
    import mteval.meta.qarla.queen as qarla_module
    data = random_data(seed, nan=0.1, s=7)
    fast = queen(data, trans_topic=True)
    saved = qarla_module._MAX_BITSET_POOL
    qarla_module._MAX_BITSET_POOL = 0
    try:
        slow = queen(data, trans_topic=True)
    finally:
        qarla_module._MAX_BITSET_POOL = saved
    np.testing.assert_array_equal(fast.hits, slow.hits)
    np.testing.assert_array_equal(fast.trials, slow.trials)
