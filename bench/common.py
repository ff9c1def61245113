"""Helpers shared by the benchmark scripts: where the data is, timing, tables."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
WMT21_RUEN = SHARED / "data" / "wmt21-ruen"


def lines(path: Path) -> list[str]:
    """One segment a line."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def ruen_texts() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(references, systems) of WMT21 ru-en: 2 references, 10 systems x 1000 segments."""
    refs = {p.stem: lines(p) for p in sorted((WMT21_RUEN / "refs").glob("*.en"))}
    systems = {p.stem: lines(p) for p in sorted((WMT21_RUEN / "sys").glob("*.en"))}
    return refs, systems


@contextmanager
def timer(results: dict[str, float], name: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    results[name] = time.perf_counter() - start


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows)
