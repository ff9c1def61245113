"""The feature-based NER tagger: features, BIO-constrained Viterbi, perceptron training, scoring."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.annotate.entity_tagger import (
    EntityTagger,
    Gazetteer,
    Lexicon,
    bio_allowed,
    sentence_features,
    viterbi,
    word_shape,
)
from mteval.annotate.entity_training import build_lexicon, score_entities, train
from mteval.annotate.model import Sentence, Word

LABELS = ("O", "B-LOC", "I-LOC", "B-PER", "I-PER")


def words(text: str, xpos: str = "NN") -> tuple[Word, ...]:
    return tuple(Word(i + 1, f, xpos="NNP" if f[:1].isupper() else xpos) for i, f in enumerate(text.split()))


def test_word_shape() -> None:
    assert [word_shape(w) for w in ("McDonald", "IBM", "2009", "e-mail", "x")] == ["XxXx", "X", "d", "x-x", "x"]
    assert word_shape("Ölçer") == "Xx" and word_shape("A.B.") == "X-X-"


def test_bio_constraint_table() -> None:
    allowed = bio_allowed(LABELS)
    start = len(LABELS)
    assert not allowed[start, LABELS.index("I-PER")] and allowed[start, LABELS.index("B-PER")]
    assert allowed[LABELS.index("B-PER"), LABELS.index("I-PER")]
    assert allowed[LABELS.index("I-PER"), LABELS.index("I-PER")]
    assert not allowed[LABELS.index("B-LOC"), LABELS.index("I-PER")]
    assert not allowed[LABELS.index("O"), LABELS.index("I-LOC")]


def _brute_force(emissions: np.ndarray, transitions: np.ndarray, allowed: np.ndarray) -> float:
    n, size = emissions.shape
    best = -np.inf
    for path in itertools.product(range(size), repeat=n):
        prev, score = size, 0.0
        for i, lab in enumerate(path):
            if not allowed[prev, lab]:
                score = -np.inf
                break
            score += transitions[prev, lab] + emissions[i, lab]
            prev = lab
        best = max(best, score)
    return best


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 10_000))
def test_viterbi_finds_the_best_allowed_sequence(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    emissions = rng.normal(size=(n, len(LABELS)))
    transitions = rng.normal(size=(len(LABELS) + 1, len(LABELS)))
    allowed = bio_allowed(LABELS)
    path = viterbi(emissions, transitions, allowed)
    prev, score = len(LABELS), 0.0
    for i, lab in enumerate(path):
        assert allowed[prev, lab]
        score += transitions[prev, lab] + emissions[i, lab]
        prev = lab
    assert np.isclose(score, _brute_force(emissions, transitions, allowed))


def test_viterbi_of_an_empty_sentence() -> None:
    assert viterbi(np.zeros((0, 5)), np.zeros((6, 5)), bio_allowed(LABELS)) == []


def test_gazetteer_marks_the_longest_entry() -> None:
    gaz = Gazetteer({"new york": ("city",), "york": ("city", "last"), "new": ("last",)})
    feats = gaz.word_features(words("I love New York ."))
    assert feats[2] == ["gz=city|B", "gz=last|B"] and feats[3] == ["gz=city|I", "gz=last|B"]
    assert feats[0] == [] and feats[4] == []


def test_lexicon_features_and_window() -> None:
    lexicon = build_lexicon([Sentence(tuple(Word(i + 1, f, upos=u) for i, (f, u) in enumerate(pairs)))
                             for pairs in ([("Paris", "PROPN"), ("is", "AUX")], [("In", "ADP"), ("Paris", "PROPN")])])
    assert lexicon.stats["paris"] == (2, 2, 1) and lexicon.features("PARIS") == ["lex=rare", "lexP=1", "lexC=mid"]
    assert lexicon.features("London") == ["lex=unseen"]
    feats = sentence_features(words("to Paris now"), lexicon)
    assert "w=paris" in feats[1] and "-1:w=to" in feats[1] and "1:w=now" in feats[1] and "-2:pad" in feats[1]
    assert all(len(f) == len(set(f)) for f in feats)


TRAIN = ["Yesterday Mr Smith went to Paris .", "Mrs Jones lives in Berlin now .", "We met Mr Brown in Rome .",
         "Mr Green flew to Madrid .", "Ms White likes Vienna ."]


def _gold(text: str) -> list[str]:
    tags, prev = [], ""
    for w in text.split():
        tag = "B-PER" if prev in ("Mr", "Mrs", "Ms") else "B-LOC" if prev in ("to", "in") and w[0].isupper() else "O"
        tags.append(tag)
        prev = w
    return tags


def test_perceptron_learns_a_pattern_and_round_trips(tmp_path: Path) -> None:
    lexicon = Lexicon({})
    examples = [(words(t), _gold(t)) for t in TRAIN]
    tagger = train(examples, lexicon, epochs=5)
    test = "Then Mr Black drove to Lisbon ."
    assert tagger.tag_words(words(test)) == _gold(test)
    again = train(examples, lexicon, epochs=5)
    np.testing.assert_array_equal(again.weights, tagger.weights)  # seeded order: deterministic
    tagger.gazetteer = Gazetteer({"lisbon": ("city",)})
    tagger.save(tmp_path / "m.npz")
    loaded = EntityTagger.load(tmp_path / "m.npz")
    assert loaded.labels == tagger.labels and loaded.features == tagger.features
    assert loaded.gazetteer == tagger.gazetteer and loaded.lexicon == tagger.lexicon
    np.testing.assert_allclose(loaded.weights, tagger.weights, rtol=1e-6)
    out = loaded.tag(Sentence(words(test), test))
    assert [w.ner for w in out] == _gold(test) and [w.form for w in out] == test.split()


def test_entity_scores_are_exact_span_and_type() -> None:
    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["B-ORG", "O"]]
    pred = [["B-PER", "O", "O", "B-LOC"], ["B-LOC", "O"]]
    sc = score_entities(pred, gold)
    assert (sc.correct, sc.predicted, sc.gold) == (1, 3, 3)
    assert sc.per_type == {"LOC": (1, 2, 1), "ORG": (0, 0, 1), "PER": (0, 1, 1)}
    assert np.isclose(sc.f1, 1 / 3)


SHIPPED = Path(__file__).resolve().parents[1] / "mteval" / "resources" / "models" / "en_ewt" / "ner.npz"
FORMS = ["John", "Smith", "London", "in", "the", "Bank", "of", "America", "said", ".", "new", "York", "x", "2009"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(FORMS), st.sampled_from(["PROPN", "NOUN", "ADP", "PUNCT"]),
                          st.integers(0, 12)), max_size=12))
def test_shipped_model_always_gives_well_formed_bio(items: list[tuple[str, str, int]]) -> None:
    tagger = _shipped()
    ws = [Word(i + 1, f, upos=u, xpos="NNP" if u == "PROPN" else "NN", head=min(h, len(items)), deprel="dep")
          for i, (f, u, h) in enumerate(items)]
    tags = tagger.tag_words(ws)
    assert len(tags) == len(ws) and set(tags) <= {"O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"}
    for prev, tag in zip(["O", *tags], tags, strict=False):
        assert not tag.startswith("I-") or prev[2:] == tag[2:]


_CACHE: dict[str, EntityTagger] = {}


def _shipped() -> EntityTagger:
    if "m" not in _CACHE:
        _CACHE["m"] = EntityTagger.load(SHIPPED)
    return _CACHE["m"]


def test_shipped_model_records_how_it_was_trained() -> None:
    meta = _shipped().meta
    assert meta["passes"] == 12 and meta["cv10"]["F1"] > 60 and len(_shipped().gazetteer.entries) > 40_000
