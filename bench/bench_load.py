"""Benchmark: does ``iqsetup`` scale linearly in the number of segments (time and peak memory)?

Builds experiments of 5,000 and 20,000 segments x 3 systems against one reference, from the texts
of ``../shared/data`` (WMT21 ru-en, zh-en and en-de: every reference, system output and source,
taken four at a time as reference + 3 systems, each line used once, so segments are distinct),
written to a temporary folder, with BLEU + chrF + TER, and runs the installed ``iqsetup`` on each in
a fresh process: wall time and peak resident memory (the child's ``ru_maxrss``). The 20k/5k ratio
is ~4 when time and memory are linear in segments (memory has a fixed part: interpreter, numpy;
the 20k segments are longer on average than the first 5k, so the characters ratio is shown too).
Then one syntactic family (``DP-HWCM_w-4``) on 5,000 English segments x 3 systems (cold annotation
cache: parsing every distinct sentence with the embedded Stanza models is most of the time).

    python bench/bench_load.py [--quick] [--sizes 5000 20000] [--syntax-segments 5000] [--per-family]

``--quick`` (or ``MTEVAL_BENCH_QUICK=1``, as ``make bench`` may set) runs 1,000 and 4,000 segments
and 300 syntactic ones; ``--syntax-segments 0`` skips the syntactic run (~18 min at 5,000 on 2
shared cores); ``--per-family`` also runs BLEU, chrF and TER alone. Prints "skipped" and exits 0
when ``../shared`` is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from common import SHARED, lines, table

DATA = SHARED / "data"
CORPORA = (("wmt21-ruen", "en"), ("wmt21-zhen", "en"), ("wmt21-ende", "de"))
LEXICAL = ["BLEU", "chrF", "TER"]
SYNTAX = ["DP-HWCM_w-4"]
SIDES = ("REF", "S1", "S2", "S3")
Row = tuple[str, str, str, str]

# Runs a command and prints its peak resident memory (kB) and wall seconds as JSON on stderr's last line.
MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": code, "wall": wall, "maxrss_kb": peak}), file=sys.stderr)
"""


def corpus_texts(name: str, language: str, with_source: bool) -> list[list[str]]:
    """Every reference and system output of one corpus (and its source), one list of lines each."""
    folder = DATA / name
    paths = sorted((folder / "refs").glob(f"*.{language}")) + sorted((folder / "sys").glob(f"*.{language}"))
    if with_source:
        paths += sorted(folder.glob("src.*"))
    texts = [lines(p) for p in paths]
    size = min(len(t) for t in texts)
    return [t[:size] for t in texts]


def segment_rows(n: int, english_only: bool = False) -> list[Row]:
    """``n`` rows (reference, 3 system segments): the texts of each corpus four at a time, line by line."""
    rows: list[Row] = []
    for name, language in CORPORA:
        if english_only and language != "en":
            continue
        texts = corpus_texts(name, language, with_source=not english_only)
        for k in range(0, len(texts) - 3, 4):
            rows += zip(*texts[k:k + 4], strict=True)
            if len(rows) >= n:
                return rows[:n]
    raise SystemExit(f"only {len(rows)} segments can be built from {DATA}; ask for fewer")


def write_experiment(folder: Path, rows: list[Row], metrics: list[str], language: str) -> Path:
    """Texts and the YAML experiment of ``rows`` in ``folder``; the config's path."""
    folder.mkdir(parents=True)
    for k, side in enumerate(SIDES):
        text = "".join(" ".join(row[k].split()) + "\n" for row in rows)  # one segment a line, always
        (folder / f"{side}.txt").write_text(text, encoding="utf-8")
    config = {"name": folder.name, "cache": str(folder / "cache"), "format": "plain", "language": language,
              "references": {"A": str(folder / "REF.txt")},
              "systems": {s: str(folder / f"{s}.txt") for s in SIDES[1:]}, "metrics": metrics,
              "annotation": {"cache": str(folder / "annotation")}}
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def measure(config: Path) -> dict[str, float]:
    """Run ``iqsetup CONFIG`` in a fresh process: exit code, wall seconds, peak RSS (kB)."""
    done = subprocess.run([sys.executable, "-c", MEASURE, "iqsetup", str(config)],
                          capture_output=True, text=True, check=False)
    result = json.loads(done.stderr.strip().splitlines()[-1])
    if result["rc"] != 0:
        raise SystemExit(f"iqsetup failed on {config} (exit {result['rc']})")
    return result


