"""Benchmark and correlation study: SEPIA, DPM (1-best) and EDPM (exact expected counts).

Each family scores the 10 WMT21 ru-en systems against both references (A, B) x 1000 segments,
every variant at once, from a warm annotation cache (``bench/out/annotation-cache``, filled by
``bench/bench_annotate.py``). When the cache does not hold every segment, the timings use random
synthetic parses and arc scores of the same sizes (and say so), and no correlation is printed.

With real parses it also prints the study of ``docs/sepia-edpm.md``: segment-level Pearson and
Kendall τ of every variant with the WMT21 DA z-scores (and Pearson after removing each source
segment's mean over systems, as EDPM §3 does), and system-level Pearson with the systems' mean z.

``MTEVAL_BENCH_SEGMENTS=N`` limits every file to its first N segments.
"""

from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, WMT21_RUEN, ruen_texts, table  # noqa: E402

from mteval.annotate.model import ArcScores, Sentence, Word  # noqa: E402
from mteval.io.corpus import DocumentIndex  # noqa: E402
from mteval.metrics.base import Side  # noqa: E402
from mteval.metrics.edpm import DPM, EDPM  # noqa: E402
from mteval.metrics.sepia import Sepia  # noqa: E402

CACHE = ROOT / "bench" / "out" / "annotation-cache"
LABELS = ("nsubj", "obj", "iobj", "obl", "advmod", "amod", "nmod", "det", "case", "mark", "cc", "conj",
          "punct", "root", "compound", "aux", "cop", "xcomp", "ccomp", "advcl", "acl", "appos", "nummod",
          "flat", "fixed", "dep", "parataxis", "expl", "csubj", "vocative", "discourse", "list",
          "orphan", "goeswith", "reparandum", "nmod:poss", "compound:prt")


def synthetic(text: str, rng: np.random.Generator) -> Sentence:
    """A random tree and random arc scores (cache precision) over the whitespace tokens."""
    forms = text.split()
    n = len(forms)
    order = rng.permutation(n) + 1
    heads = np.zeros(n + 1, dtype=np.intp)
    for i, d in enumerate(order[1:], start=1):
        heads[d] = order[rng.integers(0, i)]
    words = tuple(Word(i, f, upos="X", xpos="X", head=int(heads[i]), deprel=LABELS[rng.integers(13)])
                  for i, f in enumerate(forms, start=1))
    arcs = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
    arcs[heads[1:], np.arange(1, n + 1)] += 3.0
    arcs[:, 0] = -np.inf
    np.fill_diagonal(arcs, -np.inf)
    k = max(1, min(4, n))
    top = np.argsort(-arcs[:, 1:].T, axis=1)[:, :k].astype(np.int16)
    logits = rng.normal(scale=2.0, size=(n, k, len(LABELS)))
    logp = (logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)).astype(np.float16)
    return Sentence(words, text, scores=ArcScores(arcs, LABELS, top, logp))


def _with_scores(ann, texts: dict[str, list[str]]) -> tuple[dict[str, list[Sentence]], int]:
    """Parses with arc scores; a text the cache holds no scores for gets one-hot 1-best scores."""
    from dataclasses import replace

    from mteval.errors import MtevalError

    distinct = list(dict.fromkeys(t for v in texts.values() for t in v))
    sentences = dict(zip(distinct, ann.annotate(distinct), strict=True))
    try:
        scores = dict(zip(distinct, ann.arc_scores(distinct), strict=True))
    except MtevalError:
        scores = {}
        for t in distinct:
            try:
                scores[t] = ann.arc_scores([t])[0]
            except MtevalError:
                pass
    labels = next(iter(scores.values())).labels
    patched = 0
    for t in distinct:
        if t not in scores:
            scores[t] = _tree_scores(sentences[t], labels)
            patched += 1
    return {n: [replace(sentences[t], scores=scores[t]) for t in v] for n, v in texts.items()}, patched


