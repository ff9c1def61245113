"""WER and PER as Asiya computes them (WER.pl / PER.pl v1.0 with ``-s``, Asiya's ``computeMultiWER/PER``).

WER (Nießen et al. 2000, "An evaluation tool for machine translation", LREC): word-level Levenshtein
distance with unit costs divided by the number of reference words. PER (Tillmann et al. 1997,
"Accelerated DP based search for statistical translation", Eurospeech): position-independent error
rate, ``PER = 1 - (correct - max(0, |hyp| - |ref|)) / |ref|`` with
``correct = sum_w min(count_hyp(w), count_ref(w))``.

Conventions (``../shared/oracles/wmt21-ruen/README.md`` §5):

* tokens: the segment split on ASCII whitespace (Perl's ``\\s`` on bytes), case-sensitive;
* segment score from the segment's counts; system score from corpus totals (``sum distances /
  sum reference words``; PER from summed correct, hypothesis and reference word counts), not the
  mean of segment scores; document score: the mean of the document's segment scores (Asiya's
  ``Metrics::get_seg_doc_scores``, since the scripts report no document scores);
* Asiya's metrics are the negated similarities ``-WER`` and ``-PER`` (higher is better); ``WER``
  and ``PER`` are the positive error rates; ``1-WER`` and ``1-PER`` are the IQMT manual's
  similarities (§6.2, Tables 10-11), ``1 - WER`` = ``1 + (-WER)`` at every level (so the best
  reference, as for ``-WER``), at most 1 and negative when the hypothesis has more errors than the
  reference has words;
* multiple references: one run per reference, then the **maximum over references, separately for
  the system score and for each segment** (so ``-WER`` takes the best reference and Asiya's positive
  ``WER`` the *worst*); a document is the mean of its (maximised) segment scores;
* an empty reference segment (undefined in WER.pl) scores 1 when the hypothesis is non-empty and 0
  otherwise (the TER convention).

Tokens are cached per unique string, edit distances per (hypothesis, reference) pair.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MEAN, STATS, MetricInfo, ScoreSet, Side, StatsFamily
from mteval.metrics.registry import register

_WS = re.compile(r"[ \t\n\r\f\v]+")
_ASCII_WS = " \t\n\r\f\v"
# what str.split() also splits on (str.isspace), beyond _ASCII_WS
_PYTHON_ONLY_WS = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
Words = tuple[int, ...]


def tokenize(text: str) -> list[str]:
    """WER.pl/PER.pl tokens: leading/trailing whitespace stripped, split on ASCII whitespace."""
    if _PYTHON_ONLY_WS.search(text) is None:
        return text.split()  # the same words: no other whitespace in the text
    stripped = text.strip(_ASCII_WS)
    return _WS.split(stripped) if stripped else []


def matched_words(hyp: Sequence[Words], ref: Sequence[Words]) -> np.ndarray:
    """PER's ``correct`` of each segment pair, ``sum_w min(count_hyp(w), count_ref(w))``, at once: the
    codes ``(pair, word, side)`` sorted, a run of equal ``(pair, word)`` counts both sides."""
    n = len(hyp)
    pairs, ids, sides = [], [], []
    for side, words in ((1, hyp), (0, ref)):
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=n)
        pairs.append(np.repeat(np.arange(n, dtype=np.int64), lengths))
        ids.append(np.fromiter(chain.from_iterable(words), dtype=np.int64, count=int(lengths.sum())))
        sides.append(np.full(len(ids[-1]), side, dtype=np.int64))
    word = np.concatenate(ids)
    size = int(word.max()) + 1 if len(word) else 1
    code = np.sort((np.concatenate(pairs) * size + word) * 2 + np.concatenate(sides))
    if not len(code):
        return np.zeros(n, dtype=np.int64)
    keys = code >> 1
    bounds = np.r_[0, np.flatnonzero(keys[1:] != keys[:-1]) + 1, len(keys)]
    in_hyp = np.diff(np.r_[0, np.cumsum(code & 1)][bounds])
    matched = np.minimum(in_hyp, np.diff(bounds) - in_hyp)
    return np.bincount(keys[bounds[:-1]] // size, weights=matched, minlength=n).astype(np.int64)


def rates(errors: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """``errors / ref_len``, with 1 (errors > 0) or 0 where the reference is empty."""
    errors = np.asarray(errors, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ref_len > 0, errors / np.where(ref_len > 0, ref_len, 1),
                        np.where(errors > 0, 1.0, 0.0))


def per_errors(correct: np.ndarray, hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """PER numerator ``|ref| - (correct - max(0, |hyp| - |ref|))`` (Tillmann et al. 1997)."""
    return ref_len - (correct - np.maximum(0, hyp_len - ref_len))


class _Texts:
    """Word ids and bags of words per unique string, computed once."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.words: dict[str, Words] = {}

    def __call__(self, text: str) -> Words:
        """Word ids of one segment."""
        return self.many([text])[0]

    def many(self, texts: Sequence[str]) -> list[Words]:
        """Word ids of each segment (the new ones' words numbered in order of first occurrence)."""
        known, ids = self.words, self.ids
        new = [text for text in dict.fromkeys(texts) if text not in known]
        tokens = [tokenize(text) for text in new]
        for word in dict.fromkeys(chain.from_iterable(tokens)):
            if word not in ids:
                ids[word] = len(ids)
        known.update(zip(new, (tuple(map(ids.__getitem__, words)) for words in tokens), strict=True))
        return [known[text] for text in texts]


