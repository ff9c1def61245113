"""A learned metric (Kahn et al. 2009 §6) from cached metrics and human judgements.

``mteval tune CONFIG --assessments FILE -M FEATURES --name NAME``: the features are cached metrics
(segment scores against all references); the weights maximise the length-weighted correlation with
mean-removed human scores (means removed per source segment); two-fold cross-validation over
documents reports the test-fold correlations, as the paper's table does. The combination tuned on
all judged segments is then applied to every (target, reference set) pair of the cache that has all
features, and stored as metric NAME (document and system scores: means of segments), so QUEEN,
KING and iqeval use it like any other metric.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class TuningResult:
    """The cross-validation, the final combination, and how many score files were written."""

    validation: CrossValidation
    combination: TunedCombination
    points: int
    files: int


def _training_data(experiment: Experiment, texts: LoadedTexts, cache: ScoreCache, features: tuple[str, ...],
                   assessments: str) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features, human scores, groups (segment), weights (reference length) and folds of judged points."""
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
    folds = split_documents(list(texts.documents.doc_ids))
    if len(set(folds)) < 2:  # one document (plain text): split segments instead
        folds = np.arange(n) % 2
    return ({m: v[keep] for m, v in x.items()}, h[keep], segments, np.maximum(lengths[segments], 1.0),
            folds[segments])


def tune_metric(experiment: Experiment, texts: LoadedTexts, features: tuple[str, ...], assessments: str,
                name: str) -> TuningResult:
    """Cross-validate, tune on everything, and store metric ``name`` for every pair with all features."""
    if name in features:
        raise ConfigError(f"--name {name!r} is one of the features")
    cache = ScoreCache(experiment.cache)
    x, h, groups, weights, folds = _training_data(experiment, texts, cache, features, assessments)
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
