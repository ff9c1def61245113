"""mteval wmt-ranking: the overall metric ranking of the WMT23 and WMT24 metrics shared tasks.

The WMT23 metrics task (Freitag et al. 2023, "Results of WMT23 Metrics Shared Task: Metrics Might Be
Guilty but References Are Not Innocent") and the WMT24 one (Freitag et al. 2024, "Are LLMs Breaking
MT Metrics? Results of the WMT24 Metrics Shared Task") rank the metrics by a weighted average of
their results over a set of *tasks*, each task's value first normalised to [0, 1] by its range, with
significance clusters of that average computed from the tasks' permutation draws. This is
google-research/mt-metrics-eval's ``tasks.TaskSet`` machinery (``WMT23()``/``WMT24()`` task lists and
weights, ``Task.Run``, ``TaskResults``, ``TaskSetResults.AverageCorrs`` and ``AverageCorrMatrix``)
for mteval experiments. One set (an experiment with its judgements) plays the part of one language
pair:

* ``wmt23``: task 1 = system-level global pairwise accuracy over all sets (weight = the number of
  sets; :mod:`mteval.evaluate.global_accuracy`), then for every set: system-level Pearson,
  segment-level Pearson (no grouping) and segment-level acc_eq (``KendallWithTiesOpt`` acc23 grouped
  by item, tested by the pair permutation test), weight 1 each; weights normalised to sum 1;
* ``wmt24``: for every set: system-level soft pairwise accuracy (SPA, their ``pce``) and segment-level
  acc_eq, equal weights;
* ranges: Pearson [-1, 1], accuracy, acc_eq and SPA [0, 1] (their ``TaskResults.range``).

Each task is run as their ``CompareMetrics*``: metrics sorted by decreasing value (the name breaking
ties), for every pair i < j in that order a permutation test (PERM-BOTH, or for acc_eq the pair
permutation test) whose draws are kept, ranks by :func:`~mteval.meta.stats.clusters.assign_ranks`
at ``alpha``. The average of a metric (those with a value in every task) is the sum over tasks of
weight * (value - low) / (high - low); pair (i, j) of the averages' order gets the p-value
mean(sum over tasks of weight * (normalised draw of i - normalised draw of j) >= average(i) -
average(j)), a task with fewer draws (early stopping) repeating its draws to the longest
(``np.tile``), as ``AverageCorrMatrix``; ranks again by ``assign_ranks``. WMT ran k = 1000 draws with
early stopping in blocks of 100 (p < 0.02 or p > 0.5: their ``Task`` defaults, ``--early-stop
100,0.02,0.5``); the ``WMT23()``/``WMT24()`` functions default to k = 0 (no significance).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mteval.errors import ConfigError
from mteval.evaluate.correlate import early_stop
from mteval.evaluate.global_accuracy import GlobalOptions, JudgedSet, OpenedSet, open_sets, read_set
from mteval.evaluate.records import Record, record
from mteval.meta.stats import wmt_stats
from mteval.meta.stats.clusters import assign_ranks
from mteval.meta.stats.correlation import pearson, pooled_accuracy, pooled_accuracy_counts
from mteval.meta.stats.paired import check_alpha, check_count
from mteval.meta.stats.significance import (
    EarlyStop,
    Permutation,
    pairwise_permutation_sig_diff,
    permutation_sig_diff,
)
from mteval.metrics.registry import higher_is_better
from mteval.setup.expected import StaleFile
from mteval.setup.verify import verifier_of

LOG = logging.getLogger(__name__)
TASK_SETS = ("wmt23", "wmt24")
RANKED_BY = "task-permutations"  # the averages' test: the tasks' permutation draws, averaged
RANGES = {"accuracy": (0.0, 1.0), "pearson": (-1.0, 1.0), "acc_eq": (0.0, 1.0), "spa": (0.0, 1.0)}


@dataclass(frozen=True)
class RankingOptions(GlobalOptions):
    """The command's options by their Python names: :class:`GlobalOptions`' and ``tasks`` (wmt23 or
    wmt24); ``stream`` ``mtme`` also runs acc_eq's tie calibration in their float arithmetic."""

    tasks: str = "wmt23"


@dataclass(frozen=True)
class RankedSet:
    """One set: its system-level scores (:class:`JudgedSet`) and ``(systems, segments)`` matrices of
    the human and each metric's (oriented higher-is-better) segment scores."""

    judged: JudgedSet
    human_segments: np.ndarray
    metric_segments: dict[str, np.ndarray]


