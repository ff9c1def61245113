"""Render iqeval records: an aligned score matrix (-O 0), ranking lists (-O 1), TSV or JSON.

Machine formats print tidy records with the columns ``target, refset, metric, level, doc,
segment, score`` (plus any extra keys a measure adds, e.g. ``hits``/``trials``), ``-`` where a
column does not apply, scores at full precision.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, TextIO

COLUMNS = ("target", "refset", "metric", "level", "doc", "segment", "score")
Record = dict[str, Any]


def _fmt(value: Any, digits: int = 4) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _columns(records: Sequence[Record]) -> list[str]:
    extra = [k for r in records for k in r if k not in COLUMNS]
    return list(COLUMNS) + list(dict.fromkeys(extra))


def write_tsv(records: Sequence[Record], out: TextIO) -> None:
    """Tab-separated tidy rows with a header."""
    columns = _columns(records)
    out.write("\t".join(columns) + "\n")
    for r in records:
        out.write("\t".join(_plain(r.get(c, "-")) for c in columns) + "\n")


def _plain(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def write_json(records: Sequence[Record], out: TextIO) -> None:
    """A JSON list of objects with the record keys (NaN written as null)."""
    clean = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()} for r in records]
    json.dump(clean, out, indent=1, ensure_ascii=False)
    out.write("\n")


def row_label(record: Record) -> str:
    """IQMT's row names: ``S0`` (sys), ``S0:doc`` (doc), ``S0:12`` (seg)."""
    if record["level"] == "seg" and record.get("segment", "-") != "-":
        return f"{record['target']}:{record['segment']}"
    if record["level"] == "doc" and record.get("doc", "-") != "-":
        return f"{record['target']}:{record['doc']}"
    return str(record["target"])


def _table(header: list[str], rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))
    out.write(line + "\n" + "-" * len(line) + "\n")
    for r in rows:
        out.write("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) + "\n")


def write_matrix(records: Sequence[Record], out: TextIO, label: str = "SYS") -> None:
    """-O 0: rows = targets (or target:segment / target:doc), columns = metrics."""
    metrics = list(dict.fromkeys(r["metric"] for r in records))
    cells: dict[str, dict[str, str]] = {}
    for r in records:
        cells.setdefault(row_label(r), {})[r["metric"]] = _fmt(r["score"])
    rows = [[name] + [values.get(m, "-") for m in metrics] for name, values in cells.items()]
    _table([label] + metrics, rows, out)


def write_rankings(records: Sequence[Record], out: TextIO, higher_is_better: Callable[[str], bool]) -> None:
    """-O 1: one ranking list per metric, best first."""
    metrics = list(dict.fromkeys(r["metric"] for r in records))
    for metric in metrics:
        rows = [r for r in records if r["metric"] == metric]
        best_first = higher_is_better(metric)
        rows.sort(key=lambda r: (math.isnan(r["score"]), -r["score"] if best_first else r["score"]))
        out.write(f"{metric}\n")
        _table(["#", "target", "score"], [[str(i), row_label(r), _fmt(r["score"])]
                                           for i, r in enumerate(rows, start=1)], out)
        out.write("\n")
