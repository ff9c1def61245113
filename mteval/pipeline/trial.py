"""IQeval's -TRY / -TRYoq / -TRYall (IQMT manual §4.2): score a new system output against the
experiment's references, computing only the new system's files (the rest of the cache is read,
never recomputed), then report QUEEN (-TRY), metrics outside QARLA (-TRYoq) or both (-TRYall)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mteval.errors import ConfigError
from mteval.pipeline.config import Experiment, TextSpec
from mteval.pipeline.setup import Progress, SetupReport, run_setup
from mteval.pipeline.texts import LoadedTexts, load_texts

TRY_ACTIONS = {"TRY": ("doQUEEN",), "TRYoq": ("doOQ",), "TRYall": ("doOQ", "doQUEEN")}


def with_trial_system(experiment: Experiment, path: str | Path, name: str | None = None) -> Experiment:
    """The experiment with one more system (named after the file unless ``name`` is given)."""
    path = Path(path)
    name = name or path.stem
    if name in experiment.system_names or name in experiment.reference_names:
        raise ConfigError(f"-TRY: name {name!r} is already a system or reference of the experiment; "
                          "give another with --try-name", experiment.config_path)
    return dataclasses.replace(experiment, systems=experiment.systems + (TextSpec(name, path),))


def score_trial(experiment: Experiment, name: str, progress: Progress | None = None
                ) -> tuple[LoadedTexts, SetupReport]:
    """Read every text (checking the new one aligns) and compute the new system's files only."""
    texts = load_texts(experiment)
    return texts, run_setup(experiment, texts, progress=progress, targets=(name,))
