"""The CESM metric family on hand-written CoNLL-U parses (Duma et al. 2013, Sec. 3.2)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cesm_acet import brute_acet

from mteval.annotate.model import Sentence, Word, parse_conllu
from mteval.errors import ConfigError, InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side
from mteval.metrics.cesm import CesmFamily, sentence_parents, word_labels

# The paper's Figure 1 pair (German; the WCDG attachments are not printed, these follow the text:
# "the only difference being the reverse order between the left subtree and the right subtree").
REF = """# text = Die schwarze Katze springt schnell auf den roten Stuhl.
1\tDie\tder\tDET\t_\t_\t3\tdet\t_\t_
2\tschwarze\tschwarz\tADJ\t_\t_\t3\tamod\t_\t_
3\tKatze\tKatze\tNOUN\t_\t_\t4\tnsubj\t_\t_
4\tspringt\tspringen\tVERB\t_\t_\t0\troot\t_\t_
5\tschnell\tschnell\tADV\t_\t_\t4\tadvmod\t_\t_
6\tauf\tauf\tADP\t_\t_\t4\tobl\t_\t_
7\tden\tder\tDET\t_\t_\t9\tdet\t_\t_
8\troten\trot\tADJ\t_\t_\t9\tamod\t_\t_
9\tStuhl\tStuhl\tNOUN\t_\t_\t6\tpobj\t_\t_
10\t.\t.\tPUNCT\t_\t_\t4\tpunct\t_\t_

"""
HYP = """# text = Auf den roten Stuhl schnell springt die schwarze Katze
1\tAuf\tauf\tADP\t_\t_\t6\tobl\t_\t_
2\tden\tder\tDET\t_\t_\t4\tdet\t_\t_
3\troten\trot\tADJ\t_\t_\t4\tamod\t_\t_
4\tStuhl\tStuhl\tNOUN\t_\t_\t1\tpobj\t_\t_
5\tschnell\tschnell\tADV\t_\t_\t6\tadvmod\t_\t_
6\tspringt\tspringen\tVERB\t_\t_\t0\troot\t_\t_
7\tdie\tder\tDET\t_\t_\t9\tdet\t_\t_
8\tschwarze\tschwarz\tADJ\t_\t_\t9\tamod\t_\t_
9\tKatze\tKatze\tNOUN\t_\t_\t6\tnsubj\t_\t_

