"""``mteval/annotate/fast_decode.py`` gives the trees of Stanza's own Chu-Liu/Edmonds steps, bit for
bit: the same cycles in the same order and the same contracted matrices, on random scores, on
integer scores full of ties and on graphs made of cycles."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("stanza")
from stanza.models.common import chuliu_edmonds as stanza_decoder  # noqa: E402

from mteval.annotate import fast_decode  # noqa: E402


@contextmanager
def decoder(which: str) -> Iterator[None]:
    """Stanza's decoder module with its own steps (``stanza``) or ours (``fast``) in place."""
    before = {name: getattr(stanza_decoder, name) for name in ("tarjan", "process_cycle")}
    steps = fast_decode.originals() if which == "stanza" else {"tarjan": fast_decode.tarjan,
                                                                "process_cycle": fast_decode.process_cycle}
    for name, function in steps.items():
        setattr(stanza_decoder, name, function)
    try:
        yield
    finally:
        for name, function in before.items():
            setattr(stanza_decoder, name, function)


def trees(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with decoder("stanza"):
        theirs = stanza_decoder.chuliu_edmonds_one_root(scores.copy())
    with decoder("fast"):
        ours = stanza_decoder.chuliu_edmonds_one_root(scores.copy())
    return theirs, ours


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32 - 1), st.sampled_from(["normal", "ties"]))
def test_same_trees_as_stanza(size: int, seed: int, kind: str) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(size, size)) if kind == "normal" else rng.integers(-3, 1, (size, size)).astype(float)
    theirs, ours = trees(scores)
    assert theirs.tolist() == ours.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=31))
def test_same_cycles_in_the_same_order(heads: list[int]) -> None:
    tree = np.array([h % len(heads) for h in heads])
    theirs, ours = fast_decode.originals()["tarjan"](tree), fast_decode.tarjan(tree)
    assert [c.tolist() for c in theirs] == [c.tolist() for c in ours]


def test_a_graph_of_cycles() -> None:
    tree = np.array([0, 2, 3, 1, 5, 4, 7, 8, 6, 6])  # cycles (1 2 3), (4 5), (6 7 8); 9 hangs off 6
    cycles = fast_decode.tarjan(tree)
    assert [np.where(c)[0].tolist() for c in cycles] == [[1, 2, 3], [4, 5], [6, 7, 8]]
    assert [c.tolist() for c in cycles] == [c.tolist() for c in fast_decode.originals()["tarjan"](tree)]


def test_contracted_matrices_are_the_same_bits() -> None:
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(9, 9))
    tree = np.array([0, 2, 3, 1, 0, 4, 4, 5, 5])
    cycle = fast_decode.tarjan(tree)[0]
    theirs = fast_decode.originals()["process_cycle"](tree, cycle, scores)
    ours = fast_decode.process_cycle(tree, cycle, scores)
    assert all(a.dtype == b.dtype and a.tobytes() == b.tobytes() for a, b in zip(theirs, ours, strict=True))
