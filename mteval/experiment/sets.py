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
from mteval.experiment import doc_sets
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.metrics import registry

_RANGE = re.compile(r"^\s*(\d+)\s*(?:(?:-|\.\.)\s*(\d+))?\s*$")


def _few(items: Sequence[str], limit: int = 10) -> str:
    """At most ``limit`` names, each cut short, for a one-line message."""
    listed = ", ".join(quote(str(item), 40).strip("'") for item in items[:limit])
    return listed + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def resolve(experiment: Experiment, option: str, value: str | None, universe: Sequence[str]) -> tuple[str, ...]:
    """Members of a named set (or a comma-separated list of names); all of ``universe`` when None.
    For -M, names are matched by metric; for -R, the members come in ``universe``'s order (module
    docstring). A name given twice counts once (``-S A,B,A`` is ``A,B``)."""
    found = tuple(dict.fromkeys(_resolve(experiment, option, value, universe)))
    if option == "-R":
        return tuple(name for name in universe if name in found)
    return found


_KINDS = {"-M": "metric", "-S": "system", "-R": "reference"}  # what each option's list names


def _resolve(experiment: Experiment, option: str, value: str | None, universe: Sequence[str]) -> tuple[str, ...]:
    """:func:`resolve` before -R's ordering."""
    match = _metrics_in if option == "-M" else _members_in
    if value is None:
        return tuple(match(list(universe), universe)[0])
    members = experiment.sets.get(value)
    if members is None:
        return _listed(experiment, option, value, universe)
    if isinstance(members, str):
        members = tuple(m.strip() for m in members.split(",") if m.strip())
    found, unknown = match(list(members), universe)
    if unknown:
        uncomputed = _uncomputed(option, unknown)
        strangers = [name for name in unknown if name not in uncomputed]
        problems = [f"names unknown items {_few(strangers)}; known: {_few(universe)}"] if strangers else []
        problems += [_not_computed(uncomputed)] if uncomputed else []
        raise ConfigError(f"set {quote(value)} ({option}){' ' if strangers else ': '}" + "; ".join(problems),
                          experiment.config_path)
    return tuple(found)


def _listed(experiment: Experiment, option: str, value: str, universe: Sequence[str]) -> tuple[str, ...]:
    """The members of a name or comma-separated list that is no set name; else a one-line error
    that says which item is wrong and what the valid names are (:func:`_what_is_wrong`)."""
    match = _metrics_in if option == "-M" else _members_in
    known = _is_known(option, universe)
    literal = split_names(value, known)
    found, unknown = match(literal, universe)
    if literal and not unknown:
        return tuple(found)
    if option == "-M":  # a registered metric's own commas (SR-Or,w-*) kept together for the message
        joined = split_names(value, lambda name: known(name) or _registered(name))
        if match(joined, universe)[1]:
            literal, unknown = joined, match(joined, universe)[1]
    raise ConfigError(f"{option} {quote(value)}: {_what_is_wrong(experiment, option, literal, unknown, universe)}",
                      experiment.config_path)


def _what_is_wrong(experiment: Experiment, option: str, names: list[str], unknown: list[str],
                   universe: Sequence[str]) -> str:
    """Why a literal -M/-S/-R value selects nothing: the unknown item(s) of a list, a metric that
    iqsetup did not compute, and the valid names (and, for a single name, the set names)."""
    kind = _KINDS.get(option, "name")
    if not names:
        return f"no {kind} named"
    uncomputed = _uncomputed(option, unknown)
    strangers = [name for name in unknown if name not in uncomputed]
    problems: list[str] = []
    if strangers and len(names) == 1:
        problems.append(f"unknown set name or {kind}{_hint(strangers[0], [*experiment.sets, *universe])}")
    elif strangers:
        hint = _hint(strangers[0], universe) if len(strangers) == 1 else ""
        problems.append(f"unknown {kind}{'s' if len(strangers) > 1 else ''} {_quoted(strangers)}{hint}")
        sets = [name for name in strangers if name in experiment.sets]
        if sets:
            problems.append(f"{_quoted(sets)} {'is a set name' if len(sets) == 1 else 'are set names'}: "
                            f"a list takes {kind} names only")
    if uncomputed:
        problems.append(_not_computed(uncomputed))
    if strangers:
        problems.append(f"{kind}s: {_few(universe) or 'none'}")
    if strangers and len(names) == 1:
        problems.append(f"sets defined under 'sets': {_few(list(experiment.sets)) or 'none'}")
    return "; ".join(problems)


def _uncomputed(option: str, unknown: Sequence[str]) -> list[str]:
    """For -M, the ``unknown`` names that are registered metrics (known, but not computed here)."""
    return [name for name in unknown if option == "-M" and _registered(name)]


def _registered(name: str) -> bool:
    """Whether a name is a registered metric (a variant or an alias)."""
    try:
        registry.family_of(name)
    except ConfigError:
        return False
    return True


def _not_computed(names: Sequence[str]) -> str:
    """The advice for registered metrics that are neither in the experiment nor in the cache."""
    if len(names) == 1:
        return f"metric {quote(names[0])} is known but not in the cache: add it to metrics: and run iqsetup"
    return f"metrics {_quoted(names)} are known but not in the cache: add them to metrics: and run iqsetup"


def _quoted(items: Sequence[str], limit: int = 10) -> str:
    """At most ``limit`` names, quoted, for a one-line message."""
    listed = ", ".join(quote(str(item), 40) for item in items[:limit])
    return listed + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def _hint(name: str, candidates: Sequence[str]) -> str:
    """``"; did you mean 'X'?"`` for the closest of ``candidates`` ("" if none is close)."""
    close = difflib.get_close_matches(name, list(dict.fromkeys(candidates)), n=3, cutoff=0.75)
    return f"; did you mean {' or '.join(quote(c) for c in close)}?" if close else ""


def _is_known(option: str, universe: Sequence[str]) -> Callable[[str], bool]:
    """Whether a name is in ``universe`` (for -M: or names one of its metrics)."""
    names = set(universe)
    if option != "-M":
        return names.__contains__
    metrics = {registry.canonical(u) for u in universe}
    return lambda name: name in names or registry.canonical(name) in metrics


def split_names(value: str, known: Callable[[str], bool]) -> list[str]:
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


def resolve_segments(experiment: Experiment, value: str | None, n_segments: int,
                     texts: LoadedTexts | None = None) -> list[int]:
    """Segments of a -T set name, a set of the SGML documents' attributes (``origlang_en``:
    :mod:`mteval.experiment.doc_sets`; read from ``texts``) or a literal range string; all when None."""
    if value is None:
        return list(range(1, n_segments + 1))
    spec = experiment.sets.get(value)
    if spec is None:
        if _RANGE.match(value.split(",")[0]):
            return parse_segments(value, n_segments, "-T")
        candidates = [texts.source, *texts.references.values()] if texts is not None else []
        derived = doc_sets.resolve(value, texts.documents.doc_ids if texts else (), candidates, experiment.config_path)
        if derived is not None:
            return derived
        sets = list(experiment.sets)
        annotated = doc_sets.annotated(candidates)
        offered = doc_sets.names_of(annotated.doc_attributes, texts.documents.doc_ids) if annotated and texts else []
        raise ConfigError(f"-T {quote(value)}: unknown set name (or a range like '1-3,10')"
                          f"{_hint(value, sets + offered)}; sets defined under 'sets': {_few(sets) or 'none'}"
                          + (f"; sets of the SGML documents: {_few(offered)}" if offered else ""),
                          experiment.config_path)
    return parse_segments(spec, n_segments, f"set {value!r}")
