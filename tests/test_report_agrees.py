"""One decision rule: ``mteval report`` and ``iqeval -compare`` give the same clusters, scores,
intervals and p-values (the report's ``--json`` holds -compare's records verbatim), and every
number of the report's systems table is iqeval's for the same selection. Two campaigns: the
en-de sample (3 references, ROUGE's bootstrap system score beside summed-statistics metrics) and
the ru-en sample (2 references, documents), through the installed commands."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from helpers import ENDE, RUEN, ende_config, run

METRICS = ["BLEU", "chrF", "RG-L", "-TER", "NIST"]


def _ruen(tmp: Path) -> Path:
    """The ru-en sample with its document ids, cache in ``tmp``."""
    config = {"name": "ruen", "cache": str(tmp / "cache"), "source": str(RUEN / "src.ru"),
              "docids": {"path": str(RUEN / "docids.tsv"), "column": "docid"}, "language": "en",
              "references": {r: str(RUEN / "refs" / f"{r}.en") for r in ("A", "B")},
              "systems": {p.stem: str(p) for p in sorted((RUEN / "sys").glob("*.en"))}, "metrics": METRICS}
    path = tmp / "experiment.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return path


def _ende(tmp: Path) -> Path:
    systems = {p.stem: str(p) for p in sorted((ENDE / "sys").glob("*.de"))}
    return ende_config(tmp, systems=systems, metrics=METRICS)


def _json(*args: str) -> Any:
    done = run(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module", params=["ende", pytest.param("ruen", marks=pytest.mark.slow)])  # ruen ~6 s: test-all
def campaign(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """A scored campaign and its report's JSON (default test options, as -compare's)."""
    tmp = tmp_path_factory.mktemp(request.param)
    config = (_ende if request.param == "ende" else _ruen)(tmp)
    done = run("iqsetup", str(config), "-q")
    assert done.returncode == 0, done.stderr
    done = run("mteval", "report", str(config), "-o", str(tmp / "r.html"), "--json", str(tmp / "r.json"), "-q")
    assert done.returncode == 0, done.stderr
    return config, json.loads((tmp / "r.json").read_text(encoding="utf-8"))


def test_clusters_and_numbers_are_compares(campaign: tuple[Path, Any]) -> None:
    config, report = campaign
    assert report["compare"] == _json("iqeval", str(config), "-compare", "--json")
    assert {r["metric"] for r in report["compare"]} == set(METRICS)
    cells = {(r["target"], r["metric"]): r for r in report["systems"]}
    for record in report["compare"]:
        if record["kind"] == "system":
            cell = cells[(record["target"], record["metric"])]
            assert cell["cluster"] == record["cluster"]
            assert cell["score"] == pytest.approx(record["score"], abs=1e-12)
            assert (cell["ci_low"], cell["ci_high"]) == (record["ci_low"], record["ci_high"])


def test_system_scores_are_iqevals(campaign: tuple[Path, Any]) -> None:
    config, report = campaign
    scores = {(r["target"], r["metric"]): r["score"]
              for r in _json("iqeval", "-doOQ", "-G", "sys", str(config), "--json")}
    for cell in report["systems"]:
        assert math.isclose(cell["score"], scores[(cell["target"], cell["metric"])], rel_tol=0, abs_tol=1e-12)


def test_a_subset_and_another_test_agree_too(campaign: tuple[Path, Any], tmp_path: Path) -> None:
    config, _ = campaign
    options = ("-T", "1-40", "-M", "RG-L,chrF", "--test", "bs", "--correction", "none")
    done = run("mteval", "report", str(config), "-o", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json"),
               "-q", *options)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["compare"] == _json("iqeval", str(config), "-compare", "--json", *options)
    assert {r["test"] for r in report["compare"]} == {"bs"}


@pytest.mark.slow  # ~5 s: in make test-all (the fast tier stays under 8 minutes)
def test_human_numbers_are_iqevals(tmp_path: Path) -> None:
    """With judgements: the correlations (and their intervals) are ``iqeval -assessments``'s for
    the same resamples and seed; the rank agreement is its system-level accuracy and Kendall."""
    systems = {p.stem: str(p) for p in sorted((ENDE / "sys").glob("*.de"))}
    config = ende_config(tmp_path, systems=systems, metrics=["BLEU", "chrF", "RG-L"])
    human = str(ENDE / "human" / "mqm.tsv")
    assert run("iqsetup", str(config), "-q").returncode == 0
    done = run("mteval", "report", str(config), "-M", "BLEU,chrF,RG-L", "-assessments", human,
               "-o", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json"), "-q")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["human"]
    ask = ("iqeval", str(config), "-M", "BLEU,chrF,RG-L", "-assessments", human, "--seed", "12345", "--json")
    assert report["system"] == _json(*ask, "--corr", "pearson", "-G", "sys", "--resamples", "1000")
    assert report["segment"] == _json(*ask, "--corr", "pearson", "-G", "seg", "--resamples", "200")
    ranks = {(r["metric"], r["correlation"]): r["score"]
             for r in _json(*ask, "--corr", "accuracy,kendall", "-G", "sys")}
    assert len(report["agreement"]) == 3
    for a in report["agreement"]:
        assert a["accuracy"] == pytest.approx(ranks[(a["metric"], "accuracy")], abs=1e-12)
        assert a["kendall"] == pytest.approx(ranks[(a["metric"], "kendall")], abs=1e-12)


def test_qarla_numbers_are_iqevals(campaign: tuple[Path, Any]) -> None:
    """QUEEN (system level), KING and the greedy optimisation (segment level) as iqeval prints them
    (QARLA needs 3 references: the en-de sample)."""
    config, report = campaign
    if report["qarla"] is None:
        assert len(report["references"]) < 3
        return
    assert report["qarla"]["queen"] == _json("iqeval", "-doQUEEN", "-G", "sys", str(config), "--json")
    assert report["qarla"]["king"] == _json("iqeval", "-doKING", "-G", "seg", str(config), "--json")
    assert report["qarla"]["trace"] == _json("iqeval", "-optimizeKING", "-G", "seg", str(config), "--json")
