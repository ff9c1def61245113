"""Paired significance tests between MT systems, for every metric and every pair of systems at once.

* Paired bootstrap resampling (Koehn 2004, "Statistical significance tests for machine translation
  evaluation", EMNLP): ``n`` resamples of the segments with replacement, one index set shared by
  every system and metric; a system's score on a resample is the metric's score of its summed
  statistics rows. Per system: the mean of the resampled scores and the interval of their order
  statistics ``k`` and ``n - 1 - k``, ``k = floor(n alpha / 2)`` (sacreBLEU's ``estimate_ci``,
  ``k = n // 40`` at alpha = 0.05). Per pair: ``diff = score_i - score_j`` on the full test set,
  the same interval of the resampled differences, and sacreBLEU's two-sided p-value (after Moses'
  ``bootstrap-hypothesis-difference-significance.pl`` and MultEval): with ``d_b`` the resampled
  absolute differences, ``p = (c + 1) / (n + 1)``, ``c = #{b : d_b - mean(d) > |diff|}``.
* Paired approximate randomisation (Riezler & Maxwell 2005, "On some pitfalls in automatic
  evaluation and significance testing for MT", ACL MTSE workshop): in each of ``n`` trials every
  segment's two statistics rows are swapped between the two systems with probability 1/2;
  ``p = (c + 1) / (n + 1)``, ``c = #{trials : |score(A*) - score(B*)| > |diff|}`` (two-sided).

Ties: as sacreBLEU, ``c`` counts only statistics *beyond* the observed one (``>``), the default;
``count_ties=True`` counts ties as at least as extreme (``>=``, Riezler & Maxwell's rule, the valid
one for discrete statistics: TER's randomised differences are multiples of 100 / reference length,
and ties are common). With ``>``, two identical systems, or two that differ in one segment, get
``p = 1 / (n + 1)``. Both compare within :data:`TIE_TOLERANCE`, so rounding never splits a tie.

Random streams are sacreBLEU 2.6.0's for the same seed (its ``SACREBLEU_SEED``, default 12345):
bootstrap indices ``default_rng(seed).choice(S, size=(n, S))``, randomisation masks
``default_rng(seed).integers(2, size=(n, S), dtype=bool)`` (True: the segment keeps its systems),
the same stream for every pair, as sacreBLEU reseeds for every system. Given the same statistics
and score function, the p-values equal sacreBLEU's ``--paired-bs`` / ``--paired-ar``, and the
bootstrap means and intervals too, up to sacreBLEU's float32 sums (tests/test_paired.py).

Vectorised: a resample is a row of multiplicities (bootstrap) or of 0/1 (randomisation) over the
segments; one matrix product with every system's and metric's statistics side by side,
``(S, systems x sum of k)``, gives every summed statistics row (float32 where that is exact);
resamples are drawn in chunks (:data:`CHUNK_ELEMENTS`) so memory stays bounded, the stream
unchanged; a progress bar (:mod:`mteval.progress`, quiet off a terminal) advances once per chunk.
Up to :data:`STREAM_ABOVE` bootstrap resamples, their scores are kept and sorted; more are
evaluated as a stream (:mod:`mteval.meta.stats.streamed`): the chunks are drawn again from the seed for
each of two or three passes (means and brackets; p-values and bins; the bins' values), so memory
does not grow with the resamples and every number is the one the kept scores give, bit for bit.
At most :data:`MAX_RESAMPLES` resamples or trials (time grows with them).
docs/significance-systems.md has the choices and the parity and speed figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from mteval import progress
from mteval.errors import ConfigError, InputError, quote
from mteval.meta.stats.clusters import clusters as rank_clusters
from mteval.meta.stats.streamed import RunningSum, Selection

DEFAULT_SEED = 12345  # sacreBLEU's default SACREBLEU_SEED
BS_RESAMPLES = 1000  # sacreBLEU's --paired-bs-n
AR_TRIALS = 10000  # sacreBLEU's --paired-ar-n
CHUNK_ELEMENTS = 1 << 22  # floats per array of a chunk of resamples (32 MB)
ROW_ALIGN = 64  # chunk rows: numpy draws booleans 32 to a word, so chunks of 64k rows keep the stream
FLOAT32_EXACT = float(1 << 24)  # float32 holds every integer below this: such integer sums are exact
TIE_TOLERANCE = 1e-9  # a resampled statistic within this (relative, at least absolute) of the observed ties
STREAM_ABOVE = 10_000  # more bootstrap resamples than this are evaluated as a stream (bounded memory)
MAX_RESAMPLES = 1_000_000  # resamples or trials at most: each pass over 10^6 takes about 15 s for 10 metrics

ScoreFunction = Callable[[np.ndarray], np.ndarray]
"""Scores of the rows of a 2-D array of summed statistics ``(rows, k) -> (rows,)``, vectorised
(e.g. ``functools.partial(family.scores_from_stats, variant=name)`` of a ``StatsFamily``)."""


def _mean_score(sums: np.ndarray, n_segments: int) -> np.ndarray:
    """Mean segment score from the summed segment scores (one statistic)."""
    return sums[:, 0] / n_segments


@dataclass(frozen=True, eq=False)
class MetricInput:
    """One metric's data for every system: statistics ``(systems, segments, k)`` and the score of
    summed statistics rows. A metric without statistics is its segment scores (k = 1) with the
    mean as score (:meth:`from_segments`)."""

    stats: np.ndarray
    score: ScoreFunction
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        stats = np.asarray(self.stats, dtype=np.float64)
        if stats.ndim != 3:
            raise InputError(f"statistics must be (systems, segments, k), got shape {stats.shape}")
        if not np.isfinite(stats).all():
            raise InputError("statistics must be finite numbers")
        object.__setattr__(self, "stats", stats)

    @classmethod
    def from_segments(cls, segments: np.ndarray, higher_is_better: bool = True) -> MetricInput:
        """Segment scores ``(systems, segments)``; the corpus score is their mean, NaN counted as 0
        (as ``mteval.metrics.base.mean_score_set`` reports system scores)."""
        seg = np.asarray(segments, dtype=np.float64)
        if seg.ndim != 2:
            raise InputError(f"segment scores must be (systems, segments), got shape {seg.shape}")
        seg = np.nan_to_num(seg, nan=0.0)
        return cls(seg[:, :, None], partial(_mean_score, n_segments=max(seg.shape[1], 1)), higher_is_better)


@dataclass(frozen=True)
class SystemResult:
    """A system's score on the full test set; bootstrap mean and interval (NaN for randomisation)."""

    system: str
    score: float
    mean: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        """Half the interval: sacreBLEU's printed ``mean (± ci)``."""
        return 0.5 * (self.high - self.low)


