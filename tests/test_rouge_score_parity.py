"""rouge-score 0.1.2 parity: the ``rouge-score`` family (rouge1..4, rougeL, rougeLsum) and NLTK's Porter.

Three kinds of check: rouge-score's own test cases (google-research ``rouge/rouge_scorer_test.py``,
``tokenize_test.py``, ``tokenizers_test.py``, expected values copied with the test each comes from,
its test data in ``tests/data/rouge_score/``), rouge-score's numbers on the bundled samples and NLTK's
stems (``tests/data/rouge_score/*.tsv``) -- both without rouge-score or NLTK installed -- and property
tests against the installed rouge-score and NLTK, skipped when they are absent.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from helpers import ENDE, RUEN
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import ScoreSet, Side
from mteval.metrics.porter_nltk import porter_nltk
from mteval.metrics.rouge_scorer import RougeScore, lcs_positions, pair_score, summary_score, tokens

DATA = Path(__file__).resolve().parent / "data" / "rouge_score"
TYPES = ("rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeLsum")


def family_scores(names: list[str], hyps: list[str], refs: list[list[str]],
                  docs: DocumentIndex | None = None) -> dict[str, ScoreSet]:
    """The named rouge-score variants (any spelling) of ``hyps`` against the references."""
    family = RougeScore()
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    canonical = [registry.canonical(n) for n in names]
    found = family.score(Side("h", hyps), prepared, docs or DocumentIndex.single(len(hyps)), canonical)
    return {n: found[c] for n, c in zip(names, canonical, strict=True)}


def prf(kind: str, target: str, prediction: str, stem: bool = False) -> tuple[float, float, float]:
    """``RougeScorer([kind], use_stemmer=stem).score(target, prediction)[kind]`` as (P, R, F)."""
    return pair_score(kind, target, prediction, stem)


def lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)


# rouge_scorer_test.py: testRouge1, testRouge2, testRougeLConsecutive, testRougeLNonConsecutive,
# testMultipleRougeTypes: (kind, target, prediction, precision, recall, fmeasure)
SMALL_CASES = [
    ("rouge1", "testing one two", "testing", 1, 1 / 3, 1 / 2),
    ("rouge2", "testing one two", "testing one", 1, 1 / 2, 2 / 3),
    ("rougeL", "testing one two", "testing one", 1, 2 / 3, 4 / 5),
    ("rougeL", "testing one two", "testing two", 1, 2 / 3, 4 / 5),
    ("rouge1", "testing one two", "testing one", 1, 2 / 3, 4 / 5),
    ("rougeLsum", "w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5", 0.4, 0.8, 0.5333),  # testRougeLsum
]
# testRouge1/2/LAgainstRouge155[WithStemming]: (kind, stem, line, recall, precision, fmeasure) to 5 places
ROUGE155_CASES = [
    ("rouge1", False, 0, 0.40741, 0.68750, 0.51163), ("rouge1", False, 1, 0.40476, 0.65385, 0.50000),
    ("rouge1", True, 0, 0.40741, 0.68750, 0.51163), ("rouge1", True, 1, 0.42857, 0.69231, 0.52941),
    ("rouge2", False, 0, 0.30769, 0.53333, 0.39024), ("rouge2", False, 1, 0.29268, 0.48000, 0.36364),
    ("rouge2", True, 0, 0.30769, 0.53333, 0.39024), ("rouge2", True, 1, 0.29268, 0.48000, 0.36364),
    ("rougeL", False, 0, 0.40741, 0.68750, 0.51163), ("rougeL", False, 1, 0.40476, 0.65385, 0.50000),
]


@pytest.mark.parametrize(("kind", "target", "prediction", "p", "r", "f"), SMALL_CASES)
def test_rouge_score_small_cases(kind: str, target: str, prediction: str, p: float, r: float, f: float) -> None:
    assert prf(kind, target, prediction) == pytest.approx((p, r, f), abs=5e-5 if kind == "rougeLsum" else 1e-7)


@pytest.mark.parametrize(("kind", "stem", "line", "r", "p", "f"), ROUGE155_CASES)
def test_rouge_score_cases_against_rouge155(kind: str, stem: bool, line: int, r: float, p: float, f: float) -> None:
    found = prf(kind, lines("target.txt")[line], lines("prediction.txt")[line], stem)
    assert found == pytest.approx((p, r, f), abs=5e-6)


def test_rouge_lsum_cases() -> None:
    # testRougeLSumAgainstRouge155WithStemming
    target = (DATA / "target_multi.0.txt").read_text(encoding="utf-8")
    prediction = (DATA / "prediction_multi.0.txt").read_text(encoding="utf-8")
    assert prf("rougeLsum", target, prediction, True) == pytest.approx((0.66667, 0.36538, 0.47205), abs=5e-6)
    # testRougeLSumSentenceSplitting (split_summaries=False; the nltk.sent_tokenize part is not offered)
    two, swapped = "First sentence.\nSecond Sentence.", "Second sentence.\nFirst Sentence."
    assert prf("rougeLsum", two, swapped, True)[2] == pytest.approx(1.0, abs=5e-6)
    assert prf("rougeLsum", two.replace("\n", " "), swapped.replace("\n", " "), True)[2] == pytest.approx(0.5, abs=5e-6)
    # testRougeEmpty, testRougeLsum's empty cases
    for kind in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
        assert prf(kind, "testing one two", "") == (0, 0, 0)
    assert prf("rougeLsum", "", "w1") == prf("rougeLsum", "w1 w2 w3 w4 w5", "/") == (0, 0, 0)


def test_lcs_and_summary_level_lcs_cases() -> None:
    # testLcsTable, testUnionLcs, testSummaryLevelLcs (ids as strings)
    ref = tuple("12345")
    assert lcs_positions(ref, tuple("2534")) == [1, 2, 3]
    assert lcs_positions(ref, ("8", "9")) == []
    found = summary_score([ref], [tuple("12678"), tuple("13895")])
    assert found[:2] == (0.4, 0.8) and found[2] == pytest.approx(0.5333, abs=5e-5)
    assert summary_score([("reference",)], [()])[1] == 0.0


def test_multi_reference_and_tokenizer_cases() -> None:
    # testRouge1Multi, testRougeAllMulti
    recall = family_scores(["rouge1(measure=recall)"], ["testing"], [["testing one two"]])["rouge1(measure=recall)"]
    assert recall.system == pytest.approx(1 / 3)
    found = family_scores(["rouge1", "rouge2", "rougeL"], ["text first"], [["first text"], ["first something"]])
    assert [found[k].system for k in ("rouge1", "rouge2", "rougeL")] == pytest.approx([1, 0, 0.5])
    # tokenize_test.py, tokenizers_test.py
    assert tokens("one Two three") == tokens("one\n Two \nthree") == ("one", "two", "three")
    assert tokens("this is a test") == ("this", "is", "a", "test")
    assert tokens("the friends had a meeting", stem=True) == ("the", "friend", "had", "a", "meet")


def _tsv(name: str) -> list[dict[str, str]]:
    with open(DATA / name, encoding="utf-8") as f:
        return list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"))


def test_porter_stems_equal_nltks() -> None:
    rows = _tsv("porter_nltk.tsv")
    assert len(rows) > 1500
    assert [porter_nltk(r["word"]) for r in rows] == [r["stem"] for r in rows]


def test_the_samples_give_rouge_score_numbers_exactly() -> None:
    rows = _tsv("expected.tsv")
    for key in dict.fromkeys((r["sample"], r["system"], r["references"], r["stem"]) for r in rows):
        sample, system, references, stem = key
        root = RUEN if sample == RUEN.name else ENDE
        chosen = [r for r in rows if (r["sample"], r["system"], r["references"], r["stem"]) == key]
        n = len(chosen) - 1
        hyps = (root / "sys" / system).read_text(encoding="utf-8").split("\n")[:n]
        refs = [(root / "refs" / r).read_text(encoding="utf-8").split("\n")[:n] for r in references.split("+")]
        suffix = "(stem=yes)" if stem == "yes" else ""
        names = [f"{t}{suffix}" for t in TYPES]
        pairs = [(t, m) for m in ("precision", "recall") for t in ("rouge2", "rougeL")]
        names += [f"{t}(stem={stem},measure={m})" for t, m in pairs]
        columns = [f"{t}.f" for t in TYPES] + [f"{t}.{m[0]}" for t, m in pairs]
        found = family_scores(names, hyps, refs)
        for row in chosen:
            for name, column in zip(names, columns, strict=True):
                if row["segment"] == "-":
                    assert row[column] == "" or found[name].system == float(row[column]), (key, name)
                else:
                    segment = int(row["segment"]) - 1
                    assert found[name].segments[segment] == float(row[column]), (key, segment, name)


def test_names_parameters_and_aggregation() -> None:
    assert registry.canonical("ROUGE-Lsum") == "rougeLsum" and registry.family_of("ROUGE-Lsum") == "rouge-score"
    assert registry.canonical("rougeL(measure=fmeasure, stem=true)") == "rougeL(stem=yes)"
    assert registry.canonical("ROUGE-Lsum(stem=yes)") == "rougeLsum(stem=yes)"
    assert registry.variants_of("rouge-score") == TYPES
    docs = DocumentIndex(("d1", "d1", "d2"))
    found = family_scores(["rouge1"], ["a b", "c d", "e"], [["a b", "c x", "y"]], docs)["rouge1"]
    assert found.segments.tolist() == [1.0, 0.5, 0.0]
    assert found.documents == {"d1": 0.75, "d2": 0.0} and found.system == pytest.approx(0.5)


REAL = [line for root, name in ((RUEN, "refs/A.en"), (RUEN, "refs/B.en"), (RUEN, "sys/AFRL.en"), (ENDE, "refs/A.de"))
        for line in (root / name).read_text(encoding="utf-8").split("\n")[:-1]]
TEXT = st.text(alphabet="abcXY 09-.,\u0130\u212aéß\t", max_size=30)
SENTENCE = st.one_of(TEXT, st.sampled_from(REAL))


@settings(max_examples=200, deadline=None)
@given(st.lists(SENTENCE, min_size=1, max_size=3))
def test_rouge_lsum_of_one_line_is_rouge_l(texts: list[str]) -> None:
    hyp, *refs = texts + [""] * (len(texts) < 2)
    names = ["rougeL", "rougeLsum", "rougeL(stem=yes)", "rougeLsum(stem=yes)"]
    found = family_scores(names, [hyp], [[r] for r in refs])
    assert found["rougeL"].segments.tolist() == found["rougeLsum"].segments.tolist()
    assert found["rougeL(stem=yes)"].segments.tolist() == found["rougeLsum(stem=yes)"].segments.tolist()


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(SENTENCE, SENTENCE, SENTENCE), min_size=1, max_size=4), st.booleans(),
       st.sampled_from(("fmeasure", "precision", "recall")))
def test_property_equal_to_installed_rouge_score(rows: list[tuple[str, str, str]], stem: bool, measure: str) -> None:
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer", reason="rouge-score is not installed")
    scorer = rouge_scorer.RougeScorer(list(TYPES), use_stemmer=stem)
    names = [f"{t}(stem={'yes' if stem else 'no'},measure={measure})" for t in TYPES]
    hyps, refs_a, refs_b = ([row[k] for row in rows] for k in range(3))
    for refs in ([refs_a], [refs_a, refs_b]):
        found = family_scores(names, hyps, refs)
        theirs = [scorer.score_multi([r[i] for r in refs], h) for i, h in enumerate(hyps)]
        for name, kind in zip(names, TYPES, strict=True):
            expected = [getattr(t[kind], measure) for t in theirs]
            assert found[name].segments.tolist() == expected, name
            assert found[name].system == float(np.mean(expected)), name


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abc\nXY .\u0130", max_size=40), st.text(alphabet="abc\nXY .", max_size=40), st.booleans())
def test_property_multi_line_texts_equal_installed_rouge_score(target: str, prediction: str, stem: bool) -> None:
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer", reason="rouge-score is not installed")
    theirs = rouge_scorer.RougeScorer(list(TYPES), use_stemmer=stem).score(target, prediction)
    for kind in TYPES:
        assert pair_score(kind, target, prediction, stem) == tuple(theirs[kind]), kind


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aeiouybcdlmnrstgzwx0", min_size=1, max_size=14))
def test_property_porter_equals_installed_nltk(word: str) -> None:
    porter = pytest.importorskip("nltk.stem.porter", reason="NLTK is not installed")
    assert porter_nltk(word) == porter.PorterStemmer().stem(word)
