"""End to end: iqsetup -JACK, then the installed iqeval's QARLA and correlation actions."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from helpers import ENDE, ende_config, run
from test_meta_literal import jack_literal, king_literal, queen_all

from mteval.meta.qarla.queen import QarlaData, queen
from mteval.store.cache import ScoreCache

METRICS = ["BLEU", "NIST", "BLEU-2"]
SYSTEMS = ("Facebook-AI", "UEdin", "Online-W")
REFS = ("A", "C", "D")


def tsv(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = ende_config(tmp_path_factory.mktemp("meta"), metrics=METRICS)
    result = run("iqsetup", "-JACK", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def arrays(config: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cache = ScoreCache(config.parent / "cache")
    def seg(t: str, r: str, m: str) -> np.ndarray:
        return cache.load(t, r, m).segments if t != r else np.full(100, np.nan)
    sys_ref = np.array([[[seg(a, r, m) for r in REFS] for a in SYSTEMS] for m in METRICS])
    ref_ref = np.array([[[seg(r1, r2, m) for r2 in REFS] for r1 in REFS] for m in METRICS])
    sys_sys = np.array([[[seg(a, b, m) for b in SYSTEMS] for a in SYSTEMS] for m in METRICS])
    return sys_ref, ref_ref, sys_sys


def test_queen_king_jack_match_the_literal_definitions(experiment: Path) -> None:
    sys_ref, ref_ref, sys_sys = arrays(experiment)
    hib = [True] * 3
    out = run("iqeval", "-doQUEEN", "-doKING", "-doJACK", "-optimizeKING", "--exhaustive", "-G", "sys", "--tsv",
              str(experiment))
    assert out.returncode == 0, out.stderr
    rows = tsv(out.stdout)
    steps = [r for r in rows if r["target"] == "optimizeKING" and r["metric"] in METRICS]
    assert len(steps) == 3 and steps[0]["accepted"] == "yes"
    optimal = next(r for r in rows if r["metric"] == "OPTIMAL")
    exhaustive = next(r for r in rows if r["metric"] == "EXHAUSTIVE")
    assert float(exhaustive["score"]) >= float(optimal["score"])
    hits, trials = queen_all(sys_ref, ref_ref, hib)
    queen = {r["target"]: r for r in rows if r["metric"] == "QUEEN"}
    for i, name in enumerate(SYSTEMS):
        assert (int(queen[name]["hits"]), int(queen[name]["trials"])) == (hits[i].sum(), trials[i].sum())
    king = {r["metric"]: r for r in rows if r["target"] == "KING"}  # KING rows of -doKING
    for i, metric in enumerate(METRICS):
        assert (int(king[metric]["hits"]), int(king[metric]["trials"])) == king_literal(
            sys_ref[i:i + 1], ref_ref[i:i + 1], [True], "sys")
    assert (int(king["SET"]["hits"]), int(king["SET"]["trials"])) == king_literal(sys_ref, ref_ref, hib, "sys")
    jack = next(r for r in rows if r["target"] == "JACK")
    assert (int(jack["hits"]), int(jack["trials"])) == jack_literal(sys_ref, ref_ref, sys_sys, hib)


def test_matrix_output_and_trans_topic(experiment: Path) -> None:
    out = run("iqeval", "-doQUEEN", "-TT", "-doref", "-G", "seg", "-T", "segs", str(experiment))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split() == ["SYS:SEG", "QUEEN"]
    labels = [line.split()[0] for line in out.stdout.splitlines()[2:]]
    assert labels == [f"{t}:{s}" for t in SYSTEMS + REFS for s in (1, 2, 3, 10)]  # -T segs = "1-3, 10"
    # trans-topic: each segment is compared with the reference pairs of the 4 selected segments
    sys_ref, ref_ref, _ = arrays(experiment)
    rows = [0, 1, 2, 9]
    data = QarlaData(tuple(METRICS), SYSTEMS, REFS, sys_ref[..., rows], ref_ref[..., rows], np.ones(3, bool))
    counts = queen(data, trans_topic=True)
    first = float(out.stdout.splitlines()[2].split()[1])
    assert first == pytest.approx(counts.hits[0, 0] / counts.trials[0, 0], abs=5e-5)
    assert counts.trials[0, 0] == 3 * 6 * 4


def test_fewer_than_three_references_is_a_clear_error(experiment: Path) -> None:
    out = run("iqeval", "-doQUEEN", "-R", "refs2", str(experiment))
    assert out.returncode == 2 and "at least 3 references" in out.stderr and len(out.stderr.splitlines()) == 1


def test_assessments_correlations_equal_scipy(experiment: Path, tmp_path: Path) -> None:
    # the experiment has 3 of the 6 judged systems: judgements of other systems are refused
    lines = (ENDE / "human" / "mqm.tsv").read_text(encoding="utf-8").splitlines()
    human_file = tmp_path / "mqm.tsv"
    human_file.write_text("\n".join([lines[0], *(x for x in lines[1:] if x.split("\t")[0] in SYSTEMS)]) + "\n",
                          encoding="utf-8")
    out = run("iqeval", "-assessments", str(human_file), "-G", "sys", "--resamples", "50", "--tsv",
              "--corr", "pearson,kendall", str(experiment))
    assert out.returncode == 0, out.stderr
    rows = {(r["correlation"], r["metric"]): r for r in tsv(out.stdout)}
    cache = ScoreCache(experiment.parent / "cache")
    human = {}
    for line in human_file.read_text(encoding="utf-8").splitlines()[1:]:
        system, _, score = line.split("\t")
        human.setdefault(system, []).append(float(score))
    h = [np.mean(human[s]) for s in SYSTEMS]
    for metric in METRICS:
        m = [cache.load(s, "A_C_D", metric).system for s in SYSTEMS]
        assert float(rows["pearson", metric]["score"]) == pytest.approx(scipy.stats.pearsonr(h, m)[0], abs=1e-12)
        assert float(rows["kendall", metric]["score"]) == pytest.approx(scipy.stats.kendalltau(h, m)[0], abs=1e-12)
        low, high = float(rows["pearson", metric]["ci_low"]), float(rows["pearson", metric]["ci_high"])
        assert low <= high
    seg = run("iqeval", "-assessments", str(human_file), "-G", "seg", "--resamples", "20", "--significance",
              "--corr", "pearson,kendall-wmt12",
              "--mean-removed", "--tsv", str(experiment))
    assert seg.returncode == 0, seg.stderr
    seg_rows = tsv(seg.stdout)
    assert {r["test"] for r in seg_rows} >= {"perm-both", "bootstrap"}
    assert any(r["variant"] == "mean-removed" for r in seg_rows)


def test_bad_assessments_file(experiment: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("UEdin 1 0.5\nUEdin 999 0.5\n", encoding="utf-8")
    out = run("iqeval", "-assessments", str(bad), "-G", "seg", str(experiment))
    assert out.returncode == 2 and "bad.tsv:2" in out.stderr


def test_compare_systems(experiment: Path) -> None:
    """-compareSystems, the older name of -compare: the paired tests of mteval.evaluate.compare."""
    out = run("iqeval", "-compareSystems", "-M", "BLEU", "--resamples", "100", "--trials", "200", "--tsv",
              str(experiment))
    assert out.returncode == 0, out.stderr
    rows = tsv(out.stdout)
    pairs = [r for r in rows if r["kind"] == "pair"]
    assert len(pairs) == 3 and len(rows) == 6 and {r["aggregate"] for r in rows} == {"stats"}
    cache = ScoreCache(experiment.parent / "cache")
    for r in pairs:
        # statistics are resampled: the observed difference is the corpus BLEU difference
        expected = cache.load(r["target"], "A_C_D", "BLEU").system - cache.load(r["baseline"], "A_C_D", "BLEU").system
        assert float(r["score"]) == pytest.approx(expected, abs=1e-9) and expected >= 0
        assert 0 < float(r["p_bs"]) <= 1 and 0 < float(r["p_ar"]) <= 1
        assert float(r["delta_low"]) <= float(r["delta"]) <= float(r["delta_high"])
