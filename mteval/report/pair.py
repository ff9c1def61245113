"""compare-mt's holistic comparison of two systems A and B (Neubig et al. 2019, "compare-mt: A Tool
for Holistic Comparison of Language Generation Systems", NAACL demo), from segment texts and the
segment scores the report already has:

* **word accuracy by frequency** (compare-mt's ``WordAccuracyAnalysis`` with ``FreqWordBucketer``):
  each reference word falls in the bucket of its frequency (in the references themselves, or in a
  ``freq_corpus``), each hypothesis word in the bucket of its own frequency; matches are clipped
  per segment and word (compare-mt's ``_calc_trg_matches``); per bucket recall = matches / reference
  words, precision = matches / hypothesis words, F their harmonic mean (all 0 without a match);
  default buckets 0, 1, 2, 3, 4, 5-9, 10-99, 100-999, 1000+ (cutoffs 1 2 3 4 5 10 100 1000);
* **score by reference length** (``LengthSentenceBucketer``, buckets <10, 10-19, ..., 50-59, 60+):
  compare-mt scores each bucket's sentences with its scorer; here, the mean of the chosen metric's
  segment scores over the bucket's segments (sentence BLEU's mean with a BLEU metric);
* **n-gram difference analysis** (``compare_ngrams`` + ``extract_salient_features``): per system,
  the clipped matches of every 1..4-gram over the test set; n-grams ranked by compare-mt's smoothed
  share ``(m_A + 1) / (m_A + m_B + 2)``; the top ones each system matches more often than the other;
* **sentence examples** (``generate_sentence_examples``): the segments where the two differ most on
  the chosen segment metric, each way;
* **length ratio and brevity penalty** per system, at corpus level as mteval-v13a's BLEU: ``c`` =
  hypothesis words, ``r`` = the sum of each segment's closest reference length (ties: the shorter),
  ratio ``c / r``, ``BP = exp(min(0, 1 - r / c))``.

Tokenisation: mteval-v13a's (:func:`~mteval.metrics.tokenize.tokenize_13a`, the words BLEU counts,
so the brevity penalty is BLEU's), case-sensitive as compare-mt's default; ``tokenizer="none"``
takes whitespace words, compare-mt's own reading of pre-tokenised text. Several references: word
accuracy pools them (every reference side is paired with the hypothesis and the counts are added:
one reference gives compare-mt's numbers), frequencies count every reference side, n-gram matches
are clipped by the largest count in any reference (BLEU's rule; one reference: compare-mt's), the
length buckets use the mean reference length.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mteval.errors import ConfigError, InputError, quote
from mteval.metrics.tokenize import tokenize_13a_many

FREQ_CUTOFFS = (1, 2, 3, 4, 5, 10, 100, 1000)  # compare-mt's FreqWordBucketer defaults
LENGTH_CUTOFFS = (10, 20, 30, 40, 50, 60)  # compare-mt's LengthSentenceBucketer defaults
MAX_ORDER = 4  # n-grams of 1..4 words (compare-mt's min/max_ngram_length)
SMOOTHING = 1.0  # compare-mt's alpha of extract_salient_features
TOKENIZERS = ("13a", "none")

Tokens = tuple[str, ...]
Scores = Sequence[float] | np.ndarray  # segment scores (NaN: none)


@dataclass(frozen=True)
class WordBucket:
    """One frequency bucket of one system: word counts, matches, recall, precision and F."""

    bucket: str
    ref_words: int
    hyp_words: int
    matched: int
    recall: float
    precision: float
    f_measure: float


@dataclass(frozen=True)
class WordAccuracy:
    """A system's word accuracy in every frequency bucket, lowest frequency first."""

    system: str
    buckets: tuple[WordBucket, ...]


@dataclass(frozen=True)
class LengthBucket:
    """Segments whose reference length falls in ``bucket``: how many, the two systems' mean segment
    scores (None without a segment), and the segments left out for a missing score."""

    bucket: str
    segments: int
    score_a: float | None
    score_b: float | None
    skipped: int = 0


@dataclass(frozen=True)
class NgramDiff:
    """An n-gram with each system's clipped matches over the test set and compare-mt's smoothed
    share of A, ``(m_A + 1) / (m_A + m_B + 2)`` (above 0.5: A matches it more often)."""

    ngram: str
    order: int
    matches_a: int
    matches_b: int
    salience_a: float


@dataclass(frozen=True)
class Example:
    """A segment (1-based number) where the systems differ: scores, source, references, hypotheses."""

    segment: int
    score_a: float
    score_b: float
    source: str
    references: tuple[str, ...]
    hypothesis_a: str
    hypothesis_b: str