@dataclass(frozen=True)
class Task:
    """One task: ``statistic`` (accuracy, pearson, acc_eq, spa) at ``level`` over ``sets`` (several
    for the global accuracy only), its normalised ``weight`` and its range."""

    statistic: str
    level: str
    sets: tuple[RankedSet, ...]
    weight: float

    @property
    def label(self) -> str:
        """``LEVEL STATISTIC SET[,SET...]``."""
        return f"{self.level} {self.statistic} {','.join(s.judged.name for s in self.sets)}"

    @property
    def range(self) -> tuple[float, float]:
        """The statistic's (low, high) bounds, what normalises it to [0, 1]."""
        return RANGES[self.statistic]

    @property
    def test(self) -> str:
        """The permutation test of its pairs of metrics."""
        return "perm-pairs" if self.statistic == "acc_eq" else "perm-both"


@dataclass(frozen=True)
class TaskResult:
    """A task run (their ``TaskResults``): ``values`` best first, ``ranks``, the ``p_values`` matrix in
    that order and the draws of every tested pair ``(a, b)`` (a before b): ``(k, 2)`` = (a's, b's)."""

    task: Task
    values: dict[str, float]
    ranks: dict[str, int]
    p_values: np.ndarray
    draws: dict[tuple[str, str], np.ndarray] = field(repr=False)

    def pair_draws(self, first: str, second: str) -> np.ndarray:
        """The draws of two metrics as (first's, second's), whichever this task ranked higher
        (their ``TaskResults.Draws``)."""
        if (first, second) in self.draws:
            return self.draws[(first, second)]
        return self.draws[(second, first)][:, ::-1]


def wmt_tasks(name: str, sets: Sequence[RankedSet]) -> list[Task]:
    """The tasks of ``wmt23`` or ``wmt24`` (mt-metrics-eval's ``WMT23()``/``WMT24()``) for the sets, in
    the order given (theirs sorts the language pairs), weights normalised to sum 1."""
    if name not in TASK_SETS:
        raise ConfigError(f"--tasks {name!r}: give {' or '.join(TASK_SETS)}")
    plan: list[tuple[str, str, tuple[RankedSet, ...], float]] = []
    if name == "wmt23":
        plan.append(("accuracy", "sys", tuple(sets), float(len(sets))))
        for one in sets:
            plan += [("pearson", "sys", (one,), 1.0), ("pearson", "seg", (one,), 1.0), ("acc_eq", "seg", (one,), 1.0)]
    else:
        for one in sets:
            plan += [("spa", "sys", (one,), 1.0), ("acc_eq", "seg", (one,), 1.0)]
    total = sum(w for *_, w in plan)
    return [Task(statistic, level, chosen, w / total) for statistic, level, chosen, w in plan]


def _segments(opened: OpenedSet, judged: JudgedSet, options: RankingOptions) -> RankedSet:
    """A set's segment matrices on the systems of ``judged`` (refused: no segment-level judgement)."""
    from mteval.evaluate.correlate import read_human

    campaign = opened.campaign
    human = read_human(opened.judgements, campaign.texts, options.unknown_systems, options.human_lower_better)
    h = np.stack([human.segment_scores(s) for s in judged.systems])
    if np.isnan(h).all():
        raise ConfigError(f"--tasks {options.tasks} has segment-level tasks, which need segment-level judgements; "
                          "this file has system-level ones only", opened.judgements)
    try:
        raw = {shown: np.stack([campaign.cache.read(s, judged.refset, own, len(campaign.texts))[1].scores.segments
                                for s in judged.systems]).astype(np.float64)
               for shown, own in opened.metrics.items()}
    except StaleFile as stale:
        raise verifier_of(campaign.cache).summary(stale, [(s, judged.refset, own) for s in judged.systems
                                                             for own in opened.metrics.values()]) from None
    oriented = {m: raw[m] if higher_is_better(own) else -raw[m] for m, own in opened.metrics.items()}
    return RankedSet(judged, h, oriented)


def read_ranked_sets(pairs: Sequence[tuple[str, str]], options: RankingOptions) -> list[RankedSet]:
    """Every (config, judgements) set on the metrics they share, with system and segment scores."""
    out = []
    for opened in open_sets(pairs, options.metrics):
        judged = read_set(opened.campaign, opened.name, opened.config, opened.judgements, opened.metrics, options)
        out.append(_segments(opened, judged, options))
    return out


def _search(options: RankingOptions) -> str:
    """acc_eq's tie-calibration search: their float loop with their draws, else the exact one."""
    return "mtme" if options.stream == "mtme" else "exact"


