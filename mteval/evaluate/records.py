"""The record every iqeval measure returns (``--json`` rows, ``--tsv`` lines): ``target, refset,
metric, level, doc, segment, score`` and the measure's own keys."""

from __future__ import annotations

from typing import Any

Record = dict[str, Any]


def record(target: str, refset: str, metric: str, level: str, score: float, **extra: Any) -> Record:
    """One record of a corpus-wide measure (``doc`` and ``segment`` are ``-``)."""
    return {"target": target, "refset": refset, "metric": metric, "level": level, "doc": "-",
            "segment": "-", "score": float(score), **extra}
