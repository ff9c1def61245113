"""Hostile learned-metric model files (issue 29, F07-F11, F14) and a failing ``mteval tune
--save-model`` (F09): each bad file is one line naming it (and the line, where known), exit 2, with
nothing written; a model file is replaced atomically, so a failed write keeps the previous one."""

from __future__ import annotations

import json
import math
import os
import resource
import signal
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import run
from test_bad_input import assert_user_error
from test_learned_metric import DA, SUBSET, experiment, line_of

from mteval.errors import ConfigError, InputError
from mteval.meta.learn import model_file
from mteval.meta.learn.linear_metric import LinearMetric
from mteval.meta.learn.model_file import MAX_DEPTH, ModelFile, read_model, write_model

FEATURES = ("BLEU", "NIST", "TER")
TRAIN = ("AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y")


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(training experiment with its features cached, the model file mteval tune wrote for it)."""
    tmp = tmp_path_factory.mktemp("hostile")
    train = experiment(tmp / "train", TRAIN, metrics=list(FEATURES))
    assert run("iqsetup", "-q", str(train)).returncode == 0
    path = tmp / "model.json"
    tuned = run("mteval", "tune", str(train), "--assessments", str(DA), "-M", ",".join(FEATURES), "--name", "TUNED",
                "--resamples", "20", "--save-model", str(path))
    assert tuned.returncode == 0, tuned.stderr
    return train, path


@pytest.fixture()
def body(trained: tuple[Path, Path]) -> dict[str, Any]:
    """A fresh copy of the good model file's JSON."""
    return json.loads(trained[1].read_text(encoding="utf-8"))


def refused_by_iqsetup(tmp_path: Path, bad: Path, *fragments: str) -> str:
    """iqsetup on an experiment naming ``bad`` under ``learned:`` stops with one line and writes nothing."""
    config = experiment(tmp_path / "apply", SUBSET, metrics=["BLEU"], learned={"RUEN": str(bad)})
    result = run("iqsetup", str(config))
    assert_user_error(result, str(bad), *fragments, f"declared at {config}:{line_of(config, 'RUEN:')})")
    assert not list((tmp_path / "apply").rglob("*.xml"))
    return result.stderr.strip()


def write(tmp_path: Path, body: dict[str, Any] | str) -> Path:
    bad = tmp_path / "bad.json"
    bad.write_text(body if isinstance(body, str) else json.dumps(body, indent=2), encoding="utf-8")
    return bad


def test_the_good_model_file_is_read(trained: tuple[Path, Path]) -> None:
    model = read_model(trained[1])
    assert model.metric.names == FEATURES and set(model.signatures) == set(FEATURES)
    assert model.training["identity"].endswith("@train") and model.validation


def test_a_feature_listed_twice_is_refused(tmp_path: Path, body: dict[str, Any]) -> None:
    """F07: the second weight of a feature was silently ignored (names.index finds the first)."""
    body["features"].append(dict(body["features"][0], weight=0.5))
    refused_by_iqsetup(tmp_path, write(tmp_path, body), "malformed learned-metric file: feature 'BLEU' listed twice")


def test_a_feature_listed_twice_under_two_spellings_is_refused(tmp_path: Path, body: dict[str, Any]) -> None:
    """'BLEU' and 'BLEU-4' are one metric: both weights would apply to the same cached scores."""
    body["features"].append(dict(body["features"][0], name="BLEU-4", weight=0.5))
    refused_by_iqsetup(tmp_path, write(tmp_path, body), "feature 'BLEU-4' listed twice (also as 'BLEU')")


NON_FINITE = {  # where -> (JSON literal, fragment of the error)
    "NaN weight": (("features", 0, "weight"), "NaN"),
    "Infinity weight": (("features", 1, "weight"), "Infinity"),
    "-Infinity mean": (("features", 0, "mean"), "-Infinity"),
    "overflowing scale": (("features", 2, "scale"), "1e999"),
    "NaN ridge": (("ridge",), "NaN"),
    "NaN l1_ratio": (("l1_ratio",), "NaN"),
    "NaN standardised weight": (("features", 0, "standardised_weight"), "NaN"),
    "NaN validation statistic": (("validation", 0, "ridge"), "NaN"),
    "Infinity in training": (("training", "points"), "Infinity"),
}


