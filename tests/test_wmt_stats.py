"""WMT23/24 statistics (mteval.meta.stats.wmt_stats) at parity with google-research/mt-metrics-eval.

Expected numbers are ported from mt-metrics-eval's stats_test.py, tau_optimization_test.py and
pce (test names cited per test); the rest are properties and literal pair loops.
"""

from __future__ import annotations

import csv
import io
import itertools
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from helpers import ENDE, ende_config, run
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.errors import MtevalError
from mteval.meta.stats import wmt_stats as w
from mteval.meta.stats.correlation import pearson
from mteval.store.cache import ScoreCache

N = np.nan
# stats_test.CorrelationTest: Correlation(2, gold, metric) is a (2 systems, 3 items) matrix
GOLD = np.array([1, 2, 3, 4, 5, 6.]).reshape(2, 3)
METRIC = np.array([2, 1, 4, 3, 3, 7.]).reshape(2, 3)


def scipy_pearson(h: np.ndarray, m: np.ndarray) -> float:
    """Pearson as mt-metrics-eval's AverageCorrelation: NaN for a constant vector."""
    return pearson(h, m)


@pytest.mark.parametrize("average_by, expected", [("none", 0.776), ("sys", 0.760), ("item", 1.0)])
def test_pearson_averaging(average_by: str, expected: float) -> None:
    """CorrelationTest.testPearson."""
    assert w.average_correlation(scipy_pearson, GOLD, METRIC, average_by) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("average_by, b, c", [("none", 0.552, 0.556), ("sys", 0.575, 0.611), ("item", 1.0, 1.0)])
def test_kendall_b_and_c_averaging(average_by: str, b: float, c: float) -> None:
    """CorrelationTest.testKendall and testKendallC."""
    assert w.kendall_variants(GOLD, METRIC, "b", average_by=average_by) == pytest.approx(b, abs=5e-4)
    assert w.kendall_variants(GOLD, METRIC, "c", average_by=average_by) == pytest.approx(c, abs=5e-4)


def test_kendall_variants() -> None:
    """CorrelationTest.testKendallVariants."""
    g, m = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]
    assert w.kendall_variants(g, m, "b") == pytest.approx(0.316227766)
    assert w.kendall_variants(g, m, "c") == pytest.approx(0.32)
    assert w.kendall_variants(g, m, "23") == pytest.approx(0.2)
    assert w.kendall_variants(g, m, "acc23") == pytest.approx(0.6)
    assert w.kendall_variants(g, m, "acc23", epsilon=2) == pytest.approx(0.4)


def test_kendall_variants_b_and_c_equal_scipy() -> None:
    """CorrelationFunctionsTest.testKendallVariants_b_and_c."""
    gold, metric = [7, 1, 2, 7, 4, 3, 2], [4, 1, 3, 6, 1, 5, 6]
    for variant in ("b", "c"):
        assert w.kendall_variants(gold, metric, variant) == pytest.approx(
            scipy.stats.kendalltau(gold, metric, variant=variant)[0], abs=1e-12)


def test_kendall_variants_23_and_epsilon() -> None:
    """CorrelationFunctionsTest.testKendallVariants_23 and testKendallVariantsWithPositiveEpsilon
    (x is the human vector, y the metric; 21 pairs)."""
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    assert w.kendall_variants(x, y, "23") == pytest.approx((14 - 7) / 21)
    assert w.kendall_variants(x, y, "acc23") == pytest.approx((13 + 1) / 21)
    assert w.kendall_variants(x, y, "23", epsilon=0.1) == pytest.approx((14 - 7) / 21)
    # epsilon 1: 13 metric-tied pairs, 3 of them tied in both, 1 discordant, 7 concordant
    assert w.kendall_variants(x, y, "23", epsilon=1.0) == pytest.approx((7 + 3 - 1 - 10) / 21)
    assert w.kendall_variants(x, y, "23", epsilon=1.0) == pytest.approx(literal(x, y, "23", 1.0))


