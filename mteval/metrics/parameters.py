"""Parametric metric names: ``VARIANT(key=value,...)``, the peers' options as metrics.

sacreBLEU, jiwer and rouge-score users select a computation by options (``--tokenize intl``,
``--chrf-beta 3``, ``-s floor``); mteval stores every score under a metric *name* (the cache file
``TARGET/REF/METRIC.xml``, the ``-M`` lists, QUEEN/KING's metric sets), so an option becomes part of
the name: ``sacreBLEU(tok=intl,smooth=floor)``, ``chrF(beta=3)``, ``TER(normalized=yes)``.

The rule (chosen so that one metric has exactly one name, hence one cache file):

- a family declares its :class:`Parameter` s (``MetricFamily.parameters``) and which of its
  variants take them (``MetricFamily.parametric``, all of them by default);
- ``VARIANT(k=v,...)`` is *canonical* with the keys in the family's declared order, every value in
  its normal spelling (``yes``/``no``, numbers as the family prints them) and the values equal to
  the default left out (the variant's own default where it has one: ``MetricFamily.variant_defaults``,
  chrF++'s ``word_order`` 2, chrF's 0); ``VARIANT()`` or only defaults is ``VARIANT`` itself. The
  registry's :func:`~mteval.metrics.registry.canonical` maps every spelling to that name;
- where two variants of a family can spell one computation, the family names one of them
  (``MetricFamily.canonical_name``): ``chrF(word_order=2)`` is ``chrF++``, ``chrF++(word_order=0)``
  is ``chrF``;
- an unknown key or a value out of range is a one-line :class:`~mteval.errors.ConfigError`
  naming the allowed keys or values.

Names like ``SP-Op(*)`` (the IQMT manual's) are not parametric: only a parenthesis holding
``key=value`` pairs is read as parameters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from mteval.errors import ConfigError, quote

_NAME = re.compile(r"(?P<base>.+?)\((?P<inside>[^()]*)\)")
_PAIR = re.compile(r"\s*(?P<key>[A-Za-z_][\w-]*)\s*=\s*(?P<value>[^=,\s]+)\s*")
_YES = {"yes": "yes", "true": "yes", "1": "yes", "on": "yes", "no": "no", "false": "no", "0": "no", "off": "no"}


@dataclass(frozen=True)
class Parameter:
    """One option of a parametric variant: ``kind`` is ``choice`` (one of ``choices``; ``yes``/``no``
    for a switch; ``aliases`` other spellings of a choice, ``(("spm", "flores101"),)``), ``int`` or
    ``float`` (within ``low``..``high``)."""

    name: str
    default: str
    kind: str = "choice"
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    help: str = ""
    aliases: tuple[tuple[str, str], ...] = ()

    def normal(self, value: str, metric: str) -> str:
        """``value`` in its one spelling, or a ConfigError naming what is allowed."""
        if self.kind == "choice":
            return self._choice(value, metric)
        try:
            number = int(value) if self.kind == "int" else float(value)
        except ValueError:
            raise ConfigError(f"metric {quote(metric)}: {self.name}={value} is not {_article(self.kind)} "
                              f"{'integer' if self.kind == 'int' else 'number'}") from None
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            raise ConfigError(f"metric {quote(metric)}: {self.name}={value} is outside {self.range()}")
        return str(number) if self.kind == "int" else repr(float(number))

    def _choice(self, value: str, metric: str) -> str:
        if self.choices == ("yes", "no") and value.lower() in _YES:
            return _YES[value.lower()]
        if value in self.choices:
            return value
        for alias, choice in self.aliases:
            if value == alias:
                return choice
        aliases = f" (or {', '.join(alias for alias, _ in self.aliases)})" if self.aliases else ""
        raise ConfigError(f"metric {quote(metric)}: {self.name}={value} is not one of "
                          f"{', '.join(self.choices)}{aliases}")

    def range(self) -> str:
        """The allowed values in words (for messages and ``mteval metrics --long``)."""
        if self.kind == "choice":
            return "|".join(self.choices) + "".join(f" ({alias}: {choice})" for alias, choice in self.aliases)
        low = "" if self.low is None else f"{self.low:g}"
        high = "" if self.high is None else f"{self.high:g}"
        return f"{self.kind} {low}..{high}"


def _article(kind: str) -> str:
    return "an" if kind == "int" else "a"


def split(name: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """``(base, ((key, value), ...))`` when ``name`` reads as ``BASE(k=v,...)`` (or ``BASE()``),
    else None (a plain name, or one like ``SP-Op(*)``)."""
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    inside = match["inside"].strip()
    if not inside:
        return match["base"], ()
    pairs = [_PAIR.fullmatch(piece) for piece in inside.split(",")]
    if not all(pairs):
        return None
    return match["base"], tuple((p["key"], p["value"]) for p in pairs if p is not None)


def canonical(base: str, pairs: tuple[tuple[str, str], ...], parameters: Mapping[str, Parameter]) -> str:
    """The one name of ``base`` with ``pairs``: declared order, normal values, defaults left out."""
    metric = f"{base}({','.join(f'{k}={v}' for k, v in pairs)})"
    if not parameters:
        raise ConfigError(f"metric {quote(base)} takes no parameters (as in {quote(metric)})")
    given: dict[str, str] = {}
    for key, value in pairs:
        if key not in parameters:
            raise ConfigError(f"metric {quote(metric)}: unknown parameter {quote(key)}; "
                              f"{quote(base)} takes {', '.join(parameters)}")
        if key in given:
            raise ConfigError(f"metric {quote(metric)}: parameter {quote(key)} given twice")
        given[key] = parameters[key].normal(value, metric)
    kept = [f"{k}={given[k]}" for k, p in parameters.items() if k in given and given[k] != p.normal(p.default, base)]
    return f"{base}({','.join(kept)})" if kept else base


def settings(variant: str, parameters: Mapping[str, Parameter]) -> tuple[str, dict[str, str]]:
    """``(base, every parameter's value)`` of a canonical variant, defaults filled in (a plain
    variant: every default)."""
    values = {k: p.normal(p.default, k) for k, p in parameters.items()}
    parsed = split(variant)
    if parsed is None or not parameters:
        return variant, values
    base, pairs = parsed
    values.update({k: parameters[k].normal(v, variant) for k, v in pairs if k in parameters})
    return base, values
