"""compare-mt's analyses of two systems (mteval/report/pair.py) and their HTML (pair_html.render_pair):
hand-computed cases, compare-mt's own numbers on a small case, and the bundled en-de sample."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from mteval.errors import ConfigError, InputError
from mteval.report import pair, pair_html
from mteval.report.pair import FREQ_CUTOFFS, LENGTH_CUTOFFS

ENDE = Path(__file__).resolve().parents[1] / "data" / "wmt21-ende-sample"

# A small case, whitespace words. The expected numbers are computed by hand below and are also what
# compare-mt (neulab/compare-mt at b6d8f79, FreqWordBucketer(freq_data=ref).calc_statistics and
# ngram_utils.compare_ngrams + stat_utils.extract_salient_features) prints for these lines.
REF = ["the cat sat on the mat", "a dog barked"]
HYP_A = ["the cat sat on a mat", "a dog barked loudly"]
HYP_B = ["a cat is on the mat", "the dog barked"]


def analyse(**options: object) -> pair.PairAnalysis:
    settings: dict[str, object] = {"tokenizer": "none", **options}
    return pair.pair_analysis("A", "B", HYP_A, HYP_B, [REF], None, [0.5, 0.2], [0.1, 0.9], "BLEU",
                              **settings)  # type: ignore[arg-type]


def test_bucket_labels_and_cutoffs_are_compare_mts() -> None:
    assert pair.bucket_labels(FREQ_CUTOFFS) == ("0", "1", "2", "3", "4", "5-9", "10-99", "100-999", "1000+")
    assert pair.bucket_labels(LENGTH_CUTOFFS) == ("<10", "10-19", "20-29", "30-39", "40-49", "50-59", "60+")
    values = (0, 1, 4, 5, 9, 10, 999, 1000, 5000)
    assert [pair.bucket_of(v, FREQ_CUTOFFS) for v in values] == [0, 1, 4, 5, 5, 6, 7, 8, 8]
    assert [pair.bucket_of(v, LENGTH_CUTOFFS) for v in (0, 9.5, 10, 59, 60)] == [0, 0, 1, 5, 6]


def test_word_accuracy_by_frequency_hand_case() -> None:
    """Frequencies in the reference: 'the' 2, every other reference word 1, 'loudly' and 'is' 0.
    A: bucket 1 has 7 reference words, 8 hypothesis words (cat sat on a mat a dog barked), all 7
    matched ('a' of segment 1 is not in its reference); bucket 2: 'the' twice in the reference, once
    in A, matched. B: bucket 1: 6 words, 5 matched (cat on mat dog barked); bucket 2: 'the' twice,
    matched once (segment 2 has no 'the')."""
    a, b = analyse().word_accuracy
    cells = {w.bucket: (w.ref_words, w.hyp_words, w.matched) for w in a.buckets}
    assert (cells["0"], cells["1"], cells["2"]) == ((0, 1, 0), (7, 8, 7), (2, 1, 1))
    one, two = a.buckets[1], a.buckets[2]
    assert (one.recall, one.precision) == (1.0, 7 / 8) and one.f_measure == pytest.approx(2 * 7 / 8 / (1 + 7 / 8))
    assert (two.recall, two.precision) == (0.5, 1.0) and two.f_measure == pytest.approx(2 / 3)
    assert (b.buckets[1].matched, b.buckets[1].hyp_words) == (5, 6)
    assert b.buckets[1].f_measure == pytest.approx(50 / 65)  # R 5/7, P 5/6 (compare-mt: 0.769231)
    assert (b.buckets[2].recall, b.buckets[2].precision, b.buckets[2].f_measure) == (0.5, 0.5, 0.5)
    assert a.buckets[0].f_measure == 0.0 and all(w.ref_words == 0 for w in a.buckets[3:])  # no match: 0
    clipped = pair.word_accuracy("s", [("the", "the", "the", "cat")], [[("the", "cat")], [("the", "the")]],
                                 {"the": 3, "cat": 1})
    cells = {w.bucket: (w.ref_words, w.hyp_words, w.matched) for w in clipped.buckets}
    assert cells["3"] == (3, 6, 3) and cells["1"] == (1, 2, 1)  # 'the': 1 + 2 matched of 3 + 3, pooled


def test_frequency_corpus_moves_words_between_buckets() -> None:
    corpus = ["cat " * 12, "the mat"]  # cat: 12 -> 10-99; the, mat: 1; everything else: 0
    a = analyse(freq_corpus=corpus).word_accuracy[0]
    cells = {w.bucket: (w.ref_words, w.hyp_words, w.matched) for w in a.buckets}
    assert cells["10-99"] == (1, 1, 1)
    assert cells["1"] == (3, 2, 2)  # reference: the the mat; A: the mat
    assert cells["0"] == (5, 7, 5)  # reference: sat on a dog barked; A: sat on a a dog barked loudly
    assert analyse(freq_corpus=corpus).frequency_source == "a frequency corpus of 2 lines"


def test_ngram_differences_hand_case() -> None:
    """A matches sat, a and the n-grams around them; B matches 'on the', 'the mat', 'on the mat'.
    compare-mt's salience (m_A + 1) / (m_A + m_B + 2): 2/3 for (1, 0), 1/3 for (0, 1)."""
    result = analyse()
    assert [d.ngram for d in result.ngrams_a] == ["a", "a dog", "a dog barked", "cat sat", "cat sat on", "sat",
                                                  "sat on", "the cat", "the cat sat", "the cat sat on"]
    assert all((d.matches_a, d.matches_b, d.salience_a) == (1, 0, pytest.approx(2 / 3)) for d in result.ngrams_a)
    assert [(d.ngram, d.order) for d in result.ngrams_b] == [("on the", 2), ("on the mat", 3), ("the mat", 2)]
    assert all(d.salience_a == pytest.approx(1 / 3) for d in result.ngrams_b)
    assert [d.ngram for d in analyse(top=2).ngrams_a] == ["a", "a dog"]


