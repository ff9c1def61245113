"""Benchmark (issue 35): iqsetup end to end at 10,000 segments x 10 systems against jiwer and rouge-score.

The workload is made from ``../shared/data/wmt21-ruen`` (1000 segments, 10 systems, reference A): 10
blocks of its lines, block ``k`` pairing system ``s`` with system ``(s + k) mod 10``'s lines, every
line (hypotheses and reference) ending with the token ``bK``, so that no (hypothesis, reference) pair
repeats (no cache can help). Measured, each in a fresh process: ``iqsetup`` on an experiment of the
10 systems (``-j 1``, and iqsetup's default worker processes) with

* ``BLEU`` (mteval-v13a's) and ``sacreBLEU`` against sacreBLEU 2.6.0's own command line (one process
  for all systems: ``sacrebleu REF -i SYS... -m bleu -b``);
* ``WER`` against jiwer 4 (one process per system: ``process_words`` of the system's lines, every
  segment's WER from its alignment, written out);
* ``ROUGE-1``, ``ROUGE-2``, ``ROUGE-L`` (ROUGE-1.5.5's, bootstrap system score) and rouge-score's
  own ``rouge1(stem=yes)``, ``rouge2(stem=yes)``, ``rougeL(stem=yes)`` against rouge-score 0.1.2
  (one process per system: ``RougeScorer(['rouge1', 'rouge2', 'rougeL'], use_stemmer=True)``, one
  ``score`` a segment, the mean).

CPU seconds (user + system, the process and its workers) and the peak resident memory of the
largest process; iqsetup's time includes reading the texts and writing its score files. Each row
runs its commands ``--repeat`` times (default 3), ours and the peer's taking turns, and shows the
medians, so that a machine busy with other work slows both alike.

    python bench/bench_peers_10k.py [--keep DIR] [--repeat N] [--only bleu,wer,rouge,rouge-score]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ruen"
BLOCKS = 10
JIWER = """
import sys, jiwer
ref, hyp = (open(p, encoding="utf-8").read().split("\\n")[:-1] for p in sys.argv[1:3])
out = jiwer.process_words(ref, hyp)
errors = [sum(max(c.ref_end_idx - c.ref_start_idx, c.hyp_end_idx - c.hyp_start_idx) for c in chunks
              if c.type != "equal") for chunks in out.alignments]
segments = [e / len(r) if r else float(e) for e, r in zip(errors, out.references)]
open(sys.argv[3], "w").write(f"{out.wer}\\n" + "".join(f"{s}\\n" for s in segments))
"""
ROUGE_SCORE = """
import sys
import numpy as np
from rouge_score import rouge_scorer
ref, hyp = (open(p, encoding="utf-8").read().split("\\n")[:-1] for p in sys.argv[1:3])
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
scores = [scorer.score(r, h) for r, h in zip(ref, hyp)]
with open(sys.argv[3], "w") as f:
    for t in ("rouge1", "rouge2", "rougeL"):
        values = [s[t].fmeasure for s in scores]
        f.write(f"{t} {np.mean(values)}\\n" + "".join(f"{v}\\n" for v in values))
