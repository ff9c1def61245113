"""Benchmark: paired significance between systems, mteval vs sacreBLEU 2.6.0 (``make bench``).

WMT21 ru-en (../shared), 10 systems x 1000 segments, reference A, BLEU + chrF + TER:

* paired bootstrap, 1000 resamples: ``mteval.meta.stats.paired.paired_bootstrap`` (every pair of systems,
  45: the bootstrap scores each system once, pairs cost little) beside
  ``sacrebleu A.en -i SYS... -m bleu chrf ter --paired-bs`` (the 9 pairs with its baseline, the
  first system);
* approximate randomisation, 10,000 trials: ``paired_randomization(pairs="baseline")`` (the same 9
  pairs) beside ``--paired-ar``; every pair (45, what significance clusters need) is timed too.

chrF statistics: the 18 columns chrF reads (``ChrF`` computes chrF++'s 24 more in the same pass).

sacreBLEU's CLI extracts its statistics inside the test. Its test alone is timed in-process:
``sacrebleu.significance.PairedTest`` (what the CLI runs) on metrics whose statistics were extracted
beforehand (timed too, sacreBLEU's extraction). Ours are timed from the statistics (as
``iqeval -compare`` works from the cache; best of 3) and with mteval's own extraction (BLEU, chrF,
TER families on the texts). Its BLEU is not mteval-v13a's BLEU, so only chrF and TER p-values are
compared with the ones its CLI prints (4 decimals, ``-f latex``: its JSON output fails on float32
bootstrap means): same statistics and seed, so they must be equal.

Targets: mteval's test >= 10x sacreBLEU's test, both tests (the ratio of sacreBLEU's CLI to ours
with extraction is printed too: our TER extraction bounds it). Wall-clock seconds, one process
each (sacreBLEU's default ``--paired-jobs 1``); the machine may be shared, so ratios are of one run.

    python bench/bench_paired.py [--lines N]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WMT21_RUEN, lines, table  # noqa: E402

from mteval.meta.stats.paired import MetricInput, paired_bootstrap, paired_randomization  # noqa: E402
from mteval.metrics.base import Side, StatsFamily  # noqa: E402
from mteval.metrics.bleu_nist import BleuNist  # noqa: E402
from mteval.metrics.chrf import ChrF  # noqa: E402
from mteval.metrics.ter import TER  # noqa: E402

# ours (metric -> family, variant, higher is better) and sacreBLEU's name of the same metric
METRICS = {"BLEU": (BleuNist, "BLEU", True), "chrF": (ChrF, "chrF", True), "TER": (TER, "TER", False)}
SACREBLEU_NAMES = {"chrF": "chrF2", "TER": "TER"}  # BLEU differs (mteval-v13a vs sacreBLEU)


def statistics(texts: dict[str, list[str]], reference: list[str],
               seconds: dict[str, float]) -> dict[str, MetricInput]:
    """Every system's statistics for BLEU, chrF and TER (mteval's families); wall seconds per metric."""
    inputs = {}
    for name, (cls, variant, higher) in METRICS.items():
        start = time.perf_counter()
        family: StatsFamily = cls()
        prepared = family.prepare([Side("A", reference)])
        stats = np.stack([family.segment_stats(Side(s, t), prepared) for s, t in texts.items()])
        if name == "chrF":
            stats = stats[..., :18]  # chrF's own columns (the rest are chrF++'s)
        inputs[name] = MetricInput(stats, partial(family.scores_from_stats, variant=variant), higher)
        seconds[name] = time.perf_counter() - start
    return inputs


def sacrebleu_run(files: list[Path], reference: Path, extra: list[str]) -> tuple[float, str]:
    """Wall seconds of one sacreBLEU CLI run and its output (a LaTeX table)."""
    env = {k: v for k, v in os.environ.items() if k != "SACREBLEU_SEED"}  # its default seed, 12345
    command = [sys.executable, "-m", "sacrebleu", str(reference), "-i", *map(str, files),
               "-m", "bleu", "chrf", "ter", "-f", "latex", "--no-color", *extra]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - start, done.stdout


def best_of(runs: int, fn: Callable[[], object]) -> tuple[float, object]:
    """Best wall seconds of ``runs`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def sacrebleu_in_process(texts: dict[str, list[str]], reference: list[str]) -> tuple[float, float, float]:
    """sacreBLEU's extraction, then its ``PairedTest`` bs and ar given those statistics: wall seconds."""
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    os.environ.pop("SACREBLEU_SEED", None)  # its default seed, 12345
    start = time.perf_counter()
    metrics = {}
    for cls in (BLEU, CHRF, TER):
        given = {tuple(t): cls(references=[reference])._extract_corpus_statistics(t, None) for t in texts.values()}

        class Given(cls):  # type: ignore[misc, valid-type]
            def _extract_corpus_statistics(self, hypotheses, references, given=given):  # noqa: ANN001, ANN202
                return given[tuple(hypotheses)]

        metrics[cls.__name__] = Given(references=[reference])
    t_extract = time.perf_counter() - start
    named = list(texts.items())
    times = []
    for test, n in (("bs", 1000), ("ar", 10000)):
        start = time.perf_counter()
        PairedTest(named, metrics, None, test_type=test, n_samples=n)()
        times.append(time.perf_counter() - start)
    return t_extract, times[0], times[1]


def printed_p_values(output: str) -> list[dict[str, str]]:
    """Per compared system (not the baseline), metric -> p-value as sacreBLEU printed it."""
    rows = [line.rstrip(" \\").split("&") for line in output.splitlines() if "&" in line]
    header = [cell.split()[0] for cell in rows[0][1:]]
    return [{name: m.group(1) for name, cell in zip(header, row[1:], strict=True)
             if (m := re.search(r"p = ([0-9.]+)", cell))} for row in rows[2:]]


def agreement(ours: dict, output: str, systems: list[str]) -> str:
    """How many chrF/TER p-values against the baseline equal sacreBLEU's (to its 4 decimals)."""
    equal = total = 0
    for metric, key in SACREBLEU_NAMES.items():
        pairs = ours[metric].versus(systems[0])
        for pair, row in zip(pairs, printed_p_values(output), strict=True):
            total += 1
            equal += f"{pair.p_value:.4f}" == row[key]
    return f"{equal}/{total} chrF/TER p-values equal sacreBLEU's"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1000, help="segments per system (default 1000)")
    args = parser.parse_args()
    if not WMT21_RUEN.exists():
        print(f"bench_paired: skipped ({WMT21_RUEN} is absent)")
        return 0
    systems = sorted(p.stem for p in (WMT21_RUEN / "sys").glob("*.en"))
    texts = {s: lines(WMT21_RUEN / "sys" / f"{s}.en")[:args.lines] for s in systems}
    reference = lines(WMT21_RUEN / "refs" / "A.en")[:args.lines]
    with tempfile.TemporaryDirectory() as tmp:
        ref_file = Path(tmp) / "A.en"
        ref_file.write_text("\n".join(reference) + "\n", encoding="utf-8")
        files = []
        for s in systems:
            files.append(Path(tmp) / s)
            files[-1].write_text("\n".join(texts[s]) + "\n", encoding="utf-8")
        t_sb_bs, sb_bs = sacrebleu_run(files, ref_file, ["--paired-bs"])
        t_sb_ar, sb_ar = sacrebleu_run(files, ref_file, ["--paired-ar"])
    t_sb_extract, t_sb_bs_test, t_sb_ar_test = sacrebleu_in_process(texts, reference)
    extraction: dict[str, float] = {}
    inputs = statistics(texts, reference, extraction)
    t_stats = sum(extraction.values())
    t_bs, bs = best_of(3, lambda: paired_bootstrap(inputs, systems, n=1000))
    t_ar, ar = best_of(3, lambda: paired_randomization(inputs, systems, n=10000, pairs="baseline"))
    t_ar_all, _ = best_of(3, lambda: paired_randomization(inputs, systems, n=10000))
    rows = [["test", "sacreBLEU CLI s", "its test s", "mteval s", "+ stats s", "ratio CLI", "ratio test"]]
    for name, t_cli, t_test, t_ours in (("bootstrap 1000", t_sb_bs, t_sb_bs_test, t_bs),
                                        ("randomisation 10000", t_sb_ar, t_sb_ar_test, t_ar)):
        rows.append([name, f"{t_cli:.1f}", f"{t_test:.2f}", f"{t_ours:.3f}", f"{t_ours + t_stats:.2f}",
                     f"{t_cli / (t_ours + t_stats):.0f}x", f"{t_test / t_ours:.0f}x"])
    print(f"{len(systems)} systems x {args.lines} segments, BLEU + chrF + TER; statistics: sacreBLEU "
          f"{t_sb_extract:.1f} s, mteval {t_stats:.2f} s ("
          + ", ".join(f"{k} {v:.2f}" for k, v in extraction.items()) + ")")
    print(table(rows))
    print(f"randomisation of every pair (45): {t_ar_all:.2f} s")
    print(f"bootstrap: {agreement(bs, sb_bs, systems)}; randomisation: {agreement(ar, sb_ar, systems)}")
    ok = t_sb_bs_test >= 10 * t_bs and t_sb_ar_test >= 10 * t_ar
    print("targets met (tests >= 10x sacreBLEU's)" if ok else "TARGETS NOT MET")
    print("clusters (bootstrap, chrF, Holm):", " > ".join("{" + ", ".join(c) + "}"
                                                          for c in bs["chrF"].clusters(correction="holm")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
