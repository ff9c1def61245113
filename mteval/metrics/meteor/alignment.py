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

Words are compared as Meteor 1.4's ``Stage`` compares them when a ``key`` is given: the jar keeps each
word's (and each stem's) Java ``String.hashCode()``, so two different words with the same hash match
exactly (French ``n'`` and ``le``: both 3449). mteval passes that key outside English
(``MeteorFamily``); in English words are compared as strings (English numbers unchanged).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

BEAM_SIZE = 40


@dataclass(frozen=True, slots=True)
class Match:
    """One candidate match: ``length`` reference words at ``start`` aligned to hypothesis words."""

    module: int  # stage index in the module list
    start: int  # reference (line 2) position
    length: int
    match_start: int  # hypothesis (line 1) position
    match_length: int


class Stage:
    """Candidate matches by reference start position, with per-word coverage counts."""

    def __init__(self, hyp: Sequence[str], ref: Sequence[str], key: Callable[[str], Hashable] | None = None) -> None:
        self.hyp, self.ref = hyp, ref
        self.key: Callable[[str], Hashable] = key if key is not None else _same  # what "the same word" compares
        self.hyp_keys: Sequence[Hashable] = hyp if key is None else [key(w) for w in hyp]
        self.ref_keys: Sequence[Hashable] = ref if key is None else [key(w) for w in ref]
        self.matches: list[list[Match]] = [[] for _ in ref]
        self.cover1 = [0] * len(hyp)
        self.cover2 = [0] * len(ref)
        self.exact: tuple[int, dict[Hashable, np.ndarray]] | None = None  # implicit identical-word matches

    def add_exact(self, module: int) -> None:
        """Every identical-word candidate (reference position outer, hypothesis position inner, as
        Meteor adds them), kept implicit as the hypothesis positions of each word: a segment of one
        repeated word has |hyp| x |ref| of them. Must come before any other stage."""
        if any(self.matches):
            raise ValueError("the exact stage comes first")
        where: dict[Hashable, list[int]] = {}
        for i, w in enumerate(self.hyp_keys):
            where.setdefault(w, []).append(i)
        in_ref = Counter(self.ref_keys)
        for i, w in enumerate(self.hyp_keys):
            self.cover1[i] += in_ref.get(w, 0)
        for j, w in enumerate(self.ref_keys):
            self.cover2[j] += len(where.get(w, ()))
        self.exact = (module, {w: np.asarray(p, dtype=np.int64) for w, p in where.items()})

    def exact_starts(self, j: int) -> np.ndarray:
        """Hypothesis positions of the implicit identical-word candidates at reference position j."""
        if self.exact is None:
            return np.zeros(0, dtype=np.int64)
        return self.exact[1].get(self.ref_keys[j], np.zeros(0, dtype=np.int64))

    def count(self, j: int) -> int:
        """Number of candidates starting at reference position j."""
        return len(self.exact_starts(j)) + len(self.matches[j])

    def candidates(self, j: int) -> list[Match]:
        """The candidates starting at reference position j, in the order Meteor added them."""
        if self.exact is None:
            return self.matches[j]
        module = self.exact[0]
        return [Match(module, j, 1, i, 1) for i in self.exact_starts(j).tolist()] + self.matches[j]

    def add(self, m: Match) -> None:
        """Record a candidate match and the words it covers."""
        self.matches[m.start].append(m)
        for k in range(m.match_length):
            self.cover1[m.match_start + k] += 1
        for k in range(m.length):
            self.cover2[m.start + k] += 1


def _same(word: str) -> str:
    """Words compared as strings (the default key)."""
    return word


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
    for j in range(len(stage.ref)):
        if stage.count(j) != 1:
            continue
        m = stage.candidates(j)[0]
        if all(stage.cover2[j + k] == 1 for k in range(m.length)) and all(
                stage.cover1[m.match_start + k] == 1 for k in range(m.match_length)):
            fixed[j] = m
    return fixed


Candidate = tuple[Match, int, int]  # match, hypothesis mask, reference mask


class Beam:
    """The ``beam`` best proposals of one search step, as Meteor's stable sort would keep them.

    Every proposal gets a sequence number in the order Meteor appends it to ``nextPaths``; the
    kept ones are the smallest ``(rank, sequence)``. A new path is only *described* (parent, match,
    its distance) until it is kept: Meteor copies every candidate path, which for a long segment
    with frequent words is beam x (occurrences of the word) copies per reference position.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.heap: list[tuple] = []  # (-rank..., -seq, payload): the worst kept proposal on top
        self.seq = 0

    def worst(self) -> tuple[int, int, int, int] | None:
        """(rank, seq) of the worst kept proposal when the beam is full, else None."""
        if len(self.heap) < self.size:
            return None
        top = self.heap[0]
        return (-top[0], -top[1], -top[2], -top[3])

    def offer(self, rank: tuple[int, int, int], payload: Any, seq: int | None = None) -> None:
        """Propose a path (or a path description) with the next (or the given) sequence number."""
        if seq is None:
            seq = self.seq
            self.seq += 1
        key = (-rank[0], -rank[1], -rank[2], -seq, payload)
        if len(self.heap) < self.size:
            heapq.heappush(self.heap, key)
        elif key[:4] > self.heap[0][:4]:
            heapq.heapreplace(self.heap, key)

    def paths(self) -> list[PartialPath]:
        """The kept proposals in Meteor's sorted order, descriptions made into paths."""
        kept = sorted(self.heap, key=lambda e: (-e[0], -e[1], -e[2], -e[3]))
        return [e[4] if isinstance(e[4], PartialPath) else _child(*e[4]) for e in kept]


def _child(parent: PartialPath, m: Match, mask1: int, mask2: int, m1: int, m2: int, chunks: int,
           distance: int) -> PartialPath:
    """The path ``new PartialAlignment(path)`` + the match ``m``, from its description."""
    p = PartialPath.__new__(PartialPath)
    p.chain, p.used1, p.used2 = (m, parent.chain), parent.used1 | mask1, parent.used2 | mask2
    p.m1, p.m2, p.chunks, p.distance = m1, m2, chunks, distance
    p.idx, p.last_end = m.start + m.length, m.match_start + m.match_length
    return p


Prepared = tuple[Match, int, int, float, float, int, int]  # + weighted lengths, hyp start, distance
VECTOR_MIN = 16  # candidates at one position from which a beam step is vectorised


@dataclass(frozen=True)
class Position:
    """The candidate matches starting at one reference position, as a beam step reads them;
    ``arrays`` (hypothesis starts, weighted lengths, distances) when they are many one-word
    matches (:func:`_advance_vectorised`)."""

    cands: list[Prepared]
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
    exact: tuple[int, int] | None = None  # (module, reference position) of implicit exact candidates

    def head(self, c: int) -> tuple[Match, int, int]:
        """Candidate ``c`` and its hypothesis and reference masks."""
        if self.exact is None:
            return self.cands[c][:3]  # type: ignore[return-value]
        m = Match(self.exact[0], self.exact[1], 1, int(self.arrays[0][c]), 1)  # type: ignore[index]
        return (m, *_masks(m))


def _position(stage: Stage, j: int) -> Position:
    """What a beam step reads at reference position j: implicit exact candidates straight as
    arrays when they are the only ones and many (:func:`_step_vectorised`), else every candidate."""
    starts = stage.exact_starts(j)
    if stage.exact is not None and not stage.matches[j] and len(starts) >= VECTOR_MIN:
        w = 1.0 if stage.exact[0] == 0 else 0.5  # the aligner's weights (PartialPath.take)
        weights = np.full(len(starts), 1 * w)
        return Position([], (starts, weights, weights.copy(), np.abs(j - starts)), (stage.exact[0], j))
    return _prepared(stage.candidates(j))


def _prepared(matches: Sequence[Match]) -> Position:
    """What a beam step reads of each candidate match starting at one reference position."""
    cands = []
    for m in matches:
        w = 1.0 if m.module == 0 else 0.5  # the aligner's weights (PartialPath.take)
        cands.append((m, *_masks(m), m.match_length * w, m.length * w, m.match_start,
                      abs(m.start - m.match_start)))
    arrays = None
    if len(cands) >= VECTOR_MIN and all(m.length == 1 and m.match_length == 1 for m in matches):
        arrays = tuple(np.array([c[k] for c in cands]) for k in (5, 3, 4, 6))
    return Position(cands, arrays)  # type: ignore[arg-type]


def _advance_used(path: PartialPath, current: int, fixed: dict[int, Match]) -> PartialPath | None:
    """A path whose reference word ``current`` is in use: it goes on (inside a match, or taking the
    fixed match at its index), or is dropped (None), as in Meteor."""
    if current < path.idx:
        return path
    if path.idx in fixed:
        m = fixed[path.idx]
        path.take(m)
        path.distance += abs(m.start - m.match_start)
        return path
    return None


def _advance(path: PartialPath, current: int, position: Position, fixed: dict[int, Match],
             out: Beam) -> None:
    """One beam step for one path at reference position ``current`` (Meteor's ``resolve`` body)."""
    if path.used2 >> current & 1:
        kept = _advance_used(path, current, fixed)
        if kept is not None:
            out.offer(_rank(kept), kept)
        return
    used1, used2, last_end, chunks = path.used1, path.used2, path.last_end, path.chunks
    m1_0, m2_0, distance = path.m1, path.m2, path.distance
    worst = out.worst()
    for m, mask1, mask2, w1, w2, match_start, step in position.cands:
        if used1 & mask1 or used2 & mask2:
            continue
        m1, m2 = int(m1_0 + w1), int(m2_0 + w2)  # Java's int += of a weighted length
        c = chunks + (last_end != -1 and match_start != last_end)
        if worst is None or (-(m1 + m2), c, distance, out.seq) < worst:
            out.offer((-(m1 + m2), c, distance), (path, m, mask1, mask2, m1, m2, c, distance))
            worst = out.worst()
        else:
            out.seq += 1  # not kept, but it holds its place in Meteor's order
        distance += step  # sic: Meteor adds the distance to the parent path
    path.distance = distance
    _skip(path)
    out.offer(_rank(path), path)


def _skip(path: PartialPath) -> None:
    """The path that takes no match at this position: close its chunk, advance."""
    if path.last_end != -1:
        path.chunks += 1
        path.last_end = -1
    path.idx += 1


def _children(expanding: list[PartialPath], position: Position, n_hyp: int) -> dict[str, np.ndarray]:
    """For every expanding path (rows) and one-word candidate (columns): whether the hypothesis
    word is free, and the new path's weighted matches, chunks and distance (before the parent's
    own update), as :func:`_advance` computes them one by one."""
    starts, w1, w2, steps = position.arrays  # type: ignore[misc]
    width = (n_hyp + 7) // 8
    free = np.zeros((len(expanding), len(starts)), dtype=bool)
    for row, p in enumerate(expanding):
        bits = np.unpackbits(np.frombuffer(p.used1.to_bytes(width, "little"), dtype=np.uint8),
                             bitorder="little")
        free[row] = bits[starts] == 0
    state = np.array([(p.m1, p.m2, p.last_end, p.chunks, p.distance) for p in expanding],
                     dtype=np.int64).reshape(-1, 5)
    m1 = (state[:, :1].astype(np.float64) + w1[None, :]).astype(np.int64)  # Java's int +=, >= 0
    m2 = (state[:, 1:2].astype(np.float64) + w2[None, :]).astype(np.int64)
    last = state[:, 2:3]
    chunks = state[:, 3:4] + ((last != -1) & (starts[None, :] != last))
    taken = np.where(free, steps[None, :], 0)
    before = state[:, 4:5] + np.cumsum(taken, axis=1) - taken
    return {"free": free, "m1": m1, "m2": m2, "chunks": chunks, "distance": before, "taken": taken,
            "order": np.cumsum(free, axis=1) - free}


def _best_free(ch: dict[str, np.ndarray], beam: int) -> np.ndarray:
    """The free candidates that can be among the ``beam`` best: within one path, new paths with the
    same weighted matches and chunks rank by distance, which never decreases along the candidates,
    then by sequence; so per path and (matches, chunks) class only the first ``beam`` count."""
    free = ch["free"]
    if free.shape[1] <= beam:
        return free
    total = ch["m1"] + ch["m2"]
    cls = (total - total.min(axis=1, keepdims=True)) * 2 + (ch["chunks"] - ch["chunks"].min(axis=1, keepdims=True))
    keep = np.zeros_like(free)
    for c in np.unique(cls[free]).tolist():
        sel = free & (cls == c)
        keep |= sel & (np.cumsum(sel, axis=1) <= beam)
    return keep


def _step_vectorised(paths: list[PartialPath], current: int, position: Position,
                     fixed: dict[int, Match], beam: int, n_hyp: int) -> list[PartialPath]:
    """One whole beam step at a position with many one-word candidates, all paths at once: the
    proposals Meteor appends (each path's new paths, then the path itself), their ranks and
    sequence numbers as arrays, and the ``beam`` smallest ``(rank, sequence)`` kept in order."""
    expanding = [p for p in paths if not p.used2 >> current & 1]
    ch = _children(expanding, position, n_hyp)
    own: list[PartialPath] = []  # proposals that are paths themselves
    own_keys: list[tuple[int, int, int, int]] = []
    base = np.zeros(len(expanding), dtype=np.int64)
    seq = row = 0
    for p in paths:
        if p.used2 >> current & 1:
            kept = _advance_used(p, current, fixed)
        else:
            base[row] = seq
            seq += int(ch["free"][row].sum())
            p.distance += int(ch["taken"][row].sum())
            _skip(p)
            kept, row = p, row + 1
        if kept is not None:
            own.append(kept)
            own_keys.append((*_rank(kept), seq))
            seq += 1
    rows, cols = np.nonzero(_best_free(ch, beam))
    keys = np.array(own_keys, dtype=np.int64).reshape(-1, 4)
    r0 = np.concatenate((-(ch["m1"] + ch["m2"])[rows, cols], keys[:, 0]))
    r1 = np.concatenate((ch["chunks"][rows, cols], keys[:, 1]))
    r2 = np.concatenate((ch["distance"][rows, cols], keys[:, 2]))
    sq = np.concatenate((base[rows] + ch["order"][rows, cols], keys[:, 3]))
    out = []
    for k in np.lexsort((sq, r2, r1, r0))[:beam].tolist():
        if k >= len(rows):
            out.append(own[k - len(rows)])
            continue
        r, c = int(rows[k]), int(cols[k])
        m, mask1, mask2 = position.head(c)
        out.append(_child(expanding[r], m, mask1, mask2, int(ch["m1"][r, c]), int(ch["m2"][r, c]),
                          int(ch["chunks"][r, c]), int(ch["distance"][r, c])))
    return out


def resolve(stage: Stage, fixed: dict[int, Match], beam: int = BEAM_SIZE) -> list[Match | None]:
    """Beam search for the best alignment, left to right over reference positions.

    Returns the best path's matches by reference start position (fixed ones included).
    """
    start = PartialPath()
    for m in fixed.values():
        mask1, mask2 = _masks(m)
        start.used1 |= mask1
        start.used2 |= mask2
    next_paths = [start]
    n = len(stage.ref)
    for current in range(n + 1):
        paths = sorted(next_paths, key=_rank)  # stable, as Java's Collections.sort
        if current == n:
            next_paths = []
            for path in paths[:beam]:
                if path.last_end != -1:
                    path.chunks += 1
                next_paths.append(path)
            break
        position = _position(stage, current)  # one position at a time: masks grow with n
        if position.arrays is not None:
            next_paths = _step_vectorised(paths[:beam], current, position, fixed, beam, len(stage.hyp))
        else:
            step = Beam(beam)
            for path in paths[:beam]:
                _advance(path, current, position, fixed, step)
            next_paths = step.paths()
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


def align(hyp: Sequence[str], ref: Sequence[str], matchers: Sequence[Matcher],
          key: Callable[[str], Hashable] | None = None) -> Alignment:
    """Align a hypothesis with a reference using the matchers of each stage in order (``key``: what
    the stages compare words by, see :class:`Stage`; default the words themselves)."""
    stage = Stage(hyp, ref, key)
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
