"""ROUGE (Lin 2004) exactly as ROUGE-1.5.5.pl computes it with Asiya's flags.

Asiya (``ROUGE.pm``) runs ``ROUGE-1.5.5.pl -z SPL -2 -1 -U -r 1000 -n 4 -w 1.2 -c 95 -d -m`` once
per segment pair and keeps the **F-score** (alpha = 0.5):

* ROUGE-N (Lin 2004, eq. 1): clipped n-gram hits, n = 1..4;
* ROUGE-L (eq. 2-4): longest common subsequence;
* ROUGE-W-1.2 (eq. 5-7, weight f(k) = k^1.2): weighted LCS; the hit is the sum of f(run length)
  over the runs of consecutive LCS positions *in the reference*, and the reference total is
  f(f(|ref|)), both as the script computes them;
* ROUGE-S* (eq. 8-10, unlimited gap) and ROUGE-SU* (skip bigrams plus the unigrams of every token
  but the last, as the script counts them).

Per segment R and P are rounded to 5 decimals and F is computed from the rounded R and P, then
rounded. Several references (scoring mode ``A``): hits and reference/hypothesis totals are summed
over the references. System level: ROUGE's ``Average_F``, the mean over 1000 bootstrap resamples
drawn with Perl's ``drand48`` (:mod:`mteval.metrics.rouge_bootstrap`); document level: the mean of
the document's segment F-scores (Asiya's convention for segment-only tools).

Tokenisation (on UTF-8 bytes): ASCII lower-casing, ``-`` padded with spaces, every byte outside
``[A-Za-z0-9-]`` is a separator, only tokens starting with ``[a-z0-9]`` are kept, and tokens longer
than 3 bytes are replaced by their WordNet-2.0 exception lemma or else their Porter stem.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.aliases import DUPLICATES
from mteval.metrics.base import BOOTSTRAP, MEAN, MetricFamily, MetricInfo, ScoreSet, Side, mean_score_set
from mteval.metrics.registry import register
from mteval.metrics.rouge_bootstrap import bootstrap_average
from mteval.metrics.stemmers import porter_rouge

RESOURCES = Path(__file__).resolve().parents[1] / "resources" / "rouge"
# Order in which ROUGE's buildExeptionDB.pl inserted the lists (a later list overrides an earlier
# one for the 6 words listed twice); this order reproduces the oracle (see docs/lexical-metrics-b.md).
EXCEPTION_FILES = ("adv.exc", "adj.exc", "noun.exc", "verb.exc")
WEIGHT = 1.2  # ROUGE-W weighting exponent (-w 1.2)
ALPHA = 0.5  # F-measure weight (no -p)

# Asiya's names (the variants) and IQMT's names (their aliases, :mod:`mteval.metrics.aliases`) of
# each variant; both select the same computation.
KINDS: dict[str, str] = {
    "ROUGE-1": "N1", "ROUGE-2": "N2", "ROUGE-3": "N3", "ROUGE-4": "N4", "ROUGE-L": "L",
    "ROUGE-W": "W", "ROUGE-S*": "S", "ROUGE-SU*": "SU",
    "RG-1": "N1", "RG-2": "N2", "RG-3": "N3", "RG-4": "N4", "RG-L": "L",
    "RG-W-1.2": "W", "RG-S*": "S", "RG-SU*": "SU",
}
EMPTY_ITEM = "***EMPTY***"  # what Asiya writes for an empty segment


@lru_cache(maxsize=1)
def exception_lemmas() -> dict[str, str]:
    """The WordNet-2.0 exception lists (inflected form -> lemma) as ROUGE's ``WordNet-2.0.exc.db``."""
    table: dict[str, str] = {}
    for name in EXCEPTION_FILES:
        for line in (RESOURCES / name).read_text(encoding="ascii").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                table[parts[0]] = parts[1]
    return table


_NON_TOKEN = re.compile(rb"[^A-Za-z0-9\-]")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9]+")  # one ROUGE token each (see rouge_tokens), whatever separates them


