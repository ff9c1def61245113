"""Resumable long training of the en_ewt tagger and parser (issue 15), in segments that survive interruption.

Continues the shipped ``pos.pt`` and ``depparse.pt`` (same architecture, same vocabulary) on UD English-EWT:

1. ``pos``: the tagger, from the shipped ``pos.pt``, evaluated on dev every ``--eval-every`` steps;
2. ``retag``: train/dev/test retagged (UPOS, XPOS, FEATS; gold heads, relations and lemmas kept) with the
   best tagger of phase 1, as the log's recipe did with its stage-1 tagger;
3. ``depparse``: the parser, from the shipped ``depparse.pt``, on those predicted tags, scored on dev
   (LAS with predicted tags, gold tokens).

The tagger comes first because the parser is trained and run on predicted tags: training it on the tags
of the final tagger avoids a second round of parser training after the tagger changes (the log's better
tagger alone raised LAS from 66.8 to 70.7), and UPOS from raw text is a target of its own.

Each training phase keeps, under ``WORK/<phase>/``:

- ``checkpoint.pt``: weights, optimizer (and LR scheduler) state, the cumulative step count, the RNG
  states (python, numpy, torch), the current epoch's batch plan and position in it, the evaluation
  history and the best score so far. Written atomically: to a temporary file in the same folder, fsynced,
  then the old checkpoint is renamed to ``checkpoint.prev.pt`` and the new one renamed into place; a
  resume reads ``checkpoint.pt`` and falls back to ``checkpoint.prev.pt`` when it is missing or unreadable.
- ``best.pt``: the best model by dev score, a normal stanza model file (loadable as ``pos.pt`` /
  ``depparse.pt``), with a ``long_training`` entry (step, score); written atomically as well.
- ``curve.tsv``: the learning curve, one row per evaluation (rebuilt from the checkpoint on resume, so
  evaluations lost with an interrupted segment are not listed twice).
- ``DONE.json``: written when the phase has finished (early stopping or ``--max-steps``).

Optimisation follows stanza's own schedule: the model's first optimizer (tagger: Adam; parser: Adadelta
with stanza's plateau LR decay) until dev has not improved for ``--patience`` steps (parser: or its total
step count reaches its ``second_optim_start_step``), then the best model is reloaded and training goes on
with the second optimizer (tagger: AMSGrad; parser: Adam with warm-up), until dev has again not improved for
``--patience`` steps: early stop.

Run it niced with one thread (the machine is shared)::

    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 nice -n 19 python research/models/train_long.py [--work build/models-long]

Stop it with SIGTERM/SIGINT (it writes a checkpoint after the current step and exits) or kill it; run the
same command again to resume. ``--segment-steps N`` stops after N steps of this invocation.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "mteval" / "resources" / "models" / "en_ewt"
CHECKPOINT_FORMAT = 1
# steps the first shipped models had trained (TRAINING_LOG.md): tagger 600+2400+400, parser 600+2400; a model
# shipped later by research/models/ship_long.py records its own count in PROVENANCE.json (see base_steps)
BASE_STEPS = {"pos": 3400, "depparse": 3000}
POS_METRICS = ["UPOS", "XPOS", "UFeats", "AllTags"]
DEP_METRICS = ["UAS", "LAS"]
SPLITS = ("train", "dev", "test")

log = logging.getLogger("train_long")


# ----------------------------------------------------------------------------------------------------------
# atomic files, checkpoints, the learning curve (no stanza needed: tested directly)
# ----------------------------------------------------------------------------------------------------------

def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, keep_previous: Path | None = None) -> None:
    """Write ``data`` to ``path`` atomically: temp file in the same folder, fsync, os.replace.

    With ``keep_previous``, the old ``path`` is first renamed there (after the new file is complete), so
    there is always one complete file under one of the two names.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    if keep_previous is not None and path.exists():
        os.replace(path, keep_previous)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def torch_bytes(obj: Any) -> bytes:
    """``torch.save`` into memory (the format stanza's own model files use)."""
    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer, _use_new_zipfile_serialization=False)
    return buffer.getvalue()


def save_checkpoint(folder: Path, state: dict[str, Any]) -> None:
    """Write ``folder/checkpoint.pt`` atomically, keeping the previous one as ``checkpoint.prev.pt``."""
    state = dict(state, format=CHECKPOINT_FORMAT)
    atomic_write_bytes(folder / "checkpoint.pt", torch_bytes(state), keep_previous=folder / "checkpoint.prev.pt")


def load_checkpoint(folder: Path) -> dict[str, Any] | None:
    """The latest complete checkpoint in ``folder`` (``checkpoint.pt``, else ``checkpoint.prev.pt``), or None."""
    import torch

    for name in ("checkpoint.pt", "checkpoint.prev.pt"):
        path = folder / name
        if not path.exists():
            continue
        try:
            # our own file, holding RNG states (tuples, numpy arrays): not loadable with weights_only
            state = torch.load(path, map_location="cpu", weights_only=False)
        except Exception as error:  # a truncated or corrupt file: try the previous one
            log.warning("cannot read %s (%s); trying the previous checkpoint", path, error)
            continue
        if isinstance(state, dict) and state.get("format") == CHECKPOINT_FORMAT and "step" in state:
            if name != "checkpoint.pt":
                log.warning("resuming from %s", path)
            return state
        log.warning("%s is not a train_long checkpoint; ignored", path)
    return None


