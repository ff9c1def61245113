"""Learned metrics from portable model files (``mteval tune --save-model``, docs/tuning.md): the
score files of a learned metric, shared by ``mteval tune``, :func:`mteval.evaluate.tuning.apply_model_file`
and iqsetup (an experiment's ``learned: {NAME: MODEL.json}``).

:func:`prepare` reads an experiment's model files (a missing or malformed file, or a feature metric
mteval does not know, is one :class:`InputError` naming the file and the line declaring it) and
adds their features to the metrics iqsetup computes, each under the spelling the user listed for
that metric, else the model's (:func:`mteval.metrics.registry.canonical` matches them).
:func:`write_pairs` then writes NAME for every pair of the plan; a file is up to date when its
signature (:func:`model_signature`: the model file's name and sha256, the weights, the judgements
trained on) and its inputs (:func:`inputs_of`: the feature files' texts and content digests) are
the same, so a changed model file or changed feature scores compute it again.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mteval.errors import CacheError, ConfigError, InputError, quote
from mteval.experiment.spec import Experiment, LearnedSpec
from mteval.io.corpus import DocumentIndex
from mteval.meta.learn.linear_metric import LinearMetric
from mteval.meta.learn.model_file import ModelFile, file_digest, read_model
from mteval.metrics import registry
from mteval.metrics.base import mean_score_set
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import ScoreFile, content_digest

AGGREGATE = "sys:mean doc:mean"  # document and system scores: means of the segments' (mean_score_set)


@dataclass(frozen=True)
class LearnedModel:
    """A learned metric of an experiment: its name, model file and stored signature, and the name
    each feature's scores are cached under in this experiment."""

    name: str
    path: Path
    model: ModelFile
    signature: str
    columns: dict[str, str]

    @property
    def metric(self) -> LinearMetric:
        return self.model.metric


def model_signature(name: str, path: str | Path, model: ModelFile) -> str:
    """The signature of a metric stored from a model file: the file (name, sha256), the weights and
    the training judgements (``trained-on:``, read by ``iqeval -assessments``'s in-sample warning)."""
    weights = ",".join(f"{k}={v:.6g}" for k, v in model.metric.to_dict().items())
    identity = model.training.get("identity", "unknown")
    return f"metric:{name}|model:{Path(path).name}:{file_digest(path)[:16]}|{weights}|trained-on:{identity}"


def prepare(experiment: Experiment) -> tuple[Experiment, list[LearnedModel]]:
    """The experiment with its learned metrics' features added to its metrics, and the models
    (read before anything is computed: a bad model file stops the run with one line)."""
    metrics = list(experiment.metrics)
    spelled = {registry.canonical(m): m for m in metrics}
    models = []
    for spec in experiment.learned:
        model = _read(spec, experiment.config_path)
        columns = {}
        for feature in model.metric.selected():
            columns[feature] = spelled.setdefault(registry.canonical(feature), feature)
            if columns[feature] not in metrics:
                metrics.append(feature)
        models.append(LearnedModel(spec.name, spec.path, model, model_signature(spec.name, spec.path, model), columns))
    return dataclasses.replace(experiment, metrics=tuple(metrics)), models


def _read(spec: LearnedSpec, config: Path) -> ModelFile:
    """A model file with at least one feature, every feature a metric mteval computes."""
    where = f" (learned metric {spec.name}, declared at {config}:{spec.line})"
    if not spec.path.is_file():
        problem = "not a regular file" if spec.path.exists() else "model file not found"
        raise InputError(problem + where, spec.path)
    try:
        model = read_model(spec.path)
    except InputError as error:
        raise InputError(error.problem + where, spec.path, error.line) from None
    if not model.metric.selected():
        raise InputError("the model has no feature with a non-zero weight" + where, spec.path)
    seen: dict[str, str] = {}
    for feature in model.metric.selected():
        try:
            registry.family_of(feature)
        except ConfigError:
            raise InputError(f"feature metric {quote(feature)} of the model is unknown to mteval"
                             f"{registry.did_you_mean(feature)}{where}", spec.path) from None
        first = seen.setdefault(registry.canonical(feature), feature)
        if first != feature:  # two spellings of one metric would read the same scores twice
            raise InputError(f"feature {quote(feature)} listed twice (also as {quote(first)}){where}", spec.path)
    return model