def _tree_scores(sentence: Sentence, labels: tuple[str, ...]) -> ArcScores:
    """Arc scores that put (numerically) all mass on the annotated tree."""
    n = len(sentence)
    arcs = np.full((n + 1, n + 1), -1e4, dtype=np.float32)
    logp = np.full((n, 1, len(labels)), -1e4, dtype=np.float32)
    for w in sentence.words:
        arcs[w.head, w.id] = 0.0
        logp[w.id - 1, 0, labels.index(w.deprel) if w.deprel in labels else 0] = 0.0
    arcs[:, 0] = -np.inf
    np.fill_diagonal(arcs, -np.inf)
    heads = np.asarray([[w.head] for w in sentence.words], dtype=np.int16).reshape(n, 1)
    return ArcScores(arcs, labels, heads, logp)


def load_sides(limit: int | None) -> tuple[dict[str, Side], dict[str, Side], str, float]:
    """References and systems with parses: from the warm cache when complete, else synthetic."""
    refs, systems = ruen_texts()
    texts = {**{f"ref-{k}": v[:limit] for k, v in refs.items()}, **{k: v[:limit] for k, v in systems.items()}}
    source, seconds = "synthetic parses (the annotation cache is not complete)", 0.0
    parsed: dict[str, list[Sentence]] | None = None
    if CACHE.exists():
        from mteval.annotate.annotator import Annotator
        from mteval.annotate.conllu_cache import cache_key
        from mteval.annotate.textprep import prepare_text

        ann = Annotator(CACHE)
        distinct = {t for v in texts.values() for t in v}
        keys = {cache_key(prepare_text(t, ann.max_words).text, ann.language, ann.identity(), ann.processors)
                for t in distinct}
        if all(k in ann.cache for k in keys):
            start = time.perf_counter()
            parsed, patched = _with_scores(ann, texts)
            seconds = time.perf_counter() - start
            source = f"warm annotation cache {CACHE.relative_to(ROOT)}"
            if patched:
                source += (f"; {patched} distinct parsed text(s) had no arc scores in the cache, "
                           "given scores peaked on their 1-best tree (EDPM = DPM there)")
    if parsed is None:
        rng = np.random.default_rng(0)
        memo: dict[str, Sentence] = {}
        for v in texts.values():
            for t in v:
                if t not in memo:
                    memo[t] = synthetic(t, rng)
        parsed = {name: [memo[t] for t in v] for name, v in texts.items()}
    sides = {name: Side(name, texts[name], parsed[name]) for name in texts}
    ref_sides = {k: s for k, s in sides.items() if k.startswith("ref-")}
    sys_sides = {k: s for k, s in sides.items() if not k.startswith("ref-")}
    return ref_sides, sys_sides, source, seconds


def run_family(family, variants, refs: list[Side], systems: dict[str, Side], docs: DocumentIndex):
    """Prepare once, score every system with the given variants; (seconds, scores by system)."""
    start = time.perf_counter()
    prepared = family.prepare(refs)
    scores = {name: family.score(side, prepared, docs, variants) for name, side in systems.items()}
    return time.perf_counter() - start, scores


