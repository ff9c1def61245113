"""chrF and chrF++: character (and word) n-gram F-score, as sacreBLEU 2.6.0 computes them.

Popović (2015), "chrF: character n-gram F-score for automatic MT evaluation", WMT, eq. (1):
``chrF_beta = (1 + beta^2) * chrP * chrR / (beta^2 * chrP + chrR)``, where chrP and chrR are the
*averages over n-gram orders* of the n-gram precisions and recalls; chrF++ (Popović 2017, "chrF++:
words helping character n-grams", WMT) adds word unigrams and bigrams as two more orders.

sacreBLEU's conventions, kept exactly (``CHRF()`` / ``CHRF(word_order=2)`` defaults): character
orders 1..6 on the segment with all whitespace removed; word orders 1..2 on whitespace tokens with
one leading or trailing punctuation character split off; beta = 2; an order counts in the average
only where both sides have n-grams of that order; scores on the 0-100 scale; multiple references:
per segment, the statistics of the reference with the best segment score (first one on ties, the
references taken in name order) are the segment's statistics, and documents and the system sum them.

Per-segment statistics are ``[hyp, ref, match]`` per order; n-gram counts of each unique string are
extracted once and cached (as sparse rows), and matches are computed as a sparse ``minimum``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from mteval.errors import InputError
from mteval.metrics.base import MetricInfo, Side, StatsFamily
from mteval.metrics.registry import register

CHAR_ORDER = 6
WORD_ORDER = 2
BETA = 2
_PUNCTS = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
_ORDERS = {"chrF": CHAR_ORDER, "chrF++": CHAR_ORDER + WORD_ORDER}


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


def ngram_counters(text: str) -> list[Counter]:
    """Counters of character 1..6-grams (whitespace removed) and word 1..2-grams of one segment."""
    line = "".join(text.split())
    counters = [Counter([line[i:i + n] for i in range(len(line) - n + 1)])
                for n in range(1, CHAR_ORDER + 1)]
    words = split_punctuation(text)
    counters += [Counter([" ".join(words[i:i + n]) for i in range(len(words) - n + 1)])
                 for n in range(1, WORD_ORDER + 1)]
    return counters


@dataclass
class _Grams:
    """The n-grams of a list of segments: one sparse count matrix per order (rows = segments)."""

    orders: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # CSR (data, indices, indptr) per order
    totals: np.ndarray  # (n_segments, n_orders) n-gram counts


@dataclass
class _Row:
    """The n-grams of one segment: ids and counts per order, and the n-gram total per order."""

    ids: list[np.ndarray]
    counts: list[np.ndarray]
    totals: tuple[int, ...]


def _id_map() -> defaultdict:
    """A dict giving each new key the next integer id."""
    ids: defaultdict = defaultdict(int)
    ids.default_factory = ids.__len__
    return ids


class _Vocabulary:
    """N-gram ids and cached per-string rows (and per-text matrices), shared by every text seen."""

    MAX_TEXTS = 256

    def __init__(self, lowercase: bool) -> None:
        self.lowercase = lowercase
        self.ids = [_id_map() for _ in range(CHAR_ORDER + WORD_ORDER)]
        self.rows: dict[str, _Row] = {}
        self.texts: dict[tuple[str, ...], _Grams] = {}

    def row(self, text: str) -> _Row:
        """N-grams of one segment, computed once per unique string."""
        cached = self.rows.get(text)
        if cached is None:
            counters = ngram_counters(text.lower() if self.lowercase else text)
            ids = [np.fromiter(map(table.__getitem__, c), dtype=np.int64, count=len(c))
                   for table, c in zip(self.ids, counters, strict=True)]
            counts = [np.fromiter(c.values(), dtype=np.int64, count=len(c)) for c in counters]
            totals = tuple(sum(c.values()) for c in counters)
            cached = self.rows[text] = _Row(ids, counts, totals)
        return cached

    def grams(self, texts: Sequence[str]) -> _Grams:
        """Sparse count matrices of a list of segments (cached per text)."""
        key = tuple(texts)
        found = self.texts.get(key)
        if found is not None:
            return found
        rows = [self.row(t) for t in texts]
        orders = []
        for k in range(CHAR_ORDER + WORD_ORDER):
            indptr = np.zeros(len(rows) + 1, dtype=np.int64)
            np.cumsum([len(r.ids[k]) for r in rows], out=indptr[1:])
            data = np.concatenate([r.counts[k] for r in rows]) if rows else np.zeros(0, dtype=np.int64)
            index = np.concatenate([r.ids[k] for r in rows]) if rows else np.zeros(0, dtype=np.int64)
            orders.append((data, index, indptr))
        totals = np.array([r.totals for r in rows], dtype=np.int64).reshape(len(rows), CHAR_ORDER + WORD_ORDER)
        if len(self.texts) >= self.MAX_TEXTS:
            self.texts.clear()
        found = self.texts[key] = _Grams(orders=orders, totals=totals)
        return found


def _matches(hyp: _Grams, ref: _Grams, vocab_sizes: list[int]) -> np.ndarray:
    """Clipped match counts per segment and order, shape (n_segments, n_orders)."""
    n = len(hyp.totals)
    out = np.zeros((n, len(vocab_sizes)), dtype=np.int64)
    for k, size in enumerate(vocab_sizes):
        h = sparse.csr_matrix(hyp.orders[k], shape=(n, size))
        r = sparse.csr_matrix(ref.orders[k], shape=(n, size))
        out[:, k] = np.asarray(h.minimum(r).sum(axis=1)).ravel()
    return out


def f_scores(stats: np.ndarray, n_orders: int, beta: float = BETA) -> np.ndarray:
    """chrF of each row of ``[hyp, ref, match] * n_orders`` statistics, 0-100 (Popović 2015, eq. 1)."""
    s = np.asarray(stats, dtype=np.float64).reshape(len(stats), n_orders, 3)
    n_hyp, n_ref, n_match = s[..., 0], s[..., 1], s[..., 2]
    valid = (n_hyp > 0) & (n_ref > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(valid, n_match / np.where(n_hyp > 0, n_hyp, 1), 0.0)
        rec = np.where(valid, n_match / np.where(n_ref > 0, n_ref, 1), 0.0)
    effective = valid.sum(axis=1)
    denom_order = np.maximum(effective, 1)
    avg_p = prec.sum(axis=1) / denom_order
    avg_r = rec.sum(axis=1) / denom_order
    factor = beta ** 2
    num = (1 + factor) * avg_p * avg_r
    den = factor * avg_p + avg_r
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(avg_p + avg_r > 0, 100.0 * num / np.where(den > 0, den, 1), 0.0)


@register
class ChrF(StatsFamily):
    """chrF (character 6-grams, beta 2) and chrF++ (plus word 1-2-grams), sacreBLEU 2.6.0 defaults."""

    family = "chrF"
    variants = ("chrF", "chrF++")

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._vocab = _Vocabulary(lowercase=not case_sensitive)

    def info(self, variant: str) -> MetricInfo:
        """Similarity on sacreBLEU's 0-100 scale."""
        return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=0.0,
                          upper_bound=100.0, description="character n-gram F-score (sacreBLEU scale 0-100)")

    def prepare(self, references: Sequence[Side]) -> list[_Grams]:
        """N-gram matrices of each reference, references in name order (sacreBLEU's tie rule)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        ordered = sorted(references, key=lambda r: r.name)
        return [self._vocab.grams(r.texts) for r in ordered]

    def segment_stats(self, hypothesis: Side, prepared: list[_Grams]) -> np.ndarray:
        """Columns: chrF stats (18), then chrF++ stats (24), each from its own best reference."""
        hyp = self._vocab.grams(hypothesis.texts)
        sizes = [len(ids) for ids in self._vocab.ids]
        n_all = CHAR_ORDER + WORD_ORDER
        best = {v: (np.full(len(hyp.totals), -1.0), np.zeros((len(hyp.totals), 3 * o)))
                for v, o in _ORDERS.items()}
        for ref in prepared:
            if len(ref.totals) != len(hyp.totals):
                raise InputError(f"{hypothesis.name}: {len(hyp.totals)} segments but the reference "
                                 f"has {len(ref.totals)}")
            match = _matches(hyp, ref, sizes)
            hyp_counts = np.where(ref.totals > 0, hyp.totals, 0)
            stats = np.stack([hyp_counts, ref.totals, match], axis=2).reshape(-1, 3 * n_all)
            for variant, n_orders in _ORDERS.items():
                sub = stats[:, :3 * n_orders]
                score = f_scores(sub, n_orders)
                best_score, best_stats = best[variant]
                better = score > best_score
                best_score[better] = score[better]
                best_stats[better] = sub[better]
        return np.concatenate([best["chrF"][1], best["chrF++"][1]], axis=1)

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """chrF or chrF++ of each statistics row."""
        stats = np.atleast_2d(stats)
        if variant == "chrF":
            return f_scores(stats[:, :3 * CHAR_ORDER], CHAR_ORDER)
        return f_scores(stats[:, 3 * CHAR_ORDER:], CHAR_ORDER + WORD_ORDER)
