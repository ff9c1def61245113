"""Syntactic reference hybridization (Wang et al. 2009) on hand-built trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.annotate.model import Sentence, Tree, Word
from mteval.errors import ConfigError, InputError
from mteval.hybridize import hybridize, write_extended_references
from mteval.hybridize.equivalents import equivalent_pairs, node_at
from mteval.hybridize.generate import render, word_pieces
from mteval.hybridize.stats import length_distribution, table5


def leaf(tag: str, i: int) -> Tree:
    return Tree(tag, word=i)


def sentence(text: str) -> Sentence:
    return Sentence(tuple(Word(i, f) for i, f in enumerate(text.split(), 1)), text)


# Figure 1 of the paper
S1 = sentence("Machine translation develops constantly")
T1 = Tree("S", (Tree("NP", (leaf("NN", 1), leaf("NN", 2))), Tree("VP", (leaf("VV", 3), leaf("ADV", 4)))))
S2 = sentence("MT progresses persistently")
T2 = Tree("S", (Tree("NP", (leaf("NN", 1),)), Tree("VP", (leaf("VV", 2), leaf("ADV", 3)))))
TREES = {S1.text: T1, S2.text: T2}


def trees(s: Sentence) -> Tree:
    return TREES[s.text]


def test_paper_equivalent_pairs() -> None:
    pairs = equivalent_pairs(T1, T2)
    spans = [(" ".join(S1.words[w - 1].form for w in node_at(T1, a).leaves()),
              " ".join(S2.words[w - 1].form for w in node_at(T2, b).leaves())) for a, b in pairs]
    assert spans == [("Machine translation develops constantly", "MT progresses persistently"),
                     ("Machine translation", "MT"), ("develops constantly", "progresses persistently"),
                     ("develops", "progresses"), ("constantly", "persistently")]


def test_paper_worked_example_gives_exactly_eight() -> None:
    # the paper prints "Machine Translation" in its list and "Machine translation" in Figure 1
    result = hybridize([[S1], [S2]], trees, cap=100)
    seg = result.segments[0]
    assert seg.references[:2] == (S1.text, S2.text)
    assert sorted(seg.references) == sorted(f"{a} {b} {c}" for a in ("Machine translation", "MT")
                                            for b in ("develops", "progresses")
                                            for c in ("constantly", "persistently"))
    assert (seg.n_original, seg.n_generated, seg.truncated, seg.pairs) == (2, 6, False, 5)
    # no de-duplication: per reference 2 segments + NP(2 + 1 x 1) x VP(2 + 2 x 2)
    assert seg.upper_bound == 2 * (2 + 3 * 6)


def test_symmetric_and_cap() -> None:
    swapped = hybridize([[S2], [S1]], trees, cap=100).segments[0]
    assert sorted(swapped.references) == sorted(hybridize([[S1], [S2]], trees, cap=100).segments[0].references)
    capped = hybridize([[S1], [S2]], trees, cap=3).segments[0]
    assert capped.n_generated == 3 and capped.truncated
    assert hybridize([[S1], [S2]], trees, cap=0).segments[0].references == (S1.text, S2.text)
    with pytest.raises(ConfigError):
        hybridize([[S1], [S2]], trees, cap=-1)
    with pytest.raises(InputError):
        hybridize([[S1, S1], [S2]], trees, cap=1)


def test_different_structures_and_duplicates() -> None:
    a = sentence("Ten churches burned")
    ta = Tree("S", (Tree("NP", (leaf("CD", 1), leaf("NNS", 2))), Tree("VP", (leaf("VBN", 3),))))
    b = sentence("Burning of churches")
    tb = Tree("NP", (Tree("NP", (leaf("NN", 1),)), Tree("PP", (leaf("IN", 2), leaf("NNS", 3)))))
    local = {a.text: ta, b.text: tb}
    seg = hybridize([[a], [b], [a]], lambda s: local[s.text], cap=10).segments[0]
    # roots pair (whatever the labels) but the children differ: nothing new; the copy of a is dropped
    assert seg.references == (a.text, b.text)
    assert seg.n_original == 2 and seg.pairs == 1 + 6 + 1  # a-b, a-a (all 6 nodes), b-a


def test_spacing_follows_the_text() -> None:
    s = Sentence((Word(1, "Hello"), Word(2, ","), Word(3, "world"), Word(4, "!")), "Hello, world!")
    assert [(p.before, p.form, p.after) for p in word_pieces(s)] == [
        (" ", "Hello", ""), ("", ",", " "), (" ", "world", ""), ("", "!", "")]
    assert render(tuple(word_pieces(s))) == "Hello, world!"
    odd = Sentence((Word(1, "do"), Word(2, "n't")), "don't")
    assert render(tuple(word_pieces(odd))) == "don't"


def test_words_from_two_references_are_not_glued() -> None:
    """Where the next word comes from the other reference, the space before it there decides: an audit
    found "the roadand then" and "He doesnot know" in WMT21 hybrids (the first word's own space was used)."""
    a = Sentence((Word(1, "He"), Word(2, "does"), Word(3, "n't"), Word(4, "know")), "He doesn't know")
    b = Sentence((Word(1, "He"), Word(2, "does"), Word(3, "not"), Word(4, "know")), "He does not know")
    pa, pb = word_pieces(a, 0), word_pieces(b, 1)
    assert render((pa[0], pa[1], pb[2], pa[3])) == "He does not know"
    assert render((pb[0], pb[1], pa[2], pb[3])) == "He doesn't know"
    road = Sentence((Word(1, "the"), Word(2, "road"), Word(3, ","), Word(4, "then")), "the road, then")
    also = Sentence((Word(1, "the"), Word(2, "way"), Word(3, "and"), Word(4, "then")), "the way and then")
    pr, pw = word_pieces(road, 0), word_pieces(also, 1)
    assert render((pr[0], pr[1], pw[2], pw[3])) == "the road and then"
    assert render((pw[0], pw[1], pr[2], pr[3])) == "the way, then"


def test_write_files_and_stats(tmp_path: Path) -> None:
    other = sentence("Nothing here")
    t_other = Tree("S", (leaf("NN", 1), leaf("RB", 2)))
    local = {**TREES, other.text: t_other}
    result = hybridize([[S1, other], [S2, other]], lambda s: local[s.text], cap=100)
    paths = write_extended_references(result, tmp_path, prefix="hyb")
    assert [p.name for p in paths] == [f"hyb.{k}" for k in range(1, 9)]
    assert paths[0].read_text().splitlines() == [S1.text, other.text]
    assert paths[7].read_text().splitlines()[1] == other.text  # its only reference, repeated
    assert [p.read_text().splitlines()[0] for p in paths[:3]] == list(result.segments[0].references[:3])
    stats = table5(result)
    assert stats.references == 4 and stats.total_nodes == 7 + 6 + 3 + 3
    assert stats.total_equivalent == 5 + 5 + 3 + 3
    assert stats.average_length == pytest.approx((4 + 3 + 2 + 2) / 4)
    # the second segment's two identical references are one reference of the extended set
    assert stats.originals == 3 and [s.n_original for s in result.segments] == [2, 1]
    generated = sum(s.n_generated for s in result.segments)
    assert dict(stats.rows())["Average references per segment"] == f"{(3 + generated) / 2:.2f}"
    assert dict(stats.rows())["Segments cut by the cap"] == "0"
    dist = length_distribution(result, max_length=4)
    assert dist[1] == (9, 12, 0.75)  # one-word nodes: 12, of which equivalent 9
    assert dist[4] == (1, 1, 1.0)


def test_discontinuous_node_is_not_recombined() -> None:
    # words 1 3 under the first NP, 2 under the second: a non-projective projection
    a = sentence("x y z")
    ta = Tree("S", (Tree("NP", (leaf("NN", 1), leaf("NN", 3))), Tree("VP", (leaf("VB", 2),))))
    b = sentence("p q r")
    tb = Tree("S", (Tree("NP", (leaf("NN", 1), leaf("NN", 2))), Tree("VP", (leaf("VB", 3),))))
    local = {a.text: ta, b.text: tb}
    seg = hybridize([[a], [b]], lambda s: local[s.text], cap=100).segments[0]
    # b's root recombines NP {p q, x z, p z, x q} with VP {r, y}; a's own root is not recombined
    assert set(seg.references) == {"x y z", "p q r", "p q y", "x z r", "x z y", "x q r", "x q y",
                                   "p z r", "p z y"}


def test_short_segments_repeat_their_references_in_turn(tmp_path: Path) -> None:
    third = sentence("Nothing there")
    local = {**TREES, third.text: Tree("S", (leaf("NN", 1), leaf("RB", 2)))}
    result = hybridize([[S1, third], [S2, S2]], lambda s: local[s.text], cap=100)
    paths = write_extended_references(result, tmp_path)
    second = [p.read_text().splitlines()[1] for p in paths]
    refs = result.segments[1].references
    assert len(refs) == 2 and second == [refs[k % 2] for k in range(len(paths))]
