"""Base-phrase chunks and IOB labels derived from hand-written UD trees (expected outputs written out)."""

from __future__ import annotations

import pytest

from mteval.annotate.layers.chunks import chunks, iob_labels
from mteval.annotate.model import parse_conllu

COACH = """\
1	The	the	DET	DT	_	2	det	_	_
2	captain	captain	NOUN	NN	_	3	nsubj	_	_
3	rejects	reject	VERB	VBZ	_	0	root	_	_
4	that	that	SCONJ	IN	_	7	mark	_	_
5	the	the	DET	DT	_	6	det	_	_
6	coach	coach	NOUN	NN	_	7	nsubj	_	_
7	leaves	leave	VERB	VBZ	_	3	ccomp	_	_
8	the	the	DET	DT	_	10	det	_	_
9	Barça	Barça	PROPN	NNP	_	10	compound	_	_
10	bench	bench	NOUN	NN	_	7	obj	_	_
11	due	due	ADP	IN	_	12	case	_	_
12	problems	problem	NOUN	NNS	_	7	obl	_	_
13	with	with	ADP	IN	_	15	case	_	_
14	some	some	DET	DT	_	15	det	_	_
15	players	player	NOUN	NNS	_	12	nmod	_	_
16	.	.	PUNCT	.	_	3	punct	_	_
"""

GOVERNMENT = """\
1	the	the	DET	DT	_	2	det	_	_
2	Government	government	PROPN	NNP	_	4	nmod:poss	_	_
3	's	's	PART	POS	_	2	case	_	_
4	priority	priority	NOUN	NN	_	9	nsubj	_	_
5	has	have	AUX	VBZ	_	9	aux	_	_
6	not	not	PART	RB	_	9	advmod	_	_
7	always	always	ADV	RB	_	9	advmod	_	_
8	been	be	AUX	VBN	_	9	cop	_	_
9	creation	creation	NOUN	NN	_	0	root	_	_
10	of	of	ADP	IN	_	12	case	_	_
11	Barack	Barack	PROPN	NNP	_	12	compound	_	_
12	Obama	Obama	PROPN	NNP	_	9	nmod	_	_
13	,	,	PUNCT	,	_	15	punct	_	_
14	very	very	ADV	RB	_	15	advmod	_	_
15	quickly	quickly	ADV	RB	_	9	advmod	_	_
16	to	to	PART	TO	_	17	mark	_	_
17	give	give	VERB	VB	_	9	advcl	_	_
18	up	up	ADP	RP	_	17	compound:prt	_	_
"""

NAME = """\
1	Barack	Barack	PROPN	NNP	_	4	nmod:poss	_	_
2	Obama	Obama	PROPN	NNP	_	1	flat	_	_
3	's	's	PART	POS	_	1	case	_	_
4	visit	visit	NOUN	NN	_	0	root	_	_
5	as	as	ADV	RB	_	0	root	_	_
6	well	well	ADV	RB	_	5	fixed	_	_
"""


def _chunks(conllu: str) -> list[tuple[str, str]]:
    sentence = parse_conllu(conllu)[0]
    return [(c.type, " ".join(sentence.word(i).form for i in c.words)) for c in chunks(sentence)]


@pytest.mark.parametrize("conllu, expected", [
    (COACH, [("NP", "The captain"), ("VP", "rejects"), ("SBAR", "that"), ("NP", "the coach"), ("VP", "leaves"),
             ("NP", "the Barça bench"), ("PP", "due"), ("NP", "problems"), ("PP", "with"),
             ("NP", "some players"), ("O", ".")]),
    (GOVERNMENT, [("NP", "the Government 's"), ("NP", "priority"), ("VP", "has not always been"),
                  ("NP", "creation"), ("PP", "of"), ("NP", "Barack Obama"), ("O", ","), ("ADVP", "very quickly"),
                  ("VP", "to give"), ("PRT", "up")]),
    (NAME, [("NP", "Barack Obama 's"), ("NP", "visit"), ("ADVP", "as well")]),
])
def test_chunks(conllu: str, expected: list[tuple[str, str]]) -> None:
    assert _chunks(conllu) == expected


def test_iob_labels() -> None:
    sentence = parse_conllu(COACH)[0]
    assert iob_labels(sentence) == ["B-NP", "I-NP", "B-VP", "B-SBAR", "B-NP", "I-NP", "B-VP", "B-NP", "I-NP",
                                    "I-NP", "B-PP", "B-NP", "B-PP", "B-NP", "I-NP", "O"]


def test_every_word_in_exactly_one_chunk() -> None:
    for conllu in (COACH, GOVERNMENT, NAME):
        sentence = parse_conllu(conllu)[0]
        ids = [i for c in chunks(sentence) for i in c.words]
        assert ids == list(range(1, len(sentence) + 1))


def test_empty_sentence() -> None:
    from mteval.annotate.model import Sentence
    assert chunks(Sentence(())) == [] and iob_labels(Sentence(())) == []


# French: spaCy's fr_core_news_sm writes the perfect's auxiliary as aux:tense and negation as ne ... pas
FR_NEGATED_PERFECT = """\
1	Les	le	DET	DET	_	2	det	_	_
2	députés	député	NOUN	NOUN	_	6	nsubj	_	_
3	n'	ne	ADV	ADV	Polarity=Neg	6	advmod	_	_
4	ont	avoir	AUX	AUX	_	6	aux:tense	_	_
5	pas	pas	ADV	ADV	Polarity=Neg	6	advmod	_	_
6	ratifié	ratifier	VERB	VERB	_	0	root	_	_
7	le	le	DET	DET	_	8	det	_	_
8	traité	traité	NOUN	NOUN	_	6	obj	_	_
"""
# Russian: the negation particle не before the verb
RU_NEGATED = """\
1	Парламент	парламент	NOUN	NOUN	_	3	nsubj	_	_
2	не	не	PART	PART	Polarity=Neg	3	advmod	_	_
3	поддержал	поддержать	VERB	VERB	_	0	root	_	_
4	проект	проект	NOUN	NOUN	_	3	obj	_	_
"""
# English with a typographic apostrophe: n’t is not in the word list, but UD marks it Polarity=Neg
EN_CURLY = """\
1	They	they	PRON	PRP	_	4	nsubj	_	_
2	have	have	AUX	VBP	_	4	aux	_	_
3	n’t	n’t	PART	RB	Polarity=Neg	4	advmod	_	_
4	left	leave	VERB	VBN	_	0	root	_	_
"""


@pytest.mark.parametrize("conllu, expected", [
    (FR_NEGATED_PERFECT, [("NP", "Les députés"), ("VP", "n' ont pas ratifié"), ("NP", "le traité")]),
    (RU_NEGATED, [("NP", "Парламент"), ("VP", "не поддержал"), ("NP", "проект")]),
    (EN_CURLY, [("NP", "They"), ("VP", "have n’t left")]),
])
def test_verb_group_takes_aux_subtypes_and_marked_negation(conllu: str, expected: list[tuple[str, str]]) -> None:
    """One verb group as in English ``have not ratified``: French aux:tense and any ADV/PART marked
    Polarity=Neg join it (before, ``[VP ont] [ADVP pas] [VP ratifié]``)."""
    assert _chunks(conllu) == expected
