"""Where a tagger errs on EWT dev (gold tokens): UPOS errors by how often the word occurs in train, the
most frequent confusions, and how many unseen words the extra text of ``word_vectors.py`` covers.

    python research/models/tagger_errors.py [--pos FILE] [--pretrain FILE]

The training log's "Tagger: word vectors trained here" quotes its output for the shipped tagger.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import word_vectors as wv  # noqa: E402

UPOS_COLUMN = 3


def forms_and_upos(conllu: Path) -> tuple[list[list[str]], list[list[str]]]:
    """The word forms and the gold UPOS of each sentence, from one reading of the file."""
    rows = wv.read_ud_rows(conllu)
    return ([[c[1] for c in s] for s in rows], [[c[UPOS_COLUMN] for c in s] for s in rows])


def band(count: int) -> str:
    return "unseen" if count == 0 else "seen 1-4 times" if count < 5 else "seen 5+ times"


def analyse(args: argparse.Namespace) -> dict[str, object]:
    train = collections.Counter(w for s in wv.read_ud_words(args.ud / "en_ewt-ud-train.conllu") for w in s)
    dev_file = args.ud / "en_ewt-ud-dev.conllu"
    words, gold = forms_and_upos(dev_file)
    predicted = wv.tag_words(args.pos, args.pretrain, words)
    extra = {w.lower() for line in wv.read_extra_lines(args.shared) for w in line.split()}
    totals: collections.Counter[str] = collections.Counter()
    errors: collections.Counter[str] = collections.Counter()
    confusions: collections.Counter[str] = collections.Counter()
    unseen_in_extra = 0
    for sent, tags, preds in zip(words, gold, predicted, strict=True):
        for word, tag, pred in zip(sent, tags, preds, strict=True):
            key = band(train[word])
            totals[key] += 1
            unseen_in_extra += key == "unseen" and word.lower() in extra
            if pred != tag:
                errors[key] += 1
                confusions[f"{tag}->{pred}"] += 1
    wrong = sum(errors.values())
    return {"words": sum(totals.values()), "upos": round(100 * (1 - wrong / sum(totals.values())), 2),
            "errors": wrong,
            "bands": {k: {"words": totals[k], "error_rate": round(100 * errors[k] / totals[k], 1),
                          "share_of_errors": round(100 * errors[k] / wrong, 1)} for k in sorted(totals)},
            "unseen_words_in_extra_text": unseen_in_extra,
            "confusions": dict(confusions.most_common(args.top))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pos", type=Path, default=wv.SHIPPED / "pos.pt")
    parser.add_argument("--pretrain", type=Path, default=None, help="the vectors a widened tagger reads")
    parser.add_argument("--ud", type=Path, default=wv.SHARED / "ud" / "en_ewt")
    parser.add_argument("--shared", type=Path, default=wv.SHARED)
    parser.add_argument("--top", type=int, default=10)
    print(json.dumps(analyse(parser.parse_args(argv)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
