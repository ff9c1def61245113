"""Adjunct roles per language (role_lexicon): hand-built UD trees as the backends parse them
(natasha for ru, spaCy for fr, es, cs), then the same sentences on the real models (skipped, with
the reason, when a backend is absent). English is checked unchanged in test_layers_roles.py."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from test_layers_roles import PASSIVE

from mteval.annotate import backends
from mteval.annotate.layers.role_lexicon import ENGLISH, LEXICONS, lexicon
from mteval.annotate.layers.roles import predicates
from mteval.annotate.model import Sentence, parse_conllu

Frames = list[tuple[str, list[tuple[str, str]]]]


def _tree(language: str, rows: str) -> Sentence:
    """A sentence from ``id form lemma upos feats head deprel`` rows (space-separated), in ``language``."""
    lines = []
    for row in rows.strip().splitlines():
        i, form, lemma, upos, feats, head, rel = row.split()
        lines.append("\t".join([i, form, lemma, upos, upos, feats, head, rel, "_", "_"]))
    return dataclasses.replace(parse_conllu("\n".join(lines) + "\n")[0], language=language)


def _frames(sentence: Sentence) -> Frames:
    return [(p.lemma, [(r.label, " ".join(sentence.word(i).form for i in r.words)) for r in p.roles])
            for p in predicates(sentence)]


# docs/languages.md's example: English gives AM-LOC and AM-TMP, so must Russian
RU_RAIN = """
1 Дожди дождь NOUN Case=Nom 2 nsubj
2 продолжатся продолжиться VERB VerbForm=Fin 0 root
3 в в ADP _ 5 case
4 северных северный ADJ Case=Loc 5 amod
5 районах район NOUN Case=Loc 2 obl
6 до до ADP _ 7 case
7 конца конец NOUN Case=Gen 2 obl
8 недели неделя NOUN Case=Gen 7 nmod
"""
# negation particle, a modal heading the infinitive (no predicate of its own), в + accusative, из-за
RU_MODAL = """
1 Вчера вчера ADV Degree=Pos 4 advmod
2 он он PRON Case=Nom 4 nsubj
3 не не PART Polarity=Neg 4 advmod
4 смог смочь VERB VerbForm=Fin 0 root
5 приехать приехать VERB VerbForm=Inf 4 xcomp
6 в в ADP _ 7 case
7 Москву Москва PROPN Case=Acc 5 obl
8 из-за из-за ADP _ 9 case
9 снега снег NOUN Case=Gen 5 obl
"""
FR_RAIN = """
1 Les le DET _ 2 det
2 pluies pluie NOUN _ 4 nsubj
3 ne ne ADV Polarity=Neg 4 advmod
4 continueront continuer VERB VerbForm=Fin 0 root
5 pas pas ADV Polarity=Neg 4 advmod
6 dans dans ADP _ 8 case
7 le le DET _ 8 det
8 nord nord NOUN _ 4 obl:mod
9 pendant pendant ADP _ 11 case
10 la le DET _ 11 det
11 semaine semaine NOUN _ 4 obl:mod
"""
FR_MODAL = """
1 Il il PRON _ 2 nsubj
2 peut pouvoir VERB VerbForm=Fin 0 root
3 partir partir VERB VerbForm=Inf 2 xcomp
4 vers vers ADP _ 5 case
5 Paris Paris PROPN _ 3 obl:mod
6 en en ADP _ 7 case
7 2012 2012 NUM _ 2 obl:mod
8 pour pour ADP _ 9 mark
9 travailler travailler VERB VerbForm=Inf 2 advcl
10 rapidement rapidement ADV _ 9 advmod
"""
ES_MODAL = """
1 Ya ya ADV _ 3 advmod
2 puede poder AUX VerbForm=Fin 3 aux
3 viajar viajar VERB VerbForm=Inf 0 root
4 a a ADP _ 5 case
5 Madrid Madrid PROPN _ 3 obl
6 en en ADP _ 7 case
7 2012 2012 NOUN _ 3 obl
8 por por ADP _ 10 case
9 la el DET _ 10 det
10 lluvia lluvia NOUN _ 3 obl
11 para para ADP _ 12 mark
12 trabajar trabajar VERB VerbForm=Inf 3 advcl
13 rápidamente rápidamente ADV _ 12 advmod
14 no no ADV Polarity=Neg 12 advmod
15 solamente solamente ADV _ 12 advmod
"""
# Czech negation is the verb's (here the auxiliary's) prefix: AM-NEG spans the negated word
CS_RAIN = """
1 Deště déšť NOUN Case=Nom 3 nsubj
2 nebudou být AUX Polarity=Neg|VerbForm=Fin 3 aux
3 pokračovat pokračovat VERB Polarity=Pos|VerbForm=Inf 0 root
4 na na ADP Case=Loc 5 case
5 severu sever NOUN Case=Loc 3 obl
6 během během ADP Case=Gen 7 case
7 týdne týden NOUN Case=Gen 3 obl
"""
CS_MODAL = """
1 Včera včera ADV _ 2 advmod
2 nemohl moci VERB Polarity=Neg|VerbForm=Part 0 root
3 přijet přijet VERB Polarity=Pos|VerbForm=Inf 2 xcomp
4 do do ADP Case=Gen 5 case
5 Prahy Praha PROPN Case=Gen 3 obl
6 kvůli kvůli ADP Case=Dat 7 case
7 sněhu sníh NOUN Case=Dat 3 obl
8 s s ADP Case=Ins 9 case
9 bratrem bratr NOUN Case=Ins 3 obl
"""


def test_russian_location_and_time_frame() -> None:
    assert _frames(_tree("ru", RU_RAIN)) == [
        ("продолжиться", [("A0", "Дожди"), ("AM-LOC", "в северных районах"), ("AM-TMP", "до конца недели")])]


def test_russian_negation_modal_direction_cause() -> None:
    assert _frames(_tree("ru", RU_MODAL)) == [
        ("приехать", [("AM-TMP", "Вчера"), ("A0", "он"), ("AM-NEG", "не"), ("AM-MOD", "смог"),
                      ("AM-DIR", "в Москву"), ("AM-CAU", "из-за снега")])]


def test_russian_case_feature_tells_direction_from_location() -> None:
    moscow = RU_RAIN.replace("северных северный ADJ Case=Loc", "этот этот DET Case=Acc").replace(
        "районах район NOUN Case=Loc", "район район NOUN Case=Acc")
    assert _frames(_tree("ru", moscow))[0][1][1] == ("AM-DIR", "в этот район")


def test_french_double_negation_location_time() -> None:
    assert _frames(_tree("fr", FR_RAIN)) == [
        ("continuer", [("A0", "Les pluies"), ("AM-NEG", "ne"), ("AM-NEG", "pas"), ("AM-LOC", "dans le nord"),
                       ("AM-TMP", "pendant la semaine")])]


def test_french_modal_head_year_purpose_manner() -> None:
    assert _frames(_tree("fr", FR_MODAL)) == [
        ("partir", [("A0", "Il"), ("AM-MOD", "peut"), ("AM-DIR", "vers Paris"), ("AM-TMP", "en 2012"),
                    ("AM-PNC", "pour travailler rapidement")]),
        ("travailler", [("AM-MNR", "rapidement")])]


def test_spanish_modal_auxiliary_cause_purpose_manner() -> None:
    assert _frames(_tree("es", ES_MODAL)) == [
        ("viajar", [("AM-TMP", "Ya"), ("AM-MOD", "puede"), ("AM-DIR", "a Madrid"), ("AM-TMP", "en 2012"),
                    ("AM-CAU", "por la lluvia"), ("AM-PNC", "para trabajar rápidamente no solamente")]),
        ("trabajar", [("AM-MNR", "rápidamente"), ("AM-NEG", "no"), ("AM-ADV", "solamente")])]


def test_czech_negated_auxiliary_location_time() -> None:
    assert _frames(_tree("cs", CS_RAIN)) == [
        ("pokračovat", [("A0", "Deště"), ("AM-MOD", "nebudou"), ("AM-NEG", "nebudou"), ("AM-LOC", "na severu"),
                        ("AM-TMP", "během týdne")])]


def test_czech_negated_modal_direction_cause_manner() -> None:
    assert _frames(_tree("cs", CS_MODAL)) == [
        ("přijet", [("AM-TMP", "Včera"), ("AM-MOD", "nemohl"), ("AM-NEG", "nemohl"), ("AM-DIR", "do Prahy"),
                    ("AM-CAU", "kvůli sněhu"), ("AM-MNR", "s bratrem")])]


def test_english_lists_outside_their_languages() -> None:
    """Without a language (or English, or one without a table) the English lists apply: a Russian
    tree then has only AM-ADV adjuncts, as before; an English tree is the same in every case."""
    assert [r[0] for r in _frames(_tree("", RU_RAIN))[0][1]] == ["A0", "AM-ADV", "AM-ADV"]
    english = parse_conllu(PASSIVE)[0]
    expected = _frames(english)
    for language in ("en", "en-GB", "de", "xx"):
        assert _frames(dataclasses.replace(english, language=language)) == expected


def test_lexicon_choice() -> None:
    assert lexicon("fr-CA") is LEXICONS["fr"] and lexicon("RU") is LEXICONS["ru"] and lexicon("cs_CZ").language == "cs"
    assert lexicon("") is ENGLISH and lexicon("de") is ENGLISH
    assert set(LEXICONS) == {"en", "ru", "fr", "es", "cs"}


# the real models: (language, text, predicate lemma, the roles expected on it)
REAL = [
    ("ru", "Дожди продолжатся в северных районах до конца недели.", "продолжиться", ["A0", "AM-LOC", "AM-TMP"]),
    ("ru", "Вчера он не смог приехать в Москву из-за снега.", "приехать",
     ["AM-TMP", "A0", "AM-NEG", "AM-MOD", "AM-DIR", "AM-CAU"]),
    ("fr", "Les pluies ne continueront pas pendant la semaine.", "continuer", ["A0", "AM-NEG", "AM-NEG", "AM-TMP"]),
    ("es", "Las lluvias no continuarán en el norte durante la semana.", "continuar",
     ["A0", "AM-NEG", "AM-LOC", "AM-TMP"]),
    ("cs", "Včera nemohl přijet do Prahy kvůli sněhu.", "přijet", ["AM-TMP", "AM-MOD", "AM-NEG", "AM-DIR", "AM-CAU"]),
]


@cache
def _parser(language: str) -> Any:
    chosen = backends.select(language)
    assert chosen is not None
    return chosen.load()


@pytest.mark.models
@pytest.mark.slow  # loads each model (spaCy fr: about 8 s on 2 busy cores)
@pytest.mark.parametrize(("language", "text", "lemma", "labels"), REAL, ids=[f"{r[0]}-{i}" for i, r in enumerate(REAL)])
def test_real_parses(language: str, text: str, lemma: str, labels: list[str]) -> None:
    entry = backends.LANGUAGES[language]
    if not backends.installed(entry):
        pytest.skip(f"{entry.backend} model for {language} not installed ({entry.install})")
    sentence, _ = _parser(language).parse([text])[0]
    frames = dict(_frames(dataclasses.replace(sentence, language=language)))
    assert [label for label, _ in frames[lemma]] == labels


@pytest.mark.models
@pytest.mark.slow
def test_annotator_gives_the_layers_its_language(tmp_path: Path) -> None:
    """The language reaches the roles through the annotator (the pipeline's path), cached or not."""
    entry = backends.LANGUAGES["ru"]
    if not backends.installed(entry):
        pytest.skip(f"{entry.backend} model for ru not installed ({entry.install})")
    from mteval.annotate.annotator import Annotator

    text = REAL[0][1]
    for _ in range(2):  # parsed, then read from the cache
        [sentence] = Annotator(tmp_path, language="ru", workers=1).annotate([text])
        assert sentence.language == "ru"
        assert dict(_frames(sentence))["продолжиться"][2] == ("AM-TMP", "до конца недели")


def _sr(language: str, hypothesis: str, reference: str, variant: str) -> float:
    from mteval.metrics.overlap import NO_ITEMS, best_counts
    from mteval.metrics.semantic_roles import SemanticRoles

    family = SemanticRoles()
    selector = family.selectors[variant]
    hyp, ref = (family.features(_tree(language, rows)) for rows in (hypothesis, reference))
    return selector.score(best_counts(hyp.get(selector.group, NO_ITEMS), [ref.get(selector.group, NO_ITEMS)]))


CS_NOT_SUPPORTED = """
1 Parlament parlament NOUN Case=Nom 2 nsubj
2 {verb} podpořit VERB Polarity=Neg|VerbForm=Fin 0 root
3 návrh návrh NOUN Case=Acc 2 obj
"""


def test_czech_verb_negation_is_the_prefix_not_the_verb_form() -> None:
    """Two negated verbs agree on AM-NEG whatever their tense (its item is ``ne``), as English ``not``
    does; a parser's Polarity=Neg on a verb without the prefix (``narostlo``) is no negation."""
    past, present = CS_NOT_SUPPORTED.format(verb="nepodpořil"), CS_NOT_SUPPORTED.format(verb="nepodporuje")
    frames = predicates(_tree("cs", past))[0].roles
    assert [(r.label, r.text) for r in frames if r.label == "AM-NEG"] == [("AM-NEG", ("ne",))]
    assert _sr("cs", past, present, "SR-Or(AM-NEG)") == 1.0
    assert _sr("cs", past, present, "SR-Mr(AM-NEG)") == 1.0
    grew = CS_NOT_SUPPORTED.format(verb="narostlo")
    assert not [r for r in predicates(_tree("cs", grew))[0].roles if r.label == "AM-NEG"]
