"""research/models/train_long.py: atomic checkpoints, the learning curve, and resuming after a kill.

The resume tests run the driver on a few EWT sentences (batches of 10, dev every 2 steps, one niced
thread) from ../shared/ud/en_ewt, and check that a run stopped (SIGKILL, or a segment's end) and resumed
reaches the same cumulative step count, the same learning curve and bit-identical weights as an
uninterrupted run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, SHARED, load_model_script

torch = pytest.importorskip("torch")

SCRIPT = ROOT / "research" / "models" / "train_long.py"
UD = SHARED / "ud" / "en_ewt"
needs_ud = pytest.mark.skipif(not (UD / "en_ewt-ud-train.conllu").exists(),
                              reason="../shared/ud/en_ewt (UD English-EWT) is absent")
# patience 4: on these 40 sentences both models switch to their second optimizer and stop early within 20 steps
TINY = ["--no-prepare", "--limit-train", "40", "--limit-dev", "20", "--batch-size", "10", "--eval-every", "2",
        "--patience", "4", "--log-every", "100"]


tl = load_model_script("train_long")


def _command(work: Path, *extra: str) -> list[str]:
    return ["nice", "-n", "19", sys.executable, str(SCRIPT), "--work", str(work), "--ud", str(UD), *TINY, *extra]


def _env() -> dict[str, str]:
    return dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def _run(work: Path, *extra: str) -> str:
    done = subprocess.run(_command(work, *extra), env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _weights(folder: Path) -> dict:
    return torch.load(folder / "checkpoint.pt", map_location="cpu", weights_only=False)


def _same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _curve(folder: Path) -> list[list[str]]:
    # step, total_step, the scores, best, optimizer (not the timings)
    return [[r[k] for k in list(r)[:-4]] for r in tl.read_curve(folder / "curve.tsv")]


def test_checkpoint_is_atomic_and_falls_back_to_the_previous_one(tmp_path: Path) -> None:
    tl.save_checkpoint(tmp_path, {"step": 200, "model": {"w": torch.ones(3)}})
    assert not (tmp_path / "checkpoint.prev.pt").exists()
    tl.save_checkpoint(tmp_path, {"step": 400, "model": {"w": torch.zeros(3)}})
    assert tl.load_checkpoint(tmp_path)["step"] == 400
    assert torch.load(tmp_path / "checkpoint.prev.pt", weights_only=False)["step"] == 200
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]
    # a torn write of checkpoint.pt (cannot happen through os.replace, but a disk can lose it): previous one
    data = (tmp_path / "checkpoint.pt").read_bytes()
    (tmp_path / "checkpoint.pt").write_bytes(data[: len(data) // 2])
    assert tl.load_checkpoint(tmp_path)["step"] == 200
    # killed between the two renames: only checkpoint.prev.pt is there
    (tmp_path / "checkpoint.pt").unlink()
    assert tl.load_checkpoint(tmp_path)["step"] == 200
    (tmp_path / "checkpoint.prev.pt").unlink()
    assert tl.load_checkpoint(tmp_path) is None


def test_rng_state_round_trip(tmp_path: Path) -> None:
    tl.seed_everything(7)
    tl.save_checkpoint(tmp_path, {"step": 1, "rng": tl.rng_state()})
    first = (torch.rand(3), __import__("random").random())
    tl.seed_everything(8)
    tl.set_rng_state(tl.load_checkpoint(tmp_path)["rng"])
    again = (torch.rand(3), __import__("random").random())
    assert torch.equal(first[0], again[0]) and first[1] == again[1]


def test_curve_is_rebuilt_from_the_history(tmp_path: Path) -> None:
    rows = [{"step": s, "total_step": 3000 + s, "UAS": 80.0 + s / 100, "LAS": 76.0, "best": 1, "optimizer": "adam",
             "train_loss": None if s == 0 else 0.5, "sec_per_step": None if s == 0 else 1.6, "wall_s": 1.6 * s,
             "timestamp": "2026-01-01T00:00:00Z"} for s in (0, 200, 400)]
    path = tmp_path / "curve.tsv"
    tl.write_curve(path, rows[:2], tl.DEP_METRICS)
    tl.append_curve(path, rows[2], tl.DEP_METRICS)
    read = tl.read_curve(path)
    assert [r["step"] for r in read] == ["0", "200", "400"]
    assert read[1]["UAS"] == "82.00" and read[2]["total_step"] == "3400" and read[0]["train_loss"] == ""
    tl.write_curve(path, rows[:1], tl.DEP_METRICS)  # a resume from the step-0 checkpoint drops the later rows
    assert [r["step"] for r in tl.read_curve(path)] == ["0"]


@pytest.mark.training
@needs_ud
@pytest.mark.shared
@pytest.mark.models
@pytest.mark.slow
def test_tagger_resumes_exactly_after_sigkill(tmp_path: Path) -> None:
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    out = _run(straight, "--phases", "pos", "--max-steps", "40")
    assert "switching to the second optimizer (amsgrad)" in out and "early stop" in out
    # the same run with a high cap, killed (SIGKILL) once its curve shows the step-4 checkpoint
    proc = subprocess.Popen(_command(killed, "--phases", "pos", "--max-steps", "400"), env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    curve = killed / "pos" / "curve.tsv"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if curve.exists() and len(curve.read_text().splitlines()) >= 4:  # header + steps 0, 2, 4
                break
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    at_kill = tl.load_checkpoint(killed / "pos")["step"]
    assert 4 <= at_kill < 10, f"killed at step {at_kill}"
    out = _run(killed, "--phases", "pos", "--max-steps", "40")
    base = tl.base_steps("pos", tl.SHIPPED / "pos.pt")  # the shipped tagger's steps (PROVENANCE.json)
    assert f"resumed at step {at_kill} (total {base + at_kill})" in out
    a, b = _weights(straight / "pos"), _weights(killed / "pos")
    # the resumed run trained past the kill and stopped early (the step numbers follow the shipped tagger)
    assert a["step"] == b["step"] and b["total_step"] == base + b["step"] and at_kill < b["step"] < 40
    assert b["opt_stage"] == 1 and b["switch_step"] == a["switch_step"]  # the second optimizer, from the same step
    assert _curve(straight / "pos") == _curve(killed / "pos")
    assert [int(r["step"]) for r in tl.read_curve(killed / "pos" / "curve.tsv")] == list(range(0, b["step"] + 1, 2))
    assert _same_weights(a["model"], b["model"])
    assert (killed / "pos" / "DONE.json").exists() and (killed / "pos" / "best.pt").exists()
    best = torch.load(killed / "pos" / "best.pt", map_location="cpu", weights_only=True)
    assert best["long_training"]["step"] == b["best"]["step"] and "vocab" in best and "config" in best


@pytest.mark.training
@needs_ud
@pytest.mark.shared
@pytest.mark.models
@pytest.mark.slow
def test_parser_segments_resume_exactly(tmp_path: Path) -> None:
    """The parser starts from a copy of the shipped one, so its step count is :data:`BASE_STEPS` (3,000),
    below stanza's switch to Adam at total step 10,000 (the shipped parser has passed it: from the shipped
    file the switch is at step 0), and both optimizers train and resume. The step numbers follow the
    shipped parser's dynamics on the tiny data: switch at 4 (patience), early stop at 8."""
    init = tmp_path / "depparse-copy.pt"
    init.write_bytes((tl.SHIPPED / "depparse.pt").read_bytes())
    tagger = ["--phases", "retag,depparse", "--tagger", str(tl.SHIPPED / "pos.pt"), "--depparse-init", str(init)]
    straight, segmented = tmp_path / "straight", tmp_path / "segmented"
    out = _run(straight, *tagger, "--max-steps", "40")
    assert "switching to the second optimizer (adam) at step 4" in out and "early stop at step 8" in out
    # segments of 3 steps: the first stops between two evaluations, the second switches optimizer, the third
    # resumes with the second optimizer and stops early
    out = _run(segmented, *tagger, "--max-steps", "40", "--segment-steps", "3")
    assert "depparse: segment after 3 steps" in out
    assert tl.load_checkpoint(segmented / "depparse")["step"] == 3
    out = _run(segmented, *tagger, "--max-steps", "40", "--segment-steps", "3")
    base = tl.base_steps("depparse", init)
    assert base == tl.BASE_STEPS["depparse"]
    assert f"resumed at step 3 (total {base + 3})" in out and "retagging" not in out  # the retag is done once
    assert "switching to the second optimizer (adam) at step 4" in out
    assert tl.load_checkpoint(segmented / "depparse")["opt_stage"] == 1
    out = _run(segmented, *tagger, "--max-steps", "40", "--segment-steps", "3")
    assert f"resumed at step 6 (total {base + 6}), best LAS" in out and "optimizer adam" in out
    assert "early stop at step 8" in out and (segmented / "depparse" / "DONE.json").exists()
    a, b = _weights(straight / "depparse"), _weights(segmented / "depparse")
    assert a["step"] == b["step"] == 8 and a["opt_stage"] == b["opt_stage"] == 1
    assert _curve(straight / "depparse") == _curve(segmented / "depparse")
    assert _same_weights(a["model"], b["model"])
    assert a["optim"]["schedulers"] == b["optim"]["schedulers"]


