"""Benchmark: what iqeval's check of every score file against the current texts and settings
costs (issue 29, deliverable 4: under 1 s on a warm iqeval of the full WMT21 ru-en campaign).

Builds full WMT21 ru-en with the 25 lexical metrics of ``bench_parallel.py`` (a cold iqsetup
first: minutes), then times warm ``iqeval -doOQ -G sys --tsv`` and ``-G seg`` in fresh processes,
alternating two checkouts (``--tree OLD --tree NEW``, ``PYTHONPATH=TREE``) so that both are
measured in the same run on a shared machine; prints the median wall seconds of each and checks
that both print the same bytes.

    python bench/bench_verify.py --tree /tmp/old --tree . [--config EXP.yaml] [--repeat 5]

Prints "skipped" when ``../shared`` is absent and no ``--config`` is given.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_parallel import LEXICAL, write_experiment
from common import WMT21_RUEN, table

CHILD = "import sys; from mteval.cli.iqeval import main; sys.exit(main(sys.argv[1:]))"


def once(tree: Path, config: Path, level: str) -> tuple[float, str]:
    """(wall seconds, stdout) of one iqeval process running the checkout ``tree``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, "-doOQ", "-G", level, "--tsv", str(config)],
                          env={"PYTHONPATH": str(tree.resolve()), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{tree}: iqeval failed: {done.stderr.strip()[-300:]}")
    return wall, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, required=True)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    config = args.config
    if config is None:
        if not WMT21_RUEN.is_dir():
            print("bench_verify: skipped (../shared absent)")
            return
        folder = Path(tempfile.mkdtemp(prefix="bench-verify-")) / "ruen"  # kept: pass --config next time
        config = write_experiment(folder, None, LEXICAL, folder / "annotation")
        subprocess.run(["iqsetup", "-q", str(config)], check=True)
        print(f"experiment: {config}")
    files = sum(1 for _ in (config.parent / "cache").rglob("*.xml"))
    rows = []
    for level in ("sys", "seg"):
        times: dict[Path, list[float]] = {tree: [] for tree in args.tree}
        outputs: dict[Path, str] = {}
        for _ in range(args.repeat):
            for tree in args.tree:
                wall, out = once(tree, config, level)
                times[tree].append(wall)
                outputs[tree] = out
        same = len(set(outputs.values())) == 1
        rows += [[f"-G {level}", str(tree), f"{statistics.median(t):.3f}", f"{min(t):.3f}", "yes" if same else "NO"]
                 for tree, t in times.items()]
    print(f"warm iqeval -doOQ --tsv, {files} score files, median of {args.repeat} fresh processes")
    print(table([["level", "tree", "median s", "min s", "same output"], *rows]))


if __name__ == "__main__":
    main()
