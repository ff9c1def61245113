"""No input of any kind hangs on a FIFO (issue 29, deliverable 3: "FIFOs refused everywhere"):
experiment files, IQeval.config and model files are refused by ``os.stat`` before anything opens
them. Texts, docids, judgements and learned-model files have their own cases
(test_input_corpus, test_assessments_hostile, test_model_file_hostile)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import ende_config, run

from mteval.annotate.stanza_adapter import _digest
from mteval.errors import ConfigError


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", [["iqsetup"], ["iqeval", "-doOQ"], ["mteval", "report"]])
def test_an_experiment_file_that_is_a_fifo_is_refused(command: list[str], fifo: Path) -> None:
    result = run(*command, str(fifo))  # run()'s timeout would end a hang; it answers at once
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().endswith(f"{fifo}: is a FIFO (named pipe), expected an experiment file")


def test_an_iqeval_config_that_is_a_fifo_is_refused(fifo: Path, tmp_path: Path) -> None:
    result = run("iqsetup", "-q", str(ende_config(tmp_path, metrics=["BLEU"])), str(fifo))
    assert result.returncode == 2 and "is a FIFO (named pipe)" in result.stderr, result.stderr


def test_a_model_file_that_is_a_fifo_is_refused_unopened(fifo: Path) -> None:
    with pytest.raises(ConfigError, match="is not a regular file"):
        _digest(fifo)
