"""Human assessments readers (``iqeval -assessments FILE``).

Two formats:

* Asiya's NIST-style CSV: a ``#`` header line naming the fields (``# systemId,documentId,
  segmentId,judgeId,score``, Asiya's own header; fields are found by name, in any case, so extra
  ones such as ``startTime`` are fine), then one judgement per line. The score is the field named
  exactly ``score`` (``Score``, ``SCORE`` too): a header without one is refused, naming the fields
  that merely contain "score" (``rawScore``, ``zScore``), which are never chosen by guess (rename
  the one to use to ``score``); a field the reader uses named twice is refused. ``systemId`` and
  ``score`` are required, ``documentId``, ``segmentId`` and ``judgeId`` optional. As in Asiya, the
  judges' scores of one (system, document, segment) are averaged; ``segmentId`` counts within its
  document (1-based), or, when the ``documentId`` field is empty, is the global segment number. A
  line with neither document nor segment is a system-level judgement.
* A simple TSV (tabs or spaces): ``system segment score`` with ``segment`` the 1-based line
  number, or ``-`` for a system-level score; ``#`` lines are skipped. An optional header (the
  first other line, naming a system column: :data:`SYSTEM_NAMES`) says which column is which, so
  the columns may come in any order: the segment column is the one named in :data:`SEGMENT_NAMES`
  (``segment``, ``seg_id``, ``line``...), the score the third, whatever its name. This reads
  Google's published MQM files (``system mqm_avg_score seg_id``) as they are; before, a header was
  skipped and the columns taken by position, so a file of integer scores in the order ``system
  score segment`` (WMT DA's raw 0-100) was read with scores and line numbers swapped, silently. A
  score ``None`` (Google's MQM files: not rated) is no judgement. A ``#`` line before the data that
  names three columns, a system one and a segment one (``#system score line``), is that header, not
  a comment (it was skipped, and the columns taken by position).

The file is read once through :func:`mteval.io.plain.read_lines`: only a regular file (a FIFO,
directory or device is refused before it is opened), UTF-8, a UTF-8 BOM at the start dropped (so
the header is recognised), ``\r\n`` line ends accepted, control characters refused.

Bad input is one line naming the file and line (exit code 2): a segment id that is not a positive
integer in ASCII digits (``²`` or ``٣`` are refused, though ``str.isdigit`` takes them), a score
that is not a decimal number in ASCII digits (``1_0``, ``٣``) or not finite (NaN, inf), a segment
beyond the test set, a judgement repeated (the same system and segment, and in the CSV the same
judge: several judges of one segment are averaged, one judge twice is a duplicate), and, when the
reader is given the experiment's names, a system that is neither one of its systems nor one of its
references (with ``skip_unknown``, such rows are left out and counted instead: iqeval's
``--unknown-systems skip``).

System-level human scores are the mean of the system-level rows when there are any, otherwise
the mean of the system's rated segment scores (Asiya's ``average_assessments_to_scores``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mteval.errors import InputError, quote
from mteval.io.corpus import DocumentIndex
from mteval.io.plain import read_lines


@dataclass(frozen=True)
class Assessments:
    """Human scores: ``segments[i, s]`` for system ``systems[i]`` (NaN = not rated) and
    system-level scores."""

    systems: tuple[str, ...]
    segments: np.ndarray
    system: dict[str, float]
    skipped: dict[str, int] = field(default_factory=dict)  # unknown system -> its rows skipped (skip_unknown)

    def segment_scores(self, system: str) -> np.ndarray:
        """The segment scores of one system (all NaN for a system nobody rated)."""
        if system not in self.systems:
            return np.full(self.segments.shape[1], np.nan)
        return self.segments[self.systems.index(system)]


class _Collector:
    """Accumulates (system, row) -> list of scores and system -> list of scores, refusing
    duplicate judgements and (with ``known``) unknown systems."""

    def __init__(self, n_segments: int, path: Path, known: Collection[str] | None = None,
                 skip_unknown: bool = False) -> None:
        self.n_segments = n_segments
        self.path = path
        self.known = None if known is None else frozenset(known)
        self.skip_unknown = skip_unknown
        self.skipped: dict[str, int] = {}
        self.seg: dict[tuple[str, int], list[float]] = {}
        self.sys: dict[str, list[float]] = {}
        self.seen: dict[tuple[str, int | None, str], int] = {}

    def add(self, system: str, row: int | None, score: float, line: int, judge: str = "") -> None:
        """Record one judgement (``row`` None = system level) read at ``line``."""
        if self.known is not None and system not in self.known:
            if self.skip_unknown:
                self.skipped[system] = self.skipped.get(system, 0) + 1
                return
            shown = ", ".join(sorted(self.known)[:6]) + (", ..." if len(self.known) > 6 else "")
            raise InputError(f"unknown system {quote(system)} (the experiment has: {shown}; "
                             "--unknown-systems skip leaves out the rows of systems it lacks)", self.path, line)
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
        return Assessments(systems, matrix, summary, dict(sorted(self.skipped.items())))


_DIGITS = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() also takes '²', '٣', which int() refuses or reads
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_MAX_DIGITS = 18  # a longer segment number is beyond any test set (and int() of 4300+ digits raises)
SCORE_FIELD = "score"  # the one CSV field read as the score (any case); never chosen by substring
_KNOWN_FIELDS = ("systemid", "documentid", "segmentid", "judgeid", SCORE_FIELD)


def _number(text: str, path: Path, line: int) -> float:
    """A finite score written with ASCII digits, or an InputError naming the file and line."""
    text = text.strip()
    if _NOT_FINITE.fullmatch(text):
        raise InputError(f"score is {quote(text)}, not a finite number", path, line)
    if not _DECIMAL.fullmatch(text):
        raise InputError(f"score {quote(text)} is not a number", path, line)
    value = float(text)
    if not np.isfinite(value):
        raise InputError(f"score is {quote(text)}, not a finite number", path, line)
    return value


def _segment_row(segment: str, n_segments: int, path: Path, line: int,
                 documents: DocumentIndex | None = None, doc: str = "") -> int:
    """0-based row of a 1-based segment id (within ``doc`` when one is given)."""
    digits = segment.lstrip("0")
    if not _DIGITS.fullmatch(segment) or not digits:
        raise InputError(f"segment id {quote(segment)} is not a positive integer (ASCII digits)", path, line)
    number = int(digits) if len(digits) <= _MAX_DIGITS else None
    shown = digits if number is not None else quote(digits, 24)
    if doc and documents is not None:
        if doc not in documents.documents:
            raise InputError(f"unknown document {quote(doc)}", path, line)
        rows = documents.rows(doc)
        if number is None or number > len(rows):
            raise InputError(f"document {quote(doc)} has {len(rows)} segments, not {shown}", path, line)
        return int(rows[number - 1])
    if number is None or number > n_segments:
        raise InputError(f"segment {shown} is beyond the {n_segments} segments of the test set", path, line)
    return number - 1


@dataclass(frozen=True)
class _Header:
    """Where the fields of Asiya's CSV are (None: absent)."""

    system: int
    score: int
    document: int | None
    segment: int | None
    judge: int | None


