"""IQMT's general similarity measures over linguistic elements (Giménez 2007, manual §5.2.2).

A sentence is seen as bags of *items* (words, lemmas, labels) that occur inside *linguistic
elements* (LEs) of a type ``t`` (a PoS tag, a chunk type, a role, an entity type, a chain length).
For one hypothesis/reference pair and one type ``t``:

    hits_t  = sum over items i of min(count_hyp(i, t), count_ref(i, t))
    total_t = sum over items i of max(count_hyp(i, t), count_ref(i, t))

**Overlapping(t)** = ``hits_t / total_t`` (items), **Matching(t)** the same with whole elements
(the item sequence of an LE, in order) as the counted units, and the (*) forms
``sum_t hits_t / sum_t total_t`` over the types ``T``. As in Asiya's ``Overlap.pm`` the numerator
uses ``min`` (the manual's formula counts ``count_hyp``; Asiya clips) and items are lower-cased by
default (``case_sensitive=False``). ``total_t = |hyp_t| + |ref_t| - hits_t``.

Multiple references (manual §5.2.2, notes): per segment and per individual type the reference with
the best Overlapping(t) is kept (ties: the smaller ``total_t``, then the first reference) and the
(*) aggregation sums those best pairs. A type absent from the hypothesis and from some reference
agrees perfectly with that reference and drops out (0/0 ranks first). A segment where the selected
types have no items at all has no score (NaN); document and system scores are the mean of segment
scores with NaN counted as 0 (:func:`mteval.metrics.base.mean_score_set`), as Asiya does.

:class:`OverlapFamily` is the reusable piece: a family gives ``features(sentence)`` (groups of
typed bags) and a table of :class:`Selector` per variant; this module does the rest.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mteval.annotate.model import Sentence
from mteval.errors import MtevalError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricFamily, ScoreSet, Side, mean_score_set


@dataclass(frozen=True)
class Bag:
    """A multiset of items with its total size."""

    counts: Mapping[Hashable, int]
    size: int

    @classmethod
    def of(cls, items: Iterable[Hashable]) -> Bag:
        """The bag of an item sequence."""
        counts = Counter(items)
        return cls(counts, sum(counts.values()))


EMPTY = Bag({}, 0)
Typed = dict[str, Bag]          # LE type -> bag of its items (or elements)
Features = dict[str, Typed]     # measure group (e.g. "Op", "Oc") -> typed bags
Counts = dict[str, tuple[int, int]]  # LE type -> (hits, total)


def typed_bags(pairs: Iterable[tuple[str, Hashable]]) -> Typed:
    """Typed bags from ``(type, item)`` pairs."""
    grouped: dict[str, list[Hashable]] = {}
    for t, item in pairs:
        grouped.setdefault(t, []).append(item)
    return {t: Bag.of(items) for t, items in grouped.items()}


def overlap_counts(hyp: Bag, ref: Bag) -> tuple[int, int]:
    """``(sum min, sum max)`` of two bags (manual §5.2.2 with Asiya's clipping)."""
    small, large = (hyp, ref) if len(hyp.counts) <= len(ref.counts) else (ref, hyp)
    get = large.counts.get
    hits = 0
    for item, count in small.counts.items():
        other = get(item)
        if other:
            hits += count if count < other else other
    return hits, hyp.size + ref.size - hits


def _rank(pair: tuple[int, int]) -> tuple[float, int]:
    """Sort key of a (hits, total) pair: higher ratio first (0/0 counts as 1), then smaller total."""
    hits, total = pair
    return (hits / total if total else 1.0, -total)


def best_counts(hyp: Typed, refs: Sequence[Typed]) -> Counts:
    """Per type, the (hits, total) of the reference with the best Overlapping(t) (see module doc)."""
    types = set(hyp).union(*refs) if refs else set(hyp)
    best: Counts = {}
    for t in types:
        h = hyp.get(t, EMPTY)
        pair = max((overlap_counts(h, ref.get(t, EMPTY)) for ref in refs), key=_rank, default=(0, h.size))
        if pair[1]:
            best[t] = pair
    return best


@dataclass(frozen=True)
class Selector:
    """Which typed counts of which group a variant sums: ``types`` (None = every type observed)
    minus ``exclude``."""

    group: str
    types: tuple[str, ...] | None = None
    exclude: frozenset[str] = frozenset()

    def score(self, counts: Counts) -> float:
        """``sum hits / sum total`` over the selected types; NaN when they have no items."""
        if self.types is not None:
            pairs = [counts[t] for t in self.types if t in counts]
        else:
            pairs = [p for t, p in counts.items() if t not in self.exclude]
        total = sum(p[1] for p in pairs)
        return sum(p[0] for p in pairs) / total if total else math.nan


def per_type(prefix: str, group: str, types: Iterable[str]) -> dict[str, Selector]:
    """``{prefix(t): Selector(group, (t,))}`` for every type: the Overlapping(t)/Matching(t) variants."""
    return {f"{prefix}({t})": Selector(group, (t,)) for t in types}


class OverlapFamily(MetricFamily):
    """A family whose variants are Overlapping/Matching measures over typed bags (module docstring).

    Subclasses set ``selectors`` (variant -> :class:`Selector`) and implement :meth:`features`.
    """

    needs_annotation = True
    selectors: ClassVar[dict[str, Selector]]

    def __init__(self, case_sensitive: bool = False, **options: Any) -> None:
        super().__init__(case_sensitive, **options)
        self._cache: dict[Sentence, Features] = {}

    @abstractmethod
    def features(self, sentence: Sentence) -> Features:
        """Typed bags of one sentence, by measure group."""

    def norm(self, text: str) -> str:
        """An item's surface form: lower-cased unless the family is case-sensitive."""
        return text if self.case_sensitive else text.lower()

    def cached_features(self, sentence: Sentence) -> Features:
        """:meth:`features`, computed once per distinct sentence."""
        found = self._cache.get(sentence)
        if found is None:
            found = self._cache[sentence] = self.features(sentence)
        return found

    def prepare(self, references: Sequence[Side]) -> Any:
        """Features of every reference (:meth:`prepare_features`)."""
        return self.prepare_features(references)

    def prepare_features(self, references: Sequence[Side]) -> list[list[Features]]:
        """Features of every reference, per segment: ``prepared[segment][reference]``."""
        sentences = [annotated(ref, self.family) for ref in references]
        lengths = {len(s) for s in sentences}
        if len(lengths) != 1:
            raise MtevalError(f"{self.family}: references differ in length: {sorted(lengths)}")
        return [[self.cached_features(s[i]) for s in sentences] for i in range(lengths.pop())]

    def segment_counts(self, hypothesis: Side, prepared: list[list[Features]],
                       groups: Iterable[str]) -> list[dict[str, Counts]]:
        """Per segment and group, the best (hits, total) per type over the references."""
        sentences = annotated(hypothesis, self.family)
        if len(sentences) != len(prepared):
            raise MtevalError(f"{hypothesis.name}: {len(sentences)} segments, references have {len(prepared)}")
        groups = tuple(groups)
        out = []
        for sentence, refs in zip(sentences, prepared):
            hyp = self.cached_features(sentence)
            out.append({g: best_counts(hyp.get(g, {}), [r.get(g, {}) for r in refs]) for g in groups})
        return out

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """:meth:`score_features` of the prepared reference features."""
        return self.score_features(hypothesis, prepared, documents, variants)

    def score_features(self, hypothesis: Side, prepared: list[list[Features]], documents: DocumentIndex,
                       variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Segment scores of every requested variant; document/system scores are their means."""
        chosen = {v: self.selectors[v] for v in variants if v in self.selectors}
        counts = self.segment_counts(hypothesis, prepared, {s.group for s in chosen.values()})
        return {v: mean_score_set(np.array([sel.score(c[sel.group]) for c in counts], dtype=np.float64),
                                  documents)
                for v, sel in chosen.items()}


def annotated(side: Side, family: str) -> Sequence[Sentence]:
    """The annotation of a side, or a one-line error when the pipeline did not provide it."""
    if side.sentences is None:
        raise MtevalError(f"{family}: {side.name} has no annotation (family needs annotated segments)")
    if len(side.sentences) != len(side.texts):
        raise MtevalError(f"{family}: {side.name} has {len(side.texts)} segments but "
                          f"{len(side.sentences)} annotated sentences")
    return side.sentences
