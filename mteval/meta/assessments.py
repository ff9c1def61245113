"""Human assessments readers (``iqeval -assessments FILE``).

Two formats:

* Asiya's NIST-style CSV: a ``#`` header line naming the fields (``# systemId,documentId,
  segmentId,judgeId,score``; fields are found by name, so extra ones such as ``startTime`` are
  fine), then one judgement per line. As in Asiya, the judges' scores of one (system, document,
  segment) are averaged; ``segmentId`` counts within its document (1-based), or, when the
  ``documentId`` field is empty, is the global segment number. A line with neither document nor
  segment is a system-level judgement.
* A simple TSV (tabs or spaces): ``system segment score`` with ``segment`` the 1-based line
  number, or ``-`` for a system-level score; ``#`` lines and an optional ``system ...`` header
  line are skipped.

Bad input is one line naming the file and line (exit code 2): a score that is not a finite number
(NaN, inf), a segment beyond the test set, a judgement repeated (the same system and segment, and
in the CSV the same judge: several judges of one segment are averaged, one judge twice is a
duplicate), and, when the reader is given the experiment's names, a system that is neither one of
its systems nor one of its references.

System-level human scores are the mean of the system-level rows when there are any, otherwise
the mean of the system's rated segment scores (Asiya's ``average_assessments_to_scores``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mteval.errors import InputError, quote
from mteval.io.corpus import DocumentIndex


@dataclass(frozen=True)
class Assessments:
    """Human scores: ``segments[i, s]`` for system ``systems[i]`` (NaN = not rated) and
    system-level scores."""

    systems: tuple[str, ...]
    segments: np.ndarray
    system: dict[str, float]

    def segment_scores(self, system: str) -> np.ndarray:
        """The segment scores of one system (all NaN for a system nobody rated)."""
        if system not in self.systems:
            return np.full(self.segments.shape[1], np.nan)
        return self.segments[self.systems.index(system)]


class _Collector:
    """Accumulates (system, row) -> list of scores and system -> list of scores, refusing
    duplicate judgements and (with ``known``) unknown systems."""

    def __init__(self, n_segments: int, path: Path, known: Collection[str] | None = None) -> None:
        self.n_segments = n_segments
        self.path = path
        self.known = None if known is None else frozenset(known)
        self.seg: dict[tuple[str, int], list[float]] = {}
        self.sys: dict[str, list[float]] = {}
        self.seen: dict[tuple[str, int | None, str], int] = {}

    def add(self, system: str, row: int | None, score: float, line: int, judge: str = "") -> None:
        """Record one judgement (``row`` None = system level) read at ``line``."""
        if self.known is not None and system not in self.known:
            shown = ", ".join(sorted(self.known)[:6]) + (", ..." if len(self.known) > 6 else "")
            raise InputError(f"unknown system {quote(system)} (the experiment has: {shown})", self.path, line)
        key = (system, row, judge)
        if key in self.seen:
            what = "system-level score" if row is None else f"segment {row + 1}"
            by = f" by judge {quote(judge)}" if judge else ""
            raise InputError(f"duplicate judgement of {quote(system)} {what}{by} (first at line {self.seen[key]})",
                             self.path, line)
        self.seen[key] = line
        if row is None:
            self.sys.setdefault(system, []).append(score)
        else:
            self.seg.setdefault((system, row), []).append(score)

    def build(self) -> Assessments:
        """Average the judgements into an :class:`Assessments`."""
        systems = tuple(dict.fromkeys([s for s, _ in self.seg] + list(self.sys)))
        matrix = np.full((len(systems), self.n_segments), np.nan)
        for (system, row), scores in self.seg.items():
            matrix[systems.index(system), row] = float(np.mean(scores))
        summary = {}
        for i, system in enumerate(systems):
            if system in self.sys:
                summary[system] = float(np.mean(self.sys[system]))
            elif not np.all(np.isnan(matrix[i])):
                summary[system] = float(np.nanmean(matrix[i]))
        return Assessments(systems, matrix, summary)


def _number(text: str, path: Path, line: int) -> float:
    """A finite score, or an InputError naming the file and line."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"score {text!r} is not a number", path, line) from None
    if not np.isfinite(value):
        raise InputError(f"score is {text.strip()!r}, not a finite number", path, line)
    return value


