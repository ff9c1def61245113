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
non-projective trees under the parser's scores tempered by γ (:mod:`mteval.metrics.matrix_tree`),
so γ -> ∞ is DPM. EDPM (§5) = ``F[1g,2g,dl,lh]`` with γ = 0.25.

Several references: every segment is scored against each reference and the best one (by the
variant's segment score) supplies that segment's statistics; document and system scores pool the
chosen statistics (matched, hypothesis and reference counts summed), as SParseval does.
"""

from __future__ import annotations

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
from mteval.metrics.matrix_tree import expected_arc_labels
from mteval.metrics.registry import register

DECOMPOSITIONS: tuple[str, ...] = ("dlh", "dl", "lh", "dh", "1g", "2g")
ROOT = "\x00<root>"  # the virtual root's word type (cannot collide with a token)
N_STATS = 3 * len(DECOMPOSITIONS)  # per decomposition: matched, hypothesis count, reference count
DEFAULT_COMBINATION = "F[1g,2g,dl,lh]"


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
class DepBags:
    """Dense (expected) counts of one sentence over its own word types (index 0 = ``<root>``)."""

    types: dict[str, int]
    dlh: np.ndarray      # (V, L, V): [dependent type, label, head type]
    dl: np.ndarray       # (V, L)
    lh: np.ndarray       # (L, V)
    dh: np.ndarray       # (V, V)
    unigrams: np.ndarray  # (V,)
    bigrams: np.ndarray   # (V, V)
    length: int


def _types(forms: Sequence[str]) -> tuple[dict[str, int], np.ndarray]:
    """Word-type index (``<root>`` first) and the type of every position 0..n."""
    types = {ROOT: 0}
    pos = [0] + [types.setdefault(f, len(types)) for f in forms]
    return types, np.asarray(pos, dtype=np.intp)


def _group_sum(x: np.ndarray, order: np.ndarray, starts: np.ndarray, axis: int) -> np.ndarray:
    """Sums of ``x`` along ``axis`` over groups of positions (``order`` sorted by group)."""
    return np.add.reduceat(np.take(x, order, axis=axis), starts, axis=axis)


def make_bags(forms: Sequence[str], arc_labels: np.ndarray) -> DepBags:
    """Bags of a sentence from its (expected) arc-label counts ``E[h, d, l]`` (positions 0..n)."""
    types, pos = _types(forms)
    n, v = len(forms), len(types)
    order = np.argsort(pos, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(pos[order]) != 0])
    by_type = _group_sum(_group_sum(arc_labels, order, starts, 0), order, starts, 1)  # [th, td, l]
    dlh = by_type.transpose(1, 2, 0)                                                  # [td, l, th]
    unigrams = np.bincount(pos[1:], minlength=v).astype(np.float64)
    bigrams = np.zeros((v, v))
    if n > 1:
        np.add.at(bigrams, (pos[1:-1], pos[2:]), 1.0)
    return DepBags(types, dlh, dlh.sum(axis=2), dlh.sum(axis=0), dlh.sum(axis=1), unigrams, bigrams, n)


def one_best_arc_labels(sentence: Sentence, labels: dict[str, int]) -> np.ndarray:
    """One-hot ``E[h, d, l]`` of the annotated tree (the γ -> ∞ limit); grows ``labels``."""
    n = len(sentence)
    lab = [labels.setdefault(w.deprel, len(labels)) for w in sentence.words]
    counts = np.zeros((n + 1, n + 1, len(labels)))
    if n:
        heads = np.asarray(sentence.heads(), dtype=np.intp)
        if heads.min() < 0 or heads.max() > n:
            raise InputError(f"head out of range in parsed sentence {sentence.text!r}")
        counts[heads, np.arange(1, n + 1), lab] = 1.0
    return counts


def _match_one(h: np.ndarray, r: np.ndarray) -> float:
    return float(np.minimum(h, r).sum())


def pair_stats(hyp: DepBags, ref: DepBags) -> np.ndarray:
    """Matched, hypothesis and reference counts of every decomposition (a row of ``N_STATS``)."""
    common = [t for t in hyp.types if t in ref.types]
    ih = np.asarray([hyp.types[t] for t in common], dtype=np.intp)
    ir = np.asarray([ref.types[t] for t in common], dtype=np.intp)
    n_labels = min(hyp.dl.shape[1], ref.dl.shape[1])
    matched = (
        _match_one(hyp.dlh[ih][:, :n_labels][:, :, ih], ref.dlh[ir][:, :n_labels][:, :, ir]),
        _match_one(hyp.dl[ih, :n_labels], ref.dl[ir, :n_labels]),
        _match_one(hyp.lh[:n_labels][:, ih], ref.lh[:n_labels][:, ir]),
        _match_one(hyp.dh[ih][:, ih], ref.dh[ir][:, ir]),
        _match_one(hyp.unigrams[ih], ref.unigrams[ir]),
        _match_one(hyp.bigrams[ih][:, ih], ref.bigrams[ir][:, ir]),
    )
    hn, rn = float(hyp.length), float(ref.length)
    totals_h = (hn, hn, hn, hn, hn, max(hn - 1.0, 0.0))
    totals_r = (rn, rn, rn, rn, rn, max(rn - 1.0, 0.0))
    return np.asarray([x for k in range(6) for x in (matched[k], totals_h[k], totals_r[k])])


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

    def _arc_labels(self, sentences: Sequence[Sentence], side: str) -> list[np.ndarray]:
        """(Expected) arc-label counts of each sentence, label axis in this family's label index."""
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
        arc_labels = self._arc_labels([side.sentences[i] for i in unique], side.name)
        bags = {side.texts[i]: make_bags(self._forms(side.sentences[i]), e)
                for i, e in zip(unique, arc_labels, strict=True)}
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

    def all_stats(self, hypothesis: Side, prepared: list[list[DepBags]]) -> np.ndarray:
        """Statistics against every reference, shape ``(n_refs, n_segments, N_STATS)``."""
        if len(hypothesis) != len(prepared[0]):
            raise InputError(f"{self.family}: hypothesis {hypothesis.name!r} has {len(hypothesis)} "
                             f"segments, references have {len(prepared[0])}")
        hyp = self._bags(hypothesis)
        cache: dict[tuple[int, int], np.ndarray] = {}
        out = np.empty((len(prepared), len(hyp), N_STATS))
        for r, ref in enumerate(prepared):
            for i, (h, g) in enumerate(zip(hyp, ref, strict=True)):
                key = (id(h), id(g))
                if key not in cache:
                    cache[key] = pair_stats(h, g)
                out[r, i] = cache[key]
        return out

    def best_reference_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """Per segment, the statistics of the reference with the best segment score."""
        scores = np.stack([combine(s, self._combos[variant]) for s in stats])
        best = scores.argmax(axis=0)
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
        stats = self.all_stats(hypothesis, prepared)
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

    def _arc_labels(self, sentences: Sequence[Sentence], side: str) -> list[np.ndarray]:
        return [one_best_arc_labels(s, self._labels) for s in sentences]


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

    def _arc_labels(self, sentences: Sequence[Sentence], side: str) -> list[np.ndarray]:
        if math.isinf(self.gamma):
            return [one_best_arc_labels(s, self._labels) for s in sentences]
        missing = [i for i, s in enumerate(sentences) if s.scores is None]
        if missing:
            raise InputError(f"EDPM: side {side!r} has no parser arc scores for {len(missing)} "
                             "segment(s); annotate with arc scores or use DPM")
        for s in sentences:
            for label in s.scores.labels:  # type: ignore[union-attr]
                self._labels.setdefault(label, len(self._labels))
        expected = expected_arc_labels([s.scores for s in sentences], self.gamma)  # type: ignore[misc]
        out = []
        for s, e in zip(sentences, expected, strict=True):
            if e.shape[0] != len(s) + 1:
                raise InputError(f"EDPM: arc scores of {s.text!r} cover {e.shape[0] - 1} words, "
                                 f"the parse has {len(s)}")
            full = np.zeros(e.shape[:2] + (len(self._labels),))
            full[..., [self._labels[lab] for lab in s.scores.labels]] = e  # type: ignore[union-attr]
            out.append(full)
        return out
