"""Build a campaign report from an experiment's score cache (read only, as iqeval) and write it
as one self-contained HTML file, atomically."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mteval import __version__, progress
from mteval.errors import CacheError, ConfigError, quote
from mteval.evaluate import compare, correlate
from mteval.evaluate.campaign import Campaign
from mteval.evaluate.outside_qarla import SubsetTexts
from mteval.evaluate.selection import select, selected_files, warn_about_texts
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.files import write_atomic
from mteval.report import analysis, comparing, syntax
from mteval.report.content import Report
from mteval.report.data import RecordingCache, SystemScores, problem_lines, signatures_of, system_scores
from mteval.report.drilldown import drill
from mteval.report.pair import read_freq_corpus
from mteval.setup.verify import verifier_of

LOG = logging.getLogger(__name__)
MISSING_LISTED = 50  # the banner names at most this many unreadable files


@dataclass(frozen=True)
class Options:
    """What the command line chooses (``-M -S -R -T`` as iqeval)."""

    assessments: str | None = None
    metrics: str | None = None
    systems: str | None = None
    references: str | None = None
    segments: str | None = None
    resamples: int = compare.BS_RESAMPLES
    seed: int = compare.DEFAULT_SEED
    drill_metric: str | None = None
    per_system: int = 5
    # the significance tests, as iqeval -compare's (same defaults: the same clusters and numbers)
    correction: str = "holm"
    test: str = "both"
    trials: int = compare.AR_TRIALS
    ties: str = "sacrebleu"
    pair: str | None = None  # "A,B": the two systems of compare-mt's and the linguistic analyses
    freq_corpus: str | None = None  # word frequencies of the word-accuracy buckets (default: the references)
    unknown_systems: str = "refuse"  # judgements of systems the experiment lacks: refuse or skip (as iqeval)
    human_lower_better: bool = False  # the judgements are errors, HTER or ranks (as iqeval)

    def comparing(self) -> compare.Options:
        """The options of ``iqeval -compare`` that give the report's clusters and p-values."""
        return compare.Options(test=self.test, resamples=self.resamples, trials=self.trials, seed=self.seed,
                               alpha=analysis.ALPHA, correction=self.correction, ties=self.ties)


def _reversed(correlations: analysis.Correlations, assessments: str) -> list[str]:
    """The judgements-look-reversed line (:func:`mteval.evaluate.correlate.reversed_warning`), logged."""
    line = (correlate.reversed_warning(correlations.system, assessments)
            or correlate.reversed_warning(correlations.segment, assessments))
    if line:
        LOG.warning(line)
    return [line] if line else []


def _check(options: Options) -> None:
    """Refuse option values no analysis can use."""
    if options.resamples < 1:
        raise ConfigError(f"--resamples must be a positive integer, got {options.resamples}")
    if options.seed < 0:
        raise ConfigError(f"--seed must be a non-negative integer, got {options.seed}")
    if options.per_system < 1:
        raise ConfigError(f"--segments-per-system must be a positive integer, got {options.per_system}")