@dataclass(frozen=True)
class LengthStats:
    """Corpus length ratio and BLEU's brevity penalty of one system (mteval-v13a's closest
    reference length; ``ratio`` None when the references are empty)."""

    system: str
    hyp_words: int
    ref_words: int
    ratio: float | None
    brevity_penalty: float


@dataclass(frozen=True)
class PairAnalysis:
    """Every compare-mt analysis of systems A and B (module docstring)."""

    name_a: str
    name_b: str
    metric: str
    higher_is_better: bool
    n_segments: int
    n_references: int
    tokenizer: str
    case_sensitive: bool
    frequency_source: str
    word_accuracy: tuple[WordAccuracy, WordAccuracy]
    length_buckets: tuple[LengthBucket, ...]
    ngrams_a: tuple[NgramDiff, ...]  # matched more often by A, most salient first
    ngrams_b: tuple[NgramDiff, ...]
    examples_a: tuple[Example, ...]  # where A beats B most on ``metric``
    examples_b: tuple[Example, ...]
    lengths: tuple[LengthStats, LengthStats]


def bucket_labels(cutoffs: Sequence[int]) -> tuple[str, ...]:
    """Labels of the integer buckets that ``cutoffs`` delimit: ``<c0`` (``0`` when c0 is 1),
    ``a-b`` or ``a``, ..., ``cN+``."""
    labels = ["0" if cutoffs[0] == 1 else f"<{cutoffs[0]}"]
    for low, high in zip(cutoffs, cutoffs[1:], strict=False):
        labels.append(str(low) if high - 1 == low else f"{low}-{high - 1}")
    return (*labels, f"{cutoffs[-1]}+")


def bucket_of(value: float, cutoffs: Sequence[float]) -> int:
    """compare-mt's ``cutoff_into_bucket``: the first bucket whose cutoff exceeds ``value``."""
    return bisect_right(cutoffs, value)


def tokenize(texts: Sequence[str], tokenizer: str = "13a", case_sensitive: bool = True) -> list[Tokens]:
    """The words of every text (module docstring), lower-cased unless ``case_sensitive``."""
    if tokenizer not in TOKENIZERS:
        raise ConfigError(f"unknown tokenizer {quote(tokenizer)}: choose one of {', '.join(TOKENIZERS)}")
    words = tokenize_13a_many(list(texts)) if tokenizer == "13a" else [tuple(t.split()) for t in texts]
    return words if case_sensitive else [tuple(w.lower() for w in t) for t in words]


def read_freq_corpus(path: str | Path) -> list[str]:
    """The lines of a frequency corpus (UTF-8, one sentence a line); InputError naming the file."""
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the frequency corpus: {exc}", path) from None


def frequencies(corpus: Sequence[Tokens]) -> Counter[str]:
    """Word counts of a tokenised corpus."""
    counts: Counter[str] = Counter()
    for words in corpus:
        counts.update(words)
    return counts


def _prf(matched: int, ref: int, hyp: int) -> tuple[float, float, float]:
    """compare-mt's recall, precision and F-measure (all 0 without a match)."""
    if matched == 0:
        return 0.0, 0.0, 0.0
    recall, precision = matched / ref, matched / hyp
    return recall, precision, 2 * precision * recall / (precision + recall)


def word_accuracy(system: str, hyps: Sequence[Tokens], refs: Sequence[Sequence[Tokens]],
                  freq: Mapping[str, int], cutoffs: Sequence[int] = FREQ_CUTOFFS) -> WordAccuracy:
    """Word F-measure by frequency bucket (compare-mt's ``FreqWordBucketer.calc_statistics``),
    every reference side paired with the hypothesis and the counts added."""
    size = len(cutoffs) + 1
    ref_n, hyp_n, matched = np.zeros(size, int), np.zeros(size, int), np.zeros(size, int)
    bucket: dict[str, int] = {}

    def of(word: str) -> int:
        if word not in bucket:
            bucket[word] = bucket_of(freq.get(word, 0), cutoffs)
        return bucket[word]
    for s, hyp in enumerate(hyps):
        hyp_counts = Counter(hyp)
        for side in refs:
            ref_counts = Counter(side[s])
            for word, c in ref_counts.items():
                ref_n[of(word)] += c
            for word, c in hyp_counts.items():
                hyp_n[of(word)] += c
                matched[of(word)] += min(c, ref_counts.get(word, 0))
    rows = [WordBucket(label, int(r), int(h), int(m), *_prf(int(m), int(r), int(h)))
            for label, r, h, m in zip(bucket_labels(cutoffs), ref_n, hyp_n, matched, strict=True)]
    return WordAccuracy(system, tuple(rows))