def characters(rows: list[Row]) -> int:
    """Characters of every segment of every side (time follows these, not only segment counts)."""
    return sum(len(text) for row in rows for text in row)


def lexical_table(sizes: list[int], tmp: Path) -> list[list[str]]:
    """Time and memory of BLEU + chrF + TER for each size, and the ratios to the smallest."""
    out = [["segments x 3 systems", "M chars", "wall s", "peak RSS MB", "time ratio", "memory ratio",
            "segments ratio", "chars ratio"]]
    first: tuple[dict[str, float], int] | None = None
    for n in sizes:
        rows = segment_rows(n)
        result = measure(write_experiment(tmp / f"lexical-{n}", rows, LEXICAL, "en"))
        first = first or (result, characters(rows))
        base, base_chars = first
        out.append([f"{n:,}", f"{characters(rows) / 1e6:.2f}", f"{result['wall']:.1f}",
                    f"{result['maxrss_kb'] / 1024:.0f}", f"{result['wall'] / base['wall']:.2f}",
                    f"{result['maxrss_kb'] / base['maxrss_kb']:.2f}", f"{n / sizes[0]:.2f}",
                    f"{characters(rows) / base_chars:.2f}"])
    return out


def family_table(sizes: list[int], tmp: Path) -> list[list[str]]:
    """Time and memory of each lexical family alone at each size (which one grows)."""
    out = [["family", *(f"{n:,}: wall s / peak MB" for n in sizes), "memory ratio"]]
    for metric in LEXICAL:
        peaks, cells = [], []
        for n in sizes:
            result = measure(write_experiment(tmp / f"{metric}-{n}", segment_rows(n), [metric], "en"))
            peaks.append(result["maxrss_kb"])
            cells.append(f"{result['wall']:.1f} / {result['maxrss_kb'] / 1024:.0f}")
        out.append([metric, *cells, f"{peaks[-1] / peaks[0]:.2f}"])
    return out


def main() -> int:
    """Build the experiments, run them, print the tables; 0 also when ../shared is absent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", default=os.environ.get("MTEVAL_BENCH_QUICK") == "1")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--syntax-segments", type=int)
    parser.add_argument("--per-family", action="store_true", help="also each lexical family alone")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} is absent")
        return 0
    sizes = args.sizes or ([1000, 4000] if args.quick else [5000, 20000])
    n_syntax = args.syntax_segments if args.syntax_segments is not None else (300 if args.quick else 5000)
    with tempfile.TemporaryDirectory(prefix="mteval-bench-load-") as name:
        tmp = Path(name)
        print(f"iqsetup, one reference, 3 systems, metrics {' + '.join(LEXICAL)} (fresh cache each run)")
        print(table(lexical_table(sorted(sizes), tmp)), flush=True)
        if args.per_family:
            print("\neach family alone (same experiments)")
            print(table(family_table(sorted(sizes), tmp)), flush=True)
        if n_syntax > 0:
            config = write_experiment(tmp / f"syntax-{n_syntax}", segment_rows(n_syntax, english_only=True),
                                      SYNTAX, "en")
            result = measure(config)
            print(f"\n{SYNTAX[0]}, {n_syntax:,} English segments x 3 systems (cold annotation cache): "
                  f"{result['wall']:.1f} s wall, peak RSS {result['maxrss_kb'] / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