@dataclass(frozen=True)
class PairResult:
    """``system`` against ``baseline``: score difference, its interval (NaN for randomisation), p."""

    system: str
    baseline: str
    diff: float
    low: float
    high: float
    p_value: float


@dataclass(frozen=True)
class Settings:
    """How a test runs: resamples (bootstrap) or trials (randomisation), seed, level, tie rule."""

    n: int
    seed: int = DEFAULT_SEED
    alpha: float = 0.05
    count_ties: bool = False

    def __post_init__(self) -> None:
        check_count(self.n, "the number of resamples or trials")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer) or self.seed < 0:
            raise ConfigError(f"the seed must be a non-negative integer, got {quote(self.seed)}")
        object.__setattr__(self, "alpha", check_alpha(self.alpha))


def check_count(n: object, what: str) -> int:
    """A number of resamples or trials from 1 to :data:`MAX_RESAMPLES`, else a one-line ConfigError
    naming ``what`` (an option, e.g. ``--resamples``)."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ConfigError(f"{what} must be a positive integer, got {quote(n)}")
    if n > MAX_RESAMPLES:
        raise ConfigError(f"{what} must be at most {MAX_RESAMPLES:,}, got {n:,} (the time grows "
                          "with the count)")
    return int(n)


def check_alpha(alpha: float) -> float:
    """A significance level in (0, 1)."""
    if isinstance(alpha, bool) or not isinstance(alpha, float | int | np.floating) or not 0.0 < alpha < 1.0:
        raise ConfigError(f"the significance level must be between 0 and 1, got {quote(alpha)}")
    return float(alpha)


@dataclass(frozen=True, eq=False)
class Comparison:
    """One metric's paired test of every pair of systems (arrays indexed like ``systems``).

    ``score``: on the full test set; ``mean``, ``low``, ``high``: bootstrap mean and interval (NaN
    for randomisation); ``diff[i, j] = score[i] - score[j]``, ``diff_low``/``diff_high`` its
    interval; ``p_value[i, j]`` the two-sided p-value (symmetric, 1 on the diagonal)."""

    metric: str
    test: str  # "bs" or "ar"
    systems: tuple[str, ...]
    higher_is_better: bool
    settings: Settings
    score: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    diff: np.ndarray
    diff_low: np.ndarray
    diff_high: np.ndarray
    p_value: np.ndarray
    baseline: str | None = None

    def index(self, system: str) -> int:
        """Position of a system (ConfigError when unknown)."""
        if system not in self.systems:
            raise ConfigError(f"unknown system {quote(system)}: the systems are {quote(list(self.systems))}")
        return self.systems.index(system)

    def results(self) -> list[SystemResult]:
        """Every system's score (and bootstrap mean and interval), in ``systems`` order."""
        return [SystemResult(s, float(self.score[i]), float(self.mean[i]), float(self.low[i]), float(self.high[i]))
                for i, s in enumerate(self.systems)]

    def versus(self, baseline: str | None = None) -> list[PairResult]:
        """Every other system against ``baseline`` (default: the test's, else the first system)."""
        name = baseline or self.baseline or self.systems[0]
        b = self.index(name)
        return [PairResult(s, name, float(self.diff[i, b]), float(self.diff_low[i, b]),
                           float(self.diff_high[i, b]), float(self.p_value[i, b]))
                for i, s in enumerate(self.systems) if i != b]

    def clusters(self, alpha: float | None = None, correction: str = "none") -> list[list[str]]:
        """Ranking clusters at ``alpha`` (default: the test's) after a multiple-comparison
        correction (``mteval.meta.stats.clusters``), best first."""
        level = self.settings.alpha if alpha is None else check_alpha(alpha)
        groups = rank_clusters(self.score, self.p_value, level, self.higher_is_better, correction)
        return [[self.systems[i] for i in group] for group in groups]


