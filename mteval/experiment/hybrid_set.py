"""The hybrid reference set of an experiment (``hybridize:``; Wang et al. 2009): its validated spec,
and the names that become cache folders with it. The stage that builds it is
:mod:`mteval.setup.hybrid`."""

from __future__ import annotations

from dataclasses import dataclass

from mteval.errors import ConfigError, quote
from mteval.experiment.spec import Experiment, collision_problem, name_problem
from mteval.names import collisions

DEFAULT_NAME = "HYB"
DEFAULT_CAP = 20


@dataclass(frozen=True)
class HybridSpec:
    """Which references to hybridize, the cap on new references per segment, the set's name."""

    name: str
    references: tuple[str, ...]
    cap: int


def spec_of(experiment: Experiment) -> HybridSpec | None:
    """The experiment's hybridization request (validated), or None."""
    options = experiment.hybridize
    if options is None:
        return None
    where = experiment.config_path
    if not isinstance(options, dict):
        raise ConfigError("key 'hybridize': expected a mapping with name, references, cap", where)
    unknown = [quote(k) for k in options if k not in ("name", "references", "cap")]
    if unknown:
        raise ConfigError(f"key 'hybridize': unknown key {unknown[0]}; allowed: name, references, cap", where)
    name = _checked_name(options.get("name", DEFAULT_NAME), experiment)
    refs = options.get("references") or list(experiment.reference_names)
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        raise ConfigError(f"key 'hybridize.references': expected a list of reference names, got {quote(refs)}",
                          where)
    unknown_refs = [r for r in refs if r not in experiment.reference_names]
    if unknown_refs or len(refs) < 2:
        known = quote(list(experiment.reference_names))
        raise ConfigError(f"key 'hybridize.references': needs at least two of {known}", where)
    cap = options.get("cap", DEFAULT_CAP)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise ConfigError(f"key 'hybridize.cap': expected an integer >= 0, got {quote(cap)}", where)
    return HybridSpec(name, tuple(refs), cap)


def _checked_name(name: object, experiment: Experiment) -> str:
    """The hybrid set's name: a valid cache folder name without '_', used by no reference or system
    (not even up to case or Unicode form)."""
    where = experiment.config_path
    problem = name_problem(name)
    if problem is not None or not isinstance(name, str):
        raise ConfigError(f"key 'hybridize.name': {problem}", where)
    taken = experiment.reference_names + experiment.system_names
    if name in taken or "_" in name:
        raise ConfigError(f"key 'hybridize.name': {quote(name)} is taken or contains '_'", where)
    clashes = collisions(taken + (name,))
    if clashes:
        raise ConfigError(f"key 'hybridize.name': {collision_problem(clashes[0])}", where)
    return name


def folder_names(experiment: Experiment) -> tuple[str, ...]:
    """Every name of the experiment that becomes a cache folder: references, systems, hybrid set."""
    extra: tuple[str, ...] = ()
    if experiment.hybridize is not None:
        spec = spec_of(experiment)
        extra = (spec.name,) if spec is not None else ()
    return experiment.reference_names + experiment.system_names + extra
