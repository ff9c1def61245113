"""SEPIA: surface-span extension to syntactic dependency precision (Habash & Elkholy 2008).

A *structural bigram* (SB) is a parent-child pair of the dependency tree (§2.1), optionally
extended with the words' POS (``P``), the child's relation (``R``) and their relative order
(``O``: ``<`` when the parent precedes the child, ``>`` otherwise). Its *surface span* is
SS = |position(parent) − position(child)|. Arcs from the virtual root are not SBs.

Sub-scores (all precisions of the hypothesis against the reference set):

- ``<n>g``: surface n-gram precision of order n (clipped by the maximum reference count);
- ``SN<x>`` (x ≥ 0, e.g. ``SN0``, ``SN1``, ``SN0.5``): SN_x = Σ_n SSclip_n·n^x / Σ_n SS_n·n^x over
  the spans n of the hypothesis (§2.1, eq. 1);
- ``SPN``: the mean over hypothesis spans of SSclip_n / SS_n (§2.1, eq. 2).

Clipping with partial counts (§2.1): an SB type seen h times in the hypothesis and at most m times
in any one reference gives each of its instances the credit 1 when h ≤ m and m / h otherwise; the
credits are summed per span into SSclip_n. SB identity ignores the span (it only weights).

Mode grammar (as the SEPIA package's *mode* argument, §3)::

    mode   := term ("+" term)* [":" flags]
    term   := ngrams | "SN" number | "SPN"         ngrams := ("<n>g")+   e.g. 1g2g3g4g
    flags  := any of P, R, O (each once, any order; empty = word-word SBs)

e.g. ``1g2g3g4g+SN1+SPN:PRO`` = mean of 6 sub-scores, SBs carrying POS, relation and order.
Combination (§2.2): arithmetic (default) or harmonic mean, times the brevity penalty
1 + min(0, 1 − shortest_ref_len / hyp_len), floored at 0 (the paper's expression turns negative
when the shortest reference is over twice the hypothesis). A sub-score with nothing to count (a
3-word hypothesis has no 4-gram; a 1-word one no SB) is left out of the mean rather than counted
as 0, so that identical trees score 1. Document score = hypothesis-length
weighted mean of its segments; system score = document-size (in segments) weighted mean of
documents (§2.2; the ``weighted`` aggregation rule). The segments' lengths travel with the scores
(``ScoreSet.stats``, one column), so the score of part of the test set (``iqeval -T``, part of a
document) follows the same rule on those segments (version 2; version 1 stored no lengths, and
iqeval gave such a part the plain mean of its segments).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mteval.annotate.model import Sentence
from mteval.errors import ConfigError, InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import WEIGHTED, MetricFamily, MetricInfo, ScoreSet, Side
from mteval.metrics.ngrams import max_counts, ngram_counts
from mteval.metrics.registry import register

SBKey = tuple[str, ...]
DEFAULT_MODE = "1g2g3g4g+SN1+SPN:PRO"


@dataclass(frozen=True)
class Mode:
    """A parsed mode: sub-score terms and the SB flags."""

    spec: str
    ngrams: tuple[int, ...]
    sn: tuple[float, ...]
    spn: bool
    flags: str  # canonical order "PRO" subset

    @property
    def n_terms(self) -> int:
        """Number of sub-scores averaged."""
        return len(self.ngrams) + len(self.sn) + int(self.spn)


_TERM_NGRAMS = re.compile(r"^(?:[1-9]g)+$")
_TERM_SN = re.compile(r"^SN(\d+(?:\.\d+)?)$")


def parse_mode(spec: str) -> Mode:
    """Parse a SEPIA mode string (grammar in the module docstring)."""
    terms_part, _, flags = spec.strip().partition(":")
    flags = flags.strip().upper()
    if len(set(flags)) != len(flags) or set(flags) - set("PRO"):
        raise ConfigError(f"bad SEPIA mode {spec!r}: SB flags must be distinct letters from P, R, O")
    ngrams: list[int] = []
    sn: list[float] = []
    spn = False
    for term in (t.strip() for t in terms_part.split("+")):
        if _TERM_NGRAMS.match(term):
            ngrams += [int(c) for c in term if c.isdigit()]
        elif (m := _TERM_SN.match(term.upper())):
            sn.append(float(m.group(1)))
        elif term.upper() == "SPN":
            spn = True
        else:
            raise ConfigError(f"bad SEPIA mode {spec!r}: unknown term {term!r} "
                              "(expected <n>g..., SN<x> or SPN)")
    if len(set(ngrams)) != len(ngrams) or len(set(sn)) != len(sn):
        raise ConfigError(f"bad SEPIA mode {spec!r}: a sub-score is repeated")
    canon = "".join(c for c in "PRO" if c in flags)
    return Mode(spec, tuple(ngrams), tuple(sn), spn, canon)


@dataclass(frozen=True)
class Parsed:
    """What SEPIA reads from one segment: its words and its SBs under each flag set."""

    length: int
    tokens: tuple[str, ...]
    sbs: dict[str, tuple[list[SBKey], np.ndarray]]  # flags -> (SB keys, spans)


def structural_bigrams(sentence: Sentence, flags: str, forms: Sequence[str],
                       pos: str = "xpos") -> tuple[list[SBKey], np.ndarray]:
    """SB keys and surface spans of a tree (§2.1); ``forms`` are the (case-folded) words."""
    keys: list[SBKey] = []
    spans: list[int] = []
    for w in sentence.words:
        if w.head == 0:
            continue
        parent = sentence.word(w.head)
        key = [forms[w.head - 1]]
        if "P" in flags:
            key += [_tag(parent, pos), _tag(w, pos)]
        if "R" in flags:
            key.append(w.deprel)
        if "O" in flags:
            key.append("<" if w.head < w.id else ">")
        key.append(forms[w.id - 1])
        keys.append(tuple(key))
        spans.append(abs(w.head - w.id))
    return keys, np.asarray(spans, dtype=np.intp)


def _tag(word: Any, pos: str) -> str:
    tag = word.xpos if pos == "xpos" else word.upos
    return word.upos if tag == "_" else tag


def partial_credits(keys: Sequence[SBKey], max_ref: dict[SBKey, int] | Counter[SBKey]) -> np.ndarray:
    """Clipping with partial counts: credit 1, or max-ref / #hyp when the hypothesis has more."""
    seen = Counter(keys)
    out = np.empty(len(keys))
    for i, k in enumerate(keys):
        h, m = seen[k], max_ref.get(k, 0)
        out[i] = 1.0 if h <= m else m / h
    return out


