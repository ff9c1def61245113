"""The metric registry: family name -> family class, and variant name -> family name.

Families register explicitly with :func:`register` in their own module; the modules are listed in
``FAMILY_MODULES`` and imported lazily on first use, so that a lexical-only run never imports
the annotation layer.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from mteval.errors import ConfigError
from mteval.metrics.base import MetricFamily

# Every module that registers families. Add one line per new family module.
FAMILY_MODULES: tuple[str, ...] = (
    "mteval.metrics.bleu_nist",
    "mteval.metrics.rouge",
    "mteval.metrics.meteor",
    "mteval.metrics.chrf",
    "mteval.metrics.ter",
    "mteval.metrics.error_rates",
    "mteval.metrics.gtm",
    "mteval.metrics.edpm",
    "mteval.metrics.sepia",
    "mteval.metrics.shallow_syntax",
    "mteval.metrics.dependency",
    "mteval.metrics.constituency",
    "mteval.metrics.entities",
    "mteval.metrics.semantic_roles",
    "mteval.metrics.cesm",
)

_FAMILIES: dict[str, type[MetricFamily]] = {}
_VARIANTS: dict[str, str] = {}
_GROUPS: dict[str, tuple[str, ...]] = {}
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
    for group, members in getattr(cls, "groups", {}).items():
        _GROUPS[group] = tuple(members)
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


def create(family: str, case_sensitive: bool | None = None, **options: Any) -> MetricFamily:
    """An instance of a family; ``case_sensitive=None`` keeps the family's own default."""
    cls = families()[family]
    if case_sensitive is not None:
        options["case_sensitive"] = case_sensitive
    return cls(**options)


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


def family_names() -> list[str]:
    """Names that select several variants: families and their groups (e.g. ``BLEU``, ``NIST``)."""
    _load()
    return sorted(set(_FAMILIES) | set(_GROUPS))


def variants_of(name: str) -> tuple[str, ...]:
    """All variants of a family or group name."""
    _load()
    if name in _GROUPS:
        return _GROUPS[name]
    if name in _FAMILIES:
        return _FAMILIES[name].variants
    raise ConfigError(f"unknown metric family {name!r}; known: {', '.join(family_names())}")


def expand(names: Iterable[str]) -> list[str]:
    """Expand names into variants; order kept, no duplicates.

    A name that is a variant stays itself (``BLEU`` is the variant BLEU, as in Asiya); a family or
    group name that is not a variant expands to all its variants. Raises :class:`ConfigError` for an
    unknown name.
    """
    _load()
    out: dict[str, None] = {}
    for name in names:
        if name in _VARIANTS:
            out[name] = None
        elif name in _GROUPS or name in _FAMILIES:
            out.update(dict.fromkeys(variants_of(name)))
        else:
            raise ConfigError(f"unknown metric {name!r}; known families: {', '.join(family_names())}")
    return list(out)


def group_by_family(variants: Iterable[str]) -> dict[str, list[str]]:
    """Requested variants grouped by the family that computes them."""
    groups: dict[str, list[str]] = {}
    for v in variants:
        groups.setdefault(family_of(v), []).append(v)
    return groups
