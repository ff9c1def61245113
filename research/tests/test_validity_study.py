"""research/validity_study.py builds its three experiments from ../shared/data correctly (no scoring here)."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT, SHARED, needs_shared

pytestmark = [needs_shared, pytest.mark.shared]
DATA = SHARED / "data"


def _study() -> ModuleType:
    spec = importlib.util.spec_from_file_location("validity_study", ROOT / "research" / "validity_study.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["validity_study"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, Path, dict]:
    if not (DATA / "wmt21-ruen").is_dir():
        pytest.skip("../shared/data/wmt21-ruen is absent")
    study = _study()
    sets = study.datasets(DATA)
    out = tmp_path_factory.mktemp("validity")
    for ds in sets.values():
        study.build(ds, out)
    return study, out, sets


def _judgements(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.parametrize("name,systems,lines,points", [("ruen", 10, 1000, 8926), ("zhen", 8, 650, 5200),
                                                       ("ende", 8, 527, 4216)])
def test_counts_and_no_nan(built: tuple, name: str, systems: int, lines: int, points: int) -> None:
    study, out, sets = built
    folder = out / f"wmt21-{name}"
    rows = _judgements(folder / "human.tsv")
    assert len(rows) == points
    assert len({r["system"] for r in rows}) == systems
    assert all(math.isfinite(float(r["score"])) for r in rows)
    assert len({(r["system"], r["segment"]) for r in rows}) == points  # one score per system and line
    assert all(1 <= int(r["segment"]) <= lines for r in rows)
    config = json.loads((folder / "experiment.yaml").read_text(encoding="utf-8"))
    assert sorted(config["systems"]) == sorted({r["system"] for r in rows})
    for path in [config["source"]["path"], *config["references"].values(), *config["systems"].values()]:
        assert len(Path(path).read_text(encoding="utf-8").split("\n")[:-1]) == lines
    docids = _judgements(folder / "docids.tsv")
    assert [int(r["line"]) for r in docids] == list(range(1, lines + 1))
    assert config["metrics"] == sets[name].metrics
    assert ("SP-Op(*)" in config["metrics"]) == (name != "ende")  # no German parser: lexical only


def test_ruen_lines_and_scores_follow_the_by_line_file(built: tuple) -> None:
    _, out, _ = built
    by_line = {(r["system"], int(r["line"])): float(r["z"]) for r in _judgements(
        DATA / "wmt21-ruen" / "human" / "da_seg_scores.by_line.tsv") if r["system"] != "ref-B"}
    ours = {(r["system"], int(r["segment"])): float(r["score"]) for r in _judgements(out / "wmt21-ruen" / "human.tsv")}
    assert ours == by_line
    hyp = (out / "wmt21-ruen" / "sys" / "Online-B.en").read_text(encoding="utf-8")
    assert hyp == (DATA / "wmt21-ruen" / "sys" / "Online-B.en").read_text(encoding="utf-8")


def test_mqm_subset_is_aligned_with_the_original_lines(built: tuple) -> None:
    study, out, sets = built
    for name, mqm_name, system, language in (("zhen", "Online-W", "Online-W", "en"),
                                             ("ende", "Nemo", "NVIDIA-NeMo", "de")):
        ds = sets[name]
        mqm = study.read_mqm(DATA / f"wmt21-{name}" / "human" / f"mqm_newstest2021_{name}.avg_seg_scores.tsv")
        original = (DATA / f"wmt21-{name}" / "sys" / f"{system}.{language}").read_text(encoding="utf-8").split("\n")
        ours = (out / f"wmt21-{name}" / "sys" / f"{system}.{language}").read_text(encoding="utf-8").split("\n")
        scores = {int(r["segment"]): float(r["score"]) for r in _judgements(out / f"wmt21-{name}" / "human.tsv")
                  if r["system"] == system}
        for i, k in enumerate(ds.lines, start=1):
            assert ours[i - 1] == original[k - 1]
            assert scores[i] == mqm[mqm_name][k]
        assert sorted(ds.lines) == sorted(mqm[mqm_name])  # every rated line, nothing else


def test_model_paths_go_into_the_experiment(tmp_path: Path) -> None:
    """``--model-paths``: the experiment parses with the given models (issue 15: old vs new)."""
    if not (DATA / "wmt21-ruen").is_dir():
        pytest.skip("../shared/data/wmt21-ruen is absent")
    study = _study()
    ruen = study.datasets(DATA)["ruen"]
    config = json.loads(study.build(ruen, tmp_path, {"depparse": "new/depparse.pt"}).read_text(encoding="utf-8"))
    assert config["annotation"] == {"model_paths": {"depparse": str(Path("new/depparse.pt").resolve())}}
    plain = json.loads(study.build(ruen, tmp_path / "plain").read_text(encoding="utf-8"))
    assert "annotation" not in plain
