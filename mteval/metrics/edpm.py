"""DPM and EDPM: (Expected) Dependency Pair Match (Kahn, Snover & Ostendorf 2009).

A dependency tree is *decomposed* into bags of tree-local tuples (§2, Figure 1):

- ``dlh``: ⟨dependent, label, head⟩ for every word (the root word's head is ``<root>``);
- ``dl``: ⟨dependent, label⟩ (outbound link), ``lh``: ⟨label, head⟩ (inbound link);
- ``dh``: ⟨dependent, head⟩ (unlabelled link);
- ``1g``, ``2g``: surface unigrams and bigrams of the parsed words.

Tuples of different decompositions never match each other. Counts are clipped per tuple
(``min(hyp, ref)``); precision = matched / hyp count, recall = matched / ref count. Combinations
(§2, eq. 1-2): ``F[a,b,...]`` pools every decomposition into one bag and takes F1 of its precision
and recall; ``μPR[a,b,...]`` is the harmonic mean of each decomposition's precision and recall.

*DPM* counts come from the 1-best tree (the annotation). *EDPM* counts are expectations: the paper
averages over an n-best list with a flattening exponent γ; we take exact expectations over all
non-projective trees under the parser's scores tempered by γ (:mod:`mteval.metrics.matrix_tree`);
``gamma="inf"`` is DPM (the annotated tree; the γ -> ∞ limit of the model, which weighs the labels
too, can be another tree: docs/sepia-edpm.md). EDPM (§5) = ``F[1g,2g,dl,lh]`` with γ = 0.25.

Bound (long segments): the expectation over one sentence of n words costs O(n^3) time and O(n^2)
memory, O(n^2 x labels) with a dlh variant (5,000 words: ~40 s and > 2 GB; 1,000 words: < 1 s and
~0.3 GB with every variant). A segment with a sentence (a connected part of its arc
scores) longer than ``MAX_PART`` words is counted over its 1-best tree instead (the annotated
tree, DPM's counts), with a warning; ``maxpart`` is in the signature. The annotator's default of 250
words per segment never reaches it.

Several references: every segment is scored against each reference and the best one (by the
variant's segment score) supplies that segment's statistics; document and system scores pool the
chosen statistics (matched, hypothesis and reference counts summed), as SParseval does. Ties go to
the reference with fewer items, then the smaller statistics row: never to the first one listed.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mteval.annotate.model import Sentence
from mteval.errors import ConfigError, InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricInfo, ScoreSet, Side, StatsFamily, scores_from_stats_matrix
from mteval.metrics.matrix_tree import ArcExpectation, blocks, expected_arcs
from mteval.metrics.registry import register

DECOMPOSITIONS: tuple[str, ...] = ("dlh", "dl", "lh", "dh", "1g", "2g")
ROOT = "\x00<root>"  # the virtual root's word type (cannot collide with a token)
N_STATS = 3 * len(DECOMPOSITIONS)  # per decomposition: matched, hypothesis count, reference count
DEFAULT_COMBINATION = "F[1g,2g,dl,lh]"
MAX_PART = 1000  # words of one sentence over which EDPM takes expectations (module docstring)
LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Combination:
    """``F[parts]`` (one pooled bag) or ``μPR[parts]`` (harmonic mean of per-part P and R)."""

    kind: str  # "F" or "muPR"
    parts: tuple[str, ...]


_SPEC = re.compile(r"^\s*(F|μPR|muPR|PR)\s*[\[(]\s*([^\])]*)[\])]\s*$")


def parse_combination(spec: str) -> Combination:
    """Parse ``F[1g,2g,dl,lh]`` / ``μPR[dl,lh]`` (``muPR`` accepted) into a :class:`Combination`."""
    match = _SPEC.match(spec)
    if not match:
        raise ConfigError(f"bad DPM combination {spec!r}; expected e.g. F[1g,2g,dl,lh] or μPR[dl,lh]")
    parts = tuple(p.strip() for p in match.group(2).replace(";", ",").split(",") if p.strip())
    bad = [p for p in parts if p not in DECOMPOSITIONS]
    if bad or not parts or len(set(parts)) != len(parts):
        raise ConfigError(f"bad DPM combination {spec!r}: parts must be distinct, from "
                          f"{', '.join(DECOMPOSITIONS)}")
    return Combination("F" if match.group(1) == "F" else "muPR", parts)


@dataclass(frozen=True)
class TreeArcs:
    """A 1-best tree (DPM): every word's head (0 = root) and label id, and the size of the label
    index when it was built; what :class:`DepBags` needs without (n+1)^2 marginals."""

    heads: np.ndarray
    labels: np.ndarray
    n_labels: int


@dataclass(frozen=True)
class Pairs:
    """A sparse count table over (row, column) type pairs: sorted unique keys
    ``row * size + column`` and their counts; ``inner`` labels per row type for dlh rows
    (``row = type * inner + label``). Used for integer counts (tree arcs, bigrams), so that sums
    are exact in any order; a long sentence's dense (types x types) tables took GBs."""

    keys: np.ndarray
    counts: np.ndarray
    size: int
    inner: int | None = None  # labels per row type (dlh), None for a plain (type, type) table

    @classmethod
    def count(cls, rows: np.ndarray, cols: np.ndarray, size: int, inner: int | None = None) -> Pairs:
        """Counts of the (row, column) pairs given (``size`` column types)."""
        keys, counts = np.unique(np.asarray(rows, dtype=np.int64) * size + np.asarray(cols, dtype=np.int64),
                                 return_counts=True)
        return cls(keys, counts.astype(np.float64), size, inner)

    def dense(self) -> np.ndarray:
        """The dense table, ``(size, size)`` or for dlh ``(size, inner, size)``."""
        inner = self.inner or 1
        out = np.zeros(self.size * inner * self.size)
        out[self.keys] = self.counts
        return out.reshape((self.size, self.size) if self.inner is None else (self.size, inner, self.size))

    def match(self, other: Pairs, mine: np.ndarray, theirs: np.ndarray, n_labels: int | None = None) -> float:
        """Sum of min counts over the pairs of common types (``mine[k]``, ``theirs[k]``: the ids of
        common type k here and there); labels below ``n_labels`` for dlh."""
        a, b = self._common(mine, n_labels), other._common(theirs, n_labels)
        _, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
        return float(np.minimum(a[1][ia], b[1][ib]).sum())

    def _common(self, ids: np.ndarray, n_labels: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Keys re-expressed over the common types (dropping the others), with their counts."""
        index = np.full(self.size, -1, dtype=np.int64)
        index[ids] = np.arange(len(ids))
        row, col = self.keys // self.size, self.keys % self.size
        kind, label = row // (self.inner or 1), row % (self.inner or 1)
        ok = (index[kind] >= 0) & (index[col] >= 0)
        width = 1
        if n_labels is not None:  # both sides' labels below n_labels: one key space
            ok &= label < n_labels
            width = n_labels
        c = len(ids)
        new = (index[kind[ok]] * width + label[ok]) * c + index[col[ok]]
        order = np.argsort(new, kind="stable")
        return new[order], self.counts[ok][order]


class DepBags:
    """(Expected) counts of one sentence over its own word types (index 0 = ``<root>``).

    ``dl`` (V, L), ``lh`` (V, L) [head type, label], ``dh`` (V, V) [dependent, head], ``unigrams``
    (V,), ``bigrams`` (V, V) are built at once; ``dlh`` (V, L, V) [dependent, label, head], the only
    one dense in (n+1)² x L, only when a ``dlh`` variant asks for it.
    """

    def __init__(self, forms: Sequence[str], arcs: ArcExpectation | TreeArcs,
                 tree: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """``tree``: (heads, label ids) when the counts are one tree's (found by itself if so)."""
        self.types, pos = _types(forms)
        self.length = n = len(forms)
        self._order = np.argsort(pos, kind="stable")
        self._starts = np.flatnonzero(np.r_[True, np.diff(pos[self._order]) != 0])
        self._arcs = arcs
        self._dlh: np.ndarray | Pairs | None = None
        self._pos = pos
        if isinstance(arcs, TreeArcs):
            tree = (arcs.heads, arcs.labels)
        elif tree is None:
            tree = _as_tree(arcs)
        self._tree = tree  # for a sparse dlh
        self._names = list(self.types)
        self.dlh_index: dict[str, int] = {}
        v = len(self.types)
        self.dh: np.ndarray | Pairs
        if isinstance(arcs, TreeArcs):  # 1-best: counts of the tree's arcs, nothing (n+1)^2
            heads, labels = arcs.heads, arcs.labels
            self.dl = np.zeros((v, arcs.n_labels))
            np.add.at(self.dl, (pos[1:], labels), 1.0)
            self.lh = np.zeros((v, arcs.n_labels))
            np.add.at(self.lh, (pos[heads], labels), 1.0)
            self.dh = Pairs.count(pos[1:], pos[heads], v)
        else:
            self.dl = self._by_type(arcs.by_dependent(), 0)
            self.lh = self._by_type(arcs.by_head(), 0)
            self.dh = self._by_type(self._by_type(arcs.marg, 0), 1).T
        self.unigrams = np.bincount(pos[1:], minlength=v).astype(np.float64)
        self.bigrams = Pairs.count(pos[1:-1], pos[2:], v) if n > 1 else Pairs.count(pos[:0], pos[:0], v)

    def _by_type(self, x: np.ndarray, axis: int) -> np.ndarray:
        """Sums over the positions of each word type along ``axis``."""
        return np.add.reduceat(np.take(x, self._order, axis=axis), self._starts, axis=axis)

    @property
    def dlh(self) -> np.ndarray | Pairs:
        """[dependent type, label, head type] over ``dlh_index`` (all types unless restricted):
        dense expectations, or for a tree :class:`Pairs` keyed ``(dependent x labels + label, head)``."""
        if self._dlh is None:
            self.restrict_dlh(set(self.types))
        return self._dlh  # type: ignore[return-value]

    def restrict_dlh(self, keep: set[str]) -> None:
        """Build ``dlh`` only over the word types in ``keep`` (plus ``<root>``): a hypothesis needs
        just the types its references share, which saves most of the (n+1)² x L work."""
        pos = self._pos
        positions = np.flatnonzero([p == 0 or self._names[p] in keep for p in pos])
        sub = pos[positions]
        order = np.argsort(sub, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(sub[order]) != 0])
        self.dlh_index = {self._names[t]: i for i, t in enumerate(sub[order][starts])}
        if self._tree is not None:  # 1-best: count the tree's arcs, no dense tensor
            heads, labels = self._tree
            row = np.full(len(pos), -1)
            row[positions] = np.searchsorted(sub[order][starts], sub)
            deps = np.arange(1, len(pos))
            ok = (row[deps] >= 0) & (row[heads] >= 0)
            n_labels = self._arcs.n_labels if isinstance(self._arcs, TreeArcs) else self._arcs.probs.shape[-1]
            self._dlh = Pairs.count(row[deps[ok]] * n_labels + labels[ok], row[heads[ok]], len(starts),
                                    inner=n_labels)
            return
        assert isinstance(self._arcs, ArcExpectation)  # a TreeArcs always has its tree
        dense = self._arcs.dense(positions)
        by_type = np.add.reduceat(np.take(dense, order, axis=0), starts, axis=0)
        by_type = np.add.reduceat(np.take(by_type, order, axis=1), starts, axis=1)  # [th, td, l]
        self._dlh = by_type.transpose(1, 2, 0)


