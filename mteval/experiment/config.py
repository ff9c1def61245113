"""Experiment configuration: YAML (documented in ``configs/example.yaml``) or IQMT's legacy
``key=value`` file (manual Table 1; Asiya's ``Asiya.config`` keys too).

Validated once at load time; every error is one line naming the file, the line (where known), the
key and the allowed values, and quotes values cut to :data:`QUOTE_CHARS` characters. Relative
paths resolve against the config file's folder. An optional key given as null (``~``) takes its
default.

Limits (an experiment file is a few KiB; anything far bigger is a mistake or an attack):

- (:mod:`mteval.experiment.safe_yaml`) the file is at most :data:`MAX_CONFIG_BYTES` (1 MiB), read no
  further; YAML is loaded safely (PyYAML's pure-Python loader), nested at most :data:`MAX_FLOW_DEPTH`
  brackets deep (deeper block nesting ends at Python's recursion limit); before any Python object
  is built, the document is walked with its aliases expanded and refused beyond :data:`MAX_NODES`
  nodes or :data:`MAX_CHARS` characters of scalars ("billion laughs" alias bombs, recursive
  aliases), and a mapping that repeats a key is refused (YAML would keep the last value silently);
- system and reference names become cache folders: they must pass :func:`mteval.names.name_problem`
  and may not collide (:func:`mteval.names.collisions`); names YAML reads as something else than a
  string (``~``, ``yes``, ``1``) are refused with a hint to quote them. In legacy files the names
  are the file names, so two ``ref=``/``sys=`` lines with the same file name are refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from mteval import names
from mteval.errors import QUOTE_CHARS, ConfigError, quote
from mteval.experiment.hybrid_set import folder_names
from mteval.experiment.parser_labels import check_open_labels
from mteval.experiment.safe_yaml import (
    LinedMapping,
    clip,
    line_of,
)
from mteval.experiment.spec import (
    DocidsSpec,
    Experiment,
    LearnedSpec,
    TextSpec,
    collision_problem,
    name_problem,
    not_a_string,
    value_kind,
)
from mteval.io.readers import FORMATS
from mteval.metrics import registry

KEYS = ("name", "cache", "source", "references", "systems", "docids", "format", "language", "case", "metrics",
        "sets", "annotation", "hybridize", "engine", "learned")
CASES = ("cs", "ci")
MAX_METRIC_NAME = 100
# integer options under 'annotation:' (read by mteval.annotate.annotator.Annotator): inclusive ranges
ANNOTATION_RANGES = {"workers": (1, 64), "max_words": (1, 10_000), "batch_size": (1, 100_000)}
# experiment keys under 'annotation:' (passed to mteval.annotate.annotator.Annotator)
ANNOTATION_KEYS = {"cache", "model_paths", "processors", "workers", "max_words", "batch_size", "backend", "model",
                   "device"}
ENGINE_KEYS = ("jobs", "dask")  # under 'engine:' (docs/scaling.md)
MAX_JOBS = 256
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})*\Z")  # en, de, zh-hans, pt_br
_PROCESSOR = re.compile(r"^[a-z_]+\Z")


# --- validation ------------------------------------------------------------------------------------

_LEGACY_LINE = re.compile(r"^[\w*+.-]+\s*=|^do[A-Z]")  # KEY=VALUE or doFAMILY [VARIANTS]


def is_legacy(text: str, path: Path | None = None) -> bool:
    """Whether ``text`` is an IQMT/Asiya ``key=value`` config rather than YAML: every content line is
    ``KEY=VALUE`` or ``doFAMILY [VARIANTS]``. When at least two lines and at least half of them are,
    the others are typos in a legacy file: the first is refused with its line (read as YAML, the
    file would be refused as "bad YAML" at a line that is fine)."""
    lines = [(number, ln.strip()) for number, ln in enumerate(text.splitlines(), start=1)
             if ln.strip() and not ln.strip().startswith("#")]
    bad = [(number, ln) for number, ln in lines if not _LEGACY_LINE.match(ln)]
    legacy = len(lines) - len(bad)
    if bad and legacy >= 2 and 2 * legacy >= len(lines):
        number, line = bad[0]
        raise ConfigError(f"{quote(line)} is not a KEY=VALUE or doFAMILY [VARIANTS] line, as the file's other "
                          f"{legacy} lines are (a legacy IQMT config)", path, number)
    return bool(lines) and not bad


def _err(path: Path, key: str, problem: str, line: int | None = None) -> ConfigError:
    return ConfigError(f"key '{clip(key, QUOTE_CHARS)}': {problem}", path, line)


def resolve_path(base: Path, value: Any, key: str, path: Path, line: int | None = None) -> Path:
    """``value`` as a path (``~`` expanded), relative ones against ``base`` (the config's folder)."""
    if not isinstance(value, str) or not value:
        raise _err(path, key, f"expected a path, got {quote(value)}", line)
    if "\0" in value:
        raise _err(path, key, f"path {quote(value)} contains a NUL character", line)
    p = Path(value).expanduser()
    return p if p.is_absolute() else Path(os.path.normpath(base / p))


def _text_specs(data: dict, key: str, path: Path, fmt: str | None) -> tuple[TextSpec, ...]:
    entries, line = data.get(key), line_of(data, key)
    if not isinstance(entries, dict) or not entries:
        raise _err(path, key, "expected a mapping name -> path with at least one entry", line)
    return tuple(_text_spec(entries, name, key, path, fmt) for name in entries)


def _text_spec(entries: dict, name: Any, key: str, path: Path, fmt: str | None) -> TextSpec:
    line = line_of(entries, name)
    problem = name_problem(name)
    if problem is not None:
        raise _err(path, key, problem, line)
    return _spec_of(name, entries[name], f"{key}.{name}", path, fmt, line)


def _spec_of(name: str, value: Any, label: str, path: Path, fmt: str | None, line: int | None) -> TextSpec:
    """One text given as a path or as ``{path, format, sysid}`` (references, systems and source alike)."""
    sysid = None
    if isinstance(value, dict):
        unknown = [k for k in value if k not in ("path", "sysid", "format")]
        if unknown:
            raise _err(path, label, f"unknown key {quote(unknown[0])}; allowed: path, sysid, format", line)
        sysid, fmt, value = value.get("sysid"), value.get("format", fmt), value.get("path")
        if sysid is not None and not isinstance(sysid, str):
            raise _err(path, f"{label}.sysid", not_a_string(sysid), line)
        if fmt is not None and fmt not in FORMATS:
            raise _err(path, f"{label}.format", f"{quote(fmt)} is not one of {', '.join(FORMATS)}", line)
    return TextSpec(name, resolve_path(path.parent, value, label, path, line), fmt, sysid)


def _check_names(data: dict, refs: tuple[TextSpec, ...], systems: tuple[TextSpec, ...], path: Path) -> None:
    """References and systems: no name twice, no case/Unicode collision. A reference name may hold
    '_' (the manual's ``reference_file.txt.1``): reference-set folders escape it
    (:mod:`mteval.store.refsets`)."""
    ref_names = {r.name for r in refs}
    for spec in systems:
        if spec.name in ref_names:
            raise _err(path, "systems", f"{quote(spec.name)} is also a reference name; give it another name",
                       line_of(data.get("systems"), spec.name))
    clashes = names.collisions([s.name for s in refs + systems])
    if clashes:
        key = "references" if clashes[0][1] in ref_names else "systems"
        raise _err(path, key, collision_problem(clashes[0]), line_of(data.get(key), clashes[0][1]))


def _metric_names(data: dict, path: Path, optional: bool = False) -> tuple[str, ...]:
    """``metrics:`` expanded to variant names (``optional``: may be omitted when ``learned:``
    names metrics, whose features iqsetup adds)."""
    value, line = data.get("metrics"), line_of(data, "metrics")
    if value is None and optional:
        return ()
    if value is None:
        raise _err(path, "metrics", "missing; list metric or family names, e.g. [BLEU, NIST: all]", line)
    requested: list[str] = []
    for item in value if isinstance(value, list) else [value]:
        requested.extend(_metric_item(item, path, line))
    expanded = tuple(_checked(lambda: registry.expand(requested), path, line))
    if not expanded and not optional:
        raise _err(path, "metrics", "no metrics; list at least one metric or family, e.g. [BLEU, NIST: all]",
                   line)
    return expanded


def _metric_item(item: Any, path: Path, line: int | None) -> list[str]:
    """The names one item of ``metrics:`` asks for: a name, or ``{FAMILY: all | [variants]}``."""
    if isinstance(item, str):
        return [_metric_name(item, path, line)]
    if not isinstance(item, dict):
        raise _err(path, "metrics", f"unexpected item {quote(item)}; expected a name or FAMILY: all", line)
    out: list[str] = []
    for key, variants in item.items():
        where = line_of(item, key) or line
        family = _metric_name(key, path, where)
        if variants is None or variants is True or variants == "all":
            out.extend(_checked(partial(registry.variants_of, family), path, where))
        elif isinstance(variants, list):
            out.extend(_metric_name(v, path, where) for v in variants)
        else:
            raise _err(path, f"metrics.{family}", f"expected a list of variants or 'all', got {quote(variants)}",
                       where)
    return out


def _metric_name(value: Any, path: Path, line: int | None) -> str:
    if not isinstance(value, str):
        raise _err(path, "metrics", f"metric name {not_a_string(value)}", line)
    if len(value) > MAX_METRIC_NAME:
        raise _err(path, "metrics", f"unknown metric {quote(value)} (longer than {MAX_METRIC_NAME} characters)",
                   line)
    return value


def _checked(fn: Callable[[], Any], path: Path, line: int | None = None) -> Any:
    try:
        return fn()
    except ConfigError as exc:
        raise _err(path, "metrics", exc.problem, line) from None


def parse_sets(data: dict, path: Path) -> dict[str, tuple[str, ...] | str]:
    value, line = data.get("sets"), line_of(data, "sets")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(path, "sets", "expected a mapping set name -> list (or a range string for segments)", line)
    out: dict[str, tuple[str, ...] | str] = {}
    for name, members in value.items():
        where = line_of(value, name) or line
        if not isinstance(name, str):
            raise _err(path, "sets", f"set name {not_a_string(name)}", where)
        out[name] = _set_members(name, members, path, where)
    return out


def _set_members(name: str, members: Any, path: Path, line: int | None) -> tuple[str, ...] | str:
    """A set: a range string, or a list of names or segment numbers; never empty (an empty selection
    has no meaning, and iqeval's measures need at least one item)."""
    if isinstance(members, str):
        if not members.replace(",", " ").strip():
            raise _err(path, f"sets.{name}", "the set is empty; list at least one item", line)
        return members
    if not isinstance(members, list):
        raise _err(path, f"sets.{name}", f"expected a list or a range string like '1-3, 10', got "
                   f"{quote(members)}", line)
    if not members:
        raise _err(path, f"sets.{name}", "the set is empty; list at least one item", line)
    for member in members:
        if isinstance(member, bool) or not isinstance(member, (str, int)):
            raise _err(path, f"sets.{name}", f"members are names or segment numbers; {quote(member)} is "
                       f"{value_kind(member)} (quote it if it is a name)", line)
        if isinstance(member, str) and not member.strip():
            raise _err(path, f"sets.{name}", "a member is an empty name", line)
    return tuple(str(m) for m in members)


def _choice(data: dict, key: str, allowed: tuple[str, ...], default: str | None, path: Path) -> str | None:
    value = data.get(key, default)
    if value is not None and value not in allowed:
        raise _err(path, key, f"{quote(value)} is not one of {', '.join(allowed)}", line_of(data, key))
    return value


def _language(data: dict, path: Path) -> str:
    value, line = data.get("language"), line_of(data, "language")
    if value is None:  # omitted or null: English
        return "en"
    if not isinstance(value, str):
        raise _err(path, "language", f"expected a language code such as en, de or zh-hans; {not_a_string(value)}",
                   line)
    if not LANGUAGE_CODE.match(value):
        raise _err(path, "language", f"expected a language code such as en, de or zh-hans, got {quote(value)}", line)
    return value


def _or_default(data: dict, key: str, default: Any) -> Any:
    """``data[key]``, or ``default`` when the key is omitted or null (``~``)."""
    value = data.get(key)
    return default if value is None else value


def _experiment_name(data: dict, path: Path) -> str:
    value = data.get("name")
    if value is not None and not isinstance(value, str):
        raise _err(path, "name", not_a_string(value), line_of(data, "name"))
    return value or path.stem


def _annotation(data: dict, path: Path) -> dict[str, Any]:
    """The ``annotation:`` options, checked, with ``cache`` and ``model_paths`` resolved against the
    config. An option given as null (``~``) takes its default."""
    value, line = data.get("annotation"), line_of(data, "annotation")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(path, "annotation", f"expected a mapping with keys {', '.join(sorted(ANNOTATION_KEYS))}, "
                   f"got {quote(value)}", line)
    unknown = [k for k in value if k not in ANNOTATION_KEYS]
    if unknown:
        raise _err(path, "annotation", f"unknown key {quote(unknown[0])}; allowed: "
                   f"{', '.join(sorted(ANNOTATION_KEYS))}", line_of(value, unknown[0]) or line)
    options = {k: v for k, v in value.items() if v is not None}
    for key, (low, high) in ANNOTATION_RANGES.items():
        if key in options:
            _integer(options[key], low, high, f"annotation.{key}", path, line_of(value, key) or line)
    if "processors" in options:
        _processors(options["processors"], path, line_of(value, "processors") or line)
    if "device" in options:
        _device(options["device"], path, line_of(value, "device") or line)
    for key in ("backend", "model"):
        if key in options:
            options[key] = _backend_option(key, options[key], path, line_of(value, key) or line)
    if "cache" in options:
        options["cache"] = resolve_path(path.parent, options["cache"], "annotation.cache", path, line)
    if "model_paths" in options:
        options["model_paths"] = _model_paths(options["model_paths"], path, line_of(value, "model_paths") or line)
    return options


def _device(value: Any, path: Path, line: int | None) -> None:
    """``annotation.device``: auto, cpu, cuda or cuda:N (whether a GPU is there is checked when the
    annotation starts, before anything is written)."""
    from mteval.annotate.stanza_adapter import DEVICE_CHOICES, DEVICE_PATTERN

    if not isinstance(value, str) or not DEVICE_PATTERN.fullmatch(value):
        raise _err(path, "annotation.device", f"expected one of {DEVICE_CHOICES}, got {quote(value)}", line)


def _backend_option(key: str, value: Any, path: Path, line: int | None) -> str:
    """``annotation.backend`` (one of the backends) or ``annotation.model`` (a non-empty string;
    a model folder is resolved against the config's folder when it exists there)."""
    from mteval.annotate.backends import BACKENDS

    if not isinstance(value, str) or not value.strip():
        raise _err(path, f"annotation.{key}", f"expected a non-empty string, got {quote(value)}", line)
    if key == "backend" and value not in BACKENDS:
        raise _err(path, "annotation.backend", f"unknown backend {quote(value)}; one of {', '.join(BACKENDS)}",
                   line)
    if key == "model" and (path.parent / value).is_dir():
        return str((path.parent / value).resolve())
    return value


def _integer(value: Any, low: int, high: int, key: str, path: Path, line: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _err(path, key, f"expected an integer from {low} to {high}, got {quote(value)}", line)


def _processors(value: Any, path: Path, line: int | None) -> None:
    parts = value.split(",") if isinstance(value, str) else []
    if not parts or not all(_PROCESSOR.match(p.strip()) for p in parts):
        raise _err(path, "annotation.processors", "expected Stanza processor names joined by commas, e.g. "
                   f"tokenize,mwt,pos,lemma,depparse; got {quote(value)}", line)


def _model_paths(value: Any, path: Path, line: int | None) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _err(path, "annotation.model_paths", f"expected a mapping processor -> model file, got {quote(value)}",
                   line)
    for key in value:
        if not isinstance(key, str) or not _PROCESSOR.match(key):
            raise _err(path, "annotation.model_paths", f"{quote(key)} is not a processor name", line)
    return {k: str(resolve_path(path.parent, v, f"annotation.model_paths.{k}", path, line)) for k, v in value.items()}


def from_mapping(data: Any, path: Path) -> Experiment:
    if not isinstance(data, dict):
        what = "empty" if data is None else f"{value_kind(data)}, not a mapping"
        raise ConfigError(f"expected a YAML mapping with keys {', '.join(KEYS)}; the file is {what}", path)
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise _err(path, str(unknown[0]), f"unknown key; allowed keys: {', '.join(KEYS)}", line_of(data, unknown[0]))
    fmt = _choice(data, "format", FORMATS, None, path)
    case = _choice(data, "case", CASES, None, path)
    refs = _text_specs(data, "references", path, fmt)
    systems = _text_specs(data, "systems", path, fmt)
    _check_names(data, refs, systems, path)
    learned = _learned(data, path)
    source = None
    if data.get("source") is not None:
        source = _spec_of("source", data["source"], "source", path, fmt, line_of(data, "source"))
    experiment = Experiment(
        name=_experiment_name(data, path), config_path=path,
        cache=resolve_path(path.parent, _or_default(data, "cache", f"{path.stem}-cache"), "cache", path,
                           line_of(data, "cache")),
        references=refs, systems=systems, metrics=_metric_names(data, path, optional=bool(learned)),
        source=source, language=_language(data, path),
        case_sensitive=None if case is None else case == "cs",
        sets=parse_sets(data, path), annotation=_annotation(data, path), hybridize=data.get("hybridize"),
        docids=_docids(data, path), jobs=_engine_jobs(data, path),
        dask=_engine_dask(data, path), learned=learned,
    )
    check_set_names(experiment, data.get("sets"), path)
    _checked(partial(check_open_labels, experiment.metrics, experiment.language, experiment.annotation), path,
             line_of(data, "metrics"))
    folder_names(experiment)  # validates the hybridize options and the hybrid set's name
    return experiment


def _engine(data: dict, path: Path) -> dict:
    """The ``engine:`` mapping (empty when not given), its keys checked."""
    value, line = data.get("engine"), line_of(data, "engine")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(path, "engine", f"expected a mapping with keys {', '.join(ENGINE_KEYS)}, got {quote(value)}", line)
    unknown = [k for k in value if k not in ENGINE_KEYS]
    if unknown:
        raise _err(path, "engine", f"unknown key {quote(unknown[0])}; allowed: {', '.join(ENGINE_KEYS)}",
                   line_of(value, unknown[0]) or line)
    return value


def _engine_dask(data: dict, path: Path) -> str | None:
    """``engine: {dask: ADDRESS}``: ``local``, a scheduler address (``tcp://host:8786``), or a Dask
    scheduler file (``.json``, relative to the experiment file); None when not given."""
    value = _engine(data, path).get("dask")
    if value is None:
        return None
    line = line_of(data["engine"], "dask") or line_of(data, "engine")
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip()):
        raise _err(path, "engine.dask", "expected 'local', a scheduler address such as tcp://host:8786, or a "
                   f"scheduler file (.json); got {quote(value)}", line)
    value = value.strip()
    if value.endswith(".json"):
        return str(resolve_path(path.parent, value, "engine.dask", path, line))
    return value


def _engine_jobs(data: dict, path: Path) -> int | None:
    """``engine: {jobs: N}`` (an integer from 1 to :data:`MAX_JOBS`), or None when not given."""
    value, line = _engine(data, path), line_of(data, "engine")
    jobs = value.get("jobs")
    if jobs is not None:
        _integer(jobs, 1, MAX_JOBS, "engine.jobs", path, line_of(value, "jobs") or line)
    return jobs


def _learned(data: dict, path: Path) -> tuple[LearnedSpec, ...]:
    """``learned: {NAME: MODEL.json}``: learned metrics (``mteval tune --save-model``) that iqsetup
    computes from their features. NAME is a cache file name and no name of mteval's metrics (not
    even in another case: the files would clash on case-insensitive file systems). The model files
    are read by iqsetup only (iqeval reads the cache)."""
    value, line = data.get("learned"), line_of(data, "learned")
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise _err(path, "learned", "expected a mapping metric name -> model file (mteval tune --save-model), "
                   f"got {quote(value)}", line)
    specs = []
    for name, model in value.items():
        where = line_of(value, name) or line
        problem = name_problem(name) or _metric_clash(name)
        if problem is not None:
            raise _err(path, "learned", problem, where)
        specs.append(LearnedSpec(name, resolve_path(path.parent, model, f"learned.{name}", path, where), where))
    clashes = names.collisions([s.name for s in specs])
    if clashes:
        raise _err(path, "learned", collision_problem(clashes[0]), line_of(value, clashes[0][1]) or line)
    return tuple(specs)


def _metric_clash(name: str) -> str | None:
    """Why a learned metric may not be called ``name``: it is (in some case) a name of mteval's metrics."""
    known = {n.casefold(): n for n in [*registry.all_variants(), *registry.alias_table(), *registry.family_names()]}
    same = known.get(name.casefold())
    if same is None:
        return None
    spelled = "is" if same == name else "differs only in case from"
    return (f"learned metric name {quote(name)} {spelled} the metric name {quote(same)}; give the learned "
            "metric another name")


def _docids(data: dict, path: Path) -> DocidsSpec | None:
    """``docids: FILE`` or ``docids: {path: FILE, column: N | NAME}`` (a TSV column: 1-based number,
    or a header name)."""
    value, line = data.get("docids"), line_of(data, "docids")
    if value is None:
        return None
    column = None
    if isinstance(value, dict):
        unknown = [k for k in value if k not in ("path", "column")]
        if unknown:
            raise _err(path, "docids", f"unknown key {quote(unknown[0])}; allowed: path, column", line)
        column, value = value.get("column"), value.get("path")
        bad_number = isinstance(column, bool) or (isinstance(column, int) and column < 1)
        if bad_number or not isinstance(column, (int, str, type(None))) or column == "":
            raise _err(path, "docids.column", f"expected a column number from 1 or a header name, got "
                       f"{quote(column)}", line)
    return DocidsSpec(resolve_path(path.parent, value, "docids", path, line), column)


def check_set_names(experiment: Experiment, sets: Any, path: Path) -> None:
    """A set may not be named like a system, reference or metric: iqeval -S/-R/-M would read the set
    where the user meant the item (silently another selection)."""
    items = set(experiment.system_names + experiment.reference_names + experiment.metrics
                + experiment.learned_names)
    for name in experiment.sets:
        if name in items:
            raise _err(path, "sets", f"set name {quote(name)} is also a system, reference or metric name; "
                       "iqeval -S/-R/-M would read the set, give it another name", line_of(sets, name))


# --- IQMT's legacy key=value files ---------------------------------------------------------------

def _legacy_put(mapping: LinedMapping, key: str, value: Any, number: int, path: Path, what: str) -> None:
    """Set ``mapping[key]`` from line ``number``; a second line for the same key is refused."""
    if key in mapping:
        raise ConfigError(f"{what} {quote(key)} is given twice (first at line {mapping.lines[key]})", path, number)
    mapping[key] = value
    mapping.lines[key] = number


def legacy_to_mapping(text: str, path: Path) -> LinedMapping:
    """IQMT/Asiya ``key=value`` lines -> the YAML mapping shape (with the line of every key)."""
    data = LinedMapping(references=LinedMapping(), systems=LinedMapping(), metrics=[], sets=LinedMapping())
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
        _legacyline_of(data, key, value, number, path)
    if not data["metrics"] and "setup" not in data:
        data["metrics"] = [m for k, v in data["sets"].items() if k.startswith("metrics_") for m in v] or None
    return data


_LEGACY_RENAMES = {"src": "source", "source": "source", "name": "name", "cache": "cache", "trgcase": "case",
                   "trglang": "language", "docids": "docids", "setup": "setup"}
_LEGACY_SETS = ("some_", "metrics_", "set_", "all_")  # set keys (manual §4.2; all_*: IQeval.config's presets)
_LEGACY_IGNORED = ("iqmt", "input", "srclang", "srccase", "path")


def _legacyline_of(data: LinedMapping, key: str, value: str, number: int, path: Path) -> None:
    """Put one ``key=value`` line into ``data``."""
    lower = key.lower()
    if lower in ("ref", "sys", "system"):
        bucket, what = (data["references"], "reference") if lower == "ref" else (data["systems"], "system")
        _legacy_put(bucket, Path(value).name, value, number, path,
                    f"{what} name (the file name in a legacy config)")
    elif lower in _LEGACY_RENAMES:
        _legacy_put(data, _LEGACY_RENAMES[lower], value, number, path, "key")
    elif lower == "metrics":
        data["metrics"].extend(value.split())
    elif key.startswith(_LEGACY_SETS) or lower.startswith("some"):
        members = value if re.match(r"^[\d\s,.-]+$", value) else value.split()
        _legacy_put(data["sets"], key, members, number, path, "set")
    elif lower not in _LEGACY_IGNORED:
        raise ConfigError(f"unknown legacy key {quote(key)}", path, number)