def test_ngram_ranking_and_reference_clipping() -> None:
    best, _ = pair.ngram_differences({("x",): 5, ("y",): 1, ("z",): 3}, {("x",): 1, ("y",): 0, ("z",): 3, ("w",): 2})
    assert [(d.ngram, d.salience_a) for d in best] == [("x", 6 / 8), ("y", 2 / 3)]  # z ties: in neither list
    hyp = [("a", "a", "a")]
    matches = pair.ngram_matches(hyp, [[("a", "b")], [("a", "a", "c")]])  # clipped by the largest count: 2
    assert matches[("a",)] == 2 and matches[("a", "a")] == 1 and ("a", "a", "a") not in matches


def test_length_ratio_and_brevity_penalty() -> None:
    """Closest reference length, the shorter on ties (5 words: 4 and 6 -> 4; 3 words: 4 and 8 -> 4)."""
    stats = pair.length_stats("s", [tuple("abcde"), tuple("xyz")], [[tuple("abcd"), tuple("abcd")],
                                                                     [tuple("abcdef"), tuple("abcdefgh")]])
    assert (stats.hyp_words, stats.ref_words, stats.ratio, stats.brevity_penalty) == (8, 8, 1.0, 1.0)
    short = pair.length_stats("s", [tuple("xyz")], [[tuple("abcd")], [tuple("abcdefgh")]])
    assert short.ratio == 0.75 and short.brevity_penalty == pytest.approx(math.exp(1 - 4 / 3))
    assert pair.length_stats("s", [()], [[tuple("ab")]]).brevity_penalty == 0.0
    assert analyse().lengths[0].ratio == pytest.approx(10 / 9)


def test_length_buckets_means_and_skipped() -> None:
    nan = float("nan")
    rows = pair.length_buckets([5, 9.5, 10, 25, 70], [0.1, 0.3, 0.5, nan, 0.2], [0.2, 0.2, 0.4, 0.3, 0.6])
    got = {b.bucket: (b.segments, b.score_a, b.score_b, b.skipped) for b in rows}
    assert got["<10"] == (2, pytest.approx(0.2), pytest.approx(0.2), 0)
    assert got["10-19"] == (1, 0.5, 0.4, 0) and got["20-29"] == (0, None, None, 1) and got["60+"] == (1, 0.2, 0.6, 0)
    with pytest.raises(InputError):
        pair.length_buckets([1, 2], [0.1], [0.2, 0.3])


def test_examples_follow_the_metric_direction() -> None:
    a, b = [0.1, 0.9, 0.5, float("nan")], [0.4, 0.2, 0.5, 0.1]
    assert pair.example_rows(a, b, True, 5) == ([1], [0])  # the tie (row 2) and the NaN row: neither
    assert pair.example_rows(a, b, False, 5) == ([0], [1])  # TER-like: lower is better
    result = analyse(examples=1)
    assert [e.segment for e in result.examples_a] == [1] and [e.segment for e in result.examples_b] == [2]
    assert result.examples_b[0].references == ("a dog barked",)
    assert result.examples_b[0].hypothesis_b == "the dog barked"
    numbered = analyse(segment_numbers=[11, 42])
    assert numbered.examples_a[0].segment == 11


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="hypotheses of B has 1 segments"):
        pair.pair_analysis("A", "B", HYP_A, HYP_B[:1], [REF], None, [0, 0], [0, 0], "BLEU")
    with pytest.raises(InputError, match="reference side 2"):
        pair.pair_analysis("A", "B", HYP_A, HYP_B, [REF, REF[:1]], None, [0, 0], [0, 0], "BLEU")
    with pytest.raises(InputError, match="at least one reference"):
        pair.pair_analysis("A", "B", HYP_A, HYP_B, [], None, [0, 0], [0, 0], "BLEU")
    with pytest.raises(ConfigError, match="tokenizer"):
        analyse(tokenizer="moses")
    with pytest.raises(InputError, match="frequency corpus"):
        pair.read_freq_corpus("/nonexistent/corpus.txt")