def test_the_tagger_can_have_its_own_step_cap() -> None:
    """``--pos-max-steps`` caps the tagger alone (the parser keeps ``--max-steps``); a cap may change on resume."""
    both = tl.parse_args(["--max-steps", "20000"])
    assert tl.step_cap(both, "pos") == tl.step_cap(both, "depparse") == 20000
    tagger = tl.parse_args(["--max-steps", "20000", "--pos-max-steps", "6000"])
    assert tl.step_cap(tagger, "pos") == 6000 and tl.step_cap(tagger, "depparse") == 20000
    assert tl.step_cap(tl.parse_args([]), "depparse") == 0  # no cap


def test_the_device_is_an_option() -> None:
    assert tl.parse_args([]).device == "cpu" and tl.parse_args(["--device", "cuda"]).device == "cuda"


@pytest.mark.training
@needs_ud
@pytest.mark.shared
@pytest.mark.models
@pytest.mark.slow
def test_a_gpu_sitting_dry_run_on_the_cpu_leaves_models_and_curves(tmp_path: Path) -> None:
    """research/models/gpu_sitting.sh as the device runs it, on this machine's CPU with the installed stanza and a
    few sentences: both trainings finish, and their best models (the parser's in parts) and curves come out."""
    import lzma
    import tarfile

    data, out = tmp_path / "ud", tmp_path / "out"
    data.mkdir()
    out.mkdir()
    for split in ("train", "dev", "test"):
        blocks = (UD / f"en_ewt-ud-{split}.conllu").read_text(encoding="utf-8").split("\n\n")[:30]
        (data / f"en_ewt.{split}.conllu.xz").write_bytes(lzma.compress(("\n\n".join(blocks) + "\n\n").encode()))
    env = dict(_env(), OUT=str(out), UD_XZ=str(data), WHEELS="none", DEVICE="cpu", DEADLINE="200",
               WORK=str(tmp_path / "work"),
               EXTRA="--batch-size 10 --eval-every 2 --patience 2 --max-steps 6")
    done = subprocess.run(["bash", str(ROOT / "research" / "models" / "gpu_sitting.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    parts = sorted(out.glob("depparse.best.pt.part*"))
    assert len(parts) == 3 and all(p.stat().st_size <= 15 * 2**20 for p in parts)
    assert b"".join(p.read_bytes() for p in parts) == (tmp_path / "work" / "dep" / "depparse" / "best.pt").read_bytes()
    best = torch.load(out / "pos.best.pt", map_location="cpu", weights_only=True)
    assert "long_training" in best and "vocab" in best
    with tarfile.open(out / "curves.tgz") as tar:
        names = set(tar.getnames())
    assert {"pos/pos/curve.tsv", "dep/depparse/curve.tsv", "pos/pos/DONE.json", "dep/depparse/DONE.json"} <= names
    for log in ("pos.log", "depparse.log"):
        assert "all phases done" in (out / log).read_text()
