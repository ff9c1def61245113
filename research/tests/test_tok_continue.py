"""research/models/tok_continue.py: the tokenizer's stage 2 continues from the stage-1 weights (issue 15).

On a few EWT sentences (prepared by stanza as ``make models`` does): a stage-1 model of 2 steps, then
stage 2 from it. With learning rate 0 the saved model must be the stage-1 weights exactly (they were
loaded); with the default rate it must differ from them (the optimizer trains the network that is
saved: stanza's own ``--load_name`` swaps the network after building the optimizer, so its saved
weights would not move). A train file with another character vocabulary is refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SHARED

torch = pytest.importorskip("torch")

UD = SHARED / "ud" / "en_ewt"
pytestmark = [pytest.mark.skipif(not (UD / "en_ewt-ud-train.conllu").exists(),
                                 reason="../shared/ud/en_ewt (UD English-EWT) is absent"),
              pytest.mark.shared, pytest.mark.training]
SCRIPT = ROOT / "research" / "models" / "tok_continue.py"
SIZES = {"train": 60, "dev": 15, "test": 15}  # sentences per split


def _head(source: Path, dest: Path, sentences: int) -> None:
    blocks = source.read_text(encoding="utf-8").split("\n\n")[:sentences]
    dest.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")


def _prepare(work: Path, sentences: dict[str, int]) -> None:
    ud = work / "extern_data" / "ud2" / "ud-treebanks-v2.18" / "UD_English-EWT"
    ud.mkdir(parents=True)
    for split, n in sentences.items():
        _head(UD / f"en_ewt-ud-{split}.conllu", ud / f"en_ewt-ud-{split}.conllu", n)
    subprocess.run([sys.executable, "-m", "stanza.utils.datasets.prepare_tokenizer_treebank", "UD_English-EWT"],
                   cwd=work, env=_env(work), check=True, capture_output=True, timeout=300)


def _env(work: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                STANZA_RESOURCES_DIR=str(work / "stanza_resources"), **extra)


def _train(work: Path, save_dir: str, init: Path | None, *extra: str) -> subprocess.CompletedProcess:
    base = [str(SCRIPT)] if init else ["-m", "stanza.utils.training.run_tokenizer"]
    env = _env(work, TOK_INIT=str(init)) if init else _env(work)
    command = [sys.executable, *base, "UD_English-EWT", "--no_charlm", "--save_dir", save_dir,
               "--steps", "2", "--eval_steps", "2", "--batch_size", "4", *extra]
    return subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)


def _weights(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=True)["model"]


def test_stage_two_starts_from_stage_one_and_trains_the_saved_network(tmp_path: Path) -> None:
    _prepare(tmp_path, SIZES)
    name = "en_ewt_nocharlm_tokenizer.pt"
    done = _train(tmp_path, "stage1", None)
    assert done.returncode == 0, done.stderr[-3000:]
    stage1 = tmp_path / "stage1" / name
    for save_dir, lr in (("frozen", "0"), ("trained", "0.002")):
        done = _train(tmp_path, save_dir, stage1, "--lr0", lr)
        assert done.returncode == 0, done.stderr[-3000:]
    before, frozen, trained = (_weights(tmp_path / d / name) for d in ("stage1", "frozen", "trained"))
    assert before.keys() == frozen.keys() == trained.keys()
    assert all(torch.equal(before[k], frozen[k]) for k in before)
    assert not all(torch.equal(before[k], trained[k]) for k in before)


def test_a_train_file_with_other_characters_is_refused(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _prepare(first, SIZES)
    _prepare(second, {**SIZES, "train": 200})  # more sentences, more distinct characters
    done = _train(first, "stage1", None)
    assert done.returncode == 0, done.stderr[-3000:]
    done = _train(second, "stage2", first / "stage1" / "en_ewt_nocharlm_tokenizer.pt")
    assert done.returncode != 0
    assert "character vocabulary differs" in done.stderr
