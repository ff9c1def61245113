"""mteval global-accuracy: WMT's system-level pairwise accuracy pooled over test sets (Kocmi et al. 2021),
with mt-metrics-eval's ranks (CompareMetricsWithGlobalAccuracy; docs/meta-evaluation.md)."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import SHARED
from helpers import ENDE, RUEN, ende_config, ruen_experiment, run, wmt21_mqm_sets

import mteval
from mteval.errors import MtevalError
from mteval.evaluate.campaign import Campaign
from mteval.evaluate.global_accuracy import GlobalOptions, JudgedSet, global_accuracy_records
from mteval.meta.stats.clusters import assign_ranks
from mteval.meta.stats.correlation import block_pairs, pooled_accuracy, pooled_accuracy_counts
from mteval.meta.stats.significance import matrix_statistic, permutation_sig_diff
from mteval.metrics.registry import higher_is_better

METRICS = ["BLEU", "chrF", "-TER"]
ENDE_SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")
RUEN_SYSTEMS = ("AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y")


def agreement(human: list[float], metric: list[float]) -> tuple[int, int]:
    """mt-metrics-eval's ``Agreement``, written out: every pair, signs compared."""
    pairs = list(itertools.combinations(zip(human, metric, strict=True), 2))
    return sum(int(np.sign(a[0] - b[0]) == np.sign(a[1] - b[1])) for a, b in pairs), len(pairs)


# ---- the pooled statistic ----

def test_block_pairs_stay_within_blocks() -> None:
    i, j = block_pairs([3, 1, 2])
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 2), (4, 5)]
    assert len(block_pairs([])[0]) == 0


def test_pooled_accuracy_sums_agreement_over_blocks() -> None:
    rng = np.random.default_rng(3)
    for sizes in ([5], [4, 6], [2, 7, 3], [1, 5]):
        human = rng.integers(0, 4, sum(sizes)).astype(float)  # ties on both sides
        metric = rng.integers(0, 4, sum(sizes)).astype(float)
        agree = pairs = start = 0
        for n in sizes:
            a, p = agreement(list(human[start:start + n]), list(metric[start:start + n]))
            agree, pairs, start = agree + a, pairs + p, start + n
        assert pooled_accuracy_counts(human, metric, sizes) == (agree, pairs)
        assert pooled_accuracy(sizes)(human[None, :], metric[None, :]) == agree / pairs  # their float division


def test_pooled_accuracy_refuses_misaligned_vectors() -> None:
    with pytest.raises(MtevalError, match="blocks of 5"):
        pooled_accuracy([2, 3])(np.zeros(4), np.zeros(4))


def test_a_given_statistic_leaves_the_named_test_unchanged() -> None:
    rng = np.random.default_rng(5)
    human, a, b = rng.normal(size=(3, 1, 9))
    named = permutation_sig_diff("pearson", human, a, b, "none", 200, seed=4, stream="mtme")
    given = permutation_sig_diff("pearson", human, a, b, "none", 200, seed=4, stream="mtme",
                                 statistic=matrix_statistic("pearson"))
    assert (named.p_value, named.delta) == (given.p_value, given.delta)
    assert np.array_equal(named.draws, given.draws)
    # one block: pooled accuracy is KendallVariants acc23 (their Agreement, metric ties at epsilon 0)
    ties = np.round(rng.normal(size=(3, 1, 12)), 0)
    acc23 = permutation_sig_diff("acc23", *ties, "none", 300, seed=2)
    pooled = permutation_sig_diff("pooled", *ties, "none", 300, seed=2, statistic=pooled_accuracy([12]))
    assert (acc23.p_value, acc23.delta) == (pooled.p_value, pooled.delta)


# ---- ranks ----

