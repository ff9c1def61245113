"""research/models/word_vectors.py and research/models/gpu_vectors.sh: word vectors trained here and a tagger widened
to read them (issue 15)."""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, SHARED, load_model_script

torch = pytest.importorskip("torch")
pytest.importorskip("gensim")

UD = SHARED / "ud" / "en_ewt"
needs_ud = pytest.mark.skipif(not (UD / "en_ewt-ud-train.conllu").exists(),
                              reason="../shared/ud/en_ewt (UD English-EWT) is absent")
needs_data = pytest.mark.skipif(not (SHARED / "data" / "hien-4ref").is_dir(),
                                reason="../shared/data (the extra English text) is absent")

wv = load_model_script("word_vectors")

SENTENCES = [["The", "committee", "did", "n't", "approve", "the", "new", "system", "."],
             ["She", "reads", "books", "in", "Paris", "every", "summer", "."],
             ["Quickly", ",", "the", "zorblax", "flurped", "its", "gromits", "!"]]


def test_zero_columns_are_inserted_where_asked() -> None:
    weight = torch.arange(6.0).reshape(2, 3)
    wide = wv.insert_zero_columns(weight, 1, 2)
    assert wide.tolist() == [[0.0, 0.0, 0.0, 1.0, 2.0], [3.0, 0.0, 0.0, 4.0, 5.0]]


@pytest.fixture(scope="module")
def pretrain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real fastText vectors (gensim) of a tiny corpus, written as a stanza pretrain file."""
    out = tmp_path_factory.mktemp("wv") / "pretrain.pt"
    vectors = wv.train_vectors(SENTENCES * 5, dim=16, epochs=2, seed=1)
    assert wv.write_pretrain(vectors, out) == len({w.lower() for s in SENTENCES for w in s})
    return out


@pytest.mark.models
def test_the_widened_tagger_tags_exactly_as_the_shipped_one(pretrain: Path, tmp_path: Path) -> None:
    """Function-preserving widening: the new input block enters through zero columns, so the widened tagger
    predicts what the shipped one does, while reading the vectors (config, weights, record)."""
    wide = tmp_path / "pos_wv.pt"
    record = wv.widen_tagger(wv.SHIPPED / "pos.pt", pretrain, wide, seed=3)
    assert record["from_sha256"] == wv.sha256(wv.SHIPPED / "pos.pt")
    saved = torch.load(wide, map_location="cpu", weights_only=False)
    assert saved["config"]["pretrain"] is True
    assert tuple(saved["model"]["trans_pretrained.weight"].shape) == (saved["config"]["transformed_dim"], 16)
    first = saved["model"]["taggerlstm.lstm.0.lstm.weight_ih_l0"]
    at, width = saved["config"]["word_emb_dim"], saved["config"]["transformed_dim"]
    assert float(first[:, at:at + width].abs().sum()) == 0.0
    shipped = wv.tag_words(wv.SHIPPED / "pos.pt", None, SENTENCES)
    assert wv.tag_words(wide, pretrain, SENTENCES) == shipped
    with pytest.raises(SystemExit, match="already reads pretrained vectors"):
        wv.widen_tagger(wide, pretrain, tmp_path / "again.pt", seed=3)


@needs_data
def test_the_extra_text_is_the_licensed_files_segments() -> None:
    lines = wv.read_extra_lines(SHARED)
    plain = sum(1 for rel, kind, _ in wv.EXTRA_TEXT if kind == "plain"
                for line in (SHARED / "data" / rel).read_text(encoding="utf-8").splitlines() if line.strip())
    assert len(lines) == plain + 3002  # newstest2017 en-fi: 3,002 English source segments
    assert not any("<seg" in line or "</seg>" in line for line in lines)
    assert {lic for _, _, lic in wv.EXTRA_TEXT} == {"CC BY-SA 3.0", "CC BY 4.0"}


@pytest.mark.training
@needs_ud
@pytest.mark.shared
@pytest.mark.models
@pytest.mark.slow
def test_a_vectors_sitting_dry_run_on_the_cpu(pretrain: Path, tmp_path: Path) -> None:
    """research/models/gpu_vectors.sh as the device runs it, on this CPU with a few sentences: the control and the
    widened tagger both train, and their first dev scores are identical (the widening changes nothing
    until training does)."""
    data, out, vectors = tmp_path / "ud", tmp_path / "out", tmp_path / "wv"
    for folder in (data, out, vectors):
        folder.mkdir()
    for split in ("train", "dev", "test"):
        blocks = (UD / f"en_ewt-ud-{split}.conllu").read_text(encoding="utf-8").split("\n\n")[:30]
        (data / f"en_ewt.{split}.conllu.xz").write_bytes(lzma.compress(("\n\n".join(blocks) + "\n\n").encode()))
    (vectors / "pretrain.pt").write_bytes(pretrain.read_bytes())
    wv.widen_tagger(wv.SHIPPED / "pos.pt", vectors / "pretrain.pt", vectors / "pos_wv.pt", seed=3)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OUT=str(out), UD_XZ=str(data),
               WHEELS="none", DEVICE="cpu", DEADLINE="200", WORK=str(tmp_path / "work"), WV=str(vectors),
               EXTRA="--batch-size 10 --eval-every 2 --patience 2 --max-steps 4")
    done = subprocess.run(["bash", str(ROOT / "research" / "models" / "gpu_vectors.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "control.best.pt").is_file() and (out / "vectors.best.pt").is_file()
    with tarfile.open(out / "curves.tgz") as tar:
        curves = {name: tar.extractfile(name).read().decode() for name in tar.getnames() if name.endswith(".tsv")}
    first = {name: text.splitlines()[1].split("\t")[:6] for name, text in curves.items()}
    assert set(first) == {"control/pos/curve.tsv", "vectors/pos/curve.tsv"}
    assert first["control/pos/curve.tsv"] == first["vectors/pos/curve.tsv"]  # step, total step, four scores
    done_record = json.loads((tmp_path / "work" / "vectors" / "pos" / "DONE.json").read_text())
    assert "pretrain_sha256" in done_record["identity"]
    for log in ("control.log", "vectors.log"):
        assert "all phases done" in (out / log).read_text()


def test_the_error_breakdown_reads_words_and_tags_alike(tmp_path: Path) -> None:
    te = load_model_script("tagger_errors")
    conllu = tmp_path / "x.conllu"
    conllu.write_text("# text = I don't\n1\tI\tI\tPRON\t_\t_\t0\troot\t_\t_\n2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                      "2\tdo\tdo\tAUX\t_\t_\t1\taux\t_\t_\n3\tn't\tnot\tPART\t_\t_\t1\tadvmod\t_\t_\n\n"
                      "1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_\n", encoding="utf-8")
    assert wv.read_ud_words(conllu) == [["I", "do", "n't"], ["Hi"]]
    assert te.forms_and_upos(conllu) == ([["I", "do", "n't"], ["Hi"]], [["PRON", "AUX", "PART"], ["INTJ"]])
    assert [te.band(n) for n in (0, 1, 4, 5)] == ["unseen", "seen 1-4 times", "seen 1-4 times", "seen 5+ times"]
