"""Cost model of an iqsetup campaign (issue 12, docs/scaling.md "Cost model"): measured seconds per
parsed sentence (one worker thread), per metric family x segment-pair, and per file on the client
(writing it, checking it is up to date), extrapolated to a WMT-sized campaign (15 systems x 2,000
segments x 10 language pairs, 2 references) for 1, 8 and 64 workers.

The measurements run in this process on WMT21 ru-en: the first ``--segments`` segments (default
300) of reference A and of 3 systems; the families are those of ``bench_parallel.py`` (25 lexical
metrics and 4 syntactic ones). Prints "skipped" and exits 0 when ``../shared`` is absent.

    python bench/bench_cost_model.py [--segments N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from bench_parallel import LEXICAL, SYNTAX
from common import WMT21_RUEN, lines, table

from mteval.annotate.annotator import Annotator
from mteval.annotate.stanza_adapter import set_threads
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side
from mteval.store.cache import ScoreCache


@dataclass(frozen=True)
class Campaign:
    """The campaign the issue names: what iqsetup would plan for it."""

    pairs_of_languages: int = 10
    systems: int = 15
    references: int = 2
    segments: int = 2000

    @property
    def pairs(self) -> int:
        """Per language pair: system/reference, system/all references, reference/reference."""
        return self.systems * self.references + self.systems + self.references * (self.references - 1)

    @property
    def sentences(self) -> int:
        """Distinct sentences to parse (every system and reference segment)."""
        return (self.systems + self.references) * self.segments * self.pairs_of_languages

    def segment_pairs(self) -> int:
        return self.pairs * self.segments * self.pairs_of_languages

    def files(self, metrics: int) -> int:
        return self.pairs * metrics * self.pairs_of_languages


def parse_cost(sides: dict[str, list[str]], folder: Path) -> tuple[float, Annotator]:
    """Seconds per distinct sentence, one thread, in this process (models loaded first)."""
    set_threads(1)
    annotator = Annotator(folder, workers=1)
    annotator.annotate(["Warm up the models."])
    distinct = list(dict.fromkeys(s for texts in sides.values() for s in texts))
    start = time.perf_counter()
    annotator.annotate_with_scores(distinct)
    return (time.perf_counter() - start) / len(distinct), annotator


def family_costs(sides: dict[str, list[str]], annotator: Annotator) -> list[tuple[str, int, float]]:
    """(family, variants, seconds per segment-pair) for each family, the targets scored against A."""
    documents = DocumentIndex.single(len(sides["A"]))
    out = []
    for name, variants in registry.group_by_family(LEXICAL + SYNTAX).items():
        family = registry.create(name)
        canonical = list(dict.fromkeys(registry.canonical(v) for v in variants))

        def side(text: str, family: object = family) -> Side:
            annotated = getattr(family, "needs_annotation", False)
            return Side(text, sides[text], annotator.annotate_with_scores(sides[text]) if annotated else None)

        reference, targets = side("A"), [side(t) for t in sides if t != "A"]
        warm = [0, 1, 2]  # a worker's one-off start (METEOR's paraphrase table...) is not per pair
        family.score(targets[0].rows(warm), family.prepare([reference.rows(warm)]), DocumentIndex.single(3),
                     canonical)
        start = time.perf_counter()
        prepared = family.prepare([reference])
        for target in targets:
            family.score(target, prepared, documents, canonical)
        out.append((name, len(variants), (time.perf_counter() - start) / (len(targets) * len(reference))))
    return out


def client_cost(segments: int, folder: Path) -> tuple[float, float]:
    """(seconds to write one score file, to check one is up to date) of ``segments`` segments,
    with BLEU-like statistics: the client's serial share of the work."""
    from mteval.scores import ScoreSet  # noqa: PLC0415

    cache, rng = ScoreCache(folder), np.random.default_rng(0)
    doc_ids = tuple(f"d{i // 20}" for i in range(segments))
    scores = ScoreSet(float(rng.random()), {d: float(rng.random()) for d in dict.fromkeys(doc_ids)},
                      rng.random(segments), stats=rng.integers(0, 40, (segments, 9)).astype(float))
    files = 50
    start = time.perf_counter()
    for k in range(files):
        cache.save(f"S{k}", "A", "BLEU", scores, doc_ids, "metric:BLEU", "x")
    write = (time.perf_counter() - start) / files
    start = time.perf_counter()
    for k in range(files):
        assert cache.is_current(f"S{k}", "A", "BLEU", "metric:BLEU", "x", segments, True)
    return write, (time.perf_counter() - start) / files


def extrapolate(parse: float, families: list[tuple[str, int, float]], write: float,
                check: float) -> list[list[str]]:
    """The campaign's hours for 1, 8 and 64 workers: parallel work / workers + the client's serial part."""
    campaign = Campaign()
    metrics = sum(n for _, n, _ in families)
    parse_s = parse * campaign.sentences
    metric_s = sum(cost for _, _, cost in families) * campaign.segment_pairs()
    client_s = campaign.files(metrics) * write
    rows = [["workers", "parse h", "metrics h", "client (serial) h", "total h", "warm re-run (full check) min"]]
    for workers in (1, 8, 64):
        total = (parse_s + metric_s) / workers + client_s
        rows.append([str(workers), f"{parse_s / workers / 3600:.2f}", f"{metric_s / workers / 3600:.2f}",
                     f"{client_s / 3600:.2f}", f"{total / 3600:.2f}",
                     f"{campaign.files(metrics) * check / 60:.1f}"])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=300)
    args = parser.parse_args()
    if not WMT21_RUEN.exists():
        print(f"skipped: {WMT21_RUEN} is absent")
        return 0
    systems = sorted((WMT21_RUEN / "sys").glob("*.en"))[:3]
    sides = {p.stem: lines(p)[:args.segments] for p in [WMT21_RUEN / "refs" / "A.en", *systems]}
    with tempfile.TemporaryDirectory(prefix="mteval-bench-cost-") as name:
        parse, annotator = parse_cost(sides, Path(name) / "annotation")
        families = family_costs(sides, annotator)
        write, check = client_cost(Campaign().segments, Path(name) / "cache")
    print(f"measured on WMT21 ru-en, reference A and 3 systems x {args.segments} segments, one thread, "
          f"{os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f})")
    rows = [["cost", "seconds"], ["parse, per distinct sentence", f"{parse:.4f}"]]
    rows += [[f"{name} ({n} metrics), per segment-pair", f"{cost:.6f}"] for name, n, cost in families]
    size = Campaign().segments
    rows += [[f"client: write one file of {size} segments", f"{write:.4f}"],
             [f"client: full up-to-date check of one file of {size} segments", f"{check:.4f}"]]
    print(table(rows))
    campaign = Campaign()
    print(f"\nextrapolated: {campaign.pairs_of_languages} language pairs x {campaign.systems} systems x "
          f"{campaign.segments} segments, {campaign.references} references ({campaign.pairs} pairs per language "
          f"pair, {campaign.sentences:,} sentences to parse, {campaign.files(sum(n for _, n, _ in families)):,} "
          f"files)")
    print(table(extrapolate(parse, families, write, check)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
