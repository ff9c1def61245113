"""The vectorised paths of ROUGE (both families), the bootstrap and WER give the per-pair definitions' numbers.

Issue 35's speed work must leave every output byte-identical: each fast path is checked here against
the plain definition it replaces (Counter-based clipped hits, Perl's rounding through a formatted
string, the sequential drand48 and left-to-right sums, WER.pl's split), on random and real texts.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from helpers import ENDE, RUEN
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.io.corpus import DocumentIndex
from mteval.metrics import clipped_ngrams, rouge_bootstrap
from mteval.metrics.base import Side
from mteval.metrics.clipped_ngrams import clipped_ngram_hits
from mteval.metrics.error_rates import byte_words, tokenize
from mteval.metrics.rouge import (
    KINDS,
    RougeFamily,
    TokenIds,
    f_score,
    f_scores,
    pair_stats,
    rouge_tokens,
    round5,
    round5_array,
)
from mteval.metrics.rouge_scorer import RougeScore, best_score

REAL = [line for root, name in ((RUEN, "refs/A.en"), (RUEN, "sys/AFRL.en"), (ENDE, "refs/A.de"))
        for line in (root / name).read_text(encoding="utf-8").split("\n")[:-1]]
TEXT = st.one_of(st.text(alphabet="ab cA-.é\u00a0\t\n?!0", max_size=25), st.sampled_from(REAL))
IDS = st.lists(st.integers(0, 6), max_size=12)


def counter_hits(hyp: list[int], ref: list[int], n: int) -> int:
    """The definition: sum over n-grams of the smaller count."""
    def grams(seq: list[int]) -> Counter:
        return Counter(tuple(seq[i:i + n]) for i in range(len(seq) - n + 1))

    return sum((grams(hyp) & grams(ref)).values())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(IDS, IDS), max_size=8), st.integers(1, 30), st.sampled_from([1, 7, 2 ** 40]))
def test_clipped_hits_equal_the_counter_definition(pairs: list[tuple[list[int], list[int]]], block: int,
                                                   scale: int) -> None:
    hyps, refs = [[i * scale for i in h] for h, _ in pairs], [[i * scale for i in r] for _, r in pairs]
    orders = [1, 2, 3, 4, 5]
    saved = clipped_ngrams.BLOCK_TOKENS
    try:
        clipped_ngrams.BLOCK_TOKENS = block  # small blocks: many blocks, renumbered codes
        found = clipped_ngram_hits(hyps, refs, orders)
    finally:
        clipped_ngrams.BLOCK_TOKENS = saved
    expected = [[counter_hits(h, r, n) for n in orders] for h, r in zip(hyps, refs, strict=True)]
    assert found.tolist() == expected


def test_rounding_and_f_equal_perls_formatted_numbers() -> None:
    rng = np.random.default_rng(7)
    hits, totals = rng.integers(0, 80, 200_000), rng.integers(1, 80, 200_000)
    values = np.r_[rng.random(200_000), np.minimum(hits, totals) / totals, [0.000005, 0.123445, 0.5, 1.0, 0.0]]
    assert np.array_equal(round5_array(values), [round5(v) for v in values])
    hit, ref_total, hyp_total = (rng.integers(0, 40, 50_000).astype(float) for _ in range(3))
    hit = np.minimum(hit, np.minimum(ref_total, hyp_total))
    assert np.array_equal(f_scores(hit, ref_total, hyp_total),
                          [f_score(h, r, t, "N1") for h, r, t in zip(hit, ref_total, hyp_total, strict=True)])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=1, max_size=5))
def test_rouge155_family_equals_the_per_pair_definition(rows: list[tuple[str, str, str]]) -> None:
    hyps, refs_a, refs_b = ([row[k] for row in rows] for k in range(3))
    family = RougeFamily()
    kinds = set(KINDS.values())
    ids = TokenIds(True)
    for refs in ([refs_a], [refs_a, refs_b]):
        found = family.segment_f(Side("h", hyps), family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)]),
                                 kinds)
        for i, hyp in enumerate(hyps):
            assert [ids.tokens(ids.ids(t)) for t in (hyp, *[r[i] for r in refs])] == \
                [rouge_tokens(t) for t in (hyp, *[r[i] for r in refs])]
            sums = {k: [0.0, 0.0, 0.0] for k in kinds}
            for ref in refs:
                for kind, stats in pair_stats(rouge_tokens(hyp), rouge_tokens(ref[i]), kinds).items():
                    sums[kind] = [a + b for a, b in zip(sums[kind], stats, strict=True)]
            for kind in kinds:
                hit, ref_total, hyp_total = sums[kind]
                assert found[kind][i] == f_score(hit, ref_total, hyp_total, kind), (kind, i)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=1, max_size=5), st.booleans())
def test_rouge_score_family_equals_the_per_pair_definition(rows: list[tuple[str, str, str]], stem: bool) -> None:
    hyps, refs_a, refs_b = ([row[k] for row in rows] for k in range(3))
    family = RougeScore()
    names = [f"{k}(stem={'yes' if stem else 'no'},measure={m})" for k in family.variants
             for m in ("precision", "recall", "fmeasure")]
    found = family.score(Side("h", hyps), family.prepare([Side("a", refs_a), Side("b", refs_b)]),
                         DocumentIndex.single(len(hyps)), names)
    for name in names:
        kind, values = family.settings(name)
        field = ("precision", "recall", "fmeasure").index(values["measure"])
        expected = [best_score(kind, [a, b], h, stem)[field] for h, a, b in rows]
        assert found[name].segments.tolist() == expected, name


def test_drand48_and_bootstrap_equal_the_sequential_definitions() -> None:
    def streams(n_seeds: int, n_draws: int, first: int) -> np.ndarray:
        out = np.empty((n_seeds, n_draws))
        for s in range(n_seeds):
            x = ((first + s) << 16) + 0x330E
            for k in range(n_draws):
                x = (0x5DEECE66D * x + 0xB) % (1 << 48)
                out[s, k] = x / 2 ** 48
        return out

    for n_seeds, n_draws, first in ((3, 7, 0), (4, 300, 17), (2, 1500, 998)):
        found = rouge_bootstrap.drand48_streams(n_seeds, n_draws, first)
        assert np.array_equal(found, streams(n_seeds, n_draws, first))
    rng = np.random.default_rng(3)
    for n in (1, 2, 12, 101, 2500):
        order = np.array(sorted(range(1, n + 1), key=lambda i: f"{i}.X")) - 1
        rows = order[(streams(1000, n, 0) * n).astype(np.intp)] if n <= 101 else rouge_bootstrap.resample_rows(n)
        assert np.array_equal(rouge_bootstrap.resample_rows(n), rows)
        values = np.round(rng.random(n), 5)
        means = np.cumsum(values[rows], axis=1)[:, -1] / n  # left to right, as Perl adds
        assert rouge_bootstrap.bootstrap_average(values) == float(f"{np.cumsum(np.sort(means))[-1] / 1000:.5f}")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \t\n\r\x0b\x0c\x1c\x85\u00a0\u2009é", max_size=20))
def test_byte_words_are_wer_pl_words(text: str) -> None:
    assert [w.decode("utf-8") for w in byte_words(text)] == tokenize(text)


def test_token_ids_follow_rouge_tokens_on_real_text() -> None:
    ids = TokenIds(stem=True)
    lines = random.Random(5).sample(REAL, 200)
    assert [ids.tokens(ids.ids(t)) for t in lines] == [rouge_tokens(t) for t in lines]


@pytest.mark.parametrize("stem", [True, False])
def test_token_ids_of_edge_segments(stem: bool) -> None:
    ids = TokenIds(stem)
    for text in ("", "?", " . ", "-a --b c-", "caf\u00e9s' e-mail", "ÄÖÜ 42x"):
        assert ids.tokens(ids.ids(text)) == rouge_tokens(text, stem), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.lists(st.integers(0, 4), min_size=1, max_size=30))
def test_weighted_lcs_cell_by_cell_equals_the_numpy_rows(model: list[int], peer: list[int]) -> None:
    from mteval.metrics import rouge

    saved = rouge.WLCS_SMALL
    try:
        rouge.WLCS_SMALL = 0  # the numpy rows (long segments)
        rows = rouge.wlcs_hit(model, peer)
    finally:
        rouge.WLCS_SMALL = saved
    assert rouge.wlcs_hit(model, peer) == rows
