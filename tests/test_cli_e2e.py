"""End to end: the installed iqsetup/iqeval commands as a user runs them."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared
from helpers import ROOT, RUEN, ende_config, run

from mteval.store.iqxml import parse


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("e2e")
    config = ende_config(tmp)
    result = run("iqsetup", str(config))
    assert result.returncode == 0, result.stderr
    return config


def tsv(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


def test_setup_writes_the_manual_layout(experiment: Path) -> None:
    cache = experiment.parent / "cache"
    for target, refset in [("UEdin", "A"), ("UEdin", "A_C_D"), ("A", "C"), ("C", "A_D"), ("Facebook-AI", "A_C")]:
        for metric in ("BLEU", "NIST", "BLEU-2"):
            assert (cache / target / refset / f"{metric}.xml").is_file(), (target, refset, metric)
    assert not (cache / "UEdin" / "Facebook-AI").exists()  # system/system only with -JACK
    scores = parse(cache / "UEdin" / "A" / "BLEU.xml").scores
    assert len(scores.segments) == 100 and 0 < scores.system < 1
    assert not list(cache.rglob("*.tmp"))


def test_rerun_computes_nothing_and_remake_recomputes(experiment: Path) -> None:
    again = run("iqsetup", str(experiment))
    assert again.returncode == 0 and "0 file(s) computed" in again.stderr, again.stderr
    remade = run("iqsetup", "-remake", "-q", str(experiment))
    assert remade.returncode == 0 and remade.stderr == ""


def test_changed_input_recomputes(tmp_path: Path) -> None:
    hyp = tmp_path / "sys.txt"
    shutil.copy(ROOT / "data" / "wmt21-ende-sample" / "sys" / "UEdin.de", hyp)
    config = ende_config(tmp_path, systems={"S": str(hyp)}, metrics=["BLEU"])
    assert run("iqsetup", "-q", str(config)).returncode == 0
    lines = hyp.read_text(encoding="utf-8").splitlines()
    lines[0] = "ganz anders"
    hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("iqsetup", str(config))
    assert "5 file(s) computed" in result.stderr, result.stderr  # S/A, S/C, S/D, S/A_C_D, S/A_C (set refs2)


def test_doOQ_matrix_system_level(experiment: Path) -> None:
    result = run("iqeval", "-doOQ", "-G", "sys", "-O", "0", str(experiment))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SYS", "BLEU", "NIST", "BLEU-2"]
    assert [ln.split()[0] for ln in lines[2:]] == ["Facebook-AI", "UEdin", "Online-W"]


def test_doOQ_tsv_matches_the_cache(experiment: Path) -> None:
    result = run("iqeval", "-doOQ", "-G", "sys", "--tsv", str(experiment))
    rows = tsv(result.stdout)
    assert list(rows[0]) == ["target", "refset", "metric", "level", "doc", "segment", "score", "aggregate"]
    row = next(r for r in rows if r["target"] == "UEdin" and r["metric"] == "NIST")
    cached = parse(experiment.parent / "cache" / "UEdin" / "A_C_D" / "NIST.xml").scores.system
    assert row["refset"] == "A_C_D" and float(row["score"]) == cached


def test_sets_and_segment_level_rankings(experiment: Path) -> None:
    result = run("iqeval", "-doOQ", "-G", "seg", "-O", "1", "-M", "m", "-S", "two", "-T", "segs", str(experiment))
    assert result.returncode == 0, result.stderr
    blocks = result.stdout.strip().split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["BLEU", "NIST"]
    assert len(blocks[0].splitlines()) == 3 + 2 * 4  # title, header, rule, then 2 systems x 4 segments
    scores = [float(line.split()[-1]) for line in blocks[0].splitlines()[3:]]
    assert scores == sorted(scores, reverse=True)


def test_json_with_references_and_reference_subset(experiment: Path) -> None:
    result = run("iqeval", "-doOQ", "-doref", "-R", "refs2", "-M", "BLEU", "--json", str(experiment))
    records = json.loads(result.stdout)
    targets = {(r["target"], r["refset"]) for r in records}
    assert ("UEdin", "A_C") in targets and ("A", "C") in targets and ("C", "A") in targets


def test_dropped_in_metric_appears(experiment: Path) -> None:
    cache = experiment.parent / "cache"
    for target in ("Facebook-AI", "UEdin", "Online-W"):
        folder = cache / target / "A_C_D"
        segments = "".join(f'<S n="{i}">{i / 1000}</S>' for i in range(1, 101))
        (folder / "MYMETRIC.xml").write_text(
            f'<IQ metric="MYMETRIC" ref="A_C_D" target="{target}" score="0.{len(target)}">{segments}</IQ>')
    result = run("iqeval", "-doOQ", "--tsv", str(experiment))
    rows = [r for r in tsv(result.stdout) if r["metric"] == "MYMETRIC"]
    assert {r["target"]: float(r["score"]) for r in rows} == {"Facebook-AI": 0.11, "UEdin": 0.5, "Online-W": 0.8}
    for target in ("Facebook-AI", "UEdin", "Online-W"):
        (cache / target / "A_C_D" / "MYMETRIC.xml").unlink()


def test_sgml_experiment_document_level(tmp_path: Path) -> None:
    config = tmp_path / "sgml.yaml"
    text = (ROOT / "configs" / "example-sgml.yaml").read_text(encoding="utf-8")
    text = text.replace("../demo-cache/wmt21-ruen-sample-sgml", str(tmp_path / "cache"))
    config.write_text(text.replace("../data/", str(RUEN.parent) + "/"), encoding="utf-8")
    assert run("iqsetup", "-q", str(config)).returncode == 0
    result = run("iqeval", "-doOQ", "-G", "doc", "-M", "BLEU", "--tsv", str(config))
    rows = tsv(result.stdout)
    assert len(rows) == 5 * 10 and rows[0]["doc"] == "kp.235560"


def test_legacy_config(tmp_path: Path) -> None:
    config = tmp_path / "legacy.config"
    text = (ROOT / "configs" / "legacy.config").read_text(encoding="utf-8")
    config.write_text(text.replace("../", str(ROOT) + "/").replace(str(ROOT) + "/demo-cache/legacy",
                                                                    str(tmp_path / "c")), encoding="utf-8")
    assert run("iqsetup", "-q", str(config)).returncode == 0
    result = run("iqeval", "-doOQ", "-M", "some_metrics", "-T", "some_segs", "--tsv", str(config))
    assert result.returncode == 0, result.stderr
    assert {r["metric"] for r in tsv(result.stdout)} == {"BLEU-4", "NIST-5"}


@needs_shared
def test_real_wmt17_sgml(tmp_path: Path) -> None:
    base = SHARED / "data" / "wmt17-enfi-sgml"
    config = tmp_path / "x.yaml"
    config.write_text(f"""
