"""research/models/ship_long.py: shipping the long training's selected models, and checking what is shipped."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import ROOT, load_model_script

SPEC = importlib.util.spec_from_file_location("ship_long", ROOT / "research" / "models" / "ship_long.py")
ship_long = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ship_long)


def embedded(folder: Path) -> Path:
    folder.mkdir()
    for name in ("tokenize.pt", "pos.pt", "depparse.pt", "ner.npz"):
        (folder / name).write_bytes(f"old {name}".encode())
    ship_long.record(folder)
    return folder


def trained(work: Path, finished: bool = True) -> Path:
    for phase in ("pos", "depparse"):
        (work / phase).mkdir(parents=True)
        (work / phase / "best.pt").write_bytes(f"new {phase}".encode())
        if finished:
            (work / phase / "DONE.json").write_text(json.dumps({"phase": phase, "steps": 7}), encoding="utf-8")
    return work


def test_the_shipped_models_are_checked_against_their_record(tmp_path: Path) -> None:
    dest = embedded(tmp_path / "en_ewt")
    assert ship_long.verify(tmp_path / "work", dest) == []
    (dest / "pos.pt").write_bytes(b"tampered")
    (dest / "extra.pt").write_bytes(b"x")
    (dest / "ner.npz").unlink()
    problems = ship_long.verify(tmp_path / "work", dest)
    assert len(problems) == 3 and problems[0].startswith("pos.pt: SHA-256")
    assert "ner.npz: recorded but absent" in problems and "extra.pt: shipped but not recorded" in problems


def test_ship_copies_the_selected_models_and_records_their_training(tmp_path: Path) -> None:
    dest, work = embedded(tmp_path / "en_ewt"), trained(tmp_path / "work")
    provenance = ship_long.ship(work, dest)
    assert (dest / "pos.pt").read_bytes() == b"new pos" and (dest / "tokenize.pt").read_bytes() == b"old tokenize.pt"
    assert (dest / "pos.pt").stat().st_mode & 0o777 == 0o644
    assert provenance["trained"]["depparse.pt"] == {"phase": "depparse", "steps": 7}
    assert json.loads((dest / ship_long.PROVENANCE).read_text(encoding="utf-8")) == provenance
    assert ship_long.verify(work, dest) == []
    (work / "depparse" / "best.pt").write_bytes(b"a later best")  # the same run went on: not what is shipped
    later = work / "depparse" / "best.pt"
    assert ship_long.verify(work, dest) == [f"depparse.pt is not the recipe's selected model {later}"]
    assert not list(dest.glob(".*.tmp"))


def test_an_unfinished_phase_is_shipped_only_on_request(tmp_path: Path) -> None:
    dest, work = embedded(tmp_path / "en_ewt"), trained(tmp_path / "work", finished=False)
    with pytest.raises(SystemExit, match="the pos phase has not finished"):
        ship_long.ship(work, dest)
    assert (dest / "pos.pt").read_bytes() == b"old pos.pt"  # nothing copied
    assert ship_long.ship(work, dest, unfinished=True)["trained"]["pos.pt"] == {"unfinished": True}


def test_an_unfinished_phase_records_its_progress_and_the_next_sitting_counts_from_it(tmp_path: Path) -> None:
    """A sitting ships its best models so far, from two state folders; the next one starts from them and
    counts their steps from the record (train_long.base_steps)."""
    dest = embedded(tmp_path / "en_ewt")
    tagger, parser = trained(tmp_path / "tagger", finished=False), trained(tmp_path / "parser", finished=False)
    header = "step\ttotal_step\tUAS\tLAS\tbest\toptimizer\n"
    rows = ["0\t3000\t80.0\t78.3\t1\tadadelta", "200\t3200\t81.0\t79.1\t1\tadadelta",
            "400\t3400\t80.9\t79.0\t0\tadadelta"]
    (parser / "depparse" / "curve.tsv").write_text(header + "\n".join(rows) + "\n", encoding="utf-8")
    folders = {"pos": tagger, "depparse": parser}
    provenance = ship_long.ship(tmp_path / "unused", dest, unfinished=True, phase_work=folders)
    assert (dest / "depparse.pt").read_bytes() == b"new depparse" and (dest / "pos.pt").read_bytes() == b"new pos"
    assert provenance["trained"]["depparse.pt"] == {
        "unfinished": True, "phase": "depparse", "steps": 400, "total_steps": 3400, "best_step": 200,
        "best_total_step": 3200, "best_score": 79.1, "select": "LAS"}
    assert provenance["trained"]["pos.pt"] == {"unfinished": True}  # no curve: no progress to record
    train_long = load_model_script("train_long")
    assert train_long.base_steps("depparse", dest / "depparse.pt", shipped=dest) == 3200
    assert train_long.base_steps("pos", dest / "pos.pt", shipped=dest) == train_long.BASE_STEPS["pos"]
    assert train_long.base_steps("depparse", tmp_path / "other.pt", shipped=dest) == train_long.BASE_STEPS["depparse"]


def test_the_embedded_models_are_the_recorded_ones() -> None:
    """The repository's own models against its PROVENANCE.json (what make models-eval checks first)."""
    dest = ROOT / "mteval" / "resources" / "models" / "en_ewt"
    assert ship_long.verify(ROOT / "build" / "models-long", dest) == []


