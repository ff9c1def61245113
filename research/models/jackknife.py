"""Jackknifed training tags for the parser (issue 15): train tags as noisy as the tags it gets at run time.

The shipped parser trains on EWT train retagged by the shipped tagger, which has seen those sentences: its
train tags score AllTags 94.7 while its dev tags score 91.4, so the parser learns to trust tags more than
it should. Jackknifing, a common practice for pipeline parsers, tags each part of train with a tagger
trained on the other parts only:

1. ``split``: sentence ``i`` of train goes to fold ``i mod k`` (EWT train is ordered by document and genre:
   round robin gives every fold every genre); for each fold a UD folder with train = the other folds and
   the real dev/test, and ``heldout.conllu`` = the fold itself;
2. ``init``: a tagger with the shipped ``pos.pt``'s configuration and a vocabulary built from the fold's
   train (stanza's own ``Dataset.init_vocab``, as its tagger's training does), untrained, for
   ``train_long.py --phases pos --pos-init`` to train from;
3. ``merge``: each held-out fold tagged by its fold's best tagger, reassembled in train's order (gold
   heads, relations and lemmas kept), with the folds' tagging scores in ``jackknife.json``.

``research/models/gpu_jackknife.sh`` runs the three on a GPU sitting, then the parser on the merged file
(``train_long.py --train-tags``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_long  # noqa: E402  (a sibling script, not a package)


def read_blocks(path: Path) -> list[str]:
    """The sentences of a CoNLL-U file, each as its text block (comments included, no trailing newline)."""
    return [b.strip("\n") for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]


def write_blocks(path: Path, blocks: list[str]) -> None:
    train_long.atomic_write_text(path, "\n\n".join(blocks) + "\n\n")


def fold_of(index: int, k: int) -> int:
    """The fold of train sentence ``index``: round robin."""
    return index % k


def split(train: Path, dev: Path, test: Path, k: int, out: Path) -> list[Path]:
    """Write ``out/fold{i}/ud/en_ewt-ud-{train,dev,test}.conllu`` and ``out/fold{i}/heldout.conllu``."""
    if k < 2:
        raise SystemExit(f"jackknife: k must be at least 2, not {k}")
    blocks = read_blocks(train)
    folders = []
    for fold in range(k):
        folder = out / f"fold{fold}"
        (folder / "ud").mkdir(parents=True, exist_ok=True)
        write_blocks(folder / "heldout.conllu", [b for i, b in enumerate(blocks) if fold_of(i, k) == fold])
        write_blocks(folder / "ud" / "en_ewt-ud-train.conllu",
                     [b for i, b in enumerate(blocks) if fold_of(i, k) != fold])
        for name, src in (("dev", dev), ("test", test)):
            link = folder / "ud" / f"en_ewt-ud-{name}.conllu"
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(src.resolve())
        folders.append(folder)
    return folders


def init_tagger(config_from: Path, train: Path, dest: Path, seed: int) -> None:
    """An untrained tagger: ``config_from``'s configuration, a vocabulary from ``train`` (stanza's own
    ``Dataset.init_vocab``, as ``stanza.models.tagger.train`` builds it), weights from ``seed``."""
    import torch
    from stanza.models.common.doc import Document
    from stanza.models.pos.data import Dataset
    from stanza.models.pos.tag_columns import tag_columns_from_args
    from stanza.models.pos.trainer import Trainer
    from stanza.utils.conll import CoNLL

    config = dict(torch.load(config_from, map_location="cpu", weights_only=True)["config"])
    config["device"] = "cpu"
    dicts, _, _ = CoNLL.conll2dict(input_file=str(train))
    vocab = Dataset.init_vocab([Document(dicts)], config, tag_columns_from_args(config))
    train_long.seed_everything(seed)
    trainer = Trainer(args=config, vocab=vocab, pretrain=None, device="cpu")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    trainer.save(str(tmp))
    tmp.replace(dest)


def reassemble(folds: list[list[str]]) -> list[str]:
    """The sentences of the ``k`` folds (each in train's order) back in train's order: the inverse of
    :func:`split`'s round robin."""
    k = len(folds)
    return [folds[fold_of(i, k)][i // k] for i in range(sum(len(f) for f in folds))]


def merge(folds: Path, k: int, dest: Path, device: str) -> dict[str, object]:
    """Tag every held-out fold with ``folds/fold{i}/run/pos/best.pt`` and reassemble train in its order."""
    tagged: list[list[str]] = []
    record: dict[str, object] = {"k": k, "assignment": "sentence i -> fold i mod k", "folds": {}}
    for fold in range(k):
        folder = folds / f"fold{fold}"
        tagger = folder / "run" / "pos" / "best.pt"
        if not tagger.exists():
            raise SystemExit(f"jackknife: {tagger} is missing (fold {fold} has not trained)")
        text, scores = train_long.tag_conllu(train_long.load_tagger(tagger, device), folder / "heldout.conllu")
        tagged.append([b.strip("\n") for b in text.split("\n\n") if b.strip()])
        meta = train_long._best_meta(tagger) or {}
        record["folds"][str(fold)] = {"heldout": scores, "tagger_step": meta.get("step"),  # type: ignore[index]
                                      "tagger_dev": meta.get("scores")}
    blocks = reassemble(tagged)
    write_blocks(dest, blocks)
    record["sentences"] = len(blocks)
    train_long.atomic_write_text(dest.with_name("jackknife.json"), json.dumps(record, indent=1) + "\n")
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("split", help="write the folds")
    s.add_argument("--ud", type=Path, required=True, help="folder with en_ewt-ud-{train,dev,test}.conllu")
    s.add_argument("--k", type=int, default=4)
    s.add_argument("--out", type=Path, required=True)
    i = sub.add_parser("init", help="an untrained tagger for one fold")
    i.add_argument("--fold", type=Path, required=True, help="a fold folder written by split")
    i.add_argument("--config-from", type=Path, default=train_long.SHIPPED / "pos.pt")
    i.add_argument("--seed", type=int, default=1234)
    m = sub.add_parser("merge", help="tag the held-out folds and reassemble train")
    m.add_argument("--folds", type=Path, required=True)
    m.add_argument("--k", type=int, default=4)
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    if args.command == "split":
        split(*(args.ud / f"en_ewt-ud-{s}.conllu" for s in train_long.SPLITS), args.k, args.out)
    elif args.command == "init":
        init_tagger(args.config_from, args.fold / "ud" / "en_ewt-ud-train.conllu", args.fold / "init.pt", args.seed)
    else:
        print(json.dumps(merge(args.folds, args.k, args.out, args.device), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