def feature_files(cache: ScoreCache, target: str, refset: str, columns: Mapping[str, str],
                  n_segments: int) -> dict[str, ScoreFile] | None:
    """The cached files of a model's features (``columns``: feature -> cached name) for one pair,
    by feature; None when one is missing."""
    out = {}
    for feature, cached in columns.items():
        if cache.find(target, refset, cached) is None:
            return None
        out[feature] = cache.read(target, refset, cached, n_segments)[1]
    return out


def inputs_of(files: Mapping[str, ScoreFile]) -> str:
    """The stored ``inputs`` of a learned metric's file: a digest of its feature files' texts and scores."""
    return features_digest({name: (found.inputs, found.digest or content_digest(found.scores))
                            for name, found in files.items()})


def features_digest(parts: Mapping[str, tuple[str, str]]) -> str:
    """:func:`inputs_of` from each feature's (``inputs``, content digest)."""
    text = "\n".join(f"{name}:{inputs}:{digest}" for name, (inputs, digest) in sorted(parts.items()))
    return "features:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def weighted_features(signature: str) -> tuple[str, ...] | None:
    """The features named in a learned or tuned metric's signature (:func:`model_signature`,
    ``mteval.evaluate.tuning``'s): ``NAME=WEIGHT`` items; None when it names none."""
    parts = signature.split("|")
    if len(parts) > 2 and parts[1].startswith("model:"):
        weights = parts[2]
    elif len(parts) > 1 and parts[1].startswith("tuned:"):
        weights = parts[1].rsplit(":", 1)[1]
    else:
        return None
    names = tuple(item.rpartition("=")[0] for item in weights.split(",") if "=" in item)
    return names if names and all(names) else None


def store_pair(cache: ScoreCache, target: str, refset: str, name: str, metric: LinearMetric,
               files: Mapping[str, ScoreFile], documents: DocumentIndex, signature: str) -> Path:
    """Write the learned metric ``name`` of one pair from its feature files (atomically); its path."""
    values = {feature: found.scores.segments for feature, found in files.items()}
    scores = mean_score_set(metric.apply(values), documents)
    return cache.save(target, refset, name, scores, documents.doc_ids, signature, inputs_of(files), AGGREGATE)


def differing(signatures: Mapping[str, str], files: Mapping[str, ScoreFile]) -> set[str]:
    """Features whose cached signature is not the one the model was trained on (none recorded: not compared)."""
    return {f for f, found in files.items() if signatures.get(f) and found.signature != signatures[f]}


def write_pairs(cache: ScoreCache, documents: DocumentIndex, model: LearnedModel, pairs: Iterable[tuple[str, str]],
                remake: bool = False, warn: Callable[[str], None] | None = None) -> tuple[list[str], int]:
    """iqsetup's files of one learned metric for every (target, refset) (after its features):
    (paths written, files up to date). ``warn`` gets one line when features were computed
    otherwise than for the model's training."""
    written, skipped, differ = [], 0, {}
    for target, refset in pairs:
        files = feature_files(cache, target, refset, model.columns, len(documents))
        if files is None:
            raise CacheError(f"learned metric {model.name}: a feature file is missing", cache.root / target / refset)
        differ.update({f: files[f].signature for f in differing(model.model.signatures, files)})
        if not remake and cache.is_current(target, refset, model.name, model.signature, inputs_of(files),
                                           len(documents)):
            skipped += 1
            continue
        path = store_pair(cache, target, refset, model.name, model.metric, files, documents, model.signature)
        written.append(str(path))
    if differ and warn is not None:
        warn(differ_line(model, differ))
    return written, skipped


def differ_line(model: LearnedModel, found: Mapping[str, str]) -> str:
    """One line naming the features whose scores here are computed otherwise than in training."""
    details = []
    for feature in sorted(found):
        here, trained = set(found[feature].split("|")), set(model.model.signatures[feature].split("|"))
        details.append(f"{feature} ({' '.join(sorted(here - trained)) or '?'} here, "
                       f"{' '.join(sorted(trained - here)) or '?'} in training)")
    return (f"learned metric {model.name} ({model.path.name}): feature(s) computed differently than for the "
            f"model's training: {'; '.join(details)}; the weights may not transfer")
