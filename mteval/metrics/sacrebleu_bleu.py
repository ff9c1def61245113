"""sacreBLEU's BLEU: the numbers of sacreBLEU 2.6.0's ``BLEU`` (``sacrebleu/metrics/bleu.py``) on its 0-100 scale.

Post (2018), "A call for clarity in reporting BLEU scores", WMT; BLEU of Papineni et al. (2002):
``BLEU = BP * exp(mean of log p_n, n = 1..N)``, ``p_n`` the clipped n-gram precision (hypothesis
counts clipped by the most frequent occurrence in any one reference), ``BP = exp(1 - r/c)`` when
``c < r``, with ``r`` the reference length closest to the hypothesis length (ties: the shorter).

Every option of sacreBLEU's ``BLEU`` is a parameter of the metric name (``mteval.metrics.parameters``):
``sacreBLEU(tok=intl,smooth=floor,smooth_value=0.2,order=6,eff=yes,lc=yes)``; spBLEU is
``sacreBLEU(tok=flores200)`` (or ``flores101``, ``spBLEU-1K``; ``tok=spm`` is ``tok=flores101``); the plain
``sacreBLEU`` is sacreBLEU's default (tok 13a, smooth exp, order 4, eff no, mixed case). As in
``BLEU.compute_bleu``: no match of any order gives 0 (sacreBLEU's #141, where mteval-v13a's ``BLEU``
smooths); ``exp`` is mteval's smoothing (an order without matches: precision ``1/(2^k * total)``,
the k-th such order), ``floor`` gives it ``smooth_value / total`` (default 0.1), ``add-k`` adds
``smooth_value`` to the counts of orders 2 and up (default 1), ``none`` leaves it 0 (log floored
at -9999999999); ``eff``: the mean over the orders up to the last one with hypothesis n-grams
(Chen and Cherry 2014's methods, sacreBLEU's names).

Statistics per segment: ``[hyp_len, ref_len, correct_1..N, total_1..N]`` (sacreBLEU's layout);
the system score is sacreBLEU's ``corpus_score`` (summed statistics), a document's the score of
its summed rows, and a segment's that of its own row, which is sacreBLEU's ``sentence_score``
with the same options (``sacrebleu.sentence_bleu`` defaults to ``eff=yes``: the segment scores of
``sacreBLEU(eff=yes)`` are its numbers). Case: ``lc=yes``, or the experiment's ``case: ci``, lower-
cases (Python's ``str.lower``, as sacreBLEU) before tokenising.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any, ClassVar

import numpy as np

from mteval import __version__
from mteval.errors import ConfigError, InputError, quote
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricInfo, ScoreSet, Side, StatsFamily, scores_from_stats_matrix
from mteval.metrics.parameters import Parameter
from mteval.metrics.registry import register
from mteval.metrics.sacre_tokenizers import (
    BLEU_TOKENIZER_ALIASES,
    BLEU_TOKENIZERS,
    SEGMENTED_SCRIPTS,
    bleu_tokenizer_signature,
    bleu_tokens,
)
from mteval.metrics.segment_cache import SegmentCache

SACREBLEU_VERSION = "2.6.0"
SMOOTH_DEFAULTS = {"floor": 0.1, "add-k": 1.0}  # sacreBLEU's BLEU.SMOOTH_DEFAULTS (Chen and Cherry 2014)
LOG_FLOOR = -9999999999  # sacreBLEU's utils.my_log of 0
_SHIFT = 1 << 32  # a segment's n-gram keys: segment * _SHIFT + n-gram code
_YES_NO = ("yes", "no")


@dataclass(frozen=True)
class Settings:
    """One computation of sacreBLEU's BLEU: its tokeniser, case, order and smoothing."""

    tok: str = "13a"
    lowercase: bool = False
    order: int = 4
    smooth: str = "exp"
    smooth_value: float | None = None  # None: the method's default
    eff: bool = False

    def signature(self, nrefs: int | None = None) -> str:
        """sacreBLEU's signature of these settings (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|
        version:2.6.0``; without ``nrefs`` when not given)."""
        smooth = self.smooth
        if smooth in SMOOTH_DEFAULTS:
            value = SMOOTH_DEFAULTS[smooth] if self.smooth_value is None else self.smooth_value
            smooth += f"[{value:.2f}]"
        parts = [] if nrefs is None else [f"nrefs:{nrefs}"]
        parts += [f"case:{'lc' if self.lowercase else 'mixed'}", f"eff:{'yes' if self.eff else 'no'}",
                  f"tok:{bleu_tokenizer_signature(self.tok)}", f"smooth:{smooth}", f"version:{SACREBLEU_VERSION}"]
        return "|".join(parts)