def test_13a_tokens_and_case() -> None:
    assert pair.tokenize(["Hello, World."]) == [("Hello", ",", "World", ".")]
    assert pair.tokenize(["Hello, World."], "none", case_sensitive=False) == [("hello,", "world.")]


def test_html_escapes_and_labels_plots() -> None:
    bad = "<script>alert(1)</script>"
    result = pair.pair_analysis(bad, "B&B", [f"x {bad}", "y"], ["x", "y"], [["x <b>", "y"]], [bad, "s"],
                                [1.0, 0.0], [0.0, 0.0], "chrF<>")
    html = pair_html.render_pair(result)
    assert "<script>" not in html and "<b>" not in html and "&lt;script&gt;" in html and "B&amp;B" in html
    assert html.count("<svg") == 2 and html.count("<details") == 4
    assert "Word accuracy by reference frequency" in html and "Mean segment score by reference length" in html
    sizes = [float(s) for s in re.findall(r"font-size: ([0-9.]+)px", html)]
    assert sizes and min(sizes) >= 10
    json.dumps(dataclasses.asdict(result))  # every field JSON-friendly


def test_sample_campaign_end_to_end() -> None:
    """The bundled en-de sample (100 segments, 3 references): the brevity penalty and n-gram matches
    agree with mteval's own BLEU statistics (mteval-v13a: closest reference length, clipped by the
    largest reference count), and the report fragment renders."""
    from mteval.metrics import registry
    from mteval.metrics.base import Side, StatsFamily
    from mteval.metrics.ngram_stats import HYP_LEN, MATCH, REF_LEN

    def read(path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").splitlines()
    refs = [read(ENDE / "refs" / f"{r}.de") for r in "ACD"]
    hyps = {s: read(ENDE / "sys" / f"{s}.de") for s in ("Facebook-AI", "UEdin")}
    bleu = registry.create("mteval-v13a")
    assert isinstance(bleu, StatsFamily)
    prepared = bleu.prepare([Side(r, t) for r, t in zip("ACD", refs, strict=True)])
    stats = {s: bleu.segment_stats(Side(s, t), prepared) for s, t in hyps.items()}
    scores = {s: bleu.scores_from_stats(st, "BLEU") for s, st in stats.items()}
    result = pair.pair_analysis("Facebook-AI", "UEdin", hyps["Facebook-AI"], hyps["UEdin"], refs,
                                read(ENDE / "src.en"), scores["Facebook-AI"], scores["UEdin"], "BLEU")
    system_bleu = {s: float(bleu.scores_from_stats(st.sum(axis=0)[None], "BLEU")[0]) for s, st in stats.items()}
    for length, (system, st) in zip(result.lengths, stats.items(), strict=True):
        assert (length.hyp_words, length.ref_words) == (st[:, HYP_LEN].sum(), st[:, REF_LEN].sum())
        matched = pair.ngram_matches(pair.tokenize(hyps[system]), [pair.tokenize(r) for r in refs])
        for n in range(1, 5):
            assert sum(c for g, c in matched.items() if len(g) == n) == st[:, MATCH][:, n - 1].sum()
    assert result.lengths[0].brevity_penalty < 1.0 == result.lengths[1].brevity_penalty
    assert system_bleu["Facebook-AI"] > system_bleu["UEdin"]
    words = sum(len(t) for t in pair.tokenize(hyps["UEdin"]))
    assert sum(w.hyp_words for w in result.word_accuracy[1].buckets) == 3 * words  # every reference side paired
    assert sum(b.segments for b in result.length_buckets) == 100
    assert len(result.ngrams_a) == len(result.ngrams_b) == 20 and len(result.examples_a) == 5
    assert all(e.score_a > e.score_b for e in result.examples_a) and result.examples_a[0].source
    html = pair_html.render_pair(result)
    assert "Facebook-AI vs UEdin" in html and html.count("<svg") == 2 and "<table" in html
    assert np.isfinite([w.f_measure for wa in result.word_accuracy for w in wa.buckets]).all()
