"""METEOR 1.5 alignment (Denkowski & Lavie 2011, sec. 2.1), exactly as Meteor's ``Aligner`` does it.

1. Every module stage (exact, stem, synonym, paraphrase, in the configured order) adds all its
   candidate matches between the hypothesis (line 1) and the reference (line 2); matches are
   indexed by their start in the reference.
2. A candidate that is the only one starting at its reference position and whose words no other
   candidate covers is fixed ("one-to-one, non-overlapping matches are definite").
3. A left-to-right beam search (beam 40) over reference positions resolves the rest. Paths are
   ranked by (more weighted matched words, fewer chunks, smaller distance), with the aligner's
   own weights (exact 1.0, others 0.5) added to *integer* counters as Java's ``+=`` does. The
   search reproduces Meteor's quirks: the distance of a chosen match is added to the path it
   branched from, and a used word that is neither inside a match nor a fixed match drops its path.

Identical sentences use the exact stage only (Meteor's guard against beam-search errors).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

BEAM_SIZE = 40
ALIGN_WEIGHTS = {0: 1.0}  # stage 0 (exact) 1.0; every other stage 0.5 (MeteorScorer.loadConfiguration)


@dataclass(frozen=True)
class Match:
    """One candidate match: ``length`` reference words at ``start`` aligned to hypothesis words."""

    module: int  # stage index in the module list
    start: int  # reference (line 2) position
    length: int
    match_start: int  # hypothesis (line 1) position
    match_length: int


class Stage:
    """Candidate matches by reference start position, with per-word coverage counts."""

    def __init__(self, hyp: Sequence[str], ref: Sequence[str]) -> None:
        self.hyp, self.ref = hyp, ref
        self.matches: list[list[Match]] = [[] for _ in ref]
        self.cover1 = [0] * len(hyp)
        self.cover2 = [0] * len(ref)

    def add(self, m: Match) -> None:
        """Record a candidate match and the words it covers."""
        self.matches[m.start].append(m)
        for k in range(m.match_length):
            self.cover1[m.match_start + k] += 1
        for k in range(m.length):
            self.cover2[m.start + k] += 1


class PartialPath:
    """A partial alignment of the beam search (Meteor's ``PartialAlignment``)."""

    __slots__ = ("matches", "used1", "used2", "m1", "m2", "chunks", "idx", "last_end", "distance")

    def __init__(self, n1: int, n2: int) -> None:
        self.matches: list[Match | None] = [None] * n2
        self.used1 = [False] * n1
        self.used2 = [False] * n2
        self.m1 = 0  # weighted matched words, Java int (hypothesis side)
        self.m2 = 0  # same, reference side
        self.chunks = 0
        self.idx = 0
        self.last_end = -1
        self.distance = 0

    def copy(self) -> PartialPath:
        """A new path with the same state (``new PartialAlignment(path)``)."""
        p = PartialPath.__new__(PartialPath)
        p.matches, p.used1, p.used2 = self.matches[:], self.used1[:], self.used2[:]
        p.m1, p.m2, p.chunks, p.idx = self.m1, self.m2, self.chunks, self.idx
        p.last_end, p.distance = self.last_end, self.distance
        return p

    def is_used(self, m: Match) -> bool:
        """Whether any word of a match is already aligned on either side."""
        return (any(self.used2[m.start:m.start + m.length])
                or any(self.used1[m.match_start:m.match_start + m.match_length]))

    def set_used(self, m: Match) -> None:
        """Mark the words of a match as aligned."""
        self.used2[m.start:m.start + m.length] = [True] * m.length
        self.used1[m.match_start:m.match_start + m.match_length] = [True] * m.match_length

    def take(self, m: Match) -> None:
        """Count a match: Java int ``+=`` of weighted lengths, chunk break, advance."""
        w = ALIGN_WEIGHTS.get(m.module, 0.5)
        self.m1 = int(self.m1 + m.match_length * w)
        self.m2 = int(self.m2 + m.length * w)
        if self.last_end != -1 and m.match_start != self.last_end:
            self.chunks += 1
        self.idx = m.start + m.length
        self.last_end = m.match_start + m.match_length


def _rank(p: PartialPath) -> tuple[int, int, int]:
    """Meteor's ``PARTIAL_COMPARE_TOTAL``: more matches, then fewer chunks, then less distance."""
    return (-(p.m1 + p.m2), p.chunks, p.distance)


def definite_path(stage: Stage) -> PartialPath:
    """The start path: every one-to-one, non-overlapping candidate is fixed."""
    path = PartialPath(len(stage.hyp), len(stage.ref))
    for j, cands in enumerate(stage.matches):
        if len(cands) != 1:
            continue
        m = cands[0]
        if all(stage.cover2[j + k] == 1 for k in range(m.length)) and all(
                stage.cover1[m.match_start + k] == 1 for k in range(m.match_length)):
            path.matches[j] = m
            path.set_used(m)
    return path


def _advance(path: PartialPath, current: int, cands: list[Match], out: list[PartialPath]) -> None:
    """One beam step for one path at reference position ``current`` (Meteor's ``resolve`` body)."""
    if path.used2[current]:
        if current < path.idx:
            out.append(path)
        elif path.matches[path.idx] is not None:
            m = path.matches[path.idx]
            assert m is not None
            path.take(m)
            path.distance += abs(m.start - m.match_start)
            out.append(path)
        return
    for m in cands:
        if path.is_used(m):
            continue
        new = path.copy()
        new.set_used(m)
        new.matches[current] = m
        new.take(m)
        path.distance += abs(m.start - m.match_start)  # sic: Meteor adds it to the parent path
        out.append(new)
    if path.last_end != -1:
        path.chunks += 1
        path.last_end = -1
    path.idx += 1
    out.append(path)


def resolve(stage: Stage, start: PartialPath, beam: int = BEAM_SIZE) -> PartialPath:
    """Beam search for the best alignment, left to right over reference positions."""
    next_paths = [start]
    n = len(stage.matches)
    for current in range(n + 1):
        paths = sorted(next_paths, key=_rank)  # stable, as Java's Collections.sort
        next_paths = []
        for path in paths[:beam]:
            if current == n:
                if path.last_end != -1:
                    path.chunks += 1
                next_paths.append(path)
            else:
                _advance(path, current, stage.matches[current], next_paths)
        if not next_paths:
            next_paths.append(paths[0])
    return min(next_paths, key=_rank)


@dataclass(frozen=True)
class Alignment:
    """The chosen matches and what METEOR's scorer needs from them."""

    matches: tuple[Match, ...]  # in reference order
    chunks: int


Matcher = Callable[[int, Stage], None]


def align(hyp: Sequence[str], ref: Sequence[str], matchers: Sequence[Matcher]) -> Alignment:
    """Align a hypothesis with a reference using the matchers of each stage in order."""
    stage = Stage(hyp, ref)
    used = matchers[:1] if len(hyp) == len(ref) and list(hyp) == list(ref) else matchers
    for number, matcher in enumerate(used):
        matcher(number, stage)
    best = resolve(stage, definite_path(stage))
    chosen = tuple(m for m in best.matches if m is not None)
    return Alignment(chosen, count_chunks(best.matches))


def count_chunks(matches: Sequence[Match | None]) -> int:
    """Chunks of a final alignment (Meteor's ``getCountAndChunks``)."""
    chunks, idx, last_end = 0, 0, -1
    while idx < len(matches):
        m = matches[idx]
        if m is None:
            if last_end != -1:
                chunks += 1
                last_end = -1
            idx += 1
        else:
            if last_end != -1 and m.match_start != last_end:
                chunks += 1
            idx = m.start + m.length
            last_end = m.match_start + m.match_length
    return chunks + (last_end != -1)
