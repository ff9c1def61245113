"""A learned metric (Kahn et al. 2009 §6) from cached metrics and human judgements.

``mteval tune CONFIG --assessments FILE -M FEATURES --name NAME``: the features are cached metrics
(segment scores against all references); the weights maximise the length-weighted correlation with
mean-removed human scores (means removed per source segment); two-fold cross-validation over
documents reports the test-fold correlations, as the paper's table does. The combination tuned on
all judged segments is then applied to every (target, reference set) pair of the cache that has all
features, and stored as metric NAME (document and system scores: means of segments), so QUEEN,
KING and iqeval use it like any other metric.

The folds need documents: SGML texts carry them, plain texts get them from a ``docids`` file. With
one document only (plain texts without ``docids``), tuning is refused, unless the caller asks for
folds by line (odd and even segments), which is announced with a warning: neighbouring segments of
one document then sit in both folds, and the test correlations are optimistic.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from mteval.errors import ConfigError
from mteval.meta.assessments import read_assessments
from mteval.meta.weight_tuning import CrossValidation, TunedCombination, cross_validate, split_documents, tune_weights
from mteval.metrics.base import mean_score_set
from mteval.pipeline.config import Experiment
from mteval.pipeline.texts import LoadedTexts
from mteval.store.cache import ScoreCache, refset_name
from mteval.store.lock import exclusive

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class TuningResult:
    """The cross-validation, the final combination, and how many score files were written."""

    validation: CrossValidation
    combination: TunedCombination
    points: int
    files: int


def document_folds(experiment: Experiment, texts: LoadedTexts, folds_by_line: bool = False) -> np.ndarray:
    """Fold (0/1) of every segment: the documents split in two halves (§6). With one document,
    a :class:`ConfigError` naming ``docids``, or with ``folds_by_line`` odd/even segments and a
    warning."""
    folds = split_documents(list(texts.documents.doc_ids))
    if len(set(folds)) >= 2:
        return folds
    if not folds_by_line:
        raise ConfigError("tune splits the documents in two folds, but the texts have one document "
                          f"({texts.documents.documents[0] if texts.documents.documents else 'none'}); give the "
                          "documents of plain texts with 'docids: FILE' (one id a line), or ask for folds by "
                          "line with --folds-by-line", experiment.config_path)
    LOG.warning("FOLDS BY LINE: the texts have one document, so the folds are odd and even segments; "
                "segments of one document sit in both folds and the test correlations are optimistic "
                "(give 'docids: FILE' for document folds)")
    return np.arange(len(texts)) % 2


def _training_data(experiment: Experiment, texts: LoadedTexts, cache: ScoreCache, features: tuple[str, ...],
                   assessments: str, folds: np.ndarray
                   ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features, human scores, groups (segment), weights (reference length) and folds (of every
    segment, given) of judged points."""
    human = read_assessments(assessments, len(texts), texts.documents)
    refset = refset_name(experiment.reference_names)
    rated = [s for s in experiment.system_names if s in human.systems]
    if not rated:
        raise ConfigError(f"no system of the experiment is in {assessments}")
    n = len(texts)
    h = np.concatenate([human.segment_scores(s) for s in rated])
    x = {m: np.concatenate([cache.load(s, refset, m, n).segments for s in rated]) for m in features}
    keep = ~np.isnan(h) & np.all([~np.isnan(v) for v in x.values()], axis=0)
    segments = np.tile(np.arange(n), len(rated))[keep]
    lengths = np.mean([[len(t.split()) for t in texts.references[r].segments] for r in experiment.reference_names],
                      axis=0)
    return ({m: v[keep] for m, v in x.items()}, h[keep], segments, np.maximum(lengths[segments], 1.0),
            folds[segments])


def tune_metric(experiment: Experiment, texts: LoadedTexts, features: tuple[str, ...], assessments: str,
                name: str, folds_by_line: bool = False) -> TuningResult:
    """Cross-validate, tune on everything, and store metric ``name`` for every pair with all features
    (``folds_by_line``: see the module docstring)."""
    if name in features:
        raise ConfigError(f"--name {name!r} is one of the features")
    cache = ScoreCache(experiment.cache)
    folds = document_folds(experiment, texts, folds_by_line)  # before reading anything: refuse or warn first
    x, h, groups, weights, folds = _training_data(experiment, texts, cache, features, assessments, folds)
    validation = cross_validate(x, h, list(groups), weights, folds)
    combination = tune_weights(x, h, list(groups), weights)
    pairs: dict[tuple[str, str], set[str]] = {}
    for target, refset, metric in cache.available():
        pairs.setdefault((target, refset), set()).add(metric)
    signature = "metric:{}|tuned:{}".format(name, ",".join(f"{k}={v:.6g}" for k, v in combination.to_dict().items()))
    written = 0
    with exclusive(experiment.cache):
        for (target, refset), metrics in sorted(pairs.items()):
            if set(features) <= metrics:
                values = {m: cache.load(target, refset, m, len(texts)).segments for m in features}
                scores = mean_score_set(combination.apply(values), texts.documents)
                cache.save(target, refset, name, scores, texts.documents.doc_ids, signature, "tuned")
                written += 1
    return TuningResult(validation, combination, len(h), written)