def _as_tree(arcs: ArcExpectation) -> tuple[np.ndarray, np.ndarray] | None:
    """(heads, label ids) when the expectation is a single labelled tree (0/1 everywhere)."""
    m, p = arcs.marg, arcs.probs
    if p.shape[1] != 1 or not (np.all((m == 0) | (m == 1)) and np.all((p == 0) | (p == 1))):
        return None
    if m.shape[0] > 1 and not (np.all(m[:, 1:].sum(axis=0) == 1) and np.all(p.sum(axis=-1) == 1)):
        return None
    return m[:, 1:].argmax(axis=0), p[:, 0].argmax(axis=-1)


def _types(forms: Sequence[str]) -> tuple[dict[str, int], np.ndarray]:
    """Word-type index (``<root>`` first) and the type of every position 0..n."""
    types = {ROOT: 0}
    pos = [0] + [types.setdefault(f, len(types)) for f in forms]
    return types, np.asarray(pos, dtype=np.intp)


def one_best_arcs(sentence: Sentence, labels: dict[str, int]) -> TreeArcs:
    """The annotated tree (DPM's, ``gamma="inf"``) as heads and label ids; grows ``labels``."""
    n = len(sentence)
    lab = [labels.setdefault(w.deprel, len(labels)) for w in sentence.words]
    heads = np.asarray(sentence.heads(), dtype=np.intp)
    if n and (heads.min() < 0 or heads.max() > n):
        raise InputError(f"head out of range in parsed sentence {sentence.text!r}")
    return TreeArcs(heads, np.asarray(lab, dtype=np.intp), len(labels))


