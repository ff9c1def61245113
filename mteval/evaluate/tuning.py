"""A learned metric from cached metrics and human judgements (``mteval tune``), docs/tuning.md.

``mteval tune CONFIG --assessments FILE -M FEATURES --name NAME``: the features are cached metrics
(segment scores against all references). The learner (ridge on standardised, de-duplicated
features for one of three objectives, optionally over a greedily selected metric set, or
Giménez's ULC over a greedily selected metric set) is
assessed by nested cross-validation by document (:mod:`mteval.meta.learn.nested_cv`): K outer folds,
its hyper-parameters chosen inside each outer training fold only. The report gives per test fold
and pooled τb within source lines, segment r and system r next to chrF (when cached) and the best
single feature, with paired bootstrap CIs of the differences. The learner is then run on all
judged points, and the result stored as metric NAME for every (target, reference set) pair of the
cache with all features (document and system scores: means of segments); its signature names
the training judgements (``trained-on:DIGEST@EXPERIMENT``). ``save_model`` also writes it as a
portable JSON file (:mod:`mteval.meta.learn.model_file`).

The folds need documents: SGML texts carry them, plain texts get them from a ``docids`` file.
With one document only (plain texts without ``docids``), tuning is refused, unless the caller
asks for folds by line (every line its own document), which is announced with a warning:
neighbouring segments of one document then sit in different folds, and the test statistics are
optimistic.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mteval.errors import ConfigError, InputError
from mteval.evaluate.correlate import read_human
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.meta.learn.greedy_ridge import greedy_ridge_learner
from mteval.meta.learn.learners import OBJECTIVES, criterion
from mteval.meta.learn.linear_metric import LinearMetric
from mteval.meta.learn.model_file import ModelFile, read_model, training_identity, write_model
from mteval.meta.learn.nested_cv import Learner, Nested, nested_cv, ridge_learner
from mteval.meta.learn.tune_report import FoldReport, build_report
from mteval.meta.learn.ulc import ulc_learner
from mteval.meta.learn.weight_tuning import split_documents
from mteval.meta.stats.judged import Judged
from mteval.metrics.registry import higher_is_better
from mteval.setup.learned import differing, feature_files, model_signature, store_pair
from mteval.setup.verify import open_cache
from mteval.store.cache import ScoreCache, refset_name
from mteval.store.iqxml import parse
from mteval.store.lock import exclusive

LOG = logging.getLogger(__name__)
BASELINE = "chrF"


@dataclass(frozen=True)
class TuneOptions:
    """How to learn: ``method`` ridge or ulc; the objective; outer and inner folds (by document);
    non-negative weights (ridge); greedy metric-set selection (ulc); bootstrap units and draws;
    the folds' seed; a model file to write; the elastic net's l1 ratio (ridge; 0: plain ridge);
    greedy metric-set selection for the ridge (``select``); how the judgements are read
    (:func:`mteval.evaluate.correlate.read_human`)."""

    method: str = "ridge"
    objective: str = "mean-removed"
    folds: int = 2
    inner_folds: int = 3
    nonneg: bool = False
    greedy: bool = True
    by_documents: bool = False
    n_boot: int = 1000
    seed: int = 0
    save_model: str | None = None
    l1_ratio: float = 0.0
    select: bool = False
    unknown_systems: str = "refuse"  # judgements of systems the experiment lacks: refuse or skip (as iqeval)
    human_lower_better: bool = False  # the judgements are errors, HTER or ranks: negated as read (as iqeval)


@dataclass(frozen=True)
class Validation:
    """The objective's criterion on every outer test fold (``test``) and training fold (``train``)."""

    test: tuple[float, ...]
    train: tuple[float, ...]

    @property
    def mean_test(self) -> float:
        """Mean test-fold criterion (Kahn et al. 2009 §6 report the mean of their two folds)."""
        return float(np.mean(self.test))


@dataclass(frozen=True)
class TuningResult:
    """The cross-validation and its report, the final combination, points and files written."""

    validation: Validation
    combination: LinearMetric
    points: int
    files: int
    report: list[FoldReport]
    dropped: tuple[str, ...]
    baseline: str | None
    identity: str


