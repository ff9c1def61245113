"""The Czech light stemmer (Dolamic & Savoy 2009) against Apache Lucene's own test words (the
stemmer's reference implementation; ``tests/data/czech_stemmer``), and its invariants."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mteval.metrics.stemmer_czech import czech_light, normalize, remove_case

WORDS = Path(__file__).parent / "data" / "czech_stemmer" / "lucene_test_words.tsv"
PAIRS = [tuple(line.split("\t")) for line in WORDS.read_text(encoding="utf-8").splitlines()
         if line and not line.startswith("#")]


def test_every_lucene_test_word_gets_lucenes_stem() -> None:
    wrong = [(word, stem, czech_light(word)) for word, stem in PAIRS if czech_light(word) != stem]
    assert len(PAIRS) == 143 and not wrong


@pytest.mark.parametrize(("word", "stem"), [("pánové", "pán"), ("ženách", "žn"), ("kuřatech", "kuř"),
                                            ("angličtí", "anglick"), ("hůl", "hol"), ("", "")])
def test_a_few_forms(word: str, stem: str) -> None:
    assert czech_light(word) == stem


def test_short_words_keep_their_case_ending() -> None:
    assert remove_case("ženy") == "žen" and remove_case("ženu") == "žen" and remove_case("zi") == "zi"
    assert normalize("desek") == "desk" and normalize("muž") == "muh"


@given(st.text(alphabet="abcdeěéhikmnorstuůyýzžčšíá", max_size=12))
def test_a_stem_is_never_longer_than_its_word(word: str) -> None:
    stem = czech_light(word)
    assert len(stem) <= len(word) and (stem == "") == (word == "")