def read_da(limit: int | None) -> dict[tuple[str, int], float]:
    """DA z-score of every rated (system, line)."""
    out = {}
    with open(WMT21_RUEN / "human" / "da_seg_scores.by_line.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            line = int(row["line"])
            if limit is None or line <= limit:
                out[(row["system"], line)] = float(row["z"])
    return out


def correlations(scores, da: dict[tuple[str, int], float], variant: str) -> list[str]:
    """Segment Pearson, Kendall τ, mean-removed Pearson; system Pearson (mean z)."""
    from scipy.stats import kendalltau, pearsonr

    pairs = [(s, line) for (s, line) in da if s in scores]
    m = np.array([scores[s][variant].segments[line - 1] for s, line in pairs])
    h = np.array([da[p] for p in pairs])
    lines = np.array([line for _, line in pairs])
    m_rm, h_rm = m.copy(), h.copy()
    for line in np.unique(lines):
        sel = lines == line
        m_rm[sel] -= m[sel].mean()
        h_rm[sel] -= h[sel].mean()
    systems = sorted(scores)
    sys_m = [scores[s][variant].system for s in systems]
    sys_h = [np.mean([da[p] for p in pairs if p[0] == s]) for s in systems]
    return [variant, f"{pearsonr(m, h)[0]:.4f}", f"{kendalltau(m, h)[0]:.4f}",
            f"{pearsonr(m_rm, h_rm)[0]:.4f}", f"{pearsonr(sys_m, sys_h)[0]:.4f}"]


def tuning_table(family, refs: list[Side], systems: dict[str, Side], da, limit: int | None) -> str:
    """EDPM §6 on DA: feature sets E (P/R of dlh, dl, lh, dh), N (1g, 2g), B (brevity), tuned for
    weighted (reference length) correlation with per-source-segment mean-removed z, two folds of
    documents; mean test-fold r per condition."""
    from mteval.meta.learn.weight_tuning import compare_feature_sets, split_documents

    with open(WMT21_RUEN / "docids.tsv", encoding="utf-8") as f:
        docs = {int(r["line"]): r["docid"] for r in csv.DictReader(f, delimiter="\t")}
    prepared = family.prepare(refs)
    feats = {name: family.features(side, prepared) for name, side in systems.items()}
    pairs = [(s, line) for (s, line) in da if s in feats]
    pick = {"E": [f"{pr}_{d}" for d in ("dlh", "dl", "lh", "dh") for pr in "PR"],
            "N": [f"{pr}_{d}" for d in ("1g", "2g") for pr in "PR"], "B": ["B_long", "B_short"]}
    sets = {k: {n: np.array([feats[s][n][line - 1] for s, line in pairs]) for n in names}
            for k, names in pick.items()}
    human = np.array([da[p] for p in pairs])
    groups = [line for _, line in pairs]
    weights = np.array([max(len(refs[0].sentences[line - 1]), 1) for _, line in pairs], dtype=float)
    fold = split_documents([docs[line] for _, line in pairs], seed=0)
    rows = [["condition", "mean test r"]]
    rows += [[c, f"{r:.4f}"] for c, r in compare_feature_sets(sets, human, groups, weights, fold)]
    return table(rows)


def main() -> int:
    if not WMT21_RUEN.exists():
        print("skipped: ../shared/data/wmt21-ruen is absent")
        return 0
    limit = int(os.environ.get("MTEVAL_BENCH_SEGMENTS", "0")) or None
    refs, systems, source, load_s = load_sides(limit)
    n_seg = len(next(iter(systems.values())))
    with open(WMT21_RUEN / "docids.tsv", encoding="utf-8") as f:
        doc_ids = [r["docid"] for r in csv.DictReader(f, delimiter="\t")]
    docs = DocumentIndex(tuple(doc_ids[:n_seg]))
    print(f"{len(systems)} systems x {len(refs)} references x {n_seg} segments; parses: {source}")
    if load_s:
        print(f"loading the parses and arc scores from the cache: {load_s:.1f} s")
    rows = [["method", "variants", "seconds (prepare + 10 systems)"]]
    results = {}
    runs = [(Sepia(), None), (DPM(), None), (EDPM(), ("EDPM",)), (EDPM(), None)]
    for family, chosen in runs:
        variants = list(chosen or family.variants)
        seconds, scores = run_family(family, variants, list(refs.values()), systems, docs)
        if chosen is None:
            results[family.family] = (family, scores)
        label = f"{family.family} (all)" if chosen is None else ", ".join(chosen) + " (default alone)"
        rows.append([label, str(len(variants)), f"{seconds:.1f}"])
    print(table(rows))
    if source.startswith("synthetic"):
        print("correlations: skipped (synthetic parses)")
        return 0
    da = read_da(limit)
    corr = [["variant", "seg r", "seg tau", "seg r (mean-removed)", "sys r"]]
    for family, scores in results.values():
        corr += [correlations(scores, da, v) for v in family.variants]
    print(table(corr))
    print("EDPM §6 weight tuning (gamma 0.25), two-fold by document:")
    print(tuning_table(EDPM(), list(refs.values()), systems, da, limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
