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

Outside English (the experiment's ``language:``, issue 36): tokens are the runs of letters and
digits of any script, fully lower-cased, and ``-m`` stems those longer than 3 characters with the
language's Snowball stemmer (Czech: the light stemmer of Dolamic & Savoy 2009, ``stemmer:czech-light``
in the signature), as multilingual ROUGE implementations do (e.g. the XL-Sum authors'); the
signature names the language. Not ROUGE-1.5.5's numbers, which for such text
are about the ASCII letters left.

Computation: tokens become ids (:class:`TokenIds`: one dict lookup per token once seen); the
ROUGE-N hits of all pairs are counted at once (:mod:`mteval.metrics.clipped_ngrams`) and R, P, F
rounded with numpy where the rounding is not a tie (:func:`round5_array`), which gives the numbers
of the per-pair definition (:func:`pair_stats`, :func:`f_score`) exactly; W, S and SU go pair by pair.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.aliases import DUPLICATES
from mteval.metrics.base import BOOTSTRAP, MEAN, MetricFamily, MetricInfo, ScoreSet, Side, mean_score_set
from mteval.metrics.clipped_ngrams import clipped_ngram_hits
from mteval.metrics.registry import register
from mteval.metrics.rouge_bootstrap import bootstrap_average, bootstrap_averages
from mteval.metrics.stemmers import base_language, language_stemmer, porter_rouge, stemmer_option

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
Ids = tuple[int, ...]  # a segment's token ids (:class:`TokenIds`)


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


def raw_tokens(text: str) -> list[bytes]:
    """ROUGE-1.5.5's candidate tokens of one segment (``readText``), before :func:`final_token`:
    the first line, ASCII lower-cased, ``-`` padded, every byte outside ``[A-Za-z0-9-]`` a separator."""
    line = text.strip()
    if line in ("", "?", "!", "."):
        line = EMPTY_ITEM
    data = line.encode("utf-8").split(b"\n")[0].lower()  # tr/A-Z/a-z/ only touches ASCII
    return _NON_TOKEN.sub(b" ", data.replace(b"-", b" - ")).split()


def final_token(raw: bytes, stem: bool = True) -> str | None:
    """A candidate token as ROUGE keeps it (``createNGram``; ``-m`` stemming), None if dropped."""
    tok = raw.decode("ascii")
    if not ("a" <= tok[0] <= "z" or "0" <= tok[0] <= "9"):
        return None
    if stem and len(tok) > 3:
        tok = exception_lemmas().get(tok) or porter_rouge(tok)
    return tok


@lru_cache(maxsize=1 << 15)
def rouge_tokens(text: str, stem: bool = True) -> tuple[str, ...]:
    """ROUGE-1.5.5's tokens of one segment (``readText`` + ``createNGram``; ``-m`` stemming)."""
    found = (final_token(raw, stem) for raw in raw_tokens(text))
    return tuple(tok for tok in found if tok is not None)


_WORD_RUN = re.compile(r"[^\W_]+")  # a run of letters or digits of any script (outside English)


def unicode_raw_tokens(text: str) -> list[str]:
    """ROUGE's candidate tokens outside English (issue 36): as :func:`raw_tokens`, but lower-cased
    in full and split at everything but letters and digits of any script (ROUGE-1.5.5 keeps only
    ``a-z0-9``, which drops Cyrillic words whole and splits ``différent``)."""
    line = text.strip()
    if line in ("", "?", "!", "."):
        line = EMPTY_ITEM
    return _WORD_RUN.findall(line.split("\n")[0].lower())


class TokenIds(dict):  # type: ignore[type-arg]  # dict[bytes, int]
    """Candidate token -> id of its final token (-1: dropped), filled on first sight; ``ids(text)``
    is :func:`rouge_tokens` as ids (one dict lookup a token once seen)."""

    def __init__(self, stem: bool) -> None:
        super().__init__()
        self.stem = stem
        self.vocabulary: dict[str, int] = {}
        self.names: list[str] = []  # id -> token

    def final(self, raw: bytes) -> str | None:
        """The token ROUGE keeps of a candidate (:func:`final_token`)."""
        return final_token(raw, self.stem)

    def __missing__(self, raw: bytes) -> int:
        tok = self.final(raw)
        found = -1 if tok is None else self.vocabulary.setdefault(tok, len(self.vocabulary))
        if found == len(self.names):
            self.names.append(tok)  # type: ignore[arg-type]  # tok is a new token here
        self[raw] = found
        return found

    def ids(self, text: str) -> tuple[int, ...]:
        """The ids of :func:`rouge_tokens` of a segment."""
        return tuple([i for i in map(self.__getitem__, raw_tokens(text)) if i >= 0])

    def tokens(self, ids: Sequence[int]) -> tuple[str, ...]:
        """The tokens of ids (the inverse of :meth:`ids`)."""
        return tuple(self.names[i] for i in ids)


class LanguageTokenIds(TokenIds):
    """:class:`TokenIds` outside English: :func:`unicode_raw_tokens`, and ``-m`` stemming with the
    language's stemmer (:func:`stemmers.language_stemmer`: Snowball's, or Czech's light one; tokens
    longer than 3 characters, as ROUGE's rule; none without a stemmer) instead of WordNet
    exceptions and Porter."""

    def __init__(self, stem: bool, language: str) -> None:
        super().__init__(stem)
        self.stemmer = language_stemmer(language) if stem else None

    def final(self, raw: Any) -> str | None:
        return self.stemmer(raw) if self.stemmer is not None and len(raw) > 3 else raw

    def ids(self, text: str) -> tuple[int, ...]:
        return tuple([i for i in map(self.__getitem__, unicode_raw_tokens(text)) if i >= 0])


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


@lru_cache(maxsize=1 << 12)
def rouge_text(tokens: tuple[str, ...]) -> RougeText:
    """N-gram counts of a token sequence (cached per unique sequence)."""
    ngrams = tuple(Counter(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
                   for n in range(1, 5))
    return RougeText(tokens, ngrams)


@lru_cache(maxsize=1 << 12)
def skip_bigrams(tokens: tuple[str, ...]) -> Counter:
    """Counts of all ordered token pairs (i < j) of a sequence (cached per unique sequence)."""
    return Counter(f"{a} {b}" for i, a in enumerate(tokens) for b in tokens[i + 1:])


SKIP_BLOCK = 256  # first-token types per block of :func:`skip_hits_blocked`
WLCS_SMALL = 250_000  # table cells up to which :func:`wlcs_hit` runs cell by cell in Python (~2 MB)


def pair_count(n: int) -> int:
    """Number of skip bigrams (ordered pairs i < j) of ``n`` tokens: ``sum(skip_bigrams(t).values())``."""
    return n * (n - 1) // 2


def skip_hits(model: Sequence[Hashable], peer: Sequence[Hashable]) -> int:
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


def skip_hits_blocked(model: Sequence[Hashable], peer: Sequence[Hashable], block: int = SKIP_BLOCK) -> int:
    """Clipped skip-bigram hits by blocks of first-token types over the types both sides share
    (a pair with any other token cannot match); per block two ``(types x block)`` count tables."""
    in_peer = set(peer)
    shared = list(dict.fromkeys(t for t in model if t in in_peer))  # in the model's order
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


def lcs_length(model: Sequence[Hashable], peer: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence (bit-parallel, Hyyrö 2004)."""
    if not model or not peer:
        return 0
    masks: dict[Hashable, int] = {}
    for j, tok in enumerate(peer):
        masks[tok] = masks.get(tok, 0) | (1 << j)
    full = (1 << len(peer)) - 1
    v = full
    for tok in model:
        u = v & masks.get(tok, 0)
        v = ((v + u) | (v - u)) & full
    return len(peer) - bin(v).count("1")


def wlcs_hit(model: Sequence[Hashable], peer: Sequence[Hashable], weight: float = WEIGHT) -> float:
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
    if m * n <= WLCS_SMALL:
        return _run_hit(_wlcs_marks_small(model, peer, weight), weight)
    ids: dict[Hashable, int] = {}
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
    return _run_hit(_wlcs_marks(diagonal, up, m, n), weight)


def _run_hit(marked: list[bool], weight: float) -> float:
    """The WLCS hit: f(run length) summed over the runs of consecutive marked positions."""
    hit_sum, length = 0.0, 0
    for flag in marked + [False]:
        if flag:
            length += 1
        elif length:
            hit_sum += length ** weight
            length = 0
    return hit_sum


def _wlcs_marks_small(model: Sequence[Hashable], peer: Sequence[Hashable], weight: float) -> list[bool]:
    """The marked model positions of :func:`wlcs_hit` by the script's own cell-by-cell table (faster
    than the numpy rows below :data:`WLCS_SMALL` cells; the same moves: up on ties)."""
    m, n = len(model), len(peer)
    c, run = [0.0] * (n + 1), [0] * (n + 1)
    back = [[0] * (n + 1) for _ in range(m + 1)]  # 1 diagonal, 2 up, 3 left
    for i in range(1, m + 1):
        up, up_run, row, row_run, moves, tok = c, run, [0.0] * (n + 1), [0] * (n + 1), back[i], model[i - 1]
        for j in range(1, n + 1):
            if tok == peer[j - 1]:
                k = up_run[j - 1]
                row[j], row_run[j], moves[j] = up[j - 1] + (k + 1) ** weight - k ** weight, k + 1, 1
            elif up[j] >= row[j - 1]:
                row[j], moves[j] = up[j], 2
            else:
                row[j], moves[j] = row[j - 1], 3
        c, run = row, row_run
    marked, i, j = [False] * m, m, n
    while i and j:
        if back[i][j] == 1:
            i, j = i - 1, j - 1
            marked[i] = True
        elif back[i][j] == 2:
            i -= 1
        else:
            j -= 1
    return marked


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
    start: np.ndarray = np.zeros(n1)
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


def ngram_counts(tokens: Sequence[Hashable], n: int) -> Counter:
    """Counts of the n-grams of a token sequence (as tuples)."""
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def pair_stats(hyp: Sequence[Hashable], ref: Sequence[Hashable],
               kinds: set[str]) -> dict[str, tuple[float, float, float]]:
    """(hit, reference total, hypothesis total) of one hypothesis/reference pair of token sequences
    (strings or ids) per ROUGE kind: the definition; :meth:`RougeFamily.segment_f` computes N for
    all pairs at once (:func:`mteval.metrics.clipped_ngrams.clipped_ngram_hits`)."""
    out: dict[str, tuple[float, float, float]] = {}
    for n in range(1, 5):
        if f"N{n}" in kinds:
            hg, rg = ngram_counts(hyp, n), ngram_counts(ref, n)
            out[f"N{n}"] = (clipped_hits(rg, hg), sum(rg.values()), sum(hg.values()))
    if "L" in kinds:
        out["L"] = (lcs_length(ref, hyp), len(ref), len(hyp))
    if "W" in kinds:
        out["W"] = (wlcs_hit(ref, hyp), (len(ref) ** WEIGHT) ** WEIGHT, len(hyp) ** WEIGHT)
    if "S" in kinds or "SU" in kinds:
        s = (skip_hits(ref, hyp), pair_count(len(ref)), pair_count(len(hyp)))
        out["S"] = s
        if "SU" in kinds:
            u_ref, u_hyp = Counter(ref[:-1]), Counter(hyp[:-1])  # every token but the last
            out["SU"] = (s[0] + clipped_hits(u_ref, u_hyp), s[1] + sum(u_ref.values()),
                         s[2] + sum(u_hyp.values()))
    return out


def round5(x: float) -> float:
    """Perl's ``sprintf("%7.5f", x)`` read back as a number."""
    return float(f"{x:.5f}")


def round5_array(x: np.ndarray) -> np.ndarray:
    """:func:`round5` of every value: ``rint(x * 1e5) / 1e5`` (the double nearest the decimal, as
    reading the printed number gives) where ``x * 1e5`` is not within 1e-6 of a tie (its rounding
    error is below 1e-10 for x <= 1, so the nearest integer is the exact one), else :func:`round5`."""
    scaled = np.asarray(x, dtype=np.float64) * 1e5
    out = np.rint(scaled) / 1e5
    near = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    if near.any():
        out[near] = [round5(v) for v in np.asarray(x, dtype=np.float64)[near]]
    return out


def f_score(hit: float, ref_total: float, hyp_total: float, kind: str) -> float:
    """ROUGE-1.5.5's per-segment F: R and P rounded to 5 decimals, F from them, rounded."""
    power = 1.0 / WEIGHT if kind == "W" else 1.0
    r = round5((hit / ref_total) ** power) if ref_total else 0.0
    p = round5((hit / hyp_total) ** power) if hyp_total else 0.0
    den = (1 - ALPHA) * p + ALPHA * r
    return round5(p * r / den) if den > 0 else 0.0


def f_scores(hit: np.ndarray, ref_total: np.ndarray, hyp_total: np.ndarray) -> np.ndarray:
    """:func:`f_score` of every segment of a kind other than W (whose power is 1: ``x ** 1.0 == x``)."""
    def rate(total: np.ndarray) -> np.ndarray:
        return np.where(total != 0, round5_array(hit / np.where(total != 0, total, 1.0)), 0.0)

    r, p = rate(ref_total), rate(hyp_total)
    den = (1 - ALPHA) * p + ALPHA * r
    return np.where(den > 0, round5_array(p * r / np.where(den > 0, den, 1.0)), 0.0)


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

    by_language = True

    def segment_words(self, text: str) -> int:
        """ROUGE's tokens of a segment (:func:`rouge_tokens` keeps one per run of ASCII letters and
        digits; ``a.b.c`` is one word but three tokens; outside English one per run of letters and
        digits of any script), counted without tokenising it."""
        runs = _TOKEN_RUN if type(self._ids) is TokenIds else _WORD_RUN
        return sum(1 for _ in runs.finditer(text))

    def __init__(self, case_sensitive: bool = True, stem: bool = True, bootstrap: bool = True,
                 language: str = "en", **options: Any) -> None:
        language = base_language(language)
        if language != "en":  # in the signature outside English only: English files stay valid
            options.update(language=language, **(stemmer_option(language) if stem else {}))
        super().__init__(case_sensitive, stem=stem, bootstrap=bootstrap, **options)
        self.stem = stem
        self.bootstrap = bootstrap
        self._ids = TokenIds(stem) if language == "en" else LanguageTokenIds(stem, language)

    def info(self, variant: str) -> MetricInfo:
        """Similarity in [0, 1]; ROUGE lower-cases, so it ignores ``case_sensitive``."""
        return MetricInfo(variant, self.family, description="ROUGE-1.5.5 F-score (Asiya flags)")

    def aggregation(self, level: str) -> str:
        """System: ROUGE-1.5.5's bootstrap ``Average_F`` of segment scores (a function of the
        scores, not of summed statistics); documents: Asiya's mean of segment scores."""
        return BOOTSTRAP if level == "sys" and self.bootstrap else MEAN

    def subset_score(self, scores: ScoreSet, rows: np.ndarray, variant: str, level: str,
                     documents: DocumentIndex | None = None) -> float:
        """What ROUGE-1.5.5 reports for those segments alone (numbered 1..n in their order)."""
        if self.aggregation(level) == BOOTSTRAP:
            return bootstrap_average(scores.segments[rows])
        return super().subset_score(scores, rows, variant, level, documents)

    def prepare(self, references: Sequence[Side]) -> list[list[Ids]]:
        """Per reference, the token ids of each segment."""
        per_ref = [[self._ids.ids(t) for t in ref.texts] for ref in references]
        if len({len(r) for r in per_ref}) > 1:
            sizes = ", ".join(f"{ref.name}: {len(ref.texts)}" for ref in references)
            raise InputError(f"references differ in segment count ({sizes})")
        return per_ref

    def segment_f(self, hypothesis: Side, prepared: list[list[Ids]], kinds: set[str]) -> dict[str, np.ndarray]:
        """Per-segment F-scores of each kind (references pooled, scoring mode ``A``): hits and totals
        summed over the references in their order, then :func:`f_score` (:func:`f_scores`)."""
        n = len(prepared[0]) if prepared else 0
        if len(hypothesis.texts) != n:
            raise InputError(f"{hypothesis.name}: {len(hypothesis.texts)} segments, but the "
                             f"references have {n}")
        hyp = [self._ids.ids(t) for t in hypothesis.texts]
        sums = {k: np.zeros((3, n)) for k in kinds}
        for ref in prepared:
            self._add_vector_kinds(sums, hyp, ref)
            scalar = kinds & {"W", "S", "SU"}
            for i, (h, r) in enumerate(zip(hyp, ref, strict=True)) if scalar else ():
                for k, st in pair_stats(h, r, scalar).items():
                    if k in sums:
                        for row in range(3):
                            sums[k][row, i] += st[row]
        return {k: (np.array([f_score(c[0], c[1], c[2], k) for c in acc.T]) if k == "W" else f_scores(*acc))
                for k, acc in sums.items()}

    @staticmethod
    def _add_vector_kinds(sums: dict[str, np.ndarray], hyp: list[Ids], ref: list[Ids]) -> None:
        """Add one reference's (hit, reference total, hypothesis total) of ROUGE-N and -L."""
        h_len = np.fromiter(map(len, hyp), dtype=np.float64, count=len(hyp))
        r_len = np.fromiter(map(len, ref), dtype=np.float64, count=len(ref))
        orders = sorted(int(k[1]) for k in sums if k.startswith("N"))
        hits = clipped_ngram_hits(hyp, ref, orders) if orders else np.zeros((len(hyp), 0), dtype=np.int64)
        for column, order in enumerate(orders):
            sums[f"N{order}"] += [hits[:, column], np.maximum(r_len - order + 1, 0), np.maximum(h_len - order + 1, 0)]
        if "L" in sums:
            lcs = np.fromiter(map(lcs_length, ref, hyp), dtype=np.float64, count=len(hyp))
            sums["L"] += [lcs, r_len, h_len]

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        kinds = {KINDS[v] for v in variants}
        seg = self.segment_f(hypothesis, prepared, kinds)
        result = {v: mean_score_set(seg[KINDS[v]], documents) for v in variants}
        if self.bootstrap:  # every variant's system score from the same draws
            averages = bootstrap_averages([seg[KINDS[v]] for v in variants])
            for v, average in zip(variants, averages, strict=True):
                result[v] = ScoreSet(average, result[v].documents, result[v].segments)
        return result
