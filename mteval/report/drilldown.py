"""Segment drill-down: for every system, the segments where it loses most against the others on
one metric, with the words of the hypothesis found in a reference (clipped unigram matches against
the best-matching reference) and the reference words it missed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.experiment.texts import LoadedTexts
from mteval.metrics.registry import higher_is_better
from mteval.report.data import SystemScores

Tokens = list[tuple[str, bool]]  # (word, matched)


@dataclass(frozen=True)
class DrillSegment:
    """One segment of one system: its score, the other systems' mean, and the marked texts."""

    segment: int  # 1-based
    doc: str
    score: float
    others: float
    source: str
    hypothesis: Tokens
    reference: str  # the best-matching reference's name
    reference_tokens: Tokens
    texts: tuple[str, str] = ("", "")  # the hypothesis and the reference as they are
    notes: tuple[str, ...] = ()  # syntactic items (unmatched chains), if any


def match(hypothesis: str, reference: str) -> tuple[Tokens, Tokens, int]:
    """Whitespace words of both sides marked matched (clipped counts, left to right, case-insensitive)
    or not, and the number of matched words."""
    hyp, ref = hypothesis.split(), reference.split()
    left = Counter(w.lower() for w in ref)
    hyp_marks: Tokens = []
    for w in hyp:
        hit = left[w.lower()] > 0
        left[w.lower()] -= hit
        hyp_marks.append((w, hit))
    left = Counter(w.lower() for w in hyp)
    ref_marks: Tokens = []
    for w in ref:
        hit = left[w.lower()] > 0
        left[w.lower()] -= hit
        ref_marks.append((w, hit))
    return hyp_marks, ref_marks, sum(h for _, h in hyp_marks)


def losses(scores: SystemScores, metric: str) -> np.ndarray:
    """``(systems, segments)``: a system's oriented segment score minus the mean of the others'
    (negative: the system does worse than the others there)."""
    m = scores.metrics.index(metric)
    oriented = scores.segments[m] * (1.0 if higher_is_better(metric) else -1.0)
    total = np.nansum(oriented, axis=0)
    count = np.sum(~np.isnan(oriented), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        others = (total[None, :] - np.nan_to_num(oriented)) / (count[None, :] - 1)
    return oriented - others


def drill(scores: SystemScores, metric: str, texts: LoadedTexts, references: Sequence[str],
          rows: np.ndarray, per_system: int = 5) -> dict[str, list[DrillSegment]]:
    """system -> its ``per_system`` worst segments on ``metric`` (largest loss first)."""
    if len(scores.systems) < 2:
        return {}
    m = scores.metrics.index(metric)
    delta = losses(scores, metric)
    out: dict[str, list[DrillSegment]] = {}
    for s, system in enumerate(scores.systems):
        order = [int(i) for i in np.argsort(np.where(np.isnan(delta[s]), np.inf, delta[s]), kind="stable")
                 if not np.isnan(delta[s, i])][:per_system]
        segs = texts.systems[system].segments
        others = np.delete(scores.segments[m, :, :], s, axis=0)
        out[system] = [_segment(texts, references, int(rows[i]), segs[int(rows[i])],
                                float(scores.segments[m, s, i]), float(np.nanmean(others[:, i])))
                       for i in order]
    return out


def _segment(texts: LoadedTexts, references: Sequence[str], row: int, hypothesis: str, score: float,
             others: float) -> DrillSegment:
    """The marked texts of one segment against its best-matching reference."""
    best = max(references, key=lambda r: match(hypothesis, texts.references[r].segments[row])[2])
    hyp, ref, _ = match(hypothesis, texts.references[best].segments[row])
    source = texts.source.segments[row] if texts.source is not None else ""
    return DrillSegment(row + 1, texts.documents.doc_ids[row], score, others, source, hyp, best, ref,
                        (hypothesis, texts.references[best].segments[row]))