def span_subscores(spans: np.ndarray, credits: np.ndarray, sn: Sequence[float],
                   spn: bool) -> list[float | None]:
    """SN_x for every x, then SPN (§2.1 eq. 1-2); None (undefined) when the hypothesis has no SB."""
    if len(spans) == 0:
        return [None] * (len(sn) + int(spn))
    ss = np.bincount(spans).astype(np.float64)
    clip = np.bincount(spans, weights=credits)
    present = np.flatnonzero(ss)
    n = present.astype(np.float64)
    out: list[float | None] = [float((clip[present] * n ** x).sum() / (ss[present] * n ** x).sum())
                               for x in sn]
    if spn:
        out.append(float(np.mean(clip[present] / ss[present])))
    return out


def ngram_precisions(tokens: tuple[str, ...], max_ref: Any, orders: Sequence[int]) -> list[float | None]:
    """Clipped surface n-gram precision of each order (None when the hypothesis has none)."""
    if not orders:
        return []
    top = max(orders)
    matched = np.zeros(top + 1)
    total = np.zeros(top + 1)
    for gram, c in ngram_counts(tokens, top).items():
        total[len(gram)] += c
        matched[len(gram)] += min(c, max_ref.get(gram, 0))
    return [float(matched[n] / total[n]) if total[n] else None for n in orders]


def combine(subscores: Sequence[float | None], harmonic: bool) -> float:
    """Arithmetic (default) or harmonic mean of the defined sub-scores (§2.2); a sub-score with
    nothing to count (no n-gram of that order, no SB) is left out; none defined gives 0."""
    values = [v for v in subscores if v is not None]
    if not values:
        return 0.0
    if harmonic:
        return 0.0 if min(values) <= 0 else len(values) / sum(1.0 / v for v in values)
    return float(sum(values) / len(values))


def brevity_penalty(hyp_len: int, shortest_ref: int) -> float:
    """1 + min(0, 1 − shortest_ref / hyp_len) (§2.2), floored at 0; 0 for an empty hypothesis."""
    if hyp_len == 0:
        return 0.0
    return max(0.0, 1.0 + min(0.0, 1.0 - shortest_ref / hyp_len))