def test_kendall_like_and_agreement_counts() -> None:
    """CorrelationFunctionsTest.testAgreement: 5 of 10 pairs agree (ties agree with ties)."""
    gold, metric = [1, 2, 3, 3, 4], [1, 1, 2, 1, 2]
    counts = w.row_counts(w.flatten(gold, metric, "none"))
    assert counts[0, 0] + counts[0, 4] == 5 and counts.sum() == 10


def test_tie_calibration_matches_kendall_with_ties_opt() -> None:
    """CorrelationTest.testKendallWithTiesOpt (0.7) and CorrelationFunctionsTest.testKendallWithTiesOpt:
    the optimum equals KendallVariants at the returned epsilon, for none, sys and item."""
    assert w.tie_calibration([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], average_by="none").value == pytest.approx(0.7)
    gold, metric = np.array([1, 2, 2, 3, 3, 4.]), np.array([2, 1, 1.5, 5, 3, 2])
    for average_by in ("none", "sys", "item"):
        g, m = (gold, metric) if average_by == "none" else (gold.reshape(2, 3), metric.reshape(2, 3))
        result = w.tie_calibration(g, m, average_by=average_by)
        assert result.value == w.kendall_variants(g, m, "acc23", result.epsilon, average_by)


def test_tau_optimization_traces() -> None:
    """tau_optimization_test: zero and non-zero best thresholds, full traces."""
    best = w.tie_calibration([1, 2, 3, 4], [0, 2, 6, 8], average_by="none")
    assert list(best.thresholds) == [0, 2, 4, 6, 8]
    assert list(best.values) == pytest.approx([1, 4 / 6, 3 / 6, 1 / 6, 0])
    assert (best.epsilon, best.value) == (0, 1.0)
    best = w.tie_calibration([1, 1, 1, 4], [0, 2, 6, 8], average_by="none")
    assert list(best.values) == pytest.approx([3 / 6, 3 / 6, 4 / 6, 4 / 6, 3 / 6])
    assert best.epsilon == 4 and best.value == pytest.approx(4 / 6)


def test_tau_optimization_regression_example() -> None:
    """tau_optimization_test.test_regression_example (rows with missing values; an empty row)."""
    metric = [[0, 5, 2, 3, 2], [N, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [N] * 5]
    human = [[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, N, 3, 2], [N] * 5]
    result = w.tie_calibration(np.array(human), np.array(metric), average_by="sys")
    assert list(result.thresholds) == list(range(9))
    expected = [0.4666666666666667, 0.4916666666666668, 0.38333333333333347, 0.29166666666666674,
                0.2666666666666667, 0.2, 0.15833333333333335, 0.15833333333333335, 0.1166666666666667]
    assert list(result.values) == pytest.approx(expected, abs=1e-12)
    assert result.epsilon == 1 and result.value == pytest.approx(0.4916666666666668, abs=1e-12)


def test_tau_eq_is_two_acc_eq_minus_one() -> None:
    rng = np.random.default_rng(3)
    h, m = rng.integers(0, 4, (4, 30)).astype(float), np.round(rng.random((4, 30)), 1)
    acc, tau = w.tie_calibration(h, m, "acc23"), w.tie_calibration(h, m, "23")
    assert acc.epsilon == tau.epsilon and tau.value == pytest.approx(2 * acc.value - 1)


def test_soft_pairwise_accuracy() -> None:
    """CorrelationTest.testPairwiseConfidenceError (0.872) and pce_test (deterministic)."""
    gold = np.array([1, 2, 3, 2, 3, 4.]).reshape(2, 3)
    metric = np.array([2, 2, 4, 1, 3, 5.]).reshape(2, 3)
    assert w.soft_pairwise_accuracy(gold, metric) == pytest.approx(0.872, abs=5e-4)
    scores = np.random.default_rng(0).random((10, 100))
    np.testing.assert_array_equal(w.pairwise_p_values(scores, w.permutation_signs(100)),
                                  w.pairwise_p_values(scores, w.permutation_signs(100)))
    assert w.soft_pairwise_accuracy(gold, gold) == 1.0
    assert np.isnan(w.soft_pairwise_accuracy(gold[:1], metric[:1]))


def test_pairwise_p_values_equal_the_literal_permutation_test() -> None:
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 5, (3, 12)).astype(float)
    signs = w.permutation_signs(12, 200, seed=7)
    p = w.pairwise_p_values(scores, signs)
    for k, (i, j) in enumerate(itertools.combinations(range(3), 2)):
        null = [(s * scores[i]).sum() - (s * scores[j]).sum() for s in signs]
        assert p[k] == np.mean(np.asarray(null) >= scores[i].sum() - scores[j].sum())


