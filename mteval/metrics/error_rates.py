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

jiwer's ``wer`` (``jiwer.wer(references, hypotheses)``: the same edit distance over the same pooled
reference length) differs in two places, each offered as a parameter of ``WER``
(:mod:`mteval.metrics.parameters`): ``WER(tok=jiwer)`` splits words as jiwer's ``wer_default`` does
(a run of two or more whitespace characters, any Unicode ones, is a separator, a single one only
when it is a space; WER.pl splits on every ASCII whitespace character) and ``WER(empty=jiwer)``
scores an empty reference as jiwer does, with the hypothesis' word count (jiwer's
``num_insertions``; at system level when every reference segment is empty). Defaults: ``asiya``
and ``one`` (the names above keep their numbers). ``WER(tok=jiwer,empty=jiwer)`` is jiwer's
``wer`` of one reference, segment by segment and for the system; documents stay Asiya's segment
means, several references Asiya's maximum.

Word ids are cached per unique string; edit distances are rapidfuzz's (computed again rather than cached:
cheaper than hashing the pair).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from itertools import chain
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.alignment import jiwer_words
from mteval.metrics.base import MEAN, STATS, MetricInfo, ScoreSet, Side, StatsFamily
from mteval.metrics.parameters import Parameter
from mteval.metrics.registry import register

_WS = re.compile(r"[ \t\n\r\f\v]+")
_ASCII_WS = " \t\n\r\f\v"
# what str.split() also splits on (str.isspace), beyond _ASCII_WS
_PYTHON_ONLY_WS = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
Words = tuple[int, ...]
CACHE_TEXTS = 1 << 16  # strings whose word ids are kept (then forgotten; prepared references keep theirs)
ASIYA, JIWER = "asiya", "jiwer"
PARAMETERS = {
    "tok": Parameter("tok", ASIYA, choices=(ASIYA, JIWER),
                     help="asiya: WER.pl's words (split on ASCII whitespace); jiwer: jiwer's wer_default"),
    "empty": Parameter("empty", "one", choices=("one", JIWER),
                       help="one: an empty reference scores 1 (0 with an empty hypothesis); "
                            "jiwer: the hypothesis' word count"),
}


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


