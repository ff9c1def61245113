"""Stanza output -> mteval data model, without Stanza: joining parts, MWT NER tags, arc scores."""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np

from mteval.annotate.arc_capture import arc_scores_from_preds
from mteval.annotate.convert import join_arc_scores, to_sentence


def _word(i: int, text: str, head: int, deprel: str) -> NS:
    return NS(id=i, text=text, lemma=text.lower(), upos="X", xpos="X", feats=None, head=head, deprel=deprel)


def _sent(tokens: list[tuple[str, list[NS]]]) -> NS:
    return NS(tokens=[NS(ner=ner, words=words) for ner, words in tokens])


def test_parts_of_a_split_segment_hang_from_the_root() -> None:
    first = _sent([("S-PER", [_word(1, "Ann", 2, "nsubj")]), ("O", [_word(2, "left", 0, "root")])])
    second = _sent([("O", [_word(1, "Bye", 0, "root")]), ("O", [_word(2, ".", 1, "punct")])])
    s = to_sentence("Ann left Bye.", [first, second])
    assert [w.id for w in s] == [1, 2, 3, 4]
    assert s.heads() == [2, 0, 0, 3]
    assert [w.ner for w in s] == ["S-PER", "O", "O", "O"]
    assert s.word(1).feats == "_" and s.word(1).lemma == "ann"


def test_multiword_token_ner_tags_are_spread_over_its_words() -> None:
    token = ("S-ORG", [_word(1, "Acme", 0, "root"), _word(2, "'s", 1, "case")])
    assert [w.ner for w in to_sentence("Acme's", [_sent([token])])] == ["B-ORG", "E-ORG"]
    token = ("B-ORG", [_word(1, "Acme", 0, "root"), _word(2, "'s", 1, "case")])
    assert [w.ner for w in to_sentence("Acme's", [_sent([token])])] == ["B-ORG", "I-ORG"]


def _preds(n: int, labels: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    head = rng.normal(size=(n + 1, n + 1))
    head -= np.log(np.exp(head).sum(1, keepdims=True))
    lab = rng.normal(size=(n + 1, n + 1, labels))
    lab -= np.log(np.exp(lab).sum(2, keepdims=True))
    return head, lab


def test_arc_scores_from_parser_matrices() -> None:
    head, lab = _preds(5, 3, 0)
    a = arc_scores_from_preds(head, lab, ("a", "b", "c"), k=4)
    assert a.arcs.shape == (6, 6) and a.label_heads.shape == (5, 4) and a.label_logp.shape == (5, 4, 3)
    assert np.isneginf(a.arcs[:, 0]).all() and np.isneginf(np.diag(a.arcs)).all()
    np.testing.assert_allclose(a.arcs[2, 4], head[4, 2], rtol=1e-6)  # [head, dependent] <- [dependent, head]
    for d in range(1, 6):
        order = [h for h in np.argsort(-head[d]) if h != d][:4]
        assert list(a.label_heads[d - 1]) == order
        np.testing.assert_allclose(a.label_logp[d - 1, 0], lab[d, order[0]], atol=2e-3)
    one = arc_scores_from_preds(*_preds(1, 3, 1), ("a", "b", "c"))
    assert one.label_heads.tolist() == [[0]]


def test_joined_arc_scores_are_block_diagonal() -> None:
    p1 = arc_scores_from_preds(*_preds(2, 3, 2), ("a", "b", "c"))
    p2 = arc_scores_from_preds(*_preds(3, 3, 3), ("a", "b", "c"))
    j = join_arc_scores([p1, p2])
    assert j.arcs.shape == (6, 6) and j.label_heads.shape == (5, 3)  # K = max over the parts
    np.testing.assert_array_equal(j.arcs[0, 1:3], p1.arcs[0, 1:])
    np.testing.assert_array_equal(j.arcs[3:, 3:], p2.arcs[1:, 1:])
    assert np.isneginf(j.arcs[1:3, 3:]).all() and np.isneginf(j.arcs[3:, 1:3]).all()
    assert set(j.label_heads[2:].ravel()) <= {0, 3, 4, 5}
