"""TER, translation edit rate with tercom's shift heuristics, as sacreBLEU 2.6.0's ``TER()`` computes it.

Snover et al. (2006), "A study of translation edit rate with targeted human annotation", AMTA, §2:
``TER = (insertions + deletions + substitutions + shifts) / average number of reference words``.
The minimum over shift sequences is approximated greedily as tercom does: repeatedly apply the
block shift that reduces the (beam-limited) word edit distance most, ranked by gain, then length,
then earliest hypothesis position, then earliest target position; shifts of at most 10 words,
at most 50 positions away, only of mis-aligned words onto mis-aligned reference words, and at most
1000 candidate shifts per segment. The edit distance is a Levenshtein distance restricted to a beam
of 25 cells around the length-ratio diagonal, preferring match/substitution, then deletion, then
insertion on ties (this decides the alignment and so which shifts are tried).

Defaults as sacreBLEU: lower-cased (``case_sensitive=False``), whitespace tokenisation, no
normalisation, punctuation kept. Multiple references: the fewest edits over the references, divided
by the average reference length. Scores on sacreBLEU's 0-100 scale; ``TER`` is an error rate
(lower is better, may exceed 100) and ``-TER`` (Asiya's name) is its negation.

Statistics per segment: ``[edits, average reference length]``. Edit counts are cached per unique
(hypothesis, reference) word-sequence pair, so references shared by several reference sets and
repeated segments are computed once.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from mteval.errors import InputError
from mteval.metrics.base import MetricInfo, Side, StatsFamily
from mteval.metrics.registry import register

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000
_INF = 10 ** 16
# Edit operations (rewriting the hypothesis into the reference).
_NOP, _SUB, _DEL, _INS = 0, 1, 2, 3  # DEL consumes a hypothesis word, INS a reference word

Words = tuple[int, ...]


def _beam(n_hyp: int, n_ref: int) -> tuple[float, int]:
    """Length ratio and beam half-width of tercom's pseudo-diagonal band."""
    ratio = n_ref / n_hyp if n_hyp else 1
    return ratio, (math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH)


def _full_beam(n_hyp: int, n_ref: int) -> bool:
    """Whether the band covers every cell of rows 1..n_hyp-1 (the last row is always full)."""
    if n_hyp < 2:
        return True
    ratio, beam = _beam(n_hyp, n_ref)
    return math.floor((n_hyp - 1) * ratio) - beam <= 0 and math.floor(ratio) + beam >= n_ref + 1


class BeamEditDistance:
    """Beam-limited word Levenshtein distance to one reference, with a prefix cache of matrix rows.

    Rows depend only on the hypothesis prefix (and its total length, constant while shifting),
    so candidate shifts that keep a prefix reuse its rows.
    """

    def __init__(self, ref: Words) -> None:
        self.ref = ref
        self.n_ref = len(ref)
        self.first = ([j for j in range(self.n_ref + 1)], [_INS] * (self.n_ref + 1))
        self.cache: dict[int, Any] = {}

    def __call__(self, hyp: Words) -> tuple[int, list[int]]:
        """Edit distance and the operation trace (list of ``_NOP/_SUB/_DEL/_INS``)."""
        rows = [self.first]
        node = self.cache
        for word in hyp:
            hit = node.get(word)
            if hit is None:
                break
            node, row = hit
            rows.append(row)
        start = len(rows) - 1
        self._fill(hyp, rows, start)
        for i in range(start, len(hyp)):
            child: dict[int, Any] = {}
            node[hyp[i]] = (child, rows[i + 1])
            node = child
        return rows[-1][0][-1], self._trace(rows)

    def _fill(self, hyp: Words, rows: list, start: int) -> None:
        """Compute rows ``start+1 .. len(hyp)`` inside the beam (tercom's pseudo-diagonal)."""
        n_hyp, n_ref, ref = len(hyp), self.n_ref, self.ref
        ratio, beam = _beam(n_hyp, n_ref)
        for i in range(start + 1, n_hyp + 1):
            prev_cost = rows[i - 1][0]
            cost = [_INF] * (n_ref + 1)
            ops = [-1] * (n_ref + 1)
            diag = math.floor(i * ratio)
            lo = max(0, diag - beam)
            hi = n_ref + 1 if i == n_hyp else min(n_ref + 1, diag + beam)
            word = hyp[i - 1]
            if lo == 0 and hi > 0:
                cost[0], ops[0] = prev_cost[0] + 1, _DEL
                lo = 1
            for j in range(lo, hi):
                if word == ref[j - 1]:
                    best, op = prev_cost[j - 1], _NOP
                else:
                    best, op = prev_cost[j - 1] + 1, _SUB
                c = prev_cost[j] + 1
                if c < best:
                    best, op = c, _DEL
                c = cost[j - 1] + 1
                if c < best:
                    best, op = c, _INS
                cost[j], ops[j] = best, op
            rows.append((cost, ops))

    def _trace(self, rows: list) -> list[int]:
        """Operations along the best path, from the start."""
        i, j = len(rows) - 1, self.n_ref
        trace = []
        while i > 0 or j > 0:
            op = rows[i][1][j]
            trace.append(op)
            if op == _NOP or op == _SUB:
                i -= 1
                j -= 1
            elif op == _INS:
                j -= 1
            else:
                i -= 1
        trace.reverse()
        return trace


