"""Benchmark: ``iqsetup -j 1`` against ``-j 2`` (issue 12 item 1): wall time, peak memory of the
parent and of the workers, identical files, and the engine's overhead on a warm re-run.

Cold ``iqsetup`` on the full ``../shared/data/wmt21-ruen`` (2 references, 10 systems x 1,000
segments, WMT's documents) with ~25 lexical metrics of every lexical family, in a fresh cache for
each ``-j``; then the same command again with everything cached (warm). Each run is a fresh
process that calls iqsetup's ``main`` itself, so that ``ru_maxrss`` of ``RUSAGE_SELF`` is the
parent's peak and that of ``RUSAGE_CHILDREN`` the largest worker's. The two caches are compared
file by file (``.lock`` aside, which holds a process id).

    python bench/bench_parallel.py [--quick] [--segments N] [--jobs 1 2] [--syntax] [--dask]

``--quick`` (or ``MTEVAL_BENCH_QUICK=1``) cuts the texts to 200 segments; ``--syntax`` adds
``DP-HWCM_w-4``: every distinct sentence (~12,000) is parsed first, once, into an annotation
cache the timed runs share (many minutes on 2 cores; the parse is the annotator's, the same for
every -j), so the table compares the scoring only. ``--dask`` adds a run through a local Dask
cluster of 2 single-thread workers (``--scheduler local -j 2``; issue 12: within 15 % of ``-j 2``),
and a cold parse of ``--parse N`` distinct sentences by the annotator's 2 local workers and by the
cluster (the parse rate the cost model in docs/scaling.md uses). Prints "skipped" and exits 0 when
``../shared`` is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from common import WMT21_RUEN, lines, table

LEXICAL = ["BLEU", "NIST", "BLEU-2", "NIST-2", "chrF", "chrF++", "TER", "WER", "PER", "1-WER", "GTM-1", "GTM-2",
           "GTM-3", "ROUGE-1", "ROUGE-2", "ROUGE-3", "ROUGE-4", "ROUGE-L", "ROUGE-W", "ROUGE-S*", "ROUGE-SU*",
           "METEOR-ex", "METEOR-st", "METEOR-sy", "METEOR-pa"]
SYNTAX = ["DP-HWCM_w-4", "SP-Op(*)", "CP-STM-4", "EDPM"]

# Runs iqsetup in this process; prints wall seconds, peak RSS (kB) of itself and of its children, and
# the CPU seconds of both (on a machine shared with other work, CPU / wall shows the cores obtained).
MEASURE = """
import json, resource, sys, time
from mteval.cli.iqsetup import main
start = time.perf_counter()
code = main(sys.argv[1:])
wall = time.perf_counter() - start
me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": code, "wall": wall, "parent_kb": me.ru_maxrss, "workers_kb": workers.ru_maxrss,
                  "cpu": me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime}), file=sys.stderr)
