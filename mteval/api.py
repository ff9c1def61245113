"""mteval's Python API (docs/api.md): score texts in one call, and read an experiment's scores,
correlations and comparisons as plain Python objects.

The pipeline layer's public face, re-exported by :mod:`mteval` lazily (``import mteval`` imports
nothing heavy; the first use of one of these names imports this module). Every number comes from
the code iqsetup and iqeval run, never from a second implementation:

- :func:`score` and :func:`score_systems` (and ``mteval score``, through :func:`scored`) build an
  in-memory experiment over the given texts -- lists of strings, or files given as
  :class:`pathlib.Path` and read as iqsetup reads them -- compute it with
  :func:`mteval.setup.run.run_setup` into a score cache (``cache=``: kept and reused while
  current, as iqsetup's; else a temporary folder removed afterwards) and read the files back
  through the verified cache, so a score is the one ``iqeval -doOQ`` shows for the same texts;
- :func:`load` gives a :class:`Campaign`: an experiment file's records (iqeval's ``--json`` rows)
  read through :func:`mteval.setup.verify.open_cache`; :func:`to_dataframe` makes a pandas
  DataFrame of them when pandas is installed.

Bad input raises :class:`mteval.errors.MtevalError` (the one-line message the commands print).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteval import names, user_cache
from mteval.errors import ConfigError, InputError, MtevalError, quote
from mteval.evaluate.campaign import Campaign, Score
from mteval.experiment.config import LANGUAGE_CODE
from mteval.experiment.parser_labels import check_open_labels
from mteval.experiment.sets import split_names
from mteval.experiment.spec import Experiment, TextSpec
from mteval.experiment.texts import LoadedTexts
from mteval.io.align import align_texts, model_of
from mteval.io.corpus import Text
from mteval.io.plain import check_characters, plain_text
from mteval.io.readers import read_text
from mteval.metrics import registry

__all__ = ["Campaign", "MissingDependency", "Score", "global_accuracy", "load", "score", "score_systems", "scored",
           "split_metrics", "to_dataframe", "wmt_ranking"]

Record = dict[str, Any]
Source = Sequence[str] | os.PathLike  # a text: its segments, or a file (pathlib.Path)
Names = str | Sequence[str] | None  # a set name or comma-separated names (as iqeval -M -S -R), or a list
SCORE_EXPERIMENT = "mteval-score"  # the name (and stand-in experiment file) of a campaign over given texts
CASES = {None: None, "cs": True, "ci": False}


class MissingDependency(MtevalError, ImportError):
    """An optional package a function needs is not installed."""


def load(config: str | os.PathLike) -> Campaign:
    """The experiment of a YAML or legacy config file (as iqsetup and iqeval read it) and its texts."""
    return Campaign.open(config)


def score(metric: str, hypotheses: Source, references: Source | Sequence[Source], *, case: str | None = None,
          language: str = "en", cache: str | os.PathLike | None = None) -> Score:
    """Score one system's ``hypotheses`` with one metric against ``references``: a list of
    references, each a list of strings (sacreBLEU's convention) or a :class:`pathlib.Path`; a single
    list of strings is one reference. ``case``: ``"cs"``, ``"ci"`` or None (each metric's own
    default); ``language``: of the texts (syntactic metrics' parser); ``cache``: a folder for the
    score files (and the parses), as iqsetup's; by default a temporary one (parses kept in the user
    cache, :mod:`mteval.user_cache`)."""
    wanted = registry.expand(split_metrics(metric)) if isinstance(metric, str) else []
    if len(wanted) != 1:
        raise ConfigError(f"metric {quote(metric)} names {len(wanted)} metrics; score() computes one (name one "
                          "variant, e.g. BLEU or NIST-5; score_systems() computes several)")
    return score_systems(wanted, {"hypotheses": hypotheses}, references, case=case, language=language,
                         cache=cache)["hypotheses"][wanted[0]]


def score_systems(metrics: str | Sequence[str], systems: Mapping[str, Source], references: Source | Sequence[Source],
                  *, case: str | None = None, language: str = "en", cache: str | os.PathLike | None = None,
                  jobs: int | None = 1) -> dict[str, dict[str, Score]]:
    """Several systems (name -> text) and metrics (comma-separated or a list; a family name is all
    its variants) at once: ``{system: {metric: Score}}``, in the order given. ``jobs``: worker
    processes (1: none, in this process; None: one per core when worth it). Otherwise as :func:`score`."""
    with scored(systems, references, metrics, case=case, language=language, cache=cache, jobs=jobs) as campaign:
        return {campaign.label(s): {m: campaign.score(m, s) for m in campaign.metrics} for s in campaign.systems}


@contextmanager
def scored(systems: Mapping[str, Source], references: Source | Sequence[Source], metrics: str | Sequence[str], *,
           case: str | None = None, language: str = "en", cache: str | os.PathLike | None = None,
           jobs: int | None = 1) -> Iterator[Campaign]:
    """The :class:`Campaign` of the given texts, computed (what :func:`score_systems` and
    ``mteval score`` read): its systems and references are named after the keys or files (their
    :meth:`Campaign.label`), its score files are in ``cache`` (kept) or in a temporary folder
    removed when the ``with`` block ends."""
    sources = _reference_sources(references)
    if not isinstance(systems, Mapping) or not systems:
        raise ConfigError("systems: expected a mapping name -> text (a list of strings or a pathlib.Path), "
                          f"with at least one system; got {quote(systems)}")
    settings = _settings(metrics, case, language)
    with ExitStack() as stack:
        root = Path(cache) if cache is not None else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="mteval-score-")))
        campaign = _text_campaign(systems, sources, root, settings, {} if cache is not None else _parse_cache())
        campaign.compute(jobs=jobs, targets=campaign.systems)
        yield campaign


def split_metrics(value: str) -> list[str]:
    """Comma-separated metric names; commas inside a registered name (``SP-Op(,)``, ``SR-Or,w-*``)
    kept, the longest such name first."""
    return split_names(value, registry.is_metric)


def global_accuracy(sets: Sequence[tuple[str | os.PathLike, str | os.PathLike]], *, metrics: Names = None,
                    resamples: int = 1000, seed: int = 1234, alpha: float = 0.05, early_stop: str | None = None,
                    unknown_systems: str = "refuse", human_lower_better: bool = False,
                    stream: str = "numpy") -> list[Record]:
    """``mteval global-accuracy``'s records (its ``--json`` rows) for ``(config, judgements)`` sets: the
    WMT metrics tasks' system-level global pairwise accuracy (Kocmi et al. 2021) and significance
    ranks, as mt-metrics-eval's ``CompareMetricsWithGlobalAccuracy`` (:mod:`mteval.evaluate.global_accuracy`;
    ``stream="mtme"``: their random draws, each pair's test seeded with ``seed``)."""
    from mteval.evaluate.global_accuracy import GlobalOptions
    from mteval.evaluate.global_accuracy import global_accuracy as compute

    chosen = metrics if metrics is None or isinstance(metrics, str) else ",".join(metrics)
    options = GlobalOptions(chosen, resamples, seed, alpha, early_stop, unknown_systems, human_lower_better, stream)
    return compute([(os.fspath(config), os.fspath(judgements)) for config, judgements in sets], options)


def wmt_ranking(sets: Sequence[tuple[str | os.PathLike, str | os.PathLike]], *, tasks: str = "wmt23",
                metrics: Names = None, resamples: int = 1000, seed: int = 1234, alpha: float = 0.05,
                early_stop: str | None = None, unknown_systems: str = "refuse", human_lower_better: bool = False,
                stream: str = "numpy") -> list[Record]:
    """``mteval wmt-ranking``'s records (its ``--json`` rows) for ``(config, judgements)`` sets: the
    WMT23 or WMT24 metrics tasks' overall ranking (Freitag et al. 2023, 2024; ``tasks``), a weighted
    average of normalised task results with significance clusters from the tasks' permutation draws, as
    mt-metrics-eval's ``TaskSet`` / ``AverageCorrMatrix`` (:mod:`mteval.evaluate.wmt_ranking`;
    ``stream="mtme"``: their random draws, each test seeded with ``seed``, and their tie calibration)."""
    from mteval.evaluate.wmt_ranking import RankingOptions
    from mteval.evaluate.wmt_ranking import wmt_ranking as compute

    chosen = metrics if metrics is None or isinstance(metrics, str) else ",".join(metrics)
    options = RankingOptions(chosen, resamples, seed, alpha, early_stop, unknown_systems, human_lower_better, stream,
                             tasks=tasks)
    return compute([(os.fspath(config), os.fspath(judgements)) for config, judgements in sets], options)


def to_dataframe(records: Sequence[Mapping[str, Any]]) -> Any:
    """A pandas DataFrame of records (one row each, a column per key); :class:`MissingDependency`
    when pandas is not installed."""
    try:
        import pandas
    except ImportError:
        raise MissingDependency("to_dataframe needs pandas, which is not installed (pip install pandas); "
                                "the records are plain dicts: json, csv or any table library reads them") from None
    return pandas.DataFrame.from_records([dict(r) for r in records])


# --- the in-memory experiment of scored() --------------------------------------------------------

@dataclass(frozen=True)
class _Settings:
    metrics: tuple[str, ...]
    case_sensitive: bool | None
    language: str


def _settings(metrics: str | Sequence[str], case: str | None, language: str) -> _Settings:
    """The checked metric names (expanded as an experiment's ``metrics:``), case and language."""
    listed = split_metrics(metrics) if isinstance(metrics, str) else list(metrics)
    if not listed or not all(isinstance(m, str) for m in listed):
        raise ConfigError(f"metrics: expected metric names, e.g. BLEU,chrF,TER; got {quote(metrics)}")
    if case not in CASES:
        raise ConfigError(f"case {quote(case)}: expected 'cs' (case-sensitive), 'ci' or None (each metric's default)")
    if not isinstance(language, str) or not LANGUAGE_CODE.match(language):
        raise ConfigError(f"language: expected a language code such as en, de or zh-hans, got {quote(language)}")
    expanded = tuple(registry.expand(listed))
    check_open_labels(expanded, language)
    return _Settings(expanded, CASES[case], language)


def _reference_sources(references: Source | Sequence[Source]) -> list[Source]:
    """The references as a list of texts: one list of strings (or one Path) is one reference."""
    if isinstance(references, os.PathLike):
        return [references]
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence) or not references:
        raise ConfigError("references: expected a list of references, each a list of strings or a pathlib.Path "
                          f"(or one such reference); got {quote(references)}")
    if all(isinstance(r, str) for r in references):
        return [references]  # type: ignore[list-item]  # one reference, as its segments
    return list(references)  # type: ignore[arg-type]


