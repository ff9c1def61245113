"""Benchmark: CESM over WMT21 ru-en (10 systems x references A+B x 1000 segments) and syntactic
hybridization of references A+B (``make bench``).

Parses come from the warm annotation cache ``bench/out/annotation-cache`` (filled by
``bench_annotate.py``) when every segment is in it: reading them is timed apart from scoring.
Otherwise (cold cache, or ``MTEVAL_BENCH_SYNTHETIC=1``) CESM runs on *synthetic* trees: each
segment's own tokens (a regex split, so sizes and word repetitions are real) on a random
dependency-like tree with short arcs; the output says so. Hybridization needs real parses of
the references (it projects phrase structure from them): it runs when they are cached, and is
skipped otherwise. ``MTEVAL_BENCH_SEGMENTS=N`` limits
every file to its first N segments. Exits 0; needs ../shared (skips without it).

``--study`` adds the correlation study of docs/cesm-hybridization.md (segment- and system-level
correlation with WMT21 DA of CESM, and of BLEU/NIST/ROUGE/chrF with the original references A+B
vs A+B plus hybridized ones; ``MTEVAL_STUDY_CAP``, default 30, caps the hybrids per segment).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wmt21-ruen"
CACHE = ROOT / "bench" / "out" / "annotation-cache"


def lines(path: Path, limit: int | None) -> list[str]:
    """One segment a line."""
    return path.read_text(encoding="utf-8").split("\n")[:-1][:limit]


def load_texts(limit: int | None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(references A, B; the 10 systems) of WMT21 ru-en."""
    refs = {p.stem: lines(p, limit) for p in sorted((DATA / "refs").glob("*.en"))}
    systems = {p.stem: lines(p, limit) for p in sorted((DATA / "sys").glob("*.en"))}
    return refs, systems


def cached_parses(texts: list[str]) -> list | None:
    """Sentences of all texts from the warm cache, or None when any text is not cached."""
    from mteval.annotate.annotator import Annotator
    from mteval.annotate.conllu_cache import cache_key
    from mteval.annotate.textprep import prepare_text

    if not CACHE.exists():
        return None
    ann = Annotator(CACHE)
    for text in dict.fromkeys(texts):
        key = cache_key(prepare_text(text, ann.max_words).text, ann.language, ann.identity(), ann.processors)
        if key not in ann.cache:
            return None
    sentences = ann.annotate(texts)
    assert ann.parsed == 0
    return sentences


def synthetic(text: str, rng: np.random.Generator) -> object:
    """A parse-shaped stand-in: the text's tokens on a random tree of short arcs."""
    from mteval.annotate.model import Sentence, Word

    forms = re.findall(r"\w+|[^\w\s]", text)
    n = len(forms)
    heads = [0] * n
    root = int(rng.integers(n)) if n else 0
    for i in range(n):
        if i != root:
            lo, hi = (root, i) if root < i else (i + 1, root + 1)
            heads[i] = int(rng.integers(max(lo, i - 3), min(hi, i + 4))) + 1 if rng.random() > 0.2 else root + 1
            if heads[i] == i + 1:
                heads[i] = root + 1
    return Sentence(tuple(Word(i + 1, f, head=h) for i, (f, h) in enumerate(zip(forms, heads, strict=True))), text)


def parses(refs: dict[str, list[str]], systems: dict[str, list[str]]) -> tuple[dict, str, float]:
    """Parses of every side, where they came from, and the seconds spent reading them."""
    names = [*refs, *systems]
    texts = [t for side in (*refs.values(), *systems.values()) for t in side]
    start = time.perf_counter()
    found = None if os.environ.get("MTEVAL_BENCH_SYNTHETIC") else cached_parses(texts)
    source = "Stanza parses from the warm annotation cache"
    if found is None:
        rng = np.random.default_rng(2013)
        found = [synthetic(t, rng) for t in texts]
        source = "SYNTHETIC trees (annotation cache cold): real tokens, random short-arc trees"
    seconds = time.perf_counter() - start
    n = len(next(iter(refs.values())))
    out = {name: found[k * n:(k + 1) * n] for k, name in enumerate(names)}
    return out, source, seconds


