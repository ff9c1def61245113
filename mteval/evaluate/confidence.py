"""Each system's bootstrap confidence interval, alone: sacreBLEU's ``--confidence`` (``mteval score
--confidence``, :meth:`mteval.Campaign.confidence`).

Koehn (2004), *Statistical significance tests for machine translation evaluation*: the selected
segments are resampled with replacement ``resamples`` times (seed ``seed``: the same segments for
every metric and system, and the same as ``iqeval -compare``'s paired bootstrap draws, so a system's
figures here are its figures there); each resample is scored by the metric's own system rule
(:func:`mteval.evaluate.compare.statistics_for`: summed statistics, or the mean of segment scores).
A record per metric and system: ``score`` on the selected segments, the resamples' ``mean`` and the
order statistics ``ci_low``/``ci_high`` of the ``1 - alpha`` interval (sacreBLEU's ``estimate_ci``:
``n // 40`` from each end at 0.05; its printed ``μ ± ci`` is the mean and half the interval). As in
``-compare``, a ``mean`` metric whose reported system score is not the mean of its segment scores
shows the reported score, the mean and interval moved by the same amount.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mteval.evaluate.compare import statistics_for
from mteval.evaluate.selection import Selection
from mteval.experiment.spec import Experiment
from mteval.meta.stats.paired import BS_RESAMPLES, DEFAULT_SEED, SystemResult, system_intervals
from mteval.store.cache import ScoreCache, refset_name

Record = dict[str, Any]


def confidence_records(experiment: Experiment, cache: ScoreCache, sel: Selection, texts: Any,
                       resamples: int = BS_RESAMPLES, seed: int = DEFAULT_SEED, alpha: float = 0.05) -> list[Record]:
    """The records of every selected system and metric (module docstring), metric by metric in -M order."""
    inputs, rules, reported = {}, {}, {}
    for metric in sel.metrics:
        inputs[metric], rules[metric], reported[metric] = statistics_for(metric, experiment, cache, sel, texts)
    found = system_intervals(inputs, sel.systems, resamples, seed, alpha) if inputs else {}
    shared = {"refset": refset_name(sel.references), "level": "sys", "doc": "-", "segment": "-"}
    out = []
    for metric, results in found.items():
        settings = {"aggregate": rules[metric], "seed": seed, "resamples": resamples, "alpha": alpha,
                    "segments": len(sel.segments)}
        for i, result in enumerate(results):
            shown = _as_reported(result, reported[metric], i)
            out.append({"target": shown.system, **shared, "metric": metric, **settings, "score": shown.score,
                        "mean": shown.mean, "ci_low": shown.low, "ci_high": shown.high})
    return out


def _as_reported(result: SystemResult, reported: np.ndarray | None, i: int) -> SystemResult:
    """A ``mean`` metric's result with its reported system score, the interval moved with it."""
    if reported is None or reported[i] == result.score:
        return result
    shift = float(reported[i]) - result.score
    return SystemResult(result.system, float(reported[i]), result.mean + shift, result.low + shift,
                        result.high + shift)
