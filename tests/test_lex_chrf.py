"""chrF / chrF++ parity with sacreBLEU 2.6.0.

1. Every row of ``../shared/oracles/wmt21-ruen/sacrebleu.tsv`` for ``sacrebleu-chrF`` and
   ``sacrebleu-chrF++`` (10 systems x references A, B, A+B x (system + 500 segments)). The oracle
   prints Python ``repr`` floats (full precision), so system and segment scores must agree to 1e-9.
2. Edge cases and random sentences against the installed sacreBLEU (``sentence_chrf``, ``CHRF``).
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
from mteval.metrics.chrf import (
    CHAR_ORDER,
    WORD_ORDER,
    ChrF,
    _char_symbols,
    _matches,
    _sorted_matches,
    _word_symbols,
    split_punctuation,
)

sacrebleu = pytest.importorskip("sacrebleu")
ORACLE = SHARED / "oracles" / "wmt21-ruen" / "sacrebleu.tsv"
DATA = SHARED / "data" / "wmt21-ruen"
N_SEGMENTS = 500
VARIANTS = {"chrF": "sacrebleu-chrF", "chrF++": "sacrebleu-chrF++"}


@cache
def oracle() -> dict[tuple[str, str, str], dict[str, str]]:
    """(metric, target, refs) -> {segment or '-': printed score}."""
    return read_oracle(ORACLE, set(VARIANTS.values()))


_lines = ruen_lines


@cache
def computed() -> dict[tuple[str, str, str], object]:
    family = ChrF()
    refs = {"A": Side("A", _lines("refs/A.en")), "B": Side("B", _lines("refs/B.en"))}
    prepared = {"A": family.prepare([refs["A"]]), "B": family.prepare([refs["B"]]),
                "A+B": family.prepare([refs["B"], refs["A"]])}  # order given must not matter
    docs = DocumentIndex.single(N_SEGMENTS)
    out = {}
    for system in sorted({target for (_, target, _) in oracle()}):
        hyp = Side(system, _lines(f"sys/{system}.en"))
        for refset, prep in prepared.items():
            for variant, scores in family.score(hyp, prep, docs, family.variants).items():
                out[(variant, system, refset)] = scores
    return out


@needs_shared
@pytest.mark.shared
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_oracle_parity(variant: str) -> None:
    keys = [k for k in oracle() if k[0] == VARIANTS[variant]]
    assert len(keys) == 30
    n_values = 0
    for metric, system, refset in keys:
        rows = oracle()[(metric, system, refset)]
        ours = computed()[(variant, system, refset)]
        assert ours.system == pytest.approx(float(rows["-"]), abs=1e-9), (system, refset)
        expected = np.array([float(rows[str(i + 1)]) for i in range(N_SEGMENTS)])
        np.testing.assert_allclose(ours.segments, expected, rtol=0, atol=1e-9, err_msg=f"{system} {refset}")
        n_values += 1 + N_SEGMENTS
    assert n_values == 30 * 501


def _ours(hyps: list[str], refs: list[list[str]]) -> dict:
    family = ChrF()
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, DocumentIndex.single(len(hyps)), family.variants)


CASES = [
    ("", "The cat sat."),
    ("The cat sat.", ""),
    ("", ""),
    ("a", "a"),
    ("ab", "abcdefgh"),
    ("Hello, world!", "hello , world !"),
    ("(quoted) text's end.", "quoted (text) ends."),
    ("  spaces   everywhere ", "spaces everywhere"),
    ("über straße", "Über Strasse"),
]


@pytest.mark.parametrize(("hyp", "ref"), CASES)
def test_sentence_cases_match_sacrebleu(hyp: str, ref: str) -> None:
    ours = _ours([hyp], [[ref]])  # the same float operations in the same order: equal floats
    assert ours["chrF"].segments[0] == sacrebleu.sentence_chrf(hyp, [ref]).score
    assert ours["chrF++"].segments[0] == sacrebleu.sentence_chrf(hyp, [ref], word_order=2).score


def test_corpus_with_two_references_matches_sacrebleu() -> None:
    hyps = [h for h, _ in CASES]
    refs1 = [r for _, r in CASES]
    refs2 = list(reversed(refs1))
    ours = _ours(hyps, [refs1, refs2])
    from sacrebleu.metrics import CHRF
    assert ours["chrF"].system == CHRF().corpus_score(hyps, [refs1, refs2]).score
    assert ours["chrF++"].system == CHRF(word_order=2).corpus_score(hyps, [refs1, refs2]).score


def test_references_tied_but_for_rounding_are_chosen_as_sacrebleu_does() -> None:
    """The hypothesis scores 1.893939393939394 against the first reference and 1.8939393939393943
    (one unit in the last place more) against the second, with other statistics: sacreBLEU keeps
    the second, and so must we. Averaging the orders in another float order made the first win
    and moved the system score from 10.29 to 27.72 (until 2026-11-28)."""
    from sacrebleu.metrics import CHRF
    hyps = ["² 1,000 3-2 ａｂｃ", "the cat"]
    refs1 = ["² ＡＢＣ they", "the cat sat"]
    refs2 = ["what ²co-op2nd her  $5 x-ray &#39; into them* $5  's", "a cat"]
    assert CHRF().sentence_score(hyps[0], [refs1[0]]).score < CHRF().sentence_score(hyps[0], [refs2[0]]).score
    ours = _ours(hyps, [refs1, refs2])
    assert ours["chrF"].system == CHRF().corpus_score(hyps, [refs1, refs2]).score


TIE_HYPS = ["", "the cat sat on the mat"]  # the empty line scores 0 against both: a tie
TIE_A = ["a b c d e f g h", "the cat sat on a mat"]
TIE_C = ["x", "the cat is on the mat"]


def test_tied_references_go_to_the_first_given_not_the_first_by_name() -> None:
    """sacreBLEU keeps the first of equally good references, and its system score sums that one's
    statistics: references given C, A must score as ``corpus_score(hyps, [C, A])`` (71.35), not as
    A, C (53.84), whatever their names (until 2026-11-29 mteval took them by name)."""
    from sacrebleu.metrics import CHRF
    family = ChrF()
    for order in ([("z", TIE_C), ("a", TIE_A)], [("a", TIE_A), ("z", TIE_C)]):
        prepared = family.prepare([Side(name, texts) for name, texts in order])
        ours = family.score(Side("h", TIE_HYPS), prepared, DocumentIndex.single(2), family.variants)
        assert ours["chrF"].system == CHRF().corpus_score(TIE_HYPS, [texts for _, texts in order]).score
    assert CHRF().corpus_score(TIE_HYPS, [TIE_C, TIE_A]).score != CHRF().corpus_score(TIE_HYPS, [TIE_A, TIE_C]).score


def test_mteval_score_keeps_the_references_order(tmp_path) -> None:
    """The installed ``mteval score -r c.txt -r a.txt``: sacreBLEU's ``sacrebleu c.txt a.txt``."""
    from helpers import run
    from sacrebleu.metrics import CHRF
    for name, lines in (("hyp", TIE_HYPS), ("c", TIE_C), ("a", TIE_A)):
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run("mteval", "score", "-r", str(tmp_path / "c.txt"), "-r", str(tmp_path / "a.txt"), "-i",
               str(tmp_path / "hyp.txt"), "-m", "chrF", "-b", "-w", "6")
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.split()[0]) == pytest.approx(CHRF().corpus_score(TIE_HYPS, [TIE_C, TIE_A]).score,
                                                          abs=1e-6)