@pytest.mark.parametrize("case", NON_FINITE)
def test_non_finite_numbers_anywhere_are_refused_with_their_line(tmp_path: Path, body: dict[str, Any],
                                                                 case: str) -> None:
    """F08: a NaN weight gave system scores 0.0000, Infinity numpy warnings."""
    keys, literal = NON_FINITE[case]
    place: Any = body
    for key in keys[:-1]:
        place = place[key]
    place[keys[-1]] = "@@HERE@@"
    text = json.dumps(body, indent=2)
    line = text[:text.index('"@@HERE@@"')].count("\n") + 1
    bad = write(tmp_path, text.replace('"@@HERE@@"', literal))
    refused_by_iqsetup(tmp_path, bad, f"{bad}:{line}: non-finite number {literal} (a model holds finite numbers only")


@pytest.mark.parametrize("value, fragment", [("NaN", "'weight' of feature 'BLEU' is not a number ('NaN')"),
                                             (True, "'weight' of feature 'BLEU' is not a number (True)"),
                                             (10 ** 400, "'weight' of feature 'BLEU' is not a finite number")])
def test_a_weight_that_is_not_a_finite_json_number_is_refused(tmp_path: Path, body: dict[str, Any], value: Any,
                                                              fragment: str) -> None:
    body["features"][0]["weight"] = value
    refused_by_iqsetup(tmp_path, write(tmp_path, body), fragment)


SHAPES = {  # case -> (edit of the body, fragment of the error)
    "training a list": (lambda b: b.update(training=[["identity", "x"]]), "'training' is not a mapping ([['identity'"),
    "training a string": (lambda b: b.update(training="abc"), "'training' is not a mapping ('abc')"),
    "identity a number": (lambda b: b["training"].update(identity=7), "'identity' of 'training' is not a string"),
    "validation a mapping": (lambda b: b.update(validation={"fold": 1}), "'validation' is not a list of mappings"),
    "validation of numbers": (lambda b: b.update(validation=[1, 2]), "'validation' is not a list of mappings ([1, 2])"),
    "features a mapping": (lambda b: b.update(features={"BLEU": 1}), "no 'features' list"),
    "feature a string": (lambda b: b["features"].__setitem__(0, "BLEU"), "a feature is not a mapping with a 'name'"),
    "name a number": (lambda b: b["features"][0].update(name=5), "a feature is not a mapping with a 'name'"),
    "no weight": (lambda b: b["features"][0].pop("weight"), "no 'weight' of feature 'BLEU'"),
    "signature a list": (lambda b: b["features"][0].update(signature=["x"]), "'signature' of feature 'BLEU' is not"),
    "kind missing": (lambda b: b.pop("kind"), "'kind' is not a string"),
}


@pytest.mark.parametrize("case", SHAPES)
def test_fields_of_the_wrong_shape_are_one_line(tmp_path: Path, body: dict[str, Any], case: str) -> None:
    """F10: a ``training`` that is not a mapping or a ``validation`` that is not a list gave tracebacks."""
    edit, fragment = SHAPES[case]
    edit(body)
    refused_by_iqsetup(tmp_path, write(tmp_path, body), "malformed learned-metric file: " + fragment)


def nested(body: dict[str, Any], depth: int) -> str:
    """The model's JSON with ``training.deep`` nested so that the file is ``depth`` brackets deep."""
    text = json.dumps(dict(body, training=dict(body["training"], deep="@@HERE@@")))
    inner = depth - 2  # the file's { and training's {
    return text.replace('"@@HERE@@"', "[" * inner + "]" * inner)


def test_deep_nesting_is_refused_before_parsing(tmp_path: Path, body: dict[str, Any]) -> None:
    """F11: 100,000 nested brackets made json.loads raise RecursionError (a traceback)."""
    assert read_model(write(tmp_path, nested(body, MAX_DEPTH))).training["deep"]
    refused_by_iqsetup(tmp_path, write(tmp_path, nested(body, MAX_DEPTH + 1)),
                       f"nested too deeply (more than {MAX_DEPTH} levels of [ or {{)")
    refused_by_iqsetup(tmp_path, write(tmp_path, nested(body, 100_000)), "nested too deeply")
    body["features"][0]["signature"] = "[" * 10_000  # brackets inside strings do not count
    assert read_model(write(tmp_path, body)).signatures["BLEU"] == "[" * 10_000


