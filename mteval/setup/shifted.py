"""Warn when a system's (or a reference's) lines are shifted against a reference's.

A system file with one line lost (a segment split or joined by the MT system, a blank line removed)
and one added elsewhere has the references' number of lines and is scored without an error, but
every segment between the two places is compared with its neighbour's reference: its scores there
are near zero, silently. Each system line is compared with the reference lines at the same place
and one before and after, by the overlap (Jaccard) of their lower-cased words, or of their characters
for a line of fewer than three words (Chinese, Japanese, Thai): a translation shares far more of them
with its own reference than with its neighbour's.

Lines are *shifted* where, over :data:`WINDOW` consecutive lines, the neighbour's reference matches
by more than :data:`MARGIN` above their own on average (a run of such windows is one shifted run;
it is reported from its first to its last line whose neighbour fits better). References are checked
the same way against the first other reference. One warning line per text, naming the lines and the
direction; the scores are computed as asked.

Measured (2026-11-28) on every system and reference pair of ../shared's WMT data (WMT12 en-fr/es/cs,
WMT21 en-de/en-ru/ru-en/zh-en, WMT24 en-cs; 392 window maxima): the neighbour never fits better by
more than 0.017 on a window, except in WMT21 en-ru's **reference B, lines 743-753**, shifted by one
against the source, reference A and every system (0.31 against A, up to 0.46 against a system): its
lines 743-753 translate source lines 744-754, and its line 755 holds the end of a split sentence. When
two references are shifted against each other, the systems tell which one is (more of them shifted
against it over those lines). One line deleted (or a blank one inserted) in a system is found at that
line.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from mteval.io.corpus import Text

WINDOW = 10
MARGIN = 0.1
SHOWN = 5
MIN_WORDS = 3


def features(line: str) -> frozenset[str]:
    """What a line is compared by: its lower-cased words, or its characters when it has fewer than
    three (a script written without spaces)."""
    words = line.lower().split()
    return frozenset(words) if len(words) >= MIN_WORDS else frozenset("".join(words))


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def fits(system: Sequence[str], reference: Sequence[str]) -> np.ndarray:
    """Rows: offsets -1, 0, +1; columns: each system line's overlap with the reference line that far away."""
    return overlaps([features(line) for line in system], [features(line) for line in reference])


def overlaps(hyp: Sequence[frozenset[str]], ref: Sequence[frozenset[str]], lines: range | None = None) -> np.ndarray:
    """:func:`fits` of the lines' :func:`features`; only the columns of ``lines`` (default: all), the others 0."""
    n = len(hyp)
    table, start, stop = np.zeros((3, n)), lines.start if lines else 0, lines.stop if lines else n
    for row, offset in enumerate((-1, 0, 1)):
        for i in range(max(0, -offset, start), min(n, len(ref) - offset, stop)):
            table[row, i] = overlap(hyp[i], ref[i + offset])
    return table


def shifted_runs(table: np.ndarray) -> list[tuple[int, int, int]]:
    """``(first line, last line, offset)`` (0-based, inclusive) of every run of lines whose neighbour's
    reference fits better than their own (module docstring), in line order."""
    if table.shape[1] < WINDOW:
        return []
    kernel = np.ones(WINDOW) / WINDOW
    means = np.array([np.convolve(row, kernel, mode="valid") for row in table])  # window means from each start
    runs = []
    for row, offset in ((0, -1), (2, 1)):
        flagged = np.flatnonzero(means[row] > means[1] + MARGIN)
        for group in np.split(flagged, np.flatnonzero(np.diff(flagged) > 1) + 1) if len(flagged) else []:
            lines = np.arange(group[0], group[-1] + WINDOW)
            better = lines[table[row, lines] > table[1, lines]]  # the lines of those windows that fit better
            runs.append((int(better[0]), int(better[-1]), offset))
    return sorted(runs)


def _where(runs: list[tuple[int, int, int]], other: str) -> str:
    """The first run in words."""
    first, last, offset = runs[0]
    more = f" (and {len(runs) - 1} more such runs)" if len(runs) > 1 else ""
    return (f"lines {first + 1}-{last + 1} are closer to {other}'s {'previous' if offset < 0 else 'next'} line "
            f"than to their own{more}")


