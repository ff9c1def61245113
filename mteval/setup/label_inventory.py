"""Warn about metric variants whose label the language's parser never produces (docs/languages.md).

The per-label variants are registered from English label sets (:mod:`mteval.annotate.layers.labels`):
``SP-Op(t)`` and ``CP-Op(t)`` by Penn Treebank XPOS tag, ``DP-Or(t)`` by UD English-EWT relation,
``NE-Oe(t)``/``NE-Me(t)`` by Stanza's English entity types. Another language's backend has its own
labels: spaCy's fr/es/cs models and natasha have no XPOS tagset (XPOS is UPOS there), French writes
``obl:mod``/``aux:tense`` where English has ``obl``/``aux``, natasha's entities are ``PER``/``LOC``/
``ORG`` and the Czech model's ``PERSON``/``GPE``/.... A variant whose label never occurs scores 0 on
every segment, even for a text against itself (a segment without items scores 0, as in Asiya), so it
is computed as asked but one warning line names it. The labels come from the backend without loading
its models (:meth:`mteval.annotate.backends.Backend.labels`: a spaCy model's ``meta.json``, natasha's
table); Stanza (English, or a downloaded language) is not checked: its English sets are the registered
ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from mteval.errors import ConfigError
from mteval.metrics import registry

if TYPE_CHECKING:  # the backends are imported only when a per-label variant is asked for
    from mteval.annotate.backends.common import Labels

# a per-label variant: the measure's prefix and its label, and which of Labels' sets the label is from
_VARIANT = re.compile(r"^(SP-Op|CP-Op|DP-Or|NE-Oe|NE-Me)\((.+)\)$")
KINDS = {"SP-Op": "xpos", "CP-Op": "xpos", "DP-Or": "relations", "NE-Oe": "entities", "NE-Me": "entities"}
ORDER = ("xpos", "relations", "entities")
ALWAYS = {"*", "**", "O"}  # the aggregations, and NE-Oe(O): words outside entities
SHOWN = 6  # variants named before "and N more"


def backend_labels(language: str, annotation: Mapping[str, Any] | None = None) -> tuple[str, Labels] | None:
    """``(description, labels)`` of the experiment's annotation backend, or None when there is nothing
    to check (Stanza; a backend or model that is not installed, which iqsetup refuses elsewhere).
    Read once per process and choice (this module's and :mod:`.duplicate_metrics`' warnings share it)."""
    annotation = annotation or {}
    return _backend_labels(language, annotation.get("backend"), annotation.get("model"))


@cache
def _backend_labels(language: str, backend_name: str | None, model: str | None) -> tuple[str, Labels] | None:
    """:func:`backend_labels` of one (language, backend, model)."""
    from mteval.annotate import backends  # noqa: PLC0415 - only for per-label variants

    try:
        backend = backends.select(language, backend_name, model)
        if backend is None:
            return None
        return f"{backend.name} {backend.model}", backend.labels()
    except ConfigError:
        return None


def unproduced(names: Iterable[str], labels: Labels) -> dict[str, list[str]]:
    """The variants among ``names`` whose label is not in ``labels``, by label kind (module docstring)."""
    found: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        m = _VARIANT.match(registry.canonical(name)) if registry.is_metric(name) else None
        if m is None or m.group(2) in ALWAYS:
            continue
        kind = KINDS[m.group(1)]
        if m.group(2) not in getattr(labels, kind):
            found.setdefault(kind, []).append(name)
    return {kind: found[kind] for kind in ORDER if kind in found}


def _hint(kind: str, labels: Labels, missing: list[str]) -> str:
    """What the backend has instead of the ``missing`` labels of one kind."""
    from mteval.annotate.layers.labels import UPOS_TAGS  # noqa: PLC0415

    if kind == "xpos":
        if labels.xpos <= set(UPOS_TAGS):
            return "its XPOS tags are its UPOS tags: SP-Opu(t), DP-Oc(t)"
        return f"its XPOS tags: {', '.join(sorted(labels.xpos))}"
    if kind == "entities":
        return f"its entity types: {', '.join(sorted(labels.entities)) or 'none'}"
    bases = {label.split(":")[0] for label in missing}
    near = sorted(r for r in labels.relations if r.split(":")[0] in bases)
    if not near:
        return "no relation of those kinds"
    return f"its relations of those kinds, counted in DP-Or(*) only: {', '.join(near)}"


def _label(name: str) -> str:
    """The label of a per-label variant (module docstring)."""
    m = _VARIANT.match(registry.canonical(name))
    return m.group(2) if m else name


def label_warnings(names: Iterable[str], language: str, annotation: Mapping[str, Any] | None = None) -> list[str]:
    """One line naming the variants that will score 0 on every segment because the language's parser
    never produces their label; none when every label can occur or the backend is not checked."""
    names = list(names)
    if not any(_VARIANT.match(registry.canonical(n)) for n in names if registry.is_metric(n)):
        return []
    described = backend_labels(language, annotation)
    if described is None:
        return []
    backend, labels = described
    found = unproduced(names, labels)
    if not found:
        return []
    variants = [name for names_of_kind in found.values() for name in names_of_kind]
    more = f" and {len(variants) - SHOWN} more" if len(variants) > SHOWN else ""
    hints = "; ".join(_hint(kind, labels, [_label(n) for n in found[kind]]) for kind in found)
    return [f"{', '.join(variants[:SHOWN])}{more}: 0 on every segment, since the {language} parser ({backend}) "
            f"never produces their label ({hints}; docs/languages.md)"]
