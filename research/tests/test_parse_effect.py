"""research/validity_study.py ``parses``: a syntactic metric with other parses against the same metric with the
embedded ones, on the same judged points (issue 15, item 3). Synthetic points; the statistics are real."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import ROOT

from mteval.meta.stats.judged import Judged


def _study() -> ModuleType:
    spec = importlib.util.spec_from_file_location("validity_study", ROOT / "research" / "validity_study.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["validity_study"] = module
    spec.loader.exec_module(module)
    return module


def _points(metric: np.ndarray, human: np.ndarray, items: np.ndarray) -> Judged:
    n = len(human)
    systems = np.arange(n) % 4
    return Judged(np.column_stack([metric, metric]), ("SP-Op(*)", "EDPM"), human, items, systems,
                  items // 5, np.ones(n), np.ones(2))


def test_better_parses_show_as_a_positive_paired_difference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    study = _study()
    rng = np.random.default_rng(0)
    human = rng.normal(size=400)
    items = np.repeat(np.arange(100), 4)
    noisy, clean = human + rng.normal(scale=3, size=400), human + rng.normal(scale=0.5, size=400)
    folders = {tmp_path / "new": _points(clean, human, items), tmp_path / "old": _points(noisy, human, items)}
    monkeypatch.setattr(study, "judged_points", lambda out, name, features: (folders[out], None))
    rows = study.parse_effect(tmp_path / "new", tmp_path / "old", "ruen", ["BLEU", "SP-Op(*)", "EDPM"], n=200)
    assert [r["metric"] for r in rows] == ["SP-Op(*)", "EDPM"]  # the lexical metrics do not depend on parses
    row = rows[0]
    assert row["tau_b_new"] > row["tau_b_old"] and row["tau_b"] == pytest.approx(row["tau_b_new"] - row["tau_b_old"])
    assert row["tau_b_low"] > 0 and row["changed_points"] == 400
    study.write_tsv(tmp_path / "parses.tsv", rows)
    text = study.parse_effect_markdown(study._read_tsv(tmp_path / "parses.tsv"))
    assert text.count("\n") == 4 and "| SP | SP-Op(*) |" in text
    folders[tmp_path / "old"] = _points(noisy[::-1].copy(), human[::-1].copy(), items)  # other points
    with pytest.raises(SystemExit, match="do not have the same judged points"):
        study.parse_effect(tmp_path / "new", tmp_path / "old", "ruen", ["EDPM"], n=50)
