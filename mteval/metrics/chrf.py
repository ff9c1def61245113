"""chrF and chrF++: character (and word) n-gram F-score, as sacreBLEU 2.6.0 computes them.

Popović (2015), "chrF: character n-gram F-score for automatic MT evaluation", WMT, eq. (1):
``chrF_beta = (1 + beta^2) * chrP * chrR / (beta^2 * chrP + chrR)``, where chrP and chrR are the
*averages over n-gram orders* of the n-gram precisions and recalls; chrF++ (Popović 2017, "chrF++:
words helping character n-grams", WMT) adds word unigrams and bigrams as two more orders.

sacreBLEU's conventions, kept exactly (``CHRF()`` / ``CHRF(word_order=2)`` defaults): character
orders 1..6 on the segment with all whitespace removed; word orders 1..2 on whitespace tokens with
one leading or trailing punctuation character split off; beta = 2; an order counts in the average
only where both sides have n-grams of that order; scores on the 0-100 scale; multiple references:
per segment, the statistics of the reference with the best segment score (the first one on ties, in the
experiment's order of the references, as sacreBLEU takes them in the order given) are the segment's
statistics, and documents and the system sum them.

sacreBLEU's other options are parameters of the names (:mod:`mteval.metrics.parameters`):
``char_order`` and ``word_order`` (``CHRF(char_order=4, word_order=1)``; any orders >= 0, not both
0), ``beta`` (``chrF(beta=3)`` is sacreBLEU's chrF3), ``eps_smoothing`` (``CHRF(eps_smoothing=True)``:
the mean of every order's F, chrF++.py's smoothing, :func:`eps_f_scores`) and ``whitespace``
(character n-grams over the text as it is); sacreBLEU's ``lowercase`` is the experiment's ``case:
ci``. The best reference of a segment is chosen under the variant's own settings. The word order
names the variant, so that a computation has one name: ``chrF`` has none (its default 0),
``chrF++`` some (its default 2): ``chrF(word_order=2)`` is ``chrF++``, ``chrF(word_order=1)`` is
``chrF++(word_order=1)`` and ``chrF++(word_order=0)`` is ``chrF`` (:meth:`ChrF.canonical_name`).

Per-segment statistics are ``[hyp, ref, match]`` per order: characters 1..char_order, then words
1..word_order. They are computed per (hypothesis, reference) pair, a chunk of aligned segments at a
time (``CHUNK``, ``CHUNK_CHARS``), for the most orders any variant asked needs (the plain chrF and
chrF++: characters 1..6 and words 1..2 in one pass), with exact integer n-gram codes local to the
chunk (:func:`_sorted_matches`: one sort of every position's longest n-gram, a group of segments at
a time where the chunk's codes would pass 63 bits; :func:`_matches`, prefix ids order by order, where
a group of 16 segments would too: a large alphabet, or 9 character orders and more on ordinary
text; no string n-grams, no hashing), so
memory is bounded by one chunk whatever the corpus (20,000 segments x 3 systems: 118 MB peak, was
2.3 GB with n-gram ids and per-string rows shared by every text seen) and nothing is kept between
pairs: ``prepare`` only orders the references. :func:`ngram_counters` is the definition the tests
check this against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mteval.errors import ConfigError, InputError, quote
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricInfo, ScoreSet, Side, StatsFamily, scores_from_stats_matrix
from mteval.metrics.parameters import Parameter, canonical, split
from mteval.metrics.registry import register

CHAR_ORDER = 6
WORD_ORDER = 2
BETA = 2
_PUNCTS = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
_PLAIN = ("chrF", "chrF++")


def split_punctuation(text: str) -> list[str]:
    """Whitespace tokens with one trailing (else leading) punctuation mark split off (chrF++ words)."""
    tokens: list[str] = []
    for w in text.split():
        if len(w) > 1 and w[-1] in _PUNCTS:
            tokens += [w[:-1], w[-1]]
        elif len(w) > 1 and w[0] in _PUNCTS:
            tokens += [w[0], w[1:]]
        else:
            tokens.append(w)
    return tokens


def ngram_counters(text: str, whitespace: bool = False, char_order: int = CHAR_ORDER,
                   word_order: int = WORD_ORDER) -> list[Counter]:
    """Counters of character 1..``char_order``-grams (whitespace removed unless ``whitespace``) and
    word 1..``word_order``-grams of one segment (sacreBLEU's extraction, string by string: the
    reference definition of :func:`pair_stats`)."""
    line = text if whitespace else "".join(text.split())
    counters = [Counter([line[i:i + n] for i in range(len(line) - n + 1)])
                for n in range(1, char_order + 1)]
    words = split_punctuation(text)
    counters += [Counter([" ".join(words[i:i + n]) for i in range(len(words) - n + 1)])
                 for n in range(1, word_order + 1)]
    return counters


# Segments matched at a time: at most CHUNK segments, and at most CHUNK_CHARS characters (both sides)
# unless one segment pair alone is longer; a chunk needs ~100 bytes a character, whatever the corpus.
CHUNK = 1024
CHUNK_CHARS = 500_000


@dataclass
class _Symbols:
    """The symbols (characters or words) of a chunk of aligned references and hypotheses, as dense ids.

    ``ids`` holds the references' symbols, then the hypotheses'; ``runs`` numbers each position's
    segment (hypothesis segments after the references', so no n-gram spans two segments or sides);
    ``pairs`` is the segment's number on either side (what aligns a hypothesis with its reference).
    """

    ids: np.ndarray
    runs: np.ndarray
    pairs: np.ndarray
    is_hyp: np.ndarray
    size: int

    @classmethod
    def of(cls, ids: np.ndarray, ref_lengths: np.ndarray, hyp_lengths: np.ndarray, size: int) -> _Symbols:
        """Segment bookkeeping of ``ids`` (references' then hypotheses', with these segment lengths)."""
        n = len(ref_lengths)
        runs = np.repeat(np.arange(2 * n, dtype=np.int64), np.concatenate([ref_lengths, hyp_lengths]))
        return cls(ids, runs, runs % max(n, 1), runs >= n, size)


def _codepoints(texts: Sequence[str], whitespace: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Code points of each segment with all whitespace removed (kept with ``whitespace``: sacreBLEU's
    ``--chrf-whitespace``), concatenated, and segment lengths."""
    lines = list(texts) if whitespace else ["".join(t.split()) for t in texts]
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    points = np.frombuffer("".join(lines).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return points.astype(np.int64), lengths


def _char_symbols(refs: Sequence[str], hyps: Sequence[str],
                  whitespace: bool = False) -> tuple[_Symbols, np.ndarray, np.ndarray]:
    """Characters (chrF's symbols), and the segment lengths in characters of both sides."""
    ref_points, ref_lengths = _codepoints(refs, whitespace)
    hyp_points, hyp_lengths = _codepoints(hyps, whitespace)
    points = np.concatenate([ref_points, hyp_points])
    present = np.zeros(int(points.max()) + 1 if len(points) else 0, dtype=np.int32)
    present[points] = 1
    rank = np.cumsum(present, dtype=np.int32) - 1  # a character's id: its rank in the chunk's alphabet
    return _Symbols.of(rank[points].astype(np.int64), ref_lengths, hyp_lengths, int(present.sum())), \
        ref_lengths, hyp_lengths


def _word_symbols(refs: Sequence[str], hyps: Sequence[str]) -> tuple[_Symbols, np.ndarray, np.ndarray]:
    """Words (:func:`split_punctuation`, chrF++'s symbols), and the segment lengths in words."""
    table: dict[str, int] = {}
    words = [split_punctuation(t) for t in refs] + [split_punctuation(t) for t in hyps]
    ids = np.fromiter((table.setdefault(w, len(table)) for ws in words for w in ws), dtype=np.int64)
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    ref_lengths, hyp_lengths = lengths[:len(refs)], lengths[len(refs):]
    return _Symbols.of(ids, ref_lengths, hyp_lengths, len(table)), ref_lengths, hyp_lengths


def _matches(sym: _Symbols, n_segments: int, max_order: int) -> np.ndarray:
    """Clipped n-gram matches per segment for orders 1..``max_order``, shape (n_segments, max_order).

    Exact integer ids, order by order: an n-gram *of one aligned pair* is numbered by the sorted
    unique keys ``(id of its (n-1)-gram prefix in that pair, last symbol)`` (the pair number for
    n = 1), so equal ids mean equal n-grams in the same pair; each id's reference and hypothesis
    counts give the clipped matches (sacreBLEU's ``min`` of the two counters).
    """
    out = np.zeros((n_segments, max_order), dtype=np.int64)
    prefix = sym.pairs
    for n in range(1, max_order + 1):
        m = max(len(sym.ids) - n + 1, 0)
        start, end = slice(0, m), slice(n - 1, n - 1 + m)
        whole = (prefix[start] >= 0) & (sym.runs[start] == sym.runs[end])  # inside one segment
        keys = prefix[start][whole] * sym.size + sym.ids[end][whole]
        unique, ids = np.unique(keys, return_inverse=True)
        ids = ids.ravel()
        is_hyp = sym.is_hyp[start][whole]
        ref_counts = np.bincount(ids[~is_hyp], minlength=len(unique))
        hyp_counts = np.bincount(ids[is_hyp], minlength=len(unique))
        pair_of = np.zeros(len(unique), dtype=np.int64)
        pair_of[ids] = sym.pairs[start][whole]
        clipped = np.bincount(pair_of, weights=np.minimum(ref_counts, hyp_counts), minlength=n_segments)
        out[:, n - 1] = clipped.astype(np.int64)
        prefix = np.full(m, -1, dtype=np.int64)
        prefix[whole] = ids
    return out


def _sorted_matches(sym: _Symbols, n_segments: int, max_order: int) -> np.ndarray | None:
    """:func:`_matches` from one sort: every position's n-gram of ``max_order`` symbols (padded past
    its segment's end with the end mark ``size``) as one integer ``pair, symbols, side`` in base
    ``size + 1`` (the side, reference 0 or hypothesis 1, as the last binary digit). Sorted, each
    order's n-grams are the codes' leading digits, still sorted: a run of equal ones is one n-gram of
    one pair, its hypothesis count the sum of the side digits, its reference count the rest (the
    clipped match is the smaller). None when the codes would not fit in 63 bits (a large alphabet)."""
    base = sym.size + 1
    if 2 * base ** max_order * max(n_segments, 1) >= 1 << 63:
        return None
    gap = max_order - 1  # end marks after each segment, so a window never reads the next one
    padded = np.full(len(sym.ids) + gap * (int(sym.runs[-1]) + 1 if len(sym.runs) else 0) + gap, sym.size,
                     dtype=np.int64)
    at = np.arange(len(sym.ids)) + gap * sym.runs
    padded[at] = sym.ids
    windows: np.ndarray = np.zeros(len(padded) - gap, dtype=np.int64)
    for k in range(max_order):
        windows = windows * base + padded[k:len(padded) - gap + k]
    codes = np.sort((sym.pairs * base ** max_order + windows[at]) * 2 + sym.is_hyp)
    hyp_before = np.concatenate([[0], np.cumsum(codes & 1)])  # hypothesis n-grams before each position
    out = np.zeros((n_segments, max_order), dtype=np.int64)
    for n in range(1, max_order + 1):
        ngrams = codes // (2 * base ** (max_order - n))
        if not len(ngrams):
            break
        bounds = np.concatenate([[0], np.flatnonzero(ngrams[1:] != ngrams[:-1]) + 1, [len(ngrams)]])
        distinct = ngrams[bounds[:-1]]
        hyp = np.diff(hyp_before[bounds])
        clipped = np.minimum(hyp, np.diff(bounds) - hyp)
        clipped *= distinct % base != sym.size  # no end mark: the n-gram lies inside its segment
        # distinct is sorted: each pair's n-grams are one slice
        pair_bounds = np.searchsorted(distinct, np.arange(n_segments + 1, dtype=np.int64) * base ** n)
        out[:, n - 1] = np.diff(np.concatenate([[0], np.cumsum(clipped)])[pair_bounds])
    return out


def _totals(lengths: np.ndarray, max_order: int) -> np.ndarray:
    """Number of n-grams of orders 1..``max_order`` in sequences of the given lengths."""
    return np.maximum(lengths[:, None] - np.arange(max_order)[None, :], 0)


def _chunk_stats(hyps: Sequence[str], refs: Sequence[str], char_order: int = CHAR_ORDER,
                 word_order: int = WORD_ORDER, whitespace: bool = False) -> np.ndarray:
    """``[hyp, ref, match]`` per order (characters 1..``char_order``, then words 1..``word_order``)
    of aligned segments."""
    parts = []  # (order, symbols, reference lengths, hypothesis lengths)
    if char_order:
        parts.append((char_order, *_char_symbols(refs, hyps, whitespace)))
    if word_order:
        parts.append((word_order, *_word_symbols(refs, hyps)))
    none = [np.zeros((len(hyps), 0), dtype=np.int64)]  # no order of either kind: no columns
    hyp_total = np.concatenate(none + [_totals(h, k) for k, _, _, h in parts], axis=1)
    ref_total = np.concatenate(none + [_totals(r, k) for k, _, r, _ in parts], axis=1)
    match = np.concatenate(none + [_count_matches(sym, len(hyps), k) for k, sym, _, _ in parts], axis=1)
    hyp_counts = np.where(ref_total > 0, hyp_total, 0)
    return np.stack([hyp_counts, ref_total, match], axis=2).reshape(len(hyps), -1)


def _count_matches(sym: _Symbols, n_segments: int, max_order: int) -> np.ndarray:
    """:func:`_sorted_matches`; where its codes would not fit, the same a group of segments at a time
    (groups of ``_MIN_GROUP`` segments or more, e.g. 8 character orders), else :func:`_matches`."""
    found = _sorted_matches(sym, n_segments, max_order)
    if found is not None:
        return found
    group = ((1 << 63) - 1) // (2 * (sym.size + 1) ** max_order)  # segments whose codes fit in 63 bits
    if group < _MIN_GROUP:
        return _matches(sym, n_segments, max_order)
    parts = [_sorted_matches(_segment_range(sym, n_segments, start, min(start + group, n_segments)),
                             min(group, n_segments - start), max_order) for start in range(0, n_segments, group)]
    return np.concatenate([p for p in parts if p is not None], axis=0)


_MIN_GROUP = 16  # fewer segments a sort: the prefix ids of :func:`_matches` (fewer passes over the chunk)


def _segment_range(sym: _Symbols, n_segments: int, start: int, stop: int) -> _Symbols:
    """The symbols of the aligned segments ``start..stop-1`` alone, numbered from 0 (as :meth:`_Symbols.of`
    makes them); ``sym.runs`` is sorted, each side's segments in order."""
    ref = slice(*np.searchsorted(sym.runs, [start, stop]))
    hyp = slice(*np.searchsorted(sym.runs, [n_segments + start, n_segments + stop]))
    ref_lengths = np.bincount(sym.runs[ref] - start, minlength=stop - start)
    hyp_lengths = np.bincount(sym.runs[hyp] - (n_segments + start), minlength=stop - start)
    return _Symbols.of(np.concatenate([sym.ids[ref], sym.ids[hyp]]), ref_lengths, hyp_lengths, sym.size)


def _chunks(hyps: Sequence[str], refs: Sequence[str]) -> Iterator[slice]:
    """Consecutive segments, at most ``CHUNK`` of them and (unless one segment alone is longer)
    ``CHUNK_CHARS`` characters of both sides together."""
    start, size = 0, 0
    for i, (h, r) in enumerate(zip(hyps, refs, strict=True)):
        length = len(h) + len(r)
        if i > start and (i - start == CHUNK or size + length > CHUNK_CHARS):
            yield slice(start, i)
            start, size = i, 0
        size += length
    if start < len(hyps):
        yield slice(start, len(hyps))


def pair_stats(hyps: Sequence[str], refs: Sequence[str], lowercase: bool = False, char_order: int = CHAR_ORDER,
               word_order: int = WORD_ORDER, whitespace: bool = False) -> np.ndarray:
    """Statistics of each segment against one reference, a chunk of segments at a time: ``3 *
    char_order`` columns of character n-grams (over whitespace too with ``whitespace``), then ``3 *
    word_order`` of word n-grams (chrF++'s by default; ``word_order=0``: chrF's)."""
    out = np.zeros((len(hyps), 3 * (char_order + word_order)), dtype=np.int64)
    for part in _chunks(hyps, refs):
        h, r = hyps[part], refs[part]
        if lowercase:
            h, r = [t.lower() for t in h], [t.lower() for t in r]
        out[part] = _chunk_stats(h, r, char_order, word_order, whitespace)
    return out


def f_scores(stats: np.ndarray, n_orders: int, beta: float = BETA) -> np.ndarray:
    """chrF of each row of ``[hyp, ref, match] * n_orders`` statistics, 0-100 (Popović 2015, eq. 1),
    with sacreBLEU's float operations in sacreBLEU's order (``CHRF._compute_f_score``: precisions
    and recalls summed order by order, ``100 * (num / den)``), so equal floats. Not only the last
    bit of a score depends on it: with several references the best one is chosen by comparing these
    floats, and two references whose scores are equal but for rounding, with other statistics, moved
    a system's chrF by 1.4 points when another summation order made the other one win."""
    s = np.asarray(stats, dtype=np.float64).reshape(len(stats), n_orders, 3)
    factor = beta ** 2
    avg_p: np.ndarray = np.zeros(len(s))
    avg_r: np.ndarray = np.zeros(len(s))
    effective: np.ndarray = np.zeros(len(s))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            n_hyp, n_ref, n_match = s[:, i, 0], s[:, i, 1], s[:, i, 2]
            valid = (n_hyp > 0) & (n_ref > 0)
            avg_p = avg_p + np.where(valid, n_match / np.where(valid, n_hyp, 1), 0.0)
            avg_r = avg_r + np.where(valid, n_match / np.where(valid, n_ref, 1), 0.0)
            effective = effective + valid
        avg_p = np.where(effective > 0, avg_p / np.maximum(effective, 1), 0.0)
        avg_r = np.where(effective > 0, avg_r / np.maximum(effective, 1), 0.0)
        num = (1 + factor) * avg_p * avg_r
        den = (factor * avg_p) + avg_r
        return np.where(avg_p + avg_r != 0, 100 * (num / np.where(den != 0, den, 1)), 0.0)


def eps_f_scores(stats: np.ndarray, n_orders: int, beta: int = BETA) -> np.ndarray:
    """chrF with epsilon smoothing (sacreBLEU's ``eps_smoothing=True``, as chrF++.py, Moses and NLTK):
    the mean over all orders of each order's F-beta, an order without n-grams on a side counting
    ``1e-16`` for that side's precision or recall (``CHRF._compute_f_score``: the same operations in
    the same order, so equal floats), 0-100."""
    s = np.asarray(stats, dtype=np.float64).reshape(len(stats), n_orders, 3)
    eps, factor = 1e-16, beta ** 2
    score = np.zeros(len(stats))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            n_hyp, n_ref, n_match = s[:, i, 0], s[:, i, 1], s[:, i, 2]
            prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1), eps)
            rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1), eps)
            denom = factor * prec + rec
            score += np.where(denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1), eps)
    return 100 * score / n_orders


