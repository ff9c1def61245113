"""WMT12's segment-level Kendall tau over pairwise comparisons from relative rankings.

The WMT12 metrics task (Callison-Burch et al. 2012, "Findings of the 2012 Workshop on Statistical
Machine Translation", section on the metrics task, segment-level correlation) scored a metric by
how often it orders two outputs of one source sentence as a human annotator did in a 5-way
ranking. Every ranking event (:class:`mteval.io.rankings.RankingEvent`) gives one comparison per
pair of its outputs; pairs the annotator tied are left out. Over the remaining pairs::

    tau = (|Concordant| - |Discordant|) / (|Concordant| + |Discordant|)

A pair is concordant when the metric scores the human-preferred output strictly higher, discordant
when strictly lower. **Metric ties** (equal scores) count as discordant (a penalty, so a metric
gains nothing by giving equal scores): ``ties="penalize"``, the default, as this project's seed 001
and :func:`mteval.meta.correlation.kendall_wmt12` define WMT12's tau. Later metrics tasks
(WMT13/14, Macháček and Bojar) are remembered to have varied the tie handling; not verified here
either. Source check (2026-11-27): the ``search`` tool's stored pages hold
the findings paper ("Findings of the 2012 Workshop on Statistical Machine Translation",
Proceedings of WMT 2012, pages 10-51; vdocument.in and 1library.net copies) but return only its
title page and abstract, not the metrics-task section, so the tie rule could not be re-read from
the paper here. ``ties="exclude"`` drops metric-tied pairs from both counts instead.

A pair with a system that has no metric score (NaN), or outside the selected systems/lines, is
left out. CIs are percentile bootstrap intervals resampling ranking events (every event keeps all
its pairs), seeded; the paired bootstrap compares two metrics on the same draws.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from mteval.errors import MtevalError
from mteval.io.rankings import RankingEvent

TIES = ("penalize", "exclude")


@dataclass(frozen=True)
class Comparisons:
    """The human-untied pairwise comparisons of a set of ranking events, as index arrays."""

    event: np.ndarray  # index of the pair's event (0..n_events-1)
    winner: np.ndarray  # system index of the output the human preferred
    loser: np.ndarray  # system index of the other output
    row: np.ndarray  # 0-based segment row of the pair
    n_events: int
    human_ties: int  # pairs left out because the human tied them


@dataclass(frozen=True)
class Tau:
    """WMT12 tau with its pair counts and bootstrap interval."""

    value: float
    low: float
    high: float
    concordant: int
    discordant: int
    metric_ties: int  # counted as discordant with ties="penalize", left out with "exclude"


@dataclass(frozen=True)
class Difference:
    """tau(A) - tau(B) on the same pairs, paired bootstrap interval, p = share of draws <= 0."""

    delta: float
    low: float
    high: float
    p_value: float


def comparisons(events: Sequence[RankingEvent], systems: Sequence[str],
                rows: Collection[int] | None = None) -> Comparisons:
    """Pairs of the events between ``systems`` (others left out), on 0-based ``rows`` (all: None).
    Event lines are 1-based segment numbers; row = line - 1."""
    index = {s: i for i, s in enumerate(systems)}
    keep = None if rows is None else set(rows)
    ev, win, lose, row = [], [], [], []
    ties = 0
    for k, e in enumerate(events):
        if keep is not None and e.line - 1 not in keep:
            continue
        for a, b, sign in e.pairs():
            if a not in index or b not in index:
                continue
            if sign == 0:
                ties += 1
                continue
            w, l_ = (a, b) if sign > 0 else (b, a)
            ev.append(k)
            win.append(index[w])
            lose.append(index[l_])
            row.append(e.line - 1)
    as_int = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
    return Comparisons(as_int(ev), as_int(win), as_int(lose), as_int(row), len(events), ties)


def pair_outcomes(pairs: Comparisons, scores: np.ndarray, ties: str = "penalize") -> tuple[np.ndarray, np.ndarray]:
    """Per pair (numerator, denominator) of tau: concordant (+1, 1), discordant (-1, 1), metric tie
    (-1, 1) or (0, 0) by ``ties``, no metric score (0, 0). ``scores[system, row]``, higher = better."""
    if ties not in TIES:
        raise MtevalError(f"WMT12 tau: metric ties must be one of {', '.join(TIES)}, not {ties!r}")
    scores = np.asarray(scores, dtype=np.float64)
    diff = scores[pairs.winner, pairs.row] - scores[pairs.loser, pairs.row]
    known = ~np.isnan(diff)
    tie = known & (diff == 0)
    num = np.where(known & (diff > 0), 1.0, 0.0) - np.where(known & (diff < 0), 1.0, 0.0)
    den = np.where(known & (diff != 0), 1.0, 0.0)
    if ties == "penalize":
        num, den = num - tie, den + tie
    return num, den


def _per_event(pairs: Comparisons, values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each event's pairs."""
    return np.bincount(pairs.event, weights=values, minlength=pairs.n_events)


