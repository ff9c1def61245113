"""Correlations, significance tests and assessments readers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.errors import InputError, MtevalError
from mteval.io.assessments import read_assessments
from mteval.io.corpus import DocumentIndex
from mteval.meta.stats.correlation import (
    correlate,
    kendall,
    kendall_from_counts,
    kendall_wmt12,
    kendall_wmt20,
    mean_removed,
    pair_counts,
    pairwise_accuracy,
    pearson,
    spearman,
)
from mteval.meta.stats.significance import bootstrap_ci, paired_bootstrap, perm_both, system_bootstrap

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ASIYA = SHARED / "oracles" / "asiya-sample" / "assessments.csv"

vectors = st.integers(3, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 6), min_size=n, max_size=n), st.lists(st.integers(0, 6), min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(vectors)
def test_equal_to_scipy(pair):
    h, m = (np.asarray(v, dtype=float) for v in pair)
    checks = [(pearson(h, m), scipy.stats.pearsonr(h, m)[0] if np.std(h) and np.std(m) else np.nan),
              (spearman(h, m), scipy.stats.spearmanr(h, m)[0]),
              (kendall(h, m, "b"), scipy.stats.kendalltau(h, m, variant="b")[0]),
              (kendall(h, m, "c"), scipy.stats.kendalltau(h, m, variant="c")[0]),
              (kendall_from_counts(pair_counts(h, m), len(h), min(len(set(h)), len(set(m))), "b"),
               scipy.stats.kendalltau(h, m, variant="b")[0]),
              (kendall_from_counts(pair_counts(h, m), len(h), min(len(set(h)), len(set(m))), "c"),
               scipy.stats.kendalltau(h, m, variant="c")[0])]
    for ours, theirs in checks:
        if np.isnan(theirs):
            assert np.isnan(ours)
        else:
            assert ours == pytest.approx(theirs, abs=1e-12)


def test_wmt12_kendall_hand_computed():
    h = np.array([1, 2, 3, 3.0])
    m = np.array([0.1, 0.3, 0.3, 0.2])
    # pairs: (0,1) (0,2) (0,3) concordant; (1,2) metric tie -> discordant (penalised);
    # (1,3) discordant; (2,3) human tie -> ignored.  tau = (3 - 2) / (3 + 2) = 0.2
    assert kendall_wmt12(h, m) == pytest.approx(0.2)
    # WMT20 Kendall-like with threshold 1.5 keeps only (0,2) and (0,3), both concordant
    assert kendall_wmt20(h, m, thresh=1.5) == pytest.approx(1.0)
    assert kendall_wmt20(h, m, thresh=1.0) == pytest.approx(0.2)
    # pairwise accuracy: sign agreement on (0,1) (0,2) (0,3) only: 3 of 6
    assert pairwise_accuracy(h, m) == pytest.approx(0.5)


def test_nan_pairs_are_dropped():
    h = np.array([1, 2, np.nan, 4.0])
    m = np.array([1, 3, 2, np.nan])
    assert pearson(h, m) == pytest.approx(1.0)


def test_grouped_micro_and_macro():
    # two items of three systems each
    h = np.array([1, 2, 3, 3, 2, 1.0])
    m = np.array([1, 2, 3, 1, 2, 2.0])
    groups = np.array([0, 0, 0, 1, 1, 1])
    # item 0: 3 concordant; item 1: (3,2)v(1,2) dis, (3,1)v(1,2) dis, (2,1)v(2,2) metric tie -> dis
    assert correlate("kendall-wmt12", h, m, groups) == pytest.approx((3 - 3) / 6)
    macro = np.mean([pearson(h[:3], m[:3]), pearson(h[3:], m[3:])])
    assert correlate("pearson", h, m, groups) == pytest.approx(macro)


def test_mean_removed_and_weighted():
    values = np.array([1.0, 3.0, 10.0, 14.0])
    groups = np.array([0, 0, 1, 1])
    np.testing.assert_allclose(mean_removed(values, groups), [-1, 1, -2, 2])
    h, m, w = np.array([1, 2, 3.0]), np.array([1, 3, 2.0]), np.array([1, 2, 3.0])
    expanded = scipy.stats.pearsonr([1, 2, 2, 3, 3, 3], [1, 3, 3, 2, 2, 2])[0]
    assert pearson(h, m, w) == pytest.approx(expanded)  # integer weights = repeated points


def test_bootstrap_and_permutation():
    rng = np.random.default_rng(0)
    h = rng.normal(size=300)
    good, bad = h + rng.normal(scale=0.5, size=300), h + rng.normal(scale=3.0, size=300)
    units = np.arange(300)
    ci = bootstrap_ci("pearson", h, good, units, n=200)
    assert ci.low < ci.value < ci.high
    assert paired_bootstrap("pearson", h, good, bad, units, n=200).p_value < 0.05
    assert perm_both("pearson", h, good, bad, n=200).p_value < 0.05
    assert perm_both("pearson", h, bad, good, n=200).p_value > 0.5
    loop = perm_both("spearman", h, good, bad, n=50)
    assert loop.p_value < 0.05


@pytest.mark.parametrize(("n", "size", "chunk"), [(1001, 999, 7 * 999), (30, 7, 20), (5, 10, 1)])
def test_perm_pearson_blocks_draw_as_one_block(monkeypatch: pytest.MonkeyPatch, n: int, size: int,
                                               chunk: int) -> None:
    """The vectorised PERM-BOTH Pearson in row blocks: the same differences as one (n, size) block of
    coins, odd block sizes included."""
    from mteval.meta.stats import significance

    rng = np.random.default_rng(4)
    h = rng.normal(size=size)
    a, b = h + rng.normal(size=size), h + 1.2 * rng.normal(size=size)
    swap = np.random.default_rng(9).integers(0, 2, size=(n, size)).astype(bool)
    pearson = significance._rowwise_pearson
    one = pearson(h, np.where(swap, b, a)) - pearson(h, np.where(swap, a, b))
    monkeypatch.setattr(significance, "PERM_CHUNK", chunk)
    blocks = significance._perm_pearson(h, a, b, n, np.random.default_rng(9))
    assert np.array_equal(one, blocks)


def test_system_bootstrap():
    rng = np.random.default_rng(1)
    a = rng.random(200) + 0.2
    b = rng.random(200)
    result = system_bootstrap(a, b, n=300)
    assert result.delta == pytest.approx(a.mean() - b.mean())
    assert result.p_value < 0.05 and result.low < result.delta < result.high
    # statistics-based: ratio of summed counts
    stats_a = np.stack([a * 10, np.full(200, 10.0)], axis=1)
    stats_b = np.stack([b * 10, np.full(200, 10.0)], axis=1)
    by_stats = system_bootstrap(stats_a, stats_b, n=300, score_from_stats=lambda s: s[:, 0] / s[:, 1])
    assert by_stats.delta == pytest.approx(result.delta)
    with pytest.raises(MtevalError):
        system_bootstrap(a, b[:10])


def test_tsv_reader(tmp_path):
    path = tmp_path / "human.tsv"
    path.write_text("system segment score\nA 1 1.0\nA 2 3\nB 2 1\nB - 7\n", encoding="utf-8")
    ass = read_assessments(path, 3)
    np.testing.assert_array_equal(ass.segment_scores("A"), [1.0, 3.0, np.nan])
    assert ass.system == {"A": 2.0, "B": 7.0}
    path.write_text("A 4 0.5\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"human.tsv:1: segment 4 is beyond"):
        read_assessments(path, 3)
    path.write_text("A 1 good\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a number"):
        read_assessments(path, 3)


@pytest.mark.parametrize("text, problem", [
    ("A 1 0.5\nB 1 2\nA 1 1.5\n", r"human.tsv:3: duplicate judgement of 'A' segment 1 \(first at line 1\)"),
    ("A - 0.5\nA - 1.5\n", r"human.tsv:2: duplicate judgement of 'A' system-level score"),
    ("A 1 0.5\nZ 2 1\n", r"human.tsv:2: unknown system 'Z' \(the experiment has: A, B; --unknown-systems skip "),
    ("A 1 nan\n", r"human.tsv:1: score is 'nan', not a finite number"),
    ("A 1 inf\n", r"human.tsv:1: score is 'inf', not a finite number"),
    ("A 0 1\n", r"human.tsv:1: segment id '0' is not a positive integer"),
])
def test_tsv_bad_judgements(tmp_path, text, problem):
    """Issue 14: unknown systems or segments, duplicate rows, NaN scores: one line naming file and line."""
    path = tmp_path / "human.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=problem) as err:
        read_assessments(path, 3, systems=("A", "B"))
    assert "\n" not in str(err.value)


def test_csv_duplicate_judge_and_unknown_system(tmp_path):
    path = tmp_path / "a.csv"
    head = "# systemId,documentId,segmentId,judgeId,score\n"
    path.write_text(head + "S,,1,J,4\nS,,1,K,6\nS,,1,J,2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"a.csv:4: duplicate judgement of 'S' segment 1 by judge 'J' \(first at"):
        read_assessments(path, 3)
    path.write_text(head + "S,,1,J,4\nT,,1,J,6\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"a.csv:3: unknown system 'T'"):
        read_assessments(path, 3, systems=["S"])


def test_asiya_csv_by_document(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("# systemId,documentId,segmentId,judgeId,score\nS,d2,1,J,4\nS,d2,1,K,6\nS,,1,J,2\n",
                    encoding="utf-8")
    docs = DocumentIndex(("d1", "d2", "d2"))
    ass = read_assessments(path, 3, docs)
    np.testing.assert_array_equal(ass.segment_scores("S"), [2.0, 5.0, np.nan])


@pytest.mark.skipif(not ASIYA.exists(), reason="../shared (Asiya sample assessments) is absent")
def test_asiya_sample_assessments():
    ass = read_assessments(ASIYA, 3)
    assert set(ass.systems) == {"bing", "google", "apertium", "systran"}
    # bing segment 1: judges Jesus 7 and David 2 -> 4.5
    assert ass.segment_scores("bing")[0] == pytest.approx(4.5)
    assert ass.system["bing"] == pytest.approx(np.nanmean(ass.segment_scores("bing")))  # segment 3 unrated


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["kendall-wmt12", "kendall-wmt20", "accuracy"]))
def test_grouped_pair_statistics_equal_the_per_group_loop(seed, name):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    h, m = rng.integers(0, 60, n).astype(float), rng.integers(0, 5, n).astype(float)
    h[rng.random(n) < 0.1] = np.nan
    groups = rng.integers(0, 5, n)
    con = dis = agree = pairs = 0
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        for x in range(len(rows)):
            for y in range(x + 1, len(rows)):
                dh, dm = h[rows[y]] - h[rows[x]], m[rows[y]] - m[rows[x]]
                if np.isnan(dh):
                    continue
                pairs += 1
                agree += np.sign(dh) == np.sign(dm)
                counted = abs(dh) >= 25 if name == "kendall-wmt20" else dh != 0
                if counted:
                    con, dis = con + (dh * dm > 0), dis + (dh * dm <= 0)
    if name == "accuracy":
        expected = agree / pairs if pairs else np.nan
    else:
        expected = (con - dis) / (con + dis) if con + dis else np.nan
    got = correlate(name, h, m, groups)
    assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected)
    units = groups  # pairs stay inside units: the fast bootstrap path
    ci = bootstrap_ci(name, h, m, units, groups, n=50)
    assert np.isnan(got) or ci.low <= ci.high