@dataclass(frozen=True)
class Settings:
    """What a chrF variant computes: its character and word orders (chrF 6 and 0, chrF++ 6 and 2),
    beta, smoothing and whitespace."""

    char_order: int = CHAR_ORDER
    word_order: int = 0
    beta: int = BETA
    eps_smoothing: bool = False
    whitespace: bool = False

    @property
    def orders(self) -> int:
        """Orders in a statistics row (``[hyp, ref, match]`` each): characters', then words'."""
        return self.char_order + self.word_order

    def columns(self, stats: np.ndarray, char_order: int) -> np.ndarray:
        """This variant's columns of statistics computed for ``char_order`` character orders and at
        least this variant's word orders (:func:`pair_stats`): a view where they are leading columns."""
        if self.word_order == 0:
            return stats[:, :3 * self.char_order]
        if self.char_order == char_order:
            return stats[:, :3 * (char_order + self.word_order)]
        words = stats[:, 3 * char_order:3 * (char_order + self.word_order)]
        return np.concatenate([stats[:, :3 * self.char_order], words], axis=1)

    def f_scores(self, stats: np.ndarray) -> np.ndarray:
        """The score of each row of this variant's statistics."""
        if self.eps_smoothing:
            return eps_f_scores(stats, self.orders, self.beta)
        return f_scores(stats, self.orders, self.beta)