def _validate(metrics: Mapping[str, MetricInput], systems: Sequence[str], baseline: str | None) -> None:
    """One-line errors for input no test can run on (docs/significance-systems.md)."""
    if len(systems) < 2:
        raise ConfigError(f"comparing systems needs at least two systems, got {len(systems)}")
    if len(set(systems)) != len(systems):
        raise ConfigError(f"system names must be distinct: {quote(list(systems))}")
    if baseline is not None and baseline not in systems:
        raise ConfigError(f"unknown baseline {quote(baseline)}: the systems are {quote(list(systems))}")
    if not metrics:
        raise ConfigError("comparing systems needs at least one metric")
    for name, metric in metrics.items():
        if metric.stats.shape[0] != len(systems):
            raise InputError(f"{quote(name)}: scores of {metric.stats.shape[0]} systems, expected {len(systems)}")
    first_with: dict[int, str] = {}  # segment count -> the first metric with it
    for name, metric in metrics.items():
        first_with.setdefault(metric.stats.shape[1], name)
    if len(first_with) > 1:
        shown = ", ".join(f"{quote(name, 30)} {count}" for count, name in list(first_with.items())[:4])
        raise InputError(f"metrics differ in segment count: {shown}")
    if 0 in first_with:
        raise InputError("no segments to resample")


