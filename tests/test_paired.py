"""Paired significance between systems (``mteval.meta.stats.paired``, ``mteval.meta.stats.clusters``).

1. The engine against literal loops (each resample's index vector or swap mask applied to the
   statistics rows one resample at a time, as sacreBLEU does) on small random statistics; drawing
   in chunks gives the stream of one draw.
2. Properties (hypothesis): identical systems, order equivariance, antisymmetric differences,
   p-value range; Holm against its step-down definition; the cluster invariants.
3. Bad input: one-line ConfigError / InputError (exit code 2).
4. Parity with sacreBLEU 2.6.0 (``sacrebleu.significance.PairedTest``, seed 12345) on
   ../shared/data/wmt21-ruen, systems AFRL (baseline), Facebook-AI, Online-W x 1000 segments,
   reference A: BLEU, chrF, TER with ``--paired-bs`` (1000 resamples) and ``--paired-ar`` (10,000
   trials). Fed the same statistics, the RNG streams match, so p-values are *equal*; bootstrap
   means and intervals agree to 1e-9 for BLEU (scored as sacreBLEU scores its float32 resampled
   statistics) and to 1e-4 for chrF/TER (scored by mteval's float64 ``scores_from_stats``).
   sacreBLEU's TER statistics take 13 s for 3 x 1000 segments, so sacreBLEU is given mteval's TER
   statistics, after checking that they equal sacreBLEU's on the first 200 segments here (and on
   every segment of the 500-line oracle in tests/test_lex_ter.py); chrF statistics are compared
   on all 1000.
"""

from __future__ import annotations

from functools import cache, partial

import numpy as np
import pytest
from conftest import SHARED, needs_shared
from hypothesis import given, settings
from hypothesis import strategies as st

import mteval.meta.stats.paired as paired
from mteval.errors import ConfigError, InputError, MtevalError
from mteval.meta.stats.clusters import adjust, adjust_pairwise, clusters, ranking
from mteval.meta.stats.paired import MetricInput, multiplicities, paired_bootstrap, paired_randomization


def ratio(rows: np.ndarray) -> np.ndarray:
    """A non-linear corpus score of 2 statistics (matches / (matches + misses), 0-100)."""
    return 100.0 * rows[:, 0] / np.maximum(rows[:, 0] + rows[:, 1], 1.0)


def random_stats(seed: int, systems: int = 4, segments: int = 37) -> np.ndarray:
    """Integer statistics (systems, segments, 2), systems of different quality."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.3, 0.7, systems)[:, None]
    matches = rng.binomial(20, quality, size=(systems, segments))
    return np.stack([matches, 20 - matches], axis=2).astype(np.float64)


def literal_bootstrap(stats: np.ndarray, n: int, seed: int) -> np.ndarray:
    """sacreBLEU's ``_paired_bs_test`` loop: index rows, sum, score, one resample at a time."""
    idx = np.random.default_rng(seed).choice(stats.shape[1], size=(n, stats.shape[1]), replace=True)
    return np.array([[ratio(system[i].sum(axis=0)[None])[0] for i in idx] for system in stats])


def literal_randomization(a: np.ndarray, b: np.ndarray, n: int, seed: int, count_ties: bool = False) -> float:
    """sacreBLEU's ``_paired_ar_test`` loop for one pair: swap rows where the mask is False."""
    masks = np.random.default_rng(seed).integers(2, size=(n, len(a)), dtype=bool)
    observed = abs(ratio(a.sum(0)[None])[0] - ratio(b.sum(0)[None])[0])
    count = 0
    for mask in masks:
        pseudo_a = np.where(mask[:, None], a, b).sum(axis=0)
        pseudo_b = np.where(mask[:, None], b, a).sum(axis=0)
        trial = abs(ratio(pseudo_a[None])[0] - ratio(pseudo_b[None])[0])
        count += trial >= observed - 1e-9 if count_ties else trial > observed + 1e-9
    return (count + 1) / (n + 1)


def names(m: int) -> list[str]:
    return [f"sys{i}" for i in range(m)]


# 1. the engine against literal loops ------------------------------------------------------------

