"""A learned metric listed in an experiment (issue 14 item 1.6): a model file written by ``mteval tune
--save-model`` on one experiment, named under ``learned:`` in another, computed by iqsetup (its
features first), shown by iqeval, recomputed when the model file or a feature's scores change; bad
model files and names are one line and exit 2, with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from helpers import RUEN, run
from test_bad_input import assert_user_error

from mteval.store.iqxml import parse

DA = RUEN / "human" / "da.tsv"
FEATURES = ("BLEU", "NIST", "TER")
SUBSET = ("Online-B", "Online-Y")
# every pair iqsetup plans for two systems and references A, B: each system against A, B and A_B,
# and each reference against the other
PAIRS = [(s, r) for s in SUBSET for r in ("A", "B", "A_B")] + [("A", "B"), ("B", "A")]


def experiment(folder: Path, systems: tuple[str, ...], references: tuple[str, ...] = ("A", "B"),
               **keys: Any) -> Path:
    """A ru-en sample experiment (documents from docids.tsv) in ``folder``, its cache inside it."""
    folder.mkdir(parents=True, exist_ok=True)
    config: dict[str, Any] = {
        "name": folder.name, "cache": str(folder / "cache"),
        "docids": {"path": str(RUEN / "docids.tsv"), "column": "docid"},
        "references": {r: str(RUEN / "refs" / f"{r}.en") for r in references},
        "systems": {s: str(RUEN / "sys" / f"{s}.en") for s in systems},
        **keys,
    }
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def line_of(path: Path, text: str) -> int:
    """The number of the first line of ``path`` that starts with ``text`` (after blanks)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if line.strip().startswith(text))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model file learned with mteval tune on the five judged ru-en systems (BLEU, NIST, TER)."""
    tmp = tmp_path_factory.mktemp("learned")
    train = experiment(tmp / "train", ("AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y"),
                       metrics=list(FEATURES))
    assert run("iqsetup", "-q", str(train)).returncode == 0
    path = tmp / "model.json"
    tuned = run("mteval", "tune", str(train), "--assessments", str(DA), "-M", ",".join(FEATURES), "--name", "TUNED",
                "--resamples", "20", "--save-model", str(path))
    assert tuned.returncode == 0, tuned.stderr
    return path


def summary(stderr: str) -> str:
    """iqsetup's last line: 'N file(s) computed, M up to date ...'."""
    return stderr.strip().splitlines()[-1].removeprefix("iqsetup: ")


def expected_scores(cache: Path, target: str, refset: str, body: dict[str, Any], spelled: dict[str, str]) -> np.ndarray:
    """The model's weights applied to the cached feature scores of a pair (recomputed from the JSON)."""
    return sum(f["weight"] * parse(cache / target / refset / f"{spelled.get(f['name'], f['name'])}.xml").scores.segments
               for f in body["features"])


def check_learned(cache: Path, model_path: Path, spelled: dict[str, str]) -> None:
    """RUEN.xml of every planned pair: the weighted sum of its features, with the model's signature."""
    body = json.loads(model_path.read_text(encoding="utf-8"))
    for target, refset in PAIRS:
        stored = parse(cache / target / refset / "RUEN.xml")
        assert np.allclose(stored.scores.segments, expected_scores(cache, target, refset, body, spelled),
                           rtol=1e-12, atol=0), (target, refset)
        assert stored.scores.system == pytest.approx(stored.scores.segments.mean())
        assert stored.signature.startswith(f"metric:RUEN|model:{model_path.name}:")
        assert stored.signature.endswith(f"|trained-on:{body['training']['identity']}")


def test_iqsetup_computes_a_listed_model_and_recomputes_it_when_needed(tmp_path: Path, model: Path) -> None:
    (tmp_path / "models").mkdir()
    local = tmp_path / "models" / "ruen.json"  # named relative to the experiment file
    local.write_bytes(model.read_bytes())
    config = experiment(tmp_path / "apply", SUBSET, metrics=["BLEU-4"], learned={"RUEN": "../models/ruen.json"})
    cache = tmp_path / "apply" / "cache"
    first = run("iqsetup", str(config))
    assert first.returncode == 0, first.stderr
    assert "learned metric RUEN: 8 pair(s) from BLEU-4, NIST, TER" in first.stderr
    assert "warning" not in first.stderr and summary(first.stderr).startswith("32 file(s) computed")
    assert sorted(p.relative_to(cache).parent.as_posix() for p in cache.rglob("RUEN.xml")) == sorted(
        f"{t}/{r}" for t, r in PAIRS)
    assert not list(cache.rglob("BLEU.xml"))  # the model's BLEU is the listed BLEU-4: computed once
    check_learned(cache, local, {"BLEU": "BLEU-4"})

    again = run("iqsetup", str(config))
    assert again.returncode == 0 and summary(again.stderr).startswith("0 file(s) computed, 32 up to date")

    shown = run("iqeval", "-doOQ", "-G", "sys", "--tsv", "-M", "RUEN,BLEU-4", str(config))
    assert shown.returncode == 0, shown.stderr
    header, *rows = [line.split("\t") for line in shown.stdout.splitlines()]
    scores = {tuple(r[:3]): float(r[header.index("score")]) for r in rows}
    stored = parse(cache / "Online-B" / "A_B" / "RUEN.xml").scores.system
    assert scores[("Online-B", "A_B", "RUEN")] == pytest.approx(stored)

    tried = run("iqeval", "-TRYoq", str(RUEN / "sys" / "AFRL.en"), "-G", "sys", str(config))  # a new system
    assert tried.returncode == 0 and tried.stdout.splitlines()[0].split() == ["SYS", "BLEU-4", "RUEN"], tried.stdout
    assert (cache / "AFRL" / "A_B" / "RUEN.xml").is_file()

    body = json.loads(local.read_text(encoding="utf-8"))
    for feature in body["features"]:
        feature["weight"] *= 2
    local.write_text(json.dumps(body, indent=2), encoding="utf-8")
    changed = run("iqsetup", str(config))
    assert changed.returncode == 0 and summary(changed.stderr).startswith("8 file(s) computed, 24 up to date")
    check_learned(cache, local, {"BLEU": "BLEU-4"})