def compute_bleu(stats: Sequence[float], settings: Settings) -> float:
    """BLEU (0-100) of one statistics vector ``[hyp_len, ref_len, correct_1..N, total_1..N]``,
    as sacreBLEU's ``BLEU.compute_bleu`` (the same operations in the same order: equal floats)."""
    order = settings.order
    sys_len, ref_len = stats[0], stats[1]
    correct, total = list(stats[2:2 + order]), list(stats[2 + order:2 + 2 * order])
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if not any(correct):
        return 0.0
    value = SMOOTH_DEFAULTS.get(settings.smooth, 0.0) if settings.smooth_value is None else settings.smooth_value
    precisions = [0.0] * order
    halvings, used = 1.0, order
    for n in range(order):
        if settings.smooth == "add-k" and n > 0:
            correct[n] += value
            total[n] += value
        if total[n] == 0:
            break
        if settings.eff:
            used = n + 1
        if correct[n] != 0:
            precisions[n] = 100. * correct[n] / total[n]
        elif settings.smooth == "exp":
            halvings *= 2
            precisions[n] = 100. / (halvings * total[n])
        elif settings.smooth == "floor":
            precisions[n] = 100. * value / total[n]
    return bp * math.exp(sum([math.log(p) if p != 0.0 else LOG_FLOOR for p in precisions[:used]]) / used)


@dataclass
class References:
    """A reference set's texts; its n-gram tables made per tokenisation when first needed."""

    texts: list[Sequence[str]]
    tables: dict[tuple[str, bool, int], _RefTable] = field(default_factory=dict)


@dataclass(frozen=True)
class _RefTable:
    """A reference set's n-grams under one tokenisation, orders 1..N.

    ``vocab`` numbers the references' tokens; an n-gram's *code* is its token's id for n = 1 and,
    for n > 1, its index in ``tables[n - 1]``, the sorted ``code of its (n-1)-gram prefix * len(vocab)
    + id of its last token`` of every reference n-gram. ``keys[n - 1]`` holds the sorted ``segment *
    2**32 + code`` of each segment's n-grams and ``clip[n - 1]`` their most frequent occurrence in one
    reference; ``lengths`` the references' lengths in tokens, shape (segments, references)."""

    vocab: dict[str, int]
    tables: list[np.ndarray]
    keys: list[np.ndarray]
    clip: list[np.ndarray]
    lengths: np.ndarray