def test_multiplicities_count_each_index() -> None:
    idx = np.random.default_rng(0).integers(0, 9, size=(5, 9))
    counts = multiplicities(idx, 9)
    assert np.array_equal(counts, np.stack([np.bincount(row, minlength=9) for row in idx]))
    assert (counts.sum(axis=1) == 9).all()


def test_bootstrap_equals_literal_loop() -> None:
    stats = random_stats(1)
    metric = MetricInput(stats, ratio)
    ours = paired.bootstrap_scores({"r": metric}, n=120, seed=7)["r"]
    expected = literal_bootstrap(stats, 120, 7)
    np.testing.assert_allclose(ours, expected, rtol=1e-13, atol=0)
    result = paired_bootstrap({"r": metric}, names(4), n=120, seed=7)["r"]
    np.testing.assert_allclose(result.mean, expected.mean(axis=1), rtol=1e-13)
    ordered = np.sort(expected, axis=1)
    k = 120 // 40  # sacreBLEU's estimate_ci at 95 %
    np.testing.assert_allclose(result.low, ordered[:, k], rtol=1e-13)
    np.testing.assert_allclose(result.high, ordered[:, 120 - 1 - k], rtol=1e-13)
    for i, j in [(1, 0), (3, 2), (0, 3)]:
        d = np.abs(expected[i] - expected[j])
        observed = abs(result.score[i] - result.score[j])
        p = ((d - d.mean() > observed + 1e-9).sum() + 1) / 121
        assert result.p_value[i, j] == pytest.approx(p, abs=1e-15)


@pytest.mark.parametrize("count_ties", [False, True])
def test_randomization_equals_literal_loop(count_ties: bool) -> None:
    stats = random_stats(2, systems=3, segments=23)
    result = paired_randomization({"r": MetricInput(stats, ratio)}, names(3), n=300, seed=5,
                                  count_ties=count_ties)["r"]
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        expected = literal_randomization(stats[i], stats[j], 300, 5, count_ties)
        assert result.p_value[i, j] == result.p_value[j, i] == pytest.approx(expected, abs=1e-15)


def test_chunked_draws_equal_one_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 64 rows (an odd number of segments) give the numbers of a single draw."""
    metrics = {"r": MetricInput(random_stats(3, segments=37), ratio)}
    whole_bs = paired_bootstrap(metrics, names(4), n=200)["r"]
    whole_ar = paired_randomization(metrics, names(4), n=200)["r"]
    monkeypatch.setattr(paired, "CHUNK_ELEMENTS", 1)
    assert list(paired._chunk_rows(200, 37)) == [64, 64, 64, 8]
    chunked_bs = paired_bootstrap(metrics, names(4), n=200)["r"]
    chunked_ar = paired_randomization(metrics, names(4), n=200)["r"]
    for field in ("mean", "low", "high", "diff_low", "diff_high", "p_value"):
        assert np.array_equal(getattr(whole_bs, field), getattr(chunked_bs, field)), field
    assert np.array_equal(whole_ar.p_value, chunked_ar.p_value)


@pytest.mark.parametrize("bootstrap", [True, False])
def test_float32_sums_are_exact(bootstrap: bool) -> None:
    """Integral columns whose sums stay under 2**24 go through float32; the sums equal float64's."""
    rng = np.random.default_rng(8)
    stats = np.concatenate([rng.integers(0, 50, size=(3, 40, 2)),  # float32
                            rng.integers(0, 2**20, size=(3, 40, 1)),  # S x max and sum reach 2**24
                            rng.random(size=(3, 40, 1))], axis=2)  # not integral
    packed = paired._pack({"x": MetricInput(stats, ratio)}, bootstrap=bootstrap)
    assert list(packed.exact) == [0, 1, 4, 5, 8, 9] and list(packed.other) == [2, 3, 6, 7, 10, 11]
    if bootstrap:
        weights = multiplicities(rng.choice(40, size=(30, 40), replace=True), 40)
    else:
        weights = rng.integers(2, size=(30, 40)).astype(np.float64)
    sums, expected = packed.weighted_sums(weights).reshape(30, -1), weights @ packed.columns
    assert np.array_equal(sums[:, packed.exact], expected[:, packed.exact])  # float32, exactly
    # the other columns are one float64 product over a subset of columns: BLAS may sum them in another
    # order than the full product (it does on some CPUs), so they agree to rounding, not bit for bit
    np.testing.assert_allclose(sums[:, packed.other], expected[:, packed.other], rtol=1e-13, atol=0)


