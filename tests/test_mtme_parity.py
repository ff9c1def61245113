"""Meta-evaluation statistics bit for bit against google-research/mt-metrics-eval.

Expected values: tests/data/mtme_parity/expected.json, computed by mt-metrics-eval's own functions
(``stats.py``, ``pce.py``, ``tau_optimization.py`` at the commit in its ``provenance``; the calls are
listed there, tests/data/mtme_parity/generate.py regenerates the file). The second half ports the
cases of their ``stats_test.py`` and ``tau_optimization_test.py`` (each test names its source).

Two oracles, one per float ``sum()``: Python 3.12 made the built-in ``sum()`` of floats compensated
(Neumaier), and mt-metrics-eval's tie search starts from one (``wmt_stats.mtme_search`` replays it),
so its last bits, and exact ties in permutation p-values, depend on the Python that runs it.
``expected.json`` was made on Python 3.11.7, ``expected-python3.13.json.xz`` by the same script and
commit on Python 3.13.0 (numpy 2.5.5, scipy 1.18.1); the tests read the one whose ``sum()`` this
Python shares, so the bit-equality holds on either side of 3.12.

Pearson's last bits also depend on the library versions: mteval replays scipy 1.17's ``pearsonr``
(both oracles were made with scipy >= 1.17). With an older scipy (Python 3.10 cannot have 1.17:
scipy 1.15.3 and numpy 2.2.6 there), the Pearson-based values are compared to 1e-12 (relative)
instead of bit for bit: they differed in the last bit or two on 3 of the checks here.
"""

from __future__ import annotations

import itertools
import json
import logging
import lzma
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.stats

from mteval.errors import MtevalError
from mteval.meta.stats import significance as s
from mteval.meta.stats import wmt_stats as w
from mteval.meta.stats.correlation import pearson

ORACLES = Path(__file__).parent / "data" / "mtme_parity"
COMPENSATED_SUM = sum([1.0, 1e100, 1.0, -1e100]) == 2.0  # Python >= 3.12's float sum()
DATA = ORACLES / ("expected-python3.13.json.xz" if COMPENSATED_SUM else "expected.json")
N = np.nan
SCIPY_PEARSON_BITS = tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 17)  # see the docstring


def same_bits(ours: float, theirs: float) -> bool:
    """Bit equality with scipy >= 1.17's Pearson arithmetic; within 1e-12 (relative) before it."""
    return ours == theirs if SCIPY_PEARSON_BITS else ours == pytest.approx(theirs, rel=1e-12, abs=1e-300)


@cache
def expected() -> dict[str, Any]:
    """The committed expectations made on a Python whose float ``sum()`` is this one's."""
    raw = lzma.decompress(DATA.read_bytes()) if DATA.suffix == ".xz" else DATA.read_bytes()
    return json.loads(raw.decode("utf-8"))


def matrix(rows: list[list[float | None]]) -> np.ndarray:
    """A JSON matrix, None as NaN."""
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=np.float64)


def test_provenance() -> None:
    provenance = expected()["provenance"]
    assert provenance["repository"] == "google-research/mt-metrics-eval"
    assert len(provenance["commit"]) == 40


# ---- 1. soft pairwise accuracy: their float32 tie rule ----

def test_spa_equals_mtme_bit_for_bit() -> None:
    """460 MQM-like cases (0.1 weights): PairwiseConfidenceError's values exactly (before the fix 157
    differed: by up to 0.08 with <= 5 segments, 0.017 with 20-100)."""
    cases = expected()["spa"]
    ours = [w.soft_pairwise_accuracy(matrix(c["human"]), matrix(c["metric"])) for c in cases]
    assert ours == [c["spa"] for c in cases]


def test_spa_cases_exercise_exact_ties() -> None:
    """The cases are ones where the tie rule matters: the exact rule gives other values on many."""
    cases = expected()["spa"][:400]
    exact = [w.soft_pairwise_accuracy(matrix(c["human"]), matrix(c["metric"]), ties="exact") for c in cases]
    differing = sum(e != c["spa"] for e, c in zip(exact, cases, strict=True))
    assert differing > 100


