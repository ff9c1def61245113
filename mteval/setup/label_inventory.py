"""Warn about metric variants whose label the language's parser never produces (docs/languages.md).

The per-label variants are registered from English label sets (:mod:`mteval.annotate.layers.labels`):
``SP-Op(t)`` and ``CP-Op(t)`` by Penn Treebank XPOS tag, ``DP-Or(t)`` by UD English-EWT relation,
``NE-Oe(t)``/``NE-Me(t)`` by Stanza's English entity types. Another language's backend has its own
labels: spaCy's fr/es/cs models and natasha have no XPOS tagset (XPOS is UPOS there), French writes
``obl:mod``/``aux:tense`` where English has ``obl``/``aux``, natasha's entities are ``PER``/``LOC``/
``ORG`` and the Czech model's ``PERSON``/``GPE``/.... A variant whose label never occurs scores 0 on
every segment, even for a text against itself (a segment without items scores 0, as in Asiya), so it
is computed as asked but one warning line names it, with the parser's own labels of that kind, which
the same measures take by name (``DP-Or(obl:mod)``; a name the parser cannot give is refused:
:mod:`mteval.experiment.parser_labels`, which also reads the labels without loading a model).
Stanza's own models and ``model_paths`` are not checked (their inventory is not read).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from mteval.experiment.parser_labels import KINDS, backend_labels, label_hint
from mteval.metrics import registry

if TYPE_CHECKING:  # the backends are imported only when a per-label variant is asked for
    from mteval.annotate.backends.common import Labels

# a per-label variant: the measure's prefix and its label, and which of Labels' sets the label is from
_VARIANT = re.compile(rf"^({'|'.join(map(re.escape, KINDS))})\((.+)\)$")
ORDER = ("xpos", "relations", "entities")
ALWAYS = {"*", "**", "O"}  # the aggregations, and NE-Oe(O): words outside entities
SHOWN = 6  # variants named before "and N more"


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


def _per_label(names: Iterable[str]) -> bool:
    """Whether ``names`` hold a per-label variant (module docstring; not an aggregate)."""
    return any((m := _VARIANT.match(registry.canonical(n))) and m.group(2) not in ALWAYS
               for n in names if registry.is_metric(n))


def _label(name: str) -> str:
    """The label of a per-label variant (module docstring)."""
    m = _VARIANT.match(registry.canonical(name))
    return m.group(2) if m else name


def label_warnings(names: Iterable[str], language: str, annotation: Mapping[str, Any] | None = None) -> list[str]:
    """One line naming the variants that will score 0 on every segment because the language's parser
    never produces their label; none when every label can occur or the backend is not checked."""
    names = list(names)
    if not _per_label(names):
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
    hints = "; ".join(label_hint(kind, labels, [_label(n) for n in found[kind]]) for kind in found)
    return [f"{', '.join(variants[:SHOWN])}{more}: 0 on every segment, since the {language} parser ({backend}) "
            f"never produces their label ({hints}; name the parser's own labels instead; docs/languages.md)"]


def labels_key(names: Iterable[str], language: str, annotation: Mapping[str, Any] | None = None) -> str:
    """What :func:`label_warnings` reads of the parser, for the key of the remembered warnings: its labels
    (an upgraded model with other labels is a new key), or "" when no per-label variant is named."""
    if not _per_label(names):
        return ""
    described = backend_labels(language, annotation)
    if described is None:
        return "unchecked"
    parser, labels = described
    return repr((parser, sorted(labels.xpos), sorted(labels.relations), sorted(labels.entities)))