def test_features_computed_otherwise_warn_once_and_recompute(tmp_path: Path, model: Path) -> None:
    """Case-insensitive BLEU and NIST here (trained case-sensitive): one warning line naming them;
    their new scores compute the learned metric again."""
    config = experiment(tmp_path / "ci", SUBSET, learned={"RUEN": str(model)})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    cache = tmp_path / "ci" / "cache"
    before = parse(cache / "Online-Y" / "A" / "RUEN.xml").scores.segments
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    config.write_text(yaml.safe_dump({**data, "case": "ci"}, sort_keys=False), encoding="utf-8")
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "the weights may not transfer" in warnings[0]
    assert "BLEU (case:ci here, case:cs in training)" in warnings[0] and "NIST (" in warnings[0]
    assert "TER (" not in warnings[0]  # TER is case-insensitive in both
    check_learned(cache, model, {})
    assert not np.allclose(parse(cache / "Online-Y" / "A" / "RUEN.xml").scores.segments, before)


def test_iqeval_warns_when_the_listed_model_is_evaluated_on_its_training_judgements(
        tmp_path: Path, model: Path) -> None:
    systems = ("AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y")  # -assessments: every judged system
    config = experiment(tmp_path / "same", systems, ("A",), learned={"RUEN": str(model)})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    result = run("iqeval", "-assessments", str(DA), "-G", "seg", "--corr", "pearson", "--resamples", "20",
                 "-M", "RUEN,NIST", str(config))
    assert result.returncode == 0, result.stderr
    assert "IN-SAMPLE: RUEN was learned" in result.stderr and "IN-SAMPLE: NIST" not in result.stderr


def _model_problem(tmp_path: Path, model: Path, case: str) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A broken ``learned:`` entry of kind ``case``, and the fragments its error line names."""
    bad = tmp_path / "bad.json"
    body = json.loads(model.read_text(encoding="utf-8"))
    if case == "missing":
        return {"RUEN": str(tmp_path / "nope.json")}, ("nope.json: model file not found",)
    if case == "not json":
        bad.write_text('{"format": "mteval-learned-metric",', encoding="utf-8")
        return {"RUEN": str(bad)}, ("bad.json: not a readable learned-metric JSON file",)
    if case == "malformed":
        body["features"][0].pop("weight")
        bad.write_text(json.dumps(body), encoding="utf-8")
        return {"RUEN": str(bad)}, ("bad.json: malformed learned-metric file",)
    if case == "unknown feature":
        body["features"][0]["name"] = "BLUE"
        bad.write_text(json.dumps(body), encoding="utf-8")
        return {"RUEN": str(bad)}, ("bad.json: feature metric 'BLUE' of the model is unknown", "did you mean 'BLEU'?")
    if case == "metric name":
        return {"NIST": str(model)}, ("key 'learned'", "'NIST' is the metric name 'NIST'")
    return {"chrf": str(model)}, ("key 'learned'", "'chrf' differs only in case from the metric name 'chrF'")


@pytest.mark.parametrize("case", ["missing", "not json", "malformed", "unknown feature", "metric name",
                                  "metric name in another case"])
def test_bad_model_files_and_names_are_one_line_and_nothing_is_written(tmp_path: Path, model: Path,
                                                                       case: str) -> None:
    learned, fragments = _model_problem(tmp_path, model, case)
    config = experiment(tmp_path / "bad", SUBSET, metrics=["BLEU"], learned=learned)
    line = line_of(config, f"{next(iter(learned))}:")
    in_config = case.startswith("metric name")  # the experiment file's error: FILE:LINE first
    where = f"{config}:{line}" + (": " if in_config else ")")
    result = run("iqsetup", str(config))
    assert_user_error(result, *fragments, where if in_config else f"declared at {where}")
    assert not (tmp_path / "bad" / "cache").exists() or not list((tmp_path / "bad" / "cache").rglob("*.xml"))


def test_learned_must_be_a_mapping_and_set_names_may_not_repeat_it(tmp_path: Path, model: Path) -> None:
    config = experiment(tmp_path / "list", SUBSET, learned=[str(model)])
    assert_user_error(run("iqsetup", str(config)), f"{config}:{line_of(config, 'learned:')}: key 'learned'",
                      "expected a mapping metric name -> model file")
    config = experiment(tmp_path / "set", SUBSET, learned={"RUEN": str(model)}, sets={"RUEN": ["Online-B"]})
    assert_user_error(run("iqsetup", str(config)), "key 'sets'",
                      "set name 'RUEN' is also a system, reference or metric")
    assert not list(tmp_path.rglob("*.xml"))
