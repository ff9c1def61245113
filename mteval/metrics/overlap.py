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
default, whatever the experiment's case setting (family option ``lowercase=False`` keeps case).
``total_t = |hyp_t| + |ref_t| - hits_t``.

Multiple references (manual §5.2.2, notes): per segment and per individual type the reference with
the best Overlapping(t) is kept (ties: the smaller ``total_t``, then the first reference) and the
(*) aggregation sums those best pairs. A type absent from the hypothesis and from some reference
agrees perfectly with that reference and drops out (0/0 ranks first). A segment where the selected
types have no items at all scores 0, as in Asiya (its cached sample gives SR-Or = 0 for a segment
whose hypothesis equals its reference: no frame on either side); document and system scores are
the mean of the segment scores (:func:`mteval.metrics.base.mean_score_set`), as Asiya computes them.

:class:`OverlapFamily` is the reusable piece: a family gives ``features(sentence)`` (groups of
typed bags) and a table of :class:`Selector` per variant; this module does the rest.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from mteval.annotate.model import Sentence
from mteval.errors import MtevalError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricFamily, ScoreSet, Side, mean_score_set

Pair = TypeVar("Pair", bound=tuple[str, Hashable])  # a counted (type, item) key of any item type


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
Counts = dict[str, tuple[int, int]]  # LE type -> (hits, total)


class Interner:
    """Integer ids of ``(type, item)`` keys, with the type and item of every id (one per family)."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, Hashable], int] = {}
        self.types: list[str] = []
        self.items: list[Hashable] = []

    def id(self, key: tuple[str, Hashable]) -> int:
        """The id of a key (a new one the first time)."""
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.types)
            self.types.append(key[0])
            self.items.append(key[1])
        return found


@dataclass(frozen=True)
class Typed:
    """Typed bags of one sentence: the count of every interned ``(type, item)`` id, the size of every
    type's bag, and the interner that gives each id's type."""

    counts: Mapping[int, int]
    sizes: Mapping[str, int]
    keys: Interner

    def bag(self, t: str) -> Bag:
        """The bag of one type."""
        types, items = self.keys.types, self.keys.items
        return Bag({items[k]: c for k, c in self.counts.items() if types[k] == t}, self.sizes.get(t, 0))


NO_ITEMS = Typed({}, {}, Interner())
SHARED_KEYS = Interner()  # for bags built without a family (tests, ad-hoc use)
Features = dict[str, Typed]     # measure group (e.g. "Op", "Oc") -> typed bags


def typed_bags(pairs: Iterable[tuple[str, Hashable]], keys: Interner | None = None) -> Typed:
    """Typed bags from ``(type, item)`` pairs, interned in ``keys`` (every sentence compared must use
    the same interner; :data:`SHARED_KEYS` when None)."""
    keys = keys if keys is not None else SHARED_KEYS
    get, new = keys.ids.get, keys.id
    counts: Counter[int] = Counter([x if (x := get(p)) is not None else new(p) for p in pairs])
    sizes: dict[str, int] = {}
    types = keys.types
    for k, c in counts.items():
        t = types[k]
        sizes[t] = sizes.get(t, 0) + c
    return Typed(counts, sizes, keys)


def typed_counts(counts: Mapping[Pair, int], keys: Interner | None = None) -> Typed:
    """:func:`typed_bags` from counted ``(type, item)`` pairs (for bags whose items are many
    repetitions, e.g. a word under each of its ancestors: counted, not listed)."""
    keys = keys if keys is not None else SHARED_KEYS
    ids: Counter[int] = Counter()
    for pair, count in counts.items():
        if count:
            ids[keys.id(pair)] += count
    sizes: dict[str, int] = {}
    types = keys.types
    for k, c in ids.items():
        sizes[types[k]] = sizes.get(types[k], 0) + c
    return Typed(ids, sizes, keys)


def overlap_counts(hyp: Bag, ref: Bag) -> tuple[int, int]:
    """``(sum min, sum max)`` of two bags (manual §5.2.2 with Asiya's clipping)."""
    hc, rc = hyp.counts, ref.counts
    common = hc.keys() & rc.keys() if hc and rc else ()
    hits = sum(min(hc[k], rc[k]) for k in common) if common else 0
    return hits, hyp.size + ref.size - hits


def _rank(pair: tuple[int, int]) -> tuple[float, int]:
    """Sort key of a (hits, total) pair: higher ratio first (0/0 counts as 1), then smaller total."""
    hits, total = pair
    return (hits / total if total else 1.0, -total)


def _hits_by_type(hyp: Typed, ref: Typed) -> dict[str, int]:
    """Sum of min counts per type (one set intersection over all ``(type, item)`` keys)."""
    hc, rc = hyp.counts, ref.counts
    hits: dict[str, int] = {}
    if hc and rc:
        type_of = hyp.keys.types
        for key in hc.keys() & rc.keys():
            t = type_of[key]
            hits[t] = hits.get(t, 0) + min(hc[key], rc[key])
    return hits


def best_counts(hyp: Typed, refs: Sequence[Typed]) -> Counts:
    """Per type, the (hits, total) of the reference with the best Overlapping(t) (see module doc)."""
    hits = [_hits_by_type(hyp, ref) for ref in refs]
    types = set(hyp.sizes).union(*(ref.sizes for ref in refs))
    best: Counts = {}
    for t in types:
        size = hyp.sizes.get(t, 0)
        pairs = [(h.get(t, 0), size + ref.sizes.get(t, 0) - h.get(t, 0)) for h, ref in zip(hits, refs, strict=True)]
        pair = max(pairs, key=_rank) if pairs else (0, size)
        if pair[1]:
            best[t] = pair
    return best


def count_matrix(counts: Sequence[Counts]) -> tuple[dict[str, int], np.ndarray]:
    """Column index of every observed type and the ``(segments, types, 2)`` array of (hits, total)."""
    index: dict[str, int] = {}
    for c in counts:
        for t in c:
            index.setdefault(t, len(index))
    matrix = np.zeros((len(counts), len(index), 2))
    for i, c in enumerate(counts):
        row = matrix[i]
        for t, pair in c.items():
            row[index[t]] = pair
    return index, matrix


@dataclass(frozen=True)
class Selector:
    """Which typed counts of which group a variant sums: ``types`` (None = every type observed)
    minus ``exclude``."""

    group: str
    types: tuple[str, ...] | None = None
    exclude: frozenset[str] = frozenset()

    def score(self, counts: Counts) -> float:
        """``sum hits / sum total`` over the selected types; 0 when they have no items (Asiya)."""
        if self.types is not None:
            pairs = [counts[t] for t in self.types if t in counts]
        else:
            pairs = [p for t, p in counts.items() if t not in self.exclude]
        total = sum(p[1] for p in pairs)
        return sum(p[0] for p in pairs) / total if total else 0.0

    def scores(self, index: dict[str, int], matrix: np.ndarray) -> np.ndarray:
        """:meth:`score` of every segment of a :func:`count_matrix` (vectorised)."""
        if self.types is not None:
            cols = [index[t] for t in self.types if t in index]
        else:
            cols = [j for t, j in index.items() if t not in self.exclude]
        hits, total = matrix[:, cols, 0].sum(axis=1), matrix[:, cols, 1].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, hits / total, 0.0)


