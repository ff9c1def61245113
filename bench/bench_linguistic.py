"""Benchmark: IQMT's linguistic families (SP, DP, CP, NE, SR; every variant) on WMT21 ru-en.

10 systems scored against the reference set {A, B} (multi-reference), N segments each (default
1000), from the annotation cache ``bench/out/annotation-cache`` (texts missing from it are parsed
first; that time is reported apart). Prints the time per family (wall and CPU) and, for the first
``--kendall`` segments (default 300), the segment-level Kendall tau-b of representative variants
with the WMT21 DA z-scores (pooled over the 10 systems; missing metric values count as 0) next
to sacreBLEU's sentence BLEU with both references, and the system-level scores (all N segments).

    python bench/bench_linguistic.py [--segments 1000] [--kendall 300]

Without ``--segments`` it uses the largest of 1000/300/100 segments already in the annotation
cache (so ``make bench`` stays short on a cold cache; warm it with ``--segments 1000`` once).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np
from common import ROOT, SHARED, WMT21_RUEN, ruen_texts, table

from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side

FAMILIES = ("SP", "DP", "CP", "NE", "SR")
SHOWN = ("SP-Op(*)", "SP-Oc(*)", "SP-lNIST", "SP-pNIST", "DP-HWCM_w-4", "DP-HWCM_c-4", "DP-HWCM_r-4",
         "DP-Ol(*)", "DP-Oc(*)", "DP-Or(*)", "CP-STM-9", "CP-Op(*)", "CP-Oc(*)", "NE-Oe(**)", "NE-Me(*)",
         "SR-Or(*)", "SR-Mr(*)", "SR-Or", "SR-Orv(*)", "SR-Orv")
CACHE = ROOT / "bench" / "out" / "annotation-cache"


def cached_prefix(annotator: Any, texts: list[list[str]], candidates: tuple[int, ...]) -> int:
    """The largest candidate ``n`` whose first ``n`` segments of every text are all in the cache."""
    from mteval.annotate.conllu_cache import cache_key
    from mteval.annotate.textprep import prepare_text

    def cached(t: str) -> bool:
        """Whether one text's annotation is in the cache."""
        key = cache_key(prepare_text(t, annotator.max_words).text, annotator.language, annotator.identity(),
                        annotator.processors)
        return key in annotator.cache

    return next((n for n in candidates if all(cached(t) for side in texts for t in side[:n])), 0)


def annotated_sides(n: int) -> tuple[list[Side], list[Side], float, int]:
    """Reference and system sides (first ``n`` segments; 0 = the largest warm prefix, else 30) with
    their annotation; annotation time and number of texts parsed."""
    from mteval.annotate.annotator import Annotator

    refs, systems = ruen_texts()
    annotator = Annotator(CACHE)
    if n <= 0:
        n = cached_prefix(annotator, list(refs.values()) + list(systems.values()), (1000, 300, 100)) or 30
    start = time.perf_counter()
    annotator.annotate([t for texts in {**refs, **systems}.values() for t in texts[:n]])  # parse what is missing
    sides = {name: Side(name, texts[:n], annotator.annotate(texts[:n]))
             for name, texts in {**refs, **systems}.items()}
    return ([sides[r] for r in refs], [sides[s] for s in systems], time.perf_counter() - start,
            annotator.parsed)


def run_families(refs: list[Side], systems: list[Side]) -> tuple[list[list[str]], dict[str, dict[str, object]]]:
    """Score every system with every variant of every family; a timing table and the scores."""
    docs = DocumentIndex.single(len(refs[0]))
    rows = [["family", "variants", "pairs", "wall s", "cpu s"]]
    scores: dict[str, dict[str, object]] = {}
    for name in FAMILIES:
        family = registry.families()[name]()
        wall, cpu = time.perf_counter(), time.process_time()
        prepared = family.prepare(refs)
        for system in systems:
            scores.setdefault(system.name, {}).update(family.score(system, prepared, docs, family.variants))
        rows.append([name, str(len(family.variants)), str(len(systems)),
                     f"{time.perf_counter() - wall:.1f}", f"{time.process_time() - cpu:.1f}"])
    return rows, scores


def da_scores(n: int) -> dict[tuple[str, int], float]:
    """WMT21 DA z-scores by (system, line) for lines 1..n."""
    found = {}
    path = WMT21_RUEN / "human" / "da_seg_scores.by_line.tsv"
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        if int(cols[3]) <= n:
            found[(cols[0], int(cols[3]))] = float(cols[7])
    return found


def kendall_rows(scores: dict[str, dict[str, object]], refs: list[Side], systems: list[Side],
                 n: int) -> list[list[str]]:
    """Segment-level Kendall tau-b with DA and system-level scores of the shown variants and BLEU."""
    from sacrebleu.metrics import BLEU
    from scipy.stats import kendalltau

    da = da_scores(n)
    keys = [(s.name, i) for s in systems for i in range(n) if (s.name, i + 1) in da]
    human = np.array([da[(s, i + 1)] for s, i in keys])
    bleu = BLEU(effective_order=True)
    texts = {s.name: s.texts for s in systems}
    sent_bleu = {k: bleu.sentence_score(texts[k[0]][k[1]], [r.texts[k[1]] for r in refs]).score for k in keys}
    rows = [["metric", "seg tau-b", *[s.name[:10] for s in systems]]]
    values = np.array([sent_bleu[k] for k in keys])
    corpus = [bleu.corpus_score(list(s.texts), [list(r.texts) for r in refs]).score for s in systems]
    rows.append(["sentBLEU", f"{kendalltau(values, human).statistic:.3f}", *[f"{c:.2f}" for c in corpus]])
    for variant in SHOWN:
        segs = {s: np.nan_to_num(scores[s][variant].segments[:n]) for s in texts}
        tau = kendalltau(np.array([segs[s][i] for s, i in keys]), human).statistic
        rows.append([variant, f"{tau:.3f}", *[f"{scores[s.name][variant].system:.4f}" for s in systems]])
    return rows


def main() -> int:
    """Run the benchmark (module docstring); exit status 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=0,
                        help="segments per text; 0 (default): 1000, 300 or 100, the largest already in the "
                             "annotation cache, else 30 (parsed now)")
    parser.add_argument("--kendall", type=int, default=300)
    args = parser.parse_args()
    if not SHARED.exists():
        print("skipped: ../shared (WMT21 ru-en) is absent")
        return 0
    refs, systems, ann_time, parsed = annotated_sides(args.segments)
    print(f"annotation: {ann_time:.1f} s ({parsed} texts parsed, the rest from {CACHE})")
    rows, scores = run_families(refs, systems)
    total = sum(float(r[3]) for r in rows[1:])
    print(table(rows + [["total", "", "", f"{total:.1f}", ""]]))
    n = len(refs[0])
    print(f"{len(systems)} systems x {len(refs)} refs x {n} segments; target for 1000 segments: < 60 s in total")
    k = min(args.kendall, n)
    if k:
        print(f"\nsegment-level Kendall tau-b with DA z (first {k} segments, pooled) and system-level scores "
              f"over all {n} segments (sentBLEU row: corpus BLEU, sacreBLEU)")
        print(table(kendall_rows(scores, refs, systems, k)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