@register
class ErrorRates(StatsFamily):
    """WER and PER with Asiya's conventions: ``-WER``, ``-PER`` (Asiya's metrics), ``WER``, ``PER``, and
    IQMT's ``1-WER``, ``1-PER``."""

    family = "WER-PER"
    variants = ("-WER", "-PER", "WER", "PER", "1-WER", "1-PER")

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._texts = _Texts()
        self._distance: dict[tuple[Words, Words], int] = {}

    def info(self, variant: str) -> MetricInfo:
        """``WER``/``PER`` are error rates >= 0, unbounded above (a long hypothesis makes both exceed 1);
        ``-WER``/``-PER`` are similarities <= 0."""
        if variant.startswith("-"):
            return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=None,
                              upper_bound=0.0, description=f"negated {variant[1:]} (Asiya)")
        if variant.startswith("1-"):
            return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=None,
                              upper_bound=1.0, description=f"1 - {variant[2:]} (IQMT manual)")
        return MetricInfo(variant, self.family, higher_is_better=False, lower_bound=0.0,
                          upper_bound=None, description=f"{variant} error rate")

    def _words(self, texts: Sequence[str]) -> list[Words]:
        """Word ids of each segment (lower-cased first unless case-sensitive)."""
        return self._texts.many(texts if self.case_sensitive else [t.lower() for t in texts])

    def prepare(self, references: Sequence[Side]) -> list[list[Words]]:
        """Word ids of every reference segment."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return [self._words(r.texts) for r in references]

    def counts(self, hyp: list[Words], ref: list[Words], per: bool = True) -> np.ndarray:
        """Per segment ``[edit distance, correct, |hyp|, |ref|]`` against one reference
        (``correct`` left 0 unless ``per``); distances cached per (hypothesis, reference) pair."""
        if len(hyp) != len(ref):
            raise InputError(f"{len(hyp)} hypothesis segments but {len(ref)} reference segments")
        distances = []
        dist_cache = self._distance
        for key in zip(hyp, ref, strict=True):
            d = dist_cache.get(key)
            if d is None:
                d = dist_cache[key] = Levenshtein.distance(*key)
            distances.append(d)
        out = np.zeros((len(hyp), 4), dtype=np.int64)
        out[:, 0] = distances
        if per:
            out[:, 1] = matched_words(hyp, ref)
        out[:, 2] = [len(h) for h in hyp]
        out[:, 3] = [len(r) for r in ref]
        return out

    def segment_stats(self, hypothesis: Side, prepared: list[list[Words]]) -> np.ndarray:
        """Per segment ``[edit distance, correct, |hyp|, |ref|]`` against each reference, side by
        side (4 columns per reference, in the given order)."""
        hyp = self._words(hypothesis.texts)
        for ref in prepared:
            if len(ref) != len(hyp):
                raise InputError(f"{hypothesis.name}: {len(hyp)} segments but a reference has {len(ref)}")
        return np.hstack([self.counts(hyp, ref) for ref in prepared]).astype(np.float64)

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """Each row's rate per reference (WER.pl, PER.pl), then Asiya's maximum over references of
        the signed rate; a summed row gives the system score (corpus totals per reference)."""
        counts = np.atleast_2d(stats)
        counts = counts.reshape(len(counts), -1, 4)  # (rows, references, 4)
        dist, correct, hyp_len, ref_len = (counts[..., k] for k in range(4))
        offset, base = (1.0, variant[1:]) if variant.startswith("1-") else (0.0, variant)
        base, sign = (base[1:], -1.0) if base.startswith("-") else (base, 1.0)
        errors = dist if base == "WER" else per_errors(correct, hyp_len, ref_len)
        return offset + np.max(sign * rates(errors, ref_len), axis=1)

    def aggregation(self, level: str) -> str:
        """System: from corpus totals (per reference, then the maximum); documents: Asiya's mean
        of segment scores."""
        return STATS if level == "sys" else MEAN

    def score(self, hypothesis: Side, prepared: list[list[Words]], documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Segments and system from the statistics; a document is the mean of its segments."""
        stats = self.segment_stats(hypothesis, prepared)
        total = stats.sum(axis=0)
        result = {}
        for variant in variants:
            segments = self.scores_from_stats(stats, variant)
            docs = {d: float(segments[documents.rows(d)].mean()) for d in documents.documents}
            result[variant] = ScoreSet(system=self.score_from_stats(total, variant), documents=docs,
                                       segments=segments, stats=stats)
        return result
