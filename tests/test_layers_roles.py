"""Predicate-argument structures mapped from hand-written UD trees (expected roles written out)."""

from __future__ import annotations

from test_layers_chunks import COACH

from mteval.annotate.layers.roles import predicates
from mteval.annotate.model import parse_conllu

PASSIVE = """\
1	Rockets	rocket	NOUN	NNS	_	4	nsubj:pass	_	_
2	were	be	AUX	VBD	_	4	aux:pass	_	_
3	not	not	PART	RB	_	4	advmod	_	_
4	fired	fire	VERB	VBN	_	0	root	_	_
5	by	by	ADP	IN	_	6	case	_	_
6	militants	militant	NOUN	NNS	_	4	obl:agent	_	_
7	on	on	ADP	IN	_	8	case	_	_
8	Tuesday	Tuesday	PROPN	NNP	_	4	obl	_	_
9	in	in	ADP	IN	_	10	case	_	_
10	Israel	Israel	PROPN	NNP	_	4	obl	_	_
11	.	.	PUNCT	.	_	4	punct	_	_
"""

GIVE = """\
1	She	she	PRON	PRP	_	3	nsubj	_	_
2	will	will	AUX	MD	_	3	aux	_	_
3	give	give	VERB	VB	_	0	root	_	_
4	him	he	PRON	PRP	_	3	iobj	_	_
5	books	book	NOUN	NNS	_	3	obj	_	_
6	quickly	quickly	ADV	RB	_	3	advmod	_	_
7	because	because	SCONJ	IN	_	9	mark	_	_
8	he	he	PRON	PRP	_	9	nsubj	_	_
9	asked	ask	VERB	VBD	_	3	advcl	_	_
"""


def _roles(conllu: str) -> list[tuple[str, list[tuple[str, str]]]]:
    sentence = parse_conllu(conllu)[0]
    return [(p.lemma, [(r.label, " ".join(sentence.word(i).form for i in r.words)) for r in p.roles])
            for p in predicates(sentence)]


def test_passive_negation_time_location() -> None:
    assert _roles(PASSIVE) == [("fire", [("A1", "Rockets"), ("AM-NEG", "not"), ("A0", "by militants"),
                                         ("AM-TMP", "on Tuesday"), ("AM-LOC", "in Israel")])]


def test_ditransitive_modal_manner_cause() -> None:
    assert _roles(GIVE) == [
        ("give", [("A0", "She"), ("AM-MOD", "will"), ("A2", "him"), ("A1", "books"), ("AM-MNR", "quickly"),
                  ("AM-CAU", "because he asked")]),
        ("ask", [("A0", "he")]),
    ]


def test_clausal_object_and_cause() -> None:
    assert _roles(COACH) == [
        ("reject", [("A0", "The captain"),
                    ("A1", "that the coach leaves the Barça bench due problems with some players")]),
        ("leave", [("A0", "the coach"), ("A1", "the Barça bench"), ("AM-CAU", "due problems with some players")]),
    ]


CONTROL = """\
1	She	she	PRON	PRP	_	2	nsubj	_	_
2	wants	want	VERB	VBZ	_	0	root	_	_
3	to	to	PART	TO	_	4	mark	_	_
4	leave	leave	VERB	VB	_	2	xcomp	_	_
5	and	and	CCONJ	CC	_	6	cc	_	_
6	was	be	AUX	VBD	_	7	aux:pass	_	_
7	told	tell	VERB	VBN	_	2	conj	_	_
8	to	to	PART	TO	_	9	mark	_	_
9	stay	stay	VERB	VB	_	7	xcomp	_	_
"""


def test_shared_subjects_of_conjuncts_and_controlled_verbs() -> None:
    assert _roles(CONTROL) == [("want", [("A0", "She"), ("A1", "to leave")]),
                               ("leave", [("A0", "She")]),
                               ("tell", [("A1", "She"), ("A1", "to stay")]),
                               ("stay", [])]
