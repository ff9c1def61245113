"""A campaign: an experiment, its texts and its verified score cache, built once per command and used
by every command and by the Python API (:mod:`mteval.api`), with iqeval's measures as methods whose
records are iqeval's ``--json`` rows. Every read is verified against the texts and settings
(:func:`mteval.setup.verify.open_cache`)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mteval.experiment.loading import load
from mteval.experiment.spec import Experiment, computable
from mteval.experiment.texts import LoadedTexts, load_texts
from mteval.metrics import registry
from mteval.setup.expected import StaleFile
from mteval.setup.run import Progress, SetupReport, run_setup
from mteval.setup.verify import open_cache, verifier_of
from mteval.store.cache import ScoreCache, refset_name

if TYPE_CHECKING:  # the measures are imported by the methods that use them: iqsetup needs none
    from mteval.evaluate.selection import Selection

Record = dict[str, Any]
Names = str | Sequence[str] | None  # a set name or comma-separated names (as iqeval -M -S -R), or a list


@dataclass(frozen=True, repr=False)
class Score:
    """One metric's scores of one system: ``score`` is the corpus (system) score iqeval shows (the
    family's own system rule: summed statistics for BLEU, chrF, TER...), ``segments`` its segment
    scores (NaN: none for that segment), ``signature`` what computed it (``nrefs:N|`` and the
    settings stored in the score file), ``higher_is_better`` its direction."""

    metric: str
    score: float
    segments: list[float]
    signature: str
    higher_is_better: bool

    def __str__(self) -> str:
        return f"{self.metric} = {self.score:.4f}"

    def __repr__(self) -> str:  # the segments counted, not listed (thousands in a notebook)
        return (f"Score(metric={self.metric!r}, score={self.score!r}, segments=[{len(self.segments)} scores], "
                f"signature={self.signature!r}, higher_is_better={self.higher_is_better!r})")


class Campaign:
    """An experiment and its texts; its cached scores, correlations and comparisons as records.

    Selections (``metrics``, ``systems``, ``references``) take a set name or comma-separated
    names, as iqeval's -M -S -R, or a list of names; ``segments`` a set name, a range string such
    as ``"1-3,10"`` (iqeval -T) or a list of 1-based numbers. Every read is verified: a score file
    that the current texts and settings did not produce raises one error naming it."""

    def __init__(self, experiment: Experiment, texts: LoadedTexts, labels: Mapping[str, str] | None = None) -> None:
        self.experiment = experiment
        self.texts = texts
        self.labels = dict(labels or {})  # text name -> what the caller called it (texts given to scored)
        self._cache: ScoreCache | None = None

    def __repr__(self) -> str:
        return (f"Campaign({self.experiment.name!r}: {len(self.systems)} systems, {len(self.references)} "
                f"references, {len(self.texts)} segments, cache {str(self.experiment.cache)!r})")

    @property
    def systems(self) -> tuple[str, ...]:
        return self.experiment.system_names

    @property
    def references(self) -> tuple[str, ...]:
        return self.experiment.reference_names

    @property
    def metrics(self) -> tuple[str, ...]:
        """The experiment's metrics (learned ones last)."""
        return self.experiment.metrics + self.experiment.learned_names

    @property
    def cache(self) -> ScoreCache:
        """The experiment's score cache, every read checked (:func:`~mteval.setup.verify.open_cache`)."""
        if self._cache is None:
            self._cache = open_cache(self.experiment, self.texts)
        return self._cache

    @classmethod
    def open(cls, config: str | os.PathLike) -> Campaign:
        """The campaign of an experiment file (YAML, IQMT's key=value, or an IQeval.config): the
        experiment and its texts, read once; the cache opens on first use."""
        return cls.of(load(Path(config)))

    @classmethod
    def of(cls, experiment: Experiment) -> Campaign:
        """The campaign of an experiment already loaded (and perhaps changed: a device, a -TRY system)."""
        return cls(experiment, load_texts(experiment))

    def label(self, name: str) -> str:
        """What the caller called a text (its key or file), else its name."""
        return self.labels.get(name, name)

    def compute(self, *, jobs: int | None = None, remake: bool = False, targets: Sequence[str] | None = None,
                jack: bool = False, progress: Progress | None = None, dask: str | None = None,
                take_over: bool = False) -> SetupReport:
        """What ``iqsetup`` does: compute every missing or stale score file of the metrics mteval
        computes (``targets``: of these texts only; ``jobs``: worker processes, None = the
        experiment's ``engine:``, else one per core; ``jack``: system/system files too; ``dask``: a
        scheduler; the rest as :func:`mteval.setup.run.run_setup`)."""
        report = run_setup(computable(self.experiment), self.texts, jack=jack, remake=remake, progress=progress,
                           targets=None if targets is None else tuple(targets), jobs=jobs, dask=dask,
                           take_over=take_over)
        self._cache = None  # read afresh
        return report

    def selection(self, level: str = "sys", metrics: Names = None, systems: Names = None, references: Names = None,
                  segments: str | Sequence[int] | None = None, with_references: bool = False) -> Selection:
        """What iqeval's -G -M -S -R -T -doref select (checked: an unknown name is one error)."""
        from mteval.evaluate.selection import select

        chosen = segments if segments is None or isinstance(segments, str) else ",".join(map(str, segments))
        return select(self.experiment, self.cache, len(self.texts), _joined(metrics), _joined(systems),
                      _joined(references), chosen, level, with_references, self.texts)

    def scores(self, level: str = "sys", *, metrics: Names = None, systems: Names = None, references: Names = None,
               segments: str | Sequence[int] | None = None, with_references: bool = False) -> list[Record]:
        """``iqeval -doOQ``'s records at ``level`` (sys, doc or seg): target, refset, metric, level,
        doc, segment, score (and ``aggregate``: the rule of a sys or doc score)."""
        from mteval.evaluate.outside_qarla import SubsetTexts, outside_qarla

        sel = self.selection(level, metrics, systems, references, segments, with_references)
        return self._records(sel, lambda: outside_qarla(self.cache, sel, self.texts.documents,
                                                        SubsetTexts.of(self.experiment, self.texts)))

    def warnings(self, *, metrics: Names = None, systems: Names = None, references: Names = None) -> list[str]:
        """The lines iqsetup, iqeval and the report warn with about these texts for this selection: texts
        the metrics would read wrongly (a system still tokenized or HTML-escaped, lines shifted, a copy
        of a reference or of the source, Chinese without word boundaries...; ``docs/usage.md``).
        Not logged: the methods returning scores say nothing, so ask here."""
        from mteval.evaluate.selection import warnings_of

        return warnings_of(self.experiment, self.texts, self.selection("sys", metrics, systems, references))

    def score(self, metric: str, system: str, references: Names = None) -> Score:
        """One metric's :class:`Score` of one system (against all references by default)."""
        sel = self.selection("sys", [metric], [system], references)
        refset = refset_name(sel.references)
        try:
            _, found = self.cache.read(sel.systems[0], refset, sel.metrics[0], len(self.texts))
        except StaleFile as stale:
            raise verifier_of(self.cache).summary(stale, sel_files(sel)) from None
        return Score(metric, float(found.scores.system), [float(v) for v in found.scores.segments],
                     f"nrefs:{len(sel.references)}|{found.signature}", registry.higher_is_better(sel.metrics[0]))

    def correlations(self, assessments: str | os.PathLike, level: str = "sys", *, metrics: Names = None,
                     systems: Names = None, references: Names = None, segments: str | Sequence[int] | None = None,
                     **options: Any) -> list[Record]:
        """``iqeval -assessments FILE``'s records (``options``: its options by their Python names,
        e.g. ``corr=["pearson", "kendall"]``, ``average="item"``, ``significance=True``, ``seed=1``)."""
        from mteval.evaluate import correlate

        known = sorted(f.name for f in dataclasses.fields(correlate.AssessOptions))
        unknown = [key for key in options if key not in known]
        if unknown:  # a TypeError, as for any function
            raise TypeError(f"unknown option {unknown[0]!r}; known: {', '.join(known)}")
        given: dict[str, Any] = {k: v if k != "corr" or isinstance(v, str) else ",".join(v) for k, v in options.items()}
        settings = correlate.AssessOptions(**given)
        sel = self.selection(level, metrics, systems, references, segments)
        from mteval.evaluate.outside_qarla import SubsetTexts

        subset = SubsetTexts.of(self.experiment, self.texts)
        return self._records(sel, lambda: correlate.assess(os.fspath(assessments), self.cache, sel, self.texts,
                                                           settings, self.experiment.language, subset))

    def compare(self, *, metrics: Names = None, systems: Names = None, references: Names = None,
                segments: str | Sequence[int] | None = None, baseline: str | None = None,
                **options: Any) -> list[Record]:
        """``iqeval -compare [-baseline SYS]``'s records: paired significance between systems
        (``options``: :class:`mteval.evaluate.compare.Options`' fields, e.g. ``resamples=1000``)."""
        from mteval.evaluate import compare

        settings = compare.Options(baseline=baseline, **options)
        sel = self.selection("sys", metrics, systems, references, segments)

        def run() -> list[Record]:
            results = compare.compare_systems(self.experiment, self.cache, sel, self.texts, settings)
            return compare.comparison_records(results, settings, refset_name(sel.references), len(sel.segments))

        return self._records(sel, run)

    def confidence(self, *, metrics: Names = None, systems: Names = None, references: Names = None,
                   segments: str | Sequence[int] | None = None, resamples: int = 1000, seed: int = 12345,
                   alpha: float = 0.05) -> list[Record]:
        """Each system's bootstrap interval, alone (sacreBLEU's ``--confidence``; ``mteval score
        --confidence``): a record per metric and system with ``score``, ``mean``, ``ci_low``,
        ``ci_high`` (:mod:`mteval.evaluate.confidence`); to compare systems, use :meth:`compare`."""
        from mteval.evaluate.confidence import confidence_records

        sel = self.selection("sys", metrics, systems, references, segments)
        return self._records(sel, lambda: confidence_records(self.experiment, self.cache, sel, self.texts, resamples,
                                                             seed, alpha))

    def queen(self, level: str = "sys", *, metrics: Names = None, systems: Names = None, references: Names = None,
              segments: str | Sequence[int] | None = None, with_references: bool = False,
              trans_topic: bool = False) -> list[Record]:
        """``iqeval -doQUEEN [-doref] [-TT]``'s records: QUEEN of each system (and reference) for the
        metric set, with ``hits`` and ``trials`` (IQMT manual §3; at least 3 references)."""
        from mteval.evaluate import qarla

        sel = self.selection(level, metrics, systems, references, segments, with_references)
        return self._records(sel, lambda: qarla.queen_records(qarla.selection_data(self.cache, sel, self.texts),
                                                              level, sel.segments, trans_topic, with_references))

    def king(self, level: str = "sys", *, metrics: Names = None, systems: Names = None, references: Names = None,
             segments: str | Sequence[int] | None = None, trans_topic: bool = False) -> list[Record]:
        """``iqeval -doKING``'s records: KING of each metric, then of the whole set (metric ``SET``)."""
        from mteval.evaluate import qarla

        sel = self.selection(level, metrics, systems, references, segments)
        return self._records(sel, lambda: qarla.king_records(qarla.selection_data(self.cache, sel, self.texts),
                                                             level, trans_topic))

    def jack(self, level: str = "sys", *, metrics: Names = None, systems: Names = None, references: Names = None,
             segments: str | Sequence[int] | None = None, trans_topic: bool = False) -> list[Record]:
        """``iqeval -doJACK``'s records (needs the system/system files: ``compute(jack=True)``)."""
        from mteval.evaluate import qarla

        sel = self.selection(level, metrics, systems, references, segments)
        return self._records(sel, lambda: qarla.jack_records(qarla.jack_data(self.cache, sel, self.texts), level,
                                                             sel.segments, trans_topic))

    def optimize_king(self, level: str = "sys", *, metrics: Names = None, systems: Names = None,
                      references: Names = None, segments: str | Sequence[int] | None = None,
                      trans_topic: bool = False, exhaustive: bool = False) -> list[Record]:
        """``iqeval -optimizeKING [--exhaustive]``'s records: the greedy trace, then the ``OPTIMAL`` set
        (``level="seg"`` for many trials: at ``sys`` there are only as many as references)."""
        from mteval.evaluate import qarla

        sel = self.selection(level, metrics, systems, references, segments)
        return self._records(sel, lambda: qarla.optimize_records(qarla.selection_data(self.cache, sel, self.texts),
                                                                 level, trans_topic, exhaustive))

    def _records(self, sel: Selection, make: Callable[[], list[Record]]) -> list[Record]:
        """The records ``make`` gives, without the text views' private keys; a stale file read on
        the way is refused in one error naming every stale file of the selection (as iqeval)."""
        try:
            records = make()
        except StaleFile as stale:
            raise verifier_of(self.cache).summary(stale, sel_files(sel)) from None
        return [{k: v for k, v in r.items() if not k.startswith("_")} for r in records]


def _joined(value: Names) -> str | None:
    """A selection as iqeval's option value: a list joined with commas (names keep their own)."""
    if value is None or isinstance(value, str):
        return value
    return ",".join(value)


def sel_files(sel: Selection) -> list[tuple[str, str, str]]:
    """The (target, refset, metric) files of a selection (:func:`mteval.evaluate.selection.selected_files`)."""
    from mteval.evaluate.selection import selected_files

    return selected_files(sel)
