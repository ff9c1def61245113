"""Warn when a system is a copy of a reference that it is scored against, or a text a copy of the source.

A human translation listed among the systems (to see where people rank, as WMT's human "systems")
and among the references is scored against a reference set that holds its own text: BLEU 1, chrF
100, silently. A system is a *copy* of a reference when at least :data:`COPY` of its segments
equal that reference's (whitespace at the ends ignored, empty segments not counted); one warning line
per such system, naming the reference. The scores are computed as asked: score such a system
against the other references (a reference set without its own), or list it as a reference only
(``iqeval -doref`` scores each reference against the others).

A reference that copies the source (the source file given as a reference by mistake) makes every
score against it meaningless, and a system that copies it left the text untranslated: one line each
(:func:`source_copy_warnings`), with the same :data:`COPY` share.
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


def source_copy_warnings(texts: Iterable[tuple[str, Text]], source: Text | None) -> list[str]:
    """One line for each text (``(kind, text)``: reference or system) that copies the source."""
    if source is None:
        return []
    lines = []
    for kind, text in texts:
        share = equal_share(text, source)
        if share >= COPY:
            consequence = ("every score against it compares with the untranslated text" if kind == "reference"
                           else "it is untranslated, and scores as such")
            lines.append(f"{kind} {text.name} ({text.where}): {100 * share:.0f}% of its segments equal the source's "
                         f"({source.where}): {consequence}; check the file")
    return lines
