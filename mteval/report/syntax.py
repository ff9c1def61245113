"""The drill-down's syntactic view: the head-word chains (DP-HWCM, word forms) of a hypothesis
that its reference lacks, and those of the reference it missed, from the parses in the
annotation cache (read only: a segment that was never parsed is skipped, never parsed here)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from mteval.annotate.conllu_cache import cache_key
from mteval.annotate.model import Sentence
from mteval.annotate.textprep import prepare_text
from mteval.errors import ConfigError, MtevalError
from mteval.experiment.spec import Experiment
from mteval.metrics import registry
from mteval.report.drilldown import DrillSegment
from mteval.setup.annotation import AnnotationProvider

FAMILY = "DP"
GROUP = "HWC_w"  # chains of word forms
LENGTHS = ("2", "3")  # single words are the lexical view already
SHOWN = 8  # chains listed per side


def wanted(metrics: Sequence[str]) -> bool:
    """Whether the report has a dependency (DP) metric, so the chains are worth showing."""
    for metric in metrics:
        try:
            if registry.family_of(metric) == FAMILY:
                return True
        except ConfigError:
            continue
    return False


class CachedParses:
    """Parses of segment texts from the experiment's annotation cache, without parsing."""

    def __init__(self, experiment: Experiment) -> None:
        self.annotator: Any = AnnotationProvider(experiment, {}).annotator

    def get(self, texts: Sequence[str]) -> list[Sentence | None]:
        """The cached parse of every text, None where it is not in the cache."""
        a = self.annotator
        keys = [cache_key(prepare_text(t, a.max_words).text, a.language, a.identity(), a.processors)
                for t in texts]
        found = a.cache.sentences(set(keys))
        return [found.get(k) for k in keys]


def _chains(family: Any, sentence: Sentence) -> dict[tuple[str, ...], int]:
    """Counts of the word-form head-word chains of lengths :data:`LENGTHS`."""
    typed = family.features(sentence)[GROUP]
    out: dict[tuple[str, ...], int] = {}
    for length in LENGTHS:
        out.update(typed.bag(length).counts)
    return out


def unmatched(hypothesis: Sentence, reference: Sentence,
              case_sensitive: bool | None = None) -> tuple[list[str], list[str]]:
    """(chains of the hypothesis not in the reference, chains of the reference not in the
    hypothesis), clipped counts, each chain written ``head > dependent [> ...]``."""
    family = registry.create(FAMILY, case_sensitive)
    hyp, ref = _chains(family, hypothesis), _chains(family, reference)
    extra = [" > ".join(c) for c, n in hyp.items() if n > ref.get(c, 0)]
    missed = [" > ".join(c) for c, n in ref.items() if n > hyp.get(c, 0)]
    return extra, missed


def notes(hypothesis: Sentence | None, reference: Sentence | None, case_sensitive: bool | None = None) -> list[str]:
    """The drill-down lines of one segment (a note when a parse is not cached)."""
    if hypothesis is None or reference is None:
        return ["dependency chains: parse not in the annotation cache (run iqsetup with a DP metric)"]
    extra, missed = unmatched(hypothesis, reference, case_sensitive)

    def shown(items: list[str]) -> str:
        more = f" (+{len(items) - SHOWN} more)" if len(items) > SHOWN else ""
        return "; ".join(items[:SHOWN]) + more if items else "none"
    return [f"head-word chains not in the reference: {shown(extra)}",
            f"reference chains missed: {shown(missed)}"]


Drilled = dict[str, list[DrillSegment]]


def annotate_drill(experiment: Experiment, drilled: Drilled) -> tuple[Drilled, str]:
    """The drill-down with each segment's chain notes, and a note for the page ("" when all went
    well; the reason when the annotation cache cannot be opened)."""
    segments = [s for group in drilled.values() for s in group]
    try:
        parses = CachedParses(experiment)
        found = parses.get([t for s in segments for t in s.texts])
    except MtevalError as exc:
        return drilled, f"dependency chains skipped: {exc.format()}"
    pairs = iter(zip(found[0::2], found[1::2], strict=True))
    out = {system: [dataclasses.replace(s, notes=tuple(notes(*next(pairs), experiment.case_sensitive)))
                    for s in group] for system, group in drilled.items()}
    return out, ""
