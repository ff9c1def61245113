"""IQMT's IQeval.config (manual §4.1-4.2): written by ``iqsetup IQsetup.config IQeval.config``,
read by iqeval (and every command that takes an experiment file).

The manual has IQsetup write "a configuration file [that] contains a series of predefined sets",
which the user edits "to define new sets" (``some_metrics= BLEU-4 NIST-5``) and to list their own
metrics (``metrics=... NEWMETRIC``, §4.1.2). Here the file is IQMT's ``key=value`` form:

- ``setup=FILE``: the experiment it belongs to (IQsetup.config, or a YAML experiment), relative
  to this file; every text, the cache and the language come from there;
- ``metrics=...``: the metrics iqeval shows without -M (registered names, and the user's own
  metrics, which are only read from the cache: §4.1.2);
- predefined sets: ``metrics_FAMILY=`` for every family computed, ``all_systems=``,
  ``all_refs=``, ``all_segs=1-N``; and the user's sets (``some_*=``, ``set_*=``, ``metrics_*=``).

Sets of the experiment file are kept; one defined in both files is IQeval.config's. iqsetup
rewrites the lines above the mark :data:`MARK` on every run and keeps the lines below it (the
user's sets); it refuses to overwrite a file without the mark (not one it wrote).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from mteval.errors import ConfigError, quote
from mteval.files import write_atomic
from mteval.metrics import registry
from mteval.names import check_component
from mteval.pipeline.config import Experiment, check_set_names, legacy_to_mapping, load, parse_sets, resolve_path
from mteval.pipeline.safe_yaml import LinedMapping, line_of, read_config_text

MARK = "# --- your sets (iqsetup keeps the lines below this one) ---"
ALLOWED = ("setup", "metrics", "sets", "references", "systems")  # legacy mapping keys an IQeval.config may fill


def overlay(mapping: LinedMapping, path: Path) -> Experiment:
    """The experiment an IQeval.config names (``setup=``), with its metric list and sets."""
    extra = [k for k in ALLOWED[3:] if mapping.get(k)] + [k for k in mapping if k not in ALLOWED]
    if extra:
        key = extra[0]
        where = line_of(mapping, key) or next(iter(getattr(mapping.get(key), "lines", {}).values()), None)
        raise ConfigError(f"key {quote(key)} belongs in the experiment file that setup= names; an "
                          "IQeval.config holds setup=, metrics= and sets", path, where)
    base_path = resolve_path(path.parent, mapping["setup"], "setup", path, line_of(mapping, "setup"))
    if base_path.resolve() == path.resolve():
        raise ConfigError("setup= names this file itself", path, line_of(mapping, "setup"))
    if is_eval_config(base_path):
        raise ConfigError(f"setup= names {base_path}, itself an IQeval.config; name the experiment file",
                          path, line_of(mapping, "setup"))
    base = load(base_path)
    metrics = _metric_list(mapping["metrics"], path, line_of(mapping, "metrics")) or base.metrics
    sets = {**base.sets, **parse_sets(mapping, path)}
    experiment = dataclasses.replace(base, metrics=metrics, sets=sets, config_path=path)
    check_set_names(experiment, mapping.get("sets"), path)
    return experiment


def is_eval_config(path: Path) -> bool:
    """Whether an experiment file is an IQeval.config (it names its experiment with a ``setup=`` line)."""
    try:
        text = read_config_text(path)
    except ConfigError:
        return False  # load() reports it
    return any(line.strip().lower().replace(" ", "").startswith("setup=") for line in text.splitlines())


def _metric_list(names: list[Any], path: Path, line: int | None) -> tuple[str, ...]:
    """``metrics=``: registered names (families expand) and the user's own metrics (cache files)."""
    out: dict[str, None] = {}
    for name in names:
        if not isinstance(name, str):  # a do<FAMILY> line
            raise ConfigError("do<FAMILY> lines belong in the experiment file that setup= names; an "
                              "IQeval.config lists metrics with metrics=", path, line)
        try:
            out.update(dict.fromkeys(registry.expand([name])))
        except ConfigError:
            problem = check_component(name)
            if problem is not None:
                raise ConfigError(f"key 'metrics': {problem}", path, line) from None
            out[name] = None  # a user's metric (manual §4.1.2): read from the cache, never computed
    return tuple(out)


