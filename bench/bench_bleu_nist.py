"""Benchmark: all-pairs BLEU+NIST on WMT21 ru-en (10 systems x 1000 segments; references A, B and
A+B, plus A/B and B/A; segment and system level) against sacreBLEU computing the same BLEU numbers
pair by pair (corpus BLEU + sentence BLEU with exp smoothing), in the same run.

Segment BLEU is mteval-v13a's (pinned by tests/test_bleu_nist_parity.py): an order without
hypothesis n-grams adds log-precision 0 and the sum is divided by 4. sacreBLEU has no such mode
(``effective_order=False`` scores such a segment 0, ``True`` divides by fewer orders), and v13a
smooths an order-1 precision of 0 where sacreBLEU returns 0 at once. Segments are compared where
neither convention applies (>= 4 hypothesis tokens, sacreBLEU's score > 0); the others are counted."""

from __future__ import annotations

import sys

from common import WMT21_RUEN, ruen_texts, table, timer

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.bleu_nist import BleuNist
from mteval.metrics.ngrams import ngram_counts
from mteval.metrics.tokenize import tokenize_13a


def pairs(refs: dict[str, list[str]], systems: dict[str, list[str]]) -> list[tuple[str, tuple[str, ...]]]:
    refsets = [("A",), ("B",), ("A", "B")]
    return [(s, rs) for rs in refsets for s in systems] + [("A", ("B",)), ("B", ("A",))]


def ours(refs: dict[str, list[str]], systems: dict[str, list[str]]) -> dict:
    tokenize_13a.cache_clear()
    ngram_counts.cache_clear()
    texts = {**refs, **systems}
    family = BleuNist()
    docs = DocumentIndex.single(len(refs["A"]))
    prepared: dict[tuple[str, ...], object] = {}
    out = {}
    for target, refset in pairs(refs, systems):
        if refset not in prepared:
            prepared[refset] = family.prepare([Side(r, texts[r]) for r in refset])
        out[(target, refset)] = family.score(Side(target, texts[target]), prepared[refset], docs, ["BLEU", "NIST"])
    return out


def sacre(refs: dict[str, list[str]], systems: dict[str, list[str]]) -> dict:
    import logging

    from sacrebleu.metrics import BLEU

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    texts = {**refs, **systems}
    corpus, sentence = BLEU(), BLEU(effective_order=False)
    out = {}
    for target, refset in pairs(refs, systems):
        hyps, ref_streams = texts[target], [texts[r] for r in refset]
        system = corpus.corpus_score(hyps, ref_streams).score / 100
        segs = [sentence.sentence_score(h, [s[i] for s in ref_streams]).score / 100 for i, h in enumerate(hyps)]
        out[(target, refset)] = (system, segs)
    return out


def main() -> int:
    if not WMT21_RUEN.exists():
        print("skipped: ../shared/data/wmt21-ruen is absent")
        return 0
    refs, systems = ruen_texts()
    times: dict[str, float] = {}
    with timer(times, "mteval BLEU+NIST"):
        mine = ours(refs, systems)
    with timer(times, "sacreBLEU BLEU"):
        theirs = sacre(refs, systems)
    worst = max(abs(mine[k]["BLEU"].system - theirs[k][0]) for k in mine)
    texts = {**refs, **systems}
    full = {k: [len(tokenize_13a(t)) >= 4 and b > 0 for t, b in zip(texts[k[0]], theirs[k][1], strict=True)]
            for k in mine}
    worst_seg = max(max((abs(a - b) for a, b, f in zip(mine[k]["BLEU"].segments, theirs[k][1], full[k], strict=True)
                         if f), default=0.0) for k in mine)
    short = sum(f.count(False) for f in full.values())
    n_pairs = len(mine)
    print(f"{n_pairs} pairs x {len(refs['A'])} segments, system + segment level")
    print(table([["what", "seconds", "per pair"]] + [[k, f"{v:.2f}", f"{v / n_pairs * 1000:.0f} ms"]
                                                     for k, v in times.items()]))
    print(f"speed-up over sacreBLEU: {times['sacreBLEU BLEU'] / times['mteval BLEU+NIST']:.1f}x (target >= 3x)")
    print(f"max |system BLEU - sacreBLEU| over all pairs: {worst:.2e}; segment (exp smoothing): {worst_seg:.2e}; "
          f"{short} segment scores of < 4 tokens or no unigram match follow mteval-v13a (no sacreBLEU mode)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
