"""Vectorised mteval-v13a n-gram statistics (BLEU/NIST) over any token sequences.

A reference set is numbered on its own (per-reference-set numbering, as the sacreBLEU family's
``_reference_table``): its tokens get ids ``0 .. V-1``; the table of order 1 holds the sorted
``segment * V + token`` of every (segment, unigram) of the references, and the table of order
``n > 1`` the sorted ``code of the (n-1)-gram prefix * V + token`` of every (segment, n-gram), an
n-gram's *code* being its index in the table of its order. A code thus names one n-gram of one
segment's references; each carries the most frequent occurrence in one reference (BLEU clipping)
and the NIST information weight of its n-gram over the whole reference set. A hypothesis is
numbered against those tables order by order (one ``searchsorted`` per order, only where the
prefix matched in the same segment's references: nothing else can match), so nothing is interned
or kept between calls: memory is the reference set's tables and one hypothesis at a time.

Works for words (BLEU/NIST) and for any symbol layer (lemmas, PoS, chunks: SP-NIST).

Statistics columns: ``HYP_LEN, REF_LEN (closest, ties -> shorter), MEAN_REF_LEN``, then
``MATCH[1..5]`` (clipped counts), ``COUNT[1..5]`` (hypothesis n-grams), ``INFO[1..5]`` (NIST
information of the clipped matches, summed in order of first occurrence in the segment).
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
PERL_FALSE_PREFIX = "0"  # the one non-empty (n-1)-gram string Perl reads as false (n = 2 only)
_LIMIT = 1 << 31  # tokens of one side (keys are products of two such numbers)


@dataclass(frozen=True)
class PreparedNgrams:
    """A reference set numbered on its own (module docstring): per order ``n`` (index ``n - 1``) the
    sorted keys ``tables``, and per code the clipping count ``max_counts`` and NIST weight ``info``;
    ``tokens`` the reference vocabulary, ``lengths`` the references' lengths (segments x references)."""

    tokens: dict[str, int]
    tables: list[np.ndarray]
    max_counts: list[np.ndarray]
    info: list[np.ndarray]
    lengths: np.ndarray
    n_refs: int


