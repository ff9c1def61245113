"""``mteval report --json FILE``: everything the page shows, as one JSON document for other tools.

The records keep the field names of the commands that compute the same numbers, so that a reader
can check one against the other: ``compare`` is exactly what ``iqeval -compare --json`` prints for
the same selection and test options, ``correlations`` what ``iqeval -assessments --corr pearson
--json`` prints, ``qarla`` iqeval's QUEEN/KING records. Numbers are plain floats (NaN as ``null``).
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np

from mteval.evaluate import compare
from mteval.report.content import Report

FORMAT = "mteval-report/1"


def _plain(value: Any) -> Any:
    """JSON-ready: dataclasses as dicts, numpy values as Python ones, NaN and infinities as None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _systems(report: Report) -> list[dict[str, Any]]:
    """One record per (system, metric) cell of the systems table."""
    scores, out = report.scores, []
    for k, metric in enumerate(scores.metrics):
        found = report.significance.get(metric)
        for s, system in enumerate(scores.systems):
            record: dict[str, Any] = {"target": system, "refset": scores.refset, "metric": metric,
                                      "score": float(scores.system[k, s])}
            if found is not None:
                result = found.comparison.results()[s]
                record.update(ci_low=result.low, ci_high=result.high, half_width=result.half_width,
                              cluster=found.cluster_of(system), aggregate=found.rule)
            out.append(record)
    return out


def _compare(report: Report) -> list[dict[str, Any]]:
    """``iqeval -compare --json``'s records for the report's metrics with clusters."""
    if not report.significance:
        return []
    options = next(iter(report.significance.values())).options
    results = [found.result for found in report.significance.values()]
    records = compare.comparison_records(results, options, report.scores.refset, report.n_segments)
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in records]  # as iqeval writes them


def _human(report: Report) -> dict[str, Any] | None:
    """Correlations, human system scores, rank agreement and the heatmap (with judgements)."""
    corr = report.correlations
    if corr is None:
        return None
    return {"assessments": report.assessments, "system": corr.system, "segment": corr.segment,
            "human_system": corr.human_system, "agreement": report.agreements,
            "heatmap": {"names": corr.matrix_names, "pearson": corr.matrix}, "notes": corr.notes, "ranks": corr.ranks}


def document(report: Report, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole report as a JSON-ready dict (``extra``: further sections by name)."""
    found = {"format": FORMAT, "title": report.title, "config": report.config, "cache": report.cache,
             "references": report.references, "segments": report.n_segments, "options": report.options,
             "systems": _systems(report), "compare": _compare(report), "human": _human(report),
             "qarla": report.qarla, "drill_metric": report.drill_metric, "drilldown": report.drill,
             "signatures": report.signatures, "missing": report.missing, "missing_total": report.missing_total,
             "notes": report.notes, "warnings": report.warnings, "pair": report.analyses.pair,
             "linguistic": report.analyses.recalls, "linguistic_pair": report.analyses.linguistic_pair,
             **(extra or {})}
    return _plain(found)


def dumps(report: Report, extra: dict[str, Any] | None = None) -> str:
    """:func:`document` as JSON text (UTF-8, indented, no NaN)."""
    return json.dumps(document(report, extra), ensure_ascii=False, indent=1, allow_nan=False) + "\n"
