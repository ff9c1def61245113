"""IQeval's -TRY / -TRYoq / -TRYall (IQMT manual §4.2): score a new system output against the
experiment's references, computing only the new system's files (the rest of the cache is read,
never recomputed), then report QUEEN (-TRY), metrics outside QARLA (-TRYoq) or both (-TRYall)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mteval.errors import ConfigError, quote
from mteval.experiment.hybrid_set import folder_names
from mteval.experiment.spec import Experiment, TextSpec, collision_problem, name_problem
from mteval.experiment.texts import LoadedTexts, load_texts
from mteval.names import collisions
from mteval.setup.run import Progress, SetupReport, run_setup

TRY_ACTIONS = {"TRY": ("doQUEEN",), "TRYoq": ("doOQ",), "TRYall": ("doOQ", "doQUEEN")}


def with_trial_system(experiment: Experiment, path: str | Path, name: str | None = None) -> Experiment:
    """The experiment with one more system (named after the file unless ``name`` is given). The
    name becomes a cache folder: it must pass :func:`mteval.names.name_problem` and clash with no
    other name of the experiment, not even up to case or Unicode form."""
    path = Path(path)
    if name:
        problem = name_problem(name)
        if problem is not None:
            raise ConfigError(f"--try-name: {problem}")
    else:
        name = path.stem
        problem = name_problem(name)
        if problem is not None:
            raise ConfigError(f"-TRY: system {problem} (taken from the file name); give one with --try-name", path)
    taken = folder_names(experiment)
    if name in taken:
        raise ConfigError(f"-TRY: name {quote(name)} is already a system or reference of the experiment; "
                          "give another with --try-name", experiment.config_path)
    clashes = collisions(taken + (name,))
    if clashes:
        raise ConfigError(f"-TRY: {collision_problem(clashes[0])}; give another with --try-name",
                          experiment.config_path)
    taken_metrics = experiment.metrics + experiment.learned_names
    if name in experiment.sets or name in taken_metrics:  # iqeval -S NAME would read the set
        raise ConfigError(f"-TRY: name {quote(name)} is a set or metric name of the experiment; give another "
                          "with --try-name", experiment.config_path)
    return dataclasses.replace(experiment, systems=experiment.systems + (TextSpec(name, path),))


def score_trial(experiment: Experiment, name: str, progress: Progress | None = None
                ) -> tuple[LoadedTexts, SetupReport]:
    """Read every text (checking the new one aligns) and compute the new system's files only."""
    texts = load_texts(experiment)
    return texts, run_setup(experiment, texts, progress=progress, targets=(name,))
