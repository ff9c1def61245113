"""Phrase-structure projection of hand-written UD trees (expected bracketings written out)."""

from __future__ import annotations

from test_layers_chunks import COACH, GOVERNMENT

from mteval.annotate.layers.phrase import bracketed, project
from mteval.annotate.model import Sentence, parse_conllu

CAT = """\
1	A	a	DET	DT	_	2	det	_	_
2	cat	cat	NOUN	NN	_	3	nsubj	_	_
3	sat	sit	VERB	VBD	_	0	root	_	_
4	on	on	ADP	IN	_	6	case	_	_
5	the	the	DET	DT	_	6	det	_	_
6	rug	rug	NOUN	NN	_	3	obl	_	_
7	.	.	PUNCT	.	_	3	punct	_	_
"""


def _tree(conllu: str) -> str:
    sentence = parse_conllu(conllu)[0]
    return bracketed(project(sentence), sentence)


def test_simple_clause() -> None:
    assert _tree(CAT) == "(ROOT (S (NP (DT A) (NN cat)) (VBD sat) (PP (IN on) (NP (DT the) (NN rug))) (. .)))"


def test_sbar_pp_and_compounds() -> None:
    assert _tree(COACH) == (
        "(ROOT (S (NP (DT The) (NN captain)) (VBZ rejects) (SBAR (IN that) (S (NP (DT the) (NN coach)) "
        "(VBZ leaves) (NP (DT the) (NNP Barça) (NN bench)) (PP (IN due) (NP (NNS problems) (PP (IN with) "
        "(NP (DT some) (NNS players))))))) (. .)))")


def test_copula_possessive_particle() -> None:
    assert _tree(GOVERNMENT) == (
        "(ROOT (S (NP (NP (DT the) (NNP Government) (POS 's)) (NN priority)) (VBZ has) (RB not) (ADVP (RB always)) "
        "(VBN been) (NN creation) (PP (IN of) (NP (NNP Barack) (NNP Obama))) (ADVP (, ,) (RB very) (RB quickly)) "
        "(VP (TO to) (VB give) (PRT (RP up)))))")


def test_leaves_cover_sentence_in_order() -> None:
    for conllu in (CAT, COACH, GOVERNMENT):
        sentence = parse_conllu(conllu)[0]
        assert project(sentence).leaves() == list(range(1, len(sentence) + 1))


def test_empty_sentence() -> None:
    assert project(Sentence(())).children == ()


def test_possessive_pronoun_is_a_bare_preterminal() -> None:
    conllu = ("1\this\this\tPRON\tPRP$\t_\t2\tnmod:poss\t_\t_\n"
              "2\tplayers\tplayer\tNOUN\tNNS\t_\t3\tnsubj\t_\t_\n"
              "3\tleft\tleave\tVERB\tVBD\t_\t0\troot\t_\t_\n")
    assert _tree(conllu) == "(ROOT (S (NP (PRP$ his) (NNS players)) (VBD left)))"


def test_reflexive_clitic_is_no_subject() -> None:
    """Czech expl:pv (and French expl:comp/expl:pass) ``se`` does not make a clause S; an expletive
    subject (expl, French expl:subj) does."""
    rows = "1\tSmál\tsmát\tVERB\tVERB\t_\t0\troot\t_\t_\n2\tse\tse\tPRON\tPRON\t_\t1\t{rel}\t_\t_\n"
    assert _tree(rows.format(rel="expl:pv")).startswith("(ROOT (VP ")
    assert _tree(rows.format(rel="expl:subj")).startswith("(ROOT (S ")
    assert _tree(rows.format(rel="expl")).startswith("(ROOT (S ")


def test_every_word_stays_when_a_dependent_precedes_the_case_word() -> None:
    """``He waited, at the station.``: the comma hangs from ``station`` before ``at`` (an audit found 33
    case/mark words of 160 WMT21 references dropped from the tree, and hybrids without their preposition)."""
    conllu = """\
1	He	he	PRON	PRP	_	2	nsubj	_	_
2	waited	wait	VERB	VBD	_	0	root	_	_
3	,	,	PUNCT	,	_	6	punct	_	_
4	at	at	ADP	IN	_	6	case	_	_
5	the	the	DET	DT	_	6	det	_	_
6	station	station	NOUN	NN	_	2	obl	_	_
7	.	.	PUNCT	.	_	2	punct	_	_
"""
    sentence = parse_conllu(conllu)[0]
    assert sorted(project(sentence).leaves()) == list(range(1, 8))
    assert _tree(conllu) == "(ROOT (S (NP (PRP He)) (VBD waited) (PP (, ,) (IN at) (NP (DT the) (NN station))) (. .)))"


def test_every_word_is_a_leaf_on_the_gold_treebank() -> None:
    """On UD English-EWT's test set (gold trees), every word of every sentence is a leaf exactly once."""
    import pytest

    from tests.helpers import ROOT

    path = ROOT.parent / "shared" / "ud" / "en_ewt" / "en_ewt-ud-test.conllu"
    if not path.is_file():
        pytest.skip(f"needs ../shared ({path} not found)")
    sentences = parse_conllu(path.read_text(encoding="utf-8"))
    assert len(sentences) > 2000
    lost = [s.text for s in sentences if sorted(project(s).leaves()) != list(range(1, len(s) + 1))]
    assert not lost, lost[:3]
