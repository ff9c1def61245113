"""BLEU/NIST edge cases and properties (mteval-v13a conventions, written out)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.bleu_nist import BleuNist

WORDS = st.lists(st.sampled_from(["the", "cat", "sat", "on", "a", "mat", ".", "dog"]), min_size=0, max_size=12)


def score(hyps: list[str], *refs: list[str], variants: tuple[str, ...] = ("BLEU", "NIST")) -> dict:
    family = BleuNist()
    prepared = family.prepare([Side(f"r{i}", r) for i, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, DocumentIndex.single(len(hyps)), variants)


def test_hand_computed_smoothing_against_empty_reference() -> None:
    # hyp 3 words, no reference n-grams: p1 = 1/(2*3), p2 = 1/(4*2), p3 = 1/(8*1), no 4-grams (log term 0),
    # BP = exp(min(0, 1 - 0/3)) = 1 -> BLEU = exp((ln 1/6 + ln 1/8 + ln 1/8 + 0) / 4)
    result = score(["a b c", ""], ["", ""])
    expected = math.exp((math.log(1 / 6) + 2 * math.log(1 / 8)) / 4)
    assert math.isclose(result["BLEU"].segments[0], expected, rel_tol=1e-12)
    assert result["BLEU"].segments[1] == 0.0 and result["NIST"].segments[0] == 0.0


def test_individual_order_without_ngrams_is_one() -> None:
    result = score(["cat sat"], ["the cat sat"], variants=("BLEUi-3", "BLEU-2"))
    assert result["BLEUi-3"].segments[0] == 1.0  # no 3-grams in the hypothesis: printed as 1
    assert math.isclose(result["BLEU-2"].segments[0], math.exp(1 - 3 / 2), rel_tol=1e-12)  # p1 = p2 = 1


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=4), st.lists(WORDS, min_size=1, max_size=4))
def test_properties(refs_a: list[list[str]], hyps: list[list[str]]) -> None:
    n = min(len(refs_a), len(hyps))
    ref = [" ".join(w) for w in refs_a[:n]]
    hyp = [" ".join(w) for w in hyps[:n]]
    other = list(reversed(ref))
    one = score(hyp, ref, other)
    swapped = score(hyp, other, ref)
    for v in ("BLEU", "NIST"):
        assert one[v].system == swapped[v].system  # order of references does not matter
        assert all(0 <= s for s in one[v].segments)
    assert 0 <= one["BLEU"].system <= 1
    identical = score(ref, ref)
    if all(len(r.split()) >= 4 for r in ref):
        assert math.isclose(identical["BLEU"].system, 1.0)