def test_a_recursion_error_while_parsing_is_one_line(tmp_path: Path, body: dict[str, Any],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the depth check let a deep file through, json's RecursionError is still an InputError."""
    monkeypatch.setattr(model_file, "MAX_DEPTH", 10 ** 9)
    with pytest.raises(InputError, match="bad.json: not a readable learned-metric JSON file .*recursion"):
        read_model(write(tmp_path, nested(body, 100_000)))


def test_a_model_file_over_the_size_cap_is_refused_unread(tmp_path: Path, body: dict[str, Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """F14: a 300 MB model file was read (626 MB of memory); the size is checked before reading."""
    big = write(tmp_path, body)
    with big.open("r+b") as handle:  # sparse: no disk used
        handle.truncate(model_file.MAX_MODEL_BYTES + (1 << 20))
    refused_by_iqsetup(tmp_path, big, "is 17 MiB; a model file is limited to 16 MiB")
    monkeypatch.setattr(model_file, "MAX_MODEL_BYTES", 100)
    with pytest.raises(InputError, match="bad.json: is 0 MiB; a model file is limited to 0 MiB"):
        read_model(write(tmp_path, body))


def test_directories_and_fifos_are_refused_without_opening_them(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_model(tmp_path)
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)  # opening it for reading would block forever
    with pytest.raises(InputError, match="model.fifo: is a FIFO"):
        read_model(fifo)


def _small_files() -> None:
    """In the child: every write past 1 KB fails with EFBIG, as on a full disk (the model is 2.5 KB)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def test_a_failing_save_model_keeps_the_old_file_and_stores_nothing(tmp_path: Path,
                                                                   trained: tuple[Path, Path]) -> None:
    """F09: on a full disk the previous model became a truncated file, and the error named no file."""
    train, good = trained
    target = tmp_path / "model.json"
    target.write_bytes(good.read_bytes())
    result = subprocess.run(["mteval", "tune", str(train), "--assessments", str(DA), "-M", ",".join(FEATURES),
                             "--name", "TUNED2", "--resamples", "20", "--save-model", str(target)],
                            capture_output=True, text=True, timeout=300, preexec_fn=_small_files)
    assert_user_error(result, f"mteval: error: {target}: cannot write the model file: File too large")
    assert target.read_bytes() == good.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]  # no temporary file left
    assert not list((train / "cache").rglob("TUNED2.xml"))  # stored only with its model file
    folder = tmp_path / "folder.json"
    folder.mkdir()
    result = run("mteval", "tune", str(train), "--assessments", str(DA), "-M", ",".join(FEATURES),
                 "--name", "TUNED3", "--resamples", "20", "--save-model", str(folder))
    assert_user_error(result, f"{folder}: cannot write the model file: Is a directory")
    assert not list((train / "cache").rglob("TUNED3.xml"))


def test_write_model_is_atomic_and_writes_nan_statistics_as_null(tmp_path: Path, trained: tuple[Path, Path],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    good = read_model(trained[1])
    path = tmp_path / "model.json"
    model = ModelFile("M", good.metric, good.signatures, {"identity": "x@y", "points": math.inf},
                      [{"fold": "1", "learned:tau_b": math.nan}])
    write_model(path, model)
    assert '"learned:tau_b": null' in path.read_text(encoding="utf-8")
    assert read_model(path).training["points"] is None
    before = path.read_bytes()

    def full(target: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(model_file, "write_atomic", full)
    with pytest.raises(ConfigError, match="model.json: cannot write the model file: No space left on device"):
        write_model(path, model)
    assert path.read_bytes() == before
    metric = good.metric
    broken = LinearMetric(metric.names, np.array([np.nan, 1.0, 1.0]), metric.mean, metric.scale, metric.kind,
                          metric.objective)
    with pytest.raises(ConfigError, match="not written: the learned combination has a non-finite weight"):
        write_model(path, ModelFile("M", broken, {}, {}, []))