def test_williams() -> None:
    """WilliamsSigDiffTest.testSigDiff and testSigDiffWithAvgAndNones."""
    def plain(h: np.ndarray, m: np.ndarray) -> float:
        return w.average_correlation(scipy_pearson, h, m, "none")

    p, r1, r2 = w.williams(np.array([1, 2, 3, 4, 5.]), np.array([1.1, 2, 3.1, 4, 5.1]),
                           np.array([1.5, 2, 3.1, 4, 5.5]), plain)
    assert (p, r1, r2) == pytest.approx((0.019, 0.999, 0.987), abs=5e-4)

    def by_item(h: np.ndarray, m: np.ndarray) -> float:
        return w.average_correlation(scipy_pearson, h, m, "item")

    gold = np.array([1, N, 3, 4, 5, 6]).reshape(3, 2)
    p, r1, r2 = w.williams(gold, np.array([1, 2, 3, 3, 7, 3.]).reshape(3, 2),
                           np.array([2, 1, 2, 6, 8, 8.]).reshape(3, 2), by_item)
    assert (p, r1, r2) == pytest.approx((0.121, 0.982, 0.933), abs=5e-4)
    assert w.williams_test(0.9, 0.8, 0.7, 50, one_sided=False) == pytest.approx(
        2 * w.williams_test(0.9, 0.8, 0.7, 50))


@pytest.mark.parametrize("replace, expected", [(False, 1.0), (True, 0.5)])
def test_nan_rows(replace: bool, expected: float) -> None:
    """AverageCorrelationTest.testNaNHandling / testNaNHandlingWithZeros."""
    g, m = np.array([1, 2, 3, 4, 5, 6.]).reshape(2, 3), np.array([2, 2, 2, 4, 5, 6.]).reshape(2, 3)
    assert w.average_correlation(scipy_pearson, g, m, "sys", replace) == pytest.approx(expected)


def test_averaging_with_missing_entries_and_micro() -> None:
    """AverageCorrelationTest.testAverageByItemWithMissingEntries and testMicroAveraging."""
    g, m = np.array([1, N, 3, 4, 5, 6]).reshape(2, 3), np.array([2, 1, 8, 3, 5, 6.]).reshape(2, 3)
    p1, p3 = scipy.stats.pearsonr([1, 4], [2, 3])[0], scipy.stats.pearsonr([3, 6], [8, 6])[0]
    assert w.average_correlation(scipy_pearson, g, m, "item") == pytest.approx((p1 + p3) / 2)
    q1, q2 = scipy.stats.pearsonr([1, 3], [2, 8])[0], scipy.stats.pearsonr([4, 5, 6], [3, 5, 6])[0]
    assert w.average_correlation(scipy_pearson, g, m, "sys", macro=False) == pytest.approx((2 * q1 + 3 * q2) / 5)
    assert w.kendall_variants(np.full((2, 3), N), m, "acc23", average_by="item") == 0.0  # nothing left: 0


