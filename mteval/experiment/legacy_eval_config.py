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

from mteval.errors import ConfigError, quote
from mteval.experiment.config import check_set_names, legacy_to_mapping, parse_sets
from mteval.experiment.safe_yaml import line_of, read_config_text
from mteval.experiment.spec import Experiment, computable
from mteval.files import write_atomic
from mteval.metrics import registry

MARK = "# --- your sets (iqsetup keeps the lines below this one) ---"
ALLOWED = ("setup", "metrics", "sets", "references", "systems")  # legacy mapping keys an IQeval.config may fill


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
