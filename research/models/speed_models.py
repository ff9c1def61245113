"""Parse speed of the shipped en_ewt pipeline against one with other tagger/parser files, in the same run.

Issue 15's speed target compares sentences/s of the new models with today's on the same machine in the same
run. This loads both pipelines (tokenize,mwt,pos,lemma,depparse from raw text, as the training log's speed table),
makes a warm-up call on each, then times them alternately (old, new, old, new, ...) on the same text so that
load from other processes falls on both alike, and prints each round and the ratio of the medians.

Text: the first ``--sentences`` sentences of EWT dev (``# text`` lines), one sentence per paragraph
(blank lines between them), as in the log's speed table (its exact 500 sentences are not recorded, so
compare the ratio, not the absolute figures, with the log). Rounds vary by 10-20% when other processes
compete for the CPU (niced at 19 they lose to everything else): measure on a quiet machine, with enough
rounds, and read the median ratio. Same-architecture models (all train_long.py makes) run at the same speed.

    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 nice -n 19 python research/models/speed_models.py \\
        [--pos build/models-long/pos/best.pt] [--depparse build/models-long/depparse/best.pt] [--tokenize FILE] \\
        [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "mteval" / "resources" / "models" / "en_ewt"
LONG = ROOT / "build" / "models-long"
PROCESSORS = ("tokenize", "mwt", "pos", "lemma", "depparse")


def sentences(conllu: Path, limit: int) -> list[str]:
    texts = [line[len("# text = "):] for line in conllu.read_text(encoding="utf-8").splitlines()
             if line.startswith("# text = ")]
    return texts[:limit]


def pipeline(paths: dict[str, Path]) -> object:
    import stanza

    return stanza.Pipeline(lang="en", processors=",".join(PROCESSORS), dir=str(SHIPPED), download_method=None,
                           logging_level="ERROR", allow_unknown_language=True, tokenize_max_seqlen=1000,
                           **{f"{p}_model_path": str(paths[p]) for p in PROCESSORS})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pos", type=Path, default=None, help="new tagger (default: build/models-long/pos/best.pt)")
    parser.add_argument("--depparse", type=Path, default=None,
                        help="new parser (default: build/models-long/depparse/best.pt if it exists, else shipped)")
    parser.add_argument("--tokenize", type=Path, default=None, help="new tokenizer (default: the shipped one)")
    parser.add_argument("--ud", type=Path, default=ROOT.parent / "shared" / "ud" / "en_ewt")
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    old = {p: SHIPPED / f"{p}.pt" for p in PROCESSORS}
    new = dict(old)
    for name, given in (("pos", args.pos), ("depparse", args.depparse)):
        candidate = given or LONG / name / "best.pt"
        if candidate.exists():
            new[name] = candidate
        elif given is not None:
            parser.error(f"{given} does not exist")
    if args.tokenize is not None:
        if not args.tokenize.is_file():
            parser.error(f"{args.tokenize} does not exist")
        new["tokenize"] = args.tokenize
    texts = sentences(args.ud / "en_ewt-ud-dev.conllu", args.sentences)
    text = "\n\n".join(texts) + "\n"
    pipes = {"old": pipeline(old), "new": pipeline(new)}
    print("new:", ", ".join(f"{p}={new[p]}" for p in ("tokenize", "pos", "depparse")))
    for pipe in pipes.values():
        pipe(texts[0])  # type: ignore[operator]  (warm-up)
    seconds: dict[str, list[float]] = {"old": [], "new": []}
    words = found = 0
    for round_ in range(args.rounds):
        for name in ("old", "new") if round_ % 2 == 0 else ("new", "old"):
            start = time.perf_counter()
            doc = pipes[name](text)  # type: ignore[operator]
            seconds[name].append(time.perf_counter() - start)
            words, found = doc.num_words, len(doc.sentences)
            print(f"round {round_ + 1} {name}: {len(doc.sentences)} sentences, {words} words, "
                  f"{seconds[name][-1]:.1f} s, {len(doc.sentences) / seconds[name][-1]:.1f} sent/s")
    med = {k: statistics.median(v) for k, v in seconds.items()}
    threads = torch.get_num_threads()
    print(f"median ({threads} thread{'s' if threads > 1 else ''}): old {found / med['old']:.1f} sent/s, "
          f"new {found / med['new']:.1f} sent/s; new/old speed {med['old'] / med['new']:.3f} "
          f"({found} sentences, {words} words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