def _header(line: str, path: Path, number: int) -> _Header:
    """The field positions of a ``# systemId,...,score`` header line (names in any case)."""
    names = [name.strip() for name in line.lstrip("#").split(",")]
    where: dict[str, int] = {}
    for i, name in enumerate(names):
        key = name.lower()
        if key in _KNOWN_FIELDS and key in where:
            raise InputError(f"the header names field {quote(name)} twice", path, number)
        where.setdefault(key, i)
    if "systemid" not in where:
        raise InputError("the header has no systemId field", path, number)
    if SCORE_FIELD not in where:
        like = [quote(name, 30) for name in names if SCORE_FIELD in name.lower()]
        if like:
            raise InputError(f"the header has no field named 'score' (any case); {', '.join(like[:6])} only "
                             "contain it and are not chosen by guess: rename the one to use to 'score'",
                             path, number)
        raise InputError("the header has no score field", path, number)
    return _Header(where["systemid"], where[SCORE_FIELD], where.get("documentid"), where.get("segmentid"),
                   where.get("judgeid"))


def _is_header(line: str) -> bool:
    """A ``#`` line naming Asiya's fields (as before: any ``#`` line with ``Id``, or a known name)."""
    names = {name.strip().lower() for name in line.lstrip("#").split(",")}
    return "Id" in line or bool(names & set(_KNOWN_FIELDS))


def read_asiya_csv(path: str | Path, n_segments: int, documents: DocumentIndex | None = None,
                   systems: Collection[str] | None = None) -> Assessments:
    """Read Asiya's assessments CSV (see the module docstring)."""
    return _parse_csv(read_lines(path), Path(path), n_segments, documents, _Collector(n_segments, Path(path), systems))


def _parse_csv(lines: list[str], path: Path, n_segments: int, documents: DocumentIndex | None,
               out: _Collector) -> Assessments:
    """Asiya's CSV from the file's lines, into ``out``."""
    header: _Header | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if header is None and _is_header(line):
                header = _header(line, path, number)
            continue
        if header is None:
            raise InputError("no '# systemId,documentId,segmentId,judgeId,score' header before the data",
                             path, number)
        entry = [field.strip() for field in line.split(",")]
        if len(entry) <= max(header.score, header.system):
            raise InputError(f"expected at least {max(header.score, header.system) + 1} comma-separated fields, "
                             f"got {len(entry)}", path, number)
        system, doc, seg = entry[header.system], _field(entry, header.document), _field(entry, header.segment)
        if not system:
            raise InputError("empty systemId", path, number)
        if doc and not seg:
            raise InputError("document-level assessments are not supported", path, number)
        row = None if not seg else _segment_row(seg, n_segments, path, number, documents, doc)
        out.add(system, row, _number(entry[header.score], path, number), number, _field(entry, header.judge))
    return out.build()