TOKENIZER_LOG = """2026-11-26 13:26:55 INFO: Step    500/ 20000 Loss: 0.031
2026-11-26 13:26:59 INFO: en_ewt: token F1 = 99.40, sentence F1 = 89.07, mwt F1 = 99.16
2026-11-26 13:26:59 INFO: Dev score: 93.975\tNew best dev score!
2026-11-26 13:28:39 INFO: Step   1000/ 20000 Loss: 0.026
2026-11-26 13:28:42 INFO: en_ewt: token F1 = 99.35, sentence F1 = 89.46, mwt F1 = 99.09
2026-11-26 13:28:42 INFO: Dev score: 94.171\tNew best dev score!
2026-11-26 13:30:34 INFO: Step   1500/ 20000 Loss: 0.031
2026-11-26 13:30:38 INFO: en_ewt: token F1 = 99.40, sentence F1 = 89.41, mwt F1 = 99.17
2026-11-26 13:30:38 INFO: Dev score: 94.162
"""


def test_ship_tokenizer_records_the_selected_step_and_keeps_the_other_records(tmp_path: Path) -> None:
    dest, work = embedded(tmp_path / "en_ewt"), trained(tmp_path / "work")
    ship_long.ship(work, dest)
    log, model = tmp_path / "tok.log", tmp_path / "tok.pt"
    log.write_text(TOKENIZER_LOG, encoding="utf-8")
    model.write_bytes(b"new tokenizer")
    provenance = ship_long.ship_tokenizer(model, log, dest)
    assert (dest / "tokenize.pt").read_bytes() == b"new tokenizer"
    record = provenance["trained"]["tokenize.pt"]
    assert (record["steps"], record["best_step"], record["best_score"]) == (1500, 1000, 94.171)
    assert (record["token_f1"], record["sentence_f1"]) == (99.35, 89.46)
    assert provenance["trained"]["pos.pt"] == {"phase": "pos", "steps": 7}
    assert ship_long.verify(work, dest) == []
    ship_long.ship(work, dest)  # a later ship of the tagger and parser keeps the tokenizer's record
    assert json.loads((dest / ship_long.PROVENANCE).read_text(encoding="utf-8"))["trained"]["tokenize.pt"] == record


def test_ship_tokenizer_refuses_a_log_without_a_dev_evaluation(tmp_path: Path) -> None:
    dest = embedded(tmp_path / "en_ewt")
    log, model = tmp_path / "tok.log", tmp_path / "tok.pt"
    log.write_text(TOKENIZER_LOG.splitlines()[0] + "\n", encoding="utf-8")
    model.write_bytes(b"new tokenizer")
    with pytest.raises(SystemExit, match="no dev evaluation"):
        ship_long.ship_tokenizer(model, log, dest)
    assert (dest / "tokenize.pt").read_bytes() == b"old tokenize.pt"


def test_ship_of_one_phase_keeps_the_other_file_and_record(tmp_path: Path) -> None:
    dest, work = embedded(tmp_path / "en_ewt"), trained(tmp_path / "work")
    ship_long.ship(work, dest)
    (work / "depparse" / "best.pt").write_bytes(b"jackknifed parser")
    provenance = ship_long.ship(work, dest, phases=("depparse",), note="jackknifed train tags")
    assert (dest / "depparse.pt").read_bytes() == b"jackknifed parser"
    assert (dest / "pos.pt").read_bytes() == b"new pos"
    assert provenance["trained"]["pos.pt"] == {"phase": "pos", "steps": 7}
    assert provenance["trained"]["depparse.pt"] == {"phase": "depparse", "steps": 7, "note": "jackknifed train tags"}
    assert ship_long.verify(work, dest) == []


def test_ship_of_a_checkpoint_average_records_the_newest_snapshot_and_the_average_s_dev_score(tmp_path: Path) -> None:
    dest, parser = embedded(tmp_path / "en_ewt"), trained(tmp_path / "parser", finished=False)
    header = "step\ttotal_step\tUAS\tLAS\tbest\toptimizer\n"
    rows = ["0\t3000\t80.0\t78.3\t1\tadam", "200\t3200\t81.0\t79.1\t1\tadam", "400\t3400\t80.9\t79.0\t0\tadam"]
    (parser / "depparse" / "curve.tsv").write_text(header + "\n".join(rows) + "\n", encoding="utf-8")
    (parser / "depparse" / "averaged.pt").write_bytes(b"averaged depparse")
    averaged = {"select": "LAS", "chosen_k": 2, "chosen": ["step-003200.pt", "step-003400.pt"],
                "dev": {"UAS": 81.2, "LAS": 79.3}, "searched": []}
    (parser / "depparse" / "averaged.json").write_text(json.dumps(averaged), encoding="utf-8")
    with pytest.raises(SystemExit, match="has not finished"):
        ship_long.ship(parser, dest, phases=("depparse",), averaged=True)
    provenance = ship_long.ship(parser, dest, unfinished=True, phases=("depparse",), averaged=True)
    assert (dest / "depparse.pt").read_bytes() == b"averaged depparse"
    assert provenance["trained"]["depparse.pt"] == {
        "unfinished": True, "phase": "depparse", "steps": 400, "total_steps": 3400, "best_step": 400,
        "best_total_step": 3400, "best_score": 79.3, "select": "LAS", "averaged": averaged}
    assert (dest / "pos.pt").read_bytes() == b"old pos.pt"