def bench_cesm(refs: dict[str, list[str]], systems: dict[str, list[str]], parsed: dict) -> list[list[str]]:
    """CESM of every system against A+B; rows of the result table (with the timing)."""
    from mteval.io.corpus import DocumentIndex
    from mteval.metrics.base import Side
    from mteval.metrics.cesm import CesmFamily

    family = CesmFamily()
    start, cpu = time.perf_counter(), time.process_time()
    prepared = family.prepare([Side(n, refs[n], parsed[n]) for n in refs])
    rows = [["system", "CESM", "CESM-P", "CESM-R", "CESM-anyroot", "wall s", "cpu s"]]
    for name, texts in systems.items():
        t0, c0 = time.perf_counter(), time.process_time()
        docs = DocumentIndex.single(len(texts))
        scores = family.score(Side(name, texts, parsed[name]), prepared, docs, family.variants)
        rows.append([name] + [f"{scores[v].system:.4f}" for v in ("CESM", "CESM-P", "CESM-R", "CESM-anyroot")]
                    + [f"{time.perf_counter() - t0:.2f}", f"{time.process_time() - c0:.2f}"])
    rows.append(["TOTAL (incl. references)", "", "", "", "", f"{time.perf_counter() - start:.2f}",
                 f"{time.process_time() - cpu:.2f}"])
    return rows


def bench_long(parsed: dict) -> str:
    """Time of one CESM segment (hypothesis self + 2 references) for the longest segments."""
    from mteval.metrics.cesm import CesmFamily, word_acet

    family = CesmFamily()
    sides = list(parsed.values())
    n = len(sides[0])
    longest = sorted(range(n), key=lambda i: -max(len(s[i]) for s in sides))[:20]
    times, sizes = [], []
    for i in longest:
        hyp, refs = sides[2][i], [sides[0][i], sides[1][i]]
        trees = [family._trees[family._key(s)] for s in (hyp, *refs)]
        t0 = time.perf_counter()
        word_acet(trees[0], trees)
        for r in trees[1:]:
            word_acet(r, [r])
        times.append(time.perf_counter() - t0)
        sizes.append(max(len(t) for t in trees))
    return (f"20 longest segments ({min(sizes)}-{max(sizes)} words): one segment's 4 ACETs "
            f"mean {1000 * np.mean(times):.1f} ms, max {1000 * max(times):.1f} ms")


def bench_hybrid(parsed: dict, refs: dict[str, list[str]]) -> str:
    """Hybridization of references A+B, Table 5 and timing."""
    from mteval.annotate.layers.phrase import project
    from mteval.hybridize import hybridize, write_extended_references
    from mteval.hybridize.stats import table5

    start, cpu = time.perf_counter(), time.process_time()
    result = hybridize([parsed[n] for n in refs], project, cap=100)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    with tempfile.TemporaryDirectory() as tmp:
        files = write_extended_references(result, tmp)
    stats = table5(result)
    rows = [["Table 5 (refs " + "+".join(refs) + ")", "value"], *map(list, stats.rows()),
            ["Segments cut by the cap (100)", str(stats.truncated)],
            ["Reference files written (hyb.1 ..)", str(len(files))],
            ["Hybridization seconds (wall / cpu)", f"{seconds:.2f} / {cpu:.2f}"]]
    return table(rows)


def human_scores() -> dict[tuple[str, int], float]:
    """WMT21 DA z-scores per (system, 0-based line)."""
    seg = {}
    for row in (DATA / "human" / "da_seg_scores.by_line.tsv").read_text().splitlines()[1:]:
        f = row.split("\t")
        seg[(f[0], int(f[3]) - 1)] = float(f[7])
    return seg


def correlations(segments: dict[str, np.ndarray], systems: dict[str, float],
                 human: dict[tuple[str, int], float]) -> tuple[float, float, float]:
    """(segment Pearson, segment Kendall tau-b, system Pearson) against DA z: segments pooled
    over systems; system human score = mean z of the system's judged segments in the set."""
    from scipy.stats import kendalltau, pearsonr

    keys = [(name, i) for name in segments for i in range(len(segments[name])) if (name, i) in human]
    metric = np.array([segments[n][i] for n, i in keys])
    gold = np.array([human[k] for k in keys])
    names = sorted(systems)
    sys_gold = [float(np.mean([human[k] for k in keys if k[0] == n])) for n in names]
    return (float(pearsonr(metric, gold)[0]), float(kendalltau(metric, gold)[0]),
            float(pearsonr([systems[n] for n in names], sys_gold)[0]))


def extended_sides(result: object, names: list[str]) -> list:
    """Reference Sides from a hybridization: column k = k-th reference of each segment (its
    references in turn where it has fewer), as written by write_extended_references."""
    from mteval.metrics.base import Side

    width = max(len(s.references) for s in result.segments)
    cols = [[s.references[k % len(s.references)] for s in result.segments] for k in range(width)]
    return [Side(names[k] if k < len(names) else f"hyb.{k + 1}", col) for k, col in enumerate(cols)]


