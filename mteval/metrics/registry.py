"""The metric registry: family name -> family class, and variant name -> family name.

Families register explicitly with :func:`register` in their own module; the modules are listed in
``FAMILY_MODULES`` and imported lazily on first use, so that a lexical-only run never imports
the annotation layer. Names are looked up in :mod:`mteval.metrics.catalog` (generated from the
registered families: ``python -m mteval.metrics.registry``; a test checks it is up to date), so
that :func:`create` imports only the module of the family it creates; :func:`families` (and a
catalog that does not match a family it imported) imports them all, and the registered tables
answer from then on.

Every metric has one *canonical* name (a registered variant) and possibly *aliases*
(:mod:`mteval.metrics.aliases`: the IQMT manual's spellings, duplicate names). :func:`expand`
keeps the user's spellings, one per canonical metric; :func:`canonical` gives the name a family
computes; families and groups expand to canonical variants only.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
from collections.abc import Iterable
from typing import Any

from mteval.errors import ConfigError, quote
from mteval.metrics import aliases, parameters
from mteval.metrics.base import MetricFamily

LOG = logging.getLogger(__name__)

# Every module that registers families. Add one line per new family module, then regenerate the
# catalog: python -m mteval.metrics.registry (tests/test_lazy_imports.py checks it is up to date).
FAMILY_MODULES: tuple[str, ...] = (
    "mteval.metrics.bleu_nist",
    "mteval.metrics.rouge",
    "mteval.metrics.rouge_scorer",
    "mteval.metrics.meteor",
    "mteval.metrics.chrf",
    "mteval.metrics.ter",
    "mteval.metrics.sacrebleu_bleu",
    "mteval.metrics.error_rates",
    "mteval.metrics.jiwer_measures",
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
_OPEN: dict[str, str] = {}  # open-label prefix (MetricFamily.open_labels) -> family
# ``PREFIX(label)``: a label is one token without parentheses, commas (they separate -M's names) or "="
_OPEN_NAME = re.compile(r"(?P<prefix>[^()]+)\((?P<label>[^\s(),=]+)\)")
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
    for prefix in cls.open_labels:
        owner = _OPEN.setdefault(prefix, cls.family)
        if owner != cls.family:
            raise ValueError(f"open labels {prefix!r} claimed by {owner!r} and {cls.family!r}")
    return cls


def _load() -> None:
    global _loaded
    if not _loaded:
        for module in FAMILY_MODULES:
            importlib.import_module(module)
        _in_module_order()
        _ALIASES.update(_checked_aliases())
        _loaded = True


def _in_module_order() -> None:
    """Register the families again in ``FAMILY_MODULES`` order (each module's in its own order),
    whichever was imported first (:func:`create` imports one module at a time): the tables, and
    what lists them, keep one order (others' families last, in the order they came)."""
    rank = {module: index for index, module in enumerate(FAMILY_MODULES)}
    classes = sorted(_FAMILIES.values(), key=lambda cls: rank.get(cls.__module__, len(rank)))  # stable
    _FAMILIES.clear()
    _VARIANTS.clear()
    _GROUPS.clear()
    _OPEN.clear()
    for cls in classes:
        register(cls)


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


def create(family: str, case_sensitive: bool | None = None, language: str | None = None,
           **options: Any) -> MetricFamily:
    """An instance of a family; ``case_sensitive=None`` keeps the family's own default. ``language``
    (the experiment's target language) reaches only the families whose resources depend on it
    (``MetricFamily.by_language``: METEOR, ROUGE), and only when it is not English, so that
    English signatures and caches stay as they were."""
    cls = _family_class(family)
    if case_sensitive is not None:
        options["case_sensitive"] = case_sensitive
    if language is not None and cls.by_language:
        from mteval.metrics.stemmers import base_language  # noqa: PLC0415 - the registry stays light

        if base_language(language) != "en":
            options["language"] = base_language(language)
    return cls(**options)


def _family_class(family: str) -> type[MetricFamily]:
    """A family's class, importing only its module when the catalog lists it as registered there."""
    if not _loaded:
        from mteval.metrics import catalog

        module = catalog.MODULES.get(family)
        if module is not None:
            importlib.import_module(module)
            cls = _FAMILIES.get(family)
            if cls is not None and _catalogued(cls):
                return cls
            LOG.debug("the metric catalog does not match family %s; loading every family", family)
    return families()[family]


def _catalogued(cls: type[MetricFamily]) -> bool:
    """Whether a registered family has the variants and groups the catalog gives it."""
    variants, groups, _ = _names()
    return ({v for v, f in variants.items() if f == cls.family} == set(cls.variants)
            and all(groups.get(g) == tuple(m) for g, m in getattr(cls, "groups", {}).items())
            and {p for p, f in _open_table().items() if f == cls.family} == set(cls.open_labels))


def _names() -> tuple[dict[str, str], dict[str, tuple[str, ...]], dict[str, str]]:
    """(variant -> family, group -> members, alias -> canonical variant): the registered tables once
    every family is loaded, else the catalog's (no family module imported)."""
    if _loaded:
        return _VARIANTS, _GROUPS, _ALIASES
    from mteval.metrics import catalog

    return catalog.VARIANTS, catalog.GROUPS, catalog.ALIASES


def _open_table() -> dict[str, str]:
    """Open-label prefix -> family: the registered table once every family is loaded, else the catalog's."""
    if _loaded:
        return _OPEN
    from mteval.metrics import catalog

    return catalog.OPEN_LABELS


def open_label(name: str) -> tuple[str, str] | None:
    """``(prefix, label)`` when ``name`` is ``PREFIX(label)`` for a per-label measure that takes any
    label (``MetricFamily.open_labels``: ``DP-Or(obl:mod)``, ``NE-Oe(ADDRESS)``), else None. The
    registered label sets are English (:mod:`mteval.annotate.layers.labels`); other parsers have
    labels of their own, which the experiment's check (``mteval.experiment.parser_labels``) holds
    against the parser's inventory where it is known. ``(*)``/``(**)`` are aggregates, not labels."""
    match = _OPEN_NAME.fullmatch(name)
    if match is None or not match["label"].strip("*") or match["prefix"] not in _open_table():
        return None
    return match["prefix"], match["label"]


def open_prefixes() -> list[str]:
    """The per-label measures that take any label (:func:`open_label`), in family order."""
    return list(_open_table())


def _family_variants(family: str) -> tuple[str, ...] | None:
    """A family's variants in registration order (None: no such family)."""
    if _loaded:
        return tuple(_FAMILIES[family].variants) if family in _FAMILIES else None
    from mteval.metrics import catalog

    if family not in catalog.MODULES:
        return None
    return tuple(v for v, f in catalog.VARIANTS.items() if f == family)


def all_variants() -> list[str]:
    """Every canonical variant name, grouped by family (aliases: :func:`alias_table`)."""
    variants, _, aliases = _names()
    return [v for v in variants if v not in aliases]


def alias_table() -> dict[str, str]:
    """Every alias -> the canonical variant it denotes."""
    return dict(_names()[2])


def canonical(name: str) -> str:
    """The variant a name denotes: an alias's canonical variant, a parametric name's canonical
    spelling (:mod:`mteval.metrics.parameters`), any other name itself (unchecked: users' own
    metrics in the cache keep their names)."""
    aliases = _names()[2]
    if name in aliases:
        return aliases[name]
    try:
        return _parametric(name) or name
    except ConfigError:
        return name


def _parametric(name: str) -> str | None:
    """The canonical spelling of ``VARIANT(k=v,...)`` when VARIANT is a known metric (None for
    any other name); a ConfigError when its parameters are not the family's."""
    parsed = parameters.split(name)
    if parsed is None:
        return None
    variants, _, aliases = _names()
    base = aliases.get(parsed[0], parsed[0])
    if base not in variants:
        return _parametric(name) if _load_on_miss() else None
    cls = _family_class(variants[base])
    return cls.canonical_name(base, parsed[1])


def family_of(name: str) -> str:
    """The family that computes a variant (or an alias or a parametric name of one)."""
    variants, _, aliases = _names()
    try:
        return variants[aliases.get(name, name)]
    except KeyError:
        spelled = _parametric(name)
        if spelled is not None:
            parsed = parameters.split(spelled)
            return _names()[0][parsed[0] if parsed else spelled]
        opened = open_label(name)
        if opened is not None:
            return _open_table()[opened[0]]
        if _load_on_miss():
            return family_of(name)
        raise ConfigError(f"unknown metric {quote(name)}{did_you_mean(name)}") from None


def is_metric(name: str) -> bool:
    """Whether ``name`` selects registered metrics: a variant, an alias, a family or group, or a
    valid parametric name."""
    variants, groups, aliases = _names()
    if (name in variants or name in aliases or name in groups or _family_variants(name) is not None
            or open_label(name) is not None):
        return True
    try:
        return _parametric(name) is not None
    except ConfigError:
        return False


def _load_on_miss() -> bool:
    """A name the catalog does not know: load every family (in case the catalog is out of date);
    True when that was not done yet (look again), False when the registered tables answered."""
    if _loaded:
        return False
    LOG.debug("a name not in the metric catalog; loading every family")
    _load()
    return True


def did_you_mean(name: str) -> str:
    """``"; did you mean 'X'?"`` for the closest known metric, family or alias names ("" if none)."""
    import difflib  # only for an unknown name

    variants, _, aliases = _names()
    known = list(dict.fromkeys([*variants, *aliases, *family_names()]))  # a name in two lists: offered once
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.75)
    return f"; did you mean {' or '.join(quote(c) for c in close)}?" if close else ""


def family_names() -> list[str]:
    """Names that select several variants: families and their groups (e.g. ``BLEU``, ``NIST``)."""
    if _loaded:
        return sorted(set(_FAMILIES) | set(_GROUPS))
    from mteval.metrics import catalog

    return sorted(set(catalog.MODULES) | set(catalog.GROUPS))


def variants_of(name: str) -> tuple[str, ...]:
    """All canonical variants of a family or group name."""
    _, groups, aliases = _names()
    members = groups[name] if name in groups else _family_variants(name)
    if members is None:
        if _load_on_miss():
            return variants_of(name)
        raise ConfigError(f"unknown metric family {quote(name)}{did_you_mean(name)}; known: "
                          f"{', '.join(family_names())}")
    own = [v for v in members if v not in aliases]
    return tuple(dict.fromkeys(own + [aliases[v] for v in members if v in aliases]))


def expand(names: Iterable[str]) -> list[str]:
    """Expand names into variants; order kept, one name per canonical metric.

    A name that is a variant or an alias stays itself, spelled as given (``BLEU`` is the metric
    BLEU-4 stored as ``BLEU``, as in Asiya); a family or group name that is not one expands to its
    canonical variants. A later name for a metric already selected is dropped (logged once when
    the user named both). Raises :class:`ConfigError` for an unknown name.
    """
    names = list(names)
    variants, groups, aliases = _names()
    out: dict[str, str] = {}  # canonical -> the spelling kept
    for name in names:
        if name in variants or name in aliases:
            _keep(out, name, explicit=True)
        elif (spelled := _parametric(name)) is not None:
            _keep(out, spelled, explicit=True)
        elif open_label(name) is not None:
            _keep(out, name, explicit=True)
        elif name in groups or _family_variants(name) is not None:
            for variant in variants_of(name):
                _keep(out, variant, explicit=False)
        elif _load_on_miss():
            return expand(names)
        else:
            raise ConfigError(f"unknown metric {quote(name)}{did_you_mean(name)}; known families: "
                              f"{', '.join(family_names())}")
    return list(out.values())


def _keep(out: dict[str, str], name: str, explicit: bool, done: str = "computed") -> None:
    """Add a spelling to :func:`expand`'s result unless its metric is already there."""
    key = canonical(name)
    kept = out.get(key)
    if kept is None:
        out[key] = name
    elif kept != name and explicit:
        LOG.warning("metric %s is the same as %s; %s once as %s", name, kept, done, kept)


def dedupe(names: Iterable[str], done: str = "used") -> list[str]:
    """Names in order, a later spelling of a metric already listed dropped (with a warning
    "... ``done`` once as ..."); names the registry does not know (users' own metrics) are kept."""
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


def catalog_text() -> str:
    """The source of :mod:`mteval.metrics.catalog` for the families as they register now."""
    _load()

    def literal(value: str | tuple[str, ...]) -> str:
        if isinstance(value, str):
            return json.dumps(value, ensure_ascii=False)  # a Python string literal too
        return "(" + "".join(f"\n        {literal(v)}," for v in value) + "\n    )"

    def table(name: str, kind: str, items: Iterable[tuple[str, Any]]) -> list[str]:
        return [f"{name}: {kind} = {{", *(f"    {literal(k)}: {literal(v)}," for k, v in items), "}", ""]

    return "\n".join([
        '"""The registry\'s names without importing the families (:mod:`mteval.metrics.registry`).',
        "",
        "Generated by ``python -m mteval.metrics.registry`` from the registered families: do not edit;",
        'run it again after changing a family\'s variants or groups, or the aliases."""',
        "",
        *table("MODULES", "dict[str, str]", ((f, c.__module__) for f, c in _FAMILIES.items())),
        *table("VARIANTS", "dict[str, str]", _VARIANTS.items()),
        *table("GROUPS", "dict[str, tuple[str, ...]]", _GROUPS.items()),
        *table("ALIASES", "dict[str, str]", _ALIASES.items()),
        *table("OPEN_LABELS", "dict[str, str]", _OPEN.items()),
    ])


if __name__ == "__main__":
    from pathlib import Path

    from mteval.metrics import registry as _registry  # the instance the families register with

    Path(_registry.__file__).with_name("catalog.py").write_text(_registry.catalog_text(), encoding="utf-8")


def higher_is_better(metric: str) -> bool:
    """Direction of a registered metric (an alias's or a parametric name's: its canonical variant's),
    importing its family alone; users' own metrics (cache files) are taken as similarities. The one
    direction rule of iqeval, the API, the report and tuning (tests/test_metric_direction.py)."""
    try:
        family = _family_class(family_of(metric))
    except ConfigError:
        return True
    return family().info(canonical(metric)).higher_is_better
