"""The report's two-system analyses from a campaign: compare-mt's (:mod:`mteval.report.pair`,
Neubig et al. 2019) on the texts and one metric's segment scores, and the linguistic error analysis
(:mod:`mteval.report.linguistic`) on the parses already in the annotation cache (never parsed here).

The pair is ``--pair A,B``, by default the two best systems on the first metric with every file
(the systems table's order)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.errors import ConfigError, MtevalError, quote
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.metrics import registry
from mteval.metrics.registry import higher_is_better
from mteval.report import linguistic, pair
from mteval.report.data import SystemScores
from mteval.report.syntax import CachedParses

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Analyses:
    """What the report shows of two systems and of every system's structures (None: not computed)."""

    pair: pair.PairAnalysis | None = None
    recalls: dict[str, linguistic.SystemRecalls] | None = None
    linguistic_pair: linguistic.LinguisticPair | None = None
    note: str = ""


def chosen_pair(scores: SystemScores, metric: str | None, asked: str | None) -> tuple[str, str] | None:
    """``--pair A,B`` checked against the selected systems, else the two best on ``metric``."""
    if asked is not None:
        names = [n.strip() for n in asked.split(",")]
        if len(names) != 2 or names[0] == names[1]:
            raise ConfigError(f"--pair {quote(asked)}: name two different systems, as A,B")
        unknown = [n for n in names if n not in scores.systems]
        if unknown:
            raise ConfigError(f"--pair: {quote(unknown[0])} is not among the selected systems: "
                              + ", ".join(scores.systems))
        return names[0], names[1]
    if metric is None or len(scores.systems) < 2:
        return None
    values = scores.system[scores.metrics.index(metric)]
    sign = -1.0 if higher_is_better(metric) else 1.0
    best = sorted(range(len(scores.systems)), key=lambda s: (np.isnan(values[s]), sign * np.nan_to_num(values[s])))
    return scores.systems[best[0]], scores.systems[best[1]]


def _text_references(texts: LoadedTexts, references: Sequence[str]) -> list[str]:
    """The selected references that are texts (a hybridized set is not)."""
    return [r for r in references if r in texts.references]


def pair_of(names: tuple[str, str], scores: SystemScores, metric: str, texts: LoadedTexts,
            references: Sequence[str], rows: np.ndarray, freq_corpus: Sequence[str] | None,
            case_sensitive: bool | None) -> pair.PairAnalysis | None:
    """compare-mt's analyses of the pair on the selected segments, with ``metric``'s segment scores."""
    refs = _text_references(texts, references)
    if not refs:
        return None
    a, b = names
    k = scores.metrics.index(metric)

    def lines(name: str) -> list[str]:
        return [texts.text(name).segments[i] for i in rows]

    source = [texts.source.segments[i] for i in rows] if texts.source is not None else None
    return pair.pair_analysis(a, b, lines(a), lines(b), [lines(r) for r in refs], source,
                              scores.segments[k, scores.systems.index(a)], scores.segments[k, scores.systems.index(b)],
                              metric, freq_corpus, higher_is_better=higher_is_better(metric),
                              case_sensitive=case_sensitive is not False, segment_numbers=[int(i) + 1 for i in rows])


def parsed(metrics: Sequence[str]) -> bool:
    """Whether a selected metric is computed from parses (so the annotation cache holds them)."""
    for metric in metrics:
        try:
            if registry.families()[registry.family_of(metric)].needs_annotation:
                return True
        except ConfigError:
            continue
    return False


def linguistic_of(experiment: Experiment, names: tuple[str, str] | None, systems: Sequence[str],
                  texts: LoadedTexts, references: Sequence[str], rows: np.ndarray) -> Analyses:
    """Every system's recalls and the pair's differences, from the cached parses."""
    refs = _text_references(texts, references)
    try:
        sides = [*refs, *systems]
        found = CachedParses(experiment).get([texts.text(n).segments[i] for n in sides for i in rows])  # one read
        by_side = {n: found[k * len(rows):(k + 1) * len(rows)] for k, n in enumerate(sides)}
        ref_parses, parses = [by_side[r] for r in refs], {s: by_side[s] for s in systems}
    except MtevalError as exc:
        return Analyses(note=f"linguistic analysis skipped: {exc.format()}")
    try:
        recalls = {s: linguistic.system_recalls(parses[s], ref_parses) for s in systems}
        if all(r.segments == 0 for r in recalls.values()):
            return Analyses(note="linguistic analysis skipped: no parse of the selected texts in the annotation cache")
        differences = None
        if names is not None:
            differences = linguistic.pair_differences(*names, parses[names[0]], parses[names[1]], ref_parses,
                                                      segment_numbers=[int(i) + 1 for i in rows])
    finally:
        linguistic.forget()
    return Analyses(recalls=recalls, linguistic_pair=differences)