def task_value(task: Task, metric: str, options: RankingOptions) -> float:
    """A metric's value on a task (their ``CompareMetrics*`` correlation)."""
    if task.statistic == "accuracy":
        human = np.concatenate([s.judged.human for s in task.sets])
        vector = np.concatenate([s.judged.metrics[metric] for s in task.sets])
        agree, pairs = pooled_accuracy_counts(human, vector, [len(s.judged.systems) for s in task.sets])
        return agree / pairs
    one = task.sets[0]
    if task.statistic == "pearson" and task.level == "sys":
        return pearson(one.judged.human, one.judged.metrics[metric])
    if task.statistic == "pearson":
        return pearson(one.human_segments.ravel(), one.metric_segments[metric].ravel())
    if task.statistic == "spa":
        return wmt_stats.soft_pairwise_accuracy(one.human_segments, one.metric_segments[metric])
    return wmt_stats.tie_calibration(one.human_segments, one.metric_segments[metric], "acc23", "item",
                                     search=_search(options)).value


def task_test(task: Task, a: str, b: str, options: RankingOptions, stop: EarlyStop) -> Permutation:
    """The permutation test of "a is better than b" on a task, its draws kept (their ``ComputeSigMatrix``)."""
    k, seed, stream = options.resamples, options.seed, options.stream
    if task.statistic == "accuracy":
        human = np.concatenate([s.judged.human for s in task.sets])
        va, vb = (np.concatenate([s.judged.metrics[m] for s in task.sets]) for m in (a, b))
        statistic = pooled_accuracy([len(s.judged.systems) for s in task.sets])
        return permutation_sig_diff("accuracy", human, va, vb, "none", k, stop, seed, stream, statistic=statistic)
    one = task.sets[0]
    if task.level == "sys" and task.statistic == "pearson":
        return permutation_sig_diff("pearson", one.judged.human, one.judged.metrics[a], one.judged.metrics[b],
                                    "none", k, stop, seed, stream)
    h, ma, mb = one.human_segments, one.metric_segments[a], one.metric_segments[b]
    if task.statistic == "acc_eq":
        return pairwise_permutation_sig_diff(h, ma, mb, "acc23", "item", k, stop, seed=seed, stream=stream,
                                             search=_search(options), sample_rate=1.0)
    return permutation_sig_diff(task.statistic, h, ma, mb, "none", k, stop, seed, stream)


def run_task(task: Task, values: dict[str, float], options: RankingOptions) -> TaskResult:
    """A task's pairs' tests (draws kept) and ranks from its metrics' ``values`` (their ``Task.Run``)."""
    stop = early_stop(options.early_stop)
    order = sorted(values, key=lambda m: (-values[m], m))
    p = np.zeros((len(order), len(order)))
    draws: dict[tuple[str, str], np.ndarray] = {}
    for i, a in enumerate(order):
        for j in range(i + 1, len(order)):
            result = task_test(task, a, order[j], options, stop)
            p[i, j], draws[(a, order[j])] = result.p_value, result.draws
    ranks = dict(zip(order, assign_ranks(p, options.alpha), strict=True))
    return TaskResult(task, {m: values[m] for m in order}, ranks, p, draws)


def _normalised(result: TaskResult, value: float | np.ndarray) -> float | np.ndarray:
    """A task value (or draws) mapped to [0, 1] by the task's range, times the task's weight, in
    their order of operations (``AverageCorrMatrix``'s draws; ``AverageCorrs`` weighs after)."""
    low, high = result.task.range
    return result.task.weight * (value - low) / (high - low)


def average_values(results: Sequence[TaskResult]) -> dict[str, float]:
    """metric -> the weighted average of its normalised task values, best first; the metrics of every
    task, exact ties in the first task's order (their ``AverageCorrs``: a stable sort)."""
    every = [m for m in results[0].values if all(m in r.values for r in results)]
    parts: dict[str, list[float]] = {m: [] for m in every}
    for r in results:
        low, high = r.task.range
        for m in every:
            parts[m].append((r.values[m] - low) / (high - low) * r.task.weight)
    sums = {m: sum(parts[m]) for m in every}
    return dict(sorted(sums.items(), key=lambda item: -item[1]))