def literal_p_values(scores: np.ndarray, signs: np.ndarray) -> list[float]:
    """The permutation test in rational arithmetic on the decimals the scores print as."""
    x = [[Fraction(repr(float(v))) for v in row] for row in scores]
    out = []
    for i, j in itertools.combinations(range(len(x)), 2):
        observed = sum(x[i]) - sum(x[j])
        null = [sum(Fraction(int(s)) * (a - b) for s, a, b in zip(sign, x[i], x[j], strict=True)) for sign in signs]
        out.append(sum(n >= observed for n in null) / len(signs))
    return out


def test_exact_tie_rule_is_rational_arithmetic() -> None:
    rng = np.random.default_rng(5)
    for _ in range(6):
        scores = -np.round(rng.poisson(1.0, (3, 4)) * 1.0 + rng.poisson(1.0, (3, 4)) * 0.1, 1)
        signs = w.permutation_signs(4, 64, seed=int(rng.integers(100)))
        assert list(w.pairwise_p_values(scores, signs, ties="exact")) == literal_p_values(scores, signs)
    assert list(w.decimal_integers(np.array([0.1 * 3, 6.1, -5.1]))) == [300_000_000, 6_100_000_000, -5_100_000_000]


def test_spa_draws_use_the_tie_rule() -> None:
    case = expected()["spa"][3]
    h, m = matrix(case["human"]), matrix(case["metric"])
    for ties in w.TIE_RULES:
        draws = w.spa_draws(h, m[None], n=2, seed=3, ties=ties)
        index = np.random.default_rng(3).integers(0, h.shape[1], h.shape[1])
        assert draws[0, 0] == w.soft_pairwise_accuracy(h[:, index], m[:, index], ties=ties)
    with pytest.raises(MtevalError, match="tie rule"):
        w.pairwise_p_values(h, w.permutation_signs(h.shape[1]), ties="round")


# ---- 2. Williams' test and Pearson ----

def test_williams_equals_mtme() -> None:
    """WilliamsSigDiff with scipy's pearsonr: p, r1, r2 exactly (our Pearson is scipy's arithmetic);
    identical metrics give 0.5 where theirs gives 0.5 or NaN (rounding of a zero denominator)."""
    identical_nan = 0
    for c in expected()["williams"]:
        g, a, b = (np.array(c[k]) for k in ("gold", "a", "b"))
        p, r1, r2 = w.williams(g, a, b, pearson)
        assert same_bits(r1, c["r1"]) and same_bits(r2, c["r2"])
        if np.array_equal(a, b):
            assert p == 0.5 and c["p"] in (0.5, None)
            identical_nan += c["p"] is None
        elif c["p"] is None:
            assert np.isnan(p)
        else:
            assert same_bits(p, c["p"])
    assert identical_nan > 0


def test_pearson_is_scipys_arithmetic() -> None:
    rng = np.random.default_rng(2)
    for n in (2, 3, 4, 5, 50):
        for _ in range(20):
            x = rng.normal(size=n) * 10 ** rng.uniform(-3, 3)
            y = np.round(x + rng.normal(0, 10 ** rng.uniform(-8, 1), n), 1)
            if np.ptp(y):
                assert same_bits(pearson(x, y), scipy.stats.pearsonr(x, y)[0])


def test_williams_identical_metrics() -> None:
    g, a = np.array([1, 2, 3, 4, 5.]), np.array([1.1, 2, 3.1, 4, 5.1])
    assert w.williams(g, a, a.copy(), pearson)[0] == 0.5
    assert w.williams_test(0.9, 0.9, 1.0, 10, one_sided=False) == 1.0


# ---- 3. tie calibration: their loop replayed, and the exact search ----

def test_tie_calibration_search_mtme_is_bit_equal() -> None:
    for c in expected()["tau"]:
        result = w.tie_calibration(matrix(c["human"]), matrix(c["metric"]), c["variant"], c["average_by"],
                                   search="mtme")
        assert list(result.thresholds) == c["thresholds"] and list(result.values) == c["taus"]
        assert (result.epsilon, result.value) == (c["epsilon"], c["value"])