def test_randomization_of_baseline_pairs_only() -> None:
    metrics = {"r": MetricInput(random_stats(9), ratio)}
    every = paired_randomization(metrics, names(4), n=100)["r"]
    some = paired_randomization(metrics, names(4), baseline="sys2", n=100, pairs="baseline")["r"]
    assert np.array_equal(some.p_value[2], every.p_value[2]) and np.array_equal(some.p_value[:, 2], every.p_value[:, 2])
    assert np.isnan(some.p_value[0, 1]) and [p.system for p in some.versus()] == ["sys0", "sys1", "sys3"]
    with pytest.raises(ConfigError, match="every pair"):
        some.clusters()
    with pytest.raises(ConfigError, match="unknown pairs"):
        paired_randomization(metrics, names(4), pairs="some")


def test_several_metrics_in_one_pass_equal_separate_runs() -> None:
    stats = random_stats(4)
    both = {"r": MetricInput(stats, ratio),
            "seg": MetricInput.from_segments(stats[:, :, 0], higher_is_better=False)}
    together = paired_bootstrap(both, names(4), n=150)
    for name, metric in both.items():
        alone = paired_bootstrap({name: metric}, names(4), n=150)[name]
        assert np.array_equal(together[name].p_value, alone.p_value)
        assert np.allclose(together[name].mean, alone.mean, rtol=1e-13)


def test_segment_scores_mean_nan_as_zero() -> None:
    segments = np.array([[1.0, np.nan, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]])
    metric = MetricInput.from_segments(segments)
    result = paired_bootstrap({"m": metric}, ["a", "b"], n=80, seed=3)["m"]
    assert result.score.tolist() == [2.0, 2.0]
    idx = np.random.default_rng(3).choice(4, size=(80, 4), replace=True)
    filled = np.nan_to_num(segments)
    np.testing.assert_allclose(result.mean, filled[:, idx].mean(axis=2).mean(axis=1), rtol=1e-13)


def test_seed_reproducible() -> None:
    metrics = {"r": MetricInput(random_stats(5), ratio)}
    a = paired_bootstrap(metrics, names(4), n=100, seed=1)["r"]
    b = paired_bootstrap(metrics, names(4), n=100, seed=1)["r"]
    c = paired_bootstrap(metrics, names(4), n=100, seed=2)["r"]
    assert np.array_equal(a.mean, b.mean) and np.array_equal(a.p_value, b.p_value)
    assert not np.array_equal(a.mean, c.mean)


def test_clear_winner_is_significant_and_intervals_hold() -> None:
    stats = random_stats(6, systems=2, segments=400)  # quality 0.3 vs 0.7
    bs = paired_bootstrap({"r": MetricInput(stats, ratio)}, ["weak", "strong"], baseline="weak", n=500)["r"]
    (pair,) = bs.versus()
    assert pair.system == "strong" and pair.baseline == "weak"
    assert pair.diff > 30 and pair.low < pair.diff < pair.high and pair.p_value == pytest.approx(1 / 501)
    for system in bs.results():
        assert system.low < system.score < system.high and system.half_width > 0
    ar = paired_randomization({"r": MetricInput(stats, ratio)}, ["weak", "strong"], n=500)["r"]
    assert ar.p_value[0, 1] == pytest.approx(1 / 501) and np.isnan(ar.low).all()
    assert bs.clusters() == [["strong"], ["weak"]]


# 2. properties -------------------------------------------------------------------------------

small_stats = st.integers(0, 2**31 - 1).map(lambda seed: random_stats(seed, systems=3, segments=15))