def average_matrix(results: Sequence[TaskResult], averages: dict[str, float]) -> np.ndarray:
    """p[i, j] (i < j in the averages' order): the share of summed per-task null differences
    weight * (normalised draw of i - normalised draw of j) at least the averages' difference; a task
    with fewer draws repeats them up to the longest (their ``AverageCorrMatrix``)."""
    names = list(averages)
    p = np.zeros((len(names), len(names)))
    for i, first in enumerate(names):
        for j in range(i + 1, len(names)):
            second = names[j]
            observed = averages[first] - averages[second]
            longest = max(len(r.pair_draws(first, second)) for r in results)
            if longest == 0:
                raise ConfigError("the averages' significance needs each task's draws: --resamples must be >= 1")
            null = np.zeros((len(results), longest))
            for k, r in enumerate(results):
                scaled = _normalised(r, r.pair_draws(first, second))
                assert isinstance(scaled, np.ndarray)
                diff = scaled[:, 0] - scaled[:, 1]
                null[k] = np.tile(diff, math.ceil(longest / len(diff)))[:longest]
            p[i, j] = np.mean(np.sum(null, axis=0) >= observed)
    return p


def _defined(tasks: Sequence[Task], metrics: Sequence[str], options: RankingOptions) -> list[dict[str, float]]:
    """Every task's values of the metrics defined (not NaN) on every task; the others named in one warning."""
    values = [{m: task_value(t, m, options) for m in metrics} for t in tasks]
    undefined = [m for m in metrics if any(math.isnan(v[m]) for v in values)]
    if undefined:
        where = {m: next(t.label for t, v in zip(tasks, values, strict=True) if math.isnan(v[m])) for m in undefined}
        LOG.warning("wmt ranking: left out the metrics undefined (NaN, e.g. constant scores) on a task: "
                    + ", ".join(f"{m} ({where[m]})" for m in undefined))
    kept = [{m: v for m, v in one.items() if m not in undefined} for one in values]
    if len(kept[0]) < 1:
        raise ConfigError("no metric has a value on every task")
    return kept


def ranking_records(sets: Sequence[RankedSet], options: RankingOptions) -> list[Record]:
    """The records of :func:`wmt_ranking` for sets on the same metrics: one per metric (best first:
    ``score`` = average, ``rank``, ``taskN`` and ``rank:taskN`` per task), one per task (``table``
    ``wmt-tasks``: ``score`` = weight), one per pair ``A>B`` of the averages (``p_value``)."""
    check_count(options.resamples, "--resamples")
    check_alpha(options.alpha)
    early_stop(options.early_stop)
    tasks = wmt_tasks(options.tasks, sets)
    values = _defined(tasks, list(sets[0].judged.metrics), options)
    results = [run_task(t, v, options) for t, v in zip(tasks, values, strict=True)]
    averages = average_values(results)
    p = average_matrix(results, averages)
    names = list(averages)
    ranks = assign_ranks(p, options.alpha)
    keys = [f"task{k}" for k in range(1, len(results) + 1)]
    out = [record(f"rank:{options.tasks}", "-", m, "-", averages[m], correlation=options.tasks, rank=rank,
                  ranked_by=RANKED_BY, alpha=options.alpha, table="metric-ranks", sets=",".join(
                      s.judged.name for s in sets),
                  **{key: r.values[m] for key, r in zip(keys, results, strict=True)},
                  **{f"rank:{key}": r.ranks[m] for key, r in zip(keys, results, strict=True)})
           for m, rank in zip(names, ranks, strict=True)]
    out += [record(key, "-", "-", r.task.level, r.task.weight, table="wmt-tasks", task=r.task.label,
                   statistic=r.task.statistic, sets=",".join(s.judged.name for s in r.task.sets),
                   low=r.task.range[0], high=r.task.range[1], ranked_by=r.task.test,
                   trials=max((len(d) for d in r.draws.values()), default=0))
            for key, r in zip(keys, results, strict=True)]
    out += [record(f"{RANKED_BY}:{options.tasks}", "-", f"{a}>{names[j]}", "-", averages[a] - averages[names[j]],
                   correlation=options.tasks, test=RANKED_BY, p_value=float(p[i, j]))
            for i, a in enumerate(names) for j in range(i + 1, len(names))]
    return out


def wmt_ranking(pairs: Sequence[tuple[str, str]], options: RankingOptions | None = None) -> list[Record]:
    """The WMT23/WMT24 overall ranking of the metrics over (config, judgements) sets (module docstring)."""
    settings = options or RankingOptions()
    if settings.tasks not in TASK_SETS:
        raise ConfigError(f"--tasks {settings.tasks!r}: give {' or '.join(TASK_SETS)}")
    return ranking_records(read_ranked_sets(pairs, settings), settings)