class LineFits:
    """:func:`overlaps` of texts, each text's line :func:`features` computed once (shared with
    :mod:`mteval.setup.unrelated`)."""

    def __init__(self) -> None:
        # by the texts' ids, each kept with its text (alive, so that no other text gets its id)
        self.known: dict[int, tuple[Text, list[frozenset[str]]]] = {}
        self.tables: dict[tuple[int, int], np.ndarray] = {}  # whole tables of two known texts

    def features(self, text: Text) -> list[frozenset[str]]:
        """:func:`features` of each line of ``text``."""
        if id(text) not in self.known:
            self.known[id(text)] = (text, [features(line) for line in text.segments])
        return self.known[id(text)][1]

    def __call__(self, a: Text, b: Text, lines: range | None = None) -> np.ndarray:
        if lines is not None:
            return overlaps(self.features(a), self.features(b), lines)
        if (id(a), id(b)) not in self.tables:
            self.tables[id(a), id(b)] = overlaps(self.features(a), self.features(b))
        return self.tables[id(a), id(b)]

    def shifted_over(self, text: Text, reference: Text, run: tuple[int, int, int]) -> bool:
        """Whether ``text`` has a shifted run against ``reference`` that meets ``run``'s lines (only the
        windows over them are looked at)."""
        near = range(max(0, run[0] - WINDOW), run[1] + WINDOW + 1)
        return any(first <= run[1] and last >= run[0] for first, last, _ in shifted_runs(self(text, reference, near)))


def shift_warnings(scored: Sequence[tuple[Text, Sequence[Text]]], references: Sequence[Text],
                   fits_of: LineFits | None = None, unrelated: Collection[int] = ()) -> list[str]:
    """One line for each reference shifted against the first other one, and for each system shifted
    against the first reference it is scored against (the first :data:`SHOWN`, then how many more);
    texts whose ids are in ``unrelated`` (:mod:`mteval.setup.unrelated`) are not looked at."""
    fits_of, lines, checked = fits_of or LineFits(), [], set()
    for reference in references:
        other = next((r for r in references if r.name != reference.name), None)
        if other is None or (other.name, reference.name) in checked or {id(reference), id(other)} & set(unrelated):
            continue
        checked.add((reference.name, other.name))
        runs = shifted_runs(fits_of(reference, other))
        if runs:
            lines.append(_reference_line(reference, other, runs, [system for system, _ in scored], fits_of))
    systems = []
    for system, against in scored:
        looked = against and not {id(system), id(against[0])} & set(unrelated)
        runs = shifted_runs(fits_of(system, against[0])) if looked else []
        if runs:
            systems.append(f"system {system.name} ({system.where}): {_where(runs, f'reference {against[0].name}')}: "
                           "a line lost or added there, in the system or the reference, shifts the lines after it, "
                           "which then score about 0; check both files")
    more = [f"and {len(systems) - SHOWN} more shifted systems"] if len(systems) > SHOWN else []
    return lines + systems[:SHOWN] + more


def _reference_line(reference: Text, other: Text, runs: list[tuple[int, int, int]], systems: Sequence[Text],
                    fits_of: LineFits) -> str:
    """The warning about two references shifted against each other: which one, when the systems say
    so (more of them shifted against it than against the other over the first run)."""
    against = {ref.name: sum(fits_of.shifted_over(s, ref, runs[0]) for s in systems) for ref in (reference, other)}
    if against[reference.name] == against[other.name]:
        return (f"reference {reference.name} ({reference.where}): {_where(runs, f'reference {other.name}')}: one of "
                "the two is shifted there (a line lost or added), and every score against it there is about 0; check "
                "the files")
    bad, good = (reference, other) if against[reference.name] > against[other.name] else (other, reference)
    first, last, offset = runs[0]  # lines of ``reference``; ``other``'s are ``offset`` further
    if bad is other:
        first, last = first + offset, last + offset
    return (f"reference {bad.name} ({bad.where}): lines {first + 1}-{last + 1} are shifted by one line against "
            f"reference {good.name} and {against[bad.name]} of {len(systems)} systems (a line lost or added), so every "
            "score against it there is about 0; check the file")