def _alignment(trace: list[int]) -> tuple[dict[int, int], list[int], list[int]]:
    """Reference-to-hypothesis positions and error flags of both sides, from an edit trace."""
    pos_h = pos_r = -1
    align: dict[int, int] = {}
    hyp_err: list[int] = []
    ref_err: list[int] = []
    for op in trace:
        if op == _NOP or op == _SUB:
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            hyp_err.append(op)
            ref_err.append(op)
        elif op == _DEL:
            pos_h += 1
            hyp_err.append(1)
        else:
            pos_r += 1
            align[pos_r] = pos_h
            ref_err.append(1)
    return align, ref_err, hyp_err


def _shift(words: Words, start: int, length: int, target: int) -> Words:
    """Move ``words[start:start+length]`` to before position ``target`` (sacreBLEU's convention)."""
    if target < start:
        return words[:target] + words[start:start + length] + words[target:start] + words[start + length:]
    if target > start + length:
        return words[:start] + words[start + length:target] + words[start:start + length] + words[target:]
    return (words[:start] + words[start + length:length + target] + words[start:start + length]
            + words[length + target:])


def _matching_blocks(hyp: Words, ref: Words) -> Iterator[tuple[int, int, int]]:
    """(hyp start, ref start, length) of equal word blocks, tercom's shift candidates, in its order."""
    n_h, n_r = len(hyp), len(ref)
    for sh in range(n_h):
        word = hyp[sh]
        for sr in range(max(0, sh - MAX_SHIFT_DIST), min(n_r, sh + MAX_SHIFT_DIST + 1)):
            if ref[sr] != word:
                continue
            length = 0
            while length < MAX_SHIFT_SIZE and hyp[sh + length] == ref[sr + length]:
                length += 1
                yield sh, sr, length
                if sh + length == n_h or sr + length == n_r:
                    break


def _best_shift(hyp: Words, ref: Words, dist: BeamEditDistance,
                checked: int) -> tuple[int, Words, int]:
    """The shift that reduces the edit distance most (Snover et al. 2006, §2.1; tercom's ranking)."""
    score, trace = dist(hyp)
    align, ref_err, hyp_err = _alignment(trace)
    best: tuple[int, int, int, int] | None = None
    full = _full_beam(len(hyp), len(ref))
    best_words = hyp
    for sh, sr, length in _matching_blocks(hyp, ref):
        if not any(hyp_err[sh:sh + length]) or not any(ref_err[sr:sr + length]):
            continue
        if sh <= align[sr] < sh + length:
            continue
        prev = -1
        for offset in range(-1, length):
            if sr + offset == -1:
                idx = 0
            elif sr + offset in align:
                idx = align[sr + offset] + 1
            else:
                break
            if idx == prev:
                continue
            prev = idx
            shifted = _shift(hyp, sh, length, idx)
            checked += 1
            cost = Levenshtein.distance(shifted, ref)  # exact; a lower bound of the beam distance
            if not full:
                if best is not None and (score - cost, length, -sh, -idx) <= best:
                    continue  # cannot beat the best shift even at the lower bound
                cost = dist(shifted)[0]
            key = (score - cost, length, -sh, -idx)
            if best is None or key > best:
                best, best_words = key, shifted
        if checked >= MAX_SHIFT_CANDIDATES:
            break
    return (0, hyp, checked) if best is None else (best[0], best_words, checked)