@settings(max_examples=25, deadline=None)
@given(small_stats, st.permutations(range(3)))
def test_order_equivariance_and_antisymmetry(stats: np.ndarray, order: list[int]) -> None:
    metric, permuted = MetricInput(stats, ratio), MetricInput(stats[order], ratio)
    for test in (paired_bootstrap, paired_randomization):
        base = test({"r": metric}, names(3), n=64)["r"]
        perm = test({"r": permuted}, names(3), n=64)["r"]
        index = np.ix_(order, order)
        assert np.array_equal(perm.p_value, base.p_value[index])
        assert np.array_equal(base.p_value, base.p_value.T)
        assert ((base.p_value >= 1 / 65 - 1e-15) & (base.p_value <= 1)).all()
        np.testing.assert_allclose(base.diff, -base.diff.T, atol=1e-12)
    bs = paired_bootstrap({"r": metric}, names(3), n=64)["r"]
    assert np.array_equal(bs.diff_low, -bs.diff_high.T)
    assert (bs.low <= bs.high).all() and (bs.diff_low <= bs.diff_high).all()


@settings(max_examples=20, deadline=None)
@given(small_stats)
def test_identical_systems(stats: np.ndarray) -> None:
    """Ties counted: p = 1; sacreBLEU's strict '>': p = 1 / (n + 1) (documented)."""
    twins = MetricInput(np.stack([stats[0], stats[0]]), ratio)
    for test in (paired_bootstrap, paired_randomization):
        assert test({"r": twins}, ["a", "b"], n=50, count_ties=True)["r"].p_value[0, 1] == 1.0
        assert test({"r": twins}, ["a", "b"], n=50)["r"].p_value[0, 1] == pytest.approx(1 / 51)