def build(config: str | Path, options: Options) -> Report:
    """Every number of the report (module docstring); CacheError when there is no cache at all.
    A progress bar (:mod:`mteval.progress`) advances over the sections as they are computed."""
    _check(options)
    options.comparing()  # one-line errors for the tests' options before any work
    campaign = Campaign.open(config)
    experiment, texts = campaign.experiment, campaign.texts
    cache = campaign.cache  # every file read is checked against the texts and settings
    if not cache.root.is_dir() or not cache.available():
        raise CacheError(f"no score files: run iqsetup {config} first", cache.root)
    sel = select(experiment, cache, len(texts), options.metrics, options.systems, options.references,
                 options.segments, "sys", texts=texts)
    verifier_of(cache).require(selected_files(sel))  # a stale file of the main table: one line, no page
    warnings = warn_about_texts(experiment, texts, sel)  # logged, and shown at the top of the page
    reader = RecordingCache(cache)
    rows = sel.rows
    with progress.bar(len(SECTIONS), "report", unit="section") as shown:
        shown.set_postfix_str(SECTIONS[0])
        scores = system_scores(reader, sel, texts.documents, SubsetTexts.of(experiment, texts))
        _next(shown, 1)
        correlations = None
        if options.assessments:
            human = correlate.read_human(options.assessments, texts, options.unknown_systems,
                                         options.human_lower_better)
            correlations = analysis.correlations(human, scores, reader, rows, len(texts), options.resamples,
                                                 options.seed)
            warnings += _reversed(correlations, options.assessments)
        _next(shown, 2)
        significance = analysis.significance(experiment, reader, sel, texts, scores, options.comparing())
        _next(shown, 3)
        qarla = analysis.qarla(reader, sel.metrics, sel.systems, sel.references, sel.segments, texts.documents)
        _next(shown, 4)
        metric = _drill_metric(options.drill_metric, scores.metrics, scores.complete)
        drilled = drill(scores, metric, texts, sel.references, rows, options.per_system) if metric else {}
        notes = []
        if drilled and syntax.wanted(sel.metrics):
            drilled, note = syntax.annotate_drill(experiment, drilled)
            notes += [note] if note else []
        _next(shown, 5)
        analyses = _analyses(experiment, options, scores, metric, texts, sel.references, rows)
        notes += [analyses.note] if analyses.note else []
        shown.update()
    missing, total = problem_lines(reader, MISSING_LISTED)
    return Report(
        title=experiment.name or Path(config).stem, config=str(config), cache=str(cache.root),
        references=tuple(sel.references), n_segments=len(rows), scores=scores, significance=significance,
        correlations=correlations, assessments=options.assessments, qarla=qarla, drill_metric=metric,
        drill=drilled, signatures=signatures_of(reader), options=_shown_options(options, metric),
        missing=missing, missing_total=total, notes=notes, warnings=warnings,
        agreements=analysis.agreements(scores, correlations.human_system) if correlations else [],
        analyses=analyses)


SECTIONS = ("scores", "correlations", "significance", "QARLA", "drill-down", "two systems")  # the bar's steps, in order


def _next(shown: progress.Bar, done: int) -> None:
    """One more section done; the bar names the next."""
    shown.update()
    shown.set_postfix_str(SECTIONS[done])


def _analyses(experiment: Experiment, options: Options, scores: SystemScores, metric: str | None,
              texts: LoadedTexts, references: Sequence[str], rows: np.ndarray) -> comparing.Analyses:
    """compare-mt's analyses of the pair (on the drill-down's metric) and, when a selected metric is
    computed from parses, the linguistic error analysis from the annotation cache."""
    names = comparing.chosen_pair(scores, metric, options.pair)
    freq = read_freq_corpus(options.freq_corpus) if options.freq_corpus else None
    found = None
    if names is not None and metric is not None:
        found = comparing.pair_of(names, scores, metric, texts, references, rows, freq, experiment.case_sensitive)
    if not comparing.parsed(scores.metrics):
        return comparing.Analyses(pair=found)
    ling = comparing.linguistic_of(experiment, names, scores.systems, texts, references, rows)
    return dataclasses.replace(ling, pair=found)


def _drill_metric(chosen: str | None, metrics: tuple[str, ...], complete: tuple[bool, ...]) -> str | None:
    """The drill-down's metric: the one asked for, else the first metric with every file."""
    if chosen is not None:
        if chosen not in metrics:
            raise ConfigError(f"--drill-metric {quote(chosen)} is not among the report's metrics: "
                              + ", ".join(metrics))
        return chosen
    return next((m for m, ok in zip(metrics, complete, strict=True) if ok), None)


def _shown_options(options: Options, metric: str | None) -> dict[str, str]:
    """The settings printed at the report's foot."""
    return {"mteval": __version__, "bootstrap resamples": str(options.resamples), "seed": str(options.seed),
            "confidence": f"{100 * (1 - analysis.ALPHA):.0f}%",
            "clusters": f"{_test_name(options)} p <= {analysis.ALPHA}, "
            + (f"{options.correction} correction over all pairs" if options.correction != "none"
               else "no multiple-comparison correction") + f", ties: {options.ties} (as iqeval -compare)",
            "approximate randomisation trials": str(options.trials) if options.test != "bs" else "-",
            "drill-down metric": metric or "-", "segments per system": str(options.per_system),
            "-M -S -R -T": " ".join(f"{flag} {value}" for flag, value in (
                ("-M", options.metrics), ("-S", options.systems), ("-R", options.references),
                ("-T", options.segments)) if value) or "(all)"}


def _test_name(options: Options) -> str:
    """The test whose p-values make the clusters, as the report's foot names it."""
    return "paired bootstrap" if options.test == "bs" else "approximate randomisation"


def write(report_html: str, path: str | Path) -> None:
    """Write the page atomically (a temporary file in the same folder, then rename)."""
    write_atomic(Path(path), report_html.encode("utf-8"))