@dataclass(frozen=True)
class PreparedSegment:
    """One segment's reference set: clipping counts and the shortest reference length."""

    ngram_max: Any
    sb_max: dict[str, dict[SBKey, int]]
    shortest: int


def aggregate(segments: np.ndarray, lengths: np.ndarray, documents: DocumentIndex) -> ScoreSet:
    """Document = length-weighted mean of segments; system = segment-count-weighted mean of docs
    (§2.2); the lengths are kept as the statistics (one column)."""
    docs: dict[str, float] = {}
    sizes = []
    for d in documents.documents:
        rows = documents.rows(d)
        w = lengths[rows].astype(np.float64)
        docs[d] = float((segments[rows] * w).sum() / w.sum()) if w.sum() > 0 else 0.0
        sizes.append(len(rows))
    size = np.asarray(sizes, dtype=np.float64)
    system = float((np.asarray(list(docs.values())) * size).sum() / size.sum()) if size.sum() else 0.0
    return ScoreSet(system, docs, segments, np.asarray(lengths, dtype=np.float64).reshape(-1, 1))


VARIANT_MODES: dict[str, tuple[str | None, bool | None]] = {
    "SEPIA": (None, None),                     # mode / mean from the options
    "SEPIA-H": (None, True),                   # same mode, harmonic mean
    "SEPIA-ngram": ("1g2g3g4g", False),
    "SEPIA-SN0": ("SN0", False),
    "SEPIA-SN1": ("SN1", False),
    "SEPIA-SN2": ("SN2", False),
    "SEPIA-SPN": ("SPN", False),
    "SEPIA-SN1-PRO": ("SN1:PRO", False),
    "SEPIA-SPN-PRO": ("SPN:PRO", False),
    "SEPIA-1g2g-SN1-SPN-PRO": ("1g2g+SN1+SPN:PRO", False),
}


