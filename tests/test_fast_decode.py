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


# ---- one_root: the greedy tree when it decides the answer, else Stanza's search ----

def log_probabilities(raw: np.ndarray) -> np.ndarray:
    """Each row normalised as the parser's head scores are (a log-softmax: every value <= 0)."""
    shifted = raw - raw.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def planted(rng: np.random.Generator, size: int) -> np.ndarray:
    """Noise with a random single-root tree's arcs raised by 0 to 6."""
    order = rng.permutation(np.arange(1, size))
    raw = rng.normal(size=(size, size))
    for position, word in enumerate(order):
        head = 0 if position == 0 else int(order[rng.integers(0, position)])
        raw[word, head] += rng.uniform(0, 6)
    return raw


def stanza_one_root(scores: np.ndarray) -> np.ndarray:
    with decoder("stanza"):
        return fast_decode.originals()["chuliu_edmonds_one_root"](scores.copy())


@settings(max_examples=400, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32 - 1), st.sampled_from(["planted", "sharp", "flat", "ties", "raw"]),
       st.sampled_from([np.float32, np.float64]))
def test_one_root_gives_stanzas_tree(size: int, seed: int, kind: str, dtype: type) -> None:
    """On log-probabilities: a random tree's arcs raised by 0-6 over noise (the greedy tree decides
    most of them, some by a hair), sharp and flat noise (cycles, several roots), exact ties; and on
    raw scores (not log-probabilities: always Stanza's search)."""
    rng = np.random.default_rng(seed)
    raw = {"sharp": lambda: rng.normal(size=(size, size)) * 8, "flat": lambda: rng.normal(size=(size, size)),
           "ties": lambda: rng.integers(-2, 1, (size, size)).astype(float),
           "planted": lambda: planted(rng, size), "raw": lambda: rng.normal(size=(size, size))}[kind]()
    scores = (raw if kind == "raw" else log_probabilities(raw)).astype(dtype)
    theirs, ours = stanza_one_root(scores), fast_decode.one_root(scores.copy())
    assert theirs.tolist() == ours.tolist() and theirs.dtype == ours.dtype


def prefer(scores: np.ndarray, word: int, head: int) -> np.ndarray:
    """``scores`` with ``word``'s best head swapped with ``head`` (its row still a log-softmax)."""
    out = scores.copy()
    best = int(np.argmax(np.where(np.arange(len(out)) == word, -np.inf, out[word])))
    out[word, [best, head]] = out[word, [head, best]]
    return out


def test_the_greedy_tree_is_taken_when_it_decides_and_not_otherwise() -> None:
    rng = np.random.default_rng(7)
    heads = [0, 2, 0, 2, 3, 3]  # one root arc (word 2), no cycle
    raw = rng.normal(size=(6, 6))
    raw[np.arange(6), heads] += 12
    scores = log_probabilities(raw)
    assert fast_decode.greedy_tree(scores).tolist() == heads == stanza_one_root(scores).tolist()
    two_roots = prefer(scores, 4, 0)  # words 2 and 4 on the root
    cycle = prefer(scores, 2, 4)  # 2 -> 4 -> 3 -> 2
    tie = scores.copy()
    tie[5, 4] = tie[5, 3]  # word 5's best two heads tie
    for case in (two_roots, cycle, tie):
        assert fast_decode.greedy_tree(case) is None
        assert fast_decode.one_root(case.copy()).tolist() == stanza_one_root(case).tolist()


@pytest.mark.slow
@pytest.mark.models
def test_one_root_on_the_parsers_own_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    """The score matrices the parser decodes for the samples' segments (captured as it parses):
    :func:`fast_decode.one_root` gives Stanza's trees on every one, most by the short way."""
    from stanza.models.depparse import model as parser_module
    from test_parse_batching import texts

    from mteval.annotate.stanza_adapter import StanzaParser, available_processors, resolve_models

    parser = StanzaParser(resolve_models("en", available_processors("en")))
    captured: list[np.ndarray] = []

    def capture(scores: np.ndarray) -> np.ndarray:
        captured.append(scores.copy())
        return fast_decode.one_root(scores)

    monkeypatch.setattr(parser_module, "chuliu_edmonds_one_root", capture)
    parser.parse(texts())
    assert len(captured) > 100
    for scores in captured:
        theirs, ours = stanza_one_root(scores), fast_decode.one_root(scores.copy())
        assert theirs.tolist() == ours.tolist() and theirs.dtype == ours.dtype
    assert sum(fast_decode.greedy_tree(s) is not None for s in captured) > 0.6 * len(captured)
