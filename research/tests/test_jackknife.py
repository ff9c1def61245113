"""research/models/jackknife.py and research/models/gpu_jackknife.sh: jackknifed training tags for the parser
(issue 15).

The folds partition train and merge back into its order; a fold's tagger has a vocabulary of the other
folds only; the GPU sitting's script, run on this machine's CPU with a few sentences, leaves the parser,
the jackknifed train file and its record, and a second run from that file (JK_TRAIN) trains the parser only.
"""

from __future__ import annotations

import importlib.util
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SHARED
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(ROOT / "research" / "models"))
SPEC = importlib.util.spec_from_file_location("jackknife", ROOT / "research" / "models" / "jackknife.py")
jackknife = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(jackknife)

UD = SHARED / "ud" / "en_ewt"
needs_ud = pytest.mark.skipif(not (UD / "en_ewt-ud-train.conllu").exists(),
                              reason="../shared/ud/en_ewt (UD English-EWT) is absent")


def _sentence(i: int) -> str:
    return f"# sent_id = s{i}\n1\tword{i}\tword{i}\tNOUN\tNN\t_\t0\troot\t_\t_"


@given(st.integers(min_value=0, max_value=40), st.integers(min_value=2, max_value=7))
def test_reassemble_undoes_the_round_robin(n: int, k: int) -> None:
    blocks = [_sentence(i) for i in range(n)]
    folds = [[b for i, b in enumerate(blocks) if jackknife.fold_of(i, k) == f] for f in range(k)]
    assert jackknife.reassemble(folds) == blocks


def test_split_partitions_train_and_keeps_dev_and_test(tmp_path: Path) -> None:
    ud = tmp_path / "ud"
    ud.mkdir()
    (ud / "en_ewt-ud-train.conllu").write_text("\n\n".join(_sentence(i) for i in range(10)) + "\n\n")
    for split in ("dev", "test"):
        (ud / f"en_ewt-ud-{split}.conllu").write_text(_sentence(100) + "\n\n")
    folders = jackknife.split(*(ud / f"en_ewt-ud-{s}.conllu" for s in ("train", "dev", "test")), 3, tmp_path / "f")
    held = [jackknife.read_blocks(f / "heldout.conllu") for f in folders]
    assert [len(h) for h in held] == [4, 3, 3]
    assert jackknife.reassemble(held) == [_sentence(i) for i in range(10)]
    for fold, folder in enumerate(folders):
        rest = jackknife.read_blocks(folder / "ud" / "en_ewt-ud-train.conllu")
        assert sorted(rest + held[fold]) == sorted(_sentence(i) for i in range(10))
        assert not set(rest) & set(held[fold])
        assert (folder / "ud" / "en_ewt-ud-dev.conllu").read_text() == _sentence(100) + "\n\n"
    with pytest.raises(SystemExit, match="at least 2"):
        jackknife.split(ud / "en_ewt-ud-train.conllu", ud / "en_ewt-ud-dev.conllu", ud / "en_ewt-ud-test.conllu",
                        1, tmp_path / "g")


def _log(out: Path, name: str) -> str:
    import tarfile

    with tarfile.open(out / "logs.tgz") as tar:
        return tar.extractfile(f"./{name}").read().decode()


def _sitting(tmp_path: Path, out: Path, **env: str) -> subprocess.CompletedProcess[str]:
    out.mkdir()
    settings = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OUT=str(out), UD_XZ=str(tmp_path / "ud"),
                    WHEELS="none", DEVICE="cpu", DEADLINE="250", TAGGER_SECONDS="120", K="2", **env,
                    EXTRA="--batch-size 10 --eval-every 2 --patience 2 --max-steps 4")
    return subprocess.run(["bash", str(ROOT / "research" / "models" / "gpu_jackknife.sh")], cwd=ROOT, env=settings,
                          capture_output=True, text=True, timeout=400)


@pytest.mark.training
@needs_ud
@pytest.mark.shared
@pytest.mark.models
@pytest.mark.slow
def test_a_jackknife_sitting_dry_run_on_the_cpu(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    (tmp_path / "ud").mkdir()
    gold = {}
    for split in ("train", "dev", "test"):
        blocks = (UD / f"en_ewt-ud-{split}.conllu").read_text(encoding="utf-8").split("\n\n")[:20]
        gold[split] = "\n\n".join(blocks) + "\n\n"
        (tmp_path / "ud" / f"en_ewt.{split}.conllu.xz").write_bytes(lzma.compress(gold[split].encode()))
    done = _sitting(tmp_path, tmp_path / "out", WORK=str(tmp_path / "work"))
    assert done.returncode == 0, done.stdout + done.stderr
    out, folds = tmp_path / "out", tmp_path / "work" / "folds"
    record = json.loads((out / "train.jk.json").read_text())
    assert record["k"] == 2 and record["sentences"] == 20 and set(record["folds"]) == {"0", "1"}
    tagged = jackknife.read_blocks(Path(str(folds / "train.jk.conllu")))
    ids = [b.split("\n")[0] for b in tagged]
    assert ids == [b.strip("\n").split("\n")[0] for b in gold["train"].split("\n\n") if b.strip()]
    # a fold's tagger knows the words of the other fold only
    vocab = set(torch.load(folds / "fold0" / "init.pt", map_location="cpu",
                           weights_only=True)["vocab"]["word"]["_unit2id"])

    def words(path: Path) -> set[str]:
        return {line.split("\t")[1].lower() for line in path.read_text().splitlines() if line[:1].isdigit()}

    assert words(folds / "fold0" / "ud" / "en_ewt-ud-train.conllu") <= vocab
    assert words(folds / "fold0" / "heldout.conllu") - vocab  # held-out words the tagger never saw
    assert "all phases done" in _log(out, "depparse.log") and "all phases done" in _log(out, "pos.fold1.log")
    assert len(list(out.iterdir())) <= 8  # what comes back from the device
    assert len(list(out.glob("depparse.best.pt.part*"))) == 3 and (out / "train.jk.conllu.xz").stat().st_size
    # a second sitting from the jackknifed file made by the first: no taggers, the parser only
    again = _sitting(tmp_path, tmp_path / "out2", WORK=str(tmp_path / "work2"),
                     JK_TRAIN=str(out / "train.jk.conllu.xz"))
    assert again.returncode == 0, again.stdout + again.stderr
    with pytest.raises(KeyError):
        _log(tmp_path / "out2", "pos.fold0.log")
    assert "all phases done" in _log(tmp_path / "out2", "depparse.log")