def _match_one(h: np.ndarray, r: np.ndarray) -> float:
    return float(np.minimum(h, r).sum())


def _match_pairs(h: np.ndarray | Pairs, r: np.ndarray | Pairs, ih: np.ndarray, ir: np.ndarray) -> float:
    """Clipped matches of two [type, type] bags over the common types (``ih``/``ir``: their ids)."""
    if isinstance(h, Pairs) and isinstance(r, Pairs):
        return h.match(r, ih, ir)
    h, r = (x.dense() if isinstance(x, Pairs) else x for x in (h, r))
    return _match_one(h[ih][:, ih], r[ir][:, ir])


def _match_dlh(hyp: DepBags, ref: DepBags, common: list[str], n_labels: int) -> float:
    h, r = hyp.dlh, ref.dlh
    ih = np.asarray([hyp.dlh_index[t] for t in common], dtype=np.intp)
    ir = np.asarray([ref.dlh_index[t] for t in common], dtype=np.intp)
    if isinstance(h, Pairs) and isinstance(r, Pairs):
        return h.match(r, ih, ir, n_labels)
    h, r = (x.dense() if isinstance(x, Pairs) else x for x in (h, r))
    return _match_one(h[ih][:, :n_labels][:, :, ih], r[ir][:, :n_labels][:, :, ir])


