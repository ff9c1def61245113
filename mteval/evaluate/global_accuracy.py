"""mteval global-accuracy: system-level pairwise accuracy pooled over several test sets, with ranks.

The headline system-level number of the WMT metrics shared tasks since WMT21 (Kocmi et al. 2021,
"To Ship or Not to Ship: An Extensive Evaluation of Automatic Metrics for Machine Translation",
arXiv 2107.10821), as google-research/mt-metrics-eval's ``data.CompareMetricsWithGlobalAccuracy``
computes it. Each set is an experiment (typically one language pair) with its human judgements:

* systems: the set's systems with a human system score (its judgements file's system rows, else
  the mean of its segment rows: as ``iqeval -assessments FILE -G sys``), at least 2; references:
  the set's default selection (all references), as iqeval;
* metrics: those of every set (``-M`` names them and each set must have them, else the default
  selection of every set, intersected; the metrics some set lacks are named in one warning);
* a metric's global accuracy = its agreeing system pairs summed over the sets / the pairs summed
  (pairs never cross sets; a pair agrees when sign(human difference) == sign(metric difference),
  ties agreeing with ties: their ``Agreement``), its per-set accuracies beside it;
* ranks: the metrics sorted by decreasing accuracy (the name breaking ties); for each pair i < j
  in that order PERM-BOTH (:func:`~mteval.meta.stats.significance.permutation_sig_diff`, average
  ``none``) on the concatenated system vectors with the pooled accuracy as statistic
  (:func:`~mteval.meta.stats.correlation.pooled_accuracy`) gives the p-value of "i is better than
  j"; :func:`~mteval.evaluate.metric_ranks.rank_records` (their ``AssignRanks``) ranks at ``alpha``.

Records (``--json`` rows): one per metric, best first (table ``metric-ranks``: ``score`` = global
accuracy, ``rank``, ``ranked_by``, ``alpha``, ``agreeing``, ``pairs``, ``accuracy:SET`` per set),
then one per tested pair ``A>B`` (``test`` ``perm-both``, ``p_value``, ``score`` = the difference of the
z-scored vectors' accuracies, ``trials``). Each pair's test draws from ``seed`` (``stream`` ``numpy``:
``default_rng``; ``mtme``: their ``np.random`` coins, reseeded per pair).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.errors import ConfigError, MtevalError
from mteval.evaluate.campaign import Campaign, sel_files
from mteval.evaluate.correlate import ASSESSMENT_SEED, early_stop, read_human
from mteval.evaluate.metric_ranks import rank_records
from mteval.evaluate.records import Record, record
from mteval.meta.stats.correlation import pooled_accuracy, pooled_accuracy_counts
from mteval.meta.stats.paired import check_alpha, check_count
from mteval.meta.stats.significance import permutation_sig_diff
from mteval.metrics.registry import canonical, higher_is_better
from mteval.setup.expected import StaleFile
from mteval.setup.verify import verifier_of
from mteval.store.cache import refset_name

LOG = logging.getLogger(__name__)
NAME = "global-accuracy"  # the records' correlation
TEST = "perm-both"


@dataclass(frozen=True)
class GlobalOptions:
    """The command's options by their Python names (``metrics``: -M, a set name or comma-separated;
    ``early_stop``: ``BLOCK,MIN,MAX`` or None; ``stream``: ``numpy`` or ``mtme``, library only)."""

    metrics: str | None = None
    resamples: int = 1000
    seed: int = ASSESSMENT_SEED
    alpha: float = 0.05
    early_stop: str | None = None
    unknown_systems: str = "refuse"
    human_lower_better: bool = False
    stream: str = "numpy"


@dataclass(frozen=True)
class JudgedSet:
    """One set's system-level scores: ``human`` and each metric's (oriented higher-is-better)
    system scores, aligned with ``systems`` (those with a human score)."""

    name: str
    config: str
    judgements: str
    refset: str
    systems: tuple[str, ...]
    human: np.ndarray
    metrics: dict[str, np.ndarray]


def _selected(campaign: Campaign, metrics: str | None, config: str) -> list[str]:
    """A set's metrics: ``-M``'s (each one required) or its default selection (iqeval's)."""
    try:
        return list(campaign.selection("sys", metrics).metrics)
    except MtevalError as error:
        raise ConfigError(error.problem, error.path or config) from None


def common_metrics(selected: Sequence[tuple[str, Sequence[str]]], explicit: bool) -> list[str]:
    """The metrics of every set (``selected``: each set's name and metrics; a metric is matched by the
    variant it denotes, so ``NIST`` in one set is ``NIST-5`` in another), in the first set's order and
    spelling; without ``explicit`` (-M), the metrics some set lacks are named in one warning."""
    first = list(selected[0][1])
    kinds = [{canonical(m) for m in metrics} for _, metrics in selected]
    common = [m for m in first if all(canonical(m) in kind for kind in kinds)]
    dropped = sorted({m for _, metrics in selected for m in metrics if canonical(m) not in set(map(canonical, common))})
    if dropped and not explicit:
        LOG.warning(f"left out the metrics some set lacks: {', '.join(dropped)} "
                    f"(the sets have {len(common)} in common)")
    if not common:
        raise ConfigError("the sets have no metric in common: " + "; ".join(
            f"{name}: {', '.join(metrics) or 'none'}" for name, metrics in selected))
    return common


def read_set(campaign: Campaign, name: str, config: str, judgements: str, metrics: dict[str, str],
             options: GlobalOptions) -> JudgedSet:
    """The system scores of ``metrics`` (shown name -> the set's own name of that variant) and the
    human system scores of one set (module docstring)."""
    sel = campaign.selection("sys", list(metrics.values()))
    human = read_human(judgements, campaign.texts, options.unknown_systems, options.human_lower_better)
    found = {s: human.system[s] for s in sel.systems if s in human.system}
    if len(found) < 2:
        raise ConfigError(f"global accuracy needs at least 2 systems with human scores per set, got {len(found)} "
                          f"of the experiment's {len(sel.systems)} ({config})", judgements)
    systems, refset = tuple(found), refset_name(sel.references)
    try:
        scores = {m: np.asarray([campaign.cache.read(s, refset, m, len(campaign.texts))[1].scores.system
                                 for s in systems], dtype=np.float64) for m in sel.metrics}
    except StaleFile as stale:
        raise verifier_of(campaign.cache).summary(stale, sel_files(sel)) from None
    for m, values in scores.items():
        if np.isnan(values).any():
            missing = systems[int(np.flatnonzero(np.isnan(values))[0])]
            raise ConfigError(f"metric {m!r} has no system score for {missing!r}", config)
    oriented = {shown: scores[m] if higher_is_better(m) else -scores[m] for shown, m in metrics.items()}
    return JudgedSet(name, config, judgements, refset, systems, np.asarray(list(found.values())), oriented)


@dataclass(frozen=True)
class OpenedSet:
    """One (config, judgements) set opened: its name, campaign and ``metrics`` (shown name -> the set's
    own name of that variant)."""

    name: str
    config: str
    judgements: str
    campaign: Campaign
    metrics: dict[str, str]


def open_sets(pairs: Sequence[tuple[str, str]], metrics: str | None) -> list[OpenedSet]:
    """Every (config, judgements) set opened, on the metrics they share (:func:`common_metrics`;
    ``metrics``: -M)."""
    if not pairs:
        raise ConfigError("give at least one CONFIG JUDGEMENTS pair")
    campaigns = [_opened(config) for config, _ in pairs]
    names = _names([c.experiment.name for c in campaigns])
    selected = [(name, _selected(c, metrics, config)) for name, c, (config, _) in
                zip(names, campaigns, pairs, strict=True)]
    shared = common_metrics(selected, metrics is not None)
    owns = [{canonical(m): m for m in own} for _, own in selected]
    return [OpenedSet(name, config, judgements, c, {m: own[canonical(m)] for m in shared})
            for name, c, own, (config, judgements) in zip(names, campaigns, owns, pairs, strict=True)]


def read_sets(pairs: Sequence[tuple[str, str]], options: GlobalOptions) -> list[JudgedSet]:
    """Every (config, judgements) set, on the metrics they share (:func:`common_metrics`)."""
    return [read_set(o.campaign, o.name, o.config, o.judgements, o.metrics, options)
            for o in open_sets(pairs, options.metrics)]


def _opened(config: str) -> Campaign:
    """The campaign of a config, a problem with the file named."""
    try:
        return Campaign.open(config)
    except MtevalError as error:
        raise ConfigError(error.problem, error.path or config) from None


def _names(names: Sequence[str]) -> list[str]:
    """The sets' names: their experiments', a repeated one numbered (``name#2``)."""
    out: list[str] = []
    for name in names:
        out.append(name if name not in out else f"{name}#{sum(n.split('#')[0] == name for n in out) + 1}")
    return out


def global_accuracy_records(sets: Sequence[JudgedSet], options: GlobalOptions) -> list[Record]:
    """The records of the module docstring for sets on the same metrics."""
    check_count(options.resamples, "--resamples")
    check_alpha(options.alpha)
    stop = early_stop(options.early_stop)
    sizes = [len(s.systems) for s in sets]
    human = np.concatenate([s.human for s in sets])
    metrics = list(sets[0].metrics)
    vectors = {m: np.concatenate([s.metrics[m] for s in sets]) for m in metrics}
    counts = {m: pooled_accuracy_counts(human, vectors[m], sizes) for m in metrics}
    plain = [record(NAME, "-", m, "sys", agree / pairs, correlation=NAME, variant="plain")
             for m, (agree, pairs) in counts.items()]
    ranked = sorted(metrics, key=lambda m: (-counts[m][0] / counts[m][1], m))
    statistic = pooled_accuracy(sizes)
    tests = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1:]:
            result = permutation_sig_diff(NAME, human, vectors[a], vectors[b], "none", options.resamples, stop,
                                          options.seed, options.stream, statistic=statistic)
            tests.append(record(f"{TEST}:{NAME}", "-", f"{a}>{b}", "sys", result.delta, correlation=NAME, test=TEST,
                                p_value=result.p_value, trials=len(result.draws)))
    ranks = rank_records([*plain, *tests], options.alpha) if tests else \
        [{**r, "target": f"rank:{TEST}:{NAME}", "rank": 1, "ranked_by": TEST, "alpha": options.alpha,
          "table": "metric-ranks"} for r in plain]
    for r in ranks:
        r.pop("variant", None)
        agree, pairs = counts[r["metric"]]
        r.update(agreeing=agree, pairs=pairs, sets=",".join(s.name for s in sets))
        r.update({f"accuracy:{s.name}": _set_accuracy(s, r["metric"]) for s in sets})
    return [*ranks, *tests]


def _set_accuracy(one: JudgedSet, metric: str) -> float:
    """A metric's pairwise accuracy within one set."""
    agree, pairs = pooled_accuracy_counts(one.human, one.metrics[metric], [len(one.systems)])
    return agree / pairs


def global_accuracy(pairs: Sequence[tuple[str, str]], options: GlobalOptions | None = None) -> list[Record]:
    """Global accuracy and ranks of the metrics over (config, judgements) sets (module docstring)."""
    settings = options or GlobalOptions()
    return global_accuracy_records(read_sets(pairs, settings), settings)
