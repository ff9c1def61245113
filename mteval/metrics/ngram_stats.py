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
from itertools import chain, repeat

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
class KnownNgrams:
    """The interned n-grams of some sequences: per distinct (sequence, n-gram) its sequence number,
    id, count and order, each sequence's in order of first occurrence; ``sorted_keys`` are their
    ``sequence * 2**32 + id`` keys in increasing order and ``seen`` the permutation from that order to
    the first-occurrence one (``keys == sorted_keys[seen]``)."""

    sequence: np.ndarray
    ids: np.ndarray
    counts: np.ndarray
    orders: np.ndarray
    sorted_keys: np.ndarray
    seen: np.ndarray


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

    An n-gram's id is keyed by ``(id of its (n-1)-gram prefix + 1) * TOKEN_SPACE + id of its last
    token``; a batch of sequences is interned order by order with numpy (one ``np.unique`` and one
    dictionary lookup per distinct n-gram of the batch), not token by token."""

    TOKEN_SPACE = 1 << 31

    def __init__(self) -> None:
        self.tokens: dict[str, int] = {}
        self._keys = np.zeros(0, dtype=np.int64)  # sorted interned keys
        self._ids = np.zeros(0, dtype=np.int64)  # their n-gram ids
        self._profiles: dict[tuple[str, ...], Profile] = {}
        self._unigrams: np.ndarray | None = None  # unigram id by token id (-1: none), while nothing is interned

    def unigram_id(self, token: str) -> int:
        """The id of a one-token n-gram, -1 if never seen."""
        tid = self.tokens.get(token)
        if tid is None:
            return -1
        pos = int(np.searchsorted(self._keys, tid))  # a unigram's key is its token id
        return int(self._ids[pos]) if pos < len(self._keys) and self._keys[pos] == tid else -1

    def profile(self, tokens: tuple[str, ...]) -> Profile:
        """N-gram ids/counts/orders of a sequence (cached)."""
        return self.profiles([tokens])[0]

    def profiles(self, sequences: Sequence[tuple[str, ...]]) -> list[Profile]:
        """The profiles of many sequences; the ones not cached are interned in one vectorised pass."""
        missing = [s for s in dict.fromkeys(sequences) if s not in self._profiles]
        if missing:
            self._profiles.update(zip(missing, self._build(missing), strict=True))
        return [self._profiles[s] for s in sequences]

    def _build(self, sequences: list[tuple[str, ...]]) -> list[Profile]:
        """Intern every n-gram of the sequences; one Profile each, its n-grams in order of first
        occurrence (position, then order), so that sums over them never depend on the ids."""
        lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
        token_ids = self.tokens
        for token in dict.fromkeys(chain.from_iterable(sequences)):  # new tokens in order of first occurrence
            if token not in token_ids:
                token_ids[token] = len(token_ids)
        if len(token_ids) >= self.TOKEN_SPACE:
            raise ValueError(f"more than {self.TOKEN_SPACE} distinct tokens")
        tok = np.fromiter(map(token_ids.__getitem__, chain.from_iterable(sequences)), dtype=np.int64,
                          count=int(lengths.sum()))
        seq_of = np.repeat(np.arange(len(sequences), dtype=np.int64), lengths)
        room = np.repeat(np.cumsum(lengths), lengths) - np.arange(len(tok))  # tokens left in its sequence
        current = np.full(len(tok), -1, dtype=np.int64)  # id of the (n-1)-gram starting at each position
        keys, occurrences = [], []
        for n in range(1, MAX_ORDER + 1):
            at = np.flatnonzero(room >= n)
            ids = self._intern((current[at] + 1) * self.TOKEN_SPACE + tok[at + n - 1])
            current[at] = ids
            keys.append(seq_of[at] * _SHIFT + ids)
            occurrences.append(at * MAX_ORDER + n - 1)
        by_position = np.argsort(np.concatenate(occurrences))
        occurrence_keys = np.concatenate(keys)[by_position]
        unique, first, counts = np.unique(occurrence_keys, return_index=True, return_counts=True)
        seen = np.argsort(first)  # distinct n-grams in order of first occurrence
        unique, counts = unique[seen], counts[seen].astype(np.float64)
        order = np.concatenate(occurrences)[by_position][first[seen]] % MAX_ORDER + 1
        bounds = np.searchsorted(unique // _SHIFT, np.arange(len(sequences) + 1))
        return [Profile(int(lengths[i]), unique[a:b] % _SHIFT, counts[a:b], order[a:b])
                for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))]

    def known(self, sequences: Sequence[tuple[str, ...]], lengths: np.ndarray) -> KnownNgrams:
        """The n-grams of each sequence that are interned already (lookups only: a hypothesis' other
        n-grams cannot match any reference), per sequence in order of first occurrence (position,
        then order) as in :meth:`profiles`; nothing is interned or cached."""
        tok = np.fromiter(map(self.tokens.get, chain.from_iterable(sequences), repeat(-1)), dtype=np.int64,
                          count=int(lengths.sum()))
        room = np.repeat(np.cumsum(lengths), lengths) - np.arange(len(tok))  # tokens left in its sequence
        ids = np.full((len(tok), MAX_ORDER), -1, dtype=np.int64)  # id of the n-gram at each (position, n)
        at = np.flatnonzero(tok >= 0)
        ids[at, 0] = self._unigram_ids()[tok[at]]
        for n in range(2, MAX_ORDER + 1):
            at = np.flatnonzero(room >= n)
            at = at[(ids[at, n - 2] >= 0) & (tok[at + n - 1] >= 0)]
            ids[at, n - 1] = self._find((ids[at, n - 2] + 1) * self.TOKEN_SPACE + tok[at + n - 1])
        flat = ids.ravel()
        occurrence = np.flatnonzero(flat >= 0)  # position * MAX_ORDER + n - 1, increasing
        seq_of = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        keys = seq_of[occurrence // MAX_ORDER] * _SHIFT + flat[occurrence]
        unique, first, counts = np.unique(keys, return_index=True, return_counts=True)
        seen = np.argsort(first)  # distinct n-grams of a sequence in order of first occurrence
        in_order = unique[seen]
        return KnownNgrams(in_order // _SHIFT, in_order % _SHIFT, counts[seen].astype(np.float64),
                           occurrence[first[seen]] % MAX_ORDER + 1, unique, seen)

    def _unigram_ids(self) -> np.ndarray:
        """The unigram id of every token id (-1 where the token was seen but never as a unigram
        key), kept until the next interning: a unigram's key is its token id, so one search of the
        sorted ``0 .. tokens - 1`` replaces a search of every occurrence."""
        if self._unigrams is None or len(self._unigrams) != len(self.tokens):
            self._unigrams = self._find(np.arange(len(self.tokens), dtype=np.int64))
        return self._unigrams

    def _find(self, keys: np.ndarray) -> np.ndarray:
        """Ids of (prefix, token) keys, -1 for keys never interned."""
        ids = np.full(len(keys), -1, dtype=np.int64)
        if len(self._keys):
            pos = sorted_search(self._keys, keys)
            found = self._keys[pos] == keys
            ids[found] = self._ids[pos[found]]
        return ids

    def prefixes(self) -> np.ndarray:
        """The id of every n-gram's (n-1)-gram prefix, by n-gram id (-1 for unigrams)."""
        prefix = np.empty(len(self._ids), dtype=np.int64)
        prefix[self._ids] = self._keys // self.TOKEN_SPACE - 1
        return prefix

    def _intern(self, keys: np.ndarray) -> np.ndarray:
        """Ids of (prefix, token) keys; new keys get the next ids (in sorted key order). The known
        keys are one sorted array, so a batch costs a ``searchsorted`` and an ``insert``."""
        unique, inverse = np.unique(keys, return_inverse=True)
        pos = np.searchsorted(self._keys, unique)
        found = pos < len(self._keys)
        found[found] = self._keys[pos[found]] == unique[found]
        ids = np.empty(len(unique), dtype=np.int64)
        ids[found] = self._ids[pos[found]]
        new = np.flatnonzero(~found)
        if len(new):
            self._unigrams = None
            start = len(self._keys)
            ids[new] = np.arange(start, start + len(new))
            self._keys = np.insert(self._keys, pos[new], unique[new])
            self._ids = np.insert(self._ids, pos[new], ids[new])
        return ids[inverse.reshape(-1)]

    @property
    def table(self) -> dict[int, int]:
        """Every interned key and its id (for inspection; lookups use the sorted arrays)."""
        return dict(zip(self._keys.tolist(), self._ids.tolist(), strict=True))


