"""How much two texts' lines share, line by line: the overlap (Jaccard) of their lower-cased words, or
of their characters for a line of fewer than :data:`MIN_WORDS` words (Chinese, Japanese, Thai). The
measure of the checks that a text's lines are the reference's (:mod:`mteval.setup.shifted`,
:mod:`mteval.setup.unrelated`): a translation shares far more of them with its own reference line
than with any other.

Each text is read once into the vocabulary ids of its lines' sets (one vocabulary for all the texts
of a check), flat, so that a whole column of overlaps (every line against the line ``k`` further, or
against any other line) is one sort of numpy integers: a unit of a line pair found twice is in both
lines. The values are exactly ``len(a & b) / len(a | b)`` of the line sets (0 when either is empty).
Numpy only: a lexical run imports nothing heavier (``tests/test_lazy_imports.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.io.corpus import Text

MIN_WORDS = 3
OFFSETS = (-3, -2, -1, 0, 1, 2, 3)  # the rows of a table: lines this far away in the reference
OWN = OFFSETS.index(0)


def features(line: str) -> frozenset[str]:
    """What a line is compared by: its lower-cased words, or its characters when it has fewer than
    :data:`MIN_WORDS` (a script written without spaces)."""
    words = line.lower().split()
    return frozenset(words) if len(words) >= MIN_WORDS else frozenset("".join(words))


@dataclass(frozen=True)
class LineSets:
    """A text's line :func:`features` as vocabulary ids: line ``i``'s are ``ids[starts[i]:starts[i] + sizes[i]]``."""

    ids: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    def __len__(self) -> int:
        return len(self.sizes)

    def gathered(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ids of these lines, flat, and for each the position of its line in ``rows``."""
        sizes = self.sizes[rows]
        shift = self.starts[rows] - np.concatenate([[0], np.cumsum(sizes)[:-1]])
        return self.ids[np.repeat(shift, sizes) + np.arange(int(sizes.sum()))], np.repeat(np.arange(len(rows)), sizes)


class LineFits:
    """The overlaps of texts' lines, each text read once (by its id, kept alive with it so that no
    other text gets its id) and each whole table of two texts computed once."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.known: dict[int, tuple[object, LineSets]] = {}
        self.tables: dict[tuple[int, int], np.ndarray] = {}

    def sets(self, text: Text) -> LineSets:
        """The :class:`LineSets` of ``text``."""
        if id(text) not in self.known:
            self.known[id(text)] = (text, self.of_lines(text.segments))
        return self.known[id(text)][1]

    def of_lines(self, lines: Sequence[str]) -> LineSets:
        """The :class:`LineSets` of some lines (not kept)."""
        sets = [features(line) for line in lines]
        units = [unit for found in sets for unit in found]
        new = set(units).difference(self.vocabulary)
        self.vocabulary.update(zip(new, range(len(self.vocabulary), len(self.vocabulary) + len(new)), strict=True))
        ids = np.fromiter(map(self.vocabulary.__getitem__, units), dtype=np.int64, count=len(units))
        sizes = np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))
        return LineSets(ids, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64), sizes)

    def __call__(self, a: Text, b: Text, lines: range | None = None) -> np.ndarray:
        """:func:`table` of two texts (whole tables kept)."""
        if lines is not None:
            return table(self.sets(a), self.sets(b), lines)
        if (id(a), id(b)) not in self.tables:
            self.tables[id(a), id(b)] = table(self.sets(a), self.sets(b))
        return self.tables[id(a), id(b)]


def overlap(a: LineSets, b: LineSets, rows_a: np.ndarray, rows_b: np.ndarray) -> np.ndarray:
    """The overlap of line ``rows_a[i]`` of ``a`` with line ``rows_b[i]`` of ``b``, for every ``i``."""
    ids_a, pair_a = a.gathered(rows_a)
    ids_b, pair_b = b.gathered(rows_b)
    width = int(max(ids_a.max(initial=0), ids_b.max(initial=0))) + 1
    keys = np.sort(np.concatenate([pair_a * width + ids_a, pair_b * width + ids_b]))
    inter = np.bincount(keys[1:][keys[1:] == keys[:-1]] // width, minlength=len(rows_a))  # in both sets
    union = a.sizes[rows_a] + b.sizes[rows_b] - inter
    out = np.zeros(len(rows_a))
    both = (a.sizes[rows_a] > 0) & (b.sizes[rows_b] > 0)
    out[both] = inter[both] / union[both]
    return out


def table(hyp: LineSets, ref: LineSets, lines: range | None = None) -> np.ndarray:
    """Rows: :data:`OFFSETS`; columns: each line of ``hyp`` against the line of ``ref`` that far away
    (0 where there is none); only the columns of ``lines`` (default: all), the others 0."""
    n = len(hyp)
    out = np.zeros((len(OFFSETS), n))
    start, stop = (lines.start, lines.stop) if lines is not None else (0, n)
    for row, offset in enumerate(OFFSETS):
        rows = np.arange(max(0, -offset, start), min(n, len(ref) - offset, stop))
        if len(rows):
            out[row, rows] = overlap(hyp, ref, rows, rows + offset)
    return out
