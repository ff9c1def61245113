"""Overlapping/Matching (IQMT manual §5.2.2, Asiya's Σmin/Σmax): counts, multi-reference maxima, empties."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mteval.metrics.overlap import EMPTY, Bag, Selector, best_counts, overlap_counts, typed_bags


def test_overlap_counts_clip_with_min() -> None:
    # hyp {the:3, cat:1}, ref {the:1, dog:1}: hits = min(3,1) = 1; total = max(3,1)+1+1 = 5
    assert overlap_counts(Bag.of(["the", "the", "the", "cat"]), Bag.of(["the", "dog"])) == (1, 5)
    assert overlap_counts(EMPTY, Bag.of(["a"])) == (0, 1)
    assert overlap_counts(EMPTY, EMPTY) == (0, 0)


def test_selector_type_and_star() -> None:
    counts = {"NN": (1, 3), "DT": (2, 2), "O": (0, 4)}
    assert Selector("g", ("NN",)).score(counts) == 1 / 3
    assert Selector("g").score(counts) == 3 / 9
    assert Selector("g", exclude=frozenset({"O"})).score(counts) == 3 / 5
    assert Selector("g", ("1", "2")).score({"1": (5, 9), "2": (2, 10), "3": (0, 6)}) == 7 / 19
    assert Selector("g", ("VB",)).score(counts) == 0.0   # no items of that type: 0, as Asiya
    assert Selector("g").score({}) == 0.0
    index = {"NN": 0, "DT": 1, "O": 2}
    matrix = np.array([[[1, 3], [2, 2], [0, 4]], [[0, 0], [0, 0], [0, 0]]], dtype=float)
    assert Selector("g").scores(index, matrix).tolist() == [3 / 9, 0.0]
    assert Selector("g", ("DT", "XX")).scores(index, matrix).tolist() == [1.0, 0.0]


def test_multi_reference_maximum_per_type_before_aggregation() -> None:
    hyp = typed_bags([("t1", "x"), ("t2", "y")])
    ref1 = typed_bags([("t1", "x"), ("t2", "z")])   # t1: 1/1, t2: 0/2
    ref2 = typed_bags([("t1", "w"), ("t2", "y")])   # t1: 0/2, t2: 1/1
    best = best_counts(hyp, [ref1, ref2])
    assert best == {"t1": (1, 1), "t2": (1, 1)}
    assert Selector("g").score(best) == 1.0
    # each reference alone gives 1/3
    assert Selector("g").score(best_counts(hyp, [ref1])) == Selector("g").score(best_counts(hyp, [ref2])) == 1 / 3


def test_ties_prefer_smaller_total_and_absence_agreement() -> None:
    hyp = typed_bags([("t", "x")])
    r1 = typed_bags([("t", "y"), ("t", "z")])       # 0/3
    r2 = typed_bags([("t", "y")])                   # 0/2 -> chosen
    assert best_counts(hyp, [r1, r2]) == {"t": (0, 2)}
    # a type only in one reference: the other reference agrees with the hypothesis (both lack it)
    assert best_counts(typed_bags([]), [typed_bags([("u", "a")]), typed_bags([])]) == {}
    assert best_counts(typed_bags([]), [typed_bags([("u", "a")])]) == {"u": (0, 1)}


def test_matching_uses_whole_elements() -> None:
    hyp = typed_bags([("PER", ("barack", "obama")), ("LOC", ("paris",))])
    ref = typed_bags([("PER", ("obama",)), ("LOC", ("paris",))])
    best = best_counts(hyp, [ref])
    assert best == {"PER": (0, 2), "LOC": (1, 1)}
    assert Selector("Me").score(best) == 1 / 3


words = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6)


@given(words, words, words)
def test_bounds_symmetry_identity(h: list[str], r1: list[str], r2: list[str]) -> None:
    hyp, ref = Bag.of(h), Bag.of(r1)
    hits, total = overlap_counts(hyp, ref)
    assert (hits, total) == overlap_counts(ref, hyp)
    assert 0 <= hits <= total
    assert overlap_counts(hyp, hyp) == (len(h), len(h))
    typed = [typed_bags(("t", w) for w in ws) for ws in (h, r1, r2)]
    assert typed[0].bag("t") == hyp
    score = Selector("g").score(best_counts(typed[0], typed[1:]))
    assert 0.0 <= score <= 1.0
    single = Selector("g").score(best_counts(typed[0], typed[1:2]))
    assert score >= single or not any(typed[0].sizes.values()) and not any(typed[2].sizes.values())
