"""Ship the tagger and parser that ``research/models/train_long.py`` selected, and check what is shipped (issue 15).

``ship``: copies ``WORK/pos/best.pt`` and ``WORK/depparse/best.pt`` (the dev-selected models of the long
training) over the embedded ``pos.pt`` and ``depparse.pt`` (atomically), and writes ``PROVENANCE.json``
beside them: for every embedded model file its SHA-256, and for the two it replaced the recipe's record
(``DONE.json``: steps, best step, dev score, the hashes of the initial model and of the train/dev files).
A phase that has not finished (no ``DONE.json``) is refused unless ``--unfinished``; its record then says
so and gives the progress read from its ``curve.tsv`` (steps so far, the selected step, its dev score).
That is how a long training spans sittings on machines that keep only the repository: each sitting
ships its best models so far (when they beat the shipped ones on dev), and the next one starts from them
(``train_long.py`` counts their steps from this record). ``--pos-work`` / ``--depparse-work`` take a
phase from another state folder (the tagger and a parser on the old tagger's tags trained side by side).
The annotation identity in score signatures hashes the model files, so caches made with the old models
recompute.

``verify`` (``make models-eval`` runs it): every embedded model file has the SHA-256 that
``PROVENANCE.json`` records, and where the recipe's state is here (``WORK``) its ``best.pt`` files are the
shipped ones. Rebuilding the models to compare bytes takes CPU-days; the record ties the shipped bytes to
the recipe run (seeded, resumable, one thread) whose curve the training log reports.

    python research/models/ship_long.py ship [--work build/models-long] [--dest DIR] [--unfinished] [--averaged]
                                    [--pos-work DIR] [--depparse-work DIR] [--phases pos,depparse] [--note TEXT]
    python research/models/ship_long.py verify [--work build/models-long] [--dest DIR]
    python research/models/ship_long.py record [--dest DIR]   (the hashes of the files there now, no training record)
    python research/models/ship_long.py ship-tokenizer --model FILE --log LOG [--dest DIR]

``ship-tokenizer``: copies a tokenizer of ``make models``' stage 2 (``research/models/tok_continue.py``, selected by
stanza's dev score) over the embedded ``tokenize.pt`` and adds its record, read from that run's log (steps
run, the selected step, its dev score and token/sentence F1), to the records already there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EMBEDDED = ROOT / "mteval" / "resources" / "models" / "en_ewt"
WORK = ROOT / "build" / "models-long"
PROVENANCE = "PROVENANCE.json"
TRAINED = ("pos", "depparse")  # the phases whose best.pt replaces the embedded <phase>.pt
MODEL_SUFFIXES = (".pt", ".npz")
SELECT = {"pos": "AllTags", "depparse": "LAS"}  # train_long.py's selection metrics (its defaults)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def copy_atomic(source: Path, dest: Path) -> None:
    """``dest`` becomes a copy of ``source`` in one rename (a reader sees the old or the new file)."""
    fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out, source.open("rb") as handle:
            while block := handle.read(1 << 20):
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(name, 0o644)  # mkstemp makes it private; a model file is read by every user
        os.replace(name, dest)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def model_files(dest: Path) -> list[Path]:
    return sorted(p for p in dest.iterdir() if p.suffix in MODEL_SUFFIXES)


def progress(folder: Path, phase: str) -> dict[str, Any]:
    """An unfinished phase's record from its ``curve.tsv``: steps so far and the selected (best) step."""
    record: dict[str, Any] = {"unfinished": True}
    curve = folder / "curve.tsv"
    if not curve.is_file():
        return record
    lines = curve.read_text(encoding="utf-8").splitlines()
    rows = [dict(zip(lines[0].split("\t"), line.split("\t"), strict=False)) for line in lines[1:] if line]
    best = [r for r in rows if r.get("best") == "1"]
    if not rows or not best:
        return record
    last, chosen = rows[-1], best[-1]
    return record | {"phase": phase, "steps": int(last["step"]), "total_steps": int(last["total_step"]),
                     "best_step": int(chosen["step"]), "best_total_step": int(chosen["total_step"]),
                     "best_score": float(chosen[SELECT[phase]]), "select": SELECT[phase]}


