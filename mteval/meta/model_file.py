"""Portable learned-metric files: plain JSON (never pickle), readable by any experiment.

A file holds the feature metrics with the signatures of the scores it was trained on (so a user
can check that this year's scores are computed the same way), their training normalisation,
the weights, the objective, and the identity of the training data (sha256 of the judgements
file, the experiment, systems and number of points), plus the cross-validated test statistics.
Training identity: :func:`training_identity` gives ``sha256[:16]@experiment``; the stored
learned metric's signature carries it as ``trained-on:...`` (:func:`trained_on` reads it back),
so an evaluation on the same judgements can be recognised and warned about.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteval.errors import InputError
from mteval.meta.linear_metric import LinearMetric
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import parse

FORMAT = "mteval-learned-metric"
VERSION = 1
_TRAINED = re.compile(r"trained-on:([0-9a-f]{16})@")


def file_digest(path: str | Path) -> str:
    """sha256 (hex) of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def training_identity(assessments: str | Path, experiment: str) -> str:
    """``DIGEST16@EXPERIMENT``: the judgements file's content and the experiment trained on."""
    return f"{file_digest(assessments)[:16]}@{experiment}"


def trained_on(signature: str) -> str | None:
    """The 16-digit judgements digest a learned metric's signature names, or None."""
    found = _TRAINED.search(signature)
    return found.group(1) if found else None


def same_judgements(signature: str, assessments: str | Path) -> bool:
    """True when a stored metric was trained on (a byte-identical copy of) ``assessments``."""
    digest = trained_on(signature)
    return digest is not None and digest == file_digest(assessments)[:16]


@dataclass(frozen=True)
class ModelFile:
    """A learned metric with the signatures of its features and its training record."""

    name: str
    metric: LinearMetric
    signatures: dict[str, str]
    training: dict[str, Any]
    validation: list[dict[str, Any]]


def write_model(path: str | Path, model: ModelFile) -> None:
    """Write ``model`` as indented JSON."""
    body = {"format": FORMAT, "version": VERSION, "name": model.name, **model.metric.as_json(),
            "training": model.training, "validation": model.validation}
    for feature in body["features"]:
        feature["signature"] = model.signatures.get(feature["name"], "")
    Path(path).write_text(json.dumps(body, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def read_model(path: str | Path) -> ModelFile:
    """Read a model file; anything malformed is one :class:`InputError` naming the file."""
    try:
        body = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"not a readable learned-metric JSON file ({error})", path) from None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise InputError(f"not a learned-metric file (no \"format\": \"{FORMAT}\")", path)
    if body.get("version") != VERSION:
        raise InputError(f"learned-metric format version {body.get('version')!r}, this mteval reads {VERSION}", path)
    try:
        metric = LinearMetric.from_json(body)
        signatures = {str(f["name"]): str(f.get("signature", "")) for f in body["features"]}
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"malformed learned-metric file ({type(error).__name__}: {error})", path) from None
    return ModelFile(str(body.get("name", "")), metric, signatures, dict(body.get("training", {})),
                     list(body.get("validation", [])))


def in_sample_metrics(cache: ScoreCache, target: str, refset: str, metrics: tuple[str, ...] | list[str],
                      assessments: str | Path) -> list[str]:
    """The ``metrics`` whose stored signature says they were learned on (a byte-identical copy of)
    ``assessments``: their correlations with it are in-sample (for ``iqeval -assessments``)."""
    digest = file_digest(assessments)[:16]
    found = []
    for metric in metrics:
        path = cache.find(target, refset, metric)
        if path is not None and trained_on(parse(path).signature) == digest:
            found.append(metric)
    return found