def pair_stats(hyp: DepBags, ref: DepBags, parts: frozenset[str] = frozenset(DECOMPOSITIONS)) -> np.ndarray:
    """Matched, hypothesis and reference counts of the decompositions in ``parts`` (a row of
    ``N_STATS``; the columns of other decompositions stay 0)."""
    common = [t for t in hyp.types if t in ref.types]
    ih = np.asarray([hyp.types[t] for t in common], dtype=np.intp)
    ir = np.asarray([ref.types[t] for t in common], dtype=np.intp)
    nl = min(hyp.dl.shape[1], ref.dl.shape[1])
    match = {
        "dlh": lambda: _match_dlh(hyp, ref, common, nl),
        "dl": lambda: _match_one(hyp.dl[ih, :nl], ref.dl[ir, :nl]),
        "lh": lambda: _match_one(hyp.lh[ih, :nl], ref.lh[ir, :nl]),
        "dh": lambda: _match_pairs(hyp.dh, ref.dh, ih, ir),
        "1g": lambda: _match_one(hyp.unigrams[ih], ref.unigrams[ir]),
        "2g": lambda: _match_pairs(hyp.bigrams, ref.bigrams, ih, ir),
    }
    row = np.zeros(N_STATS)
    hn, rn = float(hyp.length), float(ref.length)
    for k, d in enumerate(DECOMPOSITIONS):
        if d in parts:
            minus = 1.0 if d == "2g" else 0.0
            row[3 * k: 3 * k + 3] = (match[d](), max(hn - minus, 0.0), max(rn - minus, 0.0))
    return row


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros_like(num, dtype=np.float64), where=den > 0)


