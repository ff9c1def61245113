"""Checkpoint averaging for the parser (issue 15): the mean weights of the last K models of one training run.

``train_long.py --snapshots`` keeps every model it evaluates on dev (``WORK/depparse/snapshots/
step-TOTAL.pt``, stanza model files). Averaging the weights of the last few checkpoints of one run
(Polyak-Ruppert averaging; Vaswani et al. 2017, section 6.1, average the last 5 or 20 checkpoints) often
scores better than any single one of them, at no cost at run time: the result is a model of the same
size and speed. This tool averages the last K snapshots for K = 1 .. ``--max-k`` (K = 1 is the newest
snapshot alone), scores each on dev (gold tokens, the dev file the run was selected on, with the tags
``train_long.py`` predicted for it), and writes the best by dev LAS as ``WORK/depparse/averaged.pt`` with
its record ``averaged.json`` (every K's dev scores, the snapshots averaged). Test is never looked at:
``eval_models.py --parser-only --depparse WORK/depparse/averaged.pt`` scores the chosen file afterwards,
and ``ship_long.py ship --phases depparse --averaged`` ships it.

    python research/models/average_models.py --work build/jk-cpu/run --gold-dev build/jk-cpu/ud/en_ewt-ud-dev.conllu
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_long import DEP_METRICS, atomic_write_bytes, atomic_write_text, torch_bytes  # noqa: E402

log = logging.getLogger("average_models")


def snapshots(folder: Path) -> list[Path]:
    """The snapshots of a phase folder, oldest first (``step-TOTAL.pt``, zero-padded)."""
    return sorted((folder / "snapshots").glob("step-*.pt"))


def load(path: Path) -> dict[str, Any]:
    import torch

    return torch.load(path, map_location="cpu", weights_only=True)


def average(models: list[dict[str, Any]]) -> dict[str, Any]:
    """The newest model (the last) with every floating-point weight replaced by the mean over ``models``
    (accumulated in float64); they must share configuration, vocabulary and weight names and shapes, and
    agree exactly on every other tensor."""
    import torch

    if not models:
        raise ValueError("nothing to average")
    last = models[-1]
    for other in models[:-1]:
        if other["config"] != last["config"] or other["vocab"] != last["vocab"]:
            raise ValueError("the models differ in configuration or vocabulary: not one training run")
        if other["model"].keys() != last["model"].keys():
            raise ValueError("the models have different weights")
    weights = {}
    for name, tensor in last["model"].items():
        if not tensor.is_floating_point():
            if any(not torch.equal(m["model"][name], tensor) for m in models):
                raise ValueError(f"{name}: a non-float tensor differs between the models")
            weights[name] = tensor
            continue
        total = torch.zeros(tensor.shape, dtype=torch.float64)
        for model in models:
            if model["model"][name].shape != tensor.shape:
                raise ValueError(f"{name}: shapes differ between the models")
            total += model["model"][name].double()
        weights[name] = (total / len(models)).to(tensor.dtype)
    return {**last, "model": weights}


def dev_scores(model: Path, dev: Path, gold: Path) -> dict[str, float]:
    """UAS/LAS (CoNLL 2018 F1) of a parser file on ``dev`` (gold tokens, predicted tags) against ``gold``."""
    from stanza.models.common.doc import DEPREL, HEAD
    from stanza.models.common.utils import ud_scores
    from stanza.models.depparse.data import DataLoader
    from stanza.models.depparse.trainer import Trainer
    from stanza.models.depparse.utils import predict_dataset
    from stanza.utils.conll import CoNLL

    trainer = Trainer.load(str(model), pretrain=None, device="cpu")
    loader = DataLoader(CoNLL.conll2doc(input_file=str(dev)), trainer.args["batch_size"], trainer.args, None,
                        vocab=trainer.vocab, evaluation=True, sort_during_eval=True)
    preds = predict_dataset(trainer, loader)
    loader.doc.set([HEAD, DEPREL], [y for x in preds for y in x])
    scores = ud_scores(str(gold), io.StringIO(f"{loader.doc:C}\n\n"))
    return {m: 100 * scores[m].f1 for m in DEP_METRICS}


def search(files: list[Path], max_k: int, dev: Path, gold: Path, out: Path) -> dict[str, Any]:
    """Average the last K files for K = 1 .. max_k, score each on dev, keep the best (ties: the smaller K)
    in ``out``; the record (every K's scores, the chosen K and its files)."""
    rows, best = [], None
    models = [load(f) for f in files[-max_k:]]
    for k in range(1, len(models) + 1):
        candidate = average(models[-k:])
        candidate["long_training"] = {**models[-1].get("long_training", {}),
                                      "averaged": [f.name for f in files[-k:]]}
        scratch = out.with_name(f".{out.name}.k{k}")
        atomic_write_bytes(scratch, torch_bytes(candidate))
        scores = dev_scores(scratch, dev, gold)
        rows.append({"k": k, "from": files[-k].name, "to": files[-1].name, **scores})
        log.info("last %d: %s", k, " ".join(f"{m} {v:.2f}" for m, v in scores.items()))
        if best is None or scores["LAS"] > best[1]["LAS"]:
            if best is not None:
                best[2].unlink()
            best = (k, scores, scratch)
        else:
            scratch.unlink()
    assert best is not None
    best[2].replace(out)
    return {"select": "LAS", "chosen_k": best[0], "chosen": [f.name for f in files[-best[0]:]],
            "dev": best[1], "searched": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="train_long.py's state folder")
    parser.add_argument("--gold-dev", type=Path, required=True, help="the gold dev file the run scored against")
    parser.add_argument("--max-k", type=int, default=10, help="average at most the last K snapshots")
    parser.add_argument("--last", help="only snapshots up to this one (a file name, e.g. step-017000.pt)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%Y-%m-%dT%H:%M:%S")
    logging.getLogger("stanza").setLevel(logging.WARNING)
    folder = args.work / "depparse"
    files = snapshots(folder)
    if args.last:
        files = [f for f in files if f.name <= args.last]
    if not files:
        raise SystemExit(f"average_models: no snapshots in {folder / 'snapshots'} (train_long.py --snapshots)")
    record = search(files, args.max_k, args.work / "retag" / "en_ewt.dev.in.conllu", args.gold_dev,
                    folder / "averaged.pt")
    atomic_write_text(folder / "averaged.json", json.dumps(record, indent=1) + "\n")
    print(json.dumps({k: record[k] for k in ("chosen_k", "chosen", "dev")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
