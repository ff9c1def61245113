"""The metric registry: family name -> family class, and variant name -> family name.

Families register explicitly with :func:`register` in their own module; the modules are listed in
``FAMILY_MODULES`` and imported lazily on first use, so that a lexical-only run never imports
the annotation layer.

Every metric has one *canonical* name (a registered variant) and possibly *aliases*
(:mod:`mteval.metrics.aliases`: the IQMT manual's spellings, duplicate names). :func:`expand`
keeps the user's spellings, one per canonical metric; :func:`canonical` gives the name a family
computes; families and groups expand to canonical variants only.
"""

from __future__ import annotations

import difflib
import importlib
import logging
from collections.abc import Iterable
from typing import Any

from mteval.errors import ConfigError, quote
from mteval.metrics import aliases
from mteval.metrics.base import MetricFamily

LOG = logging.getLogger(__name__)

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
_ALIASES: dict[str, str] = {}  # alias -> canonical variant, built once every family is loaded
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
        _ALIASES.update(_checked_aliases())
        _loaded = True


def _checked_aliases() -> dict[str, str]:
    """The alias table, each alias in its canonical variant's family (a registry bug otherwise)."""
    table = aliases.build(_VARIANTS)
    for alias, target in table.items():
        owner = _VARIANTS.get(alias)
        if owner is not None and owner != _VARIANTS[target]:
            raise ValueError(f"metric alias {alias!r} of {owner!r} points into {_VARIANTS[target]!r}")
    return table


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
    """Every canonical variant name, grouped by family (aliases: :func:`alias_table`)."""
    _load()
    return [v for v in _VARIANTS if v not in _ALIASES]


def alias_table() -> dict[str, str]:
    """Every alias -> the canonical variant it denotes."""
    _load()
    return dict(_ALIASES)


def canonical(name: str) -> str:
    """The variant a name denotes: an alias's canonical variant, any other name itself (unchecked:
    users' own metrics in the cache keep their names)."""
    _load()
    return _ALIASES.get(name, name)


def family_of(name: str) -> str:
    """The family that computes a variant (or an alias of one)."""
    _load()
    try:
        return _VARIANTS[_ALIASES.get(name, name)]
    except KeyError:
        raise ConfigError(f"unknown metric {quote(name)}{did_you_mean(name)}") from None


def did_you_mean(name: str) -> str:
    """``"; did you mean 'X'?"`` for the closest known metric, family or alias names ("" if none)."""
    _load()
    known = list(dict.fromkeys([*_VARIANTS, *_ALIASES, *family_names()]))  # a name in two lists: offered once
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.75)
    return f"; did you mean {' or '.join(quote(c) for c in close)}?" if close else ""


def family_names() -> list[str]:
    """Names that select several variants: families and their groups (e.g. ``BLEU``, ``NIST``)."""
    _load()
    return sorted(set(_FAMILIES) | set(_GROUPS))


def variants_of(name: str) -> tuple[str, ...]:
    """All canonical variants of a family or group name."""
    _load()
    if name in _GROUPS:
        members = _GROUPS[name]
    elif name in _FAMILIES:
        members = _FAMILIES[name].variants
    else:
        raise ConfigError(f"unknown metric family {quote(name)}{did_you_mean(name)}; known: "
                          f"{', '.join(family_names())}")
    own = [v for v in members if v not in _ALIASES]
    return tuple(dict.fromkeys(own + [_ALIASES[v] for v in members if v in _ALIASES]))


def expand(names: Iterable[str]) -> list[str]:
    """Expand names into variants; order kept, one name per canonical metric.

    A name that is a variant or an alias stays itself, spelled as given (``BLEU`` is the metric
    BLEU-4 stored as ``BLEU``, as in Asiya); a family or group name that is not one expands to its
    canonical variants. A later name for a metric already selected is dropped (logged once when
    the user named both). Raises :class:`ConfigError` for an unknown name.
    """
    _load()
    out: dict[str, str] = {}  # canonical -> the spelling kept
    for name in names:
        if name in _VARIANTS or name in _ALIASES:
            _keep(out, name, explicit=True)
        elif name in _GROUPS or name in _FAMILIES:
            for variant in variants_of(name):
                _keep(out, variant, explicit=False)
        else:
            raise ConfigError(f"unknown metric {quote(name)}{did_you_mean(name)}; known families: "
                              f"{', '.join(family_names())}")
    return list(out.values())


def _keep(out: dict[str, str], name: str, explicit: bool, done: str = "computed") -> None:
    """Add a spelling to :func:`expand`'s result unless its metric is already there."""
    key = _ALIASES.get(name, name)
    kept = out.get(key)
    if kept is None:
        out[key] = name
    elif kept != name and explicit:
        LOG.warning("metric %s is the same as %s; %s once as %s", name, kept, done, kept)


def dedupe(names: Iterable[str], done: str = "used") -> list[str]:
    """Names in order, a later spelling of a metric already listed dropped (with a warning
    "... ``done`` once as ..."); names the registry does not know (users' own metrics) are kept."""
    _load()
    out: dict[str, str] = {}
    for name in names:
        _keep(out, name, explicit=True, done=done)
    return list(out.values())


def group_by_family(variants: Iterable[str]) -> dict[str, list[str]]:
    """Requested variants (or aliases) grouped by the family that computes them."""
    groups: dict[str, list[str]] = {}
    for v in variants:
        groups.setdefault(family_of(v), []).append(v)
    return groups
