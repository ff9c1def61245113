"""Named sets for iqeval's -M -S -R -T options (IQeval.config's ``some_metrics=...``).

Metrics (-M) are matched by the metric they denote (:func:`mteval.metrics.registry.canonical`): a
name missing from the cache selects the cached file of another name of the same metric (``-M BLEU``
finds ``BLEU-4``), and a metric named twice, under one or two names, is kept once (the first
name; a second spelling is dropped with a warning), so KING and its optimisation never see one
metric twice. Without -M, the default list is de-duplicated the same way.

References (-R) are a set: a list or a named set is put in the experiment's order, each reference
once (``-R C,A`` is ``-R A,C``), the order iqsetup stores multi-reference sets under (``A_C``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from mteval.errors import ConfigError, quote
from mteval.metrics import registry
from mteval.pipeline.config import Experiment

_RANGE = re.compile(r"^\s*(\d+)\s*(?:(?:-|\.\.)\s*(\d+))?\s*$")


def _few(items: Sequence[str], limit: int = 10) -> str:
    """At most ``limit`` names, each cut short, for a one-line message."""
    listed = ", ".join(quote(str(item), 40).strip("'") for item in items[:limit])
    return listed + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def resolve(experiment: Experiment, option: str, value: str | None, universe: Sequence[str]) -> tuple[str, ...]:
    """Members of a named set (or a comma-separated list of names); all of ``universe`` when None.
    For -M, names are matched by metric; for -R, the members come in ``universe``'s order (module
    docstring)."""
    found = _resolve(experiment, option, value, universe)
    if option == "-R":
        return tuple(name for name in universe if name in found)
    return found


def _resolve(experiment: Experiment, option: str, value: str | None, universe: Sequence[str]) -> tuple[str, ...]:
    """:func:`resolve` before -R's ordering."""
    match = _metrics_in if option == "-M" else _members_in
    if value is None:
        return tuple(match(list(universe), universe)[0])
    members = experiment.sets.get(value)
    if members is None:
        literal = _split(value, _is_known(option, universe))
        found, unknown = match(literal, universe)
        if literal and not unknown:
            return tuple(found)
        close = difflib.get_close_matches(value, [*experiment.sets, *universe], n=3, cutoff=0.75)
        hint = f"; did you mean {' or '.join(quote(c) for c in close)}?" if close else ""
        raise ConfigError(f"{option} {quote(value)}: unknown set name{hint}; sets defined under 'sets': "
                          f"{_few(list(experiment.sets)) or 'none'}", experiment.config_path)
    if isinstance(members, str):
        members = tuple(m.strip() for m in members.split(",") if m.strip())
    found, unknown = match(list(members), universe)
    if unknown:
        raise ConfigError(f"set {quote(value)} ({option}) names unknown items {_few(unknown)}; known: "
                          f"{_few(universe)}", experiment.config_path)
    return tuple(found)


def _is_known(option: str, universe: Sequence[str]) -> Callable[[str], bool]:
    """Whether a name is in ``universe`` (for -M: or names one of its metrics)."""
    names = set(universe)
    if option != "-M":
        return names.__contains__
    metrics = {registry.canonical(u) for u in universe}
    return lambda name: name in names or registry.canonical(name) in metrics


def _split(value: str, known: Callable[[str], bool]) -> list[str]:
    """Comma-separated names; adjacent pieces that together form a ``known`` name stay one name
    (the manual's ``SR-Or,w-*``), the longest such run first."""
    parts = [p.strip() for p in value.split(",")]
    out, i = [], 0
    while i < len(parts):
        j = next((j for j in range(len(parts), i + 1, -1) if known(",".join(parts[i:j]))), i + 1)
        out.append(",".join(parts[i:j]))
        i = j
    return [name for name in out if name]


def _members_in(names: list[str], universe: Sequence[str]) -> tuple[list[str], list[str]]:
    """(names found in ``universe``, names not found), order kept."""
    known = set(universe)
    return [n for n in names if n in known], [n for n in names if n not in known]


def _metrics_in(names: list[str], universe: Sequence[str]) -> tuple[list[str], list[str]]:
    """(each metric once, as ``universe`` spells it; names of no metric in ``universe``)."""
    known = set(universe)
    spelled: dict[str, str] = {}
    for u in universe:
        spelled.setdefault(registry.canonical(u), u)
    found: list[str] = []
    unknown: list[str] = []
    for name in registry.dedupe(names):
        chosen = name if name in known else spelled.get(registry.canonical(name))
        (found if chosen is not None else unknown).append(chosen or name)
    return list(dict.fromkeys(found)), unknown


def parse_segments(spec: str | Sequence[str], n_segments: int, where: str = "segments") -> list[int]:
    """``"1-3, 10, 50..100"`` -> sorted 1-based segment numbers, each checked to be in 1..n."""
    parts = spec.split(",") if isinstance(spec, str) else [str(s) for s in spec]
    chosen: set[int] = set()
    for part in parts:
        if not part.strip():
            continue
        m = _RANGE.match(part)
        if m is None:
            raise ConfigError(f"{where}: {part.strip()!r} is not a segment number or range like 50-100")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if lo > hi:
            raise ConfigError(f"{where} {part.strip()}: reversed range; did you mean {hi}-{lo}?")
        if lo < 1 or hi > n_segments:
            raise ConfigError(f"{where}: range {part.strip()!r} is outside 1-{n_segments}")
        chosen.update(range(lo, hi + 1))
    return sorted(chosen)


def resolve_segments(experiment: Experiment, value: str | None, n_segments: int) -> list[int]:
    """Segments of a -T set name (or a literal range string); all when None."""
    if value is None:
        return list(range(1, n_segments + 1))
    spec = experiment.sets.get(value)
    if spec is None:
        if _RANGE.match(value.split(",")[0]):
            return parse_segments(value, n_segments, "-T")
        raise ConfigError(f"-T {value!r}: unknown set name; sets defined under 'sets': "
                          f"{', '.join(experiment.sets) or 'none'}", experiment.config_path)
    return parse_segments(spec, n_segments, f"set {value!r}")
