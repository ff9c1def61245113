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


def _masks(m: Match) -> tuple[int, int]:
    """Bit masks of the hypothesis and reference words a match covers."""
    return ((1 << m.match_length) - 1) << m.match_start, ((1 << m.length) - 1) << m.start


class PartialPath:
    """A partial alignment of the beam search (Meteor's ``PartialAlignment``).

    Used words are bit masks and the matches chosen by the search a linked chain, so that a copy
    costs a few integers; the definite matches are shared by all paths (see :func:`resolve`).
    """

    __slots__ = ("chain", "used1", "used2", "m1", "m2", "chunks", "idx", "last_end", "distance")

    def __init__(self, n1: int = 0, n2: int = 0) -> None:
        self.chain: tuple | None = None  # (match, previous chain) of the matches chosen by the search
        self.used1 = 0  # hypothesis words in use (bit i)
        self.used2 = 0  # reference words in use (bit j)
        self.m1 = 0  # weighted matched words, Java int (hypothesis side)
        self.m2 = 0  # same, reference side
        self.chunks = 0
        self.idx = 0
        self.last_end = -1
        self.distance = 0

    def copy(self) -> PartialPath:
        """A new path with the same state (``new PartialAlignment(path)``)."""
        p = PartialPath.__new__(PartialPath)
        p.chain, p.used1, p.used2 = self.chain, self.used1, self.used2
        p.m1, p.m2, p.chunks, p.idx = self.m1, self.m2, self.chunks, self.idx
        p.last_end, p.distance = self.last_end, self.distance
        return p

    def take(self, m: Match) -> None:
        """Count a match: Java int ``+=`` of weighted lengths, chunk break, advance."""
        w = 1.0 if m.module == 0 else 0.5  # the aligner's weights (MeteorScorer.loadConfiguration)
        self.m1 = int(self.m1 + m.match_length * w)
        self.m2 = int(self.m2 + m.length * w)
        if self.last_end != -1 and m.match_start != self.last_end:
            self.chunks += 1
        self.idx = m.start + m.length
        self.last_end = m.match_start + m.match_length


def _rank(p: PartialPath) -> tuple[int, int, int]:
    """Meteor's ``PARTIAL_COMPARE_TOTAL``: more matches, then fewer chunks, then less distance."""
    return (-(p.m1 + p.m2), p.chunks, p.distance)


def definite_matches(stage: Stage) -> dict[int, Match]:
    """One-to-one, non-overlapping candidates, by reference position: they are fixed."""
    fixed = {}
    for j, cands in enumerate(stage.matches):
        if len(cands) != 1:
            continue
        m = cands[0]
        if all(stage.cover2[j + k] == 1 for k in range(m.length)) and all(
                stage.cover1[m.match_start + k] == 1 for k in range(m.match_length)):
            fixed[j] = m
    return fixed


Candidate = tuple[Match, int, int]  # match, hypothesis mask, reference mask


def _advance(path: PartialPath, current: int, cands: list[Candidate], fixed: dict[int, Match],
             out: list[PartialPath]) -> None:
    """One beam step for one path at reference position ``current`` (Meteor's ``resolve`` body)."""
    if path.used2 >> current & 1:
        if current < path.idx:
            out.append(path)
        elif path.idx in fixed:
            m = fixed[path.idx]
            path.take(m)
            path.distance += abs(m.start - m.match_start)
            out.append(path)
        return
    for m, mask1, mask2 in cands:
        if path.used1 & mask1 or path.used2 & mask2:
            continue
        new = path.copy()
        new.used1 |= mask1
        new.used2 |= mask2
        new.chain = (m, path.chain)
        new.take(m)
        path.distance += abs(m.start - m.match_start)  # sic: Meteor adds it to the parent path
        out.append(new)
    if path.last_end != -1:
        path.chunks += 1
        path.last_end = -1
    path.idx += 1
    out.append(path)


def resolve(stage: Stage, fixed: dict[int, Match], beam: int = BEAM_SIZE) -> list[Match | None]:
    """Beam search for the best alignment, left to right over reference positions.

    Returns the best path's matches by reference start position (fixed ones included).
    """
    start = PartialPath()
    for m in fixed.values():
        mask1, mask2 = _masks(m)
        start.used1 |= mask1
        start.used2 |= mask2
    cands = [[(m, *_masks(m)) for m in ms] for ms in stage.matches]
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
                _advance(path, current, cands[current], fixed, next_paths)
        if not next_paths:
            next_paths.append(paths[0])
    best = min(next_paths, key=_rank)
    out: list[Match | None] = [None] * n
    for j, m in fixed.items():
        out[j] = m
    chain = best.chain
    while chain is not None:
        out[chain[0].start] = chain[0]
        chain = chain[1]
    return out


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
    best = resolve(stage, definite_matches(stage))
    return Alignment(tuple(m for m in best if m is not None), count_chunks(best))


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