def test_tie_calibration_exact_search_differs_only_in_rounding() -> None:
    """The default search: the same thresholds, values within 1e-13 (their running sum drifts), and
    the smallest of the epsilons whose values tie exactly (theirs: the first of the rounded running
    sums, which may be larger)."""
    later = 0
    for c in expected()["tau"]:
        result = w.tie_calibration(matrix(c["human"]), matrix(c["metric"]), c["variant"], c["average_by"])
        assert list(result.thresholds) == c["thresholds"]
        assert np.allclose(result.values, c["taus"], rtol=0, atol=1e-13)
        assert result.value == pytest.approx(c["value"], abs=1e-15) and result.epsilon <= c["epsilon"]
        later += result.epsilon < c["epsilon"]
    assert later < len(expected()["tau"]) // 10


def test_tie_calibration_without_pairs_is_nan(caplog: pytest.LogCaptureFixture) -> None:
    """tau_eq/acc_eq with no pair: NaN and a warning (their tau_optimization divides by zero)."""
    human, metric = np.array([[1.0, N], [N, 2.0]]), np.array([[1.0, 2.0], [3.0, 4.0]])
    for search in w.SEARCHES:
        for variant in ("acc23", "23"):
            with caplog.at_level(logging.WARNING, logger="mteval.meta.stats.wmt_stats"):
                result = w.tie_calibration(human, metric, variant, "item", search=search)
            assert np.isnan(result.value) and "no row (average_by=item) has two entries" in caplog.text
            caplog.clear()


# ---- 4. permutation tests: PermutationSigDiff, PairwisePermutationSigDiff ----

@pytest.mark.parametrize("index", range(29))
def test_permutation_tests_equal_mtme(index: int) -> None:
    """Their coins (``stream="mtme"``, after np.random.seed(seed)): p, delta and every draw exactly,
    early stopping included (blocks of 50, 0.02 / 0.5)."""
    c = expected()["permutation"][index]
    h, a, b = matrix(c["human"]), matrix(c["a"]), matrix(c["b"])
    if c["test"] == "scores":
        result = s.permutation_sig_diff(c["statistic"], h, a, b, c["average_by"], c["k"],
                                        s.EarlyStop(c["block"], 0.02, 0.5), seed=c["seed"], stream="mtme",
                                        epsilon=c["epsilon"] if "epsilon" in c else 0.0, search="mtme")
    else:
        result = s.pairwise_permutation_sig_diff(h, a, b, c["statistic"], c["average_by"], c["k"],
                                                 s.EarlyStop(c["block"]), c["epsilon_a"], c["epsilon_b"],
                                                 seed=c["seed"], stream="mtme", search="mtme")
    assert (result.p_value, result.delta) == (c["p"], c["delta"])
    assert result.draws.tolist() == c["draws"]


# ---- 5. averaged correlations with p-values; pairwise-difference Pearson ----

def test_average_correlation_with_p_and_pdp() -> None:
    for c in expected()["correlation"]:
        h, m = matrix(c["human"]), matrix(c["metric"])
        got = w.average_correlation_with_p(w.scipy_statistic(c["statistic"]), h, m, c["average_by"],
                                           c["replace_nans_with_zeros"], c["macro"])
        assert same_bits(got.value, c["value"]) and got.weight == c["weight"]
        assert same_bits(got.p_value, c["p"]) if c["p"] is not None else np.isnan(got.p_value)
        pdp = w.pairwise_diff_pearson(h, m, c["average_by"])
        assert pdp == pytest.approx(c["pdp"], abs=1e-13) if c["pdp"] is not None else np.isnan(pdp)


# ---- ported from mt-metrics-eval's stats_test.py and tau_optimization_test.py ----

GOLD = np.array([1, 2, 3, 4, 5, 6.]).reshape(2, 3)
METRIC = np.array([2, 1, 4, 3, 3, 7.]).reshape(2, 3)


@pytest.mark.parametrize("average_by, value", [("item", 0.926), ("none", 0.776), ("sys", 0.766)])
def test_pearson_pdp(average_by: str, value: float) -> None:
    """CorrelationTest.testPearsonPdp."""
    assert w.pairwise_diff_pearson(GOLD, METRIC, average_by) == pytest.approx(value, abs=5e-4)


