"""Warn when a system's (or a reference's) lines are shifted against a reference's.

A system file with one line lost (a segment split or joined by the MT system, a blank line removed)
and one added elsewhere has the references' number of lines and is scored without an error, but
every segment between the two places is compared with its neighbour's reference: its scores there
are near zero, silently. Each system line is compared with the reference lines at the same place
and up to three before and after (:data:`~mteval.setup.line_overlap.OFFSETS`), by the overlap
(Jaccard) of their lower-cased words, or of their characters for a line of fewer than three words
(Chinese, Japanese, Thai; :mod:`mteval.setup.line_overlap`): a translation shares far more of them
with its own reference than with its neighbours'.

Lines are *shifted* where, over :data:`WINDOW` consecutive lines, a reference line that far away
matches by more than :data:`MARGIN` above their own on average (a run of such windows is one
shifted run; it is reported from its first to its last line that fits better there). References
are checked the same way against the first other reference. One warning line per text, naming the
lines and the direction; the scores are computed as asked.

Measured (2026-11-28) on every system and reference pair of ../shared's WMT data (WMT12 en-fr/es/cs,
WMT21 en-de/en-ru/ru-en/zh-en, WMT24 en-cs; 196 pairs): a line one to three away never fits better
by more than 0.032 on a window (one away: 0.017; two: 0.026; three: 0.032, WMT24's poorest systems),
except in WMT21 en-ru's **reference B, lines 743-753**, shifted by one against the source, reference
A and every system (0.31 against A, up to 0.46 against a system): its lines 743-753 translate source
lines 744-754, and its line 755 holds the end of a split sentence. When two references are shifted
against each other, the systems tell which one is (more of them shifted against it over those
lines). One, two or three lines deleted (or blank ones inserted) in a system are found at that line.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from mteval.io.corpus import Text
from mteval.setup.line_overlap import OFFSETS, OWN, LineFits, table

WINDOW = 10
MARGIN = 0.1
SHOWN = 5


def fits(system: Sequence[str], reference: Sequence[str]) -> np.ndarray:
    """Rows: :data:`~mteval.setup.line_overlap.OFFSETS`; columns: each system line's overlap with the
    reference line that far away."""
    lines = LineFits()
    return table(lines.of_lines(system), lines.of_lines(reference))


def shifted_runs(table: np.ndarray) -> list[tuple[int, int, int]]:
    """``(first line, last line, offset)`` (0-based, inclusive) of every run of lines whose neighbour's
    reference fits better than their own (module docstring), in line order."""
    if table.shape[1] < WINDOW:
        return []
    kernel = np.ones(WINDOW) / WINDOW
    means = np.array([np.convolve(row, kernel, mode="valid") for row in table])  # window means from each start
    runs = []
    for row, offset in enumerate(OFFSETS):
        if not offset:
            continue
        flagged = np.flatnonzero(means[row] > means[OWN] + MARGIN)
        for group in np.split(flagged, np.flatnonzero(np.diff(flagged) > 1) + 1) if len(flagged) else []:
            lines = np.arange(group[0], group[-1] + WINDOW)
            better = lines[table[row, lines] > table[OWN, lines]]  # the lines of those windows that fit better
            runs.append((int(better[0]), int(better[-1]), offset))
    return sorted(runs)


def _where(runs: list[tuple[int, int, int]], other: str) -> str:
    """The first run in words."""
    first, last, offset = runs[0]
    more = f" (and {len(runs) - 1} more such runs)" if len(runs) > 1 else ""
    return f"lines {first + 1}-{last + 1} are closer to {other}'s {_line_away(offset)} than to their own{more}"


def _line_away(offset: int) -> str:
    """``previous line``, ``next line``, ``line 2 before``, ``line 3 after``."""
    if abs(offset) == 1:
        return "previous line" if offset < 0 else "next line"
    return f"line {abs(offset)} {'before' if offset < 0 else 'after'}"


def _lines_lost(offset: int) -> tuple[str, str]:
    """How far a run is shifted, and why, in words."""
    return ("by one line", "a line lost or added") if abs(offset) == 1 else (f"by {abs(offset)} lines",
                                                                            "lines lost or added")


def _shifted_over(lines: LineFits, text: Text, reference: Text, run: tuple[int, int, int]) -> bool:
    """Whether ``text`` has a shifted run against ``reference`` that meets ``run``'s lines (only the
    windows over them are looked at)."""
    near = range(max(0, run[0] - WINDOW), run[1] + WINDOW + 1)
    return any(first <= run[1] and last >= run[0] for first, last, _ in shifted_runs(lines(text, reference, near)))


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
            why, verb = _lines_lost(runs[0][2])[1], "shifts" if abs(runs[0][2]) == 1 else "shift"
            systems.append(f"system {system.name} ({system.where}): {_where(runs, f'reference {against[0].name}')}: "
                           f"{why} there, in the system or the reference, {verb} the lines after it, which then score "
                           "about 0; check both files")
    more = [f"and {len(systems) - SHOWN} more shifted systems"] if len(systems) > SHOWN else []
    return lines + systems[:SHOWN] + more


def _reference_line(reference: Text, other: Text, runs: list[tuple[int, int, int]], systems: Sequence[Text],
                    fits_of: LineFits) -> str:
    """The warning about two references shifted against each other: which one, when the systems say
    so (more of them shifted against it than against the other over the first run)."""
    against = {ref.name: sum(_shifted_over(fits_of, s, ref, runs[0]) for s in systems) for ref in (reference, other)}
    if against[reference.name] == against[other.name]:
        return (f"reference {reference.name} ({reference.where}): {_where(runs, f'reference {other.name}')}: one of "
                f"the two is shifted there ({_lines_lost(runs[0][2])[1]}), and every score against it there is about "
                "0; check the files")
    bad, good = (reference, other) if against[reference.name] > against[other.name] else (other, reference)
    first, last, offset = runs[0]  # lines of ``reference``; ``other``'s are ``offset`` further
    if bad is other:
        first, last = first + offset, last + offset
    far, why = _lines_lost(offset)
    return (f"reference {bad.name} ({bad.where}): lines {first + 1}-{last + 1} are shifted {far} against "
            f"reference {good.name} and {against[bad.name]} of {len(systems)} systems ({why}), so every "
            "score against it there is about 0; check the file")
