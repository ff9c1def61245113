"""iqeval -assessments RANKINGS.tsv --corr wmt12 -G seg: WMT12's Kendall tau over relative rankings.

The assessments file is a rankings TSV (``mteval.io.rankings``: ``event pair line judge slot
system rank``); ``line`` is the experiment's 1-based segment. When the file holds several language
pairs, the one whose target is the experiment's ``language`` is used (``en-fr`` for ``language:
fr``). Every selected metric gets one record: target ``wmt12``, ``score`` = tau, ``ci_low``/``ci_high``
(bootstrap over ranking events, ``--resamples``, ``--seed``), ``n`` = pairs compared, and the counts
``concordant``, ``discordant``, ``metric_ties`` (``mteval.meta.stats.wmt12_kendall``: metric ties count as
discordant, as in WMT12). With ``--significance``, every ordered metric pair A>B gets a paired
bootstrap record (target ``bootstrap:wmt12``, ``score`` = tau(A) - tau(B), ``p_value`` = share of
draws <= 0). Only the segment level: the WMT12 system score (wins / (wins + losses)) goes to
``-G sys`` as an ordinary assessments file (``system - score``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mteval.errors import ConfigError
from mteval.evaluate.records import Record, record
from mteval.io.rankings import pairs_in, read_rankings
from mteval.meta.stats.paired import check_count
from mteval.meta.stats.wmt12_kendall import bootstrap_taus, comparisons, difference, interval, wmt12_tau
from mteval.metrics.registry import higher_is_better
from mteval.store.cache import refset_name

NAME = "wmt12"


def wants_wmt12(correlations: list[str]) -> bool:
    """Whether ``--corr`` asks for the WMT12 rankings tau (then it must be the only correlation)."""
    if NAME in correlations and len(correlations) > 1:
        raise ConfigError(f"--corr {NAME} reads relative rankings, not scores: give it alone "
                          f"(got {','.join(correlations)})")
    return correlations == [NAME]


def choose_pair(path: str, language: str) -> str | None:
    """The language pair of ``path`` to use: its only pair, or the one into ``language``."""
    pairs = pairs_in(path)
    if len(pairs) <= 1:
        return pairs[0] if pairs else None
    into = [p for p in pairs if p.rsplit("-", 1)[-1] == language]
    if len(into) != 1:
        raise ConfigError(f"{path}: holds the pairs {', '.join(pairs)}; none is unambiguously into the "
                          f"experiment's language {language!r}: give a file with one pair")
    return into[0]


def wmt12_records(assessments: str, language: str, cache: Any, sel: Any, texts: Any, resamples: int, seed: int,
                  significance: bool = False) -> list[Record]:
    """The records of ``iqeval -assessments RANKINGS --corr wmt12 -G seg`` (``language``: the
    experiment's, choosing the rankings' pair into it; ``significance``: paired bootstrap records)."""
    if sel.level != "seg":
        raise ConfigError(f"--corr {NAME} is a segment-level statistic: use -G seg (system level: give the "
                          "WMT12 system scores as a 'system - score' assessments file)")
    check_count(resamples, "--resamples")
    n = len(texts)
    pair = choose_pair(assessments, language)
    events = read_rankings(assessments, n, pair, systems=[*texts.systems, *texts.references])
    pairs = comparisons(events, sel.systems, list(sel.rows))
    if not len(pairs.event):
        raise ConfigError(f"{assessments}: no untied human comparison between the selected systems "
                          "on the selected segments")
    refset = refset_name(sel.references)
    scores = {m: np.stack([cache.load(s, refset, m, n).segments for s in sel.systems])
              * (1 if higher_is_better(m) else -1) for m in sel.metrics}
    taus = {m: wmt12_tau(pairs, values, n=0) for m, values in scores.items()}
    draws = {m: bootstrap_taus(pairs, values, n=resamples, seed=seed) for m, values in scores.items()}
    out = []
    for metric, tau in taus.items():
        low, high = interval(draws[metric])
        out.append(record(NAME, refset, metric, "seg", tau.value, correlation=NAME, variant="plain",
                           n=len(pairs.event), ci_low=low, ci_high=high, concordant=tau.concordant,
                           discordant=tau.discordant, metric_ties=tau.metric_ties))
    if significance:
        for a in scores:
            for b in (b for b in scores if b != a):
                d = difference(taus[a].value, taus[b].value, draws[a], draws[b])
                out.append(record(f"bootstrap:{NAME}", refset, f"{a}>{b}", "seg", d.delta, correlation=NAME,
                                   test="bootstrap", p_value=d.p_value, ci_low=d.low, ci_high=d.high))
    return out