def _refuse_one_document(experiment: Experiment, texts: LoadedTexts) -> None:
    """The :class:`ConfigError` of texts with one document (plain texts without ``docids``)."""
    raise ConfigError("tune splits the documents in two folds, but the texts have one document "
                      f"({texts.documents.documents[0] if texts.documents.documents else 'none'}); give the "
                      "documents of plain texts with 'docids: FILE' (one id a line), or ask for folds by "
                      "line with --folds-by-line", experiment.config_path)


def document_folds(experiment: Experiment, texts: LoadedTexts, folds_by_line: bool = False) -> np.ndarray:
    """Fold (0/1) of every segment: the documents split in two halves (§6). With one document,
    a :class:`ConfigError` naming ``docids``, or with ``folds_by_line`` odd/even segments and a
    warning."""
    folds = split_documents(list(texts.documents.doc_ids))
    if len(set(folds)) >= 2:
        return folds
    if not folds_by_line:
        _refuse_one_document(experiment, texts)
    LOG.warning("FOLDS BY LINE: the texts have one document, so the folds are odd and even segments; "
                "segments of one document sit in both folds and the test correlations are optimistic "
                "(give 'docids: FILE' for document folds)")
    return np.arange(len(texts)) % 2


def document_labels(experiment: Experiment, texts: LoadedTexts, folds_by_line: bool = False) -> np.ndarray:
    """Document of every segment. With one document, the refusal of :func:`document_folds`, or with
    ``folds_by_line`` every line its own document, and a warning."""
    if len(set(texts.documents.doc_ids)) >= 2:
        return np.asarray(texts.documents.doc_ids)
    if not folds_by_line:
        _refuse_one_document(experiment, texts)
    LOG.warning("FOLDS BY LINE: the texts have one document, so every line is a document of its own for the "
                "folds; neighbouring segments of one document sit in different folds and the test statistics "
                "are optimistic (give 'docids: FILE' for document folds)")
    return np.asarray([f"line{i}" for i in range(len(texts))])


def _judged(experiment: Experiment, texts: LoadedTexts, cache: ScoreCache, features: tuple[str, ...],
            assessments: str, documents: np.ndarray,
            options: TuneOptions | None = None) -> tuple[Judged, list[str], np.ndarray | None]:
    """Judged points with all features, the rated systems, and chrF's scores of them (if cached);
    ``options``: how the judgements are read (research/validity_study.py calls it without)."""
    options = options or TuneOptions()
    human = read_human(assessments, texts, options.unknown_systems, options.human_lower_better)
    refset = refset_name(experiment.reference_names)
    rated = [s for s in experiment.system_names if s in human.systems]
    if not rated:
        raise ConfigError(f"no system of the experiment is in {assessments}")
    n = len(texts)
    h = np.concatenate([human.segment_scores(s) for s in rated])
    x = np.stack([np.concatenate([cache.load(s, refset, m, n).segments for s in rated]) for m in features], axis=1)
    baseline = None
    if all(cache.find(s, refset, BASELINE) for s in rated):
        baseline = np.concatenate([cache.load(s, refset, BASELINE, n).segments for s in rated])
    keep = ~np.isnan(h) & ~np.isnan(x).any(axis=1) & (True if baseline is None else ~np.isnan(baseline))
    segments = np.tile(np.arange(n), len(rated))
    lengths = np.mean([[len(t.split()) for t in texts.references[r].segments] for r in experiment.reference_names],
                      axis=0)
    signs = np.asarray([1.0 if higher_is_better(m) else -1.0 for m in features])
    data = Judged(x[keep], features, h[keep], segments[keep], np.repeat(np.arange(len(rated)), n)[keep],
                  documents[segments[keep]], np.maximum(lengths[segments[keep]], 1.0), signs)
    return data, rated, None if baseline is None else baseline[keep]