def seed_everything(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def rng_state() -> dict[str, Any]:
    import numpy as np
    import torch

    return {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}


def set_rng_state(state: dict[str, Any]) -> None:
    import numpy as np
    import torch

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])


def curve_header(metrics: list[str]) -> str:
    return "\t".join(["step", "total_step", *metrics, "best", "optimizer", "train_loss", "sec_per_step",
                      "wall_s", "timestamp"]) + "\n"


def curve_row(row: dict[str, Any], metrics: list[str]) -> str:
    fields = [str(row["step"]), str(row["total_step"])]
    fields += [f"{row[m]:.2f}" for m in metrics]
    fields += [str(row["best"]), str(row["optimizer"]),
               "" if row.get("train_loss") is None else f"{row['train_loss']:.4f}",
               "" if row.get("sec_per_step") is None else f"{row['sec_per_step']:.3f}",
               f"{row['wall_s']:.0f}", row["timestamp"]]
    return "\t".join(fields) + "\n"


def write_curve(path: Path, history: list[dict[str, Any]], metrics: list[str]) -> None:
    """Rewrite the whole curve from a checkpoint's history (atomically)."""
    atomic_write_text(path, curve_header(metrics) + "".join(curve_row(r, metrics) for r in history))


def append_curve(path: Path, row: dict[str, Any], metrics: list[str]) -> None:
    if not path.exists():
        atomic_write_text(path, curve_header(metrics))
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(curve_row(row, metrics))
        handle.flush()
        os.fsync(handle.fileno())


