"""Vectorised mteval-v13a n-gram statistics (BLEU/NIST) over any token sequences.

N-grams (orders 1..5) are interned as integer ids once per distinct token sequence; a reference
set becomes one sorted array of ``segment * 2**32 + ngram id`` keys with their maximum counts
over references (BLEU clipping) and a per-id NIST information weight; a hypothesis is matched
against it with one ``searchsorted``. Works for words (BLEU/NIST) and for any symbol layer
(lemmas, PoS, chunks: SP-NIST).

Statistics columns: ``HYP_LEN, REF_LEN (closest, ties -> shorter), MEAN_REF_LEN``, then
``MATCH[1..5]`` (clipped counts), ``COUNT[1..5]`` (hypothesis n-grams), ``INFO[1..5]`` (NIST
information of the clipped matches).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAX_ORDER = 5
HYP_LEN, REF_LEN, MEAN_REF_LEN = 0, 1, 2
MATCH = slice(3, 3 + MAX_ORDER)
COUNT = slice(3 + MAX_ORDER, 3 + 2 * MAX_ORDER)
INFO = slice(3 + 2 * MAX_ORDER, 3 + 3 * MAX_ORDER)
N_STATS = 3 + 3 * MAX_ORDER
_SHIFT = np.int64(1 << 32)


@dataclass(frozen=True)
class Profile:
    """The n-grams of one token sequence: unique ids, their counts and orders (1-based)."""

    length: int
    ids: np.ndarray
    counts: np.ndarray
    orders: np.ndarray


@dataclass(frozen=True)
class PreparedNgrams:
    """A reference set: sorted (segment, n-gram) keys with maximum counts, lengths, information."""

    keys: np.ndarray
    max_counts: np.ndarray
    info: np.ndarray
    lengths: list[tuple[int, ...]]
    n_refs: int


class NgramVocabulary:
    """Interns n-grams as integer ids and caches the profile of every distinct sequence.

    An n-gram's id is keyed by (id of its (n-1)-gram prefix, id of its last token), so extending
    a prefix costs one small-tuple lookup."""

    def __init__(self) -> None:
        self.tokens: dict[str, int] = {}
        self.table: dict[tuple[int, int], int] = {}
        self.prefix: list[int] = []  # id of the (n-1)-gram prefix, -1 for unigrams
        self._profiles: dict[tuple[str, ...], Profile] = {}

    def profile(self, tokens: tuple[str, ...]) -> Profile:
        """N-gram ids/counts/orders of a sequence (cached)."""
        cached = self._profiles.get(tokens)
        if cached is not None:
            return cached
        token_ids = self.tokens
        tids = [token_ids.setdefault(t, len(token_ids)) for t in tokens]
        table, prefix = self.table, self.prefix
        counts: dict[int, int] = {}
        orders: dict[int, int] = {}
        n_tokens = len(tids)
        for i in range(n_tokens):
            previous = -1
            for n in range(min(MAX_ORDER, n_tokens - i)):
                key = (previous, tids[i + n])
                index = table.get(key)
                if index is None:
                    index = table[key] = len(prefix)
                    prefix.append(previous)
                counts[index] = counts.get(index, 0) + 1
                orders[index] = n + 1
                previous = index
        size = len(counts)
        prof = Profile(n_tokens, np.fromiter(counts.keys(), dtype=np.int64, count=size),
                       np.fromiter(counts.values(), dtype=np.float64, count=size),
                       np.fromiter(orders.values(), dtype=np.int64, count=size))
        self._profiles[tokens] = prof
        return prof


def _concat(profiles: Sequence[Profile], segments: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    sizes = [len(p.ids) for p in profiles]
    seg = np.repeat(np.asarray(segments, dtype=np.int64), sizes)
    ids = np.concatenate([p.ids for p in profiles]) if profiles else np.zeros(0, np.int64)
    return seg * _SHIFT + ids, np.concatenate([p.counts for p in profiles]) if profiles else np.zeros(0)


PERL_FALSE_PREFIX = "0"  # the one non-empty (n-1)-gram string Perl reads as false (n = 2 only)


def information(vocab: NgramVocabulary, ref_profiles: Sequence[Profile]) -> np.ndarray:
    """mteval's ``compute_ngram_info``: ``-log2(count(ngram)/count(prefix))`` (unigrams: over the
    total number of reference words), counted over every reference segment; NaN for unseen ids.

    v13a's quirk, reproduced: the denominator is chosen by ``$mgram ? count{$mgram} : $tot_wrds``
    (mteval-v13a.pl sub ``compute_ngram_info``, line 545 of Asiya's copy, 546 of moses-smt's) and Perl
    reads the prefix string ``"0"`` as false, so a bigram whose first token is ``0`` is also divided by
    the total word count (``docs/bleu-nist.md``)."""
    size = len(vocab.prefix)
    keys = np.concatenate([p.ids for p in ref_profiles]) if ref_profiles else np.zeros(0, np.int64)
    weights = np.concatenate([p.counts for p in ref_profiles]) if ref_profiles else np.zeros(0)
    totals = np.bincount(keys, weights=weights, minlength=size)
    prefix = np.asarray(vocab.prefix, dtype=np.int64)
    total_words = sum(p.length for p in ref_profiles)
    zero = vocab.table.get((-1, vocab.tokens.get(PERL_FALSE_PREFIX, -2)), -1)  # unigram id of "0", if any
    has_prefix = (prefix >= 0) & (prefix != zero)
    denominator = np.where(has_prefix, totals[np.maximum(prefix, 0)], total_words)
    with np.errstate(divide="ignore", invalid="ignore"):
        info = -np.log(totals / denominator) / math.log(2)
    return np.where(totals > 0, info, np.nan)


def prepare_ngrams(vocab: NgramVocabulary, references: Sequence[Sequence[tuple[str, ...]]]) -> PreparedNgrams:
    """Reference set -> clipping keys/counts, lengths and information (``references[r][i]`` tokens)."""
    n_segments = {len(r) for r in references}
    if len(n_segments) != 1:
        raise ValueError(f"references differ in length: {sorted(n_segments)}")
    n = n_segments.pop()
    profiles = [[vocab.profile(ref[i]) for ref in references] for i in range(n)]
    flat = [p for seg in profiles for p in seg]
    keys, counts = _concat(flat, [i for i, seg in enumerate(profiles) for _ in seg])
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, np.intp)
    max_counts = np.maximum.reduceat(counts, starts) if len(keys) else counts
    return PreparedNgrams(keys[starts], max_counts, information(vocab, flat),
                          [tuple(p.length for p in seg) for seg in profiles], len(references))


def ngram_statistics(vocab: NgramVocabulary, hypothesis: Sequence[tuple[str, ...]],
                     prepared: PreparedNgrams) -> np.ndarray:
    """Statistics matrix (module docstring) of a hypothesis against a prepared reference set."""
    n = len(hypothesis)
    if n != len(prepared.lengths):
        raise ValueError(f"hypothesis has {n} segments, references have {len(prepared.lengths)}")
    profiles = [vocab.profile(tokens) for tokens in hypothesis]
    keys, counts = _concat(profiles, range(n))
    ids = keys % _SHIFT
    seg = keys // _SHIFT
    orders = np.concatenate([p.orders for p in profiles]) if profiles else np.zeros(0, np.int64)
    if len(prepared.keys):
        pos = np.minimum(np.searchsorted(prepared.keys, keys), len(prepared.keys) - 1)
        found = prepared.keys[pos] == keys
        clipped = np.where(found, np.minimum(counts, prepared.max_counts[pos]), 0.0)
    else:  # references without a single n-gram (all empty)
        found = np.zeros(len(keys), dtype=bool)
        clipped = np.zeros(len(keys))
    # ids interned after the references were prepared cannot match them
    info = prepared.info[np.minimum(ids, len(prepared.info) - 1)] if len(prepared.info) else np.zeros(len(ids))
    bins = seg * MAX_ORDER + orders - 1
    stats = np.zeros((n, N_STATS))
    stats[:, MATCH] = np.bincount(bins, weights=clipped, minlength=n * MAX_ORDER).reshape(n, MAX_ORDER)
    stats[:, INFO] = np.bincount(bins, weights=np.where(found, clipped * np.nan_to_num(info), 0.0),
                                 minlength=n * MAX_ORDER).reshape(n, MAX_ORDER)
    lengths = np.array([p.length for p in profiles], dtype=np.float64)
    stats[:, HYP_LEN] = lengths
    stats[:, COUNT] = np.maximum(lengths[:, None] - np.arange(MAX_ORDER)[None, :], 0)
    stats[:, REF_LEN] = [min(r, key=lambda x: (abs(h - x), x)) if r else 0
                         for h, r in zip(lengths, prepared.lengths, strict=True)]
    stats[:, MEAN_REF_LEN] = [sum(r) / prepared.n_refs for r in prepared.lengths]
    return stats