@dataclass(frozen=True)
class _Packed:
    """Every metric's statistics side by side, ``columns`` (S, systems x width), with the metric
    column slices; the columns whose weighted sums float32 holds exactly (:data:`FLOAT32_EXACT`)
    are summed in float32 (twice as fast), the others in float64."""

    columns: np.ndarray
    slices: dict[str, slice]
    n_systems: int
    width: int
    exact: np.ndarray
    other: np.ndarray
    exact32: np.ndarray
    other64: np.ndarray

    def weighted_sums(self, weights: np.ndarray) -> np.ndarray:
        """``weights @ columns`` as ``(rows, systems, width)``."""
        out = np.empty((len(weights), self.columns.shape[1]))
        if len(self.exact):
            out[:, self.exact] = weights.astype(np.float32) @ self.exact32
        if len(self.other):
            out[:, self.other] = weights.astype(np.float64) @ self.other64
        return out.reshape(len(weights), self.n_systems, self.width)


def _pack(metrics: Mapping[str, MetricInput], bootstrap: bool) -> _Packed:
    """Concatenate the metrics' statistics along k and lay systems side by side (one matmul).

    A column is summed in float32 when it is integral and no weighted sum can reach 2**24:
    ``S x max |x|`` for bootstrap multiplicities (they add up to S), ``sum |x|`` for 0/1 masks."""
    stats = np.concatenate([m.stats for m in metrics.values()], axis=2)
    n_systems, n_segments, width = stats.shape
    slices, start = {}, 0
    for name, metric in metrics.items():
        slices[name] = slice(start, start + metric.stats.shape[2])
        start += metric.stats.shape[2]
    columns = np.ascontiguousarray(stats.transpose(1, 0, 2).reshape(n_segments, n_systems * width))
    magnitude = np.abs(columns)
    bound = n_segments * magnitude.max(axis=0) if bootstrap else magnitude.sum(axis=0)
    is_exact = (columns == np.round(columns)).all(axis=0) & (bound < FLOAT32_EXACT)
    exact, other = np.flatnonzero(is_exact), np.flatnonzero(~is_exact)
    return _Packed(columns, slices, n_systems, width, exact, other,
                   np.ascontiguousarray(columns[:, exact], dtype=np.float32), np.ascontiguousarray(columns[:, other]))


def _scores(metric: MetricInput, sums: np.ndarray) -> np.ndarray:
    """The metric's scores of summed statistics of any leading shape ``(..., k) -> (...)``."""
    flat = np.ascontiguousarray(sums).reshape(-1, sums.shape[-1])
    return np.asarray(metric.score(flat), dtype=np.float64).reshape(sums.shape[:-1])


def _chunk_rows(n: int, width: int) -> Iterator[int]:
    """Sizes of consecutive chunks of ``n`` resamples, about :data:`CHUNK_ELEMENTS` / ``width`` rows
    each, a multiple of :data:`ROW_ALIGN` (so drawing in chunks gives the stream of one draw)."""
    rows = max(ROW_ALIGN, CHUNK_ELEMENTS // max(width, 1) // ROW_ALIGN * ROW_ALIGN)
    for start in range(0, n, rows):
        yield min(rows, n - start)


def _label(test: str, metrics: Mapping[str, MetricInput]) -> str:
    """A progress bar's description: the test and the metrics it runs (the first three named)."""
    names = list(metrics)
    return f"{test} {', '.join(names[:3])}" + (f" +{len(names) - 3}" if len(names) > 3 else "")


def multiplicities(indices: np.ndarray, n_segments: int) -> np.ndarray:
    """How many times each segment is drawn in each resample: ``(rows, S)`` from index rows."""
    rows = len(indices)
    offsets = (np.arange(rows, dtype=np.int64)[:, None] * n_segments + indices).ravel()
    return np.bincount(offsets, minlength=rows * n_segments).reshape(rows, n_segments).astype(np.float64)


def _bootstrap_chunks(metrics: Mapping[str, MetricInput], packed: _Packed, n: int, seed: int,
                      label: str) -> Iterator[dict[str, np.ndarray]]:
    """Every system's scores on consecutive chunks of the ``n`` bootstrap resamples of ``seed``:
    metric -> ``(systems, rows)``; the same chunks, so the same numbers, on every call."""
    n_segments = packed.columns.shape[0]
    rng = np.random.default_rng(seed)
    with progress.bar(n, label, unit="resample") as shown:
        for rows in _chunk_rows(n, max(n_segments, packed.columns.shape[1])):
            counts = multiplicities(rng.choice(n_segments, size=(rows, n_segments), replace=True), n_segments)
            sums = packed.weighted_sums(counts)
            yield {name: _scores(metric, sums[..., packed.slices[name]]).T for name, metric in metrics.items()}
            shown.update(rows)


def bootstrap_scores(metrics: Mapping[str, MetricInput], n: int, seed: int) -> dict[str, np.ndarray]:
    """Every system's score on each of ``n`` bootstrap resamples: metric -> ``(systems, n)``."""
    packed = _pack(metrics, bootstrap=True)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in metrics}
    for chunk in _bootstrap_chunks(metrics, packed, n, seed, _label("paired bootstrap", metrics)):
        for name, scores in chunk.items():
            parts[name].append(scores)
    return {name: np.concatenate(p, axis=1) for name, p in parts.items()}