@lru_cache(maxsize=200_000)
def rouge_tokens(text: str, stem: bool = True) -> tuple[str, ...]:
    """ROUGE-1.5.5's tokens of one segment (``readText`` + ``createNGram``; ``-m`` stemming)."""
    line = text.strip()
    if line in ("", "?", "!", "."):
        line = EMPTY_ITEM
    data = line.encode("utf-8").split(b"\n")[0].lower()  # tr/A-Z/a-z/ only touches ASCII
    data = _NON_TOKEN.sub(b" ", data.replace(b"-", b" - "))
    exceptions = exception_lemmas() if stem else {}
    out = []
    for raw in data.split():
        tok = raw.decode("ascii")
        if not ("a" <= tok[0] <= "z" or "0" <= tok[0] <= "9"):
            continue
        if stem and len(tok) > 3:
            tok = exceptions.get(tok) or porter_rouge(tok)
        out.append(tok)
    return tuple(out)


@dataclass(frozen=True)
class RougeText:
    """What ROUGE extracts once from one tokenised segment (skip bigrams only when asked for)."""

    tokens: tuple[str, ...]
    ngrams: tuple[Counter, ...]  # n = 1..4

    @property
    def skip(self) -> Counter:
        """Skip bigrams with unlimited gap (ROUGE-S*)."""
        return skip_bigrams(self.tokens)

    @property
    def skip_unigrams(self) -> Counter:
        """Unigrams of every token but the last (ROUGE-SU*, as ROUGE-1.5.5 counts them)."""
        return Counter(self.tokens[:-1])