def read_curve(path: Path) -> list[dict[str, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    names = lines[0].split("\t")
    return [dict(zip(names, line.split("\t"), strict=False)) for line in lines[1:] if line]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def slice_conllu(src: Path, dest: Path, limit: int) -> Path:
    """The first ``limit`` sentences of a CoNLL-U file (for tiny test runs)."""
    blocks = [b for b in src.read_text(encoding="utf-8").split("\n\n") if b.strip()][:limit]
    atomic_write_text(dest, "\n\n".join(b.strip("\n") for b in blocks) + "\n\n")
    return dest


# ----------------------------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------------------------

def prepare_data(args: argparse.Namespace) -> dict[str, Path]:
    """stanza's data preparation, as ``make models`` runs it (once per work folder), or the UD files directly.

    ``prepare_pos_treebank`` / ``prepare_depparse_treebank --gold`` copy EWT with stanza's random quote
    augmentation in train; the shipped models were trained on those files. Returns gold train/dev/test.
    """
    work: Path = args.work
    if args.no_prepare:
        files = {s: args.ud / f"en_ewt-ud-{s}.conllu" for s in SPLITS}
    else:
        pos_dir, dep_dir = work / "data" / "pos", work / "data" / "depparse"
        files = {s: pos_dir / f"en_ewt.{s}.in.conllu" for s in SPLITS}
        dep_files = [dep_dir / f"en_ewt.{s}.in.conllu" for s in SPLITS]
        if not all(f.exists() for f in [*files.values(), *dep_files]):
            ud = work / "extern_data" / "ud2" / "ud-treebanks-v2.18" / "UD_English-EWT"
            ud.mkdir(parents=True, exist_ok=True)
            for s in SPLITS:
                link = ud / f"en_ewt-ud-{s}.conllu"
                if link.is_symlink() or link.exists():
                    link.unlink()
                link.symlink_to((args.ud / f"en_ewt-ud-{s}.conllu").resolve())
            env = dict(os.environ, STANZA_RESOURCES_DIR=str(work / "stanza_resources"))
            (work / "stanza_resources").mkdir(exist_ok=True)
            for module, extra in (("prepare_pos_treebank", []), ("prepare_depparse_treebank", ["--gold"])):
                log.info("data preparation: %s", module)
                subprocess.run([sys.executable, "-m", f"stanza.utils.datasets.{module}", "UD_English-EWT", *extra],
                               cwd=work, env=env, check=True, stdout=subprocess.DEVNULL)
        # the parser's gold files are the same as the tagger's (both copies of the tokenizer's gold files)
    if args.limit_train or args.limit_dev:
        limits = {"train": args.limit_train, "dev": args.limit_dev, "test": args.limit_dev}
        files = {s: slice_conllu(files[s], work / "slices" / f"en_ewt.{s}.conllu", limits[s]) if limits[s]
                 else files[s] for s in SPLITS}
    return files


# ----------------------------------------------------------------------------------------------------------
# the two models behind one interface
# ----------------------------------------------------------------------------------------------------------

class Phase:
    """What the training loop needs from a model: batches, an update, a dev score, optimizers, saving."""

    name = ""
    metrics: list[str] = []
    select = ""

    def __init__(self, args: argparse.Namespace, init: Path, train_file: Path, dev_file: Path,
                 gold_dev: Path) -> None:
        self.args, self.init = args, init
        self.train_file, self.dev_file, self.gold_dev = train_file, dev_file, gold_dev
        self.opt_stage = 0
        # the parser's data loader shuffles its examples once when built: seed first, so that the batch plans
        # in a checkpoint (lists of example indices) mean the same examples in a resumed process
        seed_everything(args.seed)

    # batches: an epoch's plan is a list of lists of training-example indices
    def new_plan(self) -> list[list[int]]:
        raise NotImplementedError

    def batch(self, indices: list[int]) -> Any:
        raise NotImplementedError

    def update(self, batch: Any) -> float:
        raise NotImplementedError

    def evaluate(self) -> dict[str, float]:
        raise NotImplementedError

    def optimizer_state(self) -> dict[str, Any]:
        raise NotImplementedError

    def load_optimizer_state(self, state: dict[str, Any]) -> None:
        raise NotImplementedError

    def second_optimizer(self) -> None:
        """Switch to the second optimizer (opt_stage 1)."""
        raise NotImplementedError

    def scheduler_step(self, steps: int, metric: float | None) -> None:
        """Advance the LR scheduler, if the model has one."""

    def scheduler_wants_every_step(self) -> bool:
        return False

    def switch_at_total_step(self) -> int | None:
        return None

    def stanza_model_bytes(self, meta: dict[str, Any]) -> bytes:
        """A stanza model file of the current weights, with ``meta`` under ``long_training``."""
        import torch

        tmp = self.args.work / self.name / f".export-{os.getpid()}.pt"
        try:
            self.trainer.save(str(tmp))
            params = torch.load(tmp, map_location="cpu", weights_only=True)  # fails if the save failed
        finally:
            if tmp.exists():
                tmp.unlink()
        params["long_training"] = meta
        return torch_bytes(params)

    def model_state(self) -> dict[str, Any]:
        return self.trainer.model.state_dict()

    def load_model_state(self, state: dict[str, Any]) -> None:
        self.trainer.model.load_state_dict(state)

    @property
    def optimizer_name(self) -> str:
        return self.args_optim(self.opt_stage)

    def args_optim(self, stage: int) -> str:
        config = self.trainer.args
        return str(config["optim"] if stage == 0 else config.get("second_optim"))

    trainer: Any


def load_pretrain(path: Path | None) -> Any:
    """Stanza word vectors for a tagger that reads them (``research/models/word_vectors.py``), or None."""
    if path is None:
        return None
    from stanza.models.common.pretrain import Pretrain

    return Pretrain(str(path))


class TaggerPhase(Phase):
    name = "pos"
    metrics = POS_METRICS

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        from stanza.models.common.doc import Document
        from stanza.models.pos.data import Dataset
        from stanza.models.pos.tag_columns import tag_columns_from_args
        from stanza.models.pos.trainer import Trainer
        from stanza.utils.conll import CoNLL

        self.select = self.args.pos_metric
        self.pretrain = load_pretrain(getattr(self.args, "pos_pretrain", None))
        self.trainer = Trainer(model_file=str(self.init), pretrain=self.pretrain, device=self.args.device)
        config = self.trainer.args
        if self.args.batch_size:
            config["batch_size"] = self.args.batch_size
        train_dicts, _, _ = CoNLL.conll2dict(input_file=str(self.train_file))
        self.train_data = Dataset(Document(train_dicts), config, self.pretrain, vocab=self.trainer.vocab,
                                  evaluation=False, tag_columns=tag_columns_from_args(config))
        self.dev_data = Dataset(CoNLL.conll2doc(input_file=str(self.dev_file)), config, self.pretrain,
                                vocab=self.trainer.vocab, evaluation=True, sort_during_eval=True)

    def new_plan(self) -> list[list[int]]:
        order = list(range(len(self.train_data)))
        random.shuffle(order)
        size = int(self.trainer.args["batch_size"])
        return [order[i:i + size] for i in range(0, len(order), size)]

    def batch(self, indices: list[int]) -> Any:
        return self.train_data.collate_fn([self.train_data[i] for i in indices])

    def update(self, batch: Any) -> float:
        return float(self.trainer.update(batch, eval=False))

    def predict_doc(self, data: Any) -> None:
        """Tag ``data.doc`` in place."""
        import torch
        from stanza.models.common import utils
        from stanza.models.tagger import set_predictions

        preds, indices = [], []
        with torch.no_grad():
            for batch in data.to_loader(batch_size=int(self.trainer.args["batch_size"])):
                preds += self.trainer.predict(batch)
                indices.extend(batch.idx)
        set_predictions(data.doc, self.trainer, utils.unsort(preds, indices))

    def evaluate(self) -> dict[str, float]:
        from stanza.models.common.utils import ud_scores

        self.predict_doc(self.dev_data)
        scores = ud_scores(str(self.gold_dev), io.StringIO(f"{self.dev_data.doc:C}\n\n"))
        return {m: 100 * scores[m].f1 for m in self.metrics}

    def optimizer_state(self) -> dict[str, Any]:
        return {"optimizers": {k: o.state_dict() for k, o in self.trainer.optimizers.items()}}

    def load_optimizer_state(self, state: dict[str, Any]) -> None:
        for key, value in state["optimizers"].items():
            self.trainer.optimizers[key].load_state_dict(value)

    def second_optimizer(self) -> None:
        from stanza.models.common import utils

        config = self.trainer.args
        self.opt_stage = 1
        # stanza's tagger.train() assigns the second optimizer to trainer.optimizer, which update() never uses
        self.trainer.optimizers = utils.get_split_optimizer(
            config["second_optim"], self.trainer.model, config.get("second_lr") or config["lr"],
            betas=(0.9, config["beta2"]), eps=1e-6, weight_decay=config.get("second_weight_decay"))


class ParserPhase(Phase):
    name = "depparse"
    metrics = DEP_METRICS
    select = "LAS"

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        from stanza.models.depparse.data import DataLoader
        from stanza.models.depparse.trainer import Trainer
        from stanza.utils.conll import CoNLL

        self.trainer = Trainer.load(str(self.init), pretrain=None, device=self.args.device, reset_history=True)
        config = self.trainer.args
        config["second_stage"] = False
        if self.args.batch_size:
            config["batch_size"] = self.args.batch_size
        vocab = self.trainer.vocab  # the saved vocabulary (dep_continue.py): predicted FEATS differ from gold
        train_dicts, _, _ = CoNLL.conll2dict(input_file=str(self.train_file))
        from stanza.models.common.doc import Document

        self.train_loader = DataLoader(Document(train_dicts), config["batch_size"], config, None, vocab=vocab,
                                       evaluation=False)
        self.dev_loader = DataLoader(CoNLL.conll2doc(input_file=str(self.dev_file)), config["batch_size"], config,
                                     None, vocab=vocab, evaluation=True, sort_during_eval=True)

    def new_plan(self) -> list[list[int]]:
        self.train_loader.reshuffle()
        return [list(b) for b in self.train_loader.sampler.batches]

    def batch(self, indices: list[int]) -> Any:
        from stanza.models.depparse.data import DataLoader

        return DataLoader.collate([self.train_loader.dataset[i] for i in indices])

    def update(self, batch: Any) -> float:
        loss, _ = self.trainer.update(batch, eval=False)
        return float(loss)

    def evaluate(self) -> dict[str, float]:
        from stanza.models.common.doc import DEPREL, HEAD
        from stanza.models.common.utils import ud_scores
        from stanza.models.depparse.utils import predict_dataset

        preds = predict_dataset(self.trainer, self.dev_loader)
        self.dev_loader.doc.set([HEAD, DEPREL], [y for x in preds for y in x])
        scores = ud_scores(str(self.gold_dev), io.StringIO(f"{self.dev_loader.doc:C}\n\n"))
        return {m: 100 * scores[m].f1 for m in self.metrics}

    def optimizer_state(self) -> dict[str, Any]:
        return {"optimizers": {k: o.state_dict() for k, o in self.trainer.optimizer.items()},
                "schedulers": {k: s.state_dict() for k, s in self.trainer.scheduler.items()}}

    def load_optimizer_state(self, state: dict[str, Any]) -> None:
        for key, value in state["optimizers"].items():
            self.trainer.optimizer[key].load_state_dict(value)
        for key, value in state.get("schedulers", {}).items():
            self.trainer.scheduler[key].load_state_dict(value)

    def second_optimizer(self) -> None:
        self.opt_stage = 1
        self.trainer.args["second_stage"] = True
        self.trainer._Trainer__init_optim()  # stanza's own second-stage optimizer and warm-up scheduler

    def scheduler_step(self, steps: int, metric: float | None) -> None:
        for scheduler in self.trainer.scheduler.values():
            scheduler.step(num_steps=steps, metrics=metric)

    def scheduler_wants_every_step(self) -> bool:
        # warm-up (second stage) moves the LR every step; the plateau phase only needs the dev scores
        return any(s._current_phase() != "plateau" for s in self.trainer.scheduler.values())

    def switch_at_total_step(self) -> int | None:
        value = self.trainer.args.get("second_optim_start_step")
        return None if value is None else int(value)

    def stanza_model_bytes(self, meta: dict[str, Any]) -> bytes:
        self.trainer.global_step = meta["total_step"]
        return super().stanza_model_bytes(meta)


# ----------------------------------------------------------------------------------------------------------
# the loop
# ----------------------------------------------------------------------------------------------------------

class Stop:
    """Set by SIGTERM/SIGINT: finish the current step, write a checkpoint, exit."""

    requested = False

    @classmethod
    def install(cls) -> None:
        def handler(signum: int, _frame: Any) -> None:
            log.info("signal %d: stopping after this step", signum)
            cls.requested = True

        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class LoopState:
    """A phase's training loop between two steps: what a checkpoint holds besides model and optimizer."""

    step: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, Any] = field(default_factory=dict)
    plan: list[list[int]] = field(default_factory=list)
    position: int = 0
    epoch: int = 0
    wall: float = 0.0
    switch_step: int = 0
    pending_sched: int = 0
    loss_sum: float = 0.0
    loss_steps: int = 0


@dataclass
class PhaseRun:
    """One invocation's training of a phase: the phase, its folder and files, its state."""

    phase: Phase
    args: argparse.Namespace
    base_steps: int
    folder: Path
    identity: dict[str, Any]
    state: LoopState

    @property
    def best_path(self) -> Path:
        return self.folder / "best.pt"

    @property
    def curve(self) -> Path:
        return self.folder / "curve.tsv"

    def checkpoint(self) -> None:
        s = self.state
        save_checkpoint(self.folder, {
            "phase": self.phase.name, "identity": self.identity, "step": s.step,
            "total_step": self.base_steps + s.step, "opt_stage": self.phase.opt_stage,
            "model": self.phase.model_state(), "optim": self.phase.optimizer_state(), "rng": rng_state(),
            "plan": s.plan, "position": s.position, "epoch": s.epoch, "history": s.history, "best": s.best,
            "switch_step": s.switch_step, "wall_s": s.wall, "pending_sched": s.pending_sched,
            "loss": (s.loss_sum, s.loss_steps), "saved": now()})


def train_phase(phase: Phase, args: argparse.Namespace, base_steps: int) -> str:
    """Train one phase until it finishes ('done') or this segment ends ('segment'/'stopped')."""
    folder: Path = args.work / phase.name
    folder.mkdir(parents=True, exist_ok=True)
    # what a checkpoint must have been made with to be resumed (contents, not paths: the tree may move)
    identity = {"init_sha256": sha256(phase.init), "train_sha256": sha256(phase.train_file),
                "dev_sha256": sha256(phase.dev_file), "seed": args.seed,
                "batch_size": int(phase.trainer.args["batch_size"])}
    pretrain = getattr(phase, "pretrain", None)
    if pretrain is not None:
        identity["pretrain_sha256"] = sha256(Path(pretrain.filename))
    run = PhaseRun(phase, args, base_steps, folder, identity, LoopState())
    if not _resume(run):
        _start(run)
        run.checkpoint()
    switch_at = phase.switch_at_total_step()
    done_steps, seg_start = 0, time.monotonic()
    interval = [time.monotonic(), 0]  # start and steps of the current logging/evaluation interval
    while True:
        status = _next_action(run, switch_at, done_steps)
        if status == "switch":
            continue
        if status is not None:
            break
        _train_step(run, interval)
        done_steps += 1
        if run.state.step % args.eval_every == 0:
            _evaluate(run, interval)
        elif phase.scheduler_wants_every_step():
            phase.scheduler_step(run.state.pending_sched, None)
            run.state.pending_sched = 0
    s = run.state
    if status == "done":
        atomic_write_text(folder / "DONE.json", json.dumps({
            "phase": phase.name, "steps": s.step, "total_steps": base_steps + s.step, "best_step": s.best["step"],
            "best_total_step": base_steps + s.best["step"], "best_score": s.best["score"], "select": phase.select,
            "wall_s": round(s.wall), "finished": now(), "identity": identity}, indent=1) + "\n")
    log.info("%s: %s after %d steps in this run (%.0f s); cumulative step %d", phase.name, status, done_steps,
             time.monotonic() - seg_start, s.step)
    return status


def _resume(run: PhaseRun) -> bool:
    """Load the phase's checkpoint, if there is one (refusing one made with other inputs)."""
    phase, folder = run.phase, run.folder
    saved = load_checkpoint(folder)
    if saved is None:
        return False
    if saved["identity"] != run.identity:
        raise SystemExit(f"{folder}/checkpoint.pt was made with other inputs:\n  {saved['identity']}\n"
                         f"now:\n  {run.identity}\nuse another --work folder, or remove {folder}")
    if saved["opt_stage"] == 1:
        phase.second_optimizer()
    phase.load_model_state(saved["model"])
    phase.load_optimizer_state(saved["optim"])
    set_rng_state(saved["rng"])
    run.state = s = LoopState(saved["step"], saved["history"], saved["best"], saved["plan"], saved["position"],
                              saved["epoch"], saved["wall_s"], saved.get("switch_step", 0), saved["pending_sched"],
                              *saved["loss"])
    best_file = _best_meta(run.best_path)
    if best_file and best_file["step"] > s.best["step"] and best_file["score"] > s.best["score"]:
        # best.pt was written after the last checkpoint (interrupted in between): it stands
        s.best = {"step": best_file["step"], "score": best_file["score"]}
    write_curve(run.curve, s.history, phase.metrics)
    log.info("%s: resumed at step %d (total %d), best %s %.2f at step %d, optimizer %s", phase.name, s.step,
             run.base_steps + s.step, phase.select, s.best["score"], s.best["step"], phase.optimizer_name)
    return True


def _start(run: PhaseRun) -> None:
    """A fresh start: seed, score the initial model on dev (step 0 of the curve, the first best.pt)."""
    phase, s = run.phase, run.state
    seed_everything(run.args.seed)
    log.info("%s: starting from %s (%d steps already), evaluating it on dev", phase.name, phase.init,
             run.base_steps)
    t0 = time.monotonic()
    scores = phase.evaluate()
    s.wall += time.monotonic() - t0
    s.history = [{"step": 0, "total_step": run.base_steps, **scores, "best": 1, "optimizer": phase.optimizer_name,
                  "train_loss": None, "sec_per_step": None, "wall_s": s.wall, "timestamp": now()}]
    s.best = {"step": 0, "score": scores[phase.select]}
    atomic_write_bytes(run.best_path, phase.stanza_model_bytes({"step": 0, "total_step": run.base_steps,
                                                                "score": s.best["score"], "scores": scores}))
    write_curve(run.curve, s.history, phase.metrics)
    log.info("%s: step 0 %s", phase.name, _fmt(scores))


def _next_action(run: PhaseRun, switch_at: int | None, done_steps: int) -> str | None:
    """The stopping rules, checked before every step (so that a resumed run sees the same decisions):
    'switch' (done here: the best model reloaded, the second optimizer set up), 'done', 'stopped',
    'segment', or None to go on."""
    phase, args, s = run.phase, run.args, run.state
    # steps without a new best; after the switch to the second optimizer, counted from the switch
    since_best = s.step - max(s.best["step"], s.switch_step)
    if phase.opt_stage == 0 and (since_best >= args.patience
                                 or (switch_at is not None and run.base_steps + s.step >= switch_at)):
        log.info("%s: switching to the second optimizer (%s) at step %d, from the best model (step %d)",
                 phase.name, phase.args_optim(1), s.step, s.best["step"])
        _reload_best(phase, run.best_path)
        phase.second_optimizer()
        s.switch_step = s.step  # the patience counter restarts
        s.pending_sched = 0
        run.checkpoint()
        return "switch"
    if phase.opt_stage == 1 and since_best >= args.patience:
        log.info("%s: early stop at step %d: no dev improvement for %d steps", phase.name, s.step, since_best)
        return "done"
    cap = step_cap(args, phase.name)
    if cap and s.step >= cap:
        log.info("%s: reached its step cap %d", phase.name, cap)
        return "done"
    if Stop.requested or (args.segment_steps and done_steps >= args.segment_steps):
        if done_steps:
            run.checkpoint()
        return "stopped" if Stop.requested else "segment"
    return None


def _train_step(run: PhaseRun, interval: list[float]) -> None:
    """One update on the next batch of the epoch's plan (a new plan when it is used up)."""
    phase, s = run.phase, run.state
    if s.position >= len(s.plan):
        s.plan, s.position, s.epoch = phase.new_plan(), 0, s.epoch + 1
    t_step = time.monotonic()
    loss = phase.update(phase.batch(s.plan[s.position]))
    s.position += 1
    s.step += 1
    interval[1] += 1
    s.loss_sum += loss
    s.loss_steps += 1
    s.pending_sched += 1
    s.wall += time.monotonic() - t_step
    if s.step % run.args.log_every == 0:
        log.info("%s: step %d (total %d) loss %.4f, %.2f s/step", phase.name, s.step, run.base_steps + s.step,
                 loss, (time.monotonic() - interval[0]) / max(interval[1], 1))


def _evaluate(run: PhaseRun, interval: list[float]) -> None:
    """Score dev; record the curve row, a new best.pt (and with --snapshots every model); checkpoint."""
    phase, args, s = run.phase, run.args, run.state
    t_eval = time.monotonic()
    sec_per_step = (t_eval - interval[0]) / max(interval[1], 1)
    scores = phase.evaluate()
    s.wall += time.monotonic() - t_eval
    improved = scores[phase.select] > s.best["score"]
    row = {"step": s.step, "total_step": run.base_steps + s.step, **scores, "best": int(improved),
           "optimizer": phase.optimizer_name, "train_loss": s.loss_sum / max(s.loss_steps, 1),
           "sec_per_step": sec_per_step, "wall_s": s.wall, "timestamp": now()}
    s.history.append(row)
    s.loss_sum, s.loss_steps = 0.0, 0
    phase.scheduler_step(s.pending_sched, scores[phase.select])
    s.pending_sched = 0
    if improved:
        s.best = {"step": s.step, "score": scores[phase.select]}
    if improved or args.snapshots:
        model = phase.stanza_model_bytes({"step": s.step, "total_step": run.base_steps + s.step,
                                          "score": scores[phase.select], "scores": scores})
        if improved:
            atomic_write_bytes(run.best_path, model)
        if args.snapshots:  # every evaluated model, for checkpoint averaging (average_models.py)
            atomic_write_bytes(run.folder / "snapshots" / f"step-{run.base_steps + s.step:06d}.pt", model)
    run.checkpoint()
    append_curve(run.curve, row, phase.metrics)
    log.info("%s: step %d (total %d) %s%s, %.2f s/step", phase.name, s.step, run.base_steps + s.step, _fmt(scores),
             " (best)" if improved else "", sec_per_step)
    interval[0], interval[1] = time.monotonic(), 0


def _fmt(scores: dict[str, float]) -> str:
    return " ".join(f"{k} {v:.2f}" for k, v in scores.items())


def _best_meta(path: Path) -> dict[str, Any] | None:
    import torch

    if not path.exists():
        return None
    try:
        return torch.load(path, map_location="cpu", weights_only=True).get("long_training")
    except Exception:
        return None


def _reload_best(phase: Phase, best_path: Path) -> None:
    """Put the weights of ``best.pt`` into the model being trained."""
    import torch

    params = torch.load(best_path, map_location="cpu", weights_only=True)["model"]
    if isinstance(phase, ParserPhase):
        phase.trainer.model.load_params(params)
    else:
        result = phase.trainer.model.load_state_dict(params, strict=False)
        missing = [k for k in result.missing_keys if k.split(".")[0] not in phase.trainer.model.unsaved_modules]
        if missing or result.unexpected_keys:
            raise RuntimeError(f"{best_path} does not fit the tagger: {missing} {result.unexpected_keys}")


def load_tagger(tagger: Path, device: str, pretrain: Path | None = None) -> TaggerPhase:
    """A tagger file (and the vectors it reads, if any) loaded for :func:`tag_conllu` (only its
    ``predict_doc`` is used)."""
    from stanza.models.pos.trainer import Trainer

    holder = TaggerPhase.__new__(TaggerPhase)
    holder.pretrain = load_pretrain(pretrain)
    holder.trainer = Trainer(model_file=str(tagger), pretrain=holder.pretrain, device=device)
    return holder


def tag_conllu(tagger: TaggerPhase, gold: Path) -> tuple[str, dict[str, float]]:
    """``gold`` tagged by ``tagger`` (:func:`load_tagger`; UPOS, XPOS, FEATS; gold heads, relations,
    lemmas kept) and its scores."""
    from stanza.models.common.utils import ud_scores
    from stanza.models.pos.data import Dataset
    from stanza.utils.conll import CoNLL

    data = Dataset(CoNLL.conll2doc(input_file=str(gold)), tagger.trainer.args, tagger.pretrain,
                   vocab=tagger.trainer.vocab, evaluation=True, sort_during_eval=True)
    tagger.predict_doc(data)
    text = f"{data.doc:C}\n\n"
    scores = {m: round(100 * v.f1, 2) for m, v in ud_scores(str(gold), io.StringIO(text)).items()
              if m in POS_METRICS}
    return text, scores


def retag(args: argparse.Namespace, gold: dict[str, Path], tagger: Path) -> dict[str, Path]:
    """Tag train/dev/test with ``tagger`` (gold heads, relations, lemmas kept); once per tagger file."""
    folder = args.work / "retag"
    out = {s: folder / f"en_ewt.{s}.in.conllu" for s in SPLITS}
    done = folder / "DONE.json"
    digest = sha256(tagger)
    if done.exists() and json.loads(done.read_text())["tagger_sha256"] == digest:
        if all(p.exists() for p in out.values()):
            return out
    log.info("retagging train/dev/test with %s", tagger)
    scores, loaded = {}, load_tagger(tagger, args.device, args.pos_pretrain)
    for s in SPLITS:
        text, scores[s] = tag_conllu(loaded, gold[s])
        atomic_write_text(out[s], text)
        log.info("retag %s: %s", s, scores[s])
    atomic_write_text(done, json.dumps({"tagger": str(tagger), "tagger_sha256": digest, "scores": scores,
                                        "finished": now()}, indent=1) + "\n")
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "models-long", help="state folder")
    parser.add_argument("--ud", type=Path, default=ROOT.parent / "shared" / "ud" / "en_ewt",
                        help="UD English-EWT CoNLL-U files (default ../shared/ud/en_ewt)")
    parser.add_argument("--phases", default="pos,retag,depparse", help="comma-separated subset of pos,retag,depparse")
    parser.add_argument("--pos-init", type=Path, default=SHIPPED / "pos.pt")
    parser.add_argument("--pos-pretrain", type=Path, default=None,
                        help="word vectors the tagger reads (a tagger widened by research/models/word_vectors.py); "
                             "also used by the retag phase's --tagger")
    parser.add_argument("--depparse-init", type=Path, default=SHIPPED / "depparse.pt")
    parser.add_argument("--tagger", type=Path, default=None,
                        help="tagger for the retag phase (default: WORK/pos/best.pt once the pos phase is done)")
    parser.add_argument("--train-tags", type=Path, default=None,
                        help="the parser's train file instead of train retagged by --tagger (jackknifed tags: "
                             "research/models/jackknife.py); dev and test are still retagged by --tagger")
    parser.add_argument("--base-steps", type=int, default=None,
                        help="steps the initial models have trained (default: PROVENANCE.json or the log's)")
    parser.add_argument("--eval-every", type=int, default=200, help="dev evaluation (and checkpoint) interval")
    parser.add_argument("--patience", type=int, default=2000,
                        help="steps without dev improvement before switching optimizer, and again before stopping")
    parser.add_argument("--max-steps", type=int, default=0, help="cap on each phase's steps (0: none)")
    parser.add_argument("--pos-max-steps", type=int, default=0,
                        help="cap on the tagger phase's steps, instead of --max-steps (0: --max-steps)")
    parser.add_argument("--segment-steps", type=int, default=0, help="stop this invocation after N steps (0: none)")
    parser.add_argument("--pos-metric", default="AllTags", choices=POS_METRICS, help="tagger selection metric")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--device", default="cpu",
                        help="torch device to train on (cuda: a GPU sitting; its CUDA random state is not "
                             "checkpointed, so a resumed GPU run is not step-for-step the run it continues)")
    parser.add_argument("--log-every", type=int, default=20)
    parser.add_argument("--snapshots", action="store_true",
                        help="also keep every evaluated model as WORK/PHASE/snapshots/step-TOTAL.pt (for "
                             "research/models/average_models.py)")
    parser.add_argument("--no-prepare", action="store_true", help="use the UD files as they are (tests)")
    parser.add_argument("--limit-train", type=int, default=0, help="first N train sentences only (tests)")
    parser.add_argument("--limit-dev", type=int, default=0, help="first N dev/test sentences only (tests)")
    parser.add_argument("--batch-size", type=int, default=0, help="override the models' batch size (tests)")
    parser.add_argument("--report", action="store_true",
                        help="print the learning curves so far as Markdown tables (reads WORK only) and exit")
    args = parser.parse_args(argv)
    args.work = args.work.resolve()
    phases = [p for p in args.phases.split(",") if p]
    unknown = set(phases) - {"pos", "retag", "depparse"}
    if unknown:
        parser.error(f"unknown phases {sorted(unknown)}")
    args.phase_list = phases
    return args


