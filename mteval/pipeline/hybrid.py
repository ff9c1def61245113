"""Syntactic reference hybridization as a reference set (Wang et al. 2009).

With ``hybridize: {name: HYB, references: [A, B], cap: 20}`` in the experiment, iqsetup parses
the references (annotation cache), projects each parse to phrase structure
(:func:`mteval.annotate.layers.phrase.project`), generates the extended references
(:func:`mteval.hybridize.generate.hybridize`) and scores every system against them as one more
reference set named ``HYB`` (``CACHE/SYSTEM/HYB/METRIC.xml``; ``iqeval -doOQ -R HYB``). The set
is K parallel texts ``HYB.1..HYB.K`` (K = the most references any segment has; a segment with
fewer repeats its references in turn), also written to ``CACHE/.hybrid/`` with their statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteval.errors import ConfigError, quote
from mteval.names import collisions
from mteval.pipeline.config import Experiment, collision_problem, name_problem

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


def build(spec: HybridSpec, annotations: Any, out_dir: Path) -> tuple[list[tuple[str, ...]], Any]:
    """Generate the hybridized set: (K parallel texts, the HybridResult). Writes the files."""
    from mteval.annotate.layers.phrase import project
    from mteval.hybridize.generate import hybridize, write_extended_references

    parsed = [annotations.sentences(r) for r in spec.references]
    result = hybridize(parsed, project, spec.cap)
    paths = write_extended_references(result, out_dir, spec.name)
    texts = [tuple(p.read_text(encoding="utf-8").split("\n")[:-1]) for p in paths]
    return texts, result


def read_generated(folder: Path, name: str) -> dict[str, list[str]]:
    """The texts iqsetup generated for a hybridized set, ``NAME.1`` .. ``NAME.K`` in ``folder``
    (``CACHE/.hybrid``), by file name, in order; empty when there are none."""
    texts = {}
    for k in range(1, 1000):
        path = folder / f"{name}.{k}"
        if not path.is_file():
            break
        texts[path.name] = path.read_text(encoding="utf-8").split("\n")[:-1]
    return texts


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