def learner_of(options: TuneOptions) -> Learner:
    """The learner ``options`` ask for (bad options: a :class:`ConfigError` naming the option)."""
    if options.objective not in OBJECTIVES:
        raise ConfigError(f"--objective {options.objective!r} is unknown; use one of {', '.join(OBJECTIVES)}")
    if options.folds < 2 or options.inner_folds < 2:
        raise ConfigError(f"--folds and --inner-folds need at least 2 folds, got {options.folds} and "
                          f"{options.inner_folds}")
    if not 0.0 <= options.l1_ratio <= 1.0 or (options.l1_ratio > 0 and options.objective == "ranking"):
        raise ConfigError(f"--l1-ratio {options.l1_ratio:g}: the elastic net takes a ratio in [0, 1] and a "
                          "least-squares objective (pearson, mean-removed)")
    if options.n_boot < 1:
        raise ConfigError(f"--resamples needs at least 1 draw, got {options.n_boot}")
    if options.select and (options.method != "ridge" or options.nonneg or options.l1_ratio > 0
                           or options.objective == "ranking"):
        raise ConfigError("--select (greedy metric set of a ridge) works with --method ridge, a least-squares "
                          "objective (pearson, mean-removed), and neither --nonneg nor --l1-ratio")
    if options.method == "ulc":
        return ulc_learner(options.objective, options.greedy)
    if options.select:
        return greedy_ridge_learner(options.objective, inner_k=options.inner_folds, seed=options.seed)
    if options.method != "ridge":
        raise ConfigError(f"--method {options.method!r} is unknown; use ridge or ulc")
    return ridge_learner(options.objective, nonneg=options.nonneg, inner_k=options.inner_folds, seed=options.seed,
                         l1_ratio=options.l1_ratio)


def _validation(data: Judged, nested: Nested, objective: str) -> Validation:
    """The objective's criterion on each outer test and training fold."""
    test: list[float] = []
    train: list[float] = []
    for fold, model in enumerate(nested.models):
        for part, out in ((nested.folds == fold, test), (nested.folds != fold, train)):
            sub = data.subset(part)
            out.append(criterion(objective, sub.human, model.scores(sub.x), sub.items, sub.weights))
    return Validation(tuple(test), tuple(train))


def _signature(name: str, model: LinearMetric, options: TuneOptions, identity: str) -> str:
    """The stored metric's signature: how it was learned, its weights, and its training data."""
    weights = ",".join(f"{k}={v:.6g}" for k, v in model.to_dict().items())
    how = f"{model.kind}/{model.objective}" + ("" if model.ridge is None else f"/ridge={model.ridge:g}")
    how += f"/l1={model.l1_ratio:g}" if model.l1_ratio else ""
    return f"metric:{name}|tuned:{how}{'/nonneg' if options.nonneg else ''}:{weights}|trained-on:{identity}"


def _store(experiment: Experiment, texts: LoadedTexts, cache: ScoreCache, name: str, model: LinearMetric,
           signature: str, trained: Mapping[str, str] | None = None) -> tuple[int, list[str]]:
    """Apply ``model`` to every (target, reference set) pair of the experiment (system/system ones
    included) whose features are all in the cache (:func:`mteval.setup.learned.store_pair`);
    (files written, features whose cached signature differs from the one in ``trained``). Pairs of
    texts the experiment does not have (a ``-TRYoq`` trial, another experiment's) are left alone:
    their features cannot be checked against their texts."""
    from mteval.setup.run import hybrid_pairs, plan_pairs

    ours = {(p.target, p.refset) for p in plan_pairs(experiment, jack=True) + hybrid_pairs(experiment)}
    pairs: dict[tuple[str, str], set[str]] = {}
    for target, refset, metric in cache.available():
        if (target, refset) in ours:
            pairs.setdefault((target, refset), set()).add(metric)
    used, written, differ = model.selected(), 0, set()
    with exclusive(experiment.cache):
        for (target, refset), metrics in sorted(pairs.items()):
            if set(used) <= metrics:
                files = feature_files(cache, target, refset, {m: m for m in used}, len(texts))
                if files is None:
                    continue
                differ |= differing(trained or {}, files)
                store_pair(cache, target, refset, name, model, files, texts.documents, signature)
                written += 1
    return written, sorted(differ)


