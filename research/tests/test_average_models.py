"""research/models/average_models.py: checkpoint averaging of the parser's snapshots (issue 15)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SHARED, load_model_script

torch = pytest.importorskip("torch")

UD = SHARED / "ud" / "en_ewt"
needs_ud = pytest.mark.skipif(not (UD / "en_ewt-ud-train.conllu").exists(),
                              reason="../shared/ud/en_ewt (UD English-EWT) is absent")


am = load_model_script("average_models")


def _model(weight: list[float], count: int = 3, config: dict | None = None) -> dict:
    return {"model": {"w": torch.tensor(weight, dtype=torch.float32), "n": torch.tensor([count])},
            "vocab": {"word": ["a", "b"]}, "config": config or {"hidden": 4}, "long_training": {"step": 1}}


def test_the_average_is_the_mean_of_every_float_weight() -> None:
    models = [_model([1.0, 2.0]), _model([2.0, 4.0]), _model([6.0, 0.0])]
    averaged = am.average(models)
    assert averaged["model"]["w"].tolist() == [3.0, 2.0] and averaged["model"]["w"].dtype == torch.float32
    assert averaged["model"]["n"].tolist() == [3]
    assert averaged["config"] == {"hidden": 4} and averaged["vocab"] == {"word": ["a", "b"]}
    assert am.average(models[:1])["model"]["w"].tolist() == [1.0, 2.0]  # one model: itself
    assert models[0]["model"]["w"].tolist() == [1.0, 2.0]  # the inputs are left as they were


def test_models_of_different_runs_are_refused() -> None:
    with pytest.raises(ValueError, match="configuration or vocabulary"):
        am.average([_model([1.0, 2.0], config={"hidden": 8}), _model([1.0, 2.0])])
    with pytest.raises(ValueError, match="non-float tensor differs"):
        am.average([_model([1.0, 2.0], count=4), _model([1.0, 2.0])])
    other = _model([1.0, 2.0])
    other["model"]["extra"] = torch.zeros(1)
    with pytest.raises(ValueError, match="different weights"):
        am.average([other, _model([1.0, 2.0])])
    with pytest.raises(ValueError, match="shapes differ"):
        am.average([_model([1.0, 2.0, 3.0]), _model([1.0, 2.0])])
    with pytest.raises(ValueError, match="nothing to average"):
        am.average([])


@pytest.mark.training
@needs_ud
@pytest.mark.shared
@pytest.mark.models
@pytest.mark.slow
def test_snapshots_of_a_run_are_averaged_and_the_best_on_dev_is_kept(tmp_path: Path) -> None:
    """A few parser steps on a few EWT sentences with ``--snapshots``; then the average of the last K for
    K = 1..3, scored on dev. K = 1 is the newest snapshot itself: its dev scores are the ones the training
    run recorded for it (the tool scores dev as train_long does)."""
    train_long = load_model_script("train_long")
    init = tmp_path / "depparse-copy.pt"
    init.write_bytes((train_long.SHIPPED / "depparse.pt").read_bytes())
    work = tmp_path / "work"
    command = [sys.executable, str(ROOT / "research" / "models" / "train_long.py"), "--work", str(work),
               "--ud", str(UD),
               "--no-prepare", "--limit-train", "40", "--limit-dev", "20", "--batch-size", "10", "--eval-every", "2",
               "--log-every", "100", "--max-steps", "6", "--phases", "retag,depparse",
               "--tagger", str(train_long.SHIPPED / "pos.pt"), "--depparse-init", str(init), "--snapshots"]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    snapshots = am.snapshots(work / "depparse")
    total = train_long.BASE_STEPS["depparse"]
    assert [p.name for p in snapshots] == [f"step-{total + s:06d}.pt" for s in (2, 4, 6)]
    gold = work / "slices" / "en_ewt.dev.conllu"  # the dev sentences the run scored
    assert gold.is_file()
    done = subprocess.run([sys.executable, str(ROOT / "research" / "models" / "average_models.py"), "--work", str(work),
                           "--gold-dev", str(gold), "--max-k", "3"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((work / "depparse" / "averaged.json").read_text(encoding="utf-8"))
    rows = record["searched"]
    assert [r["k"] for r in rows] == [1, 2, 3] and rows[2]["from"] == snapshots[0].name
    newest = am.load(snapshots[-1])["long_training"]["scores"]
    assert rows[0]["LAS"] == pytest.approx(newest["LAS"], abs=1e-9)
    best = max(rows, key=lambda r: (r["LAS"], -r["k"]))
    assert record["chosen_k"] == best["k"] and record["dev"]["LAS"] == best["LAS"]
    assert record["chosen"] == [p.name for p in snapshots[-best["k"]:]]
    shipped = am.load(work / "depparse" / "averaged.pt")
    assert shipped["long_training"]["averaged"] == record["chosen"]
    expected = am.average([am.load(p) for p in snapshots[-best["k"]:]])
    assert all(torch.equal(shipped["model"][k], v) for k, v in expected["model"].items())
    assert not list((work / "depparse").glob(".averaged.pt.k*"))  # the other candidates are removed
