"""Benchmark: chrF/chrF++, TER, WER/PER, GTM all-pairs times on ../shared/data/wmt21-ruen.

All pairs: 10 systems x references A, B and A+B, plus A scored against B and B against A (32 pairs),
segment and system level. Each metric's oracle runs in the same process on the same workload
(sacreBLEU 2.6.0 for chrF/chrF++ and TER: ``corpus_score`` + ``sentence_score`` per segment, one
metric object per pair and variant; jiwer 4 for WER: ``process_words`` per single-reference pair,
segment WER from its alignments, A+B by Asiya's max rule from the A and B results). The pure-Python
oracles are slow, so they run on the first ``--chrf-lines`` / ``--ter-lines`` segments (ours is
timed on the same lines for the ratio, and separately on all lines); every timing uses a fresh
metric object, so no cache is shared between measurements. Times are CPU seconds of this process
(wall-clock in parentheses); the ratio uses CPU time, which stays fair on a shared machine. The same
run checks that our numbers equal the oracle's (max |diff|).

    python bench/bench_lexical_a.py [--lines 1000] [--chrf-lines 200] [--ter-lines 60]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricFamily, Side
from mteval.metrics.chrf import ChrF
from mteval.metrics.error_rates import ErrorRates
from mteval.metrics.gtm import GTM
from mteval.metrics.ter import TER

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt21-ruen"
SYSTEMS = ("AFRL", "Facebook-AI", "Manifold", "NVIDIA-NeMo", "NiuTrans", "Online-A", "Online-B",
           "Online-G", "Online-W", "Online-Y")
Pair = tuple[str, list[str], tuple[str, ...]]  # hypothesis name, its lines, reference names
Results = dict[tuple[str, tuple[str, ...]], dict[str, tuple[float, np.ndarray]]]


def read_lines(path: Path) -> list[str]:
    """Lines of a UTF-8 file without their newline."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def all_pairs(texts: dict[str, list[str]], n: int) -> list[Pair]:
    """The 32 (hypothesis, reference set) pairs on the first ``n`` lines."""
    pairs = [(s, texts[s][:n], refs) for s in SYSTEMS for refs in (("A",), ("B",), ("A", "B"))]
    return pairs + [("A", texts["A"][:n], ("B",)), ("B", texts["B"][:n], ("A",))]


class Timer:
    """Wall-clock and CPU seconds of a block (the machine may be shared: CPU time is the fair one)."""

    def __enter__(self) -> Timer:
        """Start both clocks."""
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        """Keep the elapsed seconds."""
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def run_ours(family: MetricFamily, pairs: list[Pair], texts: dict[str, list[str]],
             variants: tuple[str, ...]) -> tuple[Timer, Results]:
    """Time our family on all pairs (references prepared once per reference set)."""
    timer = Timer().__enter__()
    prepared: dict[tuple[str, ...], object] = {}
    out: Results = {}
    for hyp_name, hyp, refs in pairs:
        n = len(hyp)
        if refs not in prepared:
            prepared[refs] = family.prepare([Side(r, texts[r][:n]) for r in refs])
        scores = family.score(Side(hyp_name, hyp), prepared[refs], DocumentIndex.single(n), variants)
        out[(hyp_name, refs)] = {v: (s.system, s.segments) for v, s in scores.items()}
    timer.__exit__()
    return timer, out


def run_sacrebleu(make: Callable[[], Any], pairs: list[Pair],
                  texts: dict[str, list[str]]) -> tuple[Timer, Results]:
    """sacreBLEU corpus score + sentence scores for every pair."""
    timer = Timer().__enter__()
    out: Results = {}
    for hyp_name, hyp, refs in pairs:
        metric = make()
        ref_lines = [texts[r][:len(hyp)] for r in refs]
        system = metric.corpus_score(hyp, ref_lines).score
        segs = np.array([metric.sentence_score(h, [r[i] for r in ref_lines]).score
                         for i, h in enumerate(hyp)])
        out[(hyp_name, refs)] = {"": (system, segs)}
    timer.__exit__()
    return timer, out