def _field(entry: list[str], at: int | None) -> str:
    """A field of a CSV entry ('' when the header lacks it or the line is short)."""
    return entry[at] if at is not None and at < len(entry) else ""


def read_tsv(path: str | Path, n_segments: int, systems: Collection[str] | None = None) -> Assessments:
    """Read the simple ``system segment score`` format (see the module docstring)."""
    return _parse_tsv(read_lines(path), Path(path), n_segments, _Collector(n_segments, Path(path), systems))


SYSTEM_NAMES = frozenset({"system", "sys", "systemid", "system_id", "system_name", "sysid"})
SEGMENT_NAMES = frozenset({"segment", "seg", "seg_id", "segid", "segment_id", "segmentid", "line", "line_number",
                           "lineno"})  # never WMT DA's "sid": not a line number (../shared/data/README.md)
NOT_RATED = "None"  # Google's MQM files' score of an unrated segment
UNKNOWN_SYSTEMS = ("refuse", "skip")  # what a reader given the experiment's names does with another system's rows


def _tsv_columns(parts: list[str], path: Path, line: int) -> tuple[int, int, int] | None:
    """Where a header line puts (system, segment, score); None when ``parts`` is no header."""
    names = [part.lower() for part in parts]
    if not any(name in SYSTEM_NAMES for name in names):
        return None
    if len(parts) != 3:
        raise InputError(f"expected a header of 3 columns (system, segment, score), got {len(parts)}", path, line)
    systems = [i for i, name in enumerate(names) if name in SYSTEM_NAMES]
    segments = [i for i, name in enumerate(names) if name in SEGMENT_NAMES]
    if len(systems) != 1 or len(segments) != 1:
        what = "system" if len(systems) != 1 else "segment"
        raise InputError(f"the header {quote(' '.join(parts), 60)} must name one {what} column "
                         f"({', '.join(sorted(SYSTEM_NAMES if what == 'system' else SEGMENT_NAMES))})", path, line)
    (score,) = {0, 1, 2} - {systems[0], segments[0]}
    return systems[0], segments[0], score


def _commented_header(line: str) -> tuple[int, int, int] | None:
    """The columns of a ``#``-prefixed header line (``#system score line``), None for a comment:
    three names, one a system column and one a segment column (a comment that names them too is
    read as the header it looks like; one that does not is skipped)."""
    parts = line.strip().lstrip("#").split()
    names = [part.lower() for part in parts]
    if len(parts) != 3 or sum(n in SYSTEM_NAMES for n in names) != 1 or sum(n in SEGMENT_NAMES for n in names) != 1:
        return None
    return _tsv_columns(parts, Path(), 0)


def _parse_tsv(lines: list[str], path: Path, n_segments: int, out: _Collector) -> Assessments:
    """The ``system segment score`` format from the file's lines (columns named by a header), into ``out``."""
    columns = (0, 1, 2)
    first = True
    for number, raw in enumerate(lines, start=1):
        parts = raw.split()
        if parts and parts[0].startswith("#"):
            if first and (header := _commented_header(raw)) is not None:
                columns, first = header, False  # "#system score line": a header, not a comment
            continue
        if not parts:
            continue
        if first:
            first, header = False, _tsv_columns(parts, path, number)
            if header is not None:
                columns = header
                continue
        if len(parts) != 3:
            raise InputError(f"expected 'system segment score', got {len(parts)} fields", path, number)
        system, segment, score = (parts[i] for i in columns)
        row = None if segment == "-" else _segment_row(segment, n_segments, path, number)
        if score == NOT_RATED:
            continue
        out.add(system, row, _number(score, path, number), number)
    return out.build()


def read_assessments(path: str | Path, n_segments: int, documents: DocumentIndex | None = None,
                     systems: Collection[str] | None = None, skip_unknown: bool = False) -> Assessments:
    """Read either format: Asiya's CSV when the first non-empty line is a ``#`` header with commas.
    ``systems``: the names a judgement may rate (None: any); a row of another system is refused, or
    with ``skip_unknown`` left out and counted in :attr:`Assessments.skipped` (a published file
    rates systems whose outputs a user does not score). The file is read once, through
    :func:`mteval.io.plain.read_lines` (regular files only, UTF-8, a leading BOM dropped)."""
    lines = read_lines(path)
    out = _Collector(n_segments, Path(path), systems, skip_unknown)
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("#") and "," in first:
        return _parse_csv(lines, Path(path), n_segments, documents, out)
    return _parse_tsv(lines, Path(path), n_segments, out)