def per_type(prefix: str, group: str, types: Iterable[str]) -> dict[str, Selector]:
    """``{prefix(t): Selector(group, (t,))}`` for every type: the Overlapping(t)/Matching(t) variants."""
    return {f"{prefix}({t})": Selector(group, (t,)) for t in types}


class OverlapFamily(MetricFamily):
    """A family whose variants are Overlapping/Matching measures over typed bags (module docstring).

    Subclasses set ``selectors`` (variant -> :class:`Selector`) and implement :meth:`features`.
    """

    needs_annotation = True
    selectors: ClassVar[dict[str, Selector]]

    def __init__(self, case_sensitive: bool = True, lowercase: bool = True, **options: Any) -> None:
        """Items are lower-cased unless ``lowercase=False`` and ``case_sensitive`` (Asiya lower-cases
        whatever the experiment's case setting; the signature shows the effective ``case``)."""
        super().__init__(case_sensitive and not lowercase, **options)
        self._cache: dict[Sentence, Features] = {}
        self._keys = Interner()

    def bags(self, pairs: Iterable[tuple[str, Hashable]]) -> Typed:
        """:func:`typed_bags` with this family's interned keys."""
        return typed_bags(pairs, self._keys)

    def counted_bags(self, counts: Mapping[Pair, int]) -> Typed:
        """:func:`typed_counts` with this family's interned keys."""
        return typed_counts(counts, self._keys)

    @abstractmethod
    def features(self, sentence: Sentence) -> Features:
        """Typed bags of one sentence, by measure group."""

    def selector(self, variant: str) -> Selector | None:
        """A variant's :class:`Selector`: a registered one, or for an open-label name ``PREFIX(label)``
        (``MetricFamily.open_labels``) the prefix's group restricted to that label; None for others."""
        found = self.selectors.get(variant)
        if found is None and variant.endswith(")") and "(" in variant:
            prefix, label = variant[:-1].split("(", 1)
            group = self.open_labels.get(prefix)
            found = Selector(group, (label,)) if group is not None else None
        return found

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
        for sentence, refs in zip(sentences, prepared, strict=True):
            hyp = self.cached_features(sentence)
            out.append({g: best_counts(hyp.get(g, NO_ITEMS), [r.get(g, NO_ITEMS) for r in refs]) for g in groups})
        return out

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """:meth:`score_features` of the prepared reference features."""
        return self.score_features(hypothesis, prepared, documents, variants)

    def score_features(self, hypothesis: Side, prepared: list[list[Features]], documents: DocumentIndex,
                       variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Segment scores of every requested variant; document/system scores are their means."""
        chosen = {v: sel for v in variants if (sel := self.selector(v)) is not None}
        groups = {s.group for s in chosen.values()}
        counts = self.segment_counts(hypothesis, prepared, groups)
        matrices = {g: count_matrix([c[g] for c in counts]) for g in groups}
        return {v: mean_score_set(sel.scores(*matrices[sel.group]), documents) for v, sel in chosen.items()}


def annotated(side: Side, family: str) -> Sequence[Sentence]:
    """The annotation of a side, or a one-line error when the pipeline did not provide it."""
    if side.sentences is None:
        raise MtevalError(f"{family}: {side.name} has no annotation (family needs annotated segments)")
    if len(side.sentences) != len(side.texts):
        raise MtevalError(f"{family}: {side.name} has {len(side.texts)} segments but "
                          f"{len(side.sentences)} annotated sentences")
    return side.sentences
