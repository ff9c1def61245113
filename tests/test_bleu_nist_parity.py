"""BLEU/NIST parity with mteval-v13a (Asiya-modified) on ../shared/oracles/wmt21-ruen (500 segments,
10 systems, references A, B and A+B), every variant, system and segment level.

Printed precision: BLEU/NIST full precision (``%.15g``; NIST compared with relative tolerance 1e-12
because Perl's hash order changes its summation order, see the oracle README); the per-n variants
are printed with 4 decimals, so ours rounded to 4 decimals must equal them (ties at the 5th decimal
are allowed 1e-4). All 1000 lines (the shared oracle stops at 500): ``tests/test_parity_full_lines.py``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from conftest import SHARED, needs_shared
from oracles import read_oracle, ruen_lines

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.bleu_nist import BleuNist

pytestmark = [needs_shared, pytest.mark.shared]
ORACLE = SHARED / "oracles" / "wmt21-ruen" / "mteval.tsv"
DATA = SHARED / "data" / "wmt21-ruen"
N_SEGMENTS = 500


def oracle() -> dict[tuple[str, str, str], dict[str, str]]:
    """(metric, target, refs) -> {segment or '-': printed score}."""
    return read_oracle(ORACLE)


_lines = ruen_lines


@cache
def computed() -> dict[tuple[str, str, str], object]:
    family = BleuNist()
    refs = {"A": Side("A", _lines("refs/A.en")), "B": Side("B", _lines("refs/B.en"))}
    prepared = {"A": family.prepare([refs["A"]]), "B": family.prepare([refs["B"]]),
                "A+B": family.prepare([refs["A"], refs["B"]])}
    docs = DocumentIndex.single(N_SEGMENTS)
    out = {}
    systems = sorted({target for (_, target, _) in oracle()})
    for system in systems:
        hyp = Side(system, _lines(f"sys/{system}.en"))
        for refset, prep in prepared.items():
            for variant, scores in family.score(hyp, prep, docs, family.variants).items():
                out[(variant, system, refset)] = scores
    return out


def _check(key: tuple[str, str, str], printed: dict[str, str]) -> int:
    scores = computed()[key]
    metric = key[0]
    full = metric in ("BLEU", "NIST")
    checked = 0
    for segment, text in printed.items():
        ours = scores.system if segment == "-" else scores.segments[int(segment) - 1]
        expected = float(text)
        if full:
            assert ours == pytest.approx(expected, rel=1e-12, abs=1e-13), (key, segment)
        else:
            assert abs(round(ours, 4) - expected) <= 1.00001e-4, (key, segment, ours, text)
            assert abs(ours - expected) <= 5.0001e-5 + 1e-12, (key, segment, ours, text)
        checked += 1
    return checked


@pytest.mark.parametrize("metric", ["BLEU", "NIST", "BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4",
                                    "BLEUi-1", "BLEUi-2", "BLEUi-3", "BLEUi-4", "NIST-1", "NIST-2",
                                    "NIST-3", "NIST-4", "NIST-5", "NISTi-1", "NISTi-2", "NISTi-3",
                                    "NISTi-4", "NISTi-5"])
def test_every_oracle_row(metric: str) -> None:
    keys = [k for k in oracle() if k[0] == metric]
    assert keys, metric
    checked = sum(_check(k, oracle()[k]) for k in keys)
    assert checked >= 30  # every system row at least


def test_exact_four_decimals_mostly() -> None:
    """Rounded to the printed 4 decimals, ours equals the oracle on (nearly) every row."""
    mismatches = total = 0
    for key, printed in oracle().items():
        if key[0] in ("BLEU", "NIST"):
            continue
        scores = computed()[key]
        for segment, text in printed.items():
            ours = scores.system if segment == "-" else scores.segments[int(segment) - 1]
            total += 1
            mismatches += f"{ours:.4f}" != text
    assert total > 50000
    assert mismatches / total < 1e-3, (mismatches, total)


def test_bleu_equals_sacrebleu_corpus() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    hyp = _lines("sys/Facebook-AI.en")
    ref_a, ref_b = _lines("refs/A.en"), _lines("refs/B.en")
    ours = computed()[("BLEU", "Facebook-AI", "A+B")]
    theirs = sacrebleu.BLEU().corpus_score(hyp, [ref_a, ref_b]).score / 100
    assert np.isclose(ours.system, theirs, rtol=0, atol=1e-12)
