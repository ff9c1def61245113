"""Benchmark: jiwer's CER and MER/WIL/WIP, rouge-score's rouge1/2/L/Lsum, ours beside the peers.

The 20 single-reference pairs of ``../shared/data/wmt21-ruen`` (10 systems x references A and B,
1000 segments; without ``../shared`` the bundled 5-system sample in ``data/``), segment and system
scores:

* CER: ours (family ``CER``) vs jiwer 4 ``process_characters(refs, hyps)`` per pair, each
  segment's CER from its alignment (what a jiwer user computes: one call per system);
* MER + WIL + WIP: ours (family ``MER-WIL-WIP``) vs jiwer ``process_words`` per pair, the same way;
* rouge1, rouge2, rougeL, rougeLsum: ours (family ``rouge-score``, with and without stemming) vs
  ``RougeScorer([...], use_stemmer=...)`` with one ``score`` call per segment and the mean.

Every timing is CPU seconds of this process (the machine may be shared) with fresh families and
empty caches; the same run checks that both give the same numbers (max |diff|).

    python bench/bench_jiwer_rouge_score.py [--lines 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "wmt21-ruen"
SAMPLE = ROOT / "data" / "wmt21-ruen-sample"
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
Results = dict[tuple[str, str], dict[str, np.ndarray]]  # (system, reference) -> name -> [system, *segments]


def read(folder: Path, lines: int) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(references A and B, systems) of a WMT folder, the first ``lines`` segments."""
    def text(path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").split("\n")[:-1][:lines]

    return ({r: text(folder / "refs" / f"{r}.en") for r in ("A", "B")},
            {p.stem: text(p) for p in sorted((folder / "sys").glob("*.en"))})


def cpu(run: Callable[[], Results]) -> tuple[float, Results]:
    start = time.process_time()
    out = run()
    return time.process_time() - start, out


def ours(names: list[str], refs: dict[str, list[str]], systems: dict[str, list[str]]) -> Results:
    """Our families on every pair (references prepared once each), a fresh family per name group."""
    out: Results = {}
    for family_name, variants in registry.group_by_family(names).items():
        family = registry.create(family_name)
        for r, ref in refs.items():
            prepared = family.prepare([Side(r, ref)])
            for s, hyp in systems.items():
                found = family.score(Side(s, hyp), prepared, DocumentIndex.single(len(hyp)), variants)
                out.setdefault((s, r), {}).update({v: np.r_[x.system, x.segments] for v, x in found.items()})
    return out


def jiwer_run(chars: bool, refs: dict[str, list[str]], systems: dict[str, list[str]]) -> Results:
    """jiwer's process_characters / process_words per pair; segment measures from the alignments."""
    import jiwer

    out: Results = {}
    for r, ref in refs.items():
        for s, hyp in systems.items():
            if chars:
                characters = jiwer.process_characters(ref, hyp)
                rates = [_rate(_segment_counts(chunks)) for chunks in characters.alignments]
                out[(s, r)] = {"CER": np.r_[characters.cer, rates]}
                continue
            words = jiwer.process_words(ref, hyp)
            measures = [_word_measures(_segment_counts(chunks)) for chunks in words.alignments]
            out[(s, r)] = {name: np.r_[getattr(words, name.lower()), [m[name] for m in measures]]
                           for name in ("MER", "WIL", "WIP")}
    return out


def _segment_counts(chunks: list) -> tuple[int, int, int, int]:
    """(hits, substitutions, deletions, insertions) of one sentence's jiwer alignment chunks."""
    counts = {"equal": 0, "substitute": 0, "delete": 0, "insert": 0}
    for c in chunks:
        counts[c.type] += (c.hyp_end_idx - c.hyp_start_idx) if c.type == "insert" else (c.ref_end_idx - c.ref_start_idx)
    return counts["equal"], counts["substitute"], counts["delete"], counts["insert"]


def _rate(c: tuple[int, int, int, int]) -> float:
    h, s, d, i = c
    return (s + d + i) / (h + s + d) if h + s + d else float(i)


def _word_measures(c: tuple[int, int, int, int]) -> dict[str, float]:
    h, s, d, i = c
    n_ref, n_hyp = h + s + d, h + s + i
    if not n_ref:
        mer, wip = (0.0, 1.0) if not n_hyp else (1.0, 0.0)
    else:
        mer, wip = (s + d + i) / (h + s + d + i), ((h / n_ref) * (h / n_hyp) if n_hyp else 0.0)
    return {"MER": mer, "WIL": 1 - wip, "WIP": wip}


def rouge_score_run(stem: bool, refs: dict[str, list[str]], systems: dict[str, list[str]]) -> Results:
    """rouge-score, one ``score`` call per segment, the mean of the segment F as the system score."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=stem)
    out: Results = {}
    for r, ref in refs.items():
        for s, hyp in systems.items():
            found = [scorer.score(a, b) for a, b in zip(ref, hyp, strict=True)]
            f = {t: np.array([x[t].fmeasure for x in found]) for t in ROUGE_TYPES}
            out[(s, r)] = {_rouge_name(t, stem): np.r_[v.mean(), v] for t, v in f.items()}
    return out


def _rouge_name(kind: str, stem: bool) -> str:
    return f"{kind}(stem=yes)" if stem else kind


def max_diff(a: Results, b: Results) -> float:
    return max(float(np.max(np.abs(a[k][n] - b[k][n]))) for k in b for n in b[k])


def clear_caches() -> None:
    """Empty the per-string caches the rouge-score family uses (a cold run)."""
    from mteval.metrics import porter_nltk, rouge, rouge_scorer

    rouge_scorer.tokens.cache_clear()
    rouge.rouge_text.cache_clear()
    porter_nltk.porter_nltk.cache_clear()


def rows_of(refs: dict[str, list[str]], systems: dict[str, list[str]]) -> list[list[str]]:
    """The table: workload, ours, peer, speed-up, max |diff|."""
    out = []
    for label, names, peer in (
        ("CER", ["CER"], lambda: jiwer_run(True, refs, systems)),
        ("MER + WIL + WIP", ["MER", "WIL", "WIP"], lambda: jiwer_run(False, refs, systems)),
    ):
        t_ours, mine = cpu(lambda names=names: ours(names, refs, systems))  # type: ignore[misc]
        t_peer, theirs = cpu(peer)
        out.append([label, f"{t_ours:.2f}", f"jiwer {t_peer:.2f}", f"{t_peer / t_ours:.1f}x",
                    f"{max_diff(mine, theirs):.1g}"])
    for stem in (False, True):
        names = [_rouge_name(t, stem) for t in ROUGE_TYPES]
        clear_caches()
        t_ours, mine = cpu(lambda names=names: ours(names, refs, systems))  # type: ignore[misc]
        t_peer, theirs = cpu(lambda stem=stem: rouge_score_run(stem, refs, systems))  # type: ignore[misc]
        label = f"rouge1/2/L/Lsum{' (stem=yes)' if stem else ''}"
        out.append([label, f"{t_ours:.2f}", f"rouge-score {t_peer:.2f}", f"{t_peer / t_ours:.1f}x",
                    f"{max_diff(mine, theirs):.1g}"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1000)
    args = parser.parse_args()
    try:
        import jiwer  # noqa: F401
        import rouge_score  # noqa: F401
    except ImportError as missing:
        print(f"skipped: {missing.name} is not installed")
        return 0
    folder = SHARED if SHARED.exists() else SAMPLE
    refs, systems = read(folder, args.lines)
    rows = [["workload (20 pairs)" if folder == SHARED else "workload (10 pairs)", "ours (CPU s)", "peer (CPU s)",
             "speed-up", "max |diff|"], *rows_of(refs, systems)]
    print(f"{folder.name}, {len(next(iter(systems.values())))} segments, {len(systems)} systems x references A, B")
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print("\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
