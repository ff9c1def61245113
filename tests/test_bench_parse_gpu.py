"""The prepared GPU bench (issue 32) still runs: a lent GPU is rare and its minutes are few, so a
script broken since it was last lent wastes them. Here each script runs on the CPU on the bundled
ru-en sample (``--device cpu``), and the shell wrapper prints its steps (``DRY_RUN=1``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("stanza", reason="needs Stanza and torch: pip install -e '.[syntax]'")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "wmt21-ruen-sample"
pytestmark = [pytest.mark.models, pytest.mark.slow]  # ~40 s: model loads in several processes


def bench(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-W", "ignore", str(ROOT / "bench" / script), "--data", str(SAMPLE),
                           "--device", "cpu", *args], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_gpu_bench_runs_every_row_on_the_cpu(tmp_path: Path) -> None:
    out = bench("bench_parse_gpu.py", "--subset", "4", "--shuffled", "8", "--first", "24", "--annotator", "40",
                "--pool", "2,x,1b,1bh", "--pool-segments", "60", "--workers", "2,1bh", "--out", str(tmp_path))
    table = out[out.rindex("run "):]
    for row in ("pool cpu, 2 worker(s), steady", "pool cpu, 1 worker(s), Stanza's batches",
                "pool cpu, 1 worker(s), tokenize/mwt/lemma on the CPU, Stanza's batches",
                "annotator cpu, 1 worker(s), tokenize/mwt/lemma on the CPU", "gpu float64 batched",
                "gpu float64 shuffled", "gpu float64 alone",
                "cpu float64 batched", "cpu float32 today"):
        assert row in table, row
    assert "pool cpu, x " in table and "ValueError" in table  # a row that fails says so; the rest run
    assert "60 parsed" in table and "shards identical to the first's: True" in table
    assert "8 / 8 / 8" in table  # the shuffled segments: the same bytes
    assert "stages, ms a sentence: depparse" in out
    assert (tmp_path / "fingerprints.pkl").stat().st_size > 0


def test_the_kernel_profile_runs_on_the_cpu() -> None:
    out = bench("profile_gpu_kernels.py", "--segments", "12")
    assert out.count("12 segments: wall") == 3 and "GPU kernels 0.000 ms a sentence" in out
    assert "tokenize/mwt/lemma on the CPU, Stanza's batches pos 1000 pos_tokens 40000:" in out


def test_the_wrapper_prints_its_steps() -> None:
    env = {**os.environ, "DRY_RUN": "1", "DATA": str(SAMPLE)}
    done = subprocess.run(["bash", str(ROOT / "bench" / "bench_parse_gpu.sh")], capture_output=True, text=True,
                          env=env, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    steps = [line for line in done.stderr.splitlines() if line.startswith("+ ")]
    assert "profile_gpu_kernels.py" in steps[-2] and "--pool 12bh,16bh,12b,12 --workers 12,12bh" in steps[-1], steps
