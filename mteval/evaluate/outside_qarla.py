"""IQeval's -doOQ (IQMT manual §4.2): metric scores outside QARLA, read from the cache only.

Records share one shape with every iqeval measure: ``target, refset, metric, level, doc,
segment, score`` (``-`` where a column does not apply). A -doref row (a reference against the other
selected references) also carries ``_against``, those references, for the text views' row names.

Subsets (``docs/statistics.md``): the system score of a -T subset, and the score of a document
only part of which is selected, are computed as the metric's reference tool computes them on those
segments alone (:meth:`MetricFamily.aggregation`): from the summed sufficient statistics stored in
the cache (``stats``: BLEU, chrF, TER, GTM and WER/PER systems, METEOR, DPM, EDPM), statistics
computed again from the selected lines' texts (``recompute``: NIST, whose mteval-v13a information
weights are counted over the reference lines of the run; every sys and doc score of a -T subset),
ROUGE's bootstrap average (``bootstrap``), or the mean of segment scores (``mean``: the other families
and users' own metrics). Each sys/doc record says which in its ``aggregate`` field (``file``: a
user's metric read as its file gives it). A document missing from a dropped-in file is the mean of
its segment scores.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mteval.errors import CacheError, ConfigError
from mteval.evaluate.selection import Selection, targets_and_references
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import MEAN, NEEDS_STATS, RECOMPUTE, MetricFamily, Side, StatsFamily, nan_mean
from mteval.setup.hybrid import read_generated
from mteval.store.cache import ScoreCache, refset_name
from mteval.store.iqxml import ScoreFile

LOG = logging.getLogger(__name__)
Record = dict[str, Any]


FILE = "file"  # the aggregate of a user's metric read as its file gives it (no rule known)


@dataclass(frozen=True)
class Aggregator:
    """How one metric's document and system scores follow from its segments: its family's rule
    (a registered metric) or, for a user's own metric, the file's own score or the mean."""

    metric: str
    family: MetricFamily | None
    variant: str  # the canonical variant the family scores

    @classmethod
    def of(cls, metric: str) -> Aggregator:
        try:
            family = registry.create(registry.family_of(metric))
        except ConfigError:
            return cls(metric, None, metric)
        return cls(metric, family, registry.canonical(metric))

    def rule(self, level: str, recompute: bool = True) -> str:
        """The rule of a score of part of the test set (``recompute`` only when texts are at hand,
        else the family's stored rule)."""
        if self.family is None:
            return MEAN
        rule = self.family.subset_rule(level, self.variant)
        return rule if rule != RECOMPUTE or recompute else self.family.aggregation(level)

    def stored(self, level: str) -> str:
        """The aggregate of a score read from the file (the whole test set or a whole document)."""
        return self.family.aggregation(level) if self.family is not None else FILE

    def subset(self, found: tuple[Path, ScoreFile], rows: np.ndarray, level: str,
               documents: DocumentIndex | None = None) -> float:
        """The ``level`` score of the segments ``rows`` (0-based) under the metric's rule (``documents``:
        the test set's, for a rule that weighs them)."""
        path, score_file = found
        if self.family is None:
            return nan_mean(score_file.scores.segments[rows])
        if self.rule(level, recompute=False) in NEEDS_STATS:
            check_statistics(self.family, self.metric, level, path, score_file)
        return self.family.subset_score(score_file.scores, rows, self.variant, level, documents)


def check_statistics(family: MetricFamily, metric: str, level: str, path: Path, score_file: ScoreFile) -> None:
    """A subset score from statistics needs the file's statistics, written by this family's version."""
    if score_file.scores.stats is None:
        raise CacheError(f"{metric}: the file has no sufficient statistics (written by IQMT/Asiya or an older "
                         f"mteval), and the {level} score of part of the test set is computed from them; "
                         "run iqsetup again to add them", path)
    written = dict(part.partition(":")[::2] for part in score_file.signature.split("|"))
    if (written.get("family"), written.get("v")) != (family.family, family.version):
        raise CacheError(f"{metric}: statistics written by family {written.get('family')!r} version "
                         f"{written.get('v')!r}, expected {family.family!r} version {family.version!r}; "
                         "run iqsetup again", path)


class SubsetTexts:
    """The experiment's texts, for the scores a family computes again on the selected lines
    (``recompute``, :meth:`MetricFamily.subset_rule`): its ``subset_stats`` on those lines of the
    target and of each reference (a generated set such as HYB read from ``CACHE/.hybrid``), each
    reference set prepared once per selection and each target scored once per family."""

    def __init__(self, texts: LoadedTexts, case_sensitive: bool | None = None,
                 generated: Path | None = None, language: str = "en") -> None:
        self.texts = texts
        self.case_sensitive = case_sensitive  # the experiment's, as iqsetup creates the families
        self.language = language  # likewise
        self.generated = generated
        self._families: dict[str, StatsFamily] = {}
        self._prepared: dict[tuple[str, tuple[str, ...], bytes], Any] = {}
        self._stats: dict[tuple[str, str, tuple[str, ...], bytes], np.ndarray] = {}
        self._sides: dict[str, list[Side]] = {}

    @classmethod
    def of(cls, experiment: Experiment, texts: LoadedTexts) -> SubsetTexts:
        return cls(texts, experiment.case_sensitive, Path(experiment.cache) / ".hybrid", experiment.language)

    def statistics(self, family_name: str, target: str, references: tuple[str, ...], rows: np.ndarray) -> np.ndarray:
        """One statistics row per selected segment (``rows``, 0-based), computed on those lines alone."""
        key = (family_name, references, rows.tobytes())
        full = (target, *key)
        if full not in self._stats:
            family = self._family(family_name)
            sides = [side for name in references for side in self.sides(name)]
            if key not in self._prepared:
                self._prepared[key] = family.prepare([side.rows(rows) for side in sides])
            self._stats[full] = family.subset_stats(self.sides(target)[0], sides, rows, self._prepared[key])
        return self._stats[full]

    def _family(self, name: str) -> StatsFamily:
        if name not in self._families:
            family = registry.create(name, self.case_sensitive, self.language)
            if not isinstance(family, StatsFamily) or family.needs_annotation:
                raise ValueError(f"{name}: cannot recompute statistics from texts")
            self._families[name] = family
        return self._families[name]

    def sides(self, name: str) -> list[Side]:
        """A text as one side, or a generated reference set (``NAME.1`` .. ``NAME.K``) as K sides
        (files read once per selection)."""
        if name not in self._sides:
            self._sides[name] = self._read_sides(name)
        return self._sides[name]

    def _read_sides(self, name: str) -> list[Side]:
        if name in self.texts.references or name in self.texts.systems:
            return [Side(name, self.texts.text(name).segments)]
        folder = self.generated
        generated = {} if folder is None else read_generated(folder, name)
        if not generated:
            raise CacheError(f"no text of {name!r} to compute a score of part of the test set from; run iqsetup",
                             None if folder is None else folder / f"{name}.1")
        out = []
        for file_name, lines in generated.items():
            if len(lines) != len(self.texts):
                raise CacheError(f"{len(lines)} lines, the test set has {len(self.texts)}; run iqsetup again",
                                 folder / file_name if folder is not None else None)
            out.append(Side(file_name, lines))
        return out


def level_records(found: tuple[Path, ScoreFile], base: Record, sel: Selection, documents: DocumentIndex,
                  how: Aggregator | None = None, texts: SubsetTexts | None = None,
                  references: tuple[str, ...] = ()) -> list[Record]:
    """One score file at the selected level as records (``how``: the metric's aggregation; by
    default that of ``base["metric"]``). ``texts`` (with the target's ``references``, by default
    the selected ones) lets a ``recompute`` metric of a -T subset be computed on those lines alone;
    without them it keeps its stored rule."""
    how = how or Aggregator.of(str(base["metric"]))
    scores = found[1].scores
    if sel.level == "seg":
        return [{**base, "level": "seg", "doc": documents.doc_ids[n - 1], "segment": n,
                 "score": float(scores.segments[n - 1])} for n in sel.segments]
    rows = sel.rows
    part = len(rows) < len(documents)
    again = None
    if part and texts is not None and how.family is not None and how.rule(sel.level) == RECOMPUTE:
        again = texts.statistics(how.family.family, str(base["target"]), references or tuple(sel.references), rows)
    if sel.level == "sys":
        if again is not None:
            value, rule = _from_stats(how, again), RECOMPUTE
        elif part:
            value, rule = how.subset(found, rows, "sys", documents), how.rule("sys", recompute=False)
        else:
            value, rule = scores.system, how.stored("sys")
        return [{**base, "level": "sys", "doc": "-", "segment": "-", "score": value, "aggregate": rule,
                 "_subset": part}]
    return _document_records(found, base, rows, documents, how, again)


def _from_stats(how: Aggregator, stats: np.ndarray) -> float:
    """The score of summed statistics rows under the metric's family."""
    assert isinstance(how.family, StatsFamily)
    return how.family.score_from_stats(stats.sum(axis=0), how.variant)


def _document_records(found: tuple[Path, ScoreFile], base: Record, rows: np.ndarray, documents: DocumentIndex,
                      how: Aggregator, again: np.ndarray | None) -> list[Record]:
    """The documents with a selected segment: the stored score of a whole one; a partly selected
    one by the metric's rule; every one from ``again`` (statistics of the selected lines, in
    ``rows`` order) when the metric was computed again on them."""
    scores = found[1].scores
    position = np.full(len(documents), -1, dtype=np.intp)
    position[rows] = np.arange(len(rows))
    out = []
    for doc in documents.documents:
        doc_rows = np.asarray(documents.rows(doc), dtype=np.intp)
        picked = doc_rows[position[doc_rows] >= 0]
        if not len(picked):
            continue
        stored = scores.documents.get(doc)
        part = len(picked) < len(doc_rows)
        if again is not None:
            value, rule, part = _from_stats(how, again[position[picked]]), RECOMPUTE, True
        elif part:
            value, rule = how.subset(found, picked, "doc"), how.rule("doc", recompute=False)
        elif stored is not None and not np.isnan(stored):
            value, rule = stored, how.stored("doc")
        else:  # a dropped-in file without this document's score
            value, rule = nan_mean(scores.segments[doc_rows]), MEAN
        out.append({**base, "level": "doc", "doc": doc, "segment": "-", "score": float(value),
                    "aggregate": rule, "_subset": part})
    return out


def against(target: str, references: tuple[str, ...], sel: Selection) -> Record:
    """``{"_against": references}`` for a -doref row (a reference scored against the other selected
    references; the text views name them), else nothing."""
    return {"_against": references} if target in sel.references else {}


def outside_qarla(cache: ScoreCache, sel: Selection, documents: DocumentIndex,
                  texts: SubsetTexts | None = None) -> list[Record]:
    """-doOQ: every selected metric for every selected target, at the selected level (``texts``:
    for the metrics recomputed on a -T subset, see :func:`level_records`)."""
    records: list[Record] = []
    rules = {metric: Aggregator.of(metric) for metric in sel.metrics}
    for target, references in targets_and_references(sel):
        refset = refset_name(references)
        for metric in sel.metrics:
            found = cache.read(target, refset, metric, len(documents))
            base = {"target": target, "refset": refset, "metric": metric, **against(target, references, sel)}
            records.extend(level_records(found, base, sel, documents, rules[metric], texts, references))
    return records
