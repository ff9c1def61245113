"""End to end, as users time it: the installed commands beside the peers' own command lines (issue 12).

Each row runs whole processes (start-up, reading, tokenising, scoring, writing) on WMT21 ru-en, 10
systems x 1000 segments against reference A, and reports the children's CPU seconds and the wall
time: `iqsetup` on a fresh cache (one metric family per run; with -j 1 and with the default, one process
per core) beside `sacrebleu` (one process for
all systems), `jiwer` and `rouge-score` (one process per system: their command lines take one
file pair). The last row is the start-up cost: `iqsetup` of one segment. Skips without ../shared.
Each row is the best of ``--repeat`` runs (default 3), the three commands taking turns, so that a
busy machine slows them alike. mteval's modules are byte-compiled first, as ``pip install`` leaves
them (a run should not count compiling its own code). Every command is the interpreter's own script
(``bin/iqsetup`` beside ``sys.executable``), as a virtual environment's users run it, not a version
manager's shim (pyenv's adds about 0.05 s of bash to each process, ours and the peers' alike).

    python bench/bench_cli.py            # every row
    python bench/bench_cli.py --only bleu,chrf --repeat 5
    python bench/bench_cli.py --scale    # issue 35: every lexical family at 1k, 10k and 100k segments

``--scale`` runs ``iqsetup -j 1`` (one process, so its peak RSS is the run's) on a fresh cache for
each lexical family at each size (``--sizes``, ``--systems`` systems; the segments are WMT21 ru-en's
1000 lines repeated with a distinct token per copy, as ``bench_peers_10k.py`` makes them, so no
segment repeats), with the peer's own command line beside it where one exists and is affordable
(``--no-peers`` leaves them out), and prints CPU seconds, peak RSS and each size's time over the
previous size's: about 10 for linear time.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import yaml
from bench_peers_10k import JIWER, ROUGE_SCORE, measured, workload
from common import WMT21_RUEN, table

SYSTEMS = sorted(p.stem for p in (WMT21_RUEN / "sys").glob("*.en")) if WMT21_RUEN.exists() else []
REFERENCE = WMT21_RUEN / "refs" / "A.en"


def command(name: str) -> str:
    """The console script ``name`` of this interpreter's installation (else the one on PATH)."""
    script = Path(sys.executable).parent / name
    return str(script) if script.is_file() else shutil.which(name) or name


def run_children(commands: Sequence[Sequence[str]]) -> tuple[float, float]:
    """(CPU seconds of the children, wall seconds) of running the commands one after another."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for command in commands:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def iqsetup_command(work: Path, metrics: list[str], systems: Sequence[str] = SYSTEMS,
                    reference: Path = REFERENCE) -> list[str]:
    """A fresh experiment in ``work`` computing ``metrics``; the command that runs it."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    config = {"name": "bench", "cache": str(work / "cache"), "language": "en",
              "references": {"A": str(reference)},
              "systems": {s: str(WMT21_RUEN / "sys" / f"{s}.en") for s in systems}, "metrics": metrics}
    path = work / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return [command("iqsetup"), "-q", str(path)]


SACREBLEU_ARGS = {  # task: sacreBLEU's options (one process for all systems)
    "bleu": ["-m", "bleu"], "bleu-only": ["-m", "bleu"], "chrf": ["-m", "chrf"],
    "sacrebleu": ["-m", "bleu"], "sacrebleu-intl": ["-m", "bleu", "-tok", "intl"],
    "sacrebleu-zh": ["-m", "bleu", "-tok", "zh"], "chrf3": ["-m", "chrf", "--chrf-beta", "3"],
}


def peer_commands(task: str, work: Path) -> list[list[str]]:
    """The peer's command lines for a task."""
    outputs = [str(WMT21_RUEN / "sys" / f"{s}.en") for s in SYSTEMS]
    if task in SACREBLEU_ARGS:
        return [[command("sacrebleu"), str(REFERENCE), "-i", *outputs, *SACREBLEU_ARGS[task], "-b"]]
    if task == "wer":
        return [[command("jiwer"), "-r", str(REFERENCE), "-h", out] for out in outputs]
    return [[sys.executable, "-m", "rouge_score.rouge", "--rouge_types=rouge1,rouge2,rougeL",
             f"--target_filepattern={REFERENCE}", f"--prediction_filepattern={out}",
             f"--output_filename={work / 'rouge.csv'}"] for out in outputs]