def length_buckets(ref_lengths: Sequence[float], scores_a: Scores, scores_b: Scores,
                   cutoffs: Sequence[int] = LENGTH_CUTOFFS) -> tuple[LengthBucket, ...]:
    """Mean segment scores of A and B by reference length bucket (compare-mt's
    ``LengthSentenceBucketer``); a segment without a score on either side (NaN) is left out of
    both means and counted as skipped."""
    if not len(ref_lengths) == len(scores_a) == len(scores_b):
        raise InputError(f"length buckets: {len(ref_lengths)} reference lengths, {len(scores_a)} and "
                         f"{len(scores_b)} segment scores")
    a, b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    which = np.array([bucket_of(float(n), cutoffs) for n in ref_lengths], dtype=int)
    scored = ~(np.isnan(a) | np.isnan(b))
    out = []
    for k, label in enumerate(bucket_labels(cutoffs)):
        here = (which == k) & scored
        count = int(here.sum())
        out.append(LengthBucket(label, count, float(a[here].mean()) if count else None,
                                float(b[here].mean()) if count else None, int(((which == k) & ~scored).sum())))
    return tuple(out)


def ngrams(words: Tokens, max_order: int = MAX_ORDER) -> Counter[Tokens]:
    """Counts of the 1..``max_order``-grams of a segment."""
    return Counter(words[i:i + n] for n in range(1, max_order + 1) for i in range(len(words) - n + 1))


def ngram_matches(hyps: Sequence[Tokens], refs: Sequence[Sequence[Tokens]],
                  max_order: int = MAX_ORDER) -> Counter[Tokens]:
    """Clipped matches of every n-gram over the test set (compare-mt's ``compare_ngrams`` ``match``;
    with several references, clipped by the largest count in any of them)."""
    out: Counter[Tokens] = Counter()
    for s, hyp in enumerate(hyps):
        best: Counter[Tokens] = Counter()
        for side in refs:
            best |= ngrams(side[s], max_order)
        out.update(ngrams(hyp, max_order) & best)
    return out


def ngram_differences(matches_a: Mapping[Tokens, int], matches_b: Mapping[Tokens, int], top: int = 20,
                      smoothing: float = SMOOTHING) -> tuple[tuple[NgramDiff, ...], tuple[NgramDiff, ...]]:
    """compare-mt's n-gram difference analysis: the ``top`` n-grams A matches more often than B, and
    those B matches more often, by the smoothed share (ties: more matches first, then the n-gram)."""
    rows = []
    for gram in set(matches_a) | set(matches_b):
        a, b = matches_a.get(gram, 0), matches_b.get(gram, 0)
        if a != b:
            rows.append(NgramDiff(" ".join(gram), len(gram), a, b, (a + smoothing) / (a + b + 2 * smoothing)))
    better_a = sorted((r for r in rows if r.matches_a > r.matches_b),
                      key=lambda r: (-r.salience_a, -r.matches_a, r.ngram))
    better_b = sorted((r for r in rows if r.matches_b > r.matches_a),
                      key=lambda r: (r.salience_a, -r.matches_b, r.ngram))
    return tuple(better_a[:top]), tuple(better_b[:top])


def length_stats(system: str, hyps: Sequence[Tokens], refs: Sequence[Sequence[Tokens]]) -> LengthStats:
    """Corpus length ratio and brevity penalty, mteval-v13a's closest reference length per segment
    (the shorter one on ties)."""
    c = sum(len(h) for h in hyps)
    r = 0
    for s, hyp in enumerate(hyps):
        r += min((len(side[s]) for side in refs), key=lambda n: (abs(n - len(hyp)), n))
    penalty = math.exp(min(0.0, 1.0 - r / c)) if c > 0 else 0.0
    return LengthStats(system, c, r, c / r if r > 0 else None, penalty)


def example_rows(scores_a: Scores, scores_b: Scores, higher_is_better: bool,
             count: int) -> tuple[list[int], list[int]]:
    """Row indices of the ``count`` segments where A beats B most (oriented score difference), and
    of those where B beats A most; segments without both scores are left out, ties in row order."""
    diff = np.asarray(scores_a, dtype=float) - np.asarray(scores_b, dtype=float)
    diff = diff if higher_is_better else -diff
    rows = np.flatnonzero(~np.isnan(diff))
    a_first = rows[np.argsort(-diff[rows], kind="stable")]
    b_first = rows[np.argsort(diff[rows], kind="stable")]
    return ([int(i) for i in a_first if diff[i] > 0][:count], [int(i) for i in b_first if diff[i] < 0][:count])


