"""Read one test set and language pair of mt-metrics-eval's data layout (google-research/
mt-metrics-eval, README "File organization and naming convention"; ``EvalSet`` in its data.py).

Paths below are relative to ``ROOT/TESTSET`` (e.g. ``mt-metrics-eval-v2/wmt22``); ``LP`` is a
language pair such as ``en-de``:

- ``sources/LP.txt``; ``references/LP.NAME.txt``; ``system-outputs/LP/NAME.txt`` (human
  references may appear there too, under their reference name): one segment a line;
- ``documents/LP.docs``: ``DOMAIN DOCID`` a line, one line a segment;
- ``human-scores/LP.NAME.LEVEL.score`` with LEVEL ``seg``, ``sys``, ``doc`` or ``domain``: lines
  ``SYSTEM SCORE`` (``DOMAIN SYSTEM SCORE`` at ``domain`` level), ``None`` for a missing score;
  a ``seg`` file holds one block of ``n`` lines a system, in segment order; a ``sys`` file one
  line a system.

Only ``.txt`` texts are read (the JSONL variants of recent sets are refused by name). Every problem
is one :class:`~mteval.errors.InputError` naming the file and line: a missing file or folder, a
text whose line count differs from the source, a score that is neither a finite number nor
``None``, a system without a ``system-outputs`` file, a repeated row (a system-level score given
twice, a segment block that comes back or runs past the segment count), a short block.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from mteval.errors import InputError, quote
from mteval.io.plain import read_lines

LEVELS = ("seg", "sys", "doc", "domain")
NO_TRANSLATION = "[No translation supplied]"  # mt-metrics-eval's marker of a missing output line


@dataclass(frozen=True)
class HumanScores:
    """One ``human-scores`` file: its name (``mqm``, ``wmt-z``), level and path."""

    name: str
    level: str
    path: Path


@dataclass(frozen=True)
class EvalSetFiles:
    """The files of one test set and language pair (names sorted)."""

    folder: Path
    lp: str
    source: Path
    references: dict[str, Path]
    systems: dict[str, Path]
    documents: Path | None
    human: tuple[HumanScores, ...]


def locate(root: Path, testset: str, lp: str) -> EvalSetFiles:
    """Find the files of ``testset``/``lp`` under ``root`` (the folder holding the test sets)."""
    folder = root / testset
    if not (folder / "sources").is_dir():
        if (root / "sources").is_dir():
            raise InputError("is itself a test set folder; give the folder that holds it (its parent) as DIR", root)
        known = sorted(p.name for p in root.iterdir() if (p / "sources").is_dir()) if root.is_dir() else []
        raise InputError(f"no test set {quote(testset)} in mt-metrics-eval layout (no sources/ folder); "
                         f"test sets here: {_few(known)}", folder)
    source = folder / "sources" / f"{lp}.txt"
    if not source.is_file():
        _refuse_jsonl(folder / "sources" / f"{lp}.jsonl")
        known = sorted(p.stem for p in (folder / "sources").glob("*.txt"))
        raise InputError(f"no language pair {quote(lp)}; language pairs here: {_few(known)}", source)
    references = _named_files(folder / "references", f"{lp}.", ".txt")
    if not references:
        _refuse_jsonl(*sorted((folder / "references").glob(f"{lp}.*.jsonl"))[:1])
        raise InputError(f"no reference files references/{lp}.NAME.txt", folder / "references")
    systems = _named_files(folder / "system-outputs" / lp, "", ".txt")
    if not systems:
        _refuse_jsonl(*sorted((folder / "system-outputs" / lp).glob("*.jsonl"))[:1])
        raise InputError("no system outputs NAME.txt", folder / "system-outputs" / lp)
    documents = folder / "documents" / f"{lp}.docs"
    return EvalSetFiles(folder, lp, source, references, systems, documents if documents.is_file() else None,
                        _human_files(folder / "human-scores", lp))


def _refuse_jsonl(*paths: Path) -> None:
    for path in paths:
        if path.is_file():
            raise InputError("JSONL texts are not supported; only the .txt layout is read", path)


def _few(names: list[str], limit: int = 12) -> str:
    if not names:
        return "none"
    return ", ".join(names[:limit]) + (", ..." if len(names) > limit else "")


def _named_files(folder: Path, prefix: str, suffix: str) -> dict[str, Path]:
    """``folder/PREFIX NAME SUFFIX`` files by NAME, sorted; hidden files (``.NAME``, macOS's ``._NAME``)
    are not texts, as mt-metrics-eval's ``glob('*.*')`` skips them."""
    if not folder.is_dir():
        return {}
    found = {p.name[len(prefix):-len(suffix)]: p for p in folder.iterdir()
             if p.name.startswith(prefix) and p.name.endswith(suffix) and not p.name.startswith(".") and p.is_file()}
    return {name: found[name] for name in sorted(found) if name}


def _human_files(folder: Path, lp: str) -> tuple[HumanScores, ...]:
    """``human-scores/LP.NAME.LEVEL.score`` files (the ``.rating`` files are not scores)."""
    out = []
    if not folder.is_dir():
        return ()
    for path in sorted(folder.glob(f"{lp}.*.score")):
        parts = path.name.split(".")
        if len(parts) < 4 or not all(parts[1:-2]):
            raise InputError("expected a human score file named LP.NAME.LEVEL.score", path)
        if parts[-2] not in LEVELS:
            raise InputError(f"unknown level {quote(parts[-2])} (expected one of {', '.join(LEVELS)})", path)
        out.append(HumanScores(".".join(parts[1:-2]), parts[-2], path))
    return tuple(out)


def read_segments(path: Path, n_segments: int | None = None) -> list[str]:
    """A text's lines (mteval's byte-level checks); with ``n_segments``, exactly that many."""
    lines = read_lines(path)
    if not lines:
        raise InputError("is empty: no segments", path)
    if n_segments is not None and len(lines) != n_segments:
        raise InputError(f"has {len(lines)} lines but the source has {n_segments} (one segment a line)", path,
                         n_segments + 1 if len(lines) > n_segments else None)
    return lines


def read_documents(path: Path, n_segments: int) -> list[tuple[str, str]]:
    """``(domain, docid)`` of every segment, from ``documents/LP.docs`` (a document is one run of
    lines, as mt-metrics-eval and mteval's docids both require)."""
    rows: list[tuple[str, str]] = []
    ended: dict[str, int] = {}
    for number, line in enumerate(read_lines(path), start=1):
        fields = line.split()
        if len(fields) != 2:
            raise InputError(f"expected 'DOMAIN DOCID', got {len(fields)} fields", path, number)
        if rows and fields[1] != rows[-1][1] and fields[1] in ended:
            raise InputError(f"document {quote(fields[1])} comes back after other documents (its lines end at "
                             f"line {ended[fields[1]]}); a document must be one run of lines", path, number)
        if rows and fields[1] != rows[-1][1]:
            ended[rows[-1][1]] = number - 1
        rows.append((fields[0], fields[1]))
    if len(rows) != n_segments:
        raise InputError(f"has {len(rows)} lines but the source has {n_segments} (one line a segment)", path,
                         n_segments + 1 if len(rows) > n_segments else None)
    return rows


def _score(text: str, path: Path, line: int) -> float | None:
    """A finite score, or None for ``None``."""
    if text == "None":
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"score {quote(text)} is not a number (a missing score is written None)", path,
                         line) from None
    if not math.isfinite(value):
        raise InputError(f"score {quote(text)} is not a finite number (a missing score is written None)", path,
                         line)
    return value