def order_rank(n: int, alpha: float) -> int:
    """``k = floor(n alpha / 2)`` (at most the middle): the interval is order statistics k, n - 1 - k."""
    return min(int(math.floor(n * alpha / 2 + 1e-9)), (n - 1) // 2)


def order_interval(draws: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Order statistics ``k`` and ``n - 1 - k`` of the draws along the last axis,
    ``k = floor(n alpha / 2)`` (sacreBLEU's ``estimate_ci``: ``n // 40`` at alpha = 0.05)."""
    n = draws.shape[-1]
    k = order_rank(n, alpha)
    ordered = np.sort(draws, axis=-1)
    return ordered[..., k], ordered[..., n - 1 - k]


def as_extreme(values: np.ndarray, observed: np.ndarray, count_ties: bool) -> np.ndarray:
    """``values > observed`` (sacreBLEU), or ``>=`` with ``count_ties``, equality within
    :data:`TIE_TOLERANCE` relative to ``max(1, observed)`` (``observed >= 0``)."""
    tolerance = TIE_TOLERANCE * np.maximum(1.0, observed)
    return values >= observed - tolerance if count_ties else values > observed + tolerance


def bootstrap_p_values(draws: np.ndarray, observed: np.ndarray, count_ties: bool = False) -> np.ndarray:
    """sacreBLEU's paired-bootstrap p-value per row: ``d`` = resampled absolute differences (last
    axis), ``p = (#{d - mean(d) > |observed|} + 1) / (n + 1)`` (``>=`` with ``count_ties``)."""
    d = np.abs(draws)
    centred = d - d.mean(axis=-1, keepdims=True)
    beyond = as_extreme(centred, np.abs(observed)[..., None], count_ties).sum(axis=-1)
    return (beyond + 1) / (d.shape[-1] + 1)


def _full_scores(metric: MetricInput) -> np.ndarray:
    """Every system's score on the full test set."""
    return _scores(metric, metric.stats.sum(axis=1))


def _bootstrap_comparison(name: str, metric: MetricInput, draws: np.ndarray, systems: tuple[str, ...],
                          settings: Settings, baseline: str | None) -> Comparison:
    """Per-system intervals and pairwise differences, intervals and p-values from ``draws`` (m, n)."""
    full = _full_scores(metric)
    m = len(systems)
    diff = full[:, None] - full[None, :]
    diff_low, diff_high, p_value = np.zeros((m, m)), np.zeros((m, m)), np.ones((m, m))
    for i in range(m):
        deltas = draws[i] - draws
        diff_low[i], diff_high[i] = order_interval(deltas, settings.alpha)
        p_value[i] = bootstrap_p_values(deltas, diff[i], settings.count_ties)
    diag = np.eye(m, dtype=bool)
    diff_low[diag], diff_high[diag], p_value[diag] = 0.0, 0.0, 1.0
    low, high = order_interval(draws, settings.alpha)
    return Comparison(name, "bs", systems, metric.higher_is_better, settings, full, draws.mean(axis=1),
                      low, high, diff, diff_low, diff_high, p_value, baseline)


@dataclass(eq=False)
class _Stream:
    """One metric's bootstrap as a stream. Rows: the systems' scores, then the pairs' (i < j)
    differences ``score_i - score_j``; ``sums`` of the scores and of the differences' absolute
    values (the means), ``select`` their order statistics k and n - 1 - k, ``beyond`` the
    p-values' counts (second pass, once the means are known)."""

    sums: RunningSum
    select: Selection
    observed: np.ndarray  # |score_i - score_j| on the full test set, per pair
    centre: np.ndarray | None = None  # mean |difference| per pair
    beyond: np.ndarray | None = None

    def feed(self, draws: np.ndarray, pairs: np.ndarray, first_pass: bool, count_ties: bool) -> None:
        """One chunk's scores ``(systems, rows)``."""
        delta = draws[pairs[:, 0]] - draws[pairs[:, 1]]
        if first_pass:
            self.sums.feed(np.concatenate([draws, np.abs(delta)]))
        elif self.centre is not None and self.beyond is not None:
            centred = np.abs(delta) - self.centre[:, None]
            self.beyond += as_extreme(centred, self.observed[:, None], count_ties).sum(axis=1)
        if not self.select.done:
            self.select.feed(np.concatenate([draws, delta]))

    def end_pass(self, first_pass: bool, n_systems: int) -> None:
        """After a pass: the means once the sums are complete; the order statistics' next step."""
        if first_pass:
            self.centre = self.sums.mean()[n_systems:]
            self.beyond = np.zeros(len(self.observed), dtype=np.int64)
        elif self.centre is not None:
            self.centre = None  # the p-values' counts are complete
        self.select.end_pass()

    @property
    def done(self) -> bool:
        """The means, the p-values' counts and the order statistics are all known."""
        return self.centre is None and self.beyond is not None and self.select.done


def _streamed_bootstrap(metrics: Mapping[str, MetricInput], systems: tuple[str, ...], settings: Settings,
                        baseline: str | None) -> dict[str, Comparison]:
    """:func:`paired_bootstrap`'s comparisons from the resamples as a stream: the chunks drawn again
    for each pass until every number is known (module docstring)."""
    n, m, pairs = int(settings.n), len(systems), _pairs(len(systems))
    k, rows = order_rank(n, settings.alpha), m + len(pairs)
    streams = {}
    for name, metric in metrics.items():
        full = _full_scores(metric)
        streams[name] = _Stream(RunningSum(rows, n), Selection(n, np.repeat(np.arange(rows), 2),
                                                                np.tile([k, n - 1 - k], rows)),
                                np.abs(full[pairs[:, 0]] - full[pairs[:, 1]]))
    packed, label, number = _pack(metrics, bootstrap=True), _label("paired bootstrap", metrics), 0
    while not all(stream.done for stream in streams.values()):
        number += 1
        for chunk in _bootstrap_chunks(metrics, packed, n, int(settings.seed), f"{label} (pass {number})"):
            for name, draws in chunk.items():
                streams[name].feed(draws, pairs, number == 1, settings.count_ties)
        for stream in streams.values():
            stream.end_pass(number == 1, m)
    return {name: _streamed_comparison(name, metric, streams[name], systems, settings, baseline)
            for name, metric in metrics.items()}


def _streamed_comparison(name: str, metric: MetricInput, stream: _Stream, systems: tuple[str, ...],
                         settings: Settings, baseline: str | None) -> Comparison:
    """A :class:`Comparison` from a finished stream, as :func:`_bootstrap_comparison` builds it from
    kept scores: a pair's reversed difference has the negated, swapped order statistics."""
    full, m, pairs = _full_scores(metric), len(systems), _pairs(len(systems))
    order = stream.select.value.reshape(-1, 2)
    first, second = pairs[:, 0], pairs[:, 1]
    diff_low, diff_high, p_value = np.zeros((m, m)), np.zeros((m, m)), np.ones((m, m))
    diff_low[first, second], diff_high[first, second] = order[m:, 0], order[m:, 1]
    diff_low[second, first], diff_high[second, first] = 0.0 - order[m:, 1], 0.0 - order[m:, 0]  # 0 - x: +0.0
    assert stream.beyond is not None
    p_value[first, second] = p_value[second, first] = (stream.beyond + 1) / (int(settings.n) + 1)
    return Comparison(name, "bs", systems, metric.higher_is_better, settings, full, stream.sums.mean()[:m],
                      order[:m, 0], order[:m, 1], full[:, None] - full[None, :], diff_low, diff_high, p_value,
                      baseline)


def paired_bootstrap(metrics: Mapping[str, MetricInput], systems: Sequence[str], baseline: str | None = None,
                     n: int = BS_RESAMPLES, seed: int = DEFAULT_SEED, alpha: float = 0.05,
                     count_ties: bool = False) -> dict[str, Comparison]:
    """Paired bootstrap resampling (Koehn 2004; sacreBLEU's ``--paired-bs``) of every pair of systems,
    for every metric (module docstring): metric name -> :class:`Comparison`. More than
    :data:`STREAM_ABOVE` resamples are evaluated as a stream, in memory independent of ``n``."""
    settings = Settings(n, seed, alpha, count_ties)
    _validate(metrics, systems, baseline)
    if settings.n > STREAM_ABOVE:
        return _streamed_bootstrap(metrics, tuple(systems), settings, baseline)
    draws = bootstrap_scores(metrics, int(settings.n), int(settings.seed))
    return {name: _bootstrap_comparison(name, metric, draws[name], tuple(systems), settings, baseline)
            for name, metric in metrics.items()}


def system_intervals(metrics: Mapping[str, MetricInput], systems: Sequence[str], n: int = BS_RESAMPLES,
                     seed: int = DEFAULT_SEED, alpha: float = 0.05) -> dict[str, list[SystemResult]]:
    """Each system's score, bootstrap mean and ``1 - alpha`` interval on ``n`` resamples of the
    segments, one system at a time (sacreBLEU's ``--confidence``: ``corpus_score(n_bootstrap=n)``,
    Koehn 2004): metric name -> one :class:`SystemResult` per system. The resamples are those of
    :func:`paired_bootstrap` (the same seed draws the same segments), so the figures are its
    ``results()``; one system is enough."""
    settings = Settings(n, seed, alpha)
    if not systems or len(set(systems)) != len(systems):
        raise ConfigError(f"system names must be given and distinct: {quote(list(systems))}")
    for name, metric in metrics.items():
        if metric.stats.shape[0] != len(systems):
            raise InputError(f"{quote(name)}: scores of {metric.stats.shape[0]} systems, expected {len(systems)}")
        if metric.stats.shape[1] == 0:
            raise InputError("no segments to resample")
    draws = bootstrap_scores(metrics, int(settings.n), int(settings.seed))
    out = {}
    for name, metric in metrics.items():
        low, high = order_interval(draws[name], settings.alpha)
        rows = zip(systems, _full_scores(metric), draws[name].mean(axis=1), low, high, strict=True)
        out[name] = [SystemResult(system, float(score), float(mean), float(lo), float(hi))
                     for system, score, mean, lo, hi in rows]
    return out


def _pairs(n_systems: int) -> np.ndarray:
    """Every unordered pair ``(i, j)``, ``i < j``: shape (P, 2)."""
    rows, cols = np.triu_indices(n_systems, k=1)
    return np.stack([rows, cols], axis=1)


def randomization_p_values(metrics: Mapping[str, MetricInput], pairs: np.ndarray, n: int, seed: int,
                           count_ties: bool = False) -> dict[str, np.ndarray]:
    """Approximate-randomisation p-values of the system ``pairs`` (P, 2): metric -> (P,).

    With a trial's mask ``x`` (True: keep), pseudo-system A sums ``x`` rows of system i and the
    other rows of system j, ``x @ s_i + (total_j - x @ s_j) = total_j + delta``, and B
    ``total_i - delta`` (sacreBLEU's ``shuf_a``/``shuf_b`` with i the baseline)."""
    packed = _pack(metrics, bootstrap=False)
    n_segments = packed.columns.shape[0]
    totals = packed.columns.sum(axis=0).reshape(packed.n_systems, packed.width)
    first, second = pairs[:, 0], pairs[:, 1]
    observed = {}
    for name, metric in metrics.items():
        full = _full_scores(metric)
        observed[name] = np.abs(full[first] - full[second])
    beyond = {name: np.zeros(len(pairs), dtype=np.int64) for name in metrics}
    rng = np.random.default_rng(seed)
    width = max(n_segments, packed.columns.shape[1], 3 * len(pairs) * packed.width)
    with progress.bar(n, _label("paired randomisation", metrics), unit="trial") as shown:
        for rows in _chunk_rows(n, width):
            kept = packed.weighted_sums(rng.integers(2, size=(rows, n_segments), dtype=bool))
            delta = kept[:, first] - kept[:, second]
            pseudo_a, pseudo_b = totals[second] + delta, totals[first] - delta
            for name, metric in metrics.items():
                cols = packed.slices[name]
                trial = np.abs(_scores(metric, pseudo_a[..., cols]) - _scores(metric, pseudo_b[..., cols]))
                beyond[name] += as_extreme(trial, observed[name], count_ties).sum(axis=0)
            shown.update(rows)
    return {name: (count + 1) / (n + 1) for name, count in beyond.items()}


def _randomization_pairs(systems: Sequence[str], baseline: str | None, pairs: str) -> np.ndarray:
    """``all``: every unordered pair; ``baseline``: the baseline (default: the first system) with
    every other system, sacreBLEU's work."""
    if pairs == "all":
        return _pairs(len(systems))
    if pairs != "baseline":
        raise ConfigError(f"unknown pairs {quote(pairs)}: use all or baseline")
    b = list(systems).index(baseline) if baseline is not None else 0
    return np.array([(b, i) for i in range(len(systems)) if i != b], dtype=np.intp).reshape(-1, 2)


def paired_randomization(metrics: Mapping[str, MetricInput], systems: Sequence[str], baseline: str | None = None,
                         n: int = AR_TRIALS, seed: int = DEFAULT_SEED, alpha: float = 0.05,
                         count_ties: bool = False, pairs: str = "all") -> dict[str, Comparison]:
    """Paired approximate randomisation (Riezler & Maxwell 2005; sacreBLEU's ``--paired-ar``) of every
    pair of systems (``pairs="all"``) or of the baseline with every other (``"baseline"``: other
    p-values NaN, no clusters), for every metric: metric name -> :class:`Comparison` (intervals NaN)."""
    settings = Settings(n, seed, alpha, count_ties)
    _validate(metrics, systems, baseline)
    m = len(systems)
    tested = _randomization_pairs(systems, baseline, pairs)
    p_values = randomization_p_values(metrics, tested, int(settings.n), int(settings.seed), count_ties)
    out = {}
    nan_m, nan_mm = np.full(m, np.nan), np.full((m, m), np.nan)
    for name, metric in metrics.items():
        full = _full_scores(metric)
        p = np.full((m, m), np.nan)
        np.fill_diagonal(p, 1.0)
        p[tested[:, 0], tested[:, 1]] = p[tested[:, 1], tested[:, 0]] = p_values[name]
        out[name] = Comparison(name, "ar", tuple(systems), metric.higher_is_better, settings, full,
                               nan_m, nan_m, nan_m, full[:, None] - full[None, :], nan_mm, nan_mm, p, baseline)
    return out
