"""The maximum-spanning-tree decoder of the natasha backend, against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mteval.annotate.backends.mst import mst_heads, tree_score


def _trees(n: int) -> list[tuple[int, ...]]:
    """Every head assignment of n words that is a tree with exactly one root word."""
    out = []
    for heads in itertools.product(range(n + 1), repeat=n):
        if sum(h == 0 for h in heads) != 1 or any(h == d + 1 for d, h in enumerate(heads)):
            continue
        ok = True
        for d in range(1, n + 1):
            seen, node = set(), d
            while node != 0 and ok:
                if node in seen:
                    ok = False
                seen.add(node)
                node = heads[node - 1]
        if ok:
            out.append(heads)
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_best_one_root_tree_equals_brute_force(n: int) -> None:
    rng = np.random.default_rng(n)
    trees = _trees(n)
    for _ in range(40):
        scores = rng.normal(size=(n + 1, n + 1))
        heads = mst_heads(scores)
        best = max(tree_score(scores, np.array((0, *t))) for t in trees)
        assert tuple(heads) in trees
        assert tree_score(scores, np.array([0, *heads])) == pytest.approx(best)


def test_greedy_cycle_is_broken() -> None:
    # greedy heads 1<-2, 2<-1 (a cycle), 3<-0: the tree must still hang from one root word
    scores = np.full((4, 4), -5.0)
    scores[2, 1] = scores[1, 2] = 3.0
    scores[0, 3] = 2.0
    scores[3, 1] = 1.0
    heads = mst_heads(scores)
    assert heads.count(0) == 1 and tuple(heads) in _trees(3)
