"""Clipped n-gram hits of many segment pairs at once (ROUGE-N, Lin 2004, eq. 1; rouge-score's rougeN).

For each pair ``i`` and order ``n``: ``sum over n-grams g of min(count_hyp(g), count_ref(g))`` of the
two token-id sequences, the number :func:`mteval.metrics.rouge.clipped_hits` gives from two
``Counter`` objects, computed for a block of pairs with numpy: every n-gram is an integer code built
from the previous order's code and the next token (the codes renumbered densely when the next order's
would overflow), a key ``(pair, code, side)`` per n-gram, one sort, and per run of equal
``(pair, code)`` the smaller side's count. Exact integers throughout; pairs are processed in blocks
of at most :data:`BLOCK_TOKENS` tokens, which bounds memory and keeps every key below 2^62 (ids must
be >= 0; a block renumbers them when they exceed its token count).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

__all__ = ["BLOCK_TOKENS", "clipped_ngram_hits", "flatten"]

BLOCK_TOKENS = 1 << 18  # tokens (both sides) per block: then pairs x codes x 2 < 2^62 always
Ids = Sequence[int]


def flatten(seqs: Sequence[Ids]) -> tuple[np.ndarray, np.ndarray]:
    """All ids one after another and each sequence's length (int64)."""
    lengths = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
    return np.fromiter(chain.from_iterable(seqs), dtype=np.int64, count=int(lengths.sum())), lengths


def clipped_ngram_hits(hyps: Sequence[Ids], refs: Sequence[Ids], orders: Sequence[int]) -> np.ndarray:
    """``out[i, k]``: clipped hits of order ``orders[k]`` between ``hyps[i]`` and ``refs[i]``."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    out = np.zeros((len(hyps), len(orders)), dtype=np.int64)
    if not len(orders):
        return out
    start, size = 0, 0
    for i in range(len(hyps) + 1):
        pair = len(hyps[i]) + len(refs[i]) if i < len(hyps) else 0
        if i == len(hyps) or (size + pair > BLOCK_TOKENS and i > start):
            if i > start:
                out[start:i] = _block_hits(hyps[start:i], refs[start:i], orders)
            start, size = i, 0
        size += pair
    return out


def _block_hits(hyps: Sequence[Ids], refs: Sequence[Ids], orders: Sequence[int]) -> np.ndarray:
    """:func:`clipped_ngram_hits` of one block of pairs (at most :data:`BLOCK_TOKENS` tokens, or one pair)."""
    (h_ids, h_len), (r_ids, r_len) = flatten(hyps), flatten(refs)
    ids = np.concatenate([h_ids, r_ids])
    out = np.zeros((len(hyps), len(orders)), dtype=np.int64)
    if not len(ids):
        return out
    lengths = np.concatenate([h_len, r_len])
    segment = np.repeat(np.arange(len(lengths)), lengths)
    left = lengths[segment] - (np.arange(len(ids)) - (np.cumsum(lengths) - lengths)[segment])  # tokens to the end
    pair = segment % len(hyps)
    side = (segment >= len(hyps)).astype(np.int64)  # 1: the reference
    if int(ids.max()) >= len(ids):  # ids from a large vocabulary: renumbered within the block
        ids = np.unique(ids, return_inverse=True)[1].astype(np.int64)
    width = int(ids.max()) + 1  # Python ints: the bounds never overflow
    code, codes = ids.copy(), width  # codes: an upper bound of the current order's codes
    limit = (1 << 61) // max(len(hyps), 1)
    for n in range(1, max(orders) + 1):
        if n > 1:
            if codes * width >= limit:  # renumber the previous order's codes densely
                used = np.unique(code[left >= n - 1])
                code, codes = np.searchsorted(used, code).astype(np.int64), len(used) + 1
            last = max(len(code) - n + 1, 0)  # positions that can start an n-gram
            code[:last] = code[:last] * width + ids[n - 1:n - 1 + last]
            codes = codes * width
        if n in orders:
            valid = left >= n
            out[:, list(orders).index(n)] = _matched(((pair[valid] * codes + code[valid]) << 1) | side[valid],
                                                     codes, len(hyps))
    return out


def _matched(keys: np.ndarray, codes: int, pairs: int) -> np.ndarray:
    """Per pair the sum over its codes of min(hypothesis count, reference count); ``keys`` are
    ``(pair * codes + code) * 2 + side``."""
    if not len(keys):
        return np.zeros(pairs, dtype=np.int64)
    ordered = np.sort(keys)
    grams = ordered >> 1
    bounds = np.r_[0, np.flatnonzero(grams[1:] != grams[:-1]) + 1, len(grams)]
    in_ref = np.diff(np.r_[0, np.cumsum(ordered & 1)][bounds])
    matched = np.minimum(in_ref, np.diff(bounds) - in_ref)
    return np.bincount(grams[bounds[:-1]] // codes, weights=matched, minlength=pairs).astype(np.int64)
