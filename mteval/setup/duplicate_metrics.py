"""Warn when two requested metrics give the same score on every segment by construction.

mteval derives every linguistic family from one parse per segment, where Asiya ran a tagger, a
chunker and a constituency parser of their own, so some of IQMT's measures coincide here:

* ``CP-Op(t)`` is ``SP-Op(t)`` (the tree's preterminals are the words' XPOS tags; since CP v2 every
  word is a leaf), and ``DP-Oc(t)`` is ``SP-Opu(t)`` (both overlap the words of UPOS t);
* where the backend has no XPOS tagset (XPOS is UPOS: natasha, spaCy's fr/es/cs models),
  ``SP-Op(t)`` is also ``SP-Opu(t)``;
* where the backend gives one tree and no arc scores (spaCy), every ``EDPM`` variant is its ``DPM``
  variant (docs/languages.md, "EDPM without arc scores").

Measured on 20 WMT21 ru-en (English) and WMT12 en-fr segments: these pairs, and no other among
SP/DP/CP/EDPM/DPM's aggregates, were equal on every segment. Each is computed as asked; one line
says which are equal, since a metric set (KING, ``-O``) or a learned combination that takes both
counts one twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from mteval.experiment.parser_labels import backend_labels
from mteval.metrics import registry

_PER_LABEL = re.compile(r"^(SP-Op|SP-Opu|CP-Op|DP-Oc)\((.+)\)$")
SHOWN = 4  # groups named before "and N more"
FAMILIES = ("SP", "CP", "DP", "EDPM", "DPM")
ALWAYS = {"CP-Op": "SP-Op", "DP-Oc": "SP-Opu"}  # measure -> the measure it equals, in every language


def _same(name: str, xpos_is_upos: bool, one_tree: bool) -> str:
    """The representative of the metrics that equal ``name`` (a canonical name) by construction."""
    m = _PER_LABEL.match(name)
    if m:
        measure, label = ALWAYS.get(m.group(1), m.group(1)), m.group(2)
        if xpos_is_upos and measure == "SP-Opu":
            measure = "SP-Op"
        return f"{measure}({label})"
    if one_tree and (name == "EDPM" or name.startswith("EDPM-")):
        return "DPM" + name[4:]
    return name


def duplicate_groups(names: Iterable[str], xpos_is_upos: bool = False, one_tree: bool = False) -> list[list[str]]:
    """The requested metrics (as written) that equal one another, in groups of two or more."""
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        if registry.is_metric(name):
            groups.setdefault(_same(registry.canonical(name), xpos_is_upos, one_tree), []).append(name)
    return [g for g in groups.values() if len(g) > 1]


def duplicate_warnings(names: Iterable[str], language: str, annotation: Mapping[str, Any] | None = None) -> list[str]:
    """One line naming the groups of requested metrics that are equal on every segment; none when none."""
    names = [n for n in names if registry.is_metric(n) and registry.family_of(n) in FAMILIES]
    if len(names) < 2:
        return []
    from mteval.annotate.layers.labels import UPOS_TAGS  # noqa: PLC0415 - only for these families

    described = backend_labels(language, annotation) if any(not n.startswith("DP") for n in names) else None
    xpos_is_upos = described is not None and described[1].xpos <= set(UPOS_TAGS)
    one_tree = described is not None and described[0].startswith("spacy ")
    groups = duplicate_groups(names, xpos_is_upos, one_tree)
    if not groups:
        return []
    listed = "; ".join(" = ".join(g) for g in groups[:SHOWN])
    if len(groups) > SHOWN:
        listed += f" and {len(groups) - SHOWN} more such groups"
    return [f"{listed}: equal on every segment by construction (one parse gives them; docs/linguistic-metrics.md): "
            f"a metric set (KING, -O) or a learned combination that takes both counts one twice"]