def test_split_punctuation() -> None:
    assert split_punctuation("Hello, (world) ! a") == ["Hello", ",", "(world", ")", "!", "a"]


WORDS = st.sampled_from(["the", "The", "cat", "sat", "on", "mat", ".", ",", "cat.", "(on", "a", "é"])
SENTENCES = st.lists(WORDS, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES, SENTENCES), min_size=1, max_size=4))
def test_random_sentences_match_sacrebleu(rows: list[tuple[str, str, str]]) -> None:
    hyps, r1, r2 = (list(x) for x in zip(*rows, strict=True))
    ours = _ours(hyps, [r1, r2])
    from sacrebleu.metrics import CHRF
    for variant, metric in (("chrF", CHRF()), ("chrF++", CHRF(word_order=2))):
        assert ours[variant].system == metric.corpus_score(hyps, [r1, r2]).score
        assert ours[variant].segments.tolist() == [metric.sentence_score(h, [a, b]).score for h, a, b in rows]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text("ab a.c\u00e9", max_size=9), st.text("aab .c", max_size=9)), max_size=6))
def test_one_sort_matches_equal_the_pairwise_definition(rows: list[tuple[str, str]]) -> None:
    hyps, refs = [h for h, _ in rows], [r for _, r in rows]
    for symbols, order in ((_char_symbols, CHAR_ORDER), (_word_symbols, WORD_ORDER)):
        sym = symbols(refs, hyps)[0]
        assert np.array_equal(_sorted_matches(sym, len(rows), order), _matches(sym, len(rows), order))


def test_chrf_alone_counts_no_words_and_keeps_its_statistics() -> None:
    family = ChrF()
    hyps, refs = ["the cat sat .", "a dog"], ["the cat sat on the mat .", "a dog !"]
    prepared = family.prepare([Side("A", refs)])
    alone = family.score(Side("h", hyps), prepared, DocumentIndex.single(2), ["chrF"])["chrF"]
    both = family.score(Side("h", hyps), prepared, DocumentIndex.single(2), ["chrF", "chrF++"])["chrF"]
    assert alone.stats.shape == (2, 3 * CHAR_ORDER) and np.array_equal(alone.stats, both.stats)
    assert alone.system == both.system and np.array_equal(alone.segments, both.segments)


def test_large_alphabet_takes_the_prefix_id_path_and_matches_sacrebleu() -> None:
    # 1000 distinct characters in a chunk: 6-gram codes would not fit in 63 bits (the prefix-id method counts)
    chars = [chr(0x4E00 + k) for k in range(1000)]
    hyps = ["".join(chars[k:k + 40]) for k in range(0, 1000, 40)]
    refs = ["".join(chars[k + 3:k + 43]) + " " + "".join(chars[k:k + 5]) for k in range(0, 1000, 40)]
    sym = _char_symbols(refs, hyps)[0]
    assert sym.size == 1000 and _sorted_matches(sym, len(hyps), CHAR_ORDER) is None
    ours = _ours(hyps, [refs])
    from sacrebleu.metrics import CHRF
    for variant, metric in (("chrF", CHRF()), ("chrF++", CHRF(word_order=2))):
        assert ours[variant].system == pytest.approx(metric.corpus_score(hyps, [refs]).score, abs=1e-9)
