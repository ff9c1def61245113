"""The tuning report: test-fold statistics of a learned metric next to its baselines.

Per outer fold and pooled over the out-of-fold predictions: τb within source lines, segment r,
system r (:mod:`mteval.meta.learn.tune_stats`) of the learned metric, of a named baseline (chrF, when
given) and of the best single feature (chosen on each fold's training points, never on its test
points), with paired bootstrap CIs of the learned metric's differences from both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mteval.meta.learn.nested_cv import Nested
from mteval.meta.learn.tune_stats import paired_differences, statistics
from mteval.meta.stats.judged import Judged
from mteval.meta.stats.significance import Comparison

LEARNED, SINGLE = "learned", "best single"


@dataclass(frozen=True)
class FoldReport:
    """One outer test fold (``label`` "1".."K") or all of them pooled ("pooled")."""

    label: str
    points: int
    documents: int
    ridge: str
    single: str
    stats: dict[str, dict[str, float]]
    versus: dict[str, dict[str, Comparison]]


def _row(label: str, data: Judged, mask: np.ndarray, scores: dict[str, np.ndarray], ridge: str, single: str,
         by_documents: bool, n_boot: int, seed: int) -> FoldReport:
    """Statistics and differences on the points of ``mask``."""
    human, items, systems = data.human[mask], data.items[mask], data.systems[mask]
    units = data.documents[mask] if by_documents else None
    stats = {name: statistics(human, values[mask], items, systems) for name, values in scores.items()}
    versus = {name: paired_differences(human, scores[LEARNED][mask], values[mask], items, systems, units,
                                       n=n_boot, seed=seed)
              for name, values in scores.items() if name != LEARNED}
    return FoldReport(label, int(mask.sum()), len(np.unique(data.documents[mask])), ridge, single, stats, versus)


def build_report(data: Judged, nested: Nested, baseline: np.ndarray | None = None, baseline_name: str = "chrF",
                 by_documents: bool = False, n_boot: int = 1000, seed: int = 1234) -> list[FoldReport]:
    """Rows for every outer fold, then the pooled row (see the module docstring)."""
    scores = {LEARNED: nested.predictions, SINGLE: nested.single_predictions}
    if baseline is not None:
        scores = {LEARNED: nested.predictions, baseline_name: np.asarray(baseline, dtype=np.float64),
                  SINGLE: nested.single_predictions}
    rows = []
    for fold, model in enumerate(nested.models):
        ridge = "-" if model.ridge is None else f"{model.ridge:g}"
        rows.append(_row(str(fold + 1), data, nested.folds == fold, scores, ridge,
                         data.names[nested.single[fold]], by_documents, n_boot, seed))
    singles = ",".join(sorted({data.names[j] for j in nested.single}))
    ridges = ",".join(r.ridge for r in rows)
    rows.append(_row("pooled", data, np.ones(len(data.human), dtype=bool), scores, ridges, singles,
                     by_documents, n_boot, seed))
    return rows