def test_pdp_with_averaging_and_nones() -> None:
    """AverageCorrelationTest.testPdpWithAveragingAndNones and testPDPLessThanTwoSystems."""
    g, m = np.array([1, 5, N, 10, 2, 12]).reshape(2, 3), np.array([3, 15, 1, 20, 4, 24.]).reshape(2, 3)
    assert w.pairwise_diff_pearson(g, m, "item") == pytest.approx(0.968, abs=5e-4)
    assert w.pairwise_diff_pearson(g, m, "none") == pytest.approx(0.975, abs=5e-4)
    with pytest.raises(MtevalError, match="at least 2 entries per row"):
        w.pairwise_diff_pearson(g.reshape(1, 6), m.reshape(1, 6), "item")


def test_pdp_is_pearson_of_their_enumerated_differences() -> None:
    """AverageCorrelationTest.testEnumeratePairwiseDiffs: the differences they list for one segment
    of four systems and for two segments with missing human scores; PDP is their Pearson."""
    human = [0.0, 1.0, 2.0, 3.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0, -3.0, -2.0, -1.0, 0.0]
    metric = [0.0, -1.0, 6.0, 1.0, 1.0, 0.0, 7.0, 2.0, -6.0, -7.0, 0.0, -5.0, -1.0, -2.0, 5.0, 0.0]
    g, m = np.array([[1, 2, 3, 4.]]).T, np.array([[2, 1, 8, 3.]]).T
    assert w.pairwise_diff_pearson(g, m, "item") == pytest.approx(scipy.stats.pearsonr(human, metric)[0], abs=1e-15)
    human2 = [0, 1, None, -1, 0, None, None, None, None, 0, None, 2, None, None, None, -2, None, 0]
    metric2 = [0, -1, 6, 1, 0, 7, -6, -7, 0, 0, 2, 3, -2, 0, 1, -3, -1, 0]
    keep = [k for k, v in enumerate(human2) if v is not None]
    g2, m2 = np.array([[1, 2, N], [4, N, 6]]).T, np.array([[2, 1, 8], [3, 5, 6.]]).T
    assert w.pairwise_diff_pearson(g2, m2, "item") == pytest.approx(
        scipy.stats.pearsonr([human2[k] for k in keep], [metric2[k] for k in keep])[0], abs=1e-15)