"""


def workload(folder: Path, blocks: int = BLOCKS, n_systems: int | None = None) -> list[Path]:
    """Write the reference and the systems' texts (``blocks`` copies of the 1000 lines, the first
    ``n_systems`` systems, default all 10); the systems' files."""
    def lines(path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").split("\n")[:-1]

    names = sorted(p.stem for p in (SHARED / "sys").glob("*.en"))
    texts = {s: lines(SHARED / "sys" / f"{s}.en") for s in names}
    ref = lines(SHARED / "refs" / "A.en")
    (folder / "ref.txt").write_text("".join(f"{r} b{k}\n" for k in range(blocks) for r in ref), encoding="utf-8")
    systems = []
    for j in range(len(names) if n_systems is None else n_systems):
        path = folder / f"sys{j}.txt"
        path.write_text("".join(f"{h} b{k}\n" for k in range(blocks) for h in texts[names[(j + k) % len(names)]]),
                        encoding="utf-8")
        systems.append(path)
    return systems


def measured(command: list[str]) -> tuple[float, int]:
    """CPU seconds (user + system, with its waited-for children) and peak RSS (kB) of one command."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if status:
        raise RuntimeError(f"{command[:3]} failed: {process.stderr.read().decode() if process.stderr else ''}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def iqsetup(folder: Path, systems: list[Path], metrics: list[str], jobs: list[str], name: str) -> tuple[float, int]:
    """iqsetup of a fresh experiment ``name`` over the systems with ``metrics``."""
    config = {"name": name, "cache": str(folder / f"cache-{name}"), "references": {"A": str(folder / "ref.txt")},
              "systems": {p.stem: str(p) for p in systems}, "metrics": metrics}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    shutil.rmtree(folder / f"cache-{name}", ignore_errors=True)
    return measured([str(Path(sys.executable).with_name("iqsetup")), "-q", *jobs, str(path)])


def peer(folder: Path, systems: list[Path], script: str) -> tuple[float, int]:
    """A peer's script once per system (one process each): summed CPU, the largest peak RSS."""
    runs = [measured([sys.executable, "-c", script, str(folder / "ref.txt"), str(p), str(folder / f"{p.stem}.out")])
            for p in systems]
    return sum(cpu for cpu, _ in runs), max(rss for _, rss in runs)


def sacrebleu(folder: Path, systems: list[Path]) -> tuple[float, int]:
    """sacreBLEU's command line, one process for all systems."""
    script = str(Path(sys.executable).with_name("sacrebleu"))
    return measured([script, str(folder / "ref.txt"), "-i", *map(str, systems), "-m", "bleu", "-b"])


ROWS = {  # task: (label, mteval metrics, peer)
    "bleu": ("BLEU (mteval-v13a)", ["BLEU"], "sacreBLEU"),
    "sacrebleu": ("sacreBLEU", ["sacreBLEU"], "sacreBLEU"),
    "wer": ("WER", ["WER"], "jiwer"),
    "rouge": ("ROUGE-1/2/L", ["ROUGE-1", "ROUGE-2", "ROUGE-L"], "rouge-score"),
    "rouge-score": ("rouge1/2/L(stem=yes)", ["rouge1(stem=yes)", "rouge2(stem=yes)", "rougeL(stem=yes)"],
                    "rouge-score"),
}


def median(runs: list[tuple[float, int]]) -> tuple[float, int]:
    """The median CPU seconds and the median peak RSS of some runs of one command."""
    return statistics.median(r[0] for r in runs), int(statistics.median(r[1] for r in runs))


def task_rows(folder: Path, systems: list[Path], task: str, repeat: int) -> list[list[str]]:
    """The rows of one task: iqsetup -j 1 and default jobs beside the peer, runs taking turns."""
    label, metrics, name = ROWS[task]
    def theirs() -> tuple[float, int]:
        if name == "sacreBLEU":
            return sacrebleu(folder, systems)
        return peer(folder, systems, JIWER if name == "jiwer" else ROUGE_SCORE)
    runs = [(iqsetup(folder, systems, metrics, ["-j", "1"], f"{task}1"), iqsetup(folder, systems, metrics, [], task),
             theirs()) for _ in range(repeat)]
    peer_cpu, peer_rss = median([r[2] for r in runs])
    rows = []
    for k, jobs in ((0, "-j 1"), (1, "(default jobs)")):
        cpu, rss = median([r[k] for r in runs])
        rows.append([f"iqsetup {label} {jobs} vs {name}", f"{cpu:.2f}", f"{rss / 1024:.0f}", f"{peer_cpu:.2f}",
                     f"{peer_cpu / cpu:.1f}x", f"{peer_rss / 1024:.0f}"])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", help="write the workload and caches here (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command, taking turns; medians shown")
    parser.add_argument("--only", default=",".join(ROWS), help="comma-separated tasks: " + ",".join(ROWS))
    args = parser.parse_args()
    if not SHARED.exists():
        print(f"skipped: {SHARED} not found (needs ../shared)")
        return 0
    with tempfile.TemporaryDirectory(prefix="mteval-bench-10k-") as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        systems = workload(folder)
        rows = [[f"workload (10,000 segments x 10 systems; median of {args.repeat})", "CPU s", "peak RSS MB",
                 "peer CPU s", "ratio", "peer RSS MB"]]
        for task in args.only.split(","):
            rows += task_rows(folder, systems, task, args.repeat)
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        print("\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows))
        print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
