"""DPM / EDPM (Kahn, Snover & Ostendorf 2009): the paper's Figure 1 and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.annotate.model import ArcScores, Sentence, Word, parse_conllu
from mteval.errors import ConfigError, InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.edpm import DPM, EDPM, DepBags, one_best_arcs, pair_stats, parse_combination

# Figure 1: reference "the red cat ate", hypothesis "the cat stumbled"
REF = """1\tthe\t_\tDT\t_\t_\t3\tdet\t_\t_
2\tred\t_\tJJ\t_\t_\t3\tmod\t_\t_
3\tcat\t_\tNN\t_\t_\t4\tsubj\t_\t_
4\tate\t_\tVBD\t_\t_\t0\troot\t_\t_
"""
HYP = """1\tthe\t_\tDT\t_\t_\t2\tdet\t_\t_
2\tcat\t_\tNN\t_\t_\t3\tsubj\t_\t_
3\tstumbled\t_\tVBD\t_\t_\t0\troot\t_\t_
"""
LABELS = ("det", "mod", "subj", "root", "obj")


def _side(name: str, conllu: str, n: int = 1) -> Side:
    (sent,) = parse_conllu(conllu)
    return Side(name, [sent.text] * n, [sent] * n)


def _score(family, hyp: Side, refs: list[Side], variants):
    docs = DocumentIndex.single(len(hyp))
    return family.score(hyp, family.prepare(refs), docs, variants)


def test_figure1_dlh() -> None:
    scores = _score(DPM(), _side("h", HYP), [_side("r", REF)], ["DPM-dlh"])
    assert scores["DPM-dlh"].segments[0] == pytest.approx(2 / 7, abs=1e-12)
    stats = DPM().segment_stats(_side("h", HYP), DPM().prepare([_side("r", REF)]))[0]
    matched, hyp_n, ref_n = stats[0:3]
    assert matched / hyp_n == pytest.approx(1 / 3) and matched / ref_n == pytest.approx(1 / 4)


def test_figure1_other_decompositions() -> None:
    variants = ["DPM-dl", "DPM-lh", "DPM-1g", "DPM-2g", "DPM-dl-lh", "DPM-muPR-dl-lh", "DPM", "DPM-dh"]
    s = _score(DPM(), _side("h", HYP), [_side("r", REF)], variants)
    assert s["DPM-dl"].system == pytest.approx(2 * 2 / 7)     # 2 matched of 3 and 4
    assert s["DPM-lh"].system == pytest.approx(4 / 7)
    assert s["DPM-1g"].system == pytest.approx(4 / 7)
    assert s["DPM-2g"].system == 0.0
    assert s["DPM-dl-lh"].system == pytest.approx(8 / 14)    # pooled bag
    assert s["DPM-muPR-dl-lh"].system == pytest.approx(4 / (1.5 + 2 + 1.5 + 2))
    # F[1g,2g,dl,lh]: matched 2+0+2+2 of hyp 3+2+3+3, ref 4+3+4+4
    assert s["DPM"].system == pytest.approx(2 * 6 / (11 + 15))
    assert s["DPM-dh"].system == pytest.approx(2 / 7)        # the->cat only


def test_identical_is_one_and_case() -> None:
    fam = DPM()
    s = _score(fam, _side("h", REF), [_side("r", REF)], list(fam.variants))
    for v in fam.variants:
        assert s[v].system == pytest.approx(1.0), v
    upper = _side("h", REF.replace("the", "The"))
    assert _score(DPM(), upper, [_side("r", REF)], ["DPM-1g"])["DPM-1g"].system < 1
    assert _score(DPM(False), upper, [_side("r", REF)], ["DPM-1g"])["DPM-1g"].system == 1


def test_multi_reference_best_and_pooling() -> None:
    hyp = _side("h", HYP, 2)
    refs = [_side("a", REF, 2), _side("b", HYP, 2)]
    s = _score(DPM(), hyp, refs, ["DPM-dlh"])["DPM-dlh"]
    np.testing.assert_allclose(s.segments, [1.0, 1.0])
    docs = DocumentIndex(("d1", "d2", "d2"))
    h3, r3 = _side("h", HYP, 3), _side("r", REF, 3)
    fam = DPM()
    out = fam.score(h3, fam.prepare([r3]), docs, ["DPM-dlh"])["DPM-dlh"]
    assert out.documents["d2"] == pytest.approx(2 / 7) and out.system == pytest.approx(2 / 7)


def test_combination_grammar() -> None:
    assert parse_combination("F[1g,2g,dl,lh]").parts == ("1g", "2g", "dl", "lh")
    assert parse_combination("μPR[dl;lh]").kind == "muPR"
    assert parse_combination("muPR(dl,lh)").kind == "muPR"
    for bad in ("G[dl]", "F[xx]", "F[]", "F[dl,dl]"):
        with pytest.raises(ConfigError):
            parse_combination(bad)
    with pytest.raises(ConfigError):
        DPM(gamma=1.0)
    with pytest.raises(ConfigError):
        EDPM(gamma=0)
    with pytest.raises(ConfigError):
        EDPM(bogus=1)
    fam = DPM(combination="F[dlh]")
    assert _score(fam, _side("h", HYP), [_side("r", REF)], ["DPM"])["DPM"].system == pytest.approx(2 / 7)


OTHER = """1\tdogs\t_\tNNS\t_\t_\t2\tsubj\t_\t_
2\tbark\t_\tVBP\t_\t_\t0\troot\t_\t_
"""


@pytest.mark.parametrize("family", [DPM(), EDPM()])
def test_tied_references_do_not_depend_on_their_order(family: DPM | EDPM) -> None:
    """A hypothesis scoring 0 against both references pools the shorter one's counts, whichever
    comes first (version 1 took the first: the system score moved with the order)."""
    first = [Sentence(s.words, s.text, s.meta, _peaked_scores(s, 5.0)) for s in parse_conllu(HYP + "\n" + OTHER)]
    hyp = Side("h", [s.text for s in first], first)
    r_long, r_short = (Side(n, [s.text for s in ss], ss) for n, ss in (
        ("long", [Sentence(s.words, s.text, s.meta, _peaked_scores(s, 5.0)) for s in parse_conllu(REF + "\n" + REF)]),
        ("short", [Sentence(s.words, s.text, s.meta, _peaked_scores(s, 5.0))
                   for s in parse_conllu(REF + "\n" + OTHER.replace("dogs", "cats").replace("bark", "purr"))])))
    variants = list(family.variants)
    forward = _score(family, hyp, [r_long, r_short], variants)
    backward = _score(family, hyp, [r_short, r_long], variants)
    for v in variants:
        assert forward[v].system == backward[v].system, v
        np.testing.assert_array_equal(forward[v].segments, backward[v].segments, err_msg=v)
    alone = _score(family, hyp, [r_short], variants)  # segment 2's words tie at 0: the shorter reference's counts
    unigrams = f"{family.family}-1g"
    assert forward[unigrams].segments[1] == 0.0 and forward[unigrams].system == pytest.approx(alone[unigrams].system)
    assert forward[unigrams].system > _score(family, hyp, [r_long], [unigrams])[unigrams].system


def _peaked_scores(sentence: Sentence, strength: float) -> ArcScores:
    """Arc scores that put ``strength`` on the annotated tree and random noise elsewhere."""
    n = len(sentence)
    rng = np.random.default_rng(n)
    arcs = rng.normal(size=(n + 1, n + 1))
    heads = np.zeros((n, 2), dtype=np.intp)
    logp = np.full((n, 2, len(LABELS)), np.log(0.02))
    for w in sentence.words:
        arcs[w.head, w.id] += strength
        heads[w.id - 1] = [w.head, (w.head + 1) % (n + 1) if (w.head + 1) % (n + 1) != w.id else 0]
        logp[w.id - 1, :, LABELS.index(w.deprel)] = np.log(1 - 0.02 * (len(LABELS) - 1))
    return ArcScores(arcs, LABELS, heads, logp)


def _with_scores(side: Side, strength: float) -> Side:
    sents = [Sentence(s.words, s.text, s.meta, _peaked_scores(s, strength)) for s in side.sentences]
    return Side(side.name, side.texts, sents)


def test_edpm_large_gamma_tends_to_dpm() -> None:
    hyp, ref = _with_scores(_side("h", HYP), 10.0), _with_scores(_side("r", REF), 10.0)
    dpm = _score(DPM(), hyp, [ref], ["DPM"])["DPM"].system
    sharp = _score(EDPM(gamma=20), hyp, [ref], ["EDPM"])["EDPM"].system
    soft = _score(EDPM(), hyp, [ref], ["EDPM"])["EDPM"].system
    inf = _score(EDPM(gamma="inf"), _side("h", HYP), [_side("r", REF)], ["EDPM"])["EDPM"].system
    assert sharp == pytest.approx(dpm, abs=1e-6) and inf == pytest.approx(dpm)
    assert soft != pytest.approx(dpm, abs=1e-3)
    assert 0 <= soft <= 1


def test_edpm_needs_arc_scores() -> None:
    assert EDPM.needs_arc_scores and EDPM.needs_annotation
    with pytest.raises(InputError):
        _score(EDPM(), _side("h", HYP), [_side("r", REF)], ["EDPM"])


@st.composite
def _trees(draw) -> Sentence:
    n = draw(st.integers(1, 7))
    heads = [draw(st.integers(0, d - 1)) for d in range(1, n + 1)]  # acyclic: head before dependent
    forms = [draw(st.sampled_from(["a", "b", "c", "d"])) for _ in range(n)]
    words = tuple(Word(i + 1, forms[i], head=heads[i], deprel=draw(st.sampled_from(LABELS)))
                  for i in range(n))
    return Sentence(words, " ".join(forms))


@settings(max_examples=80, deadline=None)
@given(h=_trees(), r=_trees(), gamma=st.sampled_from([0.25, 1.0]))
def test_bounds_and_expected_dl_sum(h: Sentence, r: Sentence, gamma: float) -> None:
    hyp = _with_scores(Side("h", [h.text], [h]), 2.0)
    ref = _with_scores(Side("r", [r.text], [r]), 2.0)
    fam = EDPM(gamma=gamma)
    s = _score(fam, hyp, [ref], list(fam.variants))
    for v, ss in s.items():
        assert -1e-12 <= ss.system <= 1 + 1e-12, v
    bags = fam._bags(hyp)[0]
    assert bags.dl.sum() == pytest.approx(len(h))  # expected dl counts sum to the length
    # the compact views agree with the dense (V, L, V) expectation
    np.testing.assert_allclose(bags.dl, bags.dlh.sum(axis=2), atol=1e-12)
    np.testing.assert_allclose(bags.lh, bags.dlh.sum(axis=0).T, atol=1e-12)
    np.testing.assert_allclose(bags.dh, bags.dlh.sum(axis=1), atol=1e-12)
    one = DepBags([w.form for w in h.words], one_best_arcs(h, {}))
    dlh = one.dlh.dense()  # sparse 1-best counts (Pairs) agree with the other views
    assert dlh.sum() == len(h)
    np.testing.assert_array_equal(one.dl, dlh.sum(axis=2))
    np.testing.assert_array_equal(one.lh, dlh.sum(axis=0).T)
    np.testing.assert_array_equal(one.dh.dense(), dlh.sum(axis=1))
    same = _score(EDPM(gamma=gamma), hyp, [_with_scores(Side("r", [h.text], [h]), 2.0)], ["EDPM"])
    assert same["EDPM"].system == pytest.approx(1.0)


def test_restricted_dlh_equals_full() -> None:
    """A hypothesis builds dlh only over the types its references share: same matches."""
    (h,), (r,) = parse_conllu(HYP), parse_conllu(REF)
    labels: dict[str, int] = {}
    hyp, ref = (DepBags([w.form for w in s.words], one_best_arcs(s, labels)) for s in (h, r))
    full = pair_stats(hyp, ref)
    hyp.restrict_dlh({"the", "cat"})
    assert hyp.dlh.size == 3 and np.array_equal(pair_stats(hyp, ref), full)
    # the same hypothesis text at two segments with different references
    side = Side("h", [h.text] * 2, [h, h])
    fam = DPM()
    other = parse_conllu(REF.replace("the", "red"))[0]
    refs = [Side("r", [r.text, other.text], [r, other])]
    s = fam.score(side, fam.prepare(refs), DocumentIndex.single(2), ["DPM-dlh"])["DPM-dlh"]
    assert s.segments[0] == pytest.approx(2 / 7) and s.segments[1] == 0.0