def _positions(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each token's sequence number and the tokens left in its sequence from it (itself included)."""
    sequence = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    room = np.repeat(np.cumsum(lengths), lengths) - np.arange(int(lengths.sum()), dtype=np.int64)
    return sequence, room


def information_weights(totals: np.ndarray, prefix_totals: np.ndarray | None, total_words: int,
                        false_prefix: np.ndarray | None = None) -> np.ndarray:
    """mteval's ``compute_ngram_info`` (Doddington 2002): ``-log2(count(ngram) / count(prefix))`` per
    n-gram, unigrams (``prefix_totals`` None) over the total number of reference words.

    v13a's quirk, reproduced: the denominator is chosen by ``$mgram ? count{$mgram} : $tot_wrds``
    (mteval-v13a.pl sub ``compute_ngram_info``, line 545 of Asiya's copy, 546 of moses-smt's) and Perl
    reads the prefix string ``"0"`` as false, so a bigram whose first token is ``0`` (``false_prefix``)
    is also divided by the total word count (``docs/bleu-nist.md``)."""
    if prefix_totals is None:
        denominator: np.ndarray = np.full(len(totals), float(total_words))
    else:
        denominator = prefix_totals if false_prefix is None else np.where(false_prefix, total_words, prefix_totals)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(-np.log(totals / denominator) / math.log(2))


def _reference_order(prefix: np.ndarray, global_prefix: np.ndarray, at: np.ndarray, token: np.ndarray,
                     size: int, ref: np.ndarray, n_refs: int) -> tuple[np.ndarray, ...]:
    """One order of :func:`prepare_ngrams` over the occurrences ``at``: the sorted per-segment keys
    ``prefix * size + token``, each occurrence's code (its index there), each code's clipping count
    (its most frequent occurrence in one reference); the n-grams numbered over the whole reference set
    (sorted ``(global_prefix + 1) * size + token``, as sacreBLEU numbers them), each occurrence's
    number there and each such n-gram's count."""
    table, inverse = np.unique(prefix[at] * size + token, return_inverse=True)
    inverse = inverse.ravel()
    per_ref = np.bincount(inverse * n_refs + ref[at], minlength=len(table) * n_refs)
    max_counts = per_ref.reshape(len(table), n_refs).max(axis=1).astype(np.float64)
    ngrams, number = np.unique((global_prefix[at] + 1) * size + token, return_inverse=True)
    number = number.ravel()
    totals = np.bincount(number, minlength=len(ngrams)).astype(np.float64)
    return table, inverse, max_counts, ngrams, number, totals


def prepare_ngrams(references: Sequence[Sequence[tuple[str, ...]]]) -> PreparedNgrams:
    """Reference set (``references[r][i]``: the tokens of reference ``r``'s segment ``i``) -> its
    tables (module docstring), clipping counts, NIST information (:func:`information_weights`)."""
    n_segments = {len(r) for r in references}
    if len(n_segments) != 1:
        raise ValueError(f"references differ in length: {sorted(n_segments)}")
    n, n_refs = n_segments.pop(), len(references)
    words = list(chain.from_iterable(chain.from_iterable(references)))
    if len(words) >= _LIMIT:
        raise ValueError(f"more than {_LIMIT} reference tokens")
    vocab = {word: k for k, word in enumerate(dict.fromkeys(words))}
    size = max(len(vocab), 1)
    ids = np.fromiter(map(vocab.__getitem__, words), dtype=np.int64, count=len(words))
    lengths = np.array([[len(seg) for seg in ref] for ref in references], dtype=np.int64).reshape(n_refs, n)
    sequence, room = _positions(lengths.ravel())
    ref, code = np.divmod(sequence, max(n, 1))  # order 0: each token's segment, and the empty n-gram (-1)
    number = np.full(len(ids), -1, dtype=np.int64)
    zero = vocab.get(PERL_FALSE_PREFIX, -1)  # a unigram's number is its token's id
    prepared = PreparedNgrams(vocab, [], [], [], lengths.T.copy(), n_refs)
    totals = np.zeros(0)
    for order in range(1, MAX_ORDER + 1):
        at = np.flatnonzero(room >= order)
        table, inverse, max_counts, ngrams, ngram_of, ngram_totals = _reference_order(
            code, number, at, ids[at + order - 1], size, ref, n_refs)
        prefix = ngrams // size - 1
        weights = information_weights(ngram_totals, totals[prefix] if order > 1 else None, len(words),
                                      prefix == zero if order == 2 else None)
        code_info = np.empty(len(table))
        code_info[inverse] = weights[ngram_of]
        code, number = np.full(len(ids), -1, dtype=np.int64), np.full(len(ids), -1, dtype=np.int64)
        code[at], number[at] = inverse, ngram_of
        prepared.tables.append(table)
        prepared.max_counts.append(max_counts)
        prepared.info.append(code_info)
        totals = ngram_totals
    return prepared


def _matches(codes: np.ndarray, max_counts: np.ndarray, info: np.ndarray) -> tuple[np.ndarray, ...]:
    """Of a hypothesis' matched occurrences of one order (their codes, in position order): the first
    occurrence of each distinct code, in position order, its count clipped by the references', and
    that times its information weight. One sort of ``code * M + occurrence`` groups them."""
    m = len(codes)
    ordered = np.sort(codes * m + np.arange(m, dtype=np.int64))
    code, occurrence = np.divmod(ordered, m)
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    first = occurrence[starts]
    counts = np.diff(np.r_[starts, m]).astype(np.float64)
    clipped = np.empty(m)
    clipped[first] = np.minimum(counts, max_counts[code[starts]])
    keep = np.zeros(m, dtype=bool)
    keep[first] = True
    clipped = clipped[keep]
    weights = np.empty(m)
    weights[first] = info[code[starts]]
    return keep, clipped, clipped * weights[keep]


def ngram_statistics(hypothesis: Sequence[tuple[str, ...]], prepared: PreparedNgrams) -> np.ndarray:
    """Statistics matrix (module docstring) of a hypothesis against a prepared reference set."""
    n = len(hypothesis)
    if n != len(prepared.lengths):
        raise ValueError(f"hypothesis has {n} segments, references have {len(prepared.lengths)}")
    lengths = np.fromiter(map(len, hypothesis), dtype=np.int64, count=n)
    if int(lengths.sum()) >= _LIMIT:
        raise ValueError(f"more than {_LIMIT} hypothesis tokens")
    ids = np.fromiter(map(prepared.tokens.get, chain.from_iterable(hypothesis), repeat(-1)), dtype=np.int64,
                      count=int(lengths.sum()))
    sequence, room = _positions(lengths)
    size = max(len(prepared.tokens), 1)
    stats = np.zeros((n, N_STATS))
    code = sequence
    for order in range(1, MAX_ORDER + 1):
        table = prepared.tables[order - 1]
        at = np.flatnonzero((room >= order) & (code >= 0))
        at = at[ids[at + order - 1] >= 0]
        wanted = code[at] * size + ids[at + order - 1]
        code = np.full(len(ids), -1, dtype=np.int64)
        if not len(table) or not len(at):
            break
        found = np.minimum(np.searchsorted(table, wanted), len(table) - 1)
        hit = table[found] == wanted
        at = at[hit]
        if not len(at):
            break
        code[at] = found[hit]
        keep, clipped, info = _matches(found[hit], prepared.max_counts[order - 1], prepared.info[order - 1])
        bins = sequence[at[keep]]
        stats[:, MATCH.start + order - 1] = np.bincount(bins, weights=clipped, minlength=n)
        stats[:, INFO.start + order - 1] = np.bincount(bins, weights=info, minlength=n)
    stats[:, HYP_LEN] = lengths
    stats[:, COUNT] = np.maximum(lengths[:, None] - np.arange(MAX_ORDER)[None, :], 0)
    refs = prepared.lengths
    # the closest reference length, the shorter one on ties (2 |h - r| + [r > h] orders them so)
    closeness = 2 * np.abs(lengths[:, None] - refs) + (refs > lengths[:, None])
    stats[:, REF_LEN] = np.take_along_axis(refs, np.argmin(closeness, axis=1)[:, None], axis=1)[:, 0]
    stats[:, MEAN_REF_LEN] = refs.sum(axis=1) / prepared.n_refs
    return stats
