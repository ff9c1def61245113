"""The validated experiment (:class:`Experiment` and the specs it holds), and the wording of the
problems a name can have (quoted for one-line messages)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mteval import names
from mteval.errors import ConfigError, quote
from mteval.metrics import registry


@dataclass(frozen=True)
class TextSpec:
    """Where one text is: a path, an optional format and an optional SGML ``sysid``."""

    name: str
    path: Path
    format: str | None = None
    sysid: str | None = None


@dataclass(frozen=True)
class DocidsSpec:
    """Where the document ids of plain texts are: one id a line, or one column of a TSV file
    (a 1-based number, or a name from the header line); see :func:`mteval.io.readers.read_docids`."""

    path: Path
    column: int | str | None = None


@dataclass(frozen=True)
class LearnedSpec:
    """A learned metric listed under ``learned:``: its name, its model file (``mteval tune
    --save-model``; read by iqsetup only, :mod:`mteval.setup.learned`) and the line declaring it."""

    name: str
    path: Path
    line: int | None = None


@dataclass(frozen=True)
class Experiment:
    """A validated experiment."""

    name: str
    config_path: Path
    cache: Path
    references: tuple[TextSpec, ...]
    systems: tuple[TextSpec, ...]
    metrics: tuple[str, ...]
    source: TextSpec | None = None
    language: str = "en"
    case_sensitive: bool | None = None  # None: each metric's reference default (mteval -c: cs; TER: ci)
    sets: dict[str, tuple[str, ...] | str] = field(default_factory=dict)
    annotation: dict[str, Any] = field(default_factory=dict)
    hybridize: dict[str, Any] | None = None  # validated by mteval.setup.hybrid.spec_of
    docids: DocidsSpec | None = None  # documents of plain texts (WMT's one-id-a-line file)
    jobs: int | None = None  # 'engine: {jobs: N}': iqsetup's worker processes (None: one per core)
    dask: str | None = None  # 'engine: {dask: ADDRESS}': a Dask scheduler (or 'local', or a scheduler file)
    learned: tuple[LearnedSpec, ...] = ()  # 'learned: {NAME: MODEL.json}' (docs/tuning.md)

    @property
    def reference_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.references)

    @property
    def system_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.systems)

    @property
    def learned_names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.learned)


# --- quoting values in messages ------------------------------------------------------------------

def value_kind(value: Any) -> str:
    """What YAML made of a value, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "a string" if isinstance(value, str) else f"a {type(value).__name__}"


def not_a_string(value: Any) -> str:
    """The problem of a value that must be a string but is not (with the hint to quote it)."""
    return f"{quote(value)} is not a string (YAML reads it as {value_kind(value)}); quote it, e.g. \"...\""


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be a system/reference name (:func:`mteval.names.name_problem`; values quoted
    short; non-strings refused with a hint to quote them), or None."""
    if not isinstance(name, str):
        return f"name {not_a_string(name)}"
    return names.name_problem(name)


def collision_problem(clash: tuple[str, str]) -> str:
    """The problem of two names that would share a cache folder."""
    return (f"names {quote(clash[0])} and {quote(clash[1])} differ only in case or Unicode form; they "
            "would share a cache folder on case-insensitive file systems")


def computable(experiment: Experiment) -> Experiment:
    """The experiment with only the metrics mteval computes (users' own metrics are cache files)."""
    known = []
    for name in experiment.metrics:
        try:
            registry.expand([name])
        except ConfigError:
            continue
        known.append(name)
    return dataclasses.replace(experiment, metrics=tuple(known))