@register
class Sepia(MetricFamily):
    """SEPIA (Habash & Elkholy 2008); options: ``mode``, ``mean`` (arithmetic|harmonic),
    ``brevity_penalty`` (bool), ``pos`` (xpos|upos)."""

    family = "SEPIA"
    variants = tuple(VARIANT_MODES)
    version = "2"  # 2: the segments' lengths stored, for the scores of part of the test set
    needs_annotation = True
    _OPTIONS: ClassVar[set[str]] = {"mode", "mean", "brevity_penalty", "pos"}

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        unknown = set(options) - self._OPTIONS
        if unknown:
            raise ConfigError(f"SEPIA: unknown option(s) {', '.join(sorted(unknown))}; "
                              f"known: {', '.join(sorted(self._OPTIONS))}")
        super().__init__(case_sensitive, **options)
        mean = str(options.get("mean", "arithmetic"))
        if mean not in ("arithmetic", "harmonic"):
            raise ConfigError(f"SEPIA: mean must be arithmetic or harmonic, got {mean!r}")
        self.pos = str(options.get("pos", "xpos"))
        if self.pos not in ("xpos", "upos"):
            raise ConfigError(f"SEPIA: pos must be xpos or upos, got {self.pos!r}")
        self.bp = bool(options.get("brevity_penalty", True))
        self._modes: dict[str, tuple[Mode, bool]] = {}
        for name, (spec, harmonic) in VARIANT_MODES.items():
            mode = parse_mode(spec if spec is not None else str(options.get("mode", DEFAULT_MODE)))
            self._modes[name] = (mode, harmonic if harmonic is not None else mean == "harmonic")
        self._flags = sorted({m.flags for m, _ in self._modes.values()})
        self._max_order = max((max(m.ngrams, default=0) for m, _ in self._modes.values()), default=0)

    def aggregation(self, level: str) -> str:
        """Documents and the system as weighted means (§2.2: :func:`aggregate`)."""
        return WEIGHTED

    def subset_score(self, scores: ScoreSet, rows: np.ndarray, variant: str, level: str,
                     documents: DocumentIndex | None = None) -> float:
        """§2.2 on the segments ``rows`` alone: a document's score weighs its selected segments by
        their length, the system's its documents by their selected segments (``documents``: the test
        set's; a ``doc`` score, or none given, is one document). ValueError without the lengths."""
        if scores.stats is None:
            raise ValueError(f"SEPIA: no segment lengths to weigh a {level} score of part of the test set")
        rows = np.asarray(rows, dtype=np.intp)
        ids = ("-",) * len(rows) if level == "doc" or documents is None else tuple(documents.doc_ids[i] for i in rows)
        docs = DocumentIndex(ids)
        return aggregate(np.asarray(scores.segments, dtype=np.float64)[rows], scores.stats[rows, 0], docs).system

    def info(self, variant: str) -> MetricInfo:
        """A mean of precisions times a penalty in [0, 1]."""
        mode, harmonic = self._modes[variant]
        kind = "harmonic" if harmonic else "arithmetic"
        return MetricInfo(variant, self.family, True, 0.0, 1.0, f"SEPIA {mode.spec} ({kind} mean)")

    def _parse(self, side: Side) -> list[Parsed]:
        """Words and SBs of every segment of a side, once per parse object (the annotator gives a
        repeated text its one parse; keyed by the text until 2026-11-28, which gave a segment the
        SBs of an earlier one with the same words and another tree: a score that depended on the
        other segments, found by test_sepia's subset property)."""
        if side.sentences is None or len(side.sentences) != len(side.texts):
            raise InputError(f"SEPIA: side {side.name!r} has no parse for every segment "
                             "(the pipeline must annotate it)")
        cache: dict[int, Parsed] = {}
        out = []
        for sentence in side.sentences:
            if id(sentence) not in cache:
                forms = tuple(w.form if self.case_sensitive else w.form.lower() for w in sentence.words)
                sbs = {f: structural_bigrams(sentence, f, forms, self.pos) for f in self._flags}
                cache[id(sentence)] = Parsed(len(forms), forms, sbs)
            out.append(cache[id(sentence)])
        return out

    def prepare(self, references: Sequence[Side]) -> list[PreparedSegment]:
        """Per segment: max n-gram and SB counts over the references, shortest reference length."""
        if not references:
            raise InputError("SEPIA: no reference given")
        parsed = [self._parse(r) for r in references]
        n = len(parsed[0])
        for ref, p in zip(references, parsed, strict=True):
            if len(p) != n:
                raise InputError(f"SEPIA: reference {ref.name!r} has {len(p)} segments, expected {n}")
        out = []
        for i in range(n):
            segs = [p[i] for p in parsed]
            ngram_max = max_counts([ngram_counts(s.tokens, self._max_order) for s in segs])
            sb_max = {f: dict(max_counts([Counter(s.sbs[f][0]) for s in segs])) for f in self._flags}
            out.append(PreparedSegment(ngram_max, sb_max, min(s.length for s in segs)))
        return out

    def _segment(self, hyp: Parsed, ref: PreparedSegment, variants: Sequence[str]) -> list[float]:
        """Scores of one segment for each variant (sub-scores shared across variants)."""
        ngram = ngram_precisions(hyp.tokens, ref.ngram_max, range(1, self._max_order + 1))
        credits = {f: partial_credits(hyp.sbs[f][0], ref.sb_max[f]) for f in self._flags}
        bp = brevity_penalty(hyp.length, ref.shortest) if self.bp else (1.0 if hyp.length else 0.0)
        out = []
        for v in variants:
            mode, harmonic = self._modes[v]
            values: list[float | None] = [ngram[n - 1] for n in mode.ngrams]
            values += span_subscores(hyp.sbs[mode.flags][1], credits[mode.flags], mode.sn, mode.spn)
            out.append(combine(values, harmonic) * bp)
        return out

    def score(self, hypothesis: Side, prepared: list[PreparedSegment], documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Segment, document and system scores of the requested variants (§2.2 aggregation)."""
        if len(hypothesis) != len(prepared):
            raise InputError(f"SEPIA: hypothesis {hypothesis.name!r} has {len(hypothesis)} segments, "
                             f"references have {len(prepared)}")
        hyp = self._parse(hypothesis)
        table = np.asarray([self._segment(h, r, variants) for h, r in zip(hyp, prepared, strict=True)],
                           dtype=np.float64).reshape(len(hyp), len(variants))
        lengths = np.asarray([h.length for h in hyp])
        return {v: aggregate(table[:, j].copy(), lengths, documents) for j, v in enumerate(variants)}
