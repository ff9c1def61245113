"""What the report reads from the cache: every score file once, its signature, and the files that
are missing or damaged (a partial report names them and shows the rest)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mteval.errors import CacheError
from mteval.evaluate.outside_qarla import SubsetTexts, level_records
from mteval.evaluate.selection import Selection
from mteval.io.corpus import DocumentIndex
from mteval.scores import ScoreSet
from mteval.store.cache import ScoreCache, refset_name
from mteval.store.iqxml import ScoreFile

Key = tuple[str, str, str]  # (target, refset, metric)


class RecordingCache:
    """A :class:`ScoreCache` reader that parses each file once and remembers the signatures it
    read and the files it could not (missing or damaged), for the report's foot and banner.
    ``load`` keeps the cache's contract (CacheError when a file is absent), so the pipeline's
    QARLA and correlation functions read through it."""

    def __init__(self, cache: ScoreCache) -> None:
        self.cache = cache
        self.files: dict[Key, tuple[Path, ScoreFile]] = {}
        self.problems: dict[Key, str] = {}

    def read(self, target: str, refset: str, metric: str, n_segments: int | None = None) -> tuple[Path, ScoreFile]:
        """The file of a triple and its content (parsed once), as ``ScoreCache.read``; CacheError,
        remembered, when it is missing or damaged."""
        key = (target, refset, metric)
        if key in self.files:
            return self.files[key]
        if key in self.problems:
            raise CacheError(self.problems[key])
        try:
            path = self.cache.find(target, refset, metric)
            if path is None:
                raise CacheError("missing", self.cache.root / target / refset / f"{metric}.xml")
            found = self.cache.read(target, refset, metric, n_segments)[1]  # checked, when the cache checks
        except CacheError as exc:
            self.problems[key] = exc.format()
            raise
        self.files[key] = (path, found)
        return path, found

    def load(self, target: str, refset: str, metric: str, n_segments: int | None = None) -> ScoreSet:
        """Scores of a triple (:meth:`read`)."""
        return self.read(target, refset, metric, n_segments)[1].scores

    def get(self, target: str, refset: str, metric: str, n_segments: int) -> ScoreSet | None:
        """:meth:`load`, or None when the file cannot be read."""
        try:
            return self.load(target, refset, metric, n_segments)
        except CacheError:
            return None

    def complete(self, pairs: Sequence[tuple[str, str]], metric: str, n_segments: int) -> bool:
        """Whether every (target, refset) file of a metric reads (each is tried, so that all the
        missing ones are named)."""
        found = [self.get(target, refset, metric, n_segments) is not None for target, refset in pairs]
        return all(found)


@dataclass
class SystemScores:
    """Scores of the selected systems against the full reference set, per metric."""

    metrics: tuple[str, ...]
    systems: tuple[str, ...]
    refset: str
    system: np.ndarray  # (metrics, systems) system scores, NaN where the file is missing
    segments: np.ndarray  # (metrics, systems, segments) segment scores, NaN where missing
    complete: tuple[bool, ...]  # per metric: every system's file read
    signatures: dict[str, list[str]] = field(default_factory=dict)  # metric -> distinct signatures


def system_scores(reader: RecordingCache, sel: Selection, documents: DocumentIndex,
                  texts: SubsetTexts | None = None) -> SystemScores:
    """Read every (system, metric) file against the joined references; the system score is
    ``iqeval -doOQ -G sys``'s (the stored one, or with -T the metric's own subset rule; NIST
    computed again on those lines from ``texts``)."""
    metrics, systems, n_segments = sel.metrics, sel.systems, len(documents)
    rows = sel.rows
    refset = refset_name(tuple(sel.references))
    sys_scores = np.full((len(metrics), len(systems)), np.nan)
    seg_scores = np.full((len(metrics), len(systems), len(rows)), np.nan)
    complete = []
    for m, metric in enumerate(metrics):
        ok = True
        for s, system in enumerate(systems):
            try:
                found = reader.read(system, refset, metric, n_segments)
            except CacheError:
                ok = False
                continue
            seg_scores[m, s] = found[1].scores.segments[rows]
            base = {"target": system, "refset": refset, "metric": metric}
            sys_scores[m, s] = level_records(found, base, dataclasses.replace(sel, level="sys"), documents,
                                           texts=texts)[0]["score"]
        complete.append(ok)
    return SystemScores(tuple(metrics), tuple(systems), refset, sys_scores, seg_scores, tuple(complete))


def signatures_of(reader: RecordingCache) -> dict[str, list[str]]:
    """metric -> the distinct signatures of the files read (usually one)."""
    out: dict[str, list[str]] = {}
    for (_, _, metric), (_, found) in sorted(reader.files.items()):
        signature = found.signature
        seen = out.setdefault(metric, [])
        if signature not in seen:
            seen.append(signature)
    return out


def problem_lines(reader: RecordingCache, limit: int = 50) -> tuple[list[str], int]:
    """The first ``limit`` unreadable files as ``PATH: problem``, and how many in all."""
    lines = [why for _, why in sorted(reader.problems.items())]
    return lines[:limit], len(lines)