def test_ranks_of_a_perfect_a_reversed_and_a_noisy_metric() -> None:
    rng = np.random.default_rng(1)
    sets = []
    for name, n in (("x", 9), ("y", 8)):
        human = rng.normal(size=n)
        metrics = {"perfect": 2 * human + 1, "reversed": -human, "noisy": human + rng.normal(scale=0.8, size=n)}
        sets.append(JudgedSet(name, f"{name}.yaml", f"{name}.tsv", "A", tuple(f"s{k}" for k in range(n)), human,
                            metrics))
    records = global_accuracy_records(sets, GlobalOptions(resamples=200))
    ranked = [r for r in records if "rank" in r]
    assert [r["metric"] for r in ranked] == ["perfect", "noisy", "reversed"]
    assert [r["pairs"] for r in ranked] == [36 + 28] * 3
    assert ranked[0]["score"] == 1.0 and ranked[0]["accuracy:x"] == 1.0 and ranked[2]["score"] == 0.0
    assert ranked[2]["rank"] > ranked[0]["rank"]
    tests = {r["metric"]: r["p_value"] for r in records if "test" in r}
    assert sorted(tests) == ["noisy>reversed", "perfect>noisy", "perfect>reversed"]  # their upper triangle only
    p = np.ones((3, 3))
    for (i, a), (j, b) in itertools.combinations(enumerate(r["metric"] for r in ranked), 2):
        p[i, j] = tests[f"{a}>{b}"]
    assert [r["rank"] for r in ranked] == assign_ranks(p, 0.05)


def test_equal_accuracies_are_ordered_by_name_and_share_a_rank() -> None:
    human = np.arange(6.0)
    one = JudgedSet("s", "s.yaml", "s.tsv", "A", tuple("abcdef"), human, {"b": human.copy(), "a": human * 3})
    records = global_accuracy_records([one], GlobalOptions(resamples=50))
    assert [(r["metric"], r["rank"]) for r in records if "rank" in r] == [("a", 1), ("b", 1)]


# ---- the command on the bundled samples ----

def _config(tmp: Path, name: str) -> Path:
    """The en-de sample (6 systems) or the ru-en sample (5), scored with :data:`METRICS` by iqsetup."""
    if name == "ende":
        config = ende_config(tmp, systems={s: str(ENDE / "sys" / f"{s}.de") for s in ENDE_SYSTEMS}, metrics=METRICS,
                             sets={}, name="ende")
        done = run("iqsetup", "-q", str(config))
        assert done.returncode == 0, done.stderr
        return config
    return ruen_experiment(tmp, "ruen", RUEN_SYSTEMS, METRICS)


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    """(config, judgements) of the two bundled samples: en-de MQM, ru-en DA."""
    return [(str(_config(tmp_path_factory.mktemp("ende"), "ende")), str(ENDE / "human" / "mqm.tsv")),
            (str(_config(tmp_path_factory.mktemp("ruen"), "ruen")), str(RUEN / "human" / "da.tsv"))]


def human_means(judgements: str) -> dict[str, float]:
    """Each system's mean judgement (the files have segment rows only)."""
    rows: dict[str, list[float]] = {}
    with open(judgements, encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            rows.setdefault(row["system"], []).append(float(row["score"]))
    return {name: float(np.mean(values)) for name, values in rows.items()}


def by_hand(pairs: list[tuple[str, str]], metric: str) -> tuple[int, int, list[float]]:
    """Agreeing pairs, pairs and per-set accuracies, from the cache's system scores and the judgements."""
    agree = total = 0
    each = []
    for config, judgements in pairs:
        campaign, human = Campaign.open(config), human_means(judgements)
        systems = [s for s in campaign.systems if s in human]
        sign = 1 if higher_is_better(metric) else -1
        m = np.asarray([sign * campaign.score(metric, s).score for s in systems])
        h = np.asarray([human[s] for s in systems])
        i, j = np.triu_indices(len(systems), k=1)
        a = int(np.sum(np.sign(h[i] - h[j]) == np.sign(m[i] - m[j])))
        agree, total = agree + a, total + len(i)
        each.append(a / len(i))
    return agree, total, each


def test_the_command_pools_the_samples_pairs(samples: list[tuple[str, str]]) -> None:
    done = run("mteval", "global-accuracy", *itertools.chain(*samples), "--json", "--resamples", "200")
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)
    ranked = [r for r in records if "rank" in r]
    assert {r["metric"] for r in ranked} == set(METRICS)
    for r in ranked:
        agree, total, each = by_hand(samples, r["metric"])
        assert (r["agreeing"], r["pairs"]) == (agree, total) == (agree, 15 + 10)
        assert r["score"] == pytest.approx(agree / total, abs=0)
        assert [r["accuracy:ende"], r["accuracy:ruen"]] == each
        assert r["table"] == "metric-ranks" and r["ranked_by"] == "perm-both" and r["alpha"] == 0.05
    scores = [r["score"] for r in ranked]
    assert scores == sorted(scores, reverse=True)
    assert sum("test" in r for r in records) == 3
    assert records == mteval.global_accuracy(samples, resamples=200)  # the Python API: the same records
    text = run("mteval", "global-accuracy", *itertools.chain(*samples), "--resamples", "200")
    assert text.returncode == 0 and "rank  metric" in text.stdout and "ende" in text.stdout.splitlines()[1]
    tsv = run("mteval", "global-accuracy", *itertools.chain(*samples), "--tsv", "--resamples", "200")
    assert tsv.returncode == 0 and len(tsv.stdout.splitlines()) == 1 + 3 + 3