def study(refs: dict[str, list[str]], systems: dict[str, list[str]], parsed: dict, cap: int,
          with_cesm: bool) -> None:
    """Segment- and system-level correlation with WMT21 DA: CESM variants (when the systems are
    parsed), and lexical metrics with the original vs the hybridized references."""
    from mteval.annotate.layers.phrase import project
    from mteval.hybridize import hybridize

    human = human_scores()
    n = len(next(iter(refs.values())))
    rows = [["metric", "references", "seg Pearson", "seg Kendall", "sys Pearson", "seconds"]]
    if with_cesm:
        rows += study_cesm(refs, systems, parsed, human)
    result = hybridize([parsed[k] for k in refs], project, cap=cap)
    rows += study_lexical(refs, systems, extended_sides(result, list(refs)), cap, human)
    judged = sum((name, i) in human for name in systems for i in range(n))
    print(f"Study: WMT21 ru-en DA (z), {judged} judged segments of {len(systems)} systems x {n} segments; "
          f"{sum(s.n_generated for s in result.segments) / n:.2f} hybrid references per segment")
    print(table(rows))


def study_cesm(refs: dict[str, list[str]], systems: dict[str, list[str]], parsed: dict,
               human: dict[tuple[str, int], float]) -> list[list[str]]:
    """Correlation rows of every CESM variant (system score = mean of segments)."""
    from mteval.metrics.base import Side
    from mteval.metrics.cesm import CesmFamily

    family = CesmFamily()
    prepared = family.prepare([Side(k, refs[k], parsed[k]) for k in refs])
    per = {name: family.segment_scores(Side(name, t, parsed[name]), prepared) for name, t in systems.items()}
    rows = []
    for v in family.variants:
        seg = {k: per[k][v] for k in per}
        corr = correlations(seg, {k: float(np.mean(x)) for k, x in seg.items()}, human)
        rows.append([v, "+".join(refs), *(f"{c:.4f}" for c in corr), ""])
    return rows


def study_lexical(refs: dict[str, list[str]], systems: dict[str, list[str]], extended: list, cap: int,
                  human: dict[tuple[str, int], float]) -> list[list[str]]:
    """Correlation rows of BLEU, NIST, ROUGE-L, ROUGE-SU*, chrF (or ``MTEVAL_STUDY_METRICS``, comma-separated)
    with original vs extended refs."""
    from mteval.io.corpus import DocumentIndex
    from mteval.metrics import registry
    from mteval.metrics.base import Side

    docs = DocumentIndex.single(len(next(iter(refs.values()))))
    ref_sets = {"+".join(refs): [Side(k, refs[k]) for k in refs], "+".join(refs) + f"+hyb(cap {cap})": extended}
    rows = []
    variants = os.environ.get("MTEVAL_STUDY_METRICS", "BLEU,NIST,ROUGE-L,ROUGE-SU*,chrF").split(",")
    for variant in variants:
        fam = registry.families()[registry.family_of(variant)]()
        for label, sides in ref_sets.items():
            t0 = time.perf_counter()
            prep = fam.prepare(sides)
            got = {name: fam.score(Side(name, t), prep, docs, [variant])[variant] for name, t in systems.items()}
            corr = correlations({k: g.segments for k, g in got.items()}, {k: g.system for k, g in got.items()}, human)
            rows.append([variant, label, *(f"{c:.4f}" for c in corr), f"{time.perf_counter() - t0:.1f}"])
    return rows


def table(rows: list[list[str]]) -> str:
    """Left-aligned plain-text table."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


def main() -> int:
    """Run the benchmark (and the study with ``--study``); always 0."""
    if not DATA.exists():
        print("bench_cesm_hybrid: ../shared/data/wmt21-ruen is absent; skipped")
        return 0
    limit = int(os.environ.get("MTEVAL_BENCH_SEGMENTS", "0")) or None
    refs, systems = load_texts(limit)
    parsed, source, read = parses(refs, systems)
    n = len(next(iter(refs.values())))
    print(f"CESM: {len(systems)} systems x {len(refs)} references x {n} segments; {source} "
          f"(read in {read:.1f} s)")
    print(table(bench_cesm(refs, systems, parsed)))
    print(bench_long(parsed))
    if source.startswith("SYNTHETIC"):
        ref_texts = [t for side in refs.values() for t in side]
        found = None if os.environ.get("MTEVAL_BENCH_SYNTHETIC") else cached_parses(ref_texts)
        if found is None:
            print("hybridization: skipped (needs real parses of the references; cache cold)")
        else:
            print(f"hybridization: references {'+'.join(refs)} parsed from the warm cache")
            ref_parsed = {name: found[k * n:(k + 1) * n] for k, name in enumerate(refs)}
            print(bench_hybrid(ref_parsed, refs))
            if "--study" in sys.argv:
                print("study: CESM rows need parsed systems (cache cold); lexical metrics only")
                study(refs, systems, ref_parsed, int(os.environ.get("MTEVAL_STUDY_CAP", "30")), False)
        return 0
    print(bench_hybrid(parsed, refs))
    if "--study" in sys.argv:
        study(refs, systems, parsed, int(os.environ.get("MTEVAL_STUDY_CAP", "30")), True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