def _text_campaign(systems: Mapping[str, Source], references: list[Source], root: Path, settings: _Settings,
                   annotation: dict[str, Any]) -> Campaign:
    """The campaign of the given texts, read and aligned as iqsetup reads an experiment's."""
    ref_labels = ["references" if len(references) == 1 else f"references[{k}]" for k in range(len(references))]
    ref_items = [(_where(src, label), src) for label, src in zip(ref_labels, references, strict=True)]
    sys_items = [(_where(src, str(key)), src) for key, src in systems.items()]
    folders = _folder_names([_preferred("", s) for _, s in ref_items], "ref", set())
    folders += _folder_names([_preferred(str(k), s) for k, s in systems.items()], "sys", set(folders))
    read = [_read(src, where, name) for (where, src), name in zip(ref_items + sys_items, folders, strict=True)]
    model = model_of(read)
    aligned = align_texts(read, model)
    n_refs = len(ref_items)
    texts = LoadedTexts({t.name: t for t in aligned[:n_refs]}, {t.name: t for t in aligned[n_refs:]}, None,
                        model.documents if model else aligned[0].documents)
    experiment = Experiment(
        name=SCORE_EXPERIMENT, config_path=Path(SCORE_EXPERIMENT), cache=root,
        references=tuple(TextSpec(t.name, Path(t.where)) for t in aligned[:n_refs]),
        systems=tuple(TextSpec(t.name, Path(t.where)) for t in aligned[n_refs:]),
        metrics=settings.metrics, language=settings.language, case_sensitive=settings.case_sensitive,
        annotation=annotation)
    labels = {name: where for name, (where, _) in zip(folders[:n_refs], ref_items, strict=True)}
    labels.update({name: str(key) for name, key in zip(folders[n_refs:], systems, strict=True)})
    return Campaign(experiment, texts, labels)