def literal_holm_rejects(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down procedure: reject the k-th smallest while p_(k) <= alpha / (M - k + 1)."""
    rejected = np.zeros(len(p), dtype=bool)
    for k, i in enumerate(np.argsort(p, kind="stable")):
        if p[i] > alpha / (len(p) - k):
            break
        rejected[i] = True
    return rejected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_and_bonferroni(p_list: list[float], alpha: float) -> None:
    p = np.asarray(p_list)
    holm, bonf = adjust(p, "holm"), adjust(p, "bonferroni")
    assert np.array_equal(holm <= alpha, literal_holm_rejects(p, alpha))
    assert (p <= holm + 1e-15).all() and (holm <= bonf + 1e-15).all() and (bonf <= 1).all()
    assert np.array_equal(bonf, np.minimum(1, len(p) * p))
    assert np.array_equal(adjust(p, "none"), p)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7).flatmap(lambda m: st.tuples(
    st.lists(st.floats(0, 100), min_size=m, max_size=m),
    st.lists(st.floats(0, 1), min_size=m * (m - 1) // 2, max_size=m * (m - 1) // 2))),
    st.booleans(), st.sampled_from(["none", "holm", "bonferroni"]))
def test_cluster_invariants(data: tuple[list[float], list[float]], higher: bool, correction: str) -> None:
    scores, upper = np.asarray(data[0]), data[1]
    m = len(scores)
    p = np.ones((m, m))
    rows, cols = np.triu_indices(m, k=1)
    p[rows, cols] = p[cols, rows] = upper
    groups = clusters(scores, p, 0.05, higher, correction)
    assert [i for g in groups for i in g] == list(ranking(scores, higher))
    sig = adjust_pairwise(p, correction) <= 0.05
    sign = 1 if higher else -1

    def better(i: int, j: int) -> bool:
        return bool(sig[i, j] and sign * (scores[i] - scores[j]) > 0)

    for group in groups:  # nobody in a cluster is significantly better than one in it
        assert not any(better(i, j) for i in group for j in group)
    for previous, group in zip(groups, groups[1:], strict=False):  # a cluster starts where someone above wins
        assert any(better(i, group[0]) for i in previous)


def test_clusters_by_hand() -> None:
    scores = [10.0, 9.0, 8.0, 1.0]
    p = np.array([[1, .5, .01, .001], [.5, 1, .5, .001], [.01, .5, 1, .001], [.001, .001, .001, 1]])
    assert clusters(scores, p, 0.05) == [[0, 1], [2], [3]]
    assert clusters(scores, p, 0.05, correction="bonferroni") == [[0, 1, 2], [3]]  # 6 x 0.01 > 0.05
    assert clusters(scores, p, 0.05, correction="holm") == [[0, 1], [2], [3]]  # 0.01 is 4th: 3 x 0.01
    assert clusters([-s for s in scores], p, 0.05, higher_is_better=False) == [[0, 1], [2], [3]]


# 3. bad input --------------------------------------------------------------------------------

def one_line(error: MtevalError) -> str:
    text = str(error)
    assert "\n" not in text and error.exit_code == 2
    return text


def test_bad_input() -> None:
    good = {"r": MetricInput(random_stats(0, systems=3), ratio)}
    with pytest.raises(ConfigError, match="at least two systems, got 1") as e:
        paired_bootstrap({"r": MetricInput(random_stats(0, systems=1), ratio)}, ["only"])
    one_line(e.value)
    with pytest.raises(ConfigError, match="unknown baseline 'nope'") as e:
        paired_randomization(good, names(3), baseline="nope")
    one_line(e.value)
    mixed = {"r": good["r"], "r2": good["r"], "short": MetricInput(random_stats(0, systems=3, segments=30), ratio)}
    with pytest.raises(InputError, match="metrics differ in segment count: 'r' 37, 'short' 30$") as e:
        paired_bootstrap(mixed, names(3))
    one_line(e.value)
    with pytest.raises(InputError, match="scores of 3 systems, expected 2"):
        paired_bootstrap(good, names(2))
    with pytest.raises(ConfigError, match="distinct"):
        paired_bootstrap(good, ["a", "b", "a"])
    with pytest.raises(ConfigError, match="positive integer"):
        paired_bootstrap(good, names(3), n=0)
    with pytest.raises(ConfigError, match="between 0 and 1"):
        paired_randomization(good, names(3), alpha=1.5)
    with pytest.raises(ConfigError, match="seed"):
        paired_bootstrap(good, names(3), seed=-1)
    with pytest.raises(InputError, match="no segments"):
        paired_bootstrap({"r": MetricInput(np.zeros((2, 0, 1)), ratio)}, names(2))
    with pytest.raises(InputError, match="finite"):
        MetricInput(np.full((2, 3, 1), np.nan), ratio)
    with pytest.raises(InputError, match="systems, segments, k"):
        MetricInput(np.zeros((2, 3)), ratio)
    with pytest.raises(ConfigError, match="correction"):
        paired_bootstrap(good, names(3), n=10)["r"].clusters(correction="sidak")
    with pytest.raises(ConfigError, match="unknown system"):
        paired_bootstrap(good, names(3), n=10)["r"].versus("nope")


# 4. parity with sacreBLEU 2.6.0 ----------------------------------------------------------------

RUEN = SHARED / "data" / "wmt21-ruen"
PARITY_SYSTEMS = ("AFRL", "Facebook-AI", "Online-W")  # the first is sacreBLEU's baseline
TER_CHECKED = 200


def _lines(path: str) -> list[str]:
    return (RUEN / path).read_text(encoding="utf-8").split("\n")[:1000]


@cache
def parity_data() -> tuple[dict, dict, dict[str, MetricInput]]:
    """(hypotheses, sacreBLEU metrics with cached statistics, our inputs from the same statistics)."""
    sacrebleu = pytest.importorskip("sacrebleu")
    from mteval.metrics.base import Side
    from mteval.metrics.chrf import ChrF
    from mteval.metrics.ter import TER as MtevalTER

    ref = _lines("refs/A.en")
    hyps = {s: _lines(f"sys/{s}.en") for s in PARITY_SYSTEMS}
    ter = MtevalTER()
    prepared = ter.prepare([Side("A", ref)])
    ter_stats = {s: ter.segment_stats(Side(s, hyps[s]), prepared) for s in PARITY_SYSTEMS}
    check = sacrebleu.metrics.TER(references=[ref[:TER_CHECKED]])
    for s in PARITY_SYSTEMS:
        sb = np.asarray(check._extract_corpus_statistics(hyps[s][:TER_CHECKED], None), dtype=np.float64)
        assert np.array_equal(sb, ter_stats[s][:TER_CHECKED]), s
    metrics = {"BLEU": _cached(sacrebleu.metrics.BLEU)(references=[ref]),
               "chrF2": _cached(sacrebleu.metrics.CHRF)(references=[ref]),
               "TER": _cached(sacrebleu.metrics.TER, {tuple(hyps[s]): ter_stats[s] for s in hyps})(references=[ref])}
    stats = {k: np.asarray([m._extract_corpus_statistics(hyps[s], None) for s in PARITY_SYSTEMS], dtype=np.float64)
             for k, m in metrics.items()}
    chrf = ChrF()
    ours = chrf.segment_stats(Side("x", hyps["AFRL"]), chrf.prepare([Side("A", ref)]))[:, :18]
    assert np.array_equal(ours, stats["chrF2"][0])  # mteval's chrF statistics are sacreBLEU's
    inputs = {"BLEU": MetricInput(stats["BLEU"], partial(_sacrebleu_scores, metrics["BLEU"])),
              "chrF2": MetricInput(stats["chrF2"], partial(chrf.scores_from_stats, variant="chrF")),
              "TER": MetricInput(stats["TER"], partial(ter.scores_from_stats, variant="TER"), False)}
    return hyps, metrics, inputs


def _cached(cls: type, given: dict | None = None) -> type:
    """A sacreBLEU metric class whose statistics are extracted once per hypothesis list (or given)."""
    store: dict = dict(given or {})

    class Cached(cls):  # type: ignore[misc, valid-type]
        def _extract_corpus_statistics(self, hypotheses, references):  # noqa: ANN001, ANN202
            key = tuple(hypotheses)
            if key not in store:
                store[key] = super()._extract_corpus_statistics(hypotheses, references)
            return np.asarray(store[key]).tolist()

    return Cached


def _sacrebleu_scores(metric, rows: np.ndarray, float32: bool = False) -> np.ndarray:  # noqa: ANN001
    """sacreBLEU's own score of each statistics row (float32 rows: as its bootstrap sums them)."""
    rows = rows.astype(np.float32) if float32 else rows
    return np.array([metric._compute_score_from_stats(r).score for r in rows])


def _sacrebleu_run(test_type: str, n: int, monkeypatch: pytest.MonkeyPatch) -> dict:
    from sacrebleu.significance import PairedTest

    monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # its default seed: 12345
    hyps, metrics, _ = parity_data()
    _, scores = PairedTest([(s, hyps[s]) for s in PARITY_SYSTEMS], metrics, None, test_type=test_type,
                           n_samples=n)()
    return scores


@pytest.mark.slow
@needs_shared
@pytest.mark.shared
def test_paired_bs_parity_with_sacrebleu(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _sacrebleu_run("bs", 1000, monkeypatch)
    _, metrics, inputs = parity_data()
    inputs = dict(inputs, BLEU=MetricInput(inputs["BLEU"].stats,
                                           partial(_sacrebleu_scores, metrics["BLEU"], float32=True)))
    ours = paired_bootstrap(inputs, PARITY_SYSTEMS, baseline="AFRL", n=1000, seed=12345)
    for name, comparison in ours.items():
        tol = 1e-9 if name == "BLEU" else 1e-4
        results, pairs = comparison.results(), comparison.versus()
        for i, sb in enumerate(expected[name]):
            assert results[i].score == pytest.approx(sb.score, abs=1e-4)
            assert results[i].mean == pytest.approx(sb.mean, abs=tol), (name, i)
            assert results[i].half_width == pytest.approx(sb.ci, abs=tol), (name, i)
            if i:
                assert pairs[i - 1].p_value == sb.p_value, (name, i)
                assert pairs[i - 1].low <= pairs[i - 1].diff <= pairs[i - 1].high
    assert ours["BLEU"].versus()[0].p_value < 0.01 < ours["chrF2"].versus()[1].p_value  # both kinds occur


@pytest.mark.slow
@needs_shared
@pytest.mark.shared
def test_paired_ar_parity_with_sacrebleu(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _sacrebleu_run("ar", 10000, monkeypatch)
    _, _, inputs = parity_data()
    ours = paired_randomization(inputs, PARITY_SYSTEMS, baseline="AFRL", n=10000, seed=12345)
    for name, comparison in ours.items():
        for i, sb in enumerate(expected[name]):
            assert comparison.score[i] == pytest.approx(sb.score, abs=1e-9)
            if i:
                assert comparison.versus()[i - 1].p_value == sb.p_value, (name, i)
    # TER differences are multiples of 100 / reference length: ties occur, and counting them moves p
    ties = paired_randomization({"TER": inputs["TER"]}, PARITY_SYSTEMS, n=10000, count_ties=True)["TER"]
    assert ties.p_value[2, 0] > ours["TER"].p_value[2, 0]