cache: {tmp_path / 'cache'}
references:
  ref: {base / 'sgm' / 'newstest2017-enfi-ref.fi.sgm'}
  refB: {base / 'sgm' / 'newstestB2017-enfi-ref.fi.sgm'}
systems:
  HY: {base / 'mt' / 'helsinki' / 'preMT-ensemble.sgm'}
metrics: [BLEU]
""", encoding="utf-8")
    assert run("iqsetup", "-q", str(config)).returncode == 0
    result = run("iqeval", "-doOQ", "-G", "doc", "--tsv", str(config))
    assert len(tsv(result.stdout)) == 148


def test_try_scores_a_new_system_only(experiment: Path, tmp_path: Path) -> None:
    copy = tmp_path / "again.txt"
    shutil.copy(ROOT / "data" / "wmt21-ende-sample" / "sys" / "UEdin.de", copy)
    cache = experiment.parent / "cache"
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*.xml")}
    tried = run("iqeval", "-TRYall", str(copy), "--tsv", str(experiment))
    assert tried.returncode == 0, tried.stderr
    assert all(p.stat().st_mtime_ns == t for p, t in before.items())  # nothing else recomputed
    assert {p.parts[-3] for p in cache.rglob("*.xml")} - {p.parts[-3] for p in before} == {"again"}
    original = run("iqeval", "-doOQ", "-doQUEEN", "-S", "UEdin", "--tsv", str(experiment))
    ours = {(r["metric"], r["score"]) for r in tsv(tried.stdout)}
    theirs = {(r["metric"], r["score"]) for r in tsv(original.stdout)}
    assert ours == theirs and any(m == "QUEEN" for m, _ in ours)
    clash = run("iqeval", "-TRY", str(copy), "--try-name", "UEdin", str(experiment))
    assert clash.returncode == 2 and "already a system" in clash.stderr


def test_tune_stores_a_learned_metric(experiment: Path) -> None:
    mqm = ROOT / "data" / "wmt21-ende-sample" / "human" / "mqm.tsv"
    result = run("mteval", "tune", str(experiment), "--assessments", str(mqm), "-M", "BLEU,NIST", "--name", "LEARNED",
                 "--folds-by-line", "--unknown-systems", "skip")  # plain text without docids: one document
    assert result.returncode == 0, result.stderr
    assert "mteval: warning: FOLDS BY LINE" in result.stderr
    assert "300 judged segments; two-fold test correlation" in result.stdout
    weights = {line.split()[0]: float(line.split()[1]) for line in result.stdout.splitlines() if line.startswith("  ")}
    cache = experiment.parent / "cache"
    learned = parse(cache / "UEdin" / "A_C_D" / "LEARNED.xml").scores
    bleu = parse(cache / "UEdin" / "A_C_D" / "BLEU.xml").scores.segments
    nist = parse(cache / "UEdin" / "A_C_D" / "NIST.xml").scores.segments
    expected = weights["BLEU"] * bleu + weights["NIST"] * nist
    assert abs(learned.segments - expected).max() < 1e-5 * (1 + abs(expected).max())  # weights printed with 6 digits
    assert (cache / "A" / "C" / "LEARNED.xml").is_file()  # reference pairs too, so QUEEN/KING can use it
    for path in cache.rglob("LEARNED.xml"):
        path.unlink()
