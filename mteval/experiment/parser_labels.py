"""The labels the experiment's parser can give, and the check of the per-label measures named with them.

The registered per-label variants use English label sets (:mod:`mteval.annotate.layers.labels`):
``SP-Op(t)``/``CP-Op(t)`` by Penn Treebank XPOS tag, ``DP-Or(t)`` by UD English-EWT relation,
``NE-Oe(t)``/``NE-Me(t)`` by entity type. Those measures also take any other label
(:func:`mteval.metrics.registry.open_label`: ``DP-Or(obl:mod)`` for French, ``NE-Oe(ADDRESS)``
for natasha), which the parser must be able to give: :func:`check_open_labels` refuses one it
cannot, in one line with the nearest labels it has, so that a misspelt label is not a measure that
scores 0 on every segment. Where the inventory is not known (Stanza's own models, ``model_paths``)
any label is taken.

The inventory comes without loading a model (:func:`backend_labels`): a spaCy model's ``meta.json``,
natasha's table, the embedded English models' training sets and entity tagger file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from mteval.errors import ConfigError, quote
from mteval.metrics import registry

if TYPE_CHECKING:  # the annotation layer is imported only when a per-label measure is named
    from mteval.annotate.backends.common import Labels

KINDS = {"SP-Op": "xpos", "CP-Op": "xpos", "DP-Or": "relations", "NE-Oe": "entities", "NE-Me": "entities"}
WHAT = {"xpos": "XPOS tag", "relations": "relation", "entities": "entity type"}


def backend_labels(language: str, annotation: Mapping[str, Any] | None = None) -> tuple[str, Labels] | None:
    """``(description, labels)`` of the experiment's annotation backend, or None when its inventory is
    not known (Stanza's own models or ``model_paths``; a backend or model that is not installed, which
    iqsetup refuses elsewhere). Read once per process and choice."""
    annotation = annotation or {}
    paths = annotation.get("model_paths") or {}
    return _backend_labels(language, annotation.get("backend"), annotation.get("model"),
                           annotation.get("processors"), tuple(sorted((str(k), str(v)) for k, v in paths.items())))


@cache
def _backend_labels(language: str, backend_name: str | None, model: str | None, processors: str | None,
                    model_paths: tuple[tuple[str, str], ...]) -> tuple[str, Labels] | None:
    """:func:`backend_labels` of one (language, backend, model, processors, model paths)."""
    from mteval.annotate import backends  # noqa: PLC0415 - only for per-label variants

    try:
        backend = backends.select(language, backend_name, model)
        if backend is not None:
            return f"{backend.name} {backend.model}", backend.labels()
        from mteval.annotate.stanza_adapter import embedded_labels  # noqa: PLC0415

        labels = embedded_labels(language, processors, dict(model_paths))
        return None if labels is None else ("stanza, embedded models", labels)
    except ConfigError:
        return None


def label_hint(kind: str, labels: Labels, missing: Iterable[str]) -> str:
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
    return f"its relations of those kinds: {', '.join(near)}"


def check_open_labels(names: Iterable[str], language: str, annotation: Mapping[str, Any] | None = None) -> None:
    """Refuse (ConfigError, one line) the first name ``PREFIX(label)`` that is not a registered variant
    and whose label the experiment's parser never gives (module docstring)."""
    opened = [(name, found) for name in names if (found := registry.open_label(name)) is not None
              and not _registered(name)]
    if not opened:
        return
    described = backend_labels(language, annotation)
    if described is None:
        return
    import difflib  # noqa: PLC0415 - only for a named label

    parser, labels = described
    for name, (prefix, label) in opened:
        kind = KINDS[prefix]
        have = getattr(labels, kind)
        if label not in have:
            close = difflib.get_close_matches(label, sorted(have), n=1, cutoff=0.6)
            hint = f"did you mean {quote(f'{prefix}({close[0]})')}?" if close else label_hint(kind, labels, [label])
            raise ConfigError(f"metric {quote(name)}: the {language} parser ({parser}) never gives the "
                              f"{WHAT[kind]} {quote(label)}, so it would score 0 on every segment; {hint}")


def _registered(name: str) -> bool:
    """Whether ``name`` is a registered variant or alias (an English label: no check here)."""
    return registry.canonical(name) in _variants()


@cache
def _variants() -> frozenset[str]:
    """Every registered variant name."""
    return frozenset(registry.all_variants())