def literal(h: list[float], m: list[float], variant: str, epsilon: float = 0.0) -> float:
    """KendallVariants of one vector by a literal pair loop."""
    c = d = th = tm = tb = 0
    for i, j in itertools.combinations(range(len(h)), 2):
        dh, dm = h[j] - h[i], m[j] - m[i]
        tie_m = abs(dm) <= epsilon
        if dh == 0 and tie_m:
            tb += 1
        elif dh == 0:
            th += 1
        elif tie_m:
            tm += 1
        elif (dh > 0) == (dm > 0):
            c += 1
        else:
            d += 1
    total = c + d + th + tm + tb
    return (c + tb) / total if variant == "acc23" else (c + tb - d - th - tm) / total


def literal_search(h: np.ndarray, m: np.ndarray) -> tuple[float, float]:
    """(best epsilon, best item-averaged acc_eq) by trying every candidate literally."""
    rows = [(hr[~(np.isnan(hr) | np.isnan(mr))], mr[~(np.isnan(hr) | np.isnan(mr))])
            for hr, mr in zip(h.T, m.T, strict=True)]
    rows = [(a, b) for a, b in rows if len(a) >= 2]
    diffs = {abs(b[j] - b[i]) for _, b in rows for i, j in itertools.combinations(range(len(b)), 2)}
    candidates = sorted({0.0} | diffs)
    best = (0.0, -1.0)
    for eps in candidates:
        value = float(np.mean([literal(list(a), list(b), "acc23", eps) for a, b in rows]))
        if value > best[1] + 1e-12:
            best = (eps, value)
    return best


scores = st.lists(st.sampled_from([0.0, 1.0, 2.0, 2.5, 4.0, N]), min_size=12, max_size=12)