def _check(n: int, named: Mapping[str, int | None], refs: Sequence[Sequence[str]]) -> None:
    """One-line InputError when an input's segment count differs from the hypotheses of A."""
    if not refs:
        raise InputError("a pair analysis needs at least one reference side")
    for what, size in named.items():
        if size is not None and size != n:
            raise InputError(f"pair analysis: {what} has {size} segments, the hypotheses of A {n}")
    for k, side in enumerate(refs, start=1):
        if len(side) != n:
            raise InputError(f"pair analysis: reference side {k} has {len(side)} segments, the hypotheses of A {n}")


def _example(row: int, number: int, texts: tuple[Sequence[str], Sequence[str]], refs: Sequence[Sequence[str]],
             source: Sequence[str] | None, scores: tuple[Scores, Scores]) -> Example:
    """One side-by-side segment."""
    return Example(number, float(scores[0][row]), float(scores[1][row]), source[row] if source is not None else "",
                   tuple(side[row] for side in refs), texts[0][row], texts[1][row])


def pair_analysis(name_a: str, name_b: str, hyps_a: Sequence[str], hyps_b: Sequence[str],
                  refs: Sequence[Sequence[str]], source: Sequence[str] | None, seg_scores_a: Scores,
                  seg_scores_b: Scores, metric_name: str, freq_corpus: Sequence[str] | None = None,
                  top: int = 20, examples: int = 5, *, higher_is_better: bool = True, tokenizer: str = "13a",
                  case_sensitive: bool = True, segment_numbers: Sequence[int] | None = None) -> PairAnalysis:
    """compare-mt's analyses of A and B (module docstring). ``refs``: one sequence of segments per
    reference side; ``seg_scores_*``: the segment scores of ``metric_name`` (NaN: none);
    ``freq_corpus``: lines whose words give the frequencies (default: the references);
    ``segment_numbers``: the segments' numbers shown in the examples (default 1..n)."""
    n = len(hyps_a)
    _check(n, {"the hypotheses of B": len(hyps_b), "the source": None if source is None else len(source),
               "the segment scores of A": len(seg_scores_a), "the segment scores of B": len(seg_scores_b),
               "the segment numbers": None if segment_numbers is None else len(segment_numbers)}, refs)
    if top < 1 or examples < 0:
        raise ConfigError(f"pair analysis: top must be positive and examples non-negative, got {top}, {examples}")
    tok_a, tok_b = tokenize(hyps_a, tokenizer, case_sensitive), tokenize(hyps_b, tokenizer, case_sensitive)
    tok_refs = [tokenize(side, tokenizer, case_sensitive) for side in refs]
    if freq_corpus is None:
        freq = frequencies([w for side in tok_refs for w in side])
        freq_source = f"the references ({len(refs)} side{'s' if len(refs) > 1 else ''})"
    else:
        freq = frequencies(tokenize(freq_corpus, tokenizer, case_sensitive))
        freq_source = f"a frequency corpus of {len(freq_corpus)} lines"
    ref_lengths = [float(np.mean([len(side[s]) for side in tok_refs])) for s in range(n)]
    grams_a, grams_b = ngram_differences(ngram_matches(tok_a, tok_refs), ngram_matches(tok_b, tok_refs), top)
    numbers = list(segment_numbers) if segment_numbers is not None else list(range(1, n + 1))
    texts, scores = (hyps_a, hyps_b), (seg_scores_a, seg_scores_b)
    rows_a, rows_b = example_rows(seg_scores_a, seg_scores_b, higher_is_better, examples)
    return PairAnalysis(
        name_a, name_b, metric_name, higher_is_better, n, len(refs), tokenizer, case_sensitive, freq_source,
        (word_accuracy(name_a, tok_a, tok_refs, freq), word_accuracy(name_b, tok_b, tok_refs, freq)),
        length_buckets(ref_lengths, seg_scores_a, seg_scores_b), grams_a, grams_b,
        tuple(_example(i, numbers[i], texts, refs, source, scores) for i in rows_a),
        tuple(_example(i, numbers[i], texts, refs, source, scores) for i in rows_b),
        (length_stats(name_a, tok_a, tok_refs), length_stats(name_b, tok_b, tok_refs)))