def combine(stats: np.ndarray, combination: Combination) -> np.ndarray:
    """Scores of the rows of a statistics matrix under ``F[...]`` or ``μPR[...]`` (eq. 1-2)."""
    cols = [DECOMPOSITIONS.index(p) for p in combination.parts]
    m, h, r = (stats[:, [3 * k + j for k in cols]] for j in range(3))
    if combination.kind == "F":
        return _safe_div(2.0 * m.sum(axis=1), h.sum(axis=1) + r.sum(axis=1))
    values = np.concatenate([_safe_div(m, h), _safe_div(m, r)], axis=1)
    with np.errstate(divide="ignore"):
        inv = np.where(values > 0, 1.0 / np.where(values > 0, values, 1.0), np.inf).sum(axis=1)
    return np.where(np.isfinite(inv), values.shape[1] / inv, 0.0)


def precision_recall(stats: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Per-decomposition precision and recall of every row (EDPM §6 'E' and 'N' features)."""
    names, cols = [], []
    for k, d in enumerate(DECOMPOSITIONS):
        m, h, r = stats[:, 3 * k], stats[:, 3 * k + 1], stats[:, 3 * k + 2]
        names += [f"P_{d}", f"R_{d}"]
        cols += [_safe_div(m, h), _safe_div(m, r)]
    return names, np.stack(cols, axis=1)


def _named_variants(prefix: str) -> dict[str, str]:
    variants = {prefix: DEFAULT_COMBINATION}
    variants.update({f"{prefix}-{d}": f"F[{d}]" for d in DECOMPOSITIONS})
    variants[f"{prefix}-dl-lh"] = "F[dl,lh]"
    variants[f"{prefix}-muPR"] = "μPR[1g,2g,dl,lh]"
    variants[f"{prefix}-muPR-dl-lh"] = "μPR[dl,lh]"
    return variants


class _PairMatch(StatsFamily):
    """Shared machinery of DPM (1-best) and EDPM (expected counts)."""

    needs_annotation = True
    version = "2"  # 2: ties between references no longer go to the first one (best_reference_stats)
    combinations: ClassVar[dict[str, str]]

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        unknown = set(options) - {"combination", "gamma"}
        if unknown:
            raise ConfigError(f"{self.family}: unknown option(s) {', '.join(sorted(unknown))}; "
                              "known: combination, gamma")
        super().__init__(case_sensitive, **options)
        self._labels: dict[str, int] = {}
        self._combos = {v: parse_combination(spec) for v, spec in self.combinations.items()}
        main = next(iter(self.combinations))
        if "combination" in options:
            self._combos[main] = parse_combination(str(options["combination"]))

    def info(self, variant: str) -> MetricInfo:
        """All variants are F1 or harmonic means: in [0, 1], higher is better."""
        return MetricInfo(variant, self.family, True, 0.0, 1.0,
                          f"{self.family} {self._combos[variant]}")

    def _forms(self, sentence: Sentence) -> list[str]:
        forms = [w.form for w in sentence.words]
        return forms if self.case_sensitive else [f.lower() for f in forms]

    def _arcs(self, sentences: Sequence[Sentence], side: str) -> list[ArcExpectation | TreeArcs]:
        """(Expected) arcs of each sentence, label axis in this family's label index."""
        raise NotImplementedError

    def _bags(self, side: Side) -> list[DepBags]:
        """Bags of every segment of a side, computed once per unique text."""
        if side.sentences is None or len(side.sentences) != len(side.texts):
            raise InputError(f"{self.family}: side {side.name!r} has no parse for every segment "
                             "(the pipeline must annotate it)")
        first: dict[str, int] = {}
        for i, text in enumerate(side.texts):
            first.setdefault(text, i)
        unique = list(first.values())
        arcs = self._arcs([side.sentences[i] for i in unique], side.name)
        bags = {side.texts[i]: DepBags(self._forms(side.sentences[i]), e)
                for i, e in zip(unique, arcs, strict=True)}
        return [bags[t] for t in side.texts]

    def prepare(self, references: Sequence[Side]) -> list[list[DepBags]]:
        """Bags of every reference segment (one list per reference)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        n = len(references[0])
        for ref in references:
            if len(ref) != n:
                raise InputError(f"{self.family}: reference {ref.name!r} has {len(ref)} segments, "
                                 f"expected {n}")
        return [self._bags(ref) for ref in references]

    def all_stats(self, hypothesis: Side, prepared: list[list[DepBags]],
                  parts: frozenset[str] = frozenset(DECOMPOSITIONS)) -> np.ndarray:
        """Statistics (of the decompositions in ``parts``) against every reference, shape
        ``(n_refs, n_segments, N_STATS)``."""
        if len(hypothesis) != len(prepared[0]):
            raise InputError(f"{self.family}: hypothesis {hypothesis.name!r} has {len(hypothesis)} "
                             f"segments, references have {len(prepared[0])}")
        hyp = self._bags(hypothesis)
        if "dlh" in parts:  # one restriction per distinct hypothesis (texts repeat across segments)
            keep: dict[int, tuple[DepBags, set[str]]] = {}
            for i, bags in enumerate(hyp):
                entry = keep.setdefault(id(bags), (bags, set()))
                entry[1].update(t for ref in prepared for t in ref[i].types if t in bags.types)
            for bags, types in keep.values():
                bags.restrict_dlh(types)
        cache: dict[tuple[int, int], np.ndarray] = {}
        out = np.empty((len(prepared), len(hyp), N_STATS))
        for r, ref in enumerate(prepared):
            for i, (h, g) in enumerate(zip(hyp, ref, strict=True)):
                key = (id(h), id(g))
                if key not in cache:
                    cache[key] = pair_stats(h, g, parts)
                out[r, i] = cache[key]
        return out

    def best_reference_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """Per segment, the statistics of the reference with the best segment score; on a tie, the
        one with the fewest reference items in the variant's parts (as the overlap families and
        BLEU's closest length: the pooled recall loses least), then the smallest statistics row, so
        the order of the references never matters. (Version 1 took the first reference listed: a
        hypothesis scoring 0 against two references pooled the first one's counts, and a 4-segment
        system's DPM-dl moved from 0.107 to 0.128 with the references swapped.)"""
        combo = self._combos[variant]
        scores = np.stack([combine(s, combo) for s in stats])  # (references, segments)
        ref_items = stats[:, :, [3 * DECOMPOSITIONS.index(p) + 2 for p in combo.parts]].sum(axis=2)
        keys = [stats[:, :, j] for j in reversed(range(stats.shape[2]))] + [ref_items, -scores]
        best = np.lexsort(np.stack(keys), axis=0)[0]  # the last key sorts first
        return stats[best, np.arange(stats.shape[1])]

    def segment_stats(self, hypothesis: Side, prepared: Any) -> np.ndarray:
        """Statistics of the best reference (by the main variant) for every segment."""
        main = next(iter(self.combinations))
        return self.best_reference_stats(self.all_stats(hypothesis, prepared), main)

    def features(self, hypothesis: Side, prepared: Any) -> dict[str, np.ndarray]:
        """Segment features for weight tuning (§6): P and R of every decomposition ('E' and 'N'
        sets) and the brevity/prolixity pair ('B'), against the best reference of the main variant."""
        stats = self.segment_stats(hypothesis, prepared)
        names, values = precision_recall(stats)
        out = {n: values[:, j] for j, n in enumerate(names)}
        hyp_len, ref_len = stats[:, 13], stats[:, 14]  # 1g totals = word counts
        out["B_long"] = _safe_div(np.maximum(hyp_len - ref_len, 0.0), ref_len)
        out["B_short"] = _safe_div(np.maximum(ref_len - hyp_len, 0.0), ref_len)
        return out

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """F or μPR of each statistics row (vectorised)."""
        return combine(np.atleast_2d(stats), self._combos[variant])

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Scores of each variant from its best-reference statistics (pooled for documents/system)."""
        parts = frozenset(p for v in variants for p in self._combos[v].parts)
        stats = self.all_stats(hypothesis, prepared, parts)
        result: dict[str, ScoreSet] = {}
        for variant in variants:
            chosen = self.best_reference_stats(stats, variant)
            result.update(scores_from_stats_matrix(self, chosen, documents, [variant]))
        return result


@register
class DPM(_PairMatch):
    """Dependency Pair Match over the 1-best tree (Kahn et al. 2009, §2)."""

    family = "DPM"
    combinations: ClassVar[dict[str, str]] = _named_variants("DPM")
    variants = tuple(combinations)

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        if "gamma" in options:
            raise ConfigError("DPM uses the 1-best tree (γ = ∞); use EDPM for a finite gamma")
        super().__init__(case_sensitive, **options)

    def _arcs(self, sentences: Sequence[Sentence], side: str) -> list[ArcExpectation | TreeArcs]:
        return [one_best_arcs(s, self._labels) for s in sentences]


def _gamma(value: Any) -> float:
    try:
        gamma = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"EDPM gamma must be a positive number or 'inf', got {value!r}") from None
    if not gamma > 0:
        raise ConfigError(f"EDPM gamma must be > 0, got {value!r}")
    return gamma


@register
class EDPM(_PairMatch):
    """Expected Dependency Pair Match: exact expectations over all trees, γ-tempered (§2, §5)."""

    family = "EDPM"
    combinations: ClassVar[dict[str, str]] = _named_variants("EDPM")
    variants = tuple(combinations)
    needs_arc_scores: ClassVar[bool] = True

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        options.setdefault("gamma", 0.25)
        super().__init__(case_sensitive, **options)
        self.gamma = _gamma(options["gamma"])
        if not math.isinf(self.gamma):
            self.options["maxpart"] = MAX_PART  # in the signature, not an option

    def _too_long(self, sentences: Sequence[Sentence], side: str) -> set[int]:
        """Indices of the sentences with a part over ``MAX_PART`` words (counted over their 1-best
        tree, see the module docstring), with a warning."""
        long = {i for i, s in enumerate(sentences) if s.scores is not None and len(s) > MAX_PART
                and max(len(p) for p in blocks(s.scores.arcs)) > MAX_PART}
        if long:
            LOG.warning("EDPM: %d segment(s) of %s have a sentence over %d words: counted over the "
                        "1-best tree (DPM counts), not expectations", len(long), side, MAX_PART)
        return long

    def _arcs(self, sentences: Sequence[Sentence], side: str) -> list[ArcExpectation | TreeArcs]:
        if math.isinf(self.gamma):
            return [one_best_arcs(s, self._labels) for s in sentences]
        missing = [i for i, s in enumerate(sentences) if s.scores is None]
        if missing:
            raise InputError(f"EDPM: side {side!r} has no parser arc scores for {len(missing)} "
                             "segment(s); annotate with arc scores or use DPM")
        long = self._too_long(sentences, side)
        scores = [s.scores for s in sentences]
        for sc in scores:
            for label in sc.labels:  # type: ignore[union-attr]
                self._labels.setdefault(label, len(self._labels))
        expected = iter(expected_arcs([sc for i, sc in enumerate(scores) if i not in long],  # type: ignore[misc]
                                      self.gamma))
        out: list[ArcExpectation | TreeArcs] = []
        for i, (s, sc) in enumerate(zip(sentences, scores, strict=True)):
            if i in long:
                out.append(one_best_arcs(s, self._labels))
                continue
            e = next(expected)
            if e.marg.shape[0] != len(s) + 1:
                raise InputError(f"EDPM: arc scores of {s.text!r} cover {e.marg.shape[0] - 1} words, "
                                 f"the parse has {len(s)}")
            cols = [self._labels[lab] for lab in sc.labels]  # type: ignore[union-attr]
            if cols != list(range(len(cols))):
                probs = np.zeros(e.probs.shape[:2] + (len(self._labels),))
                probs[..., cols] = e.probs
                e = ArcExpectation(e.marg, e.heads, probs)
            out.append(e)
        return out
