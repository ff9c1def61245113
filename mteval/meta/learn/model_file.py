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
import math
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mteval.errors import ConfigError, InputError, quote
from mteval.files import write_atomic
from mteval.io.plain import decode, read_bytes
from mteval.meta.learn.linear_metric import LinearMetric
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import parse

FORMAT = "mteval-learned-metric"
VERSION = 1
_TRAINED = re.compile(r"trained-on:([0-9a-f]{16})@")
MAX_MODEL_BYTES = 16 << 20  # a model file is refused beyond this size; a real one is a few KB
MAX_DEPTH = 64  # nested [ ] / { } (as mteval.experiment.safe_yaml.MAX_FLOW_DEPTH); a real model nests 4
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


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
    """Write ``model`` as indented JSON, atomically (:func:`mteval.files.write_atomic`: a failed
    write leaves the previous file as it was); a non-finite training or validation statistic is
    written as ``null`` (JSON has no NaN). An unwritable path is one :class:`ConfigError` naming it."""
    metric = model.metric
    if not all(np.isfinite(v).all() for v in (metric.weights, metric.mean, metric.scale)):
        raise ConfigError("not written: the learned combination has a non-finite weight, mean or scale", path)
    body = {"format": FORMAT, "version": VERSION, "name": model.name, **metric.as_json(),
            "training": _json_safe(model.training), "validation": _json_safe(model.validation)}
    for feature in body["features"]:
        feature["signature"] = model.signatures.get(feature["name"], "")
    data = (json.dumps(body, indent=2, sort_keys=False, allow_nan=False) + "\n").encode("utf-8")
    try:
        write_atomic(Path(path), data)
    except OSError as error:
        raise ConfigError(f"cannot write the model file: {error.strerror or error}", path) from None


def _json_safe(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (lists and mappings followed)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value


def read_model(path: str | Path) -> ModelFile:
    """Read a model file; anything malformed or hostile is one :class:`InputError` naming the file:
    not a regular file, over :data:`MAX_MODEL_BYTES`, not UTF-8 JSON, nested more than
    :data:`MAX_DEPTH` brackets, a non-finite number anywhere (NaN, Infinity, 1e999), a feature
    listed twice, or a field of the wrong type."""
    body = _load(path)
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise InputError(f"not a learned-metric file (no \"format\": \"{FORMAT}\")", path)
    if body.get("version") != VERSION:
        raise InputError(f"learned-metric format version {quote(body.get('version'))}, this mteval reads {VERSION}",
                         path)
    try:
        signatures = _check_features(body)
        _check_fields(body)
        metric = LinearMetric.from_json(body)
    except _Malformed as error:
        raise InputError(f"malformed learned-metric file: {error}", path) from None
    return ModelFile(str(body.get("name", "")), metric, signatures, dict(body.get("training", {})),
                     list(body.get("validation", [])))


class _Malformed(ValueError):
    """A model file's field of the wrong shape (the message says which)."""


class _NonFinite(ValueError):
    """A JSON number that is not finite (its literal is the message)."""


def _load(path: str | Path) -> Any:
    """The file's JSON, read by size first (no FIFO is ever opened) and depth-checked before parsing."""
    try:
        info = os.stat(path)
    except OSError:
        info = None  # read_bytes names the problem
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > MAX_MODEL_BYTES:
        raise _too_big(path, info.st_size)
    data = read_bytes(path)  # refuses directories, FIFOs, devices; bounded even if the file grows
    if len(data) > MAX_MODEL_BYTES:
        raise _too_big(path, len(data))
    text = decode(data, path)
    bare = _STRING.sub('""', text)  # JSON strings hold no raw newline: line numbers are kept
    _check_depth(bare, path)
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except _NonFinite as error:
        raise InputError(f"non-finite number {error} (a model holds finite numbers only)", path,
                         _line_of(bare, str(error))) from None
    except json.JSONDecodeError as error:
        raise InputError(f"not a readable learned-metric JSON file ({error})", path) from None
    except (ValueError, RecursionError) as error:  # e.g. an integer of more than 4300 digits
        raise InputError(f"not a readable learned-metric JSON file ({str(error)[:80]})", path) from None


def _too_big(path: str | Path, size: int) -> InputError:
    return InputError(f"is {size / 2**20:.0f} MiB; a model file is limited to {MAX_MODEL_BYTES >> 20} MiB "
                      "(a real one is a few KB)", path)


def _check_depth(bare: str, path: str | Path) -> None:
    """Refuse more than MAX_DEPTH nested ``[``/``{`` (outside strings) before json recurses into them."""
    brackets = np.frombuffer(_NOT_BRACKET.sub("", bare).encode("ascii"), dtype=np.uint8)
    if brackets.size and np.cumsum(np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)).max() > MAX_DEPTH:
        raise InputError(f"not a readable learned-metric JSON file: nested too deeply (more than {MAX_DEPTH} "
                         "levels of [ or {)", path)


def _refuse_constant(literal: str) -> float:
    raise _NonFinite(literal)


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):  # 1e999 overflows to inf
        raise _NonFinite(literal)
    return value


def _line_of(bare: str, literal: str) -> int | None:
    """The line of the first ``literal`` token outside strings (None if not found)."""
    found = re.search(rf"(?<![\w.+-]){re.escape(literal)}(?![\w.])", bare)
    return bare.count("\n", 0, found.start()) + 1 if found else None


def _check_features(body: dict[str, Any]) -> dict[str, str]:
    """Each feature once, a mapping with a name, finite numbers and a text signature; their signatures."""
    features = body.get("features")
    if not isinstance(features, list):
        raise _Malformed("no 'features' list")
    signatures: dict[str, str] = {}
    for feature in features:
        name = feature.get("name") if isinstance(feature, dict) else None
        if not isinstance(name, str) or not name:
            raise _Malformed(f"a feature is not a mapping with a 'name' ({quote(feature)})")
        if name in signatures:
            raise _Malformed(f"feature {quote(name)} listed twice")
        for key in ("weight", "mean", "scale"):
            _number(feature.get(key), f"{key!r} of feature {quote(name)}")
        signature = feature.get("signature", "")
        if not isinstance(signature, str):
            raise _Malformed(f"'signature' of feature {quote(name)} is not a string")
        signatures[name] = signature
    return signatures


def _check_fields(body: dict[str, Any]) -> None:
    """The combination's other fields and the training record have their types."""
    for key in ("kind", "objective"):
        if not isinstance(body.get(key), str):
            raise _Malformed(f"{key!r} is not a string")
    if body.get("ridge") is not None:
        _number(body["ridge"], "'ridge'")
    _number(body.get("l1_ratio", 0.0), "'l1_ratio'")
    training = body.get("training", {})
    if not isinstance(training, dict):
        raise _Malformed(f"'training' is not a mapping ({quote(training)})")
    if not isinstance(training.get("identity", ""), str):
        raise _Malformed("'identity' of 'training' is not a string")
    validation = body.get("validation", [])
    if not isinstance(validation, list) or not all(isinstance(row, dict) for row in validation):
        raise _Malformed(f"'validation' is not a list of mappings ({quote(validation)})")


def _number(value: Any, what: str) -> None:
    """Refuse a missing or non-numeric value (a bool or a string too) and a non-finite one."""
    if value is None:
        raise _Malformed(f"no {what}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Malformed(f"{what} is not a number ({quote(value)})")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer too big for a float
        finite = False
    if not finite:
        raise _Malformed(f"{what} is not a finite number")


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
