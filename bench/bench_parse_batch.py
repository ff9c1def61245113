"""Benchmark: Stanza parsing per segment (``batch=1``) vs batched tagging (``TAG_BATCH``), on CPU.

Both run in one process on one loaded pipeline (the same models, one torch thread), alternating
block by block (which goes first alternates too), so a shared machine's load falls on both alike.
Every segment's CoNLL-U and arc-score bytes are compared between the two (issue 32: batching must
not change a number).

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


def run(texts: list[str], block: int, device: str | None, keep: list[Fingerprint]) -> dict[str, float]:
    """Parse every block both ways, alternating; the totals and the identity counts (the batched
    fingerprints are appended to ``keep``)."""
    choice = on_device(resolve_models("en", available_processors("en")), device)
    start = time.perf_counter()
    parser = StanzaParser(choice)
    totals = {"load_s": time.perf_counter() - start, "one_s": 0.0, "batched_s": 0.0, "same": 0, "conllu": 0}
    for number, first in enumerate(range(0, len(texts), block)):
        part = texts[first: first + block]
        runs: dict[int, tuple[float, list[Fingerprint]]] = {}
        for size in ((1, TAG_BATCH) if number % 2 == 0 else (TAG_BATCH, 1)):
            parser.batch = size
            runs[size] = timed(parser.parse, part)
        keep += runs[TAG_BATCH][1]
        totals["one_s"] += runs[1][0]
        totals["batched_s"] += runs[TAG_BATCH][0]
        totals["same"] += sum(a == b for a, b in zip(runs[1][1], runs[TAG_BATCH][1], strict=True))
        totals["conllu"] += sum(a[0] == b[0] for a, b in zip(runs[1][1], runs[TAG_BATCH][1], strict=True))
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
    print(table([["segments", "model load s", "per-segment sent/s", f"batched({TAG_BATCH}) sent/s", "speed-up",
                  "identical (CoNLL-U+arcs)", "identical CoNLL-U"],
                 [str(n), f"{t['load_s']:.1f}", f"{n / t['one_s']:.1f}", f"{n / t['batched_s']:.1f}",
                  f"{t['one_s'] / t['batched_s']:.2f}x", f"{int(t['same'])}/{n}", f"{int(t['conllu'])}/{n}"]]))
    print(f"device {opts.device}; {os.cpu_count()} cores; load average before "
          f"{'/'.join(f'{x:.2f}' for x in load_before)}, after {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    if t["same"] != n:
        sys.exit(1)


if __name__ == "__main__":
    main()