def ter_edits(hyp: Words, ref: Words) -> int:
    """Number of edits (shifts + beam edit distance) turning ``hyp`` into ``ref`` (tercom's TER numerator)."""
    if not ref:
        return len(hyp)
    dist = BeamEditDistance(ref)
    shifts, checked = 0, 0
    while True:
        gain, shifted, checked = _best_shift(hyp, ref, dist, checked)
        if checked >= MAX_SHIFT_CANDIDATES or gain <= 0:
            break
        shifts += 1
        hyp = shifted
    return shifts + dist(hyp)[0]


class _Tokens:
    """Word-id sequences per unique string (lower-cased unless case-sensitive), computed once."""

    def __init__(self, lowercase: bool) -> None:
        self.lowercase = lowercase
        self.ids: dict[str, int] = {}
        self.cache: dict[str, Words] = {}

    def __call__(self, text: str) -> Words:
        """Word ids of one segment (tercom tokenisation without normalisation: whitespace split)."""
        words = self.cache.get(text)
        if words is None:
            tokens = (text.lower() if self.lowercase else text).split()
            words = tuple(self.ids.setdefault(w, len(self.ids)) for w in tokens)
            self.cache[text] = words
        return words


@register
class TER(StatsFamily):
    """Translation edit rate (tercom-compatible, sacreBLEU 2.6.0 ``TER()`` defaults); ``-TER`` negated."""

    family = "TER"
    variants = ("TER", "-TER")

    def __init__(self, case_sensitive: bool = False, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._tokens = _Tokens(lowercase=not case_sensitive)
        self._edits: dict[tuple[Words, Words], int] = {}

    def info(self, variant: str) -> MetricInfo:
        """``TER`` is an error rate >= 0 (0-100 scale, unbounded above); ``-TER`` its negation."""
        if variant == "TER":
            return MetricInfo(variant, self.family, higher_is_better=False, lower_bound=0.0,
                              upper_bound=None, description="translation edit rate x 100 (error)")
        return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=None,
                          upper_bound=0.0, description="negated translation edit rate x 100")

    def prepare(self, references: Sequence[Side]) -> list[list[Words]]:
        """Word ids of every reference segment."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return [[self._tokens(t) for t in r.texts] for r in references]

    def edits(self, hyp: Words, ref: Words) -> int:
        """Cached :func:`ter_edits`."""
        key = (hyp, ref)
        found = self._edits.get(key)
        if found is None:
            found = self._edits[key] = ter_edits(hyp, ref)
        return found

    def segment_stats(self, hypothesis: Side, prepared: list[list[Words]]) -> np.ndarray:
        """``[fewest edits over references, average reference length]`` per segment."""
        stats = np.zeros((len(hypothesis.texts), 2), dtype=np.float64)
        for ref in prepared:
            if len(ref) != len(hypothesis.texts):
                raise InputError(f"{hypothesis.name}: {len(hypothesis.texts)} segments but a reference "
                                 f"has {len(ref)}")
        for i, text in enumerate(hypothesis.texts):
            hyp = self._tokens(text)
            refs = [ref[i] for ref in prepared]
            stats[i, 0] = min(self.edits(hyp, r) for r in refs)
            stats[i, 1] = sum(len(r) for r in refs) / len(refs)
        return stats

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """100 x edits / reference length (100 when only the reference is empty, 0 when both are)."""
        stats = np.atleast_2d(stats)
        edits, length = stats[:, 0], stats[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ter = np.where(length > 0, edits / np.where(length > 0, length, 1),
                           np.where(edits > 0, 1.0, 0.0))
        return 100.0 * ter if variant == "TER" else -100.0 * ter
