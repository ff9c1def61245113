"""Segment-length limits: refuse, before anything is computed, a segment too long for a metric.

A few lexical families spend more than linear time on one long segment pair (issue 29, F15:
one 1 MB segment, about 170,000 words, kept TER, METEOR and GTM busy for minutes). Each such
family states the longest segment it accepts (:attr:`MetricFamily.max_segment_words`, set in its
module, where the measurements are cited; the table is in ``docs/reliability.md``, "Long segments
and load"), never below the 5,000 words every family is guaranteed to score
(``tests/test_long_segments*.py``). :func:`check_segment_lengths` finds the first reference or
system segment longer than a requested family accepts and stops the run with one line naming the
file and line, before any score is computed or written (iqsetup passes the families with work to
do, so a run whose scores are all up to date is not refused). The syntactic families need no limit: the
annotation layer cuts their input to 250 words (:mod:`mteval.annotate.textprep`).

Counting is linear and cheap: a segment of ``c`` characters has at most ``(c + 1) // 2`` words (a
word and a separator take two characters), so only a segment of more than ``2 * limit``
characters is counted at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mteval.errors import InputError
from mteval.experiment.texts import LoadedTexts
from mteval.io.corpus import Text
from mteval.metrics.base import MetricFamily

__all__ = ["check_segment_lengths", "limited_families", "segment_limit_error"]

GUARANTEED_WORDS = 5_000  # every family scores one pair this long (tests/test_long_segments*.py)


def limited_families(families: Iterable[MetricFamily]) -> list[MetricFamily]:
    """The families with a segment-length limit, each once (its first instance: a family counts its
    tokens by its options, ROUGE by its language), in the order given."""
    seen: dict[str, MetricFamily] = {}
    for family in families:
        if family.max_segment_words is not None:
            seen.setdefault(family.family, family)
    return list(seen.values())


def check_segment_lengths(families: Iterable[MetricFamily], texts: LoadedTexts) -> None:
    """Raise :class:`InputError` at the first segment of a reference or system text (in config
    order) longer than one of ``families`` accepts; nothing when none is."""
    limited = limited_families(families)
    if not limited:
        return
    floor = min(cls.max_segment_words or 0 for cls in limited)
    for text in (*texts.references.values(), *texts.systems.values()):
        for index, segment in enumerate(text.segments):
            if len(segment) > 2 * floor:  # shorter ones cannot have more than ``floor`` words
                over = [(cls, cls.segment_words(segment)) for cls in limited]
                refusing = [(cls, count) for cls, count in over if count > (cls.max_segment_words or 0)]
                if refusing:
                    raise segment_limit_error(text, index, len(segment.split()), refusing)


def segment_limit_error(text: Text, index: int, words: int,
                        refusing: Sequence[tuple[MetricFamily, int]]) -> InputError:
    """The one-line refusal of segment ``index`` (0-based) of ``text``: its words, the families
    that refuse it with their limits (and their own count where it is not the words'), the way out."""
    parts = []
    for cls, count in refusing:
        own = "" if count == words else f"{count:,} of its tokens, "
        parts.append(f"{cls.family} ({own}at most {cls.max_segment_words:,})")
    names = ", ".join(cls.family for cls, _ in refusing)
    size = f"{words:,} word{'' if words == 1 else 's'}"
    return InputError(f"segment of {size} is too long for {', '.join(parts)}: split it into shorter segments "
                      f"(a sentence or a paragraph a line, in every text alike), or leave the {names} metrics out",
                      text.where, line_of(text, index))


def line_of(text: Text, index: int) -> int:
    """The file line of segment ``index`` (0-based): an SGML segment's own line, else (plain text,
    one segment a line) ``index + 1``."""
    return text.lines[index] if text.lines else index + 1
