"""Reading ``../shared/oracles/wmt21-ruen`` (shared by the parity tests)."""

from __future__ import annotations

import csv
import lzma
from collections import defaultdict
from collections.abc import Collection
from functools import cache
from pathlib import Path

from conftest import SHARED

ORACLES = SHARED / "oracles" / "wmt21-ruen"
RUEN = SHARED / "data" / "wmt21-ruen"
N_SEGMENTS = 500  # the oracles cover lines 1-500

OracleTable = dict[tuple[str, str, str], dict[str, str]]


@cache
def _read(path: Path) -> OracleTable:
    table: OracleTable = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            table[(row["metric"], row["target"], row["references"])][row["segment"]] = row["score"]
    return dict(table)


def read_oracle(path: Path, metrics: Collection[str] | None = None) -> OracleTable:
    """(metric, target, references) -> {segment or '-': the score as printed}, for some metrics."""
    table = _read(Path(path))
    return table if metrics is None else {k: v for k, v in table.items() if k[0] in metrics}


def ruen_lines(path: str, n: int = N_SEGMENTS) -> list[str]:
    """The first ``n`` lines of a WMT21 ru-en file (e.g. ``refs/A.en``)."""
    with open(RUEN / path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f][:n]


# The committed mteval-v13a oracle for every line (tests/data/oracles/README.md): BLEU, NIST (A, B, A+B) and
# the 4-decimal individual per-order scores (A, segments only), lines 1-1000 of ../shared/data/wmt21-ruen.
FULL_MTEVAL_ORACLE = Path(__file__).resolve().parent / "data" / "oracles" / "mteval-v13a-wmt21ruen-1000.tsv.xz"
FULL_MTEVAL_METRICS = ("BLEU", "NIST") + tuple(f"NISTi-{n}" for n in range(1, 6)) + tuple(
    f"BLEUi-{n}" for n in range(1, 5))
N_FULL_SEGMENTS = 1000


@cache
def read_full_mteval_oracle() -> OracleTable:
    """(metric, target, references) -> {segment or '-': printed score}, as :func:`read_oracle`."""
    table: OracleTable = defaultdict(dict)
    with lzma.open(FULL_MTEVAL_ORACLE, "rt", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            for metric in FULL_MTEVAL_METRICS:
                if row[metric]:
                    table[(metric, row["target"], row["references"])][row["segment"]] = row[metric]
    return dict(table)
