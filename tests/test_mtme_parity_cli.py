"""iqeval's mt-metrics-eval statistics: ``--corr pdp``, ``--significance`` on acc_eq/tau_eq/spa
(PairwisePermutationSigDiff / PermutationSigDiff) and ``--early-stop``, on the bundled WMT21
en-de sample (6 systems, MQM), each equal to the library call it stands for."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from helpers import ENDE, ende_config, run

from mteval.meta.stats import significance as s
from mteval.meta.stats import wmt_stats as w
from mteval.store.cache import ScoreCache

SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")
METRICS = ["BLEU", "chrF"]
MQM = ENDE / "human" / "mqm.tsv"


def rows(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("mtme")
    config = ende_config(tmp, metrics=METRICS, systems={x: str(ENDE / "sys" / f"{x}.de") for x in SYSTEMS})
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def human_matrix() -> np.ndarray:
    out = np.full((len(SYSTEMS), 100), np.nan)
    for line in MQM.read_text(encoding="utf-8").splitlines()[1:]:
        system, segment, score = line.split("\t")
        out[SYSTEMS.index(system), int(segment) - 1] = float(score)
    return out


def segments(experiment: Path, metric: str) -> np.ndarray:
    cache = ScoreCache(experiment.parent / "cache")
    return np.stack([cache.load(x, "A_C_D", metric).segments for x in SYSTEMS])


def iqeval(experiment: Path, *args: str) -> list[dict[str, str]]:
    out = run("iqeval", "-assessments", str(MQM), "--tsv", *args, str(experiment))
    assert out.returncode == 0, out.stderr
    return rows(out.stdout)


def test_pdp(experiment: Path) -> None:
    seg = {r["metric"]: r for r in iqeval(experiment, "-G", "seg", "--corr", "pdp", "--resamples", "20")}
    sys_rows = {r["metric"]: r for r in iqeval(experiment, "-G", "sys", "--corr", "pdp,pearson", "--resamples", "20")
                if r["correlation"] == "pdp"}
    cache = ScoreCache(experiment.parent / "cache")
    human = human_matrix()
    for metric in METRICS:
        value = w.pairwise_diff_pearson(human, segments(experiment, metric), "item")
        assert float(seg[metric]["score"]) == pytest.approx(value, abs=1e-12)
        assert float(seg[metric]["ci_low"]) <= value <= float(seg[metric]["ci_high"])
        system = np.array([cache.load(x, "A_C_D", metric).system for x in SYSTEMS])
        assert float(sys_rows[metric]["score"]) == pytest.approx(
            np.corrcoef(np.nanmean(human, axis=1), system)[0, 1], abs=1e-12)


def test_significance_acc_eq_is_the_pairwise_permutation_test(experiment: Path) -> None:
    """Segment level: WMT23/24's PairwisePermutationSigDiff for every ordered pair, early stopping."""
    out = [r for r in iqeval(experiment, "-G", "seg", "--corr", "acc_eq", "--significance", "--resamples", "40",
                             "--early-stop", "20,0.02,0.5", "-M", ",".join(METRICS)) if r["test"] not in ("", "-")]
    assert {r["metric"] for r in out} == {"BLEU>chrF", "chrF>BLEU"}
    human = human_matrix()
    for r in out:
        a, b = r["metric"].split(">")
        expected = s.pairwise_permutation_sig_diff(human, segments(experiment, a), segments(experiment, b), "acc23",
                                                   "item", 40, s.EarlyStop(20, 0.02, 0.5), seed=1234)
        assert r["test"] == "perm-pairs" and r["target"] == "perm-pairs:acc_eq"
        assert float(r["p_value"]) == pytest.approx(expected.p_value, abs=1e-12)
        assert float(r["score"]) == pytest.approx(expected.delta, abs=1e-12)
        assert int(r["trials"]) == len(expected.draws) in (20, 40)


def test_significance_spa_is_perm_both(experiment: Path) -> None:
    """System level: PermutationSigDiff with SPA (WMT24's test), re-computing SPA in every draw."""
    out = [r for r in iqeval(experiment, "-G", "sys", "--corr", "spa", "--significance", "--resamples", "10")
           if r["test"] not in ("", "-")]
    human = human_matrix()
    for r in out:
        a, b = r["metric"].split(">")
        expected = s.permutation_sig_diff("spa", human, segments(experiment, a), segments(experiment, b), "none", 10,
                                          seed=1234)
        assert r["target"] == "perm-both:spa" and int(r["trials"]) == 10
        assert float(r["p_value"]) == pytest.approx(expected.p_value, abs=1e-12)
        assert float(r["score"]) == pytest.approx(expected.delta, abs=1e-12)


@pytest.mark.parametrize("value", ["0,0.02,0.5", "10,0.5,0.2", "ten"])
def test_bad_early_stop(experiment: Path, value: str) -> None:
    out = run("iqeval", "-assessments", str(MQM), "-G", "seg", "--corr", "acc_eq", "--significance",
              "--early-stop", value, str(experiment))
    assert out.returncode == 2 and "--early-stop" in out.stderr and len(out.stderr.strip().splitlines()) == 1