def _draws(n_events: int, n: int, seed: int) -> np.ndarray:
    """(n, n_events) multiplicities of events in ``n`` bootstrap resamples of the events."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_events, np.full(n_events, 1 / n_events), size=n) if n_events else np.zeros((n, 0))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def interval(values: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """Percentile interval of the finite bootstrap draws (NaN, NaN when there are none)."""
    finite = values[~np.isnan(values)]
    if not len(finite):
        return float("nan"), float("nan")
    return float(np.quantile(finite, alpha / 2)), float(np.quantile(finite, 1 - alpha / 2))


def bootstrap_taus(pairs: Comparisons, scores: np.ndarray, ties: str = "penalize", n: int = 1000,
                   seed: int = 1234) -> np.ndarray:
    """tau in each of ``n`` bootstrap resamples of the events; the draws depend on ``seed`` and the
    number of events only, so two metrics' vectors are paired draw by draw."""
    num, den = pair_outcomes(pairs, scores, ties)
    draws = _draws(pairs.n_events, n, seed)
    return _ratio(draws @ _per_event(pairs, num), draws @ _per_event(pairs, den))


def wmt12_tau(pairs: Comparisons, scores: np.ndarray, ties: str = "penalize", n: int = 1000,
              seed: int = 1234, alpha: float = 0.05) -> Tau:
    """WMT12 tau of a metric (``scores[system, row]``) with a bootstrap CI over events (``n=0``: none)."""
    num, den = pair_outcomes(pairs, scores, ties)
    value = float(_ratio(np.asarray(num.sum()), np.asarray(den.sum())))
    values = np.asarray(scores, dtype=np.float64)
    diff = values[pairs.winner, pairs.row] - values[pairs.loser, pairs.row]
    counts = (int((diff > 0).sum()), int((diff < 0).sum()), int((diff == 0).sum()))
    low, high = interval(bootstrap_taus(pairs, scores, ties, n, seed), alpha) if n > 0 else (np.nan, np.nan)
    return Tau(value, float(low), float(high), *counts)


def difference(tau_a: float, tau_b: float, draws_a: np.ndarray, draws_b: np.ndarray,
               alpha: float = 0.05) -> Difference:
    """tau(A) - tau(B) from both taus and their paired bootstrap draws (:func:`bootstrap_taus`, one seed);
    p-value: the share of draws where the difference is <= 0 (H1: A better than B)."""
    deltas = draws_a - draws_b
    finite = deltas[~np.isnan(deltas)]
    p = float((finite <= 0).mean()) if len(finite) else float("nan")
    return Difference(tau_a - tau_b, *interval(deltas, alpha), p)


def paired_difference(pairs: Comparisons, scores_a: np.ndarray, scores_b: np.ndarray, ties: str = "penalize",
                      n: int = 1000, seed: int = 1234, alpha: float = 0.05) -> Difference:
    """tau(A) - tau(B) with a paired bootstrap over events (the same draws for both metrics)."""
    a, b = wmt12_tau(pairs, scores_a, ties, 0), wmt12_tau(pairs, scores_b, ties, 0)
    return difference(a.value, b.value, bootstrap_taus(pairs, scores_a, ties, n, seed),
                      bootstrap_taus(pairs, scores_b, ties, n, seed), alpha)


def system_wins(events: Sequence[RankingEvent], systems: Sequence[str]) -> dict[str, float]:
    """WMT12's system score: wins / (wins + losses) over all pairwise comparisons, ties left out."""
    wins = dict.fromkeys(systems, 0)
    losses = dict.fromkeys(systems, 0)
    for e in events:
        for a, b, sign in e.pairs():
            if sign and a in wins and b in wins:
                w, l_ = (a, b) if sign > 0 else (b, a)
                wins[w] += 1
                losses[l_] += 1
    return {s: wins[s] / (wins[s] + losses[s]) for s in systems if wins[s] + losses[s]}
