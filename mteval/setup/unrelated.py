"""Warn when a text's lines do not correspond to a reference's lines at all.

A system file of the right length but of another test set (last year's, another language pair's
from the same English source), in another order, or in another language, is scored without an
error: about 0 everywhere, which reads as a bad system, not as a wrong file. Its lines share no
more words with their own reference line than with any other line of the reference. Each line is
compared (:mod:`mteval.setup.line_overlap`: Jaccard of lower-cased words, or of characters for
Chinese, Japanese, Thai) with the reference line at its place, and with the lines :data:`PROBES`
of the file away (other documents); a text of at least :data:`MIN_LINES` lines whose own lines fit
no better than those by :data:`MARGIN` on average is *unrelated*. One warning line per text,
naming the scripts when they differ; the scores are computed as asked. A text shifted by a line
(:mod:`mteval.setup.shifted`) fits up to three lines before or after, so it is not unrelated (its
lines must not fit better there by the shift check's margin, on average); an unrelated one is not
looked at for shifts (random neighbours fit better here and there); one copying the source
(:mod:`mteval.setup.copies`) gets that warning instead. References are checked against the first
other reference; the systems tell which of two unrelated references is the odd one.

Measured (2026-11-28) on every system and reference of ../shared's WMT data (WMT12 en-fr/es/cs,
WMT21 en-de/en-ru/ru-en/zh-en, WMT24 en-cs; 131 pairs): own lines fit better by 0.043 (WMT24's
CycleL, a genuine but very poor system: 0.064 against 0.021) to 0.5. Real outputs against another
test set's reference fit within 0.002 (WMT21 ru-en's systems against zh-en's English reference and
the reverse, 1,000 lines; an en-ru system against en-de's reference: 0.0001 against 0.0001).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.io.corpus import Text
from mteval.setup import shifted
from mteval.setup.copies import COPY, equal_share
from mteval.setup.line_overlap import OWN, LineFits, overlap
from mteval.setup.scripts import letter_scripts, script_name
from mteval.setup.shifted import SHOWN

MIN_LINES = 20
MARGIN = 0.01
PROBES = (1 / 3, 2 / 3)  # other lines: this share of the file away (wrapping round)


@dataclass(frozen=True)
class Fit:
    """How well a text's lines fit a reference's (means over lines): at their place, at the best of
    the places up to three lines before or after (a shifted text fits there), and elsewhere."""

    own: float
    nearby: float
    elsewhere: float

    @property
    def unrelated(self) -> bool:
        """Own lines fit no better than elsewhere, and nearby ones not better by the shift check's margin."""
        return self.own <= self.elsewhere + MARGIN and self.nearby <= self.own + shifted.MARGIN


def fit(lines: LineFits, text: Text, reference: Text) -> Fit | None:
    """:class:`Fit` of ``text`` against ``reference`` (None: fewer than :data:`MIN_LINES` lines)."""
    hyp, ref = lines.sets(text), lines.sets(reference)
    n = min(len(hyp), len(ref))
    if n < MIN_LINES:
        return None
    means = lines(text, reference)[:, :n].mean(axis=1)  # the shift check's table
    rows = np.arange(n)
    elsewhere = np.mean([overlap(hyp, ref, rows, (rows + int(n * share)) % n) for share in PROBES])
    return Fit(float(means[OWN]), float(np.delete(means, OWN).max()), float(elsewhere))


