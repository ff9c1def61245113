"""Benchmark of ``mteval report`` (``make bench``): the full WMT21 ru-en campaign (10 systems x
1000 segments, references A and B, 30 lexical metrics, DA judgements) from a warm cache.

The cache (bench/out/report-ruen/cache) is filled once with ``iqsetup`` (lexical metrics only, so
it takes minutes, not hours); the report is then timed as a user runs it, through the command.
Targets: under 30 s, report file under 5 MB. Skipped without ../shared.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import yaml
from common import ROOT, WMT21_RUEN

OUT = ROOT / "bench" / "out" / "report-ruen"
METRICS = ["BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "BLEUi-1", "BLEUi-2", "BLEUi-3", "BLEUi-4",
           "NIST-1", "NIST-2", "NIST-3", "NIST-4", "NIST-5", "NISTi-2", "NISTi-3", "NISTi-4", "NISTi-5",
           "ROUGE-1", "ROUGE-2", "ROUGE-3", "ROUGE-4", "ROUGE-L", "ROUGE-W", "ROUGE-SU*",
           "chrF", "chrF++", "-TER", "-WER", "-PER", "GTM-1"]
TARGET_S, TARGET_MB = 30.0, 5.0


def config() -> Path:
    """The campaign's experiment file."""
    data = {"name": "wmt21-ruen", "cache": str(OUT / "cache"), "language": "en",
            "source": {"path": str(WMT21_RUEN / "src.ru"), "format": "plain"},
            "docids": {"path": str(WMT21_RUEN / "docids.tsv"), "column": "docid"},
            "references": {p.stem: str(p) for p in sorted((WMT21_RUEN / "refs").glob("*.en"))},
            "systems": {p.stem: str(p) for p in sorted((WMT21_RUEN / "sys").glob("*.en"))},
            "metrics": METRICS}
    path = OUT / "wmt21-ruen.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def assessments() -> Path:
    """WMT21 DA: raw segment scores (by line) and the official system z-scores, as
    'system segment score' rows (as bench_meta.py)."""
    human = WMT21_RUEN / "human"
    rows = ["system\tsegment\tscore"]
    for line in (human / "da_seg_scores.by_line.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        c = line.split("\t")
        if c[0] != "ref-B":
            rows.append(f"{c[0]}\t{c[3]}\t{c[6]}")
    names = {"Nemo": "NVIDIA-NeMo"}
    for line in (human / "ad-sys-scores-ru-en.csv").read_text(encoding="utf-8").splitlines()[1:]:
        z, system = line.split()[1], line.split()[3].rsplit(".", 1)[0]
        if system != "HUMAN":
            rows.append(f"{names.get(system, system)}\t-\t{z}")
    path = OUT / "da.tsv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def main() -> int:
    if not WMT21_RUEN.exists():
        print("../shared/data/wmt21-ruen is absent: skipped")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    experiment, human = config(), assessments()
    start = time.perf_counter()
    subprocess.run(["iqsetup", str(experiment)], check=True, capture_output=True)
    print(f"iqsetup (cold or warm cache): {time.perf_counter() - start:.1f} s")
    out = OUT / "report.html"
    command = [sys.executable, "-m", "mteval.cli.report", str(experiment), "-assessments", str(human), "-o", str(out)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stderr)
        return 1
    size = out.stat().st_size / 1e6
    print(f"mteval report, warm cache: {took:.1f} s (target < {TARGET_S:.0f} s); "
          f"{out.name} {size:.2f} MB (target < {TARGET_MB:.0f} MB); {len(METRICS)} metrics, 10 systems")
    return 0 if took < TARGET_S and size < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
