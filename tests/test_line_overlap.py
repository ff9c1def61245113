"""mteval.setup.line_overlap: the overlaps computed by sorting ids are the line sets' Jaccard, exactly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.setup.line_overlap import OFFSETS, OWN, LineFits, features, overlap, table

WORDS = st.sampled_from(["a", "b", "c", "dd", "ee", "the", "Der", "猫", "は", ""])
LINES = st.lists(st.lists(WORDS, max_size=6).map(" ".join), min_size=1, max_size=12)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


@settings(max_examples=200, deadline=None)
@given(LINES, LINES)
def test_table_is_the_jaccard_of_the_line_sets(hyp: list[str], ref: list[str]) -> None:
    fits = LineFits()
    found = table(fits.of_lines(hyp), fits.of_lines(ref))
    assert found.shape == (len(OFFSETS), len(hyp))
    for row, offset in enumerate(OFFSETS):
        for i, line in enumerate(hyp):
            j = i + offset
            expected = jaccard(features(line), features(ref[j])) if 0 <= j < len(ref) else 0.0
            assert found[row, i] == expected  # the same division: exactly equal


def test_any_rows_and_a_vocabulary_grown_between_texts() -> None:
    fits = LineFits()
    first = fits.of_lines(["one two three", "four five six"])
    second = fits.of_lines(["seven eight nine", "one two three four"])  # new words after the first text
    found = overlap(first, second, np.array([0, 1, 0]), np.array([1, 0, 0]))
    assert found.tolist() == [0.75, 0.0, 0.0]
    assert table(first, first)[OWN].tolist() == [1.0, 1.0]