def run_jiwer(pairs: list[Pair], texts: dict[str, list[str]]) -> tuple[Timer, Results]:
    """jiwer WER per single reference; multi-reference by Asiya's max rule over those runs."""
    import jiwer

    timer = Timer().__enter__()
    single: dict[tuple[str, str], tuple[float, np.ndarray]] = {}
    out: Results = {}
    for hyp_name, hyp, refs in pairs:
        for r in refs:
            if (hyp_name, r) not in single:
                ref = texts[r][:len(hyp)]
                res = jiwer.process_words(ref, hyp)
                errors = [sum(max(c.ref_end_idx - c.ref_start_idx, c.hyp_end_idx - c.hyp_start_idx)
                              for c in chunks if c.type != "equal") for chunks in res.alignments]
                lengths = [len(x.split()) for x in ref]
                single[(hyp_name, r)] = (res.wer, np.array(errors) / np.array(lengths))
        runs = [single[(hyp_name, r)] for r in refs]
        out[(hyp_name, refs)] = {"": (max(x[0] for x in runs), np.max([x[1] for x in runs], axis=0))}
    timer.__exit__()
    return timer, out


def max_diff(ours: Results, oracle: Results, variant: str) -> float:
    """Largest |ours - oracle| over system and segment scores of every pair."""
    diffs = [0.0]
    for key, scores in oracle.items():
        system, segs = scores[""]
        mine_sys, mine_segs = ours[key][variant]
        diffs += [abs(mine_sys - system), float(np.max(np.abs(mine_segs - segs), initial=0.0))]
    return max(diffs)


def main() -> int:
    """Time every metric and its oracle, print the table; 0 also when ../shared is absent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--chrf-lines", type=int, default=200)
    parser.add_argument("--ter-lines", type=int, default=60)
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} is absent")
        return 0
    from sacrebleu.metrics import CHRF
    from sacrebleu.metrics import TER as SacreTER

    texts = {s: read_lines(DATA / "sys" / f"{s}.en") for s in SYSTEMS}
    texts.update({r: read_lines(DATA / "refs" / f"{r}.en") for r in ("A", "B")})
    rows = []
    pairs = all_pairs(texts, args.chrf_lines)
    t_ours, ours = run_ours(ChrF(), pairs, texts, ChrF.variants)
    t_c, c = run_sacrebleu(CHRF, pairs, texts)
    t_cpp, cpp = run_sacrebleu(lambda: CHRF(word_order=2), pairs, texts)
    diff = max(max_diff(ours, c, "chrF"), max_diff(ours, cpp, "chrF++"))
    rows.append(("chrF + chrF++", "sacreBLEU", args.chrf_lines, t_ours, (t_c, t_cpp), diff))

    pairs = all_pairs(texts, args.ter_lines)
    t_ours, ours = run_ours(TER(), pairs, texts, ("TER",))
    t_t, t = run_sacrebleu(SacreTER, pairs, texts)
    rows.append(("TER", "sacreBLEU", args.ter_lines, t_ours, (t_t,), max_diff(ours, t, "TER")))

    pairs = all_pairs(texts, args.lines)
    t_ours, ours = run_ours(ErrorRates(), pairs, texts, ("WER",))
    t_j, j = run_jiwer(pairs, texts)
    rows.append(("WER", "jiwer", args.lines, t_ours, (t_j,), max_diff(ours, j, "WER")))

    print(f"all pairs = {len(pairs)} (10 systems x A, B, A+B; A/B; B/A), segment + system level; "
          f"seconds as CPU (wall)")
    print(f"{'metric':<14} {'oracle':<10} {'lines':>5} {'ours':>14} {'oracle':>16} {'ratio':>6} "
          f"{'>=3x':>5} {'max|diff|':>10}")
    for name, oracle, lines, mine, theirs, d in rows:
        cpu, wall = sum(x.cpu for x in theirs), sum(x.wall for x in theirs)
        ratio = cpu / mine.cpu
        print(f"{name:<14} {oracle:<10} {lines:>5} {mine.cpu:>6.2f} ({mine.wall:5.2f}) "
              f"{cpu:>7.2f} ({wall:6.2f}) {ratio:>5.1f}x {'yes' if ratio >= 3 else 'NO':>5} {d:>10.1e}")
    print(f"\nours, all pairs on all {args.lines} lines (fresh objects), CPU (wall) seconds:")
    for name, family, variants in (("chrF + chrF++", ChrF(), ChrF.variants), ("TER", TER(), ("TER",)),
                                   ("WER + PER", ErrorRates(), ErrorRates.variants),
                                   ("GTM-1/2/3", GTM(), GTM.variants)):
        timer, _ = run_ours(family, pairs, texts, variants)
        print(f"  {name:<15} {timer.cpu:7.2f} ({timer.wall:6.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
