"""Run every benchmark script ``bench/bench_*.py`` in turn (``make bench``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# options per script (issue 12: the parallel benchmark with syntactic metrics and the Dask cluster)
OPTIONS = {"bench_parallel.py": ["--syntax", "--dask", "--parse", "2000"]}


def main() -> int:
    here = Path(__file__).resolve().parent
    status = 0
    for script in sorted(here.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        status |= subprocess.call([sys.executable, str(script), *OPTIONS.get(script.name, [])])
    return status


if __name__ == "__main__":
    sys.exit(main())
