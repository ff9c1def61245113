"""iqeval -assessments --significance: the metrics' significance ranks, as the WMT metrics tasks give them.

mt-metrics-eval's ``data.CompareMetrics`` (and ``CompareMetricsWithPairwiseConfidenceError``): the
metrics are sorted by decreasing correlation, the metric name breaking exact ties; the significance
matrix holds, for each pair i < j in that order, the permutation test's one-sided p-value of "metric i
correlates better than metric j" (PERM-BOTH, or at segment level for acc_eq/tau_eq the pair
permutation test of WMT23/24); ``data.AssignRanks`` (:func:`mteval.meta.stats.clusters.assign_ranks`)
turns it into ranks at ``--alpha``: a metric opens a new rank when a metric of the current rank
correlates significantly better. A metric whose correlation is NaN gets no rank and comes last.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from mteval.evaluate.records import Record, record
from mteval.meta.stats.clusters import assign_ranks

PERMUTATION_TESTS = ("perm-both", "perm-pairs")  # the tests whose p-values make the ranks (mt-metrics-eval's)
TABLE = "metric-ranks"


def _correlations(records: Sequence[Record], correlation: str) -> dict[str, float]:
    """metric -> its plain ``correlation`` record's value, in the records' order."""
    return {str(r["metric"]): float(r["score"]) for r in records
            if r.get("correlation") == correlation and r.get("variant") == "plain" and "test" not in r}


def ranked_pairs(records: Sequence[Record], correlation: str) -> list[tuple[str, str]]:
    """The pairs the ranks read: (i, j) for i before j in the ranking of ``correlation``'s records
    (half the ordered pairs: what mt-metrics-eval's ``ComputeSigMatrix`` tests)."""
    order = _ranking(_correlations(records, correlation))
    return [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]


def _ranking(values: dict[str, float]) -> list[str]:
    """The metrics with a correlation, best first, the name breaking exact ties (their sort key)."""
    return sorted((m for m in values if not math.isnan(values[m])), key=lambda m: (-values[m], m))


def _p_values(records: Sequence[Record]) -> tuple[str, dict[str, float]]:
    """The permutation test's name and its p-value of every ordered pair ``A>B``."""
    tested = [r for r in records if r.get("test") in PERMUTATION_TESTS]
    test = str(tested[0]["test"]) if tested else ""
    return test, {str(r["metric"]): float(r["p_value"]) for r in tested if r["test"] == test}


def rank_records(records: Sequence[Record], alpha: float = 0.05) -> list[Record]:
    """One record per metric of the significance tests in ``records`` (table ``metric-ranks``), best
    first: ``score`` = its correlation, ``rank`` (None for a NaN correlation), ``ranked_by`` (the test
    whose p-values made the ranks; not ``test``, which marks a pair's test record), ``alpha``."""
    test, p_of = _p_values(records)
    if not test:
        return []
    first = next(r for r in records if r.get("test") == test)
    correlation, level, refset = str(first["correlation"]), str(first["level"]), str(first["refset"])
    values = _correlations(records, correlation)
    ranked = _ranking(values)
    p = np.ones((len(ranked), len(ranked)))
    for i, a in enumerate(ranked):
        for j, b in enumerate(ranked[i + 1:], start=i + 1):
            p[i, j] = p_of.get(f"{a}>{b}", math.nan)
    ranks: list[int | None] = list(assign_ranks(p, alpha))
    unranked = [m for m in values if math.isnan(values[m])]
    ranks += [None] * len(unranked)
    return [record(f"rank:{test}:{correlation}", refset, metric, level, values[metric], rank=rank,
                   correlation=correlation, ranked_by=test, alpha=alpha, table=TABLE)
            for metric, rank in zip([*ranked, *unranked], ranks, strict=True)]
