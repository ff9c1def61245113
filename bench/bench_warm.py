"""Benchmark: a warm ``iqsetup`` re-run (every file up to date) and the start-up of a one-segment
run (issue 12: warm re-run under 3 s, start-up under 0.2 s for lexical-only runs).

Each measurement is a fresh process (``python -m mteval.cli.iqsetup``-like: it imports iqsetup's
``main`` and calls it), timed whole (wall and CPU seconds of the child: user + sys), and also from
``main``'s call on (the time ``bench_parallel.py``'s warm column reports). ``--tree DIR`` (repeatable)
runs the same commands with ``PYTHONPATH=DIR``, alternating the trees, so that an old and a new
checkout are compared in the same run on a shared machine.

    python bench/bench_warm.py --config EXP.yaml [--tree OLD --tree NEW] [--repeat 5]
    python bench/bench_warm.py                  # builds full WMT21 ru-en, 25 lexical metrics (a cold
                                                # run first: minutes)
    python bench/bench_warm.py --startup-only

The one-segment run (BLEU, a fresh cache each time) is the start-up row. ``--quick`` (or
``MTEVAL_BENCH_QUICK=1``) builds ru-en with 200 segments. Prints "skipped" when ``../shared`` is
absent and no ``--config`` is given. With ``PYTHONDONTWRITEBYTECODE=1`` every child compiles the
checkout's modules again (~0.25 s); unset it (``PYTHONPYCACHEPREFIX=DIR`` keeps the bytecode out of
the checkouts) to time what an installed mteval does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml
from bench_parallel import LEXICAL, write_experiment
from common import ROOT, WMT21_RUEN, table

# The child: imports iqsetup, times main() alone, prints its wall seconds on stderr's last line.
CHILD = """
import sys, time
from mteval.cli.iqsetup import main
start = time.perf_counter()
code = main(sys.argv[1:])
print(f"{code} {time.perf_counter() - start}", file=sys.stderr)
"""


def run_once(tree: Path, args: list[str], before: Callable[[], None] | None = None) -> tuple[float, float, float]:
    """(process wall s, process CPU s, main() wall s) of one iqsetup run with ``PYTHONPATH=tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if before is not None:
        before()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, "-q", *args], env=env, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    code, inner = done.stderr.strip().splitlines()[-1].split()
    if code != "0":
        raise SystemExit(f"iqsetup failed with {tree}: {done.stderr[-800:]}")
    cpu = after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime
    return wall, cpu, float(inner)


def one_segment(folder: Path) -> Path:
    """A one-segment experiment with BLEU (the start-up row of bench_cli.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ref.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    (folder / "hyp.txt").write_text("a cat sat on a mat\n", encoding="utf-8")
    config = {"name": "one", "cache": str(folder / "cache"), "references": {"A": str(folder / "ref.txt")},
              "systems": {"S": str(folder / "hyp.txt")}, "metrics": ["BLEU"]}
    path = folder / "one.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def compare(trees: list[Path], args: list[str], repeat: int, label: str, fresh: Path | None = None) -> list[list[str]]:
    """Rows (one per tree): median and best of ``repeat`` runs, the trees alternating."""
    runs: dict[Path, list[tuple[float, float, float]]] = {t: [] for t in trees}
    for _ in range(repeat):
        for tree in trees:
            clear = (lambda: shutil.rmtree(fresh, ignore_errors=True)) if fresh is not None else None
            runs[tree].append(run_once(tree, args, clear))
    rows = []
    for tree, found in runs.items():
        walls, cpus, inner = zip(*found, strict=True)
        rows.append([label, str(tree), f"{statistics.median(walls):.2f}", f"{min(walls):.2f}",
                     f"{statistics.median(cpus):.2f}", f"{min(cpus):.2f}", f"{statistics.median(inner):.2f}"])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="an experiment whose cache is (or will be made) warm")
    parser.add_argument("--tree", type=Path, action="append", help="a checkout to time (default: this one)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--startup-only", action="store_true")
    parser.add_argument("--quick", action="store_true", default=os.environ.get("MTEVAL_BENCH_QUICK") == "1")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.tree] if args.tree else [ROOT]
    rows = [["run", "tree", "wall s (median)", "best", "CPU s (median)", "best", "main() wall s (median)"]]
    with tempfile.TemporaryDirectory(prefix="mteval-bench-warm-") as name:
        tmp = Path(name)
        one = one_segment(tmp / "one")
        rows += compare(trees, [str(one)], args.repeat, "start-up: 1 segment, BLEU", fresh=tmp / "one" / "cache")
        if not args.startup_only:
            config = args.config
            if config is None:
                if not WMT21_RUEN.exists():
                    print(f"skipped: {WMT21_RUEN} is absent")
                    return 0
                config = write_experiment(tmp / "ruen", 200 if args.quick else None, LEXICAL, tmp / "annotation")
                print(f"cold run: {run_once(trees[0], [str(config)])[0]:.1f} s wall", flush=True)
            rows += compare(trees, [str(config)], args.repeat, f"warm re-run: {config.name}")
    print(table(rows))
    print(json.dumps({"load_average": os.getloadavg()[0]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
