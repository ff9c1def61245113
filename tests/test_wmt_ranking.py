"""mteval wmt-ranking: the WMT23/WMT24 metrics tasks' overall ranking (Freitag et al. 2023, 2024), as
mt-metrics-eval's TaskSet / AverageCorrs / AverageCorrMatrix (docs/meta-evaluation.md)."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import scipy.stats
from conftest import SHARED
from helpers import ENDE, RUEN, ende_config, ruen_experiment, run, wmt21_mqm_sets

import mteval
from mteval.evaluate.campaign import Campaign
from mteval.evaluate.wmt_ranking import Task, TaskResult, average_matrix, average_values, wmt_tasks
from mteval.metrics.registry import higher_is_better

METRICS = ["BLEU", "chrF", "-TER"]
ENDE_SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")
RUEN_SYSTEMS = ("AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y")


def _set(name: str) -> Any:
    """A stand-in set: the task list reads only its name."""
    return SimpleNamespace(judged=SimpleNamespace(name=name))


def test_the_task_lists_and_weights_of_wmt23_and_wmt24() -> None:
    sets = [_set("a"), _set("b"), _set("c")]
    wmt23 = wmt_tasks("wmt23", sets)
    assert [t.label for t in wmt23[:4]] == ["sys accuracy a,b,c", "sys pearson a", "seg pearson a", "seg acc_eq a"]
    assert len(wmt23) == 10 and [t.weight for t in wmt23] == [3 / 12] + [1 / 12] * 9  # WMT23(): [len(lps), 1, ...]
    assert [t.range for t in wmt23[:4]] == [(0, 1), (-1, 1), (-1, 1), (0, 1)]
    assert [t.test for t in wmt23[:4]] == ["perm-both", "perm-both", "perm-both", "perm-pairs"]
    wmt24 = wmt_tasks("wmt24", sets[:2])
    assert [t.label for t in wmt24] == ["sys spa a", "seg acc_eq a", "sys spa b", "seg acc_eq b"]
    assert [t.weight for t in wmt24] == [0.25] * 4


def _result(statistic: str, weight: float, values: dict[str, float], draws: dict[tuple[str, str], list[list[float]]]
            ) -> TaskResult:
    """A task result with the given values (best first) and draws."""
    task = Task(statistic, "sys", (), weight)
    return TaskResult(task, values, dict.fromkeys(values, 1), np.zeros((2, 2)),
                      {pair: np.asarray(d, dtype=np.float64) for pair, d in draws.items()})


def test_the_average_and_its_p_value_by_hand() -> None:
    # a Pearson task (range [-1, 1]) ranking x first, 4 draws; an accuracy task ([0, 1]) ranking y first,
    # stopped early after 2 draws (repeated to 4, as their np.tile); weights 0.5 each
    pearson = _result("pearson", 0.5, {"x": 0.6, "y": 0.2},
                      {("x", "y"): [[0.5, 0.1], [0.2, 0.4], [0.6, 0.3], [0.0, 0.0]]})
    accuracy = _result("accuracy", 0.5, {"y": 0.75, "x": 0.7}, {("y", "x"): [[0.6, 0.8], [0.9, 0.7]]})
    averages = average_values([pearson, accuracy])
    # x: 0.5 * (0.6 + 1) / 2 + 0.5 * 0.7 = 0.75; y: 0.5 * (0.2 + 1) / 2 + 0.5 * 0.75 = 0.675
    assert list(averages) == ["x", "y"]
    assert averages["x"] == pytest.approx(0.75) and averages["y"] == pytest.approx(0.675)
    # null differences of x - y: Pearson task 0.5 * (dx - dy) / 2, accuracy task 0.5 * (dx - dy), its
    # draws read as (x, y) = (0.8, 0.6), (0.7, 0.9), then again
    null = [0.25 * 0.4 + 0.5 * 0.2, 0.25 * -0.2 + 0.5 * -0.2, 0.25 * 0.3 + 0.5 * 0.2, 0.0 + 0.5 * -0.2]
    observed = 0.075
    p = average_matrix([pearson, accuracy], averages)
    assert p[0, 1] == pytest.approx(np.mean(np.asarray(null) >= observed)) == 0.5
    assert p[1, 0] == 0


def test_exact_ties_of_the_averages_keep_the_first_tasks_order() -> None:
    one = _result("accuracy", 1.0, {"b": 0.5, "a": 0.5}, {("b", "a"): [[0.5, 0.5]]})
    assert list(average_values([one])) == ["b", "a"]  # their AverageCorrs: a stable sort by the average


# ---- the command on the bundled samples ----

@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    """(config, judgements) of the two bundled samples scored with :data:`METRICS`: en-de MQM, ru-en DA."""
    ende_dir = tmp_path_factory.mktemp("ende")
    ende = ende_config(ende_dir, systems={s: str(ENDE / "sys" / f"{s}.de") for s in ENDE_SYSTEMS},
                       metrics=METRICS, sets={}, name="ende")
    done = run("iqsetup", "-q", str(ende))
    assert done.returncode == 0, done.stderr
    ruen = ruen_experiment(tmp_path_factory.mktemp("ruen"), "ruen", RUEN_SYSTEMS, METRICS)
    return [(str(ende), str(ENDE / "human" / "mqm.tsv")), (str(ruen), str(RUEN / "human" / "da.tsv"))]


def _human(judgements: str, systems: list[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """System means and the (systems, segments) matrix of a segment-level judgements file."""
    rows: dict[tuple[str, int], float] = {}
    with open(judgements, encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            rows[(row["system"], int(row["segment"]))] = float(row["score"])
    matrix = np.asarray([[rows.get((s, i), np.nan) for i in range(1, n + 1)] for s in systems])
    return np.nanmean(matrix, axis=1), matrix


def test_the_wmt23_ranking_of_the_samples(samples: list[tuple[str, str]]) -> None:
    done = run("mteval", "wmt-ranking", *itertools.chain(*samples), "--json", "--resamples", "20")
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)
    ranked = [r for r in records if r.get("table") == "metric-ranks"]
    tasks = [r for r in records if r.get("table") == "wmt-tasks"]
    assert [t["task"] for t in tasks] == ["sys accuracy ende,ruen", "sys pearson ende", "seg pearson ende",
                                          "seg acc_eq ende", "sys pearson ruen", "seg pearson ruen", "seg acc_eq ruen"]
    assert [t["score"] for t in tasks] == [0.25] + [0.125] * 6 and all(t["trials"] == 20 for t in tasks)
    accuracy = {r["metric"]: r["score"] for r in mteval.global_accuracy(samples, resamples=5) if "rank" in r}
    for r in ranked:
        # task 1 is the global accuracy; the system-level Pearsons are scipy's over the systems' means
        assert r["task1"] == accuracy[r["metric"]]
        for k, (config, judgements) in ((2, samples[0]), (5, samples[1])):
            campaign = Campaign.open(config)
            systems = list(campaign.systems)
            sign = 1 if higher_is_better(r["metric"]) else -1
            means, matrix = _human(judgements, systems, len(campaign.texts))
            metric = np.asarray([sign * campaign.score(r["metric"], s).score for s in systems])
            assert r[f"task{k}"] == pytest.approx(scipy.stats.pearsonr(means, metric)[0], abs=1e-12)
            segments = np.asarray([sign * campaign.score(r["metric"], s).segments for s in systems])
            keep = ~np.isnan(matrix)
            assert r[f"task{k + 1}"] == pytest.approx(scipy.stats.pearsonr(matrix[keep], segments[keep])[0], abs=1e-12)
        # the average: each value normalised by its task's range, weighted
        average = sum(t["score"] * (r[t["target"]] - t["low"]) / (t["high"] - t["low"]) for t in tasks)
        assert r["score"] == pytest.approx(average, abs=1e-12)
        assert r["table"] == "metric-ranks" and r["ranked_by"] == "task-permutations" and r["rank"] >= 1
    assert [r["score"] for r in ranked] == sorted((r["score"] for r in ranked), reverse=True)
    assert sum("test" in r for r in records) == 3
    assert records == mteval.wmt_ranking(samples, resamples=20)  # the Python API: the same records


def test_the_wmt24_ranking_text_and_tsv(samples: list[tuple[str, str]]) -> None:
    text = run("mteval", "wmt-ranking", "--tasks", "wmt24", *itertools.chain(*samples), "--resamples", "10")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].startswith("WMT24 ranking over 2 set(s) (ende, ruen)")
    assert any(line.startswith("task1  sys    spa") for line in lines)
    header = next(line for line in lines if line.startswith("rank"))
    assert header.split() == ["rank", "metric", "average", "task1", "task2", "task3", "task4"]
    assert "p-values of 'row is better than column'" in text.stdout
    tsv = run("mteval", "wmt-ranking", "--tasks", "wmt24", *itertools.chain(*samples), "--tsv", "--resamples", "10")
    assert tsv.returncode == 0 and len(tsv.stdout.splitlines()) == 1 + 3 + 4 + 3


def _error(*args: str) -> str:
    """The one error line of a refused command (exit 2)."""
    done = run("mteval", "wmt-ranking", *args)
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mteval"), lines
    return lines[0]


def test_bad_input_is_one_line(samples: list[tuple[str, str]], tmp_path: Path) -> None:
    (ende, mqm), _ = samples
    system_only = tmp_path / "sys.tsv"
    system_only.write_text("system\tsegment\tscore\nUEdin\t-\t1\nOnline-W\t-\t2\nHuaweiTSC\t-\t0.5\n", encoding="utf-8")
    line = _error(ende, str(system_only))
    assert f"{system_only}:" in line and "need segment-level judgements" in line
    assert "3 file names" in _error(ende, mqm, ende)
    assert "--resamples" in _error(ende, mqm, "--resamples", "0")
    assert "--tasks" in _error("--tasks", "wmt22", ende, mqm)


# ---- real data: WMT21 MQM (zh-en, en-de, en-ru), numbers checked against mt-metrics-eval ----

REAL = SHARED / "data"
REAL_METRICS = ["BLEU", "chrF", "-TER", "NIST"]


@pytest.mark.slow  # iqsetup of four metrics on three WMT21 test sets and 10 tasks x 6 pairs x 100 draws: minutes
@pytest.mark.skipif(not (REAL / "wmt21-enru").is_dir(), reason="needs ../shared/data (WMT21 zh-en, en-de, en-ru)")
def test_wmt21_mqm_wmt23_ranking_as_mt_metrics_eval(tmp_path: Path) -> None:
    sets = wmt21_mqm_sets(REAL, tmp_path, REAL_METRICS, enru="seg")
    records = mteval.wmt_ranking(sets, unknown_systems="skip", stream="mtme", seed=1234, resamples=100)
    # mt-metrics-eval 68a481a: TaskResults from their CompareMetrics* on the same scores (np.random.seed(1234)
    # before each permutation test), WMT23(['en-de', 'he-en', 'zh-en'], k=100) weights, AverageCorrMatrix:
    # averages and ranks below, every task value, rank, p-value and draw bit-equal (one-off check)
    ranked = [(r["metric"], round(r["score"], 5), r["rank"]) for r in records if r.get("table") == "metric-ranks"]
    assert ranked == [("chrF", 0.69279, 1), ("BLEU", 0.68787, 1), ("NIST", 0.67098, 1), ("-TER", 0.65399, 2)]
    p = {r["metric"]: r["p_value"] for r in records if "test" in r}
    assert p == {"chrF>BLEU": 0.41, "chrF>NIST": 0.15, "chrF>-TER": 0.06, "BLEU>NIST": 0.17, "BLEU>-TER": 0.01,
                 "NIST>-TER": 0.16}
    chrf = next(r for r in records if r["metric"] == "chrF")
    assert [round(chrf[f"task{k}"], 4) for k in range(1, 11)] == [0.7826, 0.7558, 0.2099, 0.4320, 0.7247, 0.1639,
                                                                  0.4659, 0.9032, 0.2663, 0.5558]
    assert [chrf[f"rank:task{k}"] for k in range(1, 11)] == [1, 1, 1, 1, 2, 1, 1, 1, 1, 1]