def _positions(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each token's segment and the tokens left in its segment from it (itself included)."""
    segment = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    room = np.repeat(np.cumsum(lengths), lengths) - np.arange(int(lengths.sum()), dtype=np.int64)
    return segment, room


def _reference_table(tokens: Sequence[Sequence[Sequence[str]]], order: int) -> _RefTable:
    """The n-gram tables (:class:`_RefTable`) of references ``tokens[r][segment]``."""
    words = list(chain.from_iterable(chain.from_iterable(tokens)))
    vocab = {word: k for k, word in enumerate(dict.fromkeys(words))}
    n_refs, n_segments = len(tokens), len(tokens[0])
    ids = np.fromiter(map(vocab.__getitem__, words), dtype=np.int64, count=len(words))
    lengths = np.array([[len(seg) for seg in ref] for ref in tokens], dtype=np.int64).reshape(n_refs, n_segments)
    segment, room = _positions(lengths.ravel())
    ref, segment = segment // n_segments, segment % n_segments
    codes, size = ids, max(len(vocab), 1)
    tables, keys, clip = [], [], []
    for n in range(1, order + 1):
        at = np.flatnonzero(room >= n)
        if n > 1:
            table, inverse = np.unique(codes[at] * size + ids[at + n - 1], return_inverse=True)
            codes = np.full(len(ids), -1, dtype=np.int64)
            codes[at] = inverse.ravel()
            tables.append(table)
        per_ref, counts = np.unique((segment[at] * _SHIFT + codes[at]) * n_refs + ref[at], return_counts=True)
        starts = np.flatnonzero(np.r_[True, np.diff(per_ref // n_refs) != 0]) if len(per_ref) else per_ref
        keys.append(per_ref[starts] // n_refs)
        clip.append(np.maximum.reduceat(counts, starts) if len(per_ref) else counts)
    return _RefTable(vocab, [np.zeros(0, dtype=np.int64), *tables], keys, clip, lengths.T.copy())


def _segment_statistics(tokens: Sequence[Sequence[str]], table: _RefTable, order: int) -> np.ndarray:
    """``[hyp_len, closest ref_len, correct_1..N, total_1..N]`` of each hypothesis segment."""
    n_segments = len(tokens)
    ids = np.fromiter(map(table.vocab.get, chain.from_iterable(tokens), repeat(-1)), dtype=np.int64)
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=n_segments)
    segment, room = _positions(lengths)
    stats = np.zeros((n_segments, 2 + 2 * order))
    codes, size = ids, max(len(table.vocab), 1)
    for n in range(1, order + 1):
        if n > 1:
            at = np.flatnonzero((room >= n) & (codes >= 0))
            at = at[ids[at + n - 1] >= 0]
            wanted = codes[at] * size + ids[at + n - 1]
            found = np.minimum(np.searchsorted(table.tables[n - 1], wanted), max(len(table.tables[n - 1]) - 1, 0))
            hit = table.tables[n - 1][found] == wanted if len(table.tables[n - 1]) else np.zeros(len(at), bool)
            codes = np.full(len(ids), -1, dtype=np.int64)
            codes[at[hit]] = found[hit]
        valid = np.flatnonzero(codes >= 0)
        stats[:, 1 + n] = _clipped(segment[valid] * _SHIFT + codes[valid], table.keys[n - 1], table.clip[n - 1],
                                   n_segments)
        stats[:, 1 + order + n] = np.maximum(lengths - n + 1, 0)
    refs = table.lengths
    closeness = 2 * np.abs(lengths[:, None] - refs) + (refs > lengths[:, None])  # ties: the shorter one
    stats[:, 0] = lengths
    stats[:, 1] = np.take_along_axis(refs, np.argmin(closeness, axis=1)[:, None], axis=1)[:, 0]
    return stats


def _clipped(keys: np.ndarray, ref_keys: np.ndarray, ref_clip: np.ndarray, n_segments: int) -> np.ndarray:
    """Per segment, the hypothesis n-gram counts clipped by the references' (keys: ``segment *
    2**32 + code``)."""
    unique, counts = np.unique(keys, return_counts=True)
    if not len(unique) or not len(ref_keys):
        return np.zeros(n_segments)
    at = np.minimum(np.searchsorted(ref_keys, unique), len(ref_keys) - 1)
    hit = ref_keys[at] == unique
    return np.bincount(unique[hit] // _SHIFT, weights=np.minimum(counts[hit], ref_clip[at[hit]]),
                       minlength=n_segments)


@register
class SacreBleu(StatsFamily):
    """sacreBLEU 2.6.0's BLEU (0-100), every option a parameter of ``sacreBLEU(...)``."""

    family = "sacreBLEU"
    variants = ("sacreBLEU",)
    parameters: ClassVar[dict[str, Parameter]] = {
        "tok": Parameter("tok", "13a", choices=BLEU_TOKENIZERS, help="tokeniser (sacreBLEU --tokenize)",
                         aliases=tuple(BLEU_TOKENIZER_ALIASES.items())),
        "smooth": Parameter("smooth", "exp", choices=("exp", "floor", "add-k", "none"),
                            help="smoothing (sacreBLEU --smooth-method)"),
        "smooth_value": Parameter("smooth_value", "nan", kind="float", low=0,
                                  help="floor or add-k value (--smooth-value); nan: the method's, floor 0.1, add-k 1"),
        "order": Parameter("order", "4", kind="int", low=1, high=6, help="max n-gram order (--max-ngram-order)"),
        "eff": Parameter("eff", "no", choices=_YES_NO, help="effective order (sentence_bleu's default: yes)"),
        "lc": Parameter("lc", "no", choices=_YES_NO, help="lower-case (--lowercase)"),
    }

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._tokens: dict[tuple[str, bool], SegmentCache[str, list[str]]] = {}  # bounded per tokenisation

    def info(self, variant: str) -> MetricInfo:
        """Similarity on sacreBLEU's 0-100 scale."""
        return MetricInfo(variant, self.family, True, 0.0, 100.0, "sacreBLEU 2.6.0 BLEU (0-100)")

    def settings_of(self, variant: str) -> Settings:
        """The :class:`Settings` of a canonical variant name (the experiment's case included)."""
        _, values = self.settings(variant)
        value = float(values["smooth_value"])
        if not math.isnan(value) and values["smooth"] not in SMOOTH_DEFAULTS:
            raise ConfigError(f"metric {quote(variant)}: smooth_value is used by smooth=floor or add-k only")
        return Settings(values["tok"], values["lc"] == "yes" or not self.case_sensitive, int(values["order"]),
                        values["smooth"], None if math.isnan(value) else value, values["eff"] == "yes")

    def segmented_scripts(self, variant: str) -> frozenset[str] | None:
        """Those its ``tok`` finds words in (:data:`SEGMENTED_SCRIPTS`: zh Han, ja-mecab Japanese, char any)."""
        return SEGMENTED_SCRIPTS.get(self.settings(variant)[1]["tok"], frozenset())

    def signature(self, variant: str) -> str:
        """sacreBLEU's signature of the variant's settings (without ``nrefs``, which ``mteval score``
        puts first), then mteval's ``metric``, ``family``, ``v`` and ``mteval`` keys."""
        parts = {"metric": variant, "family": self.family, "v": self.version}
        parts.update({k: str(v) for k, v in sorted(self.options.items())})
        parts["mteval"] = __version__
        return "|".join([self.settings_of(variant).signature(), *(f"{k}:{v}" for k, v in parts.items())])

    def prepare(self, references: Sequence[Side]) -> References:
        """The references' texts (their n-grams are counted per tokenisation when first needed)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return References([r.texts for r in references])

    def tokens(self, texts: Sequence[str], tok: str, lowercase: bool) -> list[list[str]]:
        """Each segment's tokens as sacreBLEU's ``_preprocess_segment`` makes them (lower-cased if
        asked, right-stripped, tokenised), a segment among the last ones met not again (``segment_cache``)."""
        known = self._tokens.setdefault((tok, lowercase), SegmentCache())
        return known.many(texts, lambda new: bleu_tokens(tok, [(t.lower() if lowercase else t).rstrip() for t in new]))

    def statistics(self, hypothesis: Side, prepared: References, tok: str, lowercase: bool, order: int) -> np.ndarray:
        """The hypothesis' statistics (orders 1..``order``) under one tokenisation."""
        for ref in prepared.texts:
            if len(ref) != len(hypothesis.texts):
                raise InputError(f"{hypothesis.name}: {len(hypothesis.texts)} segments but a reference has {len(ref)}")
        key = (tok, lowercase, order)
        if key not in prepared.tables:
            prepared.tables[key] = _reference_table([self.tokens(r, tok, lowercase) for r in prepared.texts], order)
        return _segment_statistics(self.tokens(hypothesis.texts, tok, lowercase), prepared.tables[key], order)

    def segment_stats(self, hypothesis: Side, prepared: References) -> np.ndarray:
        """The statistics of the plain ``sacreBLEU`` (tok 13a, order 4; lower-cased under ``case: ci``)."""
        settings = self.settings_of(self.variants[0])
        return self.statistics(hypothesis, prepared, settings.tok, settings.lowercase, settings.order)

    def score(self, hypothesis: Side, prepared: References, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Every variant from the statistics of its tokenisation (one pass per tokenisation, at
        the highest order asked; each variant keeps its own orders' columns)."""
        settings = {v: self.settings_of(v) for v in variants}
        groups: dict[tuple[str, bool], list[str]] = {}
        for variant, s in settings.items():
            groups.setdefault((s.tok, s.lowercase), []).append(variant)
        out: dict[str, ScoreSet] = {}
        for (tok, lowercase), members in groups.items():
            order = max(settings[v].order for v in members)
            stats = self.statistics(hypothesis, prepared, tok, lowercase, order)
            for variant in members:
                own = keep_orders(stats, order, settings[variant].order)
                out.update(scores_from_stats_matrix(self, own, documents, [variant]))
        return out

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """BLEU of each row of ``[hyp_len, ref_len, correct_1..N, total_1..N]`` (N: the variant's order)."""
        settings = self.settings_of(variant)
        stats = np.atleast_2d(stats)
        if stats.shape[1] != 2 + 2 * settings.order:
            raise ValueError(f"{variant}: {stats.shape[1]} statistics columns, order {settings.order} "
                             f"has {2 + 2 * settings.order}")
        return np.array([compute_bleu(row, settings) for row in stats.tolist()], dtype=np.float64)


def keep_orders(stats: np.ndarray, order: int, kept: int) -> np.ndarray:
    """Statistics of orders 1..``kept`` from statistics of orders 1..``order``."""
    if kept == order:
        return stats
    return np.concatenate([stats[:, :2 + kept], stats[:, 2 + order:2 + order + kept]], axis=1)