_YES_NO = ("yes", "no")
_ORDER_KEYS = ("char_order", "word_order")


@register
class ChrF(StatsFamily):
    """chrF (character 6-grams, beta 2) and chrF++ (plus word 1-2-grams), sacreBLEU 2.6.0 defaults;
    sacreBLEU's other options as parameters: ``chrF(beta=3)`` is its chrF3, ``chrF(char_order=4)``
    its ``CHRF(char_order=4)``. The word order names the variant: 0 is ``chrF``, any other
    ``chrF++`` (:meth:`canonical_name`)."""

    family = "chrF"
    variants = ("chrF", "chrF++")
    version = "3"  # 2: sacreBLEU's float operations, so its choice of the best of several references;
    # 3: ties between references go to the first in the given order, as sacreBLEU's (was: by name)
    parameters: ClassVar[dict[str, Parameter]] = {
        "char_order": Parameter("char_order", str(CHAR_ORDER), kind="int", low=0,
                                help="character n-gram orders (sacreBLEU --chrf-char-order)"),
        "word_order": Parameter("word_order", "0", kind="int", low=0,
                                help="word n-gram orders (--chrf-word-order; 1 or more: chrF++)"),
        "beta": Parameter("beta", str(BETA), kind="int", low=1, help="recall's weight (sacreBLEU --chrf-beta)"),
        "eps_smoothing": Parameter("eps_smoothing", "no", choices=_YES_NO,
                                   help="chrF++.py's epsilon smoothing (--chrf-eps-smoothing)"),
        "whitespace": Parameter("whitespace", "no", choices=_YES_NO,
                                help="whitespace in character n-grams (--chrf-whitespace)"),
    }
    variant_defaults = {"chrF++": {"word_order": str(WORD_ORDER)}}

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self.lowercase = not case_sensitive

    @classmethod
    def canonical_name(cls, base: str, pairs: tuple[tuple[str, str], ...]) -> str:
        """One name per computation: the word order picks the variant, ``chrF`` for 0 and ``chrF++``
        for any other (``chrF(word_order=2)`` is ``chrF++``, ``chrF(word_order=1)`` is
        ``chrF++(word_order=1)``, ``chrF++(word_order=0)`` is ``chrF``); no orders at all is refused."""
        spelled = super().canonical_name(base, pairs)
        settings = cls.settings_of(spelled)
        if settings.orders == 0:
            written = f"{base}({','.join(f'{k}={v}' for k, v in pairs)})"
            raise ConfigError(f"metric {quote(written)}: char_order=0 with word_order=0 leaves no n-grams "
                              "(sacreBLEU scores 0, or divides by zero); word n-grams alone: chrF++(char_order=0)")
        own = "chrF++" if settings.word_order else "chrF"
        parsed = split(spelled)
        return spelled if own == base else canonical(own, parsed[1] if parsed else (), cls.parameters_of(own))

    def info(self, variant: str) -> MetricInfo:
        """Similarity on sacreBLEU's 0-100 scale."""
        return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=0.0,
                          upper_bound=100.0, description="character n-gram F-score (sacreBLEU scale 0-100)")

    def segmented_scripts(self, variant: str) -> frozenset[str] | None:
        """chrF reads characters only (any script); chrF++'s word n-grams are sacreBLEU's, between spaces."""
        return None if self.settings_of(variant).word_order == 0 else frozenset()

    def signature(self, variant: str) -> str:
        """The common signature; a parametric name's adds beta, eps_smoothing and whitespace, then
        the orders where they are not the plain variant's (so that the names without orders keep
        their signatures)."""
        base, values = self.settings(variant)
        if base == variant:
            return super().signature(variant)
        extra = "".join(f"|{k}:{v}" for k, v in values.items() if k not in _ORDER_KEYS)
        defaults = self.settings(base)[1]
        if any(values[k] != defaults[k] for k in _ORDER_KEYS):
            extra += "".join(f"|{k}:{values[k]}" for k in _ORDER_KEYS)
        return super().signature(variant) + extra

    @classmethod
    def settings_of(cls, variant: str) -> Settings:
        """The :class:`Settings` of a variant name (any spelling: the orders are read, not the base)."""
        values = cls.settings(variant)[1]
        return Settings(int(values["char_order"]), int(values["word_order"]), int(values["beta"]),
                        values["eps_smoothing"] == "yes", values["whitespace"] == "yes")

    def prepare(self, references: Sequence[Side]) -> list[Sequence[str]]:
        """The references' segments in the order given (the experiment's, or ``mteval score``'s ``-r``
        order): sacreBLEU keeps the first of equally good references, whose statistics the system
        sums, so its score depends on that order; n-grams are counted per pair."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return [r.texts for r in references]

    def segment_stats(self, hypothesis: Side, prepared: list[Sequence[str]]) -> np.ndarray:
        """Columns: chrF stats (18), then chrF++ stats (24), each from its own best reference (the
        plain variants' only: a parametric name's statistics are its score file's)."""
        best = self._best_stats(hypothesis, prepared, _PLAIN)
        return np.concatenate([best[v] for v in _PLAIN], axis=1)

    def score(self, hypothesis: Side, prepared: list[Sequence[str]], documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Every variant from its own best reference's statistics (one pass over the references per
        whitespace setting, for the most character and word orders asked; word n-grams counted only
        when a variant has some)."""
        groups: dict[bool, list[str]] = {}
        for variant in variants:
            groups.setdefault(self.settings_of(variant).whitespace, []).append(variant)
        out: dict[str, ScoreSet] = {}
        for members in groups.values():
            for variant, stats in self._best_stats(hypothesis, prepared, tuple(members)).items():
                out.update(scores_from_stats_matrix(self, stats, documents, [variant]))
        return out

    def _best_stats(self, hypothesis: Side, prepared: list[Sequence[str]],
                    variants: tuple[str, ...]) -> dict[str, np.ndarray]:
        """Each variant's statistics from the reference with its best segment score (under its own
        orders, beta and smoothing); ``variants`` share one whitespace setting."""
        n = len(hypothesis.texts)
        settings = {v: self.settings_of(v) for v in variants}
        chars = max(s.char_order for s in settings.values())
        words = max(s.word_order for s in settings.values())
        whitespace = next(iter(settings.values())).whitespace
        best = {v: (np.full(n, -1.0), np.zeros((n, 3 * s.orders))) for v, s in settings.items()}
        for ref in prepared:
            if len(ref) != n:
                raise InputError(f"{hypothesis.name}: {n} segments but the reference has {len(ref)}")
            stats = pair_stats(hypothesis.texts, ref, self.lowercase, chars, words, whitespace)
            for variant, own in settings.items():
                sub = own.columns(stats, chars)
                score = own.f_scores(sub)
                best_score, best_stats = best[variant]
                better = score > best_score
                best_score[better] = score[better]
                best_stats[better] = sub[better]
        return {v: best[v][1] for v in variants}

    def stored_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """A variant's own block: of :meth:`segment_stats` (chrF: the first 18 columns, chrF++: the
        other 24), or the block itself."""
        settings = self.settings_of(variant)
        if stats.shape[1] == 3 * settings.orders:
            return stats
        return stats[:, :3 * CHAR_ORDER] if settings.word_order == 0 else stats[:, 3 * CHAR_ORDER:]

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """chrF or chrF++ of each statistics row: rows of :meth:`segment_stats`, or of the
        variant's own block (:meth:`stored_stats`, as its score file stores them)."""
        stats = np.atleast_2d(stats)
        settings = self.settings_of(variant)
        if stats.shape[1] != 3 * settings.orders:
            stats = self.stored_stats(stats, variant)
        return settings.f_scores(stats)
