"""Benchmark: ROUGE and METEOR all-pairs times on ../shared/data/wmt21-ruen (1000 segments).

* ROUGE-1/2/L: ours vs ``rouge-score`` 0.1.2 (``RougeScorer(['rouge1','rouge2','rougeL'],
  use_stemmer=True)``, one ``score`` call per segment) on the 20 single-reference pairs
  (10 systems x references A and B; rouge-score has no multi-reference mode). Ours computes
  segment F and the bootstrap system score; its caches are emptied before the run. The table
  also gives the share of segments where both agree to 1e-5 (they differ by design: ROUGE-1.5.5's
  byte tokeniser, WordNet exceptions and 5-decimal rounding, see docs/lexical-metrics-b.md).
* ROUGE all 8 variants on all 30 pairs (A, B, A+B).
* METEOR: all 30 pairs (10 systems x A, B, A+B) per variant, a fresh family each (the A+B pair
  reuses the A and B alignments); resource loading is timed separately.

Times are process CPU seconds (the machine may be shared; wall time would mislead).

    python bench/bench_lexical_b.py [--lines 1000] [--meteor-variants MTR-para,METEOR-ex] [--rouge-all]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricFamily, Side

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt21-ruen"
SYSTEMS = ("AFRL", "Facebook-AI", "Manifold", "NVIDIA-NeMo", "NiuTrans", "Online-A", "Online-B",
           "Online-G", "Online-W", "Online-Y")
REF_SETS = (("A",), ("B",), ("A", "B"))


def read_lines(path: Path, n: int) -> list[str]:
    """The first ``n`` lines of a UTF-8 file."""
    return path.read_text(encoding="utf-8").split("\n")[:n]


def run_family(family: MetricFamily, texts: dict[str, list[str]], ref_sets: tuple[tuple[str, ...], ...],
               variants: list[str]) -> tuple[float, dict]:
    """CPU seconds to score every system against every reference set; the scores."""
    start = time.process_time()
    out = {}
    for refs in ref_sets:
        prepared = family.prepare([Side(r, texts[r]) for r in refs])
        for s in SYSTEMS:
            hyp = Side(s, texts[s])
            out[(s, refs)] = family.score(hyp, prepared, DocumentIndex.single(len(hyp)), variants)
    return time.process_time() - start, out


def run_rouge_score(texts: dict[str, list[str]]) -> tuple[float, dict]:
    """CPU seconds for rouge-score on the 20 single-reference pairs; its F-scores."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    start = time.process_time()
    out = {}
    for r in ("A", "B"):
        for s in SYSTEMS:
            scores = [scorer.score(ref, hyp) for ref, hyp in zip(texts[r], texts[s], strict=True)]
            out[(s, (r,))] = {k: np.array([x[k].fmeasure for x in scores]) for k in ("rouge1", "rouge2", "rougeL")}
    return time.process_time() - start, out


def clear_rouge_caches() -> None:
    """Empty ROUGE's per-string caches so that a run starts cold."""
    from mteval.metrics import rouge, stemmers

    rouge.rouge_tokens.cache_clear()
    rouge.rouge_text.cache_clear()
    stemmers.porter_rouge.cache_clear()


def bench_rouge(texts: dict[str, list[str]], all_variants: bool) -> list[list[str]]:
    """Rows of the ROUGE table."""
    from mteval.metrics.rouge import RougeFamily

    rows = []
    theirs_t, theirs = run_rouge_score(texts)
    clear_rouge_caches()
    ours_t, ours = run_family(RougeFamily(), texts, REF_SETS[:2], ["ROUGE-1", "ROUGE-2", "ROUGE-L"])
    agree = []
    for key, scores in theirs.items():
        for ours_v, theirs_v in (("ROUGE-1", "rouge1"), ("ROUGE-2", "rouge2"), ("ROUGE-L", "rougeL")):
            agree.append(np.abs(ours[key][ours_v].segments - scores[theirs_v]) <= 1e-5)
    share = float(np.mean(np.concatenate(agree)))
    rows.append(["ROUGE-1/2/L, 20 pairs", f"{ours_t:.2f}", f"{theirs_t:.2f} (rouge-score)",
                 f"{theirs_t / ours_t:.1f}x", f"{share:.1%} of segments equal"])
    if all_variants:
        clear_rouge_caches()
        all_t, _ = run_family(RougeFamily(), texts, REF_SETS, list(RougeFamily.variants[:8]))
        rows.append(["ROUGE all 8 variants, 30 pairs", f"{all_t:.2f}", "-", "-", "incl. bootstrap"])
    return rows


def bench_meteor(texts: dict[str, list[str]], variants: list[str]) -> list[list[str]]:
    """Rows of the METEOR table."""
    from mteval.metrics.meteor import MeteorFamily
    from mteval.metrics.meteor.paraphrase import paraphrase_table
    from mteval.metrics.meteor.resources import synonym_dictionary

    start = time.process_time()
    synonym_dictionary()
    paraphrase_table()
    rows = [["METEOR resources (load once)", f"{time.process_time() - start:.2f}", "-", "-",
             "WordNet + paraphrase table"]]
    for v in variants:
        t, _ = run_family(MeteorFamily(), texts, REF_SETS, [v])
        rows.append([f"{v}, 30 pairs", f"{t:.2f}", "-", "-", "target < 60 s"])
    return rows


def table(rows: list[list[str]]) -> str:
    """A plain-text table."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--meteor-variants", default="MTR-para",
                        help="comma-separated METEOR variants to time (default: the full module set)")
    parser.add_argument("--rouge-all", action="store_true", help="also time all 8 ROUGE variants")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (needs ../shared)")
        return 0
    texts = {s: read_lines(DATA / "sys" / f"{s}.en", args.lines) for s in SYSTEMS}
    texts.update({r: read_lines(DATA / "refs" / f"{r}.en", args.lines) for r in ("A", "B")})
    rows = [["workload", "ours (CPU s)", "oracle (CPU s)", "speed-up", "note"]]
    rows += bench_rouge(texts, args.rouge_all)
    rows += bench_meteor(texts, args.meteor_variants.split(","))
    print(f"WMT21 ru-en, {args.lines} segments, 10 systems")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
