"""iqeval's selections (IQMT manual §4.2): the metrics (-M), systems (-S), references (-R), segments
(-T) and level (-G) a measure reads, resolved against the experiment's sets and the cache (users'
own metrics, dropped into the cache, are found there)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mteval.errors import CacheError, ConfigError
from mteval.experiment.hybrid_set import spec_of
from mteval.experiment.sets import resolve, resolve_segments
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.setup.text_warnings import scored_systems, shown_references, shown_variants, warnings_for
from mteval.store.cache import ScoreCache, refset_name

LEVELS = ("seg", "doc", "sys")
LOG = logging.getLogger(__name__)
Record = dict[str, Any]


@dataclass(frozen=True)
class Selection:
    """What -M -S -R -T -G -doref select."""

    metrics: tuple[str, ...]
    systems: tuple[str, ...]
    references: tuple[str, ...]
    segments: tuple[int, ...]
    level: str
    with_references: bool

    @property
    def rows(self) -> np.ndarray:
        """The selected segments (-T, 1-based) as 0-based row indices of the score arrays."""
        return rows_of(self.segments)


def default_metrics(experiment: Experiment, cache: ScoreCache,
                    available: list[tuple[str, str, str]] | None = None) -> list[str]:
    """The configured metrics (``learned:`` ones after the others), then any other metric found in
    the cache (users' own files); ``available`` is ``cache.available()`` when the caller already has it."""
    found = sorted({m for _, _, m in (cache.available() if available is None else available)})
    configured = list(dict.fromkeys(experiment.metrics + experiment.learned_names))
    return configured + [m for m in found if m not in configured]


def select(experiment: Experiment, cache: ScoreCache, n_segments: int, metrics: str | None = None,
           systems: str | None = None, references: str | None = None, segments: str | None = None,
           level: str = "sys", with_references: bool = False, texts: LoadedTexts | None = None) -> Selection:
    """Resolve the set options against the experiment (``texts``: for -T's sets of SGML document
    attributes, :mod:`mteval.experiment.doc_sets`)."""
    if level not in LEVELS:
        raise ConfigError(f"-G {level!r}: expected one of {', '.join(LEVELS)}")
    spec = spec_of(experiment)
    if spec is not None and references == spec.name:  # -R HYB: the hybridized reference set
        return dataclasses.replace(select(experiment, cache, n_segments, metrics, systems, None, segments, level,
                                          False, texts), references=(spec.name,))
    available = cache.available()  # one walk of the cache for the metric list and the check below
    sel = Selection(
        metrics=resolve(experiment, "-M", metrics, default_metrics(experiment, cache, available)),
        systems=resolve(experiment, "-S", systems, experiment.system_names),
        references=resolve(experiment, "-R", references, experiment.reference_names),  # default: the real ones
        segments=tuple(resolve_segments(experiment, segments, n_segments, texts)),
        level=level, with_references=with_references,
    )
    return sel if metrics else _complete_user_metrics(experiment, cache, set(available), sel, n_segments)


def _complete_user_metrics(experiment: Experiment, cache: ScoreCache, have: set[tuple[str, str, str]],
                           sel: Selection, n_segments: int) -> Selection:
    """Without -M, a metric found in the cache but not configured (a user's files) is shown only
    where every selected target has a file that reads; otherwise it is left out with one warning
    naming the first missing or unreadable file (with -M it is required: an error)."""
    rows = targets_and_refsets(sel)
    keep = []
    for metric in sel.metrics:
        configured = metric in experiment.metrics or metric in experiment.learned_names
        problem = None if configured else _user_metric_problem(cache, have, rows, metric, n_segments)
        if problem is None:
            keep.append(metric)
        else:
            LOG.warning("metric %r left out: %s (name it with -M to require it)", metric, problem)
    return dataclasses.replace(sel, metrics=tuple(keep))


def _user_metric_problem(cache: ScoreCache, have: set[tuple[str, str, str]], rows: list[tuple[str, str]],
                         metric: str, n_segments: int) -> str | None:
    """Why a user's metric cannot be shown: a (target, refset) without its file, or a file that
    cannot be read even by the tolerant reader of the manual's layout; None when it can."""
    missing = [(t, r) for t, r in rows if (t, r, metric) not in have]
    if missing:
        return "no file for " + ", ".join(f"{t}/{r}" for t, r in missing[:3]) + (" ..." if len(missing) > 3 else "")
    for target, refset in rows:
        try:
            cache.load(target, refset, metric, n_segments)
        except CacheError as exc:
            return exc.format()
    return None


def warnings_of(experiment: Experiment, texts: LoadedTexts, sel: Selection) -> list[str]:
    """The warnings about texts the selected metrics would read wrongly (:mod:`mteval.setup.text_warnings`),
    for the selected systems against the selected references: what iqsetup said when it computed them,
    said again wherever the scores are shown."""
    variants = shown_variants(sel.metrics, experiment.case_sensitive, experiment.language)
    scored = scored_systems(sel.systems, sel.references, texts)
    return warnings_for(variants, scored, texts, experiment.language, experiment.case_sensitive,
                        shown_references(sel.references, texts), experiment.annotation)


def warn_about_texts(experiment: Experiment, texts: LoadedTexts, sel: Selection) -> list[str]:
    """:func:`warnings_of`, each logged as one warning line; returned for a page that shows them too."""
    found = warnings_of(experiment, texts, sel)
    for line in found:
        LOG.warning(line)
    return found


def targets_and_references(sel: Selection) -> list[tuple[str, tuple[str, ...]]]:
    """(target, references) rows: systems against the selected references, and with -doref each
    reference against the other selected references."""
    rows = [(s, tuple(sel.references)) for s in sel.systems]
    if sel.with_references:
        for r in sel.references:
            others = tuple(o for o in sel.references if o != r)
            if others:
                rows.append((r, others))
    return rows


def targets_and_refsets(sel: Selection) -> list[tuple[str, str]]:
    """:func:`targets_and_references` with each reference set by its cache name."""
    return [(target, refset_name(refs)) for target, refs in targets_and_references(sel)]


def selected_files(sel: Selection) -> list[tuple[str, str, str]]:
    """The (target, refset, metric) of every file the selection's -doOQ rows read."""
    return [(target, refset, metric) for target, refset in targets_and_refsets(sel) for metric in sel.metrics]


def rows_of(segments: Sequence[int]) -> np.ndarray:
    """1-based segment numbers (-T) as 0-based row indices."""
    return np.asarray(segments, dtype=np.intp) - 1