def tune_metric(experiment: Experiment, texts: LoadedTexts, features: tuple[str, ...], assessments: str,
                name: str, folds_by_line: bool = False, options: TuneOptions | None = None) -> TuningResult:
    """Nested cross-validation, the report, the learner on everything, stored as metric ``name``
    for every pair with all features (``folds_by_line``: see the module docstring)."""
    options = options or TuneOptions()
    if name in features:
        raise ConfigError(f"--name {name!r} is one of the features")
    learner = learner_of(options)
    if options.save_model and not Path(options.save_model).resolve().parent.is_dir():
        raise ConfigError(f"--save-model {options.save_model}: its folder does not exist (checked before tuning, "
                          "so that nothing is stored without its model file)")
    cache = open_cache(experiment, texts)  # features checked against the texts and settings
    documents = document_labels(experiment, texts, folds_by_line)  # before reading anything: refuse or warn first
    data, rated, baseline = _judged(experiment, texts, cache, features, assessments, documents, options)
    try:
        nested = nested_cv(data, learner, options.folds, options.seed)
        model = learner(data)
    except InputError as error:  # too few documents, no varying feature...: name the judgements file
        raise InputError(error.problem, error.path or assessments) from None
    if not model.selected():
        raise InputError("the learned combination gives every feature weight 0 (nothing to store); try a "
                         "smaller --l1-ratio or other features", assessments)
    report = build_report(data, nested, baseline, BASELINE, options.by_documents, options.n_boot)
    identity = training_identity(assessments, experiment.name)
    if options.save_model:  # before storing: a model file that cannot be written stores nothing
        _save_model(options.save_model, name, model, cache, rated[0], refset_name(experiment.reference_names),
                    {"experiment": experiment.name, "assessments": str(assessments), "identity": identity,
                     "systems": rated, "points": len(data.human),
                     "documents": len(np.unique(data.documents))}, report)
    written = _store(experiment, texts, cache, name, model, _signature(name, model, options, identity))[0]
    dropped = tuple(n for n in features if n not in model.selected())
    return TuningResult(_validation(data, nested, options.objective), model, len(data.human), written, report,
                        dropped, BASELINE if baseline is not None else None, identity)


def _save_model(path: str, name: str, model: LinearMetric, cache: ScoreCache, target: str, refset: str,
                training: dict[str, object], report: list[FoldReport]) -> None:
    """The portable model file, with the signatures of the cached feature scores it was trained on,
    written atomically (an unwritable ``path`` is one ConfigError naming it; the old file stays)."""
    signatures = {}
    for feature in model.selected():
        found = cache.find(target, refset, feature)
        signatures[feature] = parse(found).signature if found else ""
    validation = [{"fold": r.label, "points": r.points, "ridge": r.ridge, "best_single": r.single, **{
        f"{who}:{stat}": value for who, stats in r.stats.items() for stat, value in stats.items()}}
        for r in report]
    write_model(path, ModelFile(name, model, signatures, dict(training), validation))


_NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 10: "ten"}


def report_lines(result: TuningResult) -> list[str]:
    """The report as text lines (printed by ``mteval tune``); no line starts with blanks (those are
    the weights' lines)."""
    k = len(result.report) - 1
    lines = [f"{result.points} judged segments; {_NUMBERS.get(k, str(k))}-fold test correlation by document "
             "(nested: settings and best single metric chosen on training folds only)",
             f"{'fold':<7}{'metric':<14}{'tau_b':>8}{'segment_r':>11}{'system_r':>10}"]
    if result.baseline is None:
        lines.append(f"({BASELINE} is not in the cache for all judged systems: no {BASELINE} column)")
    for row in result.report:
        lines.append(f"{row.label:<7}{row.points} points, {row.documents} documents, ridge {row.ridge}, "
                     f"best single {row.single}")
        for who, stats in row.stats.items():
            lines.append(f"{row.label:<7}{who:<14}" + "".join(f"{v:>+{w}.4f}" for v, w in
                                                            zip(stats.values(), (8, 11, 10), strict=True)))
        for who, comparisons in row.versus.items():
            lines.append(f"{row.label:<7}learned - {who}: 95% CI " + "  ".join(
                f"{k} {c.delta:+.4f} [{c.low:+.4f}, {c.high:+.4f}]" for k, c in comparisons.items()))
    if result.dropped:
        lines.append("unused features (constant, collinear or not selected): " + ", ".join(result.dropped))
    return lines


def apply_model_file(experiment: Experiment, texts: LoadedTexts, path: str | Path, name: str) -> tuple[int, list[str]]:
    """Store the learned metric of a model file (trained elsewhere) as metric ``name`` for every
    pair of this experiment's cache with all its features; returns (files written, features whose
    cached signature differs from the one the model was trained on: scores computed differently).
    An experiment's ``learned:`` key has iqsetup do this (:mod:`mteval.setup.learned`)."""
    model = read_model(path)
    return _store(experiment, texts, open_cache(experiment, texts), name, model.metric,
                  model_signature(name, path, model), model.signatures)