@settings(max_examples=40, deadline=None)
@given(scores, st.lists(st.integers(0, 6), min_size=12, max_size=12))
def test_tie_calibration_equals_the_literal_search(human: list[float], metric: list[int]) -> None:
    h, m = np.array(human).reshape(3, 4), np.array(metric, dtype=float).reshape(3, 4) / 2
    result = w.tie_calibration(h, m, average_by="item")
    eps, value = literal_search(h, m)
    if value >= 0:
        assert result.epsilon == eps and result.value == pytest.approx(value, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(scores, st.lists(st.floats(-5, 5), min_size=12, max_size=12))
def test_epsilon_zero_is_the_untied_pairwise_accuracy(human: list[float], metric: list[float]) -> None:
    """acc_eq at epsilon 0 is pairwise accuracy (Agreement: sign(dh) == sign(dm)) and tau_eq
    2 acc - 1, pooled (none)."""
    h, m = np.array(human), np.array(metric)
    keep = ~np.isnan(h)
    pairs = list(itertools.combinations(np.flatnonzero(keep), 2))
    if not pairs:
        return
    agree = np.mean([np.sign(h[j] - h[i]) == np.sign(m[j] - m[i]) for i, j in pairs])
    assert w.kendall_variants(h, m, "acc23") == pytest.approx(agree)
    assert w.kendall_variants(h, m, "23") == pytest.approx(2 * agree - 1)


@settings(max_examples=30, deadline=None)
@given(scores, st.lists(st.integers(-20, 20), min_size=12, max_size=12), st.sampled_from(["none", "sys", "item"]))
def test_ranking_statistics_are_invariant_to_monotone_transforms(human: list[float], metric: list[int],
                                                                 average_by: str) -> None:
    """(Integer quarters: a strictly increasing transform stays strictly increasing in floats.)"""
    h, m = np.array(human).reshape(3, 4), np.array(metric, dtype=float).reshape(3, 4) / 4
    transformed = np.exp(m / 2) * 3 - 1
    for variant in ("acc23", "23", "b"):
        a = w.kendall_variants(h, m, variant, average_by=average_by)
        b = w.kendall_variants(h, transformed, variant, average_by=average_by)
        assert a == pytest.approx(b, abs=1e-12) or (np.isnan(a) and np.isnan(b))


def test_blocked_pairs_equal_all_pairs() -> None:
    """Pair enumeration in small blocks (the bounded-memory path of 'none') counts the same."""
    rng = np.random.default_rng(5)
    flat = w.flatten(rng.integers(0, 5, (3, 200)).astype(float), rng.integers(0, 9, (3, 200)).astype(float), "none")
    whole = w.row_counts(flat)
    blocked = np.zeros_like(whole)
    for i, j in w.pair_blocks(flat.row, chunk=997):
        cls = w.classify(flat.human[j] - flat.human[i], flat.metric[j] - flat.metric[i])
        blocked[0] += np.bincount(cls, minlength=5)
    np.testing.assert_array_equal(whole, blocked)
    assert whole.sum() == 600 * 599 // 2


def test_sampled_search_keeps_an_exact_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above MAX_SEARCH_PAIRS the search samples pairs; the value is exact at its epsilon."""
    rng = np.random.default_rng(2)
    h, m = rng.integers(0, 3, 300).astype(float), np.round(rng.random(300), 2)
    monkeypatch.setattr(w, "MAX_SEARCH_PAIRS", 5000)
    result = w.tie_calibration(h, m, average_by="none")
    assert result.value == pytest.approx(w.kendall_variants(h, m, "acc23", result.epsilon))


@pytest.mark.parametrize("digits", [1, 6])
def test_acc_eq_draws_equal_tie_calibration_on_the_resamples(digits: int) -> None:
    """Coarse (metric ties, few thresholds) and fine (a threshold per pair) metric scores."""
    rng = np.random.default_rng(4)
    h = rng.integers(0, 4, (5, 40)).astype(float)
    m = np.round(rng.random((5, 40)), digits)
    h[0, :3] = N
    counts = w.item_resamples(40, 6, seed=9)
    draws = w.acc_eq_draws(h, m, counts)
    for b, c in enumerate(counts):
        index = np.repeat(np.arange(40), c)
        assert draws[b] == pytest.approx(w.tie_calibration(h[:, index], m[:, index]).value, abs=1e-12)
    assert w.acc_eq_draws(h, m, counts, "23") == pytest.approx(2 * draws - 1)


def test_spa_draws_equal_spa_on_the_resamples() -> None:
    rng = np.random.default_rng(6)
    human = rng.integers(-5, 1, (4, 30)).astype(float)
    metrics = rng.random((2, 4, 30))
    draws = w.spa_draws(human, metrics, n=3, seed=11, n_permutations=200)
    again = np.random.default_rng(11)
    for b in range(3):
        index = again.integers(0, 30, 30)
        for k in range(2):
            assert draws[b, k] == pytest.approx(
                w.soft_pairwise_accuracy(human[:, index], metrics[k][:, index], n_permutations=200), abs=1e-12)
    low, high = w.percentile(draws[:, 0])
    assert low <= high


def test_bad_arguments() -> None:
    with pytest.raises(MtevalError, match="unknown averaging"):
        w.kendall_variants([1, 2], [1, 2], average_by="doc")
    with pytest.raises(MtevalError, match="tau-c"):
        w.kendall_variants([1, 2], [1, 2], "c", epsilon=1)
    with pytest.raises(MtevalError, match="acc23 and 23"):
        w.tie_calibration([1, 2], [1, 2], "b")
    with pytest.raises(MtevalError, match="sample rate"):
        w.tie_calibration([1, 2], [1, 2], sample_rate=0)
    with pytest.raises(MtevalError, match="differ in shape"):
        w.kendall_variants(np.ones((2, 3)), np.ones((3, 2)), average_by="sys")


# ---- through the installed iqeval, on the bundled WMT21 en-de sample (6 systems, MQM) ----

SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")
CLI_METRICS = ["BLEU", "chrF"]
MQM = ENDE / "human" / "mqm.tsv"


def tsv_rows(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wmt")
    config = ende_config(tmp, metrics=CLI_METRICS, systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def mqm_matrix() -> np.ndarray:
    out = np.full((len(SYSTEMS), 100), np.nan)
    for line in MQM.read_text(encoding="utf-8").splitlines()[1:]:
        system, segment, score = line.split("\t")
        out[SYSTEMS.index(system), int(segment) - 1] = float(score)
    return out


def test_cli_acc_eq_tau_eq_and_spa(experiment: Path) -> None:
    cache = ScoreCache(experiment.parent / "cache")
    human = mqm_matrix()
    seg = run("iqeval", "-assessments", str(MQM), "-G", "seg", "--corr", "acc_eq,tau_eq", "--resamples", "50",
              "--tsv", str(experiment))
    assert seg.returncode == 0, seg.stderr
    rows = {(r["correlation"], r["metric"]): r for r in tsv_rows(seg.stdout)}
    sys_out = run("iqeval", "-assessments", str(MQM), "-G", "sys", "--corr", "spa,acc_eq", "--resamples", "30",
                  "--tsv", str(experiment))
    assert sys_out.returncode == 0, sys_out.stderr
    sys_rows = {(r["correlation"], r["metric"]): r for r in tsv_rows(sys_out.stdout)}
    for metric in CLI_METRICS:
        segments = np.stack([cache.load(s, "A_C_D", metric).segments for s in SYSTEMS])
        expected = w.tie_calibration(human, segments, "acc23", "item")
        row = rows["acc_eq", metric]
        assert float(row["score"]) == pytest.approx(expected.value, abs=1e-9)
        assert float(row["epsilon"]) == pytest.approx(expected.epsilon, abs=1e-9)
        assert float(row["ci_low"]) <= float(row["score"]) <= float(row["ci_high"])
        assert float(rows["tau_eq", metric]["score"]) == pytest.approx(2 * expected.value - 1, abs=1e-9)
        spa = w.soft_pairwise_accuracy(human, segments)
        assert float(sys_rows["spa", metric]["score"]) == pytest.approx(spa, abs=1e-9)
        system = np.array([cache.load(s, "A_C_D", metric).system for s in SYSTEMS])
        assert float(sys_rows["acc_eq", metric]["score"]) == pytest.approx(
            w.tie_calibration(np.nanmean(human, axis=1), system, "acc23", "none").value, abs=1e-9)


def test_cli_williams_rows(experiment: Path) -> None:
    out = run("iqeval", "-assessments", str(MQM), "-G", "sys", "--corr", "pearson", "--significance",
              "--resamples", "20", "--tsv", str(experiment))
    assert out.returncode == 0, out.stderr
    williams = {r["metric"]: r for r in tsv_rows(out.stdout) if r["test"] == "williams"}
    assert set(williams) == {"BLEU>chrF", "chrF>BLEU"}
    p_ab, p_ba = float(williams["BLEU>chrF"]["p_value"]), float(williams["chrF>BLEU"]["p_value"])
    assert p_ab + p_ba == pytest.approx(1.0) and 0 <= p_ab <= 1


@pytest.mark.parametrize("text, corr, level, problem", [
    ("Facebook-AI\t1\t-1\nFacebok-AI\t2\t-1\n", "acc_eq", "seg", "bad.tsv:2: unknown system 'Facebok-AI'"),
    ("UEdin\t1\t-1\nUEdin\t1\t-2\n", "acc_eq", "seg", "bad.tsv:2: duplicate judgement of 'UEdin' segment 1"),
    ("UEdin\t101\t-1\n", "acc_eq", "seg", "bad.tsv:1: segment 101 is beyond the 100 segments"),
    ("UEdin\t1\tNaN\n", "acc_eq", "seg", "bad.tsv:1: score is 'NaN', not a finite number"),
    (None, "spa", "seg", "spa is a system-level statistic"),
    (None, "acc_eq,nonsense", "seg", "unknown correlation(s) ['nonsense']"),
])
def test_cli_bad_input(experiment: Path, tmp_path: Path, text: str | None, corr: str, level: str,
                       problem: str) -> None:
    path = MQM
    if text is not None:
        path = tmp_path / "bad.tsv"
        path.write_text(text, encoding="utf-8")
    out = run("iqeval", "-assessments", str(path), "-G", level, "--corr", corr, "--resamples", "5", str(experiment))
    assert out.returncode == 2 and problem in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