def averaged_record(folder: Path, phase: str, record: dict[str, Any]) -> dict[str, Any]:
    """A phase's record for its checkpoint average (``research/models/average_models.py``'s ``averaged.json``): the
    selected step is the newest snapshot averaged, the score the average's dev score."""
    averaged = json.loads((folder / "averaged.json").read_text(encoding="utf-8"))
    newest = int(averaged["chosen"][-1].removeprefix("step-").removesuffix(".pt"))
    offset = record.get("total_steps", 0) - record.get("steps", 0)  # the steps before this run
    return record | {"best_step": newest - offset, "best_total_step": newest,
                     "best_score": float(averaged["dev"][SELECT[phase]]), "averaged": averaged}


def ship(work: Path, dest: Path, unfinished: bool = False,
         phase_work: dict[str, Path] | None = None, phases: tuple[str, ...] = TRAINED,
         note: str | None = None, averaged: bool = False) -> dict[str, Any]:
    """Copy the selected models of ``phases`` into ``dest`` and write its provenance record (returned;
    the other phases keep their records); ``phase_work`` names another state folder for a phase than
    ``work``; ``note`` (e.g. how the parser's train tags were made) goes into the shipped phases' records;
    ``averaged``: ship each phase's checkpoint average (``averaged.pt``) instead of its ``best.pt``."""
    folders = {phase: (phase_work or {}).get(phase) or work for phase in phases}
    records: dict[str, Any] = {}
    chosen = "averaged.pt" if averaged else "best.pt"
    for phase in phases:
        best, done = folders[phase] / phase / chosen, folders[phase] / phase / "DONE.json"
        if not best.is_file():
            raise SystemExit(f"ship: {best} does not exist: run research/models/train_long.py first")
        if not done.is_file() and not unfinished:
            raise SystemExit(f"ship: the {phase} phase has not finished ({done} is absent); "
                             "--unfinished ships its best model so far")
        records[phase] = (json.loads(done.read_text(encoding="utf-8")) if done.is_file()
                          else progress(folders[phase] / phase, phase)) | ({"note": note} if note else {})
        if averaged:
            records[phase] = averaged_record(folders[phase] / phase, phase, records[phase])
    kept = recorded_training(dest)  # e.g. the tokenizer's (ship-tokenizer)
    for phase in phases:
        copy_atomic(folders[phase] / phase / chosen, dest / f"{phase}.pt")
    return record(dest, kept | {f"{phase}.pt": records[phase] for phase in phases})


_STEP = re.compile(r"Step +(\d+)/ *\d+ Loss")
_DEV_F1 = re.compile(r"token F1 = ([\d.]+), sentence F1 = ([\d.]+)")
_DEV_SCORE = re.compile(r"Dev score: +([\d.]+)\tNew best")


def tokenizer_progress(log: Path) -> dict[str, Any]:
    """A stanza tokenizer run's record from its log (report steps a divisor of the eval steps, so that
    the step line before each evaluation is its step): steps run and the last new best dev score."""
    step, f1, record_ = 0, ("", ""), {}
    for line in log.read_text(encoding="utf-8").splitlines():
        if match := _STEP.search(line):
            step = int(match[1])
        elif match := _DEV_F1.search(line):
            f1 = (match[1], match[2])
        elif match := _DEV_SCORE.search(line):
            record_ = {"best_step": step, "best_score": float(match[1]), "token_f1": float(f1[0]),
                       "sentence_f1": float(f1[1])}
    if not record_:
        raise SystemExit(f"ship-tokenizer: {log} records no dev evaluation")
    return {"phase": "tokenize", "select": "stanza's tokenizer dev score (token, sentence, MWT F1)",
            "recipe": "research/models/train_models.sh, tokenize stage 2 (research/models/tok_continue.py)",
            "steps": step} | record_


def ship_tokenizer(model: Path, log: Path, dest: Path) -> dict[str, Any]:
    """Copy a stage-2 tokenizer into ``dest`` and add its record to the provenance there."""
    trained = tokenizer_progress(log)
    kept = recorded_training(dest)
    copy_atomic(model, dest / "tokenize.pt")
    return record(dest, kept | {"tokenize.pt": trained})


