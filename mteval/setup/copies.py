"""Warn when a system is a copy of a reference that it is scored against.

A human translation listed among the systems (to see where people rank, as WMT's human "systems")
and among the references is scored against a reference set that holds its own text: BLEU 1, chrF
100, silently. A system is a *copy* of a reference when at least :data:`COPY` of its segments
equal that reference's (whitespace at the ends ignored, empty segments not counted); one warning line
per such system, naming the reference. The scores are computed as asked: score such a system
against the other references (a reference set without its own), or list it as a reference only
(``iqeval -doref`` scores each reference against the others).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mteval.io.corpus import Text

COPY = 0.9


def equal_share(system: Text, reference: Text) -> float:
    """The share of the system's non-empty segments equal to the reference's."""
    pairs = [(s.strip(), r.strip()) for s, r in zip(system.segments, reference.segments, strict=False)]
    counted = [s == r for s, r in pairs if s]
    return sum(counted) / len(counted) if counted else 0.0


def copy_warnings(scored: Iterable[tuple[Text, Sequence[Text]]]) -> list[str]:
    """One line for each system that copies a reference it is scored against (module docstring);
    ``scored``: each system with the references of the reference sets it is scored against."""
    lines = []
    for system, references in scored:
        for reference in references:
            share = equal_share(system, reference)
            if share >= COPY:
                lines.append(f"system {system.name} ({system.where}): {100 * share:.0f}% of its segments equal "
                             f"reference {reference.name}'s, which is in a reference set it is scored against: "
                             "there it scores as a copy of its own reference (BLEU 1); score it against the other "
                             "references, or list it as a reference only (iqeval -doref scores each reference "
                             "against the others)")
                break
    return lines
