"""WER / PER parity with Asiya's WER.pl / PER.pl (``../shared/oracles/wmt21-ruen/wer_per.tsv``).

Every row: ``-WER``, ``-PER`` (system + 500 segments for A, B, A+B), ``WER``, ``PER`` (system for
A, B, A+B; segments for A+B, where Asiya's max rule picks the *worst* reference). The oracle prints
Perl ``%.15g``, so values must agree to 1e-12. Also: the Asiya sample's recomputed values
(``asiya-sample/recomputed_tok.tsv``) and jiwer's WER on random sentences.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter

import numpy as np
import pytest
from conftest import SHARED, needs_shared
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import read_oracle, ruen_lines

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.error_rates import ErrorRates, matched_words, tokenize

ORACLE = SHARED / "oracles" / "wmt21-ruen" / "wer_per.tsv"
DATA = SHARED / "data" / "wmt21-ruen"
SAMPLE = SHARED / "oracles" / "asiya-sample"
N_SEGMENTS = 500
VARIANTS = ("-WER", "-PER", "WER", "PER")


def oracle(path: str = str(ORACLE)) -> dict[tuple[str, str, str], dict[str, str]]:
    """(metric, target, refs) -> {segment or '-': printed score}."""
    return read_oracle(path)


_lines = ruen_lines


@needs_shared
@pytest.mark.shared
def test_oracle_parity() -> None:
    family = ErrorRates()
    refs = {"A": Side("A", _lines("refs/A.en")), "B": Side("B", _lines("refs/B.en"))}
    prepared = {"A": family.prepare([refs["A"]]), "B": family.prepare([refs["B"]]),
                "A+B": family.prepare([refs["A"], refs["B"]])}
    docs = DocumentIndex.single(N_SEGMENTS)
    systems = sorted({t for (_, t, _) in oracle()})
    assert len(systems) == 10
    n_values = 0
    for system in systems:
        hyp = Side(system, _lines(f"sys/{system}.en"))
        for refset, prep in prepared.items():
            scores = family.score(hyp, prep, docs, VARIANTS)
            for variant in VARIANTS:
                rows = oracle()[(variant, system, refset)]
                got = scores[variant]
                assert got.system == pytest.approx(float(rows["-"]), abs=1e-12), (variant, system, refset)
                n_values += 1
                if "1" in rows:
                    expected = np.array([float(rows[str(i + 1)]) for i in range(N_SEGMENTS)])
                    np.testing.assert_allclose(got.segments, expected, rtol=0, atol=1e-12)
                    n_values += N_SEGMENTS
                assert got.documents["UNKNOWN_DOC"] == pytest.approx(got.segments.mean())
    assert n_values == 10 * (12 + 8 * N_SEGMENTS)


@needs_shared
@pytest.mark.shared
def test_asiya_sample_recomputed() -> None:
    table = oracle(str(SAMPLE / "recomputed_tok.tsv"))
    family = ErrorRates()

    def read(name: str) -> list[str]:
        return (SAMPLE / "data" / f"{name}.txt.tok").read_text(encoding="utf-8").split("\n")[:3]

    prepared = family.prepare([Side("ref", read("ref"))])
    for system in ("apertium", "babelfish", "bing", "google", "reverso", "systran"):
        scores = family.score(Side(system, read(system)), prepared, DocumentIndex.single(3), VARIANTS)
        for variant in VARIANTS:
            rows = table[(variant, system, "ref")]
            assert scores[variant].system == pytest.approx(float(rows["-"]), abs=1e-12)
            np.testing.assert_allclose(scores[variant].segments, [float(rows[str(i)]) for i in (1, 2, 3)],
                                       rtol=0, atol=1e-12)
            cached = SAMPLE / "scores" / f"{system}.txt" / "ref.txt" / f"{variant}.xml.gz"
            if cached.exists():  # Asiya's document score: the mean of the segment scores
                xml = gzip.open(cached).read().decode("utf-8")
                doc = float(re.search(r'<DOC[^>]*\bscore="([^"]+)"', xml).group(1))
                assert round(scores[variant].documents["UNKNOWN_DOC"], 8) == doc, (system, variant)


def _ours(hyps: list[str], refs: list[list[str]]) -> dict:
    family = ErrorRates()
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, DocumentIndex.single(len(hyps)), VARIANTS)


def test_hand_computed_per_and_multi_reference_rule() -> None:
    # hyp 5 words, ref 4 words, correct = 3 ("a", "b", "c"): PER = 1 - (3 - 1) / 4 = 0.5
    ours = _ours(["a b c c x"], [["a b c d"]])
    assert ours["PER"].segments[0] == pytest.approx(0.5)
    assert ours["WER"].segments[0] == pytest.approx(2 / 4)  # substitute d->c, insert x
    two = _ours(["a b", "a b"], [["a b", "x y"], ["x y", "a b"]])
    assert two["-WER"].segments.tolist() == [0.0, 0.0]        # best reference per segment
    assert two["WER"].segments.tolist() == [1.0, 1.0]         # Asiya's positive WER: the worst
    assert two["-WER"].system == -0.5 and two["WER"].system == 0.5  # max over per-reference systems


def test_empty_sides_and_tokenizer() -> None:
    ours = _ours(["", "a", ""], [["a b", "", ""]])
    assert ours["WER"].segments.tolist() == [1.0, 1.0, 0.0]
    assert ours["PER"].segments.tolist() == [1.0, 1.0, 0.0]
    assert tokenize("  a\tb \u00a0c  ") == ["a", "b", "\u00a0c"]  # Perl's \s on bytes: no NBSP


WORDS = st.sampled_from(["the", "The", "cat", "sat", "on", "mat", ".", "a"])
SENTENCES = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES), min_size=1, max_size=5))
def test_wer_matches_jiwer(rows: list[tuple[str, str]]) -> None:
    jiwer = pytest.importorskip("jiwer")
    hyps, refs = (list(x) for x in zip(*rows, strict=True))
    ours = _ours(hyps, [refs])
    assert ours["WER"].system == pytest.approx(jiwer.wer(refs, hyps), abs=1e-12)
    np.testing.assert_allclose(ours["WER"].segments, [jiwer.wer(r, h) for h, r in rows], atol=1e-12)


@pytest.mark.parametrize("family_name", ["chrF", "TER", "WER-PER", "GTM"])
def test_bad_input_raises_input_error(family_name: str) -> None:
    from mteval.errors import InputError
    from mteval.metrics.registry import families
    family = families()[family_name]()
    with pytest.raises(InputError, match="no reference"):
        family.prepare([])
    prepared = family.prepare([Side("A", ["a b", "c"])])
    with pytest.raises(InputError, match="h: 1 segments"):
        family.score(Side("h", ["a"]), prepared, DocumentIndex.single(1), family.variants)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text("ab \t\x1c\xa0\u2009\x0b", max_size=8), st.text("abc \n\x85", max_size=8)),
                max_size=6))
def test_tokens_and_matched_words_equal_their_definitions(rows: list[tuple[str, str]]) -> None:
    # WER.pl's words (ASCII whitespace only) and PER's sum_w min(count_hyp(w), count_ref(w)), pair by pair
    for text in (t for row in rows for t in row):
        stripped = text.strip(" \t\n\r\f\v")
        assert tokenize(text) == (re.split(r"[ \t\n\r\f\v]+", stripped) if stripped else [])
    family = ErrorRates()
    hyp, ref = family._words([h for h, _ in rows]), family._words([r for _, r in rows])
    expected = [sum((Counter(h) & Counter(r)).values()) for h, r in zip(hyp, ref, strict=True)]
    assert matched_words(hyp, ref).tolist() == expected
