"""Syntactic reference hybridization as a reference set (Wang et al. 2009).

With ``hybridize: {name: HYB, references: [A, B], cap: 20}`` in the experiment, iqsetup parses
the references (annotation cache), projects each parse to phrase structure
(:func:`mteval.annotate.layers.phrase.project`), generates the extended references
(:func:`mteval.hybridize.generate.hybridize`) and scores every system against them as one more
reference set named ``HYB`` (``CACHE/SYSTEM/HYB/METRIC.xml``; ``iqeval -doOQ -R HYB``). The set
is K parallel texts ``HYB.1..HYB.K`` (K = the most references any segment has; a segment with
fewer repeats its references in turn), also written to ``CACHE/.hybrid/`` (the texts only; ``mteval
hybridize`` prints the statistics).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mteval.experiment.hybrid_set import HybridSpec


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