def base_steps(phase: str, init: Path, shipped: Path = SHIPPED) -> int:
    """Steps the initial model has trained: what ``PROVENANCE.json`` records for it (``best_total_step``
    of the run that selected it) when ``init`` is that shipped file, else :data:`BASE_STEPS`. A long
    training spans sittings on machines that keep nothing but the repository by shipping its best models
    at the end of one sitting (``ship_long.py ship --unfinished``) and starting the next from them."""
    name = f"{phase}.pt"
    record = shipped / "PROVENANCE.json"
    if record.is_file() and init.resolve() == (shipped / name).resolve():
        trained = json.loads(record.read_text(encoding="utf-8")).get("trained", {}).get(name, {})
        if "best_total_step" in trained:
            return int(trained["best_total_step"])
    return BASE_STEPS[phase]


def _base_steps(args: argparse.Namespace, phase: str, init: Path) -> int:
    return args.base_steps if args.base_steps is not None else base_steps(phase, init)


def step_cap(args: argparse.Namespace, phase: str) -> int:
    """A phase's step cap (0: none): ``--pos-max-steps`` for the tagger when given, else ``--max-steps``.
    Raising or lowering a cap on resume is allowed: the cap is not part of a checkpoint's identity."""
    if phase == "pos" and args.pos_max_steps:
        return int(args.pos_max_steps)
    return int(args.max_steps)