"""


def side(name: str, sentences: list[Sentence]) -> Side:
    return Side(name, [s.text for s in sentences], sentences)


def run(hyp: list[Sentence], refs: list[list[Sentence]], **options: object) -> dict[str, np.ndarray]:
    family = CesmFamily(**options)  # type: ignore[arg-type]
    prepared = family.prepare([side(f"ref{k}", r) for k, r in enumerate(refs)])
    docs = DocumentIndex.single(len(hyp))
    scores = family.score(side("hyp", hyp), prepared, docs, family.variants)
    return {v: s.segments for v, s in scores.items()}


def expected(ref: Sentence, hyp: Sentence, rooted: bool, **options: object) -> tuple[float, float, float]:
    """P, R, F1 from the brute-force enumerator over the same labelled trees."""
    vocab: dict[str, int] = {}
    trees = []
    for s in (ref, hyp):
        labels = [vocab.setdefault(x, len(vocab) + 1) for x in word_labels(s, **options)]  # type: ignore[arg-type]
        parents = sentence_parents(s)
        trees.append((labels + [0] * (len(parents) - len(labels)), parents))
    common = brute_acet(trees[0], trees[1], rooted)
    p = common / brute_acet(trees[1], trees[1], rooted)
    r = common / brute_acet(trees[0], trees[0], rooted)
    return p, r, (2 * p * r / (p + r) if common else 0.0)


@pytest.mark.parametrize("case_sensitive", [True, False])
def test_paper_example_against_brute_force(case_sensitive: bool) -> None:
    ref, hyp = parse_conllu(REF)[0], parse_conllu(HYP)[0]
    got = run([hyp], [[ref]], case_sensitive=case_sensitive)
    for prefix, rooted in (("CESM", True), ("CESM-anyroot", False)):
        p, r, f = expected(ref, hyp, rooted, case_sensitive=case_sensitive)
        assert got[prefix + "-P"][0] == pytest.approx(p, rel=1e-12)
        assert got[prefix + "-R"][0] == pytest.approx(r, rel=1e-12)
        assert got[prefix][0] == pytest.approx(f, rel=1e-12)
    assert 0 < got["CESM"][0] < 1


def test_case_option_matters() -> None:
    ref, hyp = parse_conllu(REF)[0], parse_conllu(HYP)[0]
    assert run([hyp], [[ref]], case_sensitive=False)["CESM"][0] > run([hyp], [[ref]])["CESM"][0]


def test_identical_gives_one_and_multi_reference_takes_best() -> None:
    ref, hyp = parse_conllu(REF)[0], parse_conllu(HYP)[0]
    same = run([ref, hyp], [[ref, hyp]])
    for v, values in same.items():
        assert values.tolist() == [1.0, 1.0], v
    single = run([hyp], [[ref]])["CESM"][0]
    both = run([hyp, hyp], [[ref, ref], [hyp, ref]])
    assert both["CESM"].tolist() == [1.0, single]


def test_lemma_label_and_virtual_root() -> None:
    ref, hyp = parse_conllu(REF)[0], parse_conllu(HYP)[0]
    lemma = run([hyp], [[ref]], label="lemma")
    assert lemma["CESM"][0] > run([hyp], [[ref]])["CESM"][0]  # Die/die share the lemma "der"
    # another root word: no rooted subtree in common, but with a virtual root there are
    other = parse_conllu(HYP.replace("springt\tspringen", "läuft\tlaufen"))[0]
    plain, virtual = run([other], [[ref]]), run([other], [[ref]], virtual_root=True)
    assert plain["CESM"][0] == 0.0 and plain["CESM-anyroot"][0] > 0.0
    assert virtual["CESM"][0] > 0.0


def test_multi_root_segment_and_empty() -> None:
    two = parse_conllu("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n2\tyou\t_\t_\t_\t_\t0\troot\t_\t_\n")[0]
    assert sentence_parents(two) == [2, 2, -1]
    empty = Sentence((), "")
    got = run([two, empty, empty], [[two, two, empty]])
    assert got["CESM"].tolist() == [1.0, 0.0, 1.0]


def test_bad_input() -> None:
    with pytest.raises(ConfigError):
        CesmFamily(label="stem")
    with pytest.raises(InputError):
        CesmFamily().prepare([Side("refA", ["x"])])
    bad = Sentence((Word(1, "a", head=5),), "a")
    with pytest.raises(InputError):
        CesmFamily().prepare([side("refA", [bad])])
    cyc = Sentence((Word(1, "a", head=2), Word(2, "b", head=1)), "a b")
    with pytest.raises(InputError):
        CesmFamily().prepare([side("refA", [cyc])])


def test_registered() -> None:
    assert registry.family_of("CESM-anyroot-R") == "CESM"
    assert set(registry.variants_of("CESM")) == set(CesmFamily.variants)
    assert CesmFamily().info("CESM-P").upper_bound is None


@st.composite
def sentences(draw: st.DrawFn, max_words: int = 7) -> Sentence:
    n = draw(st.integers(1, max_words))
    root = draw(st.integers(1, n))
    heads = []
    for i in range(1, n + 1):
        heads.append(0 if i == root else draw(st.integers(1, n)))
    # repair cycles: point any word whose head chain does not reach the root at the root
    for i in range(1, n + 1):
        seen, j = set(), i
        while j != 0 and j not in seen:
            seen.add(j)
            j = heads[j - 1]
        if j != 0:
            heads[i - 1] = root if i != root else 0
    words = tuple(Word(i, draw(st.sampled_from("aab")), head=h) for i, h in enumerate(heads, 1))
    return Sentence(words, " ".join(w.form for w in words))


@settings(max_examples=300, deadline=None)
@given(sentences(), sentences())
def test_properties(a: Sentence, b: Sentence) -> None:
    ab, ba = run([a], [[b]]), run([b], [[a]])
    for prefix in ("CESM", "CESM-anyroot"):
        assert 0.0 <= ab[prefix][0] <= 1.0 + 1e-12
        assert ab[prefix][0] == pytest.approx(ba[prefix][0])
        assert ab[prefix + "-P"][0] == pytest.approx(ba[prefix + "-R"][0])
        assert run([a], [[a]])[prefix][0] == 1.0


def test_repeated_references_change_nothing() -> None:
    ref, hyp = parse_conllu(REF)[0], parse_conllu(HYP)[0]
    once, thrice = run([hyp], [[ref]]), run([hyp], [[ref], [ref], [ref]])
    assert all(once[v].tolist() == thrice[v].tolist() for v in once)


@settings(max_examples=300, deadline=None)
@given(sentences(3), sentences(4), sentences(4))
def test_no_score_depends_on_the_order_of_the_references(h: Sentence, a: Sentence, b: Sentence) -> None:
    """Equal F1 with other P and R (swapped) is common; the tie goes to the smaller reference, then
    the higher P, whichever is listed first (the first one listed won until 2026-11-28)."""
    ab, ba = run([h], [[a], [b]]), run([h], [[b], [a]])
    assert {v: s.tolist() for v, s in ab.items()} == {v: s.tolist() for v, s in ba.items()}


def test_a_tie_goes_to_the_smaller_reference() -> None:
    def tree(forms: str, heads: list[int]) -> Sentence:
        return Sentence(tuple(Word(i, f, head=h) for i, (f, h) in enumerate(zip(forms.split(), heads, strict=True), 1)),
                        forms)

    hyp, small, large = tree("a a", [0, 1]), tree("a", [0]), tree("a a b", [0, 1, 1])
    one, other = run([hyp], [[small]]), run([hyp], [[large]])
    assert one["CESM"][0] == other["CESM"][0] == pytest.approx(2 / 3)  # the tie this test is about
    assert (one["CESM-R"][0], other["CESM-R"][0]) == (1.0, 0.5)
    for refs in ([[small], [large]], [[large], [small]]):
        got = run([hyp], refs)
        assert [got[v][0] for v in ("CESM", "CESM-P", "CESM-R")] == [one[v][0] for v in ("CESM", "CESM-P", "CESM-R")]