@lru_cache(maxsize=100_000)
def rouge_text(tokens: tuple[str, ...]) -> RougeText:
    """N-gram counts of a token sequence (cached per unique sequence)."""
    ngrams = tuple(Counter(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
                   for n in range(1, 5))
    return RougeText(tokens, ngrams)


@lru_cache(maxsize=100_000)
def skip_bigrams(tokens: tuple[str, ...]) -> Counter:
    """Counts of all ordered token pairs (i < j) of a sequence (cached per unique sequence)."""
    return Counter(f"{a} {b}" for i, a in enumerate(tokens) for b in tokens[i + 1:])


SKIP_BLOCK = 256  # first-token types per block of :func:`skip_hits_blocked`


def pair_count(n: int) -> int:
    """Number of skip bigrams (ordered pairs i < j) of ``n`` tokens: ``sum(skip_bigrams(t).values())``."""
    return n * (n - 1) // 2


def skip_hits(model: tuple[str, ...], peer: tuple[str, ...]) -> int:
    """Clipped skip-bigram hits ``sum over pairs (a, b) of min(count_model, count_peer)`` (Lin 2004,
    eq. 8), by :func:`skip_hits_blocked`: O((|model| + |peer|) x shared types) time and bounded
    memory, where Counters of every pair grow with the square of the length (12.5 M pairs for
    5,000 words) and, cached per segment, with the corpus; as fast on WMT-length segments."""
    return skip_hits_blocked(model, peer)


def _pair_counts(seq: np.ndarray, first: np.ndarray, n_types: int) -> np.ndarray:
    """``out[b, a]`` = pairs i < j with ``seq[i] = first[a]`` and ``seq[j] = b`` (ids < n_types)."""
    before = np.cumsum(seq[:, None] == first[None, :], axis=0, dtype=np.int64)
    before = np.vstack([np.zeros((1, len(first)), dtype=np.int64), before[:-1]])  # strictly before j
    out = np.zeros((n_types, len(first)), dtype=np.int64)
    np.add.at(out, seq, before)
    return out


def skip_hits_blocked(model: Sequence[str], peer: Sequence[str], block: int = SKIP_BLOCK) -> int:
    """Clipped skip-bigram hits by blocks of first-token types over the types both sides share
    (a pair with any other token cannot match); per block two ``(types x block)`` count tables."""
    shared = sorted(set(model) & set(peer))
    if not shared:
        return 0
    index = {t: i for i, t in enumerate(shared)}
    seq_m = np.fromiter((index[t] for t in model if t in index), dtype=np.int64)
    seq_p = np.fromiter((index[t] for t in peer if t in index), dtype=np.int64)
    hits = 0
    for lo in range(0, len(shared), block):
        first = np.arange(lo, min(lo + block, len(shared)))
        counts_m = _pair_counts(seq_m, first, len(shared))
        counts_p = _pair_counts(seq_p, first, len(shared))
        hits += int(np.minimum(counts_m, counts_p).sum())
    return hits


def clipped_hits(model: Counter, peer: Counter) -> int:
    """Sum over reference grams of min(count in reference, count in hypothesis) (Lin 2004, eq. 1)."""
    if len(peer) < len(model):
        model, peer = peer, model
    return sum(min(c, peer[g]) for g, c in model.items() if g in peer)


def lcs_length(model: Sequence[str], peer: Sequence[str]) -> int:
    """Length of the longest common subsequence (bit-parallel, Hyyrö 2004)."""
    if not model or not peer:
        return 0
    masks: dict[str, int] = {}
    for j, tok in enumerate(peer):
        masks[tok] = masks.get(tok, 0) | (1 << j)
    full = (1 << len(peer)) - 1
    v = full
    for tok in model:
        u = v & masks.get(tok, 0)
        v = ((v + u) | (v - u)) & full
    return len(peer) - bin(v).count("1")


def wlcs_hit(model: Sequence[str], peer: Sequence[str], weight: float = WEIGHT) -> float:
    """Weighted-LCS hit of ROUGE-1.5.5 (``wlcs_inner`` + ``markLCS`` + the run sum of ``wlcs``).

    Lin (2004), eq. 5-6: dynamic programme with f(k) = k^weight for k consecutive matches; the
    traceback prefers "up" on ties, as the script does; the hit sums f(run length) over the runs of
    consecutive marked positions of the reference.

    Bounded: the table is computed one row at a time with numpy (:func:`_wlcs_row`) and only the
    traceback moves are kept, two bits per cell (5,000 x 5,000 words: 6 MB); time O(m n).
    """
    m, n = len(model), len(peer)
    if m == 0 or n == 0:
        return 0.0
    ids: dict[str, int] = {}
    peer_ids = np.fromiter((ids.setdefault(t, len(ids)) for t in peer), dtype=np.int64, count=n)
    power = np.array([k ** weight for k in range(min(m, n) + 2)])  # Python's float pow, as before
    c = np.zeros(n + 1)
    run = np.zeros(n + 1, dtype=np.int64)
    diagonal = np.zeros((m + 1, (n + 8) // 8), dtype=np.uint8)  # packed: move 1 (diagonal)
    up = np.zeros((m + 1, (n + 8) // 8), dtype=np.uint8)  # packed: move 2 (up); neither: 3 (left)
    for i in range(1, m + 1):
        hit = np.zeros(n + 1, dtype=bool)
        hit[1:] = peer_ids == ids.get(model[i - 1], -1)
        c, run, up_move = _wlcs_row(c, run, hit, power)
        diagonal[i] = np.packbits(hit)
        up[i] = np.packbits(up_move)
    marked = _wlcs_marks(diagonal, up, m, n)
    hit_sum, length = 0.0, 0
    for flag in marked + [False]:
        if flag:
            length += 1
        elif length:
            hit_sum += length ** weight
            length = 0
    return hit_sum


def _wlcs_row(prev: np.ndarray, prev_run: np.ndarray, hit: np.ndarray,
              power: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row of ROUGE-1.5.5's WLCS table from the previous one (columns 0..n, ``hit[0]`` False).

    A match cell is ``prev[j-1] + f(k+1) - f(k)`` (evaluated left to right, as the script does);
    any other cell is ``max(up, left)`` ("up" on ties), i.e. a running maximum of the ``up``
    values that restarts at every match cell (the table is not monotone, so a match may lower
    it). The restarting maximum is one ``maximum.accumulate`` over exact integer keys
    ``segment * (n+1) + rank of the value``. Returns the row, its run lengths and the "up" moves.
    """
    n1 = len(prev)
    k = np.zeros(n1, dtype=np.int64)
    k[1:] = prev_run[:-1]
    start = np.zeros(n1)
    start[1:] = prev[:-1]
    start = np.where(hit, start + power[np.minimum(k + 1, len(power) - 1)] - power[np.minimum(k, len(power) - 1)],
                     np.where(np.arange(n1) == 0, 0.0, prev))
    values, rank = np.unique(start, return_inverse=True)
    segment = np.cumsum(hit)  # column 0 opens segment 0, every match cell a new one
    key = np.maximum.accumulate(segment * np.int64(n1) + rank.reshape(-1))
    row = values[key % n1]
    run = np.where(hit, k + 1, 0)
    left = np.zeros(n1)
    left[1:] = row[:-1]
    up_move = ~hit & (prev >= left)
    up_move[0] = False
    return row, run, up_move


def _wlcs_marks(diagonal: np.ndarray, up: np.ndarray, m: int, n: int) -> list[bool]:
    """ROUGE-1.5.5's ``markLCS`` traceback over the packed moves: the marked model positions."""
    marked = [False] * m
    i, j = m, n
    while i and j:
        byte, bit = divmod(j, 8)
        mask = 0x80 >> bit
        if diagonal[i, byte] & mask:
            i, j = i - 1, j - 1
            marked[i] = True
        elif up[i, byte] & mask:
            i -= 1
        else:
            j -= 1
    return marked


def pair_stats(hyp: RougeText, ref: RougeText, kinds: set[str]) -> dict[str, tuple[float, float, float]]:
    """(hit, reference total, hypothesis total) of one hypothesis/reference pair per ROUGE kind."""
    out: dict[str, tuple[float, float, float]] = {}
    for n in range(1, 5):
        if f"N{n}" in kinds:
            hg, rg = hyp.ngrams[n - 1], ref.ngrams[n - 1]
            out[f"N{n}"] = (clipped_hits(rg, hg), sum(rg.values()), sum(hg.values()))
    if "L" in kinds:
        out["L"] = (lcs_length(ref.tokens, hyp.tokens), len(ref.tokens), len(hyp.tokens))
    if "W" in kinds:
        out["W"] = (wlcs_hit(ref.tokens, hyp.tokens), (len(ref.tokens) ** WEIGHT) ** WEIGHT,
                    len(hyp.tokens) ** WEIGHT)
    if "S" in kinds or "SU" in kinds:
        s = (skip_hits(ref.tokens, hyp.tokens), pair_count(len(ref.tokens)), pair_count(len(hyp.tokens)))
        out["S"] = s
        if "SU" in kinds:
            u_ref, u_hyp = ref.skip_unigrams, hyp.skip_unigrams
            out["SU"] = (s[0] + clipped_hits(u_ref, u_hyp), s[1] + sum(u_ref.values()),
                         s[2] + sum(u_hyp.values()))
    return out


def round5(x: float) -> float:
    """Perl's ``sprintf("%7.5f", x)`` read back as a number."""
    return float(f"{x:.5f}")


def f_score(hit: float, ref_total: float, hyp_total: float, kind: str) -> float:
    """ROUGE-1.5.5's per-segment F: R and P rounded to 5 decimals, F from them, rounded."""
    power = 1.0 / WEIGHT if kind == "W" else 1.0
    r = round5((hit / ref_total) ** power) if ref_total else 0.0
    p = round5((hit / hyp_total) ** power) if hyp_total else 0.0
    den = (1 - ALPHA) * p + ALPHA * r
    return round5(p * r / den) if den > 0 else 0.0


@register
class RougeFamily(MetricFamily):
    """ROUGE-N, -L, -W-1.2, -S*, -SU* F-scores (Lin 2004) with ROUGE-1.5.5's numbers."""

    family = "ROUGE"
    variants = tuple(v for v in KINDS if v not in DUPLICATES)
    version = "1"
    # Time on one pair grows quadratically (LCS, WLCS and skip bigrams over every position pair):
    # one pair of real words (issue 29, docs/reliability.md) took 1.2-1.8 s at 5,000 words, 8.8 s
    # at 15,000 and 14-24 s at 20,000 on the shared 2-core machine; a longer segment is refused.
    # Counted in ROUGE's own tokens (:meth:`segment_words`; about 1.03 per word in English text).
    max_segment_words = 15_000

    @classmethod
    def segment_words(cls, text: str) -> int:
        """ROUGE's tokens of a segment (:func:`rouge_tokens` keeps one per run of ASCII letters and
        digits; ``a.b.c`` is one word but three tokens), counted without tokenising it."""
        return sum(1 for _ in _TOKEN_RUN.finditer(text))

    def __init__(self, case_sensitive: bool = True, stem: bool = True, bootstrap: bool = True,
                 **options: Any) -> None:
        super().__init__(case_sensitive, stem=stem, bootstrap=bootstrap, **options)
        self.stem = stem
        self.bootstrap = bootstrap

    def info(self, variant: str) -> MetricInfo:
        """Similarity in [0, 1]; ROUGE lower-cases, so it ignores ``case_sensitive``."""
        return MetricInfo(variant, self.family, description="ROUGE-1.5.5 F-score (Asiya flags)")

    def aggregation(self, level: str) -> str:
        """System: ROUGE-1.5.5's bootstrap ``Average_F`` of segment scores (a function of the
        scores, not of summed statistics); documents: Asiya's mean of segment scores."""
        return BOOTSTRAP if level == "sys" and self.bootstrap else MEAN

    def subset_score(self, scores: ScoreSet, rows: np.ndarray, variant: str, level: str) -> float:
        """What ROUGE-1.5.5 reports for those segments alone (numbered 1..n in their order)."""
        if self.aggregation(level) == BOOTSTRAP:
            return bootstrap_average(scores.segments[rows])
        return super().subset_score(scores, rows, variant, level)

    def _text(self, segment: str) -> RougeText:
        return rouge_text(rouge_tokens(segment, self.stem))

    def prepare(self, references: Sequence[Side]) -> list[list[RougeText]]:
        """Per segment, the prepared texts of all references."""
        per_ref = [[self._text(t) for t in ref.texts] for ref in references]
        if len({len(r) for r in per_ref}) > 1:
            sizes = ", ".join(f"{ref.name}: {len(ref.texts)}" for ref in references)
            raise InputError(f"references differ in segment count ({sizes})")
        return [list(seg) for seg in zip(*per_ref, strict=True)]

    def segment_f(self, hypothesis: Side, prepared: list[list[RougeText]],
                  kinds: set[str]) -> dict[str, np.ndarray]:
        """Per-segment F-scores of each kind (references pooled, scoring mode ``A``)."""
        if len(hypothesis.texts) != len(prepared):
            raise InputError(f"{hypothesis.name}: {len(hypothesis.texts)} segments, but the "
                             f"references have {len(prepared)}")
        out = {k: np.zeros(len(prepared)) for k in kinds}
        for i, (text, refs) in enumerate(zip(hypothesis.texts, prepared, strict=True)):
            hyp = self._text(text)
            sums: dict[str, list[float]] = {k: [0.0, 0.0, 0.0] for k in kinds}
            for ref in refs:
                for k, st in pair_stats(hyp, ref, kinds).items():
                    if k in sums:
                        acc = sums[k]
                        acc[0] += st[0]
                        acc[1] += st[1]
                        acc[2] += st[2]
            for k, (hit, rt, ht) in sums.items():
                out[k][i] = f_score(hit, rt, ht, k)
        return out

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        kinds = {KINDS[v] for v in variants}
        seg = self.segment_f(hypothesis, prepared, kinds)
        result = {}
        for v in variants:
            scores = mean_score_set(seg[KINDS[v]], documents)
            if self.bootstrap:
                scores = ScoreSet(bootstrap_average(seg[KINDS[v]]), scores.documents, scores.segments)
            result[v] = scores
        return result