def computable(experiment: Experiment) -> Experiment:
    """The experiment with only the metrics mteval computes (users' own metrics are cache files)."""
    known = []
    for name in experiment.metrics:
        try:
            registry.expand([name])
        except ConfigError:
            continue
        known.append(name)
    return dataclasses.replace(experiment, metrics=tuple(known))


def render(experiment: Experiment, setup_path: Path, out: Path, metrics: list[str], n_segments: int) -> str:
    """The generated part of IQeval.config (everything above :data:`MARK`, the mark included)."""
    setup = os.path.relpath(setup_path.resolve(), out.resolve().parent)
    lines = [
        f"# IQeval.config of experiment {experiment.name}, written by iqsetup (IQMT manual §4.1-4.2):",
        f"#   IQeval -doOQ -G sys -O 0 {out.name}",
        "# metrics= lists what IQeval shows without -M (add your own metrics' names, manual §4.1.2).",
        "# Define your sets below the mark, e.g.  some_metrics= BLEU-4 NIST-5  or  some_segs= 1-3, 10",
        f"setup={setup}",
        "metrics=" + " ".join(m for m in metrics if m.split() == [m]),  # a name with a space cannot be listed
    ]
    for family, variants in _families(computable(experiment).metrics).items():
        lines.append(f"metrics_{family}=" + " ".join(variants))
    lines += ["all_systems=" + " ".join(experiment.system_names),
              "all_refs=" + " ".join(experiment.reference_names),
              f"all_segs=1-{n_segments}", MARK]
    return "\n".join(lines) + "\n"


_SPLIT = {"mteval-v13a": ("NIST", "BLEU")}  # one family here, two in the manual (doBLEU, doNIST)


def _families(metrics: tuple[str, ...]) -> dict[str, list[str]]:
    """Variants by family, for the ``metrics_FAMILY=`` sets; a family that is two in the manual is
    split by name prefix (``BLEUi-2``: BLEU, ``NIST-5``: NIST)."""
    out: dict[str, list[str]] = {}
    for family, variants in registry.group_by_family(metrics).items():
        for variant in variants:
            label = next((p for p in _SPLIT.get(family, ()) if variant.lstrip("-").startswith(p)), None)
            out.setdefault(label or _SPLIT.get(family, (family,))[-1], []).append(variant)
    return out


def kept_lines(out: Path) -> str:
    """The user's lines of an earlier IQeval.config (below :data:`MARK`; "" when there is none);
    a :class:`ConfigError` for a file iqsetup did not write (called before computing anything)."""
    if not out.exists():
        return ""
    old = read_config_text(out)
    if MARK not in old:
        raise ConfigError(f"exists and was not written by iqsetup (no line {MARK!r}); move it away or "
                          "name another IQeval.config", out)
    head, tail = old.split(MARK, 1)
    return "\n" * (head.count("\n") + 1) + tail.lstrip("\n")  # blank lines keep the file's line numbers


def with_user_sets(experiment: Experiment, kept: str, out: Path) -> Experiment:
    """The experiment with the sets the user wrote in IQeval.config (so that iqsetup computes their
    reference sets for -doOQ -R); only sets may be written there."""
    mapping = legacy_to_mapping(kept, out)
    extra = [k for k, v in mapping.items() if k != "sets" and v]
    if extra:
        raise ConfigError(f"key {quote(extra[0])} below the mark; write only sets there (some_metrics= ...)",
                          out, line_of(mapping, extra[0]))
    sets = {**experiment.sets, **parse_sets(mapping, out)}
    result = dataclasses.replace(experiment, sets=sets)
    check_set_names(result, mapping.get("sets"), out)
    return result


def write_eval_config(experiment: Experiment, setup_path: Path, out: Path, metrics: list[str],
                      n_segments: int, kept: str) -> None:
    """Write IQeval.config atomically: the generated lines, then ``kept`` (:func:`kept_lines`)."""
    text = render(experiment, setup_path, out, metrics, n_segments) + kept.lstrip("\n")
    try:
        write_atomic(out, text.encode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot write: {exc.strerror or exc}", out) from None