def _where(source: Source, label: str) -> str:
    """What messages call a text: its file as given, else ``label``."""
    return os.fspath(source) if isinstance(source, os.PathLike) else label


def _preferred(label: str, source: Source) -> str:
    """The cache folder name a text would like: its file's stem, else its key."""
    return Path(os.fspath(source)).stem if isinstance(source, os.PathLike) else label


def _folder_names(preferred: list[str], prefix: str, taken: set[str]) -> list[str]:
    """A cache folder name per text: the preferred one when it is a valid name not taken (in any
    case), else ``PREFIX<number>`` (files named alike in two folders, ``-``, odd characters)."""
    used = {names.collision_key(t) for t in taken}
    out = []
    for number, name in enumerate(preferred, start=1):
        candidates = [name, f"{prefix}{number}", *(f"{prefix}{number}-{k}" for k in range(2, 1000))]
        chosen = next(c for c in candidates if names.name_problem(c) is None and names.collision_key(c) not in used)
        used.add(names.collision_key(chosen))
        out.append(chosen)
    return out


def _read(source: Source, where: str, name: str) -> Text:
    """One text: a file read as iqsetup reads it, or a list of strings checked as a file's lines
    are (one line each, no control characters; at least one)."""
    if isinstance(source, os.PathLike):
        return read_text(Path(source), name)
    if isinstance(source, (str, bytes)) or not isinstance(source, Sequence):
        raise ConfigError(f"expected a list of strings (one segment each) or a pathlib.Path, got {quote(source)}",
                          where)
    segments = list(source)
    for number, segment in enumerate(segments, start=1):
        if not isinstance(segment, str):
            raise InputError(f"segment {number} is {quote(segment)}, not a string", where, number)
        if "\n" in segment or "\r" in segment:
            raise InputError(f"segment {number} holds a line break; a segment is one line", where, number)
    check_characters("\n".join(segments), where)
    return plain_text(segments, where, name)


def _parse_cache() -> dict[str, Any]:
    """The ``annotation:`` options of a campaign whose scores are temporary: the parses go to the
    user cache (:mod:`mteval.user_cache`; keyed by text, language and models, so shared safely),
    or beside the temporary scores when it is disabled."""
    folder = user_cache.cache_dir()
    return {} if folder is None else {"cache": folder / "annotation"}
