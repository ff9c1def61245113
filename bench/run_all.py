"""Run every benchmark script ``bench/bench_*.py`` in turn (``make bench``), among them
``bench_backends.py``: the parse speed of each language's backend (docs/languages.md, "Speed")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# the runs of a script and their options, where not one run without any (issue 12: the parallel benchmark
# with syntactic metrics and the Dask cluster; issue 35: bench_cli's lexical families at 1k-100k segments too)
RUNS = {"bench_parallel.py": [["--syntax", "--dask", "--parse", "2000"]], "bench_cli.py": [[], ["--scale"]]}


def main() -> int:
    here = Path(__file__).resolve().parent
    status = 0
    for script in sorted(here.glob("bench_*.py")):
        for options in RUNS.get(script.name, [[]]):
            print(f"== {' '.join([script.name, *options])}", flush=True)
            status |= subprocess.call([sys.executable, str(script), *options])
    return status


if __name__ == "__main__":
    sys.exit(main())