def test_average_by_with_p_values() -> None:
    """AverageCorrelationTest.testAverageBySystem, testAverageByItemWithMissingEntries, testMicroAveraging
    (the p-values too) and testAverageByNone (= pearsonr)."""
    g, m = np.array([1, 2, 3, 4, 5, 6.]).reshape(2, 3), np.array([2, 1, 8, 3, 5, 6.]).reshape(2, 3)
    p1, p2 = scipy.stats.pearsonr([1, 2, 3], [2, 1, 8]), scipy.stats.pearsonr([4, 5, 6], [3, 5, 6])
    got = w.average_correlation_with_p(w.scipy_statistic("pearson"), g, m, "sys")
    assert (got.value, got.p_value) == pytest.approx(((p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2), abs=5e-4)
    g[0, 1] = N
    q1, q3 = scipy.stats.pearsonr([1, 4], [2, 3]), scipy.stats.pearsonr([3, 6], [8, 6])
    got = w.average_correlation_with_p(w.scipy_statistic("pearson"), g, m, "item")
    assert (got.value, got.p_value) == pytest.approx(((q1[0] + q3[0]) / 2, (q1[1] + q3[1]) / 2), abs=5e-4)
    r1, r2 = scipy.stats.pearsonr([1, 3], [2, 8]), scipy.stats.pearsonr([4, 5, 6], [3, 5, 6])
    got = w.average_correlation_with_p(w.scipy_statistic("pearson"), g, m, "sys", macro=False)
    assert (got.value, got.p_value) == pytest.approx(((2 * r1[0] + 3 * r2[0]) / 5, (2 * r1[1] + 3 * r2[1]) / 5))
    flat = w.average_correlation_with_p(w.scipy_statistic("pearson"), [1, 2, 3, 4, 5, 6.], [2, 1, 4, 3, 5, 6.])
    assert (flat.value, flat.p_value) == tuple(scipy.stats.pearsonr([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 5, 6]))


PERM_GOLD = np.array([1, 2, 3, 4, 5, 5, 7, 8.]).reshape(4, 2)
PERM_1 = np.array([1, 2, 3, 3, 7, 3, 5, 5.]).reshape(4, 2)
PERM_2 = np.array([2, 1, 2, 6, 8, 8, 7, 6.]).reshape(4, 2)


def test_permutation_no_early_stop() -> None:
    """PermutationSigDiffTest.testPearsonNoAvgNoEarlyStop (their corr2 = our A)."""
    result = s.permutation_sig_diff("pearson", PERM_GOLD, PERM_2, PERM_1, "none", 1000)
    delta = scipy.stats.pearsonr(PERM_2.ravel(), PERM_GOLD.ravel())[0] - scipy.stats.pearsonr(
        PERM_1.ravel(), PERM_GOLD.ravel())[0]
    assert result.p_value > 0 and result.delta == pytest.approx(delta) and len(result.draws) == 1000
    assert result.p_value == np.mean(result.draws[:, 0] - result.draws[:, 1] >= result.delta)


def test_permutation_early_stop() -> None:
    """PermutationSigDiffTest.testPearsonNoAvgWithEarlyStop: blocks of 50, early_max 0.2."""
    result = s.permutation_sig_diff("pearson", PERM_GOLD, PERM_2, PERM_1, "none", 1000, s.EarlyStop(50, 0.02, 0.2))
    assert result.p_value > 0.2 and len(result.draws) < 1000 and len(result.draws) % 50 == 0
    assert result.p_value == np.mean(result.draws[:, 0] - result.draws[:, 1] >= result.delta)


@pytest.mark.parametrize("name, average_by", [("pearson", "sys"), ("pearson", "item"), ("kendall", "item"),
                                              ("kendall-c", "item"), ("23", "item"), ("acc23", "item"),
                                              ("acc_eq", "item")])
def test_permutation_averaged(name: str, average_by: str) -> None:
    """PermutationSigDiffTest.testPearsonSys/Item, testKendallItem, testKendallC, testKendallVariants23,
    testKendallVariantsAcc23, testTauOptimization: delta = the difference of the averaged statistics."""
    result = s.permutation_sig_diff(name, PERM_GOLD, PERM_2, PERM_1, average_by, 10, s.EarlyStop(10))
    statistic = s.matrix_statistic(name, average_by)
    assert result.delta == pytest.approx(statistic(PERM_GOLD, PERM_2) - statistic(PERM_GOLD, PERM_1))
    assert 0 < result.p_value <= 1 and len(result.draws) == 10
    if name == "kendall":
        taus = [scipy.stats.kendalltau(PERM_GOLD[:, i], m[:, i])[0] for m in (PERM_2, PERM_1) for i in range(2)]
        assert result.delta == pytest.approx((taus[0] + taus[1]) / 2 - (taus[2] + taus[3]) / 2)


PAIR_GOLD = np.array([1, 3, 3, 3, 1, 2, 1, 2.]).reshape(4, 2)
PAIR_1 = np.array([2, 4, 6, 6, 2, 6, 3, 7.]).reshape(4, 2)
PAIR_2 = np.array([1, 5, 4, 4, 4, 3, 2, 1.]).reshape(4, 2)


def test_pairwise_permutation() -> None:
    """PairwisePermutationSigDiffTest.testKendallVariantsAcc23 and testKendallVariantsB."""
    result = s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_2, PAIR_1, "acc23", "item", k=10)
    delta = (w.tie_calibration(PAIR_GOLD, PAIR_2, "acc23", "item").value
             - w.tie_calibration(PAIR_GOLD, PAIR_1, "acc23", "item").value)
    assert result.delta == pytest.approx(delta) and result.p_value > 0 and len(result.draws) == 10
    assert result.p_value == np.mean(result.draws[:, 0] - result.draws[:, 1] >= result.delta)
    b = s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_2, PAIR_1, "b", "item", k=10, epsilon_a=1, epsilon_b=1)
    assert b.delta == pytest.approx(w.kendall_variants(PAIR_GOLD, PAIR_2, "b", 1, "item")
                                    - w.kendall_variants(PAIR_GOLD, PAIR_1, "b", 1, "item"))
    with pytest.raises(MtevalError, match="acc23, 23 and b"):
        s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_2, PAIR_1, "c")
    with pytest.raises(MtevalError, match="no calibrated epsilon"):
        s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_2, PAIR_1, "b")


