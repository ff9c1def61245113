"""Benchmark: Stanza parsing as before issue 32 (per segment, ``batch=1``, Stanza's own tree decoder)
vs per segment with mteval's decoder steps (``fast_decode``) vs batched tagging (``TAG_BATCH``) with
them (today's CPU path), on CPU.

All run in one process on one loaded pipeline (the same models, one torch thread), alternating
block by block (which goes first rotates too), so a shared machine's load falls on all alike.
Every segment's CoNLL-U and arc-score bytes are compared between them (issue 32: neither batching
nor the decoder may change a number).

Texts: the distinct cleaned English segments of data/wmt21-ruen-sample (references, systems),
data/wmt21-ende-sample/src.en and, when present, ../shared/data/wmt21-ruen (references, systems).

    .venv/bin/python bench/bench_parse_batch.py [--segments N] [--block 256] [--device cpu]
        [--shared-only] [--dump FILE.pkl]

Prints one table (sentences/s of each, the speed-up, identical segments) and the load average.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from common import ROOT, WMT21_RUEN, table  # noqa: E402

from mteval.annotate import fast_decode  # noqa: E402
from mteval.annotate.model import ArcScores, Sentence, to_conllu  # noqa: E402
from mteval.annotate.stanza_adapter import (  # noqa: E402
    TAG_BATCH,
    StanzaParser,
    available_processors,
    on_device,
    resolve_models,
)
from mteval.annotate.textprep import MAX_WORDS, prepare_text  # noqa: E402

Fingerprint = tuple[str, bytes, bytes, bytes]


def english_texts(limit: int, shared_only: bool = False) -> list[str]:
    """Up to ``limit`` distinct, cleaned, non-empty English segments (sources in the docstring;
    ``shared_only``: WMT21 ru-en of the shared folder alone)."""
    samples = [*sorted((ROOT / "data" / "wmt21-ruen-sample").glob("*/*.en")),
               ROOT / "data" / "wmt21-ende-sample" / "src.en"]
    files = [*([] if shared_only else samples),
             *sorted((WMT21_RUEN / "refs").glob("*.en")), *sorted((WMT21_RUEN / "sys").glob("*.en"))]
    raw = [line for f in files if f.is_file() for line in f.read_text(encoding="utf-8").splitlines()]
    cleaned = (prepare_text(t, MAX_WORDS).text for t in raw)
    return list(dict.fromkeys(t for t in cleaned if t))[:limit]


def fingerprint(parsed: tuple[Sentence, ArcScores | None]) -> Fingerprint:
    """Everything the cache stores for one segment, as bytes."""
    sentence, scores = parsed
    if scores is None:
        return to_conllu([sentence]), b"", b"", b""
    return to_conllu([sentence]), scores.arcs.tobytes(), scores.label_heads.tobytes(), scores.label_logp.tobytes()


def timed(parse: Callable[[Sequence[str]], list], texts: Sequence[str]) -> tuple[float, list[Fingerprint]]:
    start = time.perf_counter()
    out = [fingerprint(p) for p in parse(texts)]
    return time.perf_counter() - start, out


WAYS = ("before", "one_s", "batched_s")  # per segment + Stanza's decoder; per segment; batched


def decoder(stanza_own: bool) -> None:
    """Put Stanza's own decoder steps (``stanza_own``) or mteval's (``fast_decode``) in place."""
    fast_decode.use(stanza_own)


def run(texts: list[str], block: int, device: str | None, keep: list[Fingerprint]) -> dict[str, float]:
    """Parse every block the three ways (:data:`WAYS`), rotating; the totals and the identity counts
    against the first way (the batched fingerprints are appended to ``keep``)."""
    choice = on_device(resolve_models("en", available_processors("en")), device)
    start = time.perf_counter()
    parser = StanzaParser(choice)
    totals = {"load_s": time.perf_counter() - start, **dict.fromkeys(WAYS, 0.0), "same": 0, "conllu": 0}
    for number, first in enumerate(range(0, len(texts), block)):
        part = texts[first: first + block]
        runs: dict[str, tuple[float, list[Fingerprint]]] = {}
        for way in WAYS[number % 3:] + WAYS[:number % 3]:
            decoder(stanza_own=way == "before")
            parser.batch = TAG_BATCH if way == "batched_s" else 1
            runs[way] = timed(parser.parse, part)
        keep += runs["batched_s"][1]
        for way in WAYS:
            totals[way] += runs[way][0]
        pairs = [(a, b, c) for a, b, c in zip(*(runs[w][1] for w in WAYS), strict=True)]
        totals["same"] += sum(a == b == c for a, b, c in pairs)
        totals["conllu"] += sum(a[0] == b[0] == c[0] for a, b, c in pairs)
    decoder(stanza_own=False)
    return totals


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--segments", type=int, default=1200, help="distinct segments to parse (default 1200)")
    args.add_argument("--block", type=int, default=256, help="segments per parse call (default 256)")
    args.add_argument("--device", default="cpu", help="auto, cpu, cuda or cuda:N (default cpu)")
    args.add_argument("--shared-only", action="store_true", help="only ../shared/data/wmt21-ruen's segments")
    args.add_argument("--dump", metavar="PKL", help="pickle the batched fingerprints here (device comparison)")
    opts = args.parse_args()
    texts = english_texts(opts.segments, opts.shared_only)
    load_before = os.getloadavg()
    kept: list[Fingerprint] = []
    t = run(texts, opts.block, opts.device, kept)
    if opts.dump:
        Path(opts.dump).write_bytes(pickle.dumps(kept))
    n = len(texts)
    print(table([["segments", "model load s", "before: per segment, Stanza's decoder", "per segment sent/s",
                  f"batched({TAG_BATCH}) sent/s (now)", "now / before", "identical (all 3)", "identical CoNLL-U"],
                 [str(n), f"{t['load_s']:.1f}", f"{n / t['before']:.1f}", f"{n / t['one_s']:.1f}",
                  f"{n / t['batched_s']:.1f}", f"{t['before'] / t['batched_s']:.2f}x", f"{int(t['same'])}/{n}",
                  f"{int(t['conllu'])}/{n}"]]))
    print(f"device {opts.device}; {os.cpu_count()} cores; load average before "
          f"{'/'.join(f'{x:.2f}' for x in load_before)}, after {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    if t["same"] != n:
        sys.exit(1)


if __name__ == "__main__":
    main()
