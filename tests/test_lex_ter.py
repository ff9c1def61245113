"""TER parity with sacreBLEU 2.6.0 ``TER()`` (tercom-compatible, lower-cased, shifts).

1. Every ``sacrebleu-TER`` row of ``../shared/oracles/wmt21-ruen/sacrebleu.tsv`` (10 systems x
   references A, B, A+B x (system + 500 segments)); ``repr`` floats, so agreement to 1e-9.
2. Hand cases (shifts, empty sides, long hypotheses outside the beam) and random sentences against
   the installed sacreBLEU.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from conftest import SHARED, needs_shared
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import read_oracle, ruen_lines

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.ter import TER, ter_edits

sacrebleu = pytest.importorskip("sacrebleu")
ORACLE = SHARED / "oracles" / "wmt21-ruen" / "sacrebleu.tsv"
DATA = SHARED / "data" / "wmt21-ruen"
N_SEGMENTS = 500


@cache
def oracle() -> dict[tuple[str, str], dict[str, str]]:
    """(target, refs) -> {segment or '-': printed TER}."""
    return {k[1:]: v for k, v in read_oracle(ORACLE, {"sacrebleu-TER"}).items()}


_lines = ruen_lines


@pytest.mark.slow
@needs_shared
@pytest.mark.shared
def test_oracle_parity() -> None:
    family = TER()
    refs = {"A": Side("A", _lines("refs/A.en")), "B": Side("B", _lines("refs/B.en"))}
    prepared = {"A": family.prepare([refs["A"]]), "B": family.prepare([refs["B"]]),
                "A+B": family.prepare([refs["A"], refs["B"]])}
    docs = DocumentIndex.single(N_SEGMENTS)
    assert len(oracle()) == 30
    for (system, refset), rows in sorted(oracle().items()):
        scores = family.score(Side(system, _lines(f"sys/{system}.en")), prepared[refset], docs,
                              family.variants)
        assert scores["TER"].system == pytest.approx(float(rows["-"]), abs=1e-9), (system, refset)
        assert scores["-TER"].system == -scores["TER"].system
        expected = np.array([float(rows[str(i + 1)]) for i in range(N_SEGMENTS)])
        np.testing.assert_allclose(scores["TER"].segments, expected, rtol=0, atol=1e-9,
                                   err_msg=f"{system} {refset}")


def _ours(hyps: list[str], refs: list[list[str]], **kwargs) -> dict:
    family = TER(**kwargs)
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, DocumentIndex.single(len(hyps)), family.variants)


CASES = [
    ("", "the cat sat"),
    ("the cat sat", ""),
    ("", ""),
    ("The Cat", "the cat"),
    ("sat the cat on the mat", "the cat sat on the mat"),
    ("a b c d e f g h", "e f g h a b c d"),
    ("on the mat the cat sat quietly today", "the cat sat quietly on the mat today"),
    (" ".join(["x"] * 80) + " the end", "the end"),
    ("the end", " ".join(["y"] * 80) + " the end"),
]


@pytest.mark.parametrize(("hyp", "ref"), CASES)
def test_sentence_cases_match_sacrebleu(hyp: str, ref: str) -> None:
    ours = _ours([hyp], [[ref]])
    assert ours["TER"].segments[0] == pytest.approx(sacrebleu.sentence_ter(hyp, [ref]).score, abs=1e-9)


def test_shift_counts_as_one_edit() -> None:
    assert ter_edits((1, 2, 3, 4), (3, 4, 1, 2)) == 1
    assert ter_edits((), (1, 2)) == 2
    assert ter_edits((1, 2), ()) == 2


def test_case_sensitive_option_matches_sacrebleu() -> None:
    from sacrebleu.metrics import TER as SacreTER
    hyps, refs = ["The Cat sat", "a B c"], ["the cat Sat", "A b c"]
    ours = _ours(hyps, [refs], case_sensitive=True)
    assert ours["TER"].system == pytest.approx(
        SacreTER(case_sensitive=True).corpus_score(hyps, [refs]).score, abs=1e-9)


WORDS = st.sampled_from(["the", "The", "cat", "sat", "on", "mat", ".", "a", "dog", "ran"])
SENTENCES = st.lists(WORDS, max_size=14).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES, SENTENCES), min_size=1, max_size=4))
def test_random_sentences_match_sacrebleu(rows: list[tuple[str, str, str]]) -> None:
    from sacrebleu.metrics import TER as SacreTER
    hyps, r1, r2 = (list(x) for x in zip(*rows, strict=True))
    ours = _ours(hyps, [r1, r2])
    metric = SacreTER()
    assert ours["TER"].system == pytest.approx(metric.corpus_score(hyps, [r1, r2]).score, abs=1e-9)
    expected = [metric.sentence_score(h, [a, b]).score for h, a, b in rows]
    np.testing.assert_allclose(ours["TER"].segments, expected, rtol=0, atol=1e-9)