def test_pairwise_permutation_numpy_stream_is_a_permutation_test() -> None:
    """A metric against itself: every draw ties (p = 1); the stream is seeded."""
    same = s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_1, PAIR_1.copy(), k=50, seed=3)
    assert same.p_value == 1.0 and same.delta == 0.0
    again = s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_2, PAIR_1, k=50, seed=3)
    assert np.array_equal(again.draws, s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_2, PAIR_1, k=50, seed=3).draws)
    with pytest.raises(MtevalError, match="random stream"):
        s.pairwise_permutation_sig_diff(PAIR_GOLD, PAIR_2, PAIR_1, k=5, stream="python")


def test_tau_optimization_traces_exactly() -> None:
    """tau_optimization_test: test_zero_threshold_is_best, test_nonzero_threshold_is_best,
    test_regression_example (assertEqual on traces, with search="mtme")."""
    best = w.tie_calibration([1, 2, 3, 4], [0, 2, 6, 8], average_by="none", search="mtme")
    assert list(best.values) == [6 / 6, 4 / 6, 3 / 6, 1 / 6, 0 / 6] and (best.epsilon, best.value) == (0, 1.0)
    best = w.tie_calibration([1, 1, 1, 4], [0, 2, 6, 8], average_by="none", search="mtme")
    assert list(best.values) == [3 / 6, 3 / 6, 4 / 6, 4 / 6, 3 / 6] and (best.epsilon, best.value) == (4, 4 / 6)
    metric = [[0, 5, 2, 3, 2], [N, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [N] * 5]
    human = [[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, N, 3, 2], [N] * 5]
    result = w.tie_calibration(np.array(human), np.array(metric), average_by="sys", search="mtme")
    assert list(result.thresholds) == list(range(9))
    assert list(result.values) == [0.4666666666666667, 0.4916666666666668, 0.38333333333333347,
                                   0.29166666666666674, 0.2666666666666667, 0.2, 0.15833333333333335,
                                   0.15833333333333335, 0.1166666666666667]
    assert (result.epsilon, result.value) == (1, 0.4916666666666668)


def test_tau_optimization_sampling() -> None:
    """tau_optimization_test.test_sample_rate_samples_pairs (np.random.seed(123), rate 0.5) and
    test_invalid_sample_rate."""
    result = w.tie_calibration([1, 2, 3, 4], [0, 2, 6, 14], average_by="none", sample_rate=0.5, seed=123,
                               search="mtme")
    assert list(result.thresholds) == [0, 6, 8, 14]
    for rate in (0.0, 1.1):
        with pytest.raises(MtevalError, match="sample rate"):
            w.tie_calibration([1, 2, 3, 4], [0, 2, 6, 14], average_by="none", sample_rate=rate, search="mtme")


def test_kendall_like() -> None:
    """CorrelationFunctionsTest.testKendallLike (3/5; thresh 1: 2/6) and CorrelationTest.testKendallLike
    (a missing human score: 1/3). Theirs gives 0 for no pair, ours NaN."""
    from mteval.meta.stats.correlation import kendall_wmt20
    gold, metric = np.array([10, 11, 100, 150.]), np.array([2, 1, 4, 3.])
    assert kendall_wmt20(gold, metric) == 3 / 5 and kendall_wmt20(gold, metric, 1) == 2 / 6
    assert kendall_wmt20(np.array([10, N, 100, 150]), metric, 1) == 1 / 3
    assert np.isnan(kendall_wmt20(gold[:1], metric[:1]))


def test_the_oracle_was_made_with_this_pythons_float_sum() -> None:
    made_with = tuple(int(x) for x in expected()["provenance"]["python"].split(".")[:2])
    assert (made_with >= (3, 12)) == COMPENSATED_SUM