def _segment_row(segment: str, n_segments: int, path: Path, line: int,
                 documents: DocumentIndex | None = None, doc: str = "") -> int:
    """0-based row of a 1-based segment id (within ``doc`` when one is given)."""
    if not segment.isdigit() or int(segment) < 1:
        raise InputError(f"segment id {segment!r} is not a positive integer", path, line)
    number = int(segment)
    if doc and documents is not None:
        if doc not in documents.documents:
            raise InputError(f"unknown document {doc!r}", path, line)
        rows = documents.rows(doc)
        if number > len(rows):
            raise InputError(f"document {doc!r} has {len(rows)} segments, not {number}", path, line)
        return int(rows[number - 1])
    if number > n_segments:
        raise InputError(f"segment {number} is beyond the {n_segments} segments of the test set", path, line)
    return number - 1


def read_asiya_csv(path: str | Path, n_segments: int, documents: DocumentIndex | None = None,
                   systems: Collection[str] | None = None) -> Assessments:
    """Read Asiya's assessments CSV (see the module docstring)."""
    path = Path(path)
    fields: dict[str, int] | None = None
    out = _Collector(n_segments, path, systems)
    for number, raw in enumerate(_lines(path), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if "Id" in line and fields is None:
                names = re.split(r"\s*,\s*", line.lstrip("#").strip())
                fields = {name: i for i, name in enumerate(names)}
            continue
        if fields is None:
            raise InputError("no '# systemId,documentId,segmentId,judgeId,score' header before the data",
                             path, number)
        entry = re.split(r"\s*,\s*", line)
        score_at = next((i for name, i in fields.items() if "score" in name.lower()), None)
        if score_at is None or "systemId" not in fields:
            raise InputError("header needs a systemId and a score field", path, number)
        if len(entry) <= max(score_at, fields["systemId"]):
            raise InputError(f"expected {len(fields)} comma-separated fields, got {len(entry)}", path, number)
        doc = _field(entry, fields, "documentId")
        seg = _field(entry, fields, "segmentId")
        if doc and not seg:
            raise InputError("document-level assessments are not supported", path, number)
        row = None if not seg else _segment_row(seg, n_segments, path, number, documents, doc)
        out.add(entry[fields["systemId"]], row, _number(entry[score_at], path, number), number,
                _field(entry, fields, "judgeId"))
    return out.build()


def _field(entry: list[str], fields: dict[str, int], name: str) -> str:
    """A named field of a CSV entry ('' when absent)."""
    i = fields.get(name)
    return entry[i].strip() if i is not None and i < len(entry) else ""


def read_tsv(path: str | Path, n_segments: int, systems: Collection[str] | None = None) -> Assessments:
    """Read the simple ``system segment score`` format (see the module docstring)."""
    path = Path(path)
    out = _Collector(n_segments, path, systems)
    for number, raw in enumerate(_lines(path), start=1):
        parts = raw.split()
        if not parts or parts[0].startswith("#") or (number == 1 and parts[0].lower() == "system"):
            continue
        if len(parts) != 3:
            raise InputError(f"expected 'system segment score', got {len(parts)} fields", path, number)
        system, segment, score = parts
        row = None if segment == "-" else _segment_row(segment, n_segments, path, number)
        out.add(system, row, _number(score, path, number), number)
    return out.build()


def read_assessments(path: str | Path, n_segments: int, documents: DocumentIndex | None = None,
                     systems: Collection[str] | None = None) -> Assessments:
    """Read either format: Asiya's CSV when the first non-empty line is a ``#`` header with commas.
    ``systems``: the names a judgement may rate (None: any)."""
    first = next((line.strip() for line in _lines(Path(path)) if line.strip()), "")
    if first.startswith("#") and "," in first:
        return read_asiya_csv(path, n_segments, documents, systems)
    return read_tsv(path, n_segments, systems)


def _lines(path: Path) -> list[str]:
    """The file's lines, with file and encoding problems as InputError."""
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError("assessments file not found", path) from None
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 ({err.reason} at byte {err.start})", path) from None