def sorted_search(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """``np.searchsorted(haystack, needles)`` clipped to the last index (so it can index it; the caller
    compares), with the needles searched in sorted order (several times faster on a large haystack)."""
    order = np.argsort(needles)
    pos = np.empty(len(needles), dtype=np.intp)
    pos[order] = np.searchsorted(haystack, needles[order])
    return np.minimum(pos, len(haystack) - 1)


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
    prefix = vocab.prefixes()
    size = len(prefix)
    keys = np.concatenate([p.ids for p in ref_profiles]) if ref_profiles else np.zeros(0, np.int64)
    weights = np.concatenate([p.counts for p in ref_profiles]) if ref_profiles else np.zeros(0)
    totals = np.bincount(keys, weights=weights, minlength=size)
    total_words = sum(p.length for p in ref_profiles)
    zero = vocab.unigram_id(PERL_FALSE_PREFIX)
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
    flat_refs = vocab.profiles([ref[i] for i in range(n) for ref in references])
    profiles = [flat_refs[i * len(references):(i + 1) * len(references)] for i in range(n)]
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
    lengths = np.fromiter(map(len, hypothesis), dtype=np.int64, count=n)
    known = vocab.known(hypothesis, lengths)
    stats = np.zeros((n, N_STATS))
    if len(prepared.keys) and len(known.ids):
        keys = known.sorted_keys[known.seen]
        pos = np.minimum(np.searchsorted(prepared.keys, known.sorted_keys), len(prepared.keys) - 1)[known.seen]
        found = prepared.keys[pos] == keys
        clipped = np.minimum(known.counts[found], prepared.max_counts[pos[found]])
        ids = known.ids[found]
        # ids interned after the references were prepared are not among their keys
        info = np.nan_to_num(prepared.info[np.minimum(ids, len(prepared.info) - 1)])
        bins = known.sequence[found] * MAX_ORDER + known.orders[found] - 1
        stats[:, MATCH] = np.bincount(bins, weights=clipped, minlength=n * MAX_ORDER).reshape(n, MAX_ORDER)
        stats[:, INFO] = np.bincount(bins, weights=clipped * info, minlength=n * MAX_ORDER).reshape(n, MAX_ORDER)
    stats[:, HYP_LEN] = lengths
    stats[:, COUNT] = np.maximum(lengths[:, None] - np.arange(MAX_ORDER)[None, :], 0)
    ref_lengths = np.asarray(prepared.lengths, dtype=np.int64).reshape(n, prepared.n_refs)
    # the closest reference length, the shorter one on ties (2 |h - r| + [r > h] orders them so)
    closeness = 2 * np.abs(lengths[:, None] - ref_lengths) + (ref_lengths > lengths[:, None])
    stats[:, REF_LEN] = np.take_along_axis(ref_lengths, np.argmin(closeness, axis=1)[:, None], axis=1)[:, 0]
    stats[:, MEAN_REF_LEN] = ref_lengths.sum(axis=1) / prepared.n_refs
    return stats