TASKS = {  # task: (mteval metrics, what the peer computes)
    "bleu": (["BLEU", "NIST"], "sacreBLEU BLEU"),
    "bleu-only": (["BLEU"], "sacreBLEU BLEU"),  # what sacreBLEU computes, and only that
    "chrf": (["chrF"], "sacreBLEU chrF"),
    # sacreBLEU's options as mteval names (issue 33): the same numbers as sacreBLEU's command line
    "sacrebleu": (["sacreBLEU"], "sacreBLEU BLEU"),
    "sacrebleu-intl": (["sacreBLEU(tok=intl)"], "sacreBLEU BLEU -tok intl"),
    "sacrebleu-zh": (["sacreBLEU(tok=zh)"], "sacreBLEU BLEU -tok zh"),
    "chrf3": (["chrF(beta=3)"], "sacreBLEU chrF --chrf-beta 3"),
    "wer": (["WER"], "jiwer WER (10 processes)"),
    "rouge": (["RG-1", "RG-2", "RG-L"], "rouge-score 1/2/L (10 processes)"),
}


def best(runs: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The least CPU seconds and the least wall seconds of some runs of one command."""
    return min(r[0] for r in runs), min(r[1] for r in runs)


def one_segment_startup(work: Path) -> tuple[float, float]:
    """iqsetup of one segment, BLEU: the fixed cost of a run."""
    ref = work / "ref.txt"
    hyp = work / "hyp.txt"
    work.mkdir(parents=True, exist_ok=True)
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    hyp.write_text("a cat sat on a mat\n", encoding="utf-8")
    config = {"name": "one", "cache": str(work / "cache"), "references": {"A": str(ref)},
              "systems": {"S": str(hyp)}, "metrics": ["BLEU"]}
    path = work / "one.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    runs = []
    for _ in range(5):
        shutil.rmtree(work / "cache", ignore_errors=True)
        runs.append(run_children([[command("iqsetup"), "-q", str(path)]]))
    return best(runs)


SCALE_FAMILIES = {  # family: (mteval metrics, the peer's command on (reference, system, output) or None)
    "BLEU/NIST": (["BLEU", "NIST"], lambda r, h, o: [command("sacrebleu"), r, "-i", h, "-m", "bleu", "-b"]),
    "sacreBLEU": (["sacreBLEU"], lambda r, h, o: [command("sacrebleu"), r, "-i", h, "-m", "bleu", "-b"]),
    "chrF": (["chrF"], lambda r, h, o: [command("sacrebleu"), r, "-i", h, "-m", "chrf", "-b"]),
    "TER": (["TER"], None),  # sacreBLEU's TER: 40x slower than ours at 1,000 segments (docs/benchmarks.md)
    "WER/PER": (["WER", "PER"], lambda r, h, o: [sys.executable, "-c", JIWER, r, h, o]),
    "GTM": (["GTM-1", "GTM-2", "GTM-3"], None),
    "ROUGE": (["ROUGE-1", "ROUGE-2", "ROUGE-L"], lambda r, h, o: [sys.executable, "-c", ROUGE_SCORE, r, h, o]),
    "METEOR": (["METEOR-ex"], None),  # Meteor 1.5 is a Java jar, not installed here
}
PEERS = {"BLEU/NIST": "sacrebleu -m bleu", "sacreBLEU": "sacrebleu -m bleu", "chrF": "sacrebleu -m chrf",
         "WER/PER": "jiwer process_words", "ROUGE": "rouge-score 1/2/L stem"}


def scale_run(folder: Path, systems: list[Path], metrics: list[str]) -> tuple[float, int]:
    """(CPU seconds, peak RSS kB) of ``iqsetup -j 1`` computing ``metrics`` on a fresh cache."""
    config = {"name": "scale", "cache": str(folder / "cache"), "language": "en",
              "references": {"A": str(folder / "ref.txt")}, "systems": {p.stem: str(p) for p in systems},
              "metrics": metrics}
    path = folder / "scale.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    shutil.rmtree(folder / "cache", ignore_errors=True)
    return measured([command("iqsetup"), "-q", "-j", "1", str(path)])


def scale(sizes: list[int], n_systems: int, families: list[str], peers: bool) -> list[list[str]]:
    """Issue 35's scaling table: per family and size, ours (and the peer's) CPU s and peak RSS MB."""
    rows = [[f"family ({n_systems} system(s), ref A; iqsetup -j 1)", "segments", "CPU s", "peak MB",
             "x previous size", "peer", "peer CPU s", "peer MB", "ratio"]]
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        for size in sizes:
            folder = Path(tmp) / str(size)
            folder.mkdir()
            systems = workload(folder, size // 1000, n_systems)
            for family in families:
                metrics, peer = SCALE_FAMILIES[family]
                cpu, rss = scale_run(folder, systems, metrics)
                previous = next((float(r[2]) for r in reversed(rows) if r[0] == family), None)
                growth = f"{cpu / previous:.1f}" if previous else ""
                theirs: tuple[float, int] | None = None
                if peers and peer is not None:
                    runs = [measured(peer(str(folder / "ref.txt"), str(p), str(folder / "peer.out"))) for p in systems]
                    theirs = sum(r[0] for r in runs), max(r[1] for r in runs)
                rows.append([family, f"{size:,}", f"{cpu:.2f}", f"{rss / 1024:.0f}", growth,
                             PEERS.get(family, "") if theirs else "", f"{theirs[0]:.2f}" if theirs else "",
                             f"{theirs[1] / 1024:.0f}" if theirs else "", f"{theirs[0] / cpu:.1f}x" if theirs else ""])
                print("  ".join(rows[-1]), flush=True)
            shutil.rmtree(folder)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(TASKS), help="comma-separated tasks: " + ",".join(TASKS))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command; the best is shown")
    parser.add_argument("--scale", action="store_true", help="every lexical family at --sizes segments (issue 35)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="with --scale: segment counts (multiples of 1000)")
    parser.add_argument("--systems", type=int, default=1, help="with --scale: systems (1 to 10)")
    parser.add_argument("--families", default=",".join(SCALE_FAMILIES),
                        help="with --scale: " + ",".join(SCALE_FAMILIES))
    parser.add_argument("--no-peers", action="store_true", help="with --scale: ours only")
    args = parser.parse_args(argv)
    if not SYSTEMS:
        print("bench_cli: ../shared/data/wmt21-ruen is absent; skipped")
        return 0
    import mteval  # noqa: PLC0415  (the package the installed commands import, PYTHONPATH included)

    compileall.compile_dir(Path(mteval.__file__).parent, quiet=1)
    if args.scale:
        rows = scale([int(n) for n in args.sizes.split(",")], args.systems, args.families.split(","),
                     not args.no_peers)
        print(table(rows))
        print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        return 0
    print(table(end_to_end(args.only.split(","), args.repeat)))
    return 0


def end_to_end(tasks: list[str], repeat: int) -> list[list[str]]:
    """The rows of every task (10 systems x 1000 segments) and the start-up row."""
    rows = [[f"task (10 systems x 1000 segments, ref A; best of {repeat})", "mteval -j 1 CPU s", "wall s",
             "default -j CPU s", "wall s", "peer", "peer CPU s", "wall s", "CPU ratio (-j 1)"]]
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        work = Path(tmp)
        for task in tasks:
            metrics, peer = TASKS[task]
            runs = [(run_children([[*iqsetup_command(work / task, metrics), "-j", "1"]]),
                     run_children([iqsetup_command(work / task, metrics)]),
                     run_children(peer_commands(task, work))) for _ in range(repeat)]
            single, ours, theirs = (best([r[k] for r in runs]) for k in range(3))
            rows.append([f"{task}: {'+'.join(metrics)}", f"{single[0]:.2f}", f"{single[1]:.2f}", f"{ours[0]:.2f}",
                         f"{ours[1]:.2f}", peer, f"{theirs[0]:.2f}", f"{theirs[1]:.2f}",
                         f"{theirs[0] / single[0]:.1f}x"])
        cpu, wall = one_segment_startup(work / "one")
        rows.append(["start-up: iqsetup of 1 segment, BLEU (best of 5)", f"{cpu:.2f}", f"{wall:.2f}", *[""] * 6])
    return rows


if __name__ == "__main__":
    sys.exit(main())
