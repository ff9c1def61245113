"""Documents of plain texts (``docids:``, WMT's one-id-a-line file, or a TSV column): iqeval -G doc,
the same document scores as the SGML copy of the texts, recomputation when ids change, one-line
refusals of bad files, and tune's document folds (refused without documents)."""

from __future__ import annotations

import csv
import io
import logging
from pathlib import Path

import numpy as np
import pytest
import yaml
from helpers import ENDE, ROOT, RUEN, ende_config, run
from test_bad_input import assert_user_error

from mteval.errors import ConfigError
from mteval.evaluate.tuning import document_folds
from mteval.experiment.loading import load
from mteval.experiment.texts import load_texts

SYSTEMS = ("AFRL", "Online-B")
IDS = [row[1] for row in csv.reader(io.StringIO((RUEN / "docids.tsv").read_text(encoding="utf-8")),
                                    delimiter="\t")][1:]


def tsv(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


def ruen_config(tmp: Path, docids: object, name: str = "plain.yaml", **extra: object) -> Path:
    """The ru-en sample as plain text (two systems, BLEU and NIST) with the given ``docids``."""
    config = {"cache": str(tmp / "cache"), "references": {r: str(RUEN / "refs" / f"{r}.en") for r in ("A", "B")},
              "systems": {s: str(RUEN / "sys" / f"{s}.en") for s in SYSTEMS}, "metrics": ["BLEU", "NIST"],
              "docids": docids, **extra}
    path = tmp / name
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def one_id_a_line(tmp: Path, ids: list[str], name: str = "test.docids") -> Path:
    path = tmp / name
    path.write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")
    return path


def doc_rows(config: Path) -> dict[tuple[str, str, str], float]:
    result = run("iqeval", "-doOQ", "-G", "doc", "--tsv", str(config))
    assert result.returncode == 0, result.stderr
    return {(r["target"], r["doc"], r["metric"]): float(r["score"]) for r in tsv(result.stdout)}


def test_plain_documents_score_as_the_sgml_copy(tmp_path: Path) -> None:
    """-G doc on plain text + docids gives the documents, and the scores, of the SGML files."""
    plain = ruen_config(tmp_path, str(one_id_a_line(tmp_path, IDS)))
    assert run("iqsetup", "-q", str(plain)).returncode == 0
    sgml = tmp_path / "sgml.yaml"
    sgml.write_text(yaml.safe_dump({
        "cache": str(tmp_path / "sgml-cache"),
        "references": {r: {"path": str(RUEN / "sgml" / "refs.en.sgm"), "sysid": r} for r in ("A", "B")},
        "systems": {s: str(RUEN / "sgml" / f"{s}.en.sgm") for s in SYSTEMS}, "metrics": ["BLEU", "NIST"]}))
    assert run("iqsetup", "-q", str(sgml)).returncode == 0
    ours, theirs = doc_rows(plain), doc_rows(sgml)
    assert len(ours) == 2 * 10 * 2 and {d for _, d, _ in ours} == set(IDS)
    assert ours.keys() == theirs.keys()
    assert all(ours[k] == pytest.approx(theirs[k], abs=1e-9) for k in ours)


@pytest.mark.parametrize("column", ["docid", 2])
def test_a_tsv_column_holds_the_ids(tmp_path: Path, column: object) -> None:
    """``docids: {path, column}``: a header name (first line is the header) or a 1-based number."""
    source = RUEN / "docids.tsv"
    if isinstance(column, int):  # a number: every line is data, so drop the header
        source = tmp_path / "noheader.tsv"
        source.write_text("".join((RUEN / "docids.tsv").read_text(encoding="utf-8").splitlines(True)[1:]))
    config = ruen_config(tmp_path, {"path": str(source), "column": column}, metrics=["BLEU"])
    texts = load_texts(load(config))
    assert texts.documents.doc_ids == tuple(IDS) and len(texts.documents.documents) == 10
    assert all(t.documents.doc_ids == tuple(IDS) for t in texts.systems.values())


def test_the_bundled_docids_example_config(tmp_path: Path) -> None:
    text = (ROOT / "configs" / "example-docids.yaml").read_text(encoding="utf-8")
    config = tmp_path / "example-docids.yaml"
    config.write_text(text.replace("../demo-cache/wmt21-ruen-sample-docids", str(tmp_path / "c"))
                      .replace("../data/", str(RUEN.parent) + "/"), encoding="utf-8")
    assert load_texts(load(config)).documents.doc_ids == tuple(IDS)


def test_legacy_docids_key(tmp_path: Path) -> None:
    ids = one_id_a_line(tmp_path, IDS)
    config = tmp_path / "IQsetup.config"
    config.write_text(f"ref={RUEN / 'refs' / 'A.en'}\nsystem={RUEN / 'sys' / 'AFRL.en'}\ndocids={ids}\n"
                      f"cache={tmp_path / 'cache'}\ndoBLEU BLEU\n", encoding="utf-8")
    assert run("iqsetup", "-q", str(config)).returncode == 0
    assert {d for _, d, _ in doc_rows(config)} == set(IDS)


def test_new_document_ids_recompute_the_cache(tmp_path: Path) -> None:
    """Document scores depend on the ids: adding or changing docids recomputes; the same ids do not."""
    config = ruen_config(tmp_path, None, metrics=["BLEU"])
    assert run("iqsetup", "-q", str(config)).returncode == 0
    assert {d for _, d, _ in doc_rows(config)} == {"UNKNOWN_DOC"}
    config = ruen_config(tmp_path, str(one_id_a_line(tmp_path, IDS)), metrics=["BLEU"])
    first = run("iqsetup", str(config))
    assert "0 file(s) computed" not in first.stderr and " 0 up to date" in first.stderr, first.stderr
    assert "0 file(s) computed" in run("iqsetup", str(config)).stderr
    config = ruen_config(tmp_path, str(one_id_a_line(tmp_path, ["d1"] * 50 + ["d2"] * 55)), metrics=["BLEU"])
    assert " 0 up to date" in run("iqsetup", str(config)).stderr
    assert {d for _, d, _ in doc_rows(config)} == {"d1", "d2"}


@pytest.mark.parametrize(("ids", "fragments"), [
    (IDS + ["extra"], ("test.docids:106:", "has 106 document ids but the texts have 105 segments")),
    (IDS[:-1], ("test.docids:", "has 104 document ids but the texts have 105 segments")),
    (IDS[:3] + [""] + IDS[4:], ("test.docids:4:", "empty document id")),
    (IDS[:3] + ["   "] + IDS[4:], ("test.docids:4:", "empty document id")),
    (["a"] * 50 + ["b"] * 50 + ["a"] * 5, ("test.docids:101:", "document 'a' comes back", "end at line 50")),
    (["a\tb"] * 105, ("test.docids:1:", "holds a tab", "column")),
    (["x" * 201] * 105, ("test.docids:1:", "201 characters long")),
    (["a\x85b"] * 105, ("test.docids:1:", "U+0085")),
])
def test_bad_docids_files(tmp_path: Path, ids: list[str], fragments: tuple[str, ...]) -> None:
    config = ruen_config(tmp_path, str(one_id_a_line(tmp_path, ids)))
    assert_user_error(run("iqsetup", str(config)), *fragments)
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize(("docids", "fragments"), [
    ({"path": "x.tsv", "column": 0}, ("plain.yaml:", "key 'docids.column'", "expected a column number")),
    ({"path": "x.tsv", "column": True}, ("plain.yaml:", "key 'docids.column'")),
    ({"path": "x.tsv", "sep": ","}, ("plain.yaml:", "unknown key 'sep'")),
    ({"column": 2}, ("plain.yaml:", "key 'docids': expected a path")),
    ({"path": str(RUEN / "docids.tsv"), "column": "doc"}, ("docids.tsv:1:", "no column 'doc'")),
    ({"path": str(RUEN / "docids.tsv"), "column": 9}, ("docids.tsv:1:", "no column 9")),
    ("missing.docids", ("missing.docids:", "file not found")),
])
def test_bad_docids_keys(tmp_path: Path, docids: object, fragments: tuple[str, ...]) -> None:
    assert_user_error(run("iqsetup", str(ruen_config(tmp_path, docids))), *fragments)


def test_sgml_texts_keep_their_own_documents(tmp_path: Path) -> None:
    config = tmp_path / "sgml.yaml"
    config.write_text(yaml.safe_dump({
        "cache": str(tmp_path / "cache"), "references": {"A": {"path": str(RUEN / "sgml" / "refs.en.sgm"),
                                                               "sysid": "A"}},
        "systems": {"AFRL": str(RUEN / "sgml" / "AFRL.en.sgm")}, "metrics": ["BLEU"],
        "docids": str(one_id_a_line(tmp_path, IDS))}))
    assert_user_error(run("iqsetup", str(config)), "sgml.yaml:", "refs.en.sgm is SGML", "docids is for plain texts")


def test_tune_refuses_line_folds_without_documents(tmp_path: Path) -> None:
    """Plain texts without docids have one document: tune says so in one line, suggesting docids."""
    config = ende_config(tmp_path, metrics=["BLEU", "NIST"], sets={})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    result = run("mteval", "tune", str(config), "--assessments", str(ENDE / "human" / "mqm.tsv"), "-M", "BLEU,NIST")
    assert_user_error(result, "experiment.yaml:", "one document (UNKNOWN_DOC)", "docids: FILE", "--folds-by-line")
    assert not list((tmp_path / "cache").rglob("TUNED.xml"))


def test_tune_folds_are_the_documents(tmp_path: Path) -> None:
    config = ruen_config(tmp_path, {"path": str(RUEN / "docids.tsv"), "column": "docid"})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    experiment = load(config)
    folds = document_folds(experiment, load_texts(experiment))
    by_doc: dict[str, set[int]] = {}
    for doc, fold in zip(IDS, folds, strict=True):
        by_doc.setdefault(doc, set()).add(int(fold))
    assert all(len(f) == 1 for f in by_doc.values()) and set(np.unique(folds)) == {0, 1}
    result = run("mteval", "tune", str(config), "--assessments", str(RUEN / "human" / "da.tsv"), "-M", "BLEU,NIST",
                 "--unknown-systems", "skip")  # da.tsv also rates systems this experiment leaves out
    assert result.returncode == 0, result.stderr
    assert "judged segments; two-fold test correlation" in result.stdout


def test_folds_by_line_warn_loudly(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    experiment = load(ende_config(tmp_path, metrics=["BLEU"], sets={}))
    texts = load_texts(experiment)
    with pytest.raises(ConfigError, match="one document"):
        document_folds(experiment, texts)
    with caplog.at_level(logging.WARNING, logger="mteval"):
        folds = document_folds(experiment, texts, folds_by_line=True)
    assert list(folds[:4]) == [0, 1, 0, 1]
    assert any("FOLDS BY LINE" in r.getMessage() and "optimistic" in r.getMessage() for r in caplog.records)
