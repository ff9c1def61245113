"""ACET dynamic programme against a brute-force enumerator of embedded subtrees (Lin et al. 2008;
Duma et al. 2013, Sec. 3.2), on thousands of random small trees with repeated labels."""

from __future__ import annotations

import itertools
import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.metrics.cesm import acet, acet_many, tree_from_parents


def _preorder(parents: list[int]) -> list[int]:
    """Preorder of nodes, children in index order (independent of the module's own code)."""
    kids: dict[int, list[int]] = {i: [] for i in range(len(parents))}
    root = parents.index(-1)
    for i, p in enumerate(parents):
        if p >= 0:
            kids[p].append(i)

    def walk(v: int) -> list[int]:
        return [v] + [w for k in sorted(kids[v]) for w in walk(k)]

    return walk(root)


def _ancestors(parents: list[int], v: int) -> list[int]:
    out = []
    while parents[v] >= 0:
        v = parents[v]
        out.append(v)
    return out


def embedded_shapes(labels: list[int], parents: list[int], rooted: bool) -> Counter:
    """Occurrence count of every embedded subtree shape, by enumerating all node subsets."""
    n = len(labels)
    rank = {v: i for i, v in enumerate(_preorder(parents))}
    anc = [set(_ancestors(parents, v)) for v in range(n)]
    root = parents.index(-1)
    shapes: Counter = Counter()
    for size in range(1, n + 1):
        for subset in itertools.combinations(range(n), size):
            chosen = set(subset)
            tops = [t for t in chosen if all(t == x or t in anc[x] for x in chosen)]
            if not tops or (rooted and tops[0] != root):
                continue

            def shape(x: int, chosen: set[int] = chosen) -> str:
                below = [y for y in chosen if x in anc[y]]
                kids = [y for y in below if not any(z in anc[y] for z in below)]
                kids.sort(key=rank.__getitem__)
                return f"({labels[x]}" + "".join(shape(k) for k in kids) + ")"

            shapes[shape(tops[0])] += 1
    return shapes


def brute_acet(a: tuple[list[int], list[int]], b: tuple[list[int], list[int]], rooted: bool) -> int:
    """Sum over common shapes of occurrences(T1) * occurrences(T2)."""
    s1, s2 = embedded_shapes(*a, rooted), embedded_shapes(*b, rooted)
    return sum(c * s2[k] for k, c in s1.items())


@st.composite
def small_trees(draw: st.DrawFn, max_nodes: int = 7, n_labels: int = 3) -> tuple[list[int], list[int]]:
    """A random tree: node i > 0 hangs from a random earlier node (then indices shuffled so that
    word order and tree order differ), labels from a small alphabet (many repeats)."""
    n = draw(st.integers(1, max_nodes))
    parents = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    perm = draw(st.permutations(range(n)))
    new_parents = [0] * n
    for old, new in enumerate(perm):
        new_parents[new] = -1 if parents[old] < 0 else perm[parents[old]]
    labels = [draw(st.integers(0, n_labels - 1)) for _ in range(n)]
    return labels, new_parents


@pytest.mark.slow  # ~5 s: in make test-all (the fast tier stays under 8 minutes)
@settings(max_examples=2500, deadline=None)
@given(small_trees(), small_trees())
def test_acet_matches_brute_force(a: tuple[list[int], list[int]], b: tuple[list[int], list[int]]) -> None:
    rooted, anyroot = acet(tree_from_parents(*a), tree_from_parents(*b))
    assert rooted == brute_acet(a, b, rooted=True)
    assert anyroot == brute_acet(a, b, rooted=False)


@settings(max_examples=300, deadline=None)
@given(small_trees(max_nodes=8, n_labels=1))
def test_acet_single_label_self(a: tuple[list[int], list[int]]) -> None:
    """All labels equal: the hardest case for the DP (every pair of nodes matches)."""
    t = tree_from_parents(*a)
    assert acet(t, t) == (brute_acet(a, a, True), brute_acet(a, a, False))


def test_acet_symmetric_and_hand_example() -> None:
    # a -> (b, c), against a -> (c, b): common rooted subtrees: (a), (a b), (a c) -> 3
    t1 = tree_from_parents([0, 1, 2], [-1, 0, 0])
    t2 = tree_from_parents([0, 2, 1], [-1, 0, 0])
    assert acet(t1, t2) == (3.0, 3.0 + 2.0)
    assert acet(t1, t2) == acet(t2, t1)
    # a -> b -> c: rooted embedded subtrees (a), (a b), (a c), (a (b c)) -> 4
    chain = tree_from_parents([0, 1, 2], [-1, 0, 1])
    assert acet(chain, chain)[0] == 4.0


def _random_parse(rng: np.random.Generator, n: int) -> tuple[list[int], list[int]]:
    """A dependency-like tree: each word attaches to a nearby word (short arcs), 40 labels."""
    parents = [-1] * n
    root = int(rng.integers(n))
    for i in range(n):
        if i != root:
            parents[i] = root if rng.random() < 0.15 else -2
    order = sorted(range(n), key=lambda i: abs(i - root))
    placed = [root]
    for i in order[1:]:
        if parents[i] == -2:
            near = min(placed, key=lambda j: abs(j - i) + rng.random())
            parents[i] = near
        placed.append(i)
    return [int(x) for x in rng.integers(0, 40, n)], parents


def test_acet_80_tokens_fast() -> None:
    """Two 80-word parse-like trees: well under a second each (measured ~ms)."""
    rng = np.random.default_rng(7)
    a, b = _random_parse(rng, 80), _random_parse(rng, 80)
    t1, t2 = tree_from_parents(*a), tree_from_parents(*b)
    start = time.perf_counter()
    for _ in range(3):
        acet(t1, t2)
        acet(t1, t1)
    assert (time.perf_counter() - start) / 6 < 0.5
    assert acet(t1, t1)[0] >= 2 ** 79  # at least one occurrence of each of the 2^79 rooted subsets


@settings(max_examples=300, deadline=None)
@given(small_trees(), small_trees(), small_trees())
def test_one_sweep_over_a_forest_equals_separate_sweeps(a: tuple, b: tuple, c: tuple) -> None:
    t1, t2, t3 = (tree_from_parents(*x) for x in (a, b, c))
    assert acet_many(t1, [t2, t3, t1]) == [acet(t1, t2), acet(t1, t3), acet(t1, t1)]


def test_repeated_words_can_push_precision_over_one() -> None:
    """Reference a -> (b, b), hypothesis a -> b: ACET(r,h) = 3, ACET(h,h) = 2, ACET(r,r) = 6
    (docs/cesm-hybridization.md): P = 1.5, R = 0.5, F1 = 0.75."""
    ref, hyp = tree_from_parents([0, 1, 1], [-1, 0, 0]), tree_from_parents([0, 1], [-1, 0])
    assert acet(ref, hyp)[0] == 3 and acet(hyp, hyp)[0] == 2 and acet(ref, ref)[0] == 6


def test_large_forest_falls_back_to_separate_sweeps(monkeypatch: pytest.MonkeyPatch) -> None:
    from mteval.metrics import cesm

    monkeypatch.setattr(cesm, "MAX_CELLS", 0)
    t1 = tree_from_parents([0, 1, 1, 2], [-1, 0, 0, 1])
    t2 = tree_from_parents([0, 1, 2], [-1, 0, 1])
    assert acet_many(t1, [t1, t2]) == [acet(t1, t1), acet(t1, t2)]