def _rows(path: Path, systems: Collection[str]) -> list[tuple[int, str, float | None]]:
    """``(line, system, score)`` of a ``SYSTEM SCORE`` file (blank lines skipped)."""
    rows = []
    for number, line in enumerate(read_lines(path), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise InputError(f"expected 'SYSTEM SCORE', got {len(fields)} fields", path, number)
        if fields[0] not in systems:
            raise InputError(f"unknown system {quote(fields[0])} (no system-outputs file of that name)", path,
                             number)
        rows.append((number, fields[0], _score(fields[1], path, number)))
    return rows


def read_system_scores(path: Path, systems: Collection[str]) -> dict[str, float | None]:
    """A ``sys`` file: one score a system."""
    out: dict[str, float | None] = {}
    first: dict[str, int] = {}
    for number, system, score in _rows(path, systems):
        if system in first:
            raise InputError(f"duplicate score of system {quote(system)} (first at line {first[system]})", path,
                             number)
        first[system] = number
        out[system] = score
    return out


def read_segment_scores(path: Path, systems: Collection[str], n_segments: int) -> dict[str, list[float | None]]:
    """A ``seg`` file: each system's block of ``n_segments`` scores, in segment order."""
    out: dict[str, list[float | None]] = {}
    ended: dict[str, int] = {}
    previous, last_line = "", 0
    for number, system, score in _rows(path, systems):
        if system != previous:
            if previous:
                ended[previous] = last_line
            if system in ended:
                raise InputError(f"system {quote(system)} comes back after other systems (its block ended at "
                                 f"line {ended[system]}): a duplicate row?", path, number)
            previous = system
        block = out.setdefault(system, [])
        if len(block) == n_segments:
            raise InputError(f"system {quote(system)} has more than the {n_segments} segment scores of the "
                             "source (unknown segment or duplicate row)", path, number)
        block.append(score)
        last_line = number
    ended[previous] = last_line
    for system, block in out.items():
        if len(block) != n_segments:
            raise InputError(f"system {quote(system)}'s block ends after {len(block)} segment scores; the "
                             f"source has {n_segments} segments", path, ended[system])
    return out
