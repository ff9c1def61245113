"""jiwer 4.0's MER, WIL, WIP (Morris et al. 2004) and CER, computed exactly as jiwer computes them.

Two families, one per unit of alignment (they share no work): ``MER-WIL-WIP`` aligns jiwer's words
(``wer_default``), ``CER`` its characters (``cer_default``); :mod:`mteval.metrics.alignment` gives
the tokens, rapidfuzz's alignment and the formulas (jiwer's ``process_words`` and
``process_characters``).

* statistics: per segment and reference the alignment's (hits, substitutions, deletions,
  insertions), 4 columns per reference; a segment, a document and the system are scored from their
  summed rows, so the system score is jiwer's ``mer(refs, hyps)`` of the lists (counts pooled over
  every sentence), a document's is jiwer's of the document's lines and a segment's jiwer's of the
  pair;
* several references (jiwer takes one): at every level the measure against each reference alone,
  the best of them (lowest MER, WIL, CER; highest WIP) -- the rule of Asiya's ``-WER``, separately
  for each segment, document and the system;
* an empty reference follows jiwer: CER = the hypothesis' character count (jiwer's
  ``num_insertions``), MER = 1 and WIP = 0 unless both sides are empty (MER 0, WIP 1);
* case-sensitive, as jiwer's default transforms; ``case_sensitive=False`` lower-cases first
  (jiwer's ``ToLowerCase``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

import numpy as np

from mteval.errors import InputError
from mteval.metrics.alignment import edit_counts, jiwer_chars, jiwer_words
from mteval.metrics.base import MetricInfo, Side, StatsFamily
from mteval.metrics.registry import register

Tokens = Sequence[Hashable]
CACHE_PAIRS = 1 << 16  # aligned (reference, hypothesis) pairs kept per family (then emptied)
CACHE_TEXTS = 1 << 16  # tokenised strings kept per family (then emptied; prepared references keep theirs)
_DESCRIPTIONS = {"MER": "match error rate", "WIL": "word information lost",
                 "WIP": "word information preserved", "CER": "character error rate"}


def rates(stats: np.ndarray, variant: str) -> np.ndarray:
    """jiwer's measure of each row of ``(..., 4)`` counts (hits, substitutions, deletions,
    insertions), in jiwer's order of operations (``process_words``)."""
    hits, subs, dels, ins = (stats[..., k] for k in range(4))
    n_ref, n_hyp = hits + subs + dels, hits + subs + ins
    has_ref = n_ref > 0
    safe_ref = np.where(has_ref, n_ref, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if variant == "CER":
            return np.where(has_ref, (subs + dels + ins) / safe_ref, ins)
        if variant == "MER":
            return np.where(has_ref, (subs + dels + ins) / np.where(has_ref, hits + subs + dels + ins, 1.0),
                            np.where(n_hyp > 0, 1.0, 0.0))
        wip = np.where(has_ref, np.where(n_hyp >= 1, (hits / safe_ref) * (hits / np.maximum(n_hyp, 1.0)), 0.0),
                       np.where(n_hyp > 0, 0.0, 1.0))
    return wip if variant == "WIP" else 1 - wip


class _JiwerFamily(StatsFamily):
    """Shared by the word and character families: tokens per unique string, counts per pair."""

    chars: ClassVar[bool] = False

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._tokens: dict[str, Tokens] = {}
        self._ids: dict[str, int] = {}
        self._pairs: dict[tuple[Tokens, Tokens], tuple[int, int, int, int]] = {}

    def info(self, variant: str) -> MetricInfo:
        """Rates in [0, 1] (lower is better), CER unbounded above; WIP in [0, 1], higher is better."""
        upper = None if variant == "CER" else 1.0
        return MetricInfo(variant, self.family, higher_is_better=variant == "WIP", lower_bound=0.0,
                          upper_bound=upper, description=f"jiwer's {_DESCRIPTIONS[variant]}")

    def tokens(self, texts: Sequence[str]) -> list[Tokens]:
        """jiwer's tokens of each segment (word ids, or the stripped string), cached per string."""
        if len(self._tokens) > CACHE_TEXTS:
            self._tokens.clear()
        out = []
        for text in texts:
            found = self._tokens.get(text)
            if found is None:
                found = self._tokens[text] = self._split(text if self.case_sensitive else text.lower())
            out.append(found)
        return out

    def _split(self, text: str) -> Tokens:
        if self.chars:
            return jiwer_chars(text)
        ids = self._ids
        return tuple([ids.setdefault(word, len(ids)) for word in jiwer_words(text)])

    def prepare(self, references: Sequence[Side]) -> list[list[Tokens]]:
        """Tokens of every reference segment."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return [self.tokens(r.texts) for r in references]

    def counts(self, hyp: list[Tokens], ref: list[Tokens]) -> np.ndarray:
        """Per segment (H, S, D, I) against one reference (cached per pair, up to CACHE_PAIRS)."""
        pairs = self._pairs
        if len(pairs) > CACHE_PAIRS:
            pairs.clear()
        out = np.empty((len(hyp), 4), dtype=np.float64)
        for i, key in enumerate(zip(ref, hyp, strict=True)):
            found = pairs.get(key)
            if found is None:
                found = pairs[key] = edit_counts(*key)
            out[i] = found
        return out

    def segment_stats(self, hypothesis: Side, prepared: list[list[Tokens]]) -> np.ndarray:
        """Per segment (H, S, D, I) against each reference, side by side (4 columns per reference)."""
        hyp = self.tokens(hypothesis.texts)
        for ref in prepared:
            if len(ref) != len(hyp):
                raise InputError(f"{hypothesis.name}: {len(hyp)} segments but a reference has {len(ref)}")
        return np.hstack([self.counts(hyp, ref) for ref in prepared])

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """Each row's measure against each reference (its summed counts), the best reference's."""
        counts = np.atleast_2d(stats)
        values = rates(counts.reshape(len(counts), -1, 4), variant)
        return values.max(axis=1) if variant == "WIP" else values.min(axis=1)


@register
class WordInformation(_JiwerFamily):
    """jiwer's word measures MER, WIL and WIP (Morris et al. 2004) of its word alignment."""

    family = "MER-WIL-WIP"
    variants = ("MER", "WIL", "WIP")


@register
class CharacterErrorRate(_JiwerFamily):
    """jiwer's CER: the word error rate of its character alignment (spaces are characters)."""

    family = "CER"
    variants = ("CER",)
    chars = True

    def segmented_scripts(self, variant: str) -> frozenset[str] | None:
        """Characters, in any script: no words to find."""
        return None