def rates(errors: np.ndarray, ref_len: np.ndarray, empty: str = "one") -> np.ndarray:
    """``errors / ref_len``; where the reference is empty 1 (errors > 0) or 0, or with
    ``empty="jiwer"`` the errors themselves (the hypothesis' words: jiwer's ``num_insertions``)."""
    errors = np.asarray(errors, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    when_empty = errors if empty == JIWER else np.where(errors > 0, 1.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ref_len > 0, errors / np.where(ref_len > 0, ref_len, 1), when_empty)


def per_errors(correct: np.ndarray, hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """PER numerator ``|ref| - (correct - max(0, |hyp| - |ref|))`` (Tillmann et al. 1997)."""
    return ref_len - (correct - np.maximum(0, hyp_len - ref_len))


def byte_words(text: str) -> list[bytes]:
    """:func:`tokenize`'s words as UTF-8 bytes, in one call: ``bytes.split()`` splits on exactly the
    ASCII whitespace bytes, and no byte of a multi-byte UTF-8 character is ASCII (WER.pl's split)."""
    return text.encode("utf-8", "surrogatepass").split()


class _Texts:
    """Word ids per unique string, computed once (``split``: the tokenizer, any hashable words)."""

    def __init__(self, split: Callable[[str], Sequence[Hashable]] = byte_words) -> None:
        self.split = split
        self.ids: defaultdict[Hashable, int] = defaultdict(int)
        self.ids.default_factory = self.ids.__len__  # a new word: the next id
        self.words: dict[str, Words] = {}

    def __call__(self, text: str) -> Words:
        """Word ids of one segment."""
        return self.many([text])[0]

    def many(self, texts: Sequence[str]) -> list[Words]:
        """Word ids of each segment (words numbered in order of first occurrence)."""
        known, number, split = self.words, self.ids.__getitem__, self.split
        if len(known) > CACHE_TEXTS:
            known.clear()
        for text in texts:
            if text not in known:
                known[text] = tuple(map(number, split(text)))
        return [known[text] for text in texts]


class References(list):  # type: ignore[type-arg]  # list[list[Words]]
    """Prepared references: WER.pl's word ids of each reference (the list itself), the texts, and
    their word ids by another tokenizer once made (``other``)."""

    def __init__(self, words: list[list[Words]], texts: list[Sequence[str]]) -> None:
        super().__init__(words)
        self.texts = texts
        self.other: dict[str, list[list[Words]]] = {}


@register
class ErrorRates(StatsFamily):
    """WER and PER with Asiya's conventions: ``-WER``, ``-PER`` (Asiya's metrics), ``WER``, ``PER``, and
    IQMT's ``1-WER``, ``1-PER``."""

    family = "WER-PER"
    variants = ("-WER", "-PER", "WER", "PER", "1-WER", "1-PER")
    parameters = PARAMETERS
    parametric = ("WER",)

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._texts = {ASIYA: _Texts(), JIWER: _Texts(jiwer_words)}

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

    def _words(self, texts: Sequence[str], tok: str = ASIYA) -> list[Words]:
        """Word ids of each segment (lower-cased first unless case-sensitive) by tokenizer ``tok``."""
        return self._texts[tok].many(texts if self.case_sensitive else [t.lower() for t in texts])

    def prepare(self, references: Sequence[Side]) -> References:
        """Word ids of every reference segment (WER.pl's words; jiwer's made when asked for)."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return References([self._words(r.texts) for r in references], [r.texts for r in references])

    def _references(self, prepared: list[list[Words]], tok: str) -> list[list[Words]]:
        """The prepared references' word ids by tokenizer ``tok`` (made once per reference set)."""
        if tok == ASIYA:
            return prepared
        if not isinstance(prepared, References):
            raise TypeError("WER-PER: references made by prepare() are needed for another tokenizer")
        if tok not in prepared.other:
            prepared.other[tok] = [self._words(texts, tok) for texts in prepared.texts]
        return prepared.other[tok]

    def counts(self, hyp: list[Words], ref: list[Words], per: bool = True) -> np.ndarray:
        """Per segment ``[edit distance, correct, |hyp|, |ref|]`` against one reference
        (``correct`` left 0 unless ``per``); rapidfuzz's distance is cheaper than a cache lookup of
        the pair, so nothing is kept."""
        if len(hyp) != len(ref):
            raise InputError(f"{len(hyp)} hypothesis segments but {len(ref)} reference segments")
        out = np.zeros((len(hyp), 4), dtype=np.int64)
        out[:, 0] = list(map(Levenshtein.distance, hyp, ref))
        if per:
            out[:, 1] = matched_words(hyp, ref)
        out[:, 2] = [len(h) for h in hyp]
        out[:, 3] = [len(r) for r in ref]
        return out

    def segment_stats(self, hypothesis: Side, prepared: list[list[Words]], tok: str = ASIYA) -> np.ndarray:
        """Per segment ``[edit distance, correct, |hyp|, |ref|]`` against each reference, side by
        side (4 columns per reference, in the given order); by tokenizer ``tok`` (jiwer's: only
        the distance and lengths, ``correct`` 0: no PER is computed so)."""
        hyp = self._words(hypothesis.texts, tok)
        references = self._references(prepared, tok)
        for ref in references:
            if len(ref) != len(hyp):
                raise InputError(f"{hypothesis.name}: {len(hyp)} segments but a reference has {len(ref)}")
        return np.hstack([self.counts(hyp, ref, per=tok == ASIYA) for ref in references]).astype(np.float64)

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """Each row's rate per reference (WER.pl, PER.pl), then Asiya's maximum over references of
        the signed rate; a summed row gives the system score (corpus totals per reference)."""
        counts = np.atleast_2d(stats)
        counts = counts.reshape(len(counts), -1, 4)  # (rows, references, 4)
        dist, correct, hyp_len, ref_len = (counts[..., k] for k in range(4))
        plain, values = self.settings(variant)
        offset, base = (1.0, plain[1:]) if plain.startswith("1-") else (0.0, plain)
        base, sign = (base[1:], -1.0) if base.startswith("-") else (base, 1.0)
        errors = dist if base == "WER" else per_errors(correct, hyp_len, ref_len)
        return offset + np.max(sign * rates(errors, ref_len, values.get("empty", "one")), axis=1)

    def aggregation(self, level: str) -> str:
        """System: from corpus totals (per reference, then the maximum); documents: Asiya's mean
        of segment scores."""
        return STATS if level == "sys" else MEAN

    def score(self, hypothesis: Side, prepared: list[list[Words]], documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Segments and system from the statistics (one matrix per tokenizer the variants use); a
        document is the mean of its segments."""
        matrices: dict[str, np.ndarray] = {}
        result = {}
        for variant in variants:
            tok = self.settings(variant)[1].get("tok", ASIYA)
            if tok not in matrices:
                matrices[tok] = self.segment_stats(hypothesis, prepared, tok)
            stats = matrices[tok]
            total = stats.sum(axis=0)
            segments = self.scores_from_stats(stats, variant)
            docs = {d: float(segments[documents.rows(d)].mean()) for d in documents.documents}
            result[variant] = ScoreSet(system=self.score_from_stats(total, variant), documents=docs,
                                       segments=segments, stats=stats)
        return result
