"""The metric registry: family name -> family class, and variant name -> family name.

Families register explicitly with :func:`register` in their own module; the modules are listed in
``FAMILY_MODULES`` and imported lazily on first use, so that a lexical-only run never imports
the annotation layer.
"""

from __future__ import annotations

import importlib
from typing import Iterable

from mteval.errors import ConfigError
from mteval.metrics.base import MetricFamily

# Every module that registers families. Add one line per new family module.
FAMILY_MODULES: tuple[str, ...] = (
    "mteval.metrics.bleu_nist",
)

_FAMILIES: dict[str, type[MetricFamily]] = {}
_VARIANTS: dict[str, str] = {}
_loaded = False


def register(cls: type[MetricFamily]) -> type[MetricFamily]:
    """Class decorator: make a family and its variants selectable by name."""
    if cls.family in _FAMILIES and _FAMILIES[cls.family] is not cls:
        raise ValueError(f"metric family {cls.family!r} registered twice")
    _FAMILIES[cls.family] = cls
    for variant in cls.variants:
        owner = _VARIANTS.get(variant)
        if owner is not None and owner != cls.family:
            raise ValueError(f"metric {variant!r} claimed by {owner!r} and {cls.family!r}")
        _VARIANTS[variant] = cls.family
    return cls


def _load() -> None:
    global _loaded
    if not _loaded:
        for module in FAMILY_MODULES:
            importlib.import_module(module)
        _loaded = True


def families() -> dict[str, type[MetricFamily]]:
    """All registered families by name."""
    _load()
    return dict(_FAMILIES)


def all_variants() -> list[str]:
    """Every registered variant name, grouped by family."""
    _load()
    return list(_VARIANTS)


def family_of(name: str) -> str:
    """The family that computes a variant."""
    _load()
    try:
        return _VARIANTS[name]
    except KeyError:
        raise ConfigError(f"unknown metric {name!r}") from None


def expand(names: Iterable[str]) -> list[str]:
    """Expand family names into their variants, keep variant names; order kept, no duplicates.

    Raises :class:`ConfigError` for a name that is neither a family nor a variant.
    """
    _load()
    out: dict[str, None] = {}
    for name in names:
        if name in _VARIANTS:
            out[name] = None
        elif name in _FAMILIES:
            out.update(dict.fromkeys(_FAMILIES[name].variants))
        else:
            raise ConfigError(f"unknown metric {name!r}; known families: {', '.join(sorted(_FAMILIES))}")
    return list(out)


def group_by_family(variants: Iterable[str]) -> dict[str, list[str]]:
    """Requested variants grouped by the family that computes them."""
    groups: dict[str, list[str]] = {}
    for v in variants:
        groups.setdefault(family_of(v), []).append(v)
    return groups
