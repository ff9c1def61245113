"""Experiment configuration: YAML (documented in ``configs/example.yaml``) or IQMT's legacy
``key=value`` file (manual Table 1; Asiya's ``Asiya.config`` keys too).

Validated once at load time; every error names the file, the key and the allowed values.
Relative paths resolve against the config file's folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mteval.errors import ConfigError
from mteval.io.readers import FORMATS
from mteval.metrics import registry

KEYS = ("name", "cache", "source", "references", "systems", "format", "language", "case", "metrics",
        "sets", "annotation", "hybridize")
CASES = ("cs", "ci")
_NAME = re.compile(r"^[^/\\\s]+$")


@dataclass(frozen=True)
class TextSpec:
    """Where one text is: a path, an optional format and an optional SGML ``sysid``."""

    name: str
    path: Path
    format: str | None = None
    sysid: str | None = None


@dataclass(frozen=True)
class Experiment:
    """A validated experiment."""

    name: str
    config_path: Path
    cache: Path
    references: tuple[TextSpec, ...]
    systems: tuple[TextSpec, ...]
    metrics: tuple[str, ...]
    source: TextSpec | None = None
    language: str = "en"
    case_sensitive: bool | None = None  # None: each metric's reference default (mteval -c: cs; TER: ci)
    sets: dict[str, tuple[str, ...] | str] = field(default_factory=dict)
    annotation: dict[str, Any] = field(default_factory=dict)
    hybridize: dict[str, Any] | None = None  # validated by mteval.pipeline.hybrid.spec_of

    @property
    def reference_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.references)

    @property
    def system_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.systems)


def load(path: str | Path) -> Experiment:
    """Load a YAML or legacy key=value experiment file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("config file not found", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config: {exc}", path) from None
    if _is_legacy(text):
        return _from_mapping(_legacy_to_mapping(text, path), path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ConfigError(f"bad YAML: {getattr(exc, 'problem', None) or exc}", path, line) from None
    if not isinstance(data, dict):
        raise ConfigError("expected a YAML mapping with keys " + ", ".join(KEYS), path)
    return _from_mapping(data, path)


def _is_legacy(text: str) -> bool:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    return bool(lines) and all(re.match(r"^[\w*+.-]+\s*=|^do[A-Z]", ln) for ln in lines)


def _err(path: Path, key: str, problem: str) -> ConfigError:
    return ConfigError(f"key '{key}': {problem}", path)


def _resolve(base: Path, value: Any, key: str, path: Path) -> Path:
    if not isinstance(value, str) or not value:
        raise _err(path, key, f"expected a path, got {value!r}")
    p = Path(value).expanduser()
    return p if p.is_absolute() else Path(os.path.normpath(base / p))


def _text_specs(data: Any, key: str, path: Path, fmt: str | None) -> tuple[TextSpec, ...]:
    if not isinstance(data, dict) or not data:
        raise _err(path, key, "expected a mapping name -> path with at least one entry")
    specs = []
    for name, value in data.items():
        name = str(name)
        if not _NAME.match(name):
            raise _err(path, f"{key}.{name}", "names may not contain '/', '\\' or spaces")
        sysid = None
        entry_fmt = fmt
        if isinstance(value, dict):
            unknown = set(value) - {"path", "sysid", "format"}
            if unknown:
                raise _err(path, f"{key}.{name}", f"unknown keys {sorted(unknown)}; allowed: path, sysid, format")
            sysid, entry_fmt, value = value.get("sysid"), value.get("format", fmt), value.get("path")
        specs.append(TextSpec(name, _resolve(path.parent, value, f"{key}.{name}", path), entry_fmt, sysid))
    return tuple(specs)


def _metric_names(data: Any, path: Path) -> tuple[str, ...]:
    if data is None:
        raise _err(path, "metrics", "missing; list metric or family names, e.g. [BLEU, NIST: all]")
    items = data if isinstance(data, list) else [data]
    names: list[str] = []
    for item in items:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict):
            for fam, variants in item.items():
                if variants in (None, "all", True):
                    names.extend(_checked(lambda f=fam: list(registry.variants_of(str(f))), path))
                elif isinstance(variants, list):
                    names.extend(str(v) for v in variants)
                else:
                    raise _err(path, f"metrics.{fam}", "expected a list of variants or 'all'")
        else:
            raise _err(path, "metrics", f"unexpected item {item!r}")
    return tuple(_checked(lambda: registry.expand(names), path))


def _checked(fn: Any, path: Path) -> Any:
    try:
        return fn()
    except ConfigError as exc:
        raise _err(path, "metrics", exc.problem) from None


def _sets(data: Any, path: Path) -> dict[str, tuple[str, ...] | str]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _err(path, "sets", "expected a mapping set name -> list (or a range string for segments)")
    out: dict[str, tuple[str, ...] | str] = {}
    for name, value in data.items():
        if isinstance(value, str):
            out[str(name)] = value
        elif isinstance(value, list):
            out[str(name)] = tuple(str(v) for v in value)
        else:
            raise _err(path, f"sets.{name}", "expected a list or a range string like '1-3, 10'")
    return out


def _choice(data: dict, key: str, allowed: tuple[str, ...], default: str | None, path: Path) -> str | None:
    value = data.get(key, default)
    if value is not None and value not in allowed:
        raise _err(path, key, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def _annotation(value: Any, path: Path) -> dict[str, Any]:
    """The ``annotation:`` options, with ``cache`` and ``model_paths`` resolved against the config."""
    if not isinstance(value or {}, dict):
        raise _err(path, "annotation", "expected a mapping")
    annotation = dict(value or {})
    if annotation.get("cache") is not None:
        annotation["cache"] = _resolve(path.parent, annotation["cache"], "annotation.cache", path)
    paths = annotation.get("model_paths")
    if paths is not None:
        if not isinstance(paths, dict):
            raise _err(path, "annotation", "model_paths: expected a mapping processor -> model file")
        annotation["model_paths"] = {str(k): str(_resolve(path.parent, v, "annotation.model_paths", path))
                                     for k, v in paths.items()}
    return annotation


def _from_mapping(data: dict, path: Path) -> Experiment:
    unknown = set(data) - set(KEYS)
    if unknown:
        raise _err(path, sorted(unknown)[0], f"unknown key; allowed keys: {', '.join(KEYS)}")
    fmt = _choice(data, "format", FORMATS, None, path)
    case = _choice(data, "case", CASES, None, path)
    refs = _text_specs(data.get("references"), "references", path, fmt)
    systems = _text_specs(data.get("systems"), "systems", path, fmt)
    clash = set(r.name for r in refs) & set(s.name for s in systems)
    if clash:
        raise _err(path, "systems", f"names also used for references: {sorted(clash)}")
    bad_ref = [r.name for r in refs if "_" in r.name]
    if bad_ref:
        raise _err(path, "references", f"reference names may not contain '_' (it joins reference "
                   f"sets in the cache): {bad_ref}")
    source = None
    if data.get("source") is not None:
        source = TextSpec("source", _resolve(path.parent, data["source"], "source", path), fmt)
    annotation = _annotation(data.get("annotation"), path)
    experiment = Experiment(
        name=str(data.get("name") or path.stem), config_path=path,
        cache=_resolve(path.parent, data.get("cache", f"{path.stem}-cache"), "cache", path),
        references=refs, systems=systems, metrics=_metric_names(data.get("metrics"), path),
        source=source, language=str(data.get("language", "en")),
        case_sensitive=None if case is None else case == "cs",
        sets=_sets(data.get("sets"), path), annotation=annotation, hybridize=data.get("hybridize"),
    )
    from mteval.pipeline.hybrid import spec_of  # validates the hybridize options

    spec_of(experiment)
    return experiment


def _legacy_to_mapping(text: str, path: Path) -> dict:
    """IQMT/Asiya ``key=value`` lines -> the YAML mapping shape."""
    data: dict[str, Any] = {"references": {}, "systems": {}, "metrics": [], "sets": {}}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("do") and "=" not in line:
            fam, *variants = line[2:].split()
            selection: list[str] | str = variants if variants else "all"
            data["metrics"].append({fam: selection})
            continue
        key, _, value = (part.strip() for part in line.partition("="))
        lower = key.lower()
        if lower in ("ref", "sys", "system"):
            bucket = data["references"] if lower == "ref" else data["systems"]
            bucket[Path(value).name] = value
        elif lower in ("src", "source"):
            data["source"] = value
        elif lower in ("name", "cache"):
            data[lower] = value
        elif lower in ("trgcase",):
            data["case"] = value
        elif lower in ("trglang",):
            data["language"] = value
        elif lower == "metrics":
            data["metrics"].extend(value.split())
        elif key.startswith(("some_", "metrics_", "set_")) or lower.startswith("some"):
            data["sets"][key] = value if re.match(r"^[\d\s,.-]+$", value) else value.split()
        elif lower not in ("iqmt", "input", "srclang", "srccase", "path"):
            raise ConfigError(f"unknown legacy key {key!r}", path, number)
    if not data["metrics"]:
        data["metrics"] = [m for k, v in data["sets"].items() if k.startswith("metrics_") for m in v] or None
    return data