def test_metrics_some_set_lacks_are_named_or_refused(samples: list[tuple[str, str]], tmp_path: Path) -> None:
    (ende, mqm), (ruen, da) = samples
    more = yaml.safe_load(Path(ende).read_text(encoding="utf-8"))
    more["metrics"] = [*METRICS, "NIST"]  # NIST = NIST-5: computed for en-de only
    more["cache"] = str(tmp_path / "cache")  # not the fixture's: its NIST files would join the default selection
    extended = tmp_path / "ende-nist.yaml"
    extended.write_text(yaml.safe_dump(more), encoding="utf-8")
    assert run("iqsetup", "-q", str(extended)).returncode == 0
    done = run("mteval", "global-accuracy", str(extended), mqm, ruen, da, "--resamples", "20", "--json")
    assert done.returncode == 0, done.stderr
    assert "left out the metrics some set lacks: NIST" in done.stderr
    assert {r["metric"] for r in json.loads(done.stdout) if "rank" in r} == set(METRICS)
    refused = run("mteval", "global-accuracy", str(extended), mqm, ruen, da, "-M", "BLEU,NIST-5")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and ruen in refused.stderr


def _error(*args: str) -> str:
    """The one error line of a refused command (exit 2)."""
    done = run("mteval", "global-accuracy", *args)
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mteval: error: "), lines
    return lines[0]


def test_bad_input_is_one_line(samples: list[tuple[str, str]], tmp_path: Path) -> None:
    (ende, mqm), (ruen, da) = samples
    assert "3 file names" in _error(ende, mqm, ruen)
    assert "nope.tsv: no such file" in _error(ende, str(tmp_path / "nope.tsv"))
    lonely = tmp_path / "one.tsv"
    lonely.write_text("system\tsegment\tscore\nUEdin\t1\t-2\n", encoding="utf-8")
    assert f"{lonely}:" in _error(ende, str(lonely), ruen, da) and "at least 2 systems" in _error(ende, str(lonely))
    uncomputed = yaml.safe_load(Path(ruen).read_text(encoding="utf-8"))
    uncomputed["metrics"] = [*METRICS, "RG-L"]  # configured, never computed
    config = tmp_path / "ruen-rouge.yaml"
    config.write_text(yaml.safe_dump(uncomputed), encoding="utf-8")
    line = _error(str(config), da, "-M", "BLEU,RG-L")
    assert "no scores for metric 'RG-L'" in line
    assert "--resamples" in _error(ende, mqm, "--resamples", "0")


# ---- real data: WMT21 MQM (zh-en, en-de, en-ru), numbers checked against mt-metrics-eval ----

REAL = SHARED / "data"


@pytest.mark.slow  # iqsetup of BLEU, chrF and TER on three WMT21 test sets: ~90 s on two cores
@pytest.mark.skipif(not (REAL / "wmt21-enru").is_dir(), reason="needs ../shared/data (WMT21 zh-en, en-de, en-ru)")
def test_wmt21_mqm_global_accuracy_as_mt_metrics_eval(tmp_path: Path) -> None:
    sets = wmt21_mqm_sets(REAL, tmp_path, METRICS, enru="sys")
    records = mteval.global_accuracy(sets, unknown_systems="skip", stream="mtme", seed=1234)
    ranked = [(r["metric"], r["agreeing"], r["pairs"], r["rank"]) for r in records if "rank" in r]
    # mt-metrics-eval 68a481a CompareMetricsWithGlobalAccuracy on the same system scores, np.random.seed(1234)
    # before each PermutationSigDiff: accuracies 72/92, 71/92, 66/92, all rank 1, p-values below (bit-equal)
    assert ranked == [("chrF", 72, 92, 1), ("BLEU", 71, 92, 1), ("-TER", 66, 92, 1)]
    p = {r["metric"]: r["p_value"] for r in records if "test" in r}
    assert p == {"chrF>BLEU": 0.433, "chrF>-TER": 0.201, "BLEU>-TER": 0.096}
