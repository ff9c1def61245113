"""Warn about empty lines where the source has text: in a reference, every system scores 0 there; in a
system, many of them mean output lost (a crashed or truncated run padded to length).

An empty reference line is scored as given (the reference tools die on one: mteval-v13a, WER.pl),
and every system's segment score against it is 0 or undefined, silently lowering the corpus score
of every system alike. Any such line of a reference is named (the first :data:`SHOWN`); a system is
named when at least :data:`SYSTEM_SHARE` of its lines are (a real system leaves a few empty: WMT24's
Phi-3-Medium 21 of 998). Without a source, every empty line counts. No reference of ../shared's WMT
data has an empty line; no system reaches the share.
"""

from __future__ import annotations

from collections.abc import Sequence

from mteval.io.corpus import Text

SHOWN = 5
SYSTEM_SHARE = 0.1


def empty_where_source_is_not(text: Text, source: Text | None) -> list[int]:
    """The (0-based) lines of ``text`` that are empty where the source's are not."""
    sources = source.segments if source is not None else ("x",) * len(text.segments)
    return [i for i, (line, given) in enumerate(zip(text.segments, sources, strict=False))
            if not line.strip() and given.strip()]


def empty_line_warnings(references: Sequence[Text], systems: Sequence[Text], source: Text | None) -> list[str]:
    """One line per reference with such lines, and per system with :data:`SYSTEM_SHARE` of them."""
    found, where = [], " where the source has text" if source is not None else ""
    for reference in references:
        empty = empty_where_source_is_not(reference, source)
        if empty:
            shown = ", ".join(str(i + 1) for i in empty[:SHOWN]) + (" ..." if len(empty) > SHOWN else "")
            found.append(f"reference {reference.name} ({reference.where}): {len(empty)} of its "
                         f"{len(reference.segments)} lines are empty{where} (lines {shown}): every system scores 0 "
                         "against it there; a translation lost? check the file")
    for system in systems:
        empty = empty_where_source_is_not(system, source)
        if len(empty) >= max(1, SYSTEM_SHARE * len(system.segments)):
            found.append(f"system {system.name} ({system.where}): {len(empty)} of its {len(system.segments)} lines are "
                         f"empty{where}: output lost (a crashed or truncated run)? They score 0; check the file")
    return found