def recorded_training(dest: Path) -> dict[str, Any]:
    """The training records of ``dest``'s provenance file (none if it has none)."""
    found = dest / PROVENANCE
    return dict(json.loads(found.read_text(encoding="utf-8"))["trained"]) if found.is_file() else {}


def record(dest: Path, trained: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write ``dest``'s provenance: every model file's SHA-256 and the training records given."""
    provenance = {
        "recipe": "research/models/train_models.sh (make models); tagger and parser then research/models/train_long.py "
                  "(make models-long) and research/models/ship_long.py ship, where 'trained' records them",
        "files": {p.name: sha256(p) for p in model_files(dest)},
        "trained": trained or {},
    }
    text = json.dumps(provenance, indent=1, sort_keys=True) + "\n"
    fd, name = tempfile.mkstemp(dir=dest, prefix=f".{PROVENANCE}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(name, 0o644)
    os.replace(name, dest / PROVENANCE)
    return provenance


def verify(work: Path, dest: Path) -> list[str]:
    """Problems with the shipped files (empty: all is as recorded)."""
    found = dest / PROVENANCE
    if not found.is_file():
        return [f"{found} is absent: the shipped models have no provenance record"]
    provenance = json.loads(found.read_text(encoding="utf-8"))
    files = provenance["files"]
    problems = [f"{name}: SHA-256 {sha256(dest / name)[:16]}..., recorded {files[name][:16]}..."
                for name in files if (dest / name).is_file() and sha256(dest / name) != files[name]]
    problems += [f"{name}: recorded but absent" for name in files if not (dest / name).is_file()]
    problems += [f"{p.name}: shipped but not recorded" for p in model_files(dest) if p.name not in files]
    for name, trained in provenance["trained"].items():  # the recipe's state of the same run, if here
        phase = name.removesuffix(".pt")
        done, best = work / phase / "DONE.json", work / phase / "best.pt"
        same_run = done.is_file() and json.loads(done.read_text(encoding="utf-8")) == trained
        if same_run and best.is_file() and sha256(best) != files.get(name):
            problems.append(f"{name} is not the recipe's selected model {best}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("ship", "verify", "record", "ship-tokenizer"))
    parser.add_argument("--work", type=Path, default=WORK, help="train_long.py's state folder")
    parser.add_argument("--dest", type=Path, default=EMBEDDED, help="the embedded model folder")
    parser.add_argument("--unfinished", action="store_true", help="ship a phase's best model before it finished")
    for phase in TRAINED:
        parser.add_argument(f"--{phase}-work", type=Path, help=f"the {phase} phase's state folder (default --work)")
    parser.add_argument("--phases", default=",".join(TRAINED),
                        help="ship: the phases to ship (comma-separated; the others keep their files and records)")
    parser.add_argument("--note", help="ship: a note for the shipped phases' records")
    parser.add_argument("--averaged", action="store_true",
                        help="ship: each phase's checkpoint average (research/models/average_models.py) instead "
                             "of its best.pt")
    parser.add_argument("--model", type=Path, help="ship-tokenizer: the tokenizer file")
    parser.add_argument("--log", type=Path, help="ship-tokenizer: the log of the run that made it")
    args = parser.parse_args(argv)
    if args.action == "ship-tokenizer" and not (args.model and args.log):
        parser.error("ship-tokenizer needs --model and --log")
    if args.action in ("ship", "record", "ship-tokenizer"):
        folders = {"pos": args.pos_work, "depparse": args.depparse_work}
        phases = tuple(p for p in args.phases.split(",") if p)
        if set(phases) - set(TRAINED):
            parser.error(f"--phases: choose among {','.join(TRAINED)}")
        provenance = (ship(args.work, args.dest, args.unfinished, folders, phases, args.note, args.averaged)
                      if args.action == "ship"
                      else ship_tokenizer(args.model, args.log, args.dest) if args.action == "ship-tokenizer"
                      else record(args.dest))
        for name, digest in provenance["files"].items():
            print(f"{name}  {digest}")
        return 0
    problems = verify(args.work, args.dest)
    for problem in problems:
        print(f"models: {problem}", file=sys.stderr)
    if not problems:
        print(f"models: the {len(model_files(args.dest))} embedded model files are the recorded ones")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