"""


def write_experiment(folder: Path, segments: int | None, metrics: list[str], annotation: Path) -> Path:
    """WMT21 ru-en (cut to ``segments`` lines when given) as a YAML experiment in ``folder``."""
    folder.mkdir(parents=True)
    paths = sorted((WMT21_RUEN / "refs").glob("*.en")) + sorted((WMT21_RUEN / "sys").glob("*.en"))
    texts = {}
    for path in paths:
        texts[path.stem] = folder / path.name
        texts[path.stem].write_text("".join(f"{s}\n" for s in lines(path)[:segments]), encoding="utf-8")
    docids = lines(WMT21_RUEN / "docids.tsv")[: None if segments is None else segments + 1]
    (folder / "docids.tsv").write_text("".join(f"{row}\n" for row in docids), encoding="utf-8")
    refs = [p.stem for p in paths if p.parent.name == "refs"]
    config = {"name": "bench-parallel", "cache": str(folder / "cache"), "format": "plain", "language": "en",
              "references": {r: str(texts[r]) for r in refs},
              "systems": {s: str(texts[s]) for s in texts if s not in refs},
              "docids": {"path": str(folder / "docids.tsv"), "column": "docid"},
              "annotation": {"cache": str(annotation)}, "metrics": metrics}
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def measure(config: Path, jobs: int, dask: bool = False) -> dict[str, float]:
    """``iqsetup -q -j JOBS CONFIG`` (through a local Dask cluster of JOBS workers with ``dask``) in a
    fresh process: exit code, wall seconds, peak RSS (kB) of the client and of its largest worker."""
    options = ["-j", str(jobs)] + (["--scheduler", "local"] if dask else [])
    done = subprocess.run([sys.executable, "-c", MEASURE, "-q", *options, str(config)],
                          capture_output=True, text=True, check=False)
    result = json.loads(done.stderr.strip().splitlines()[-1])
    if result["rc"] != 0:
        raise SystemExit(f"iqsetup {' '.join(options)} failed on {config} (exit {result['rc']}): "
                         f"{done.stderr[-500:]}")
    return result


def files(cache: Path) -> dict[str, bytes]:
    """Every file of a cache by relative path (the lock file aside: it names a process)."""
    return {str(p.relative_to(cache)): p.read_bytes() for p in sorted(cache.rglob("*"))
            if p.is_file() and p.name != ".lock"}


def parse_first(segments: int | None, tmp: Path, annotation: Path) -> None:
    """Parse every sentence into the shared annotation cache (timed apart, the same for every -j)."""
    result = measure(write_experiment(tmp / "parse", segments, SYNTAX, annotation), 1)
    print(f"parsing (annotator's own workers) and {', '.join(SYNTAX)} at -j 1: {result['wall']:.1f} s wall, "
          f"{result['cpu']:.0f} s CPU; the runs below find the parses cached", flush=True)


def run(segments: int | None, runs: list[tuple[int, bool]], metrics: list[str], tmp: Path,
        seed: Path | None = None) -> list[list[str]]:
    """One cold and one warm run per (-j, Dask or not) (cold for the scores; parses done once before,
    into a copy of the annotation cache ``seed`` when given); the table rows."""
    rows = [["run", "cold wall s", "speed-up", "CPU s", "parent peak MB", "largest worker MB", "warm wall s",
             "files"]]
    annotation = tmp / "annotation"  # shared: the parse (the same for every -j) is done once
    if seed is not None:
        shutil.copytree(seed, annotation)
    if any(m in SYNTAX for m in metrics):
        parse_first(segments, tmp, annotation)
    first: tuple[float, dict[str, bytes]] | None = None
    for n, dask in runs:
        name = f"dask{n}" if dask else f"j{n}"
        config = write_experiment(tmp / name, segments, metrics, annotation)
        cold, warm = measure(config, n, dask), measure(config, n, dask)
        found = files(config.parent / "cache")
        first = first or (cold["wall"], found)
        same = "identical" if found == first[1] else "DIFFER"
        rows.append([f"--scheduler local -j {n}" if dask else f"-j {n}", f"{cold['wall']:.1f}",
                     f"{first[0] / cold['wall']:.2f}x", f"{cold['cpu']:.0f}", f"{cold['parent_kb'] / 1024:.0f}",
                     f"{cold['workers_kb'] / 1024:.0f}", f"{warm['wall']:.2f}", f"{len(found)} {same}"])
    return rows


def parse_rates(count: int, tmp: Path) -> list[list[str]]:
    """Cold parses of ``count`` distinct sentences (DP-HWCM_w-4 on the first system against reference
    A) by the annotator's 2 local workers and by a local Dask cluster of 2: sentences per second."""
    rows = [["parse", "distinct sentences", "wall s", "sentences/s", "CPU s"]]
    for label, dask in (("2 local parse workers", False), ("local Dask cluster, 2 workers", True)):
        folder = tmp / f"parse-{label.split()[0]}-{dask}"
        config = write_experiment(folder, count // 2, ["DP-HWCM_w-4"], folder / "annotation")
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
        data["systems"] = dict(list(data["systems"].items())[:1])
        data["references"] = dict(list(data["references"].items())[:1])
        config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        result = measure(config, 2, dask)
        rows.append([label, str(count), f"{result['wall']:.1f}", f"{count / result['wall']:.1f}",
                     f"{result['cpu']:.0f}"])
    return rows


def main() -> int:
    """Build the experiment, run it per -j, print the table; 0 also when ../shared is absent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", default=os.environ.get("MTEVAL_BENCH_QUICK") == "1")
    parser.add_argument("--segments", type=int, help="the first N segments of every text (default: all)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--syntax", action="store_true", help=f"also {', '.join(SYNTAX)} (parsing: slow)")
    parser.add_argument("--dask", action="store_true", help="also through a local Dask cluster of 2 workers")
    parser.add_argument("--parse", type=int, default=0, metavar="N",
                        help="with --dask: also time a cold parse of about N distinct sentences both ways")
    parser.add_argument("--annotation", type=Path, metavar="DIR",
                        help="start from a copy of this annotation cache (parses of the same sentences with the "
                             "same models, e.g. a validity study's): only what it lacks is parsed")
    args = parser.parse_args()
    if not WMT21_RUEN.exists():
        print(f"skipped: {WMT21_RUEN} is absent")
        return 0
    segments = args.segments or (200 if args.quick else None)
    metrics = LEXICAL + (SYNTAX if args.syntax else [])
    with tempfile.TemporaryDirectory(prefix="mteval-bench-parallel-") as name:
        print(f"iqsetup on WMT21 ru-en ({segments or 'all'} segments, 2 references, 10 systems), "
              f"{len(metrics)} metrics, cold then warm, {os.cpu_count()} cores")
        runs = [(n, False) for n in args.jobs] + ([(2, True)] if args.dask else [])
        print(table(run(segments, runs, metrics, Path(name), args.annotation)), flush=True)
        if args.dask and args.parse:
            print(table(parse_rates(args.parse, Path(name))), flush=True)
        print(f"load average after the runs (other work on this machine): {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