def unrelated_warnings(scored: Sequence[tuple[Text, Sequence[Text]]], references: Sequence[Text],
                       source: Text | None, lines: LineFits) -> tuple[list[str], set[int]]:
    """One line for each reference unrelated to the first other one (once per odd reference, or per
    pair when the systems cannot tell), and each system unrelated to the first reference it is scored
    against (module docstring); and the ids of the texts found unrelated (no shift to look for there)."""
    found, said, systems = [], set(), [system for system, _ in scored]
    flagged: set[int] = set()
    for reference in references:
        other = next((r for r in references if r.name != reference.name), None)
        found_fit = _unrelated(lines, reference, other, source) if other is not None else None
        if other is None or found_fit is None:
            continue
        odd = _odd_one(lines, reference, other, systems)
        flagged.update(id(t) for t in ((odd,) if odd is not None else (reference, other)))
        key = odd.name if odd is not None else " ".join(sorted((reference.name, other.name)))
        if key not in said:
            said.add(key)
            bad, good = (odd, reference if odd is other else other) if odd is not None else (reference, other)
            shown = found_fit if bad is reference else fit(lines, bad, good)
            assert shown is not None  # both texts have MIN_LINES lines
            found.append(_line("reference", bad, good, shown, odd is None))
    return found + _system_lines(scored, source, lines, flagged), flagged


def _system_lines(scored: Sequence[tuple[Text, Sequence[Text]]], source: Text | None, lines: LineFits,
                  flagged: set[int]) -> list[str]:
    """The systems unrelated to the first reference they are scored against (their ids added to
    ``flagged``): one line about a reference no system (of two or more) is related to, else one line
    per system (the first :data:`SHOWN`, then how many more)."""
    by_reference: dict[str, tuple[Text, list[Text], list[tuple[Text, Fit]]]] = {}
    for system, against in scored:
        if against:
            _, scored_here, unrelated = by_reference.setdefault(against[0].name, (against[0], [], []))
            scored_here.append(system)
            found_fit = _unrelated(lines, system, against[0], source)
            if found_fit is not None:
                unrelated.append((system, found_fit))
                flagged.add(id(system))
    found = []
    for reference, scored_here, unrelated in by_reference.values():
        if len(unrelated) >= 2 and len(unrelated) == len(scored_here):
            found.append(f"reference {reference.name} ({reference.where}): none of the {len(unrelated)} systems' "
                         "lines share more words with its line at their place than with its other lines: not the "
                         "reference of this test set, or its lines in another order? Every score against it is "
                         "about 0; check the file")
        else:
            found += [_line("system", system, reference, found_fit, False) for system, found_fit in unrelated]
    more = [f"and {len(found) - SHOWN} more unrelated systems"] if len(found) > SHOWN else []
    return found[:SHOWN] + more


def _unrelated(lines: LineFits, text: Text, reference: Text, source: Text | None) -> Fit | None:
    """``text``'s :class:`Fit` when it is unrelated to ``reference`` and not a copy of the source
    (said otherwise), else None."""
    found = fit(lines, text, reference)
    if found is None or not found.unrelated or (source is not None and equal_share(text, source) >= COPY):
        return None
    return found


def _odd_one(lines: LineFits, reference: Text, other: Text, systems: Sequence[Text]) -> Text | None:
    """Of two references unrelated to each other, the one fewer systems are related to (None: a tie)."""
    related = {ref.name: sum(_unrelated(lines, system, ref, None) is None for system in systems)
               for ref in (reference, other)}
    if related[reference.name] == related[other.name]:
        return None
    return reference if related[reference.name] < related[other.name] else other


def _line(kind: str, text: Text, reference: Text, found: Fit, either: bool) -> str:
    """The warning: the two fits, the scripts when they differ, what it may be."""
    if not any(segment.strip() for segment in text.segments):
        return f"{kind} {text.name} ({text.where}): every line is empty; every score of it is 0; check the file"
    ours, theirs = (letter_scripts(t.segments).most_common(1) for t in (text, reference))
    scripts = (f"; its letters are {script_name(ours[0][0])}, reference {reference.name}'s "
               f"{script_name(theirs[0][0])}" if ours and theirs and ours[0][0] != theirs[0][0] else "")
    what = ("one of the two is not a translation of this test set in this order; check the files" if either else
            "another test set's or language pair's output, or its lines in another order? Every score against it "
            "is about 0; check the file")
    return (f"{kind} {text.name} ({text.where}): its lines share no more words with reference {reference.name}'s "
            f"line at their place than with its other lines ({found.own:.3f} against {found.elsewhere:.3f} on "
            f"average{scripts}): {what}")
