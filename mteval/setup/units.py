"""The work units of iqsetup's engines (:mod:`mteval.setup.engine`, :mod:`mteval.setup.dask_engine`):
a :class:`Unit` is one metric family for a chunk of targets against one or more reference sets (one
:class:`Part` each); a side that travels apart from the units is a :class:`Shipped` placeholder
(:mod:`mteval.setup.shipping`); the relative cost of a unit decides whether a pool pays off."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from mteval.metrics.base import Side

# The pool is used only for at least MIN_POOL_UNITS units and MIN_POOL_WORK weighted segment-pairs
# of work (segments x targets, summed over units, times the family's relative cost): below that,
# starting the workers (~1 s of CPU each: spawn and imports) costs more than the work it would share.
# The cheap families score about 10,000 segment-pairs a second, the others about 1,000 or fewer
# (measured with bench/bench_cli.py: one cheap family on 10 systems x 1000 segments ran slower in a pool);
# the edit-count families on rapidfuzz, rouge-score's and the BLEU/NIST families about 100,000 (issue 35:
# WER on 10 systems x 10,000 segments took 1.26 s of CPU in one process and 1.78 s with a pool of two,
# mteval-v13a's BLEU 2.0 s and 3.1 s, sacreBLEU's 3.21 s and 4.25 s; bench_peers_10k.py).
MIN_POOL_UNITS = 2
MIN_POOL_WORK = 20_000
CHEAP_FAMILIES = frozenset({"chrF", "ROUGE"})
# a tenth of a cheap pair:
VERY_CHEAP_FAMILIES = frozenset({"mteval-v13a", "sacreBLEU", "WER-PER", "MER-WIL-WIP", "CER", "rouge-score"})
EXPENSIVE = 10  # the relative cost of every other family (TER, GTM, METEOR, the syntactic ones)


@dataclass(frozen=True)
class Shipped:
    """An annotated side sent to the workers apart from the units: its key in the run, and where
    a worker finds it (a spill file; ``None`` when the engine hands the side to the task itself)."""

    key: str
    location: str | None = None
    segments: int = 0  # the side's length (what a unit's work is counted in)

    def __len__(self) -> int:
        return self.segments


AnySide = Union[Side, Shipped]


@dataclass(frozen=True)
class Part:
    """Targets to score against one reference set (only their texts)."""

    references: tuple[AnySide, ...]
    targets: tuple[AnySide, ...]  # a side, or its placeholder when it travels apart (shipping.py)
    variants: tuple[tuple[str, ...], ...]  # canonical variants to compute, per target


@dataclass(frozen=True)
class Unit:
    """One family, for a chunk of targets against one or more reference sets (one part each)."""

    family: str
    case_sensitive: bool | None
    parts: tuple[Part, ...]
    language: str = "en"  # the experiment's target language (registry.create: METEOR, ROUGE)

    @property
    def work(self) -> int:
        """Segment-pairs to score, weighted by the family's cost (what the pool rule counts)."""
        return weighted(self.family, sum(len(t) for part in self.parts for t in part.targets))


def weighted(family: str, pairs: int) -> int:
    """``pairs`` segment-pairs of a family, weighted by its relative cost (:data:`EXPENSIVE`; a very
    cheap family's pairs count a tenth, at least one)."""
    if family in VERY_CHEAP_FAMILIES:
        return max(1, pairs // EXPENSIVE)
    return pairs if family in CHEAP_FAMILIES else EXPENSIVE * pairs
