"""Loading an experiment file: YAML, IQMT's legacy ``key=value`` file, or an IQeval.config (a legacy
file with ``setup=``, read here as the experiment it names with its sets and metric list; written by
:mod:`mteval.experiment.legacy_eval_config`). Validation is :mod:`mteval.experiment.config`'s."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from mteval.errors import ConfigError, quote
from mteval.experiment.config import (
    check_set_names,
    from_mapping,
    is_legacy,
    legacy_to_mapping,
    parse_sets,
    resolve_path,
)
from mteval.experiment.safe_yaml import LinedMapping, line_of, load_yaml, read_config_text
from mteval.experiment.spec import Experiment
from mteval.metrics import registry
from mteval.names import check_component

ALLOWED = ("setup", "metrics", "sets", "references", "systems")  # legacy mapping keys an IQeval.config may fill


def load(path: str | Path) -> Experiment:
    """Load a YAML or legacy key=value experiment file, or an IQeval.config (a legacy file with
    ``setup=``: the experiment it names, with its sets and metric list; see
    :mod:`mteval.experiment.legacy_eval_config`)."""
    path = Path(path)
    text = read_config_text(path)
    if is_legacy(text, path):
        mapping = legacy_to_mapping(text, path)
        if "setup" in mapping:
            return overlay(mapping, path)
        return from_mapping(mapping, path)
    return from_mapping(load_yaml(text, path), path)


def overlay(mapping: LinedMapping, path: Path) -> Experiment:
    """The experiment an IQeval.config names (``setup=``), with its metric list and sets."""
    extra = [k for k in ALLOWED[3:] if mapping.get(k)] + [k for k in mapping if k not in ALLOWED]
    if extra:
        key = extra[0]
        where = line_of(mapping, key) or next(iter(getattr(mapping.get(key), "lines", {}).values()), None)
        raise ConfigError(f"key {quote(key)} belongs in the experiment file that setup= names; an "
                          "IQeval.config holds setup=, metrics= and sets", path, where)
    base_path = resolve_path(path.parent, mapping["setup"], "setup", path, line_of(mapping, "setup"))
    if base_path.resolve() == path.resolve():
        raise ConfigError("setup= names this file itself", path, line_of(mapping, "setup"))
    if is_eval_config(base_path):
        raise ConfigError(f"setup= names {base_path}, itself an IQeval.config; name the experiment file",
                          path, line_of(mapping, "setup"))
    base = load(base_path)
    metrics = _metric_list(mapping["metrics"], path, line_of(mapping, "metrics")) or base.metrics
    sets = {**base.sets, **parse_sets(mapping, path)}
    experiment = dataclasses.replace(base, metrics=metrics, sets=sets, config_path=path)
    check_set_names(experiment, mapping.get("sets"), path)
    return experiment


def is_eval_config(path: Path) -> bool:
    """Whether an experiment file is an IQeval.config (it names its experiment with a ``setup=`` line)."""
    try:
        text = read_config_text(path)
    except ConfigError:
        return False  # load() reports it
    return any(line.strip().lower().replace(" ", "").startswith("setup=") for line in text.splitlines())


def _metric_list(names: list[Any], path: Path, line: int | None) -> tuple[str, ...]:
    """``metrics=``: registered names (families expand) and the user's own metrics (cache files)."""
    out: dict[str, None] = {}
    for name in names:
        if not isinstance(name, str):  # a do<FAMILY> line
            raise ConfigError("do<FAMILY> lines belong in the experiment file that setup= names; an "
                              "IQeval.config lists metrics with metrics=", path, line)
        try:
            out.update(dict.fromkeys(registry.expand([name])))
        except ConfigError:
            problem = check_component(name)
            if problem is not None:
                raise ConfigError(f"key 'metrics': {problem}", path, line) from None
            out[name] = None  # a user's metric (manual §4.1.2): read from the cache, never computed
    return tuple(out)