def report(work: Path) -> str:
    """The learning curves under ``work`` as Markdown tables (for the training log)."""
    out = []
    for name, metrics in (("pos", POS_METRICS), ("depparse", DEP_METRICS)):
        path = work / name / "curve.tsv"
        if not path.exists():
            continue
        rows = read_curve(path)
        done = work / name / "DONE.json"
        state = "finished" if done.exists() else "in progress"
        out.append(f"{name} ({state}; dev, gold tokens{'' if name == 'pos' else ', predicted tags'}):\n")
        out.append("| step | total step | " + " | ".join(metrics) + " | optimizer | s/step | wall s |")
        out.append("|" + "---|" * (len(metrics) + 5))
        for r in rows:
            mark = "**" if r["best"] == "1" else ""
            out.append(f"| {r['step']} | {r['total_step']} | "
                       + " | ".join(f"{mark}{r[m]}{mark}" if m in ("AllTags", "LAS") else r[m] for m in metrics)
                       + f" | {r['optimizer']} | {r['sec_per_step']} | {r['wall_s']} |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report:
        print(report(args.work))
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%Y-%m-%dT%H:%M:%S",
                        stream=sys.stdout)
    import stanza.models.parser  # noqa: F401  (stanza sets up its logger on import; quieten it after)
    import stanza.models.tagger  # noqa: F401

    logging.getLogger("stanza").setLevel(logging.WARNING)
    if args.device == "cpu" and os.environ.get("OMP_NUM_THREADS") != "1":
        log.warning("OMP_NUM_THREADS is not 1: this machine is shared, run with one thread")
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    Stop.install()
    log.info("train_long: work %s, phases %s, pid %d", args.work, ",".join(args.phase_list), os.getpid())
    gold = prepare_data(args)
    if "pos" in args.phase_list and not (args.work / "pos" / "DONE.json").exists():
        phase = TaggerPhase(args, args.pos_init, gold["train"], gold["dev"], gold["dev"])
        if train_phase(phase, args, _base_steps(args, "pos", args.pos_init)) != "done":
            return 0
        del phase
    tags = None
    if "retag" in args.phase_list or "depparse" in args.phase_list:
        tagger = args.tagger or args.work / "pos" / "best.pt"
        if args.tagger is None and not (args.work / "pos" / "DONE.json").exists():
            raise SystemExit("retag: the pos phase has not finished (or pass --tagger)")
        tags = retag(args, gold, tagger)
    if "depparse" in args.phase_list and tags is not None and not (args.work / "depparse" / "DONE.json").exists():
        train = args.train_tags.resolve() if args.train_tags else tags["train"]
        phase = ParserPhase(args, args.depparse_init, train, tags["dev"], gold["dev"])
        if train_phase(phase, args, _base_steps(args, "depparse", args.depparse_init)) != "done":
            return 0
    log.info("train_long: all phases done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
