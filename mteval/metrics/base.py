"""The common interface of every metric family.

A *family* (BLEU, NIST, ROUGE, DP, ...) computes all its *variants* (BLEU-1..4, BLEUi-2..4, ...)
in one pass over a (hypothesis, reference set) pair, because the variants share their work
(tokenisation, n-gram counts, parses). The pipeline groups requested metric names by family.

Two steps, as in sacreBLEU (CONTRIBUTING.md, "Where a change goes"):

1. ``prepare(references)`` extracts what the references contribute once per reference set
   (n-gram counts, NIST information weights, parses); it is reused for every hypothesis scored
   against that set.
2. ``score(hypothesis, prepared, documents, variants)`` returns one :class:`ScoreSet`
   (system, document and segment scores) per requested variant.

Families built on *sufficient statistics* subclass :class:`StatsFamily`: they give a
per-segment statistics matrix and a vectorised ``scores_from_stats``; segment, document and
system scores then all come from one path (rows, summed document rows, summed rows), and the
statistics travel with the scores (``ScoreSet.stats``, stored in the score file).

*Aggregation rules* (``docs/statistics.md``): :meth:`MetricFamily.aggregation` says how a
document (``doc``) or system (``sys``) score follows from its segments as the reference tool
computes it -- ``stats`` (the score of summed statistics), ``mean`` (the mean of segment scores)
or a family's own rule (ROUGE's ``bootstrap``, SEPIA's ``weighted``) -- and :meth:`MetricFamily.subset_score` applies it
to any subset of segments (``iqeval -T``, part of a document), so a subset's score is what the
reference tool would report run on those segments alone. Where a segment's statistics depend on
lines outside the subset (mteval-v13a's NIST information weights, counted over every reference line
of the run), :meth:`MetricFamily.subset_rule` says ``recompute``: the pipeline computes the
statistics again from the selected lines' texts (:meth:`StatsFamily.subset_stats`). A family whose
statistics layout changes must bump its ``version`` (cached statistics are used only under the same
family and version).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from mteval import __version__
from mteval.io.corpus import DocumentIndex
from mteval.metrics.parameters import Parameter, canonical, settings
from mteval.scores import ScoreSet

__all__ = ["BOOTSTRAP", "MEAN", "NEEDS_STATS", "RECOMPUTE", "STATS", "WEIGHTED", "MetricFamily", "MetricInfo",
           "ScoreSet", "Side", "StatsFamily", "mean_score_set", "nan_mean", "scores_from_stats_matrix"]

MEAN, STATS, BOOTSTRAP = "mean", "stats", "bootstrap"  # aggregation rules (docs/statistics.md)
RECOMPUTE = "recompute"  # a subset's statistics computed again from its lines' texts (NIST)
WEIGHTED = "weighted"  # SEPIA: documents weight segments by their length, the system documents by their size
NEEDS_STATS = (STATS, WEIGHTED)  # the rules whose subset scores read the file's statistics


@dataclass(frozen=True)
class MetricInfo:
    """What a variant is: its direction and range, so QUEEN/KING compare the right way."""

    name: str
    family: str
    higher_is_better: bool = True
    lower_bound: float | None = 0.0
    upper_bound: float | None = 1.0
    description: str = ""


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a hypothesis or one reference.

    ``sentences`` holds the annotation (``mteval.annotate.model.Sentence`` per segment) and is
    filled by the pipeline only for families with ``needs_annotation = True``.
    """

    name: str
    texts: Sequence[str]
    sentences: Sequence[Any] | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def rows(self, rows: Sequence[int] | np.ndarray) -> Side:
        """The same side on the segments ``rows`` (0-based) only, in that order."""
        picked = [int(i) for i in rows]
        sentences = None if self.sentences is None else [self.sentences[i] for i in picked]
        return Side(self.name, [self.texts[i] for i in picked], sentences)


class MetricFamily(ABC):
    """A family of metric variants computed together (see the module docstring)."""

    family: ClassVar[str]
    variants: ClassVar[tuple[str, ...]]
    version: ClassVar[str] = "1"
    needs_annotation: ClassVar[bool] = False
    # The longest segment (in :meth:`segment_words`) the family accepts, for a family whose time on
    # one segment pair grows faster than linearly; None: no limit. iqsetup refuses a longer
    # segment before computing anything (mteval.setup.limits; measured in docs/reliability.md).
    max_segment_words: ClassVar[int | None] = None
    # Options selected in the metric's name, ``VARIANT(key=value,...)`` (mteval.metrics.parameters):
    # the family's parameters, taken by the variants in ``parametric`` (None: by every variant).
    parameters: ClassVar[dict[str, Parameter]] = {}
    parametric: ClassVar[tuple[str, ...] | None] = None
    # A variant's own defaults where they are not the family's (chrF++'s word_order 2, chrF's 0).
    variant_defaults: ClassVar[Mapping[str, Mapping[str, str]]] = {}
    # Whether the family takes the experiment's target ``language`` (registry.create passes it when
    # not English): its resources (stemmer, word lists) depend on the language (issue 36).
    by_language: ClassVar[bool] = False
    # Per-label measures that take any label the parser gives, not only the registered ones
    # (``DP-Or(obl:mod)`` for French; :func:`mteval.metrics.registry.open_label`): the measure's
    # prefix -> the family's own key for it (an OverlapFamily's selector group).
    open_labels: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def parameters_of(cls, variant: str) -> dict[str, Parameter]:
        """The parameters a (plain) variant takes; none when it takes none."""
        if cls.parametric is not None and variant not in cls.parametric:
            return {}
        own = cls.variant_defaults.get(variant, {})
        return {k: replace(p, default=own[k]) if k in own else p for k, p in cls.parameters.items()}

    @classmethod
    def settings(cls, variant: str) -> tuple[str, dict[str, str]]:
        """``(plain variant, every parameter's value)`` of a canonical (parametric) variant name,
        defaults filled in (the variant's own): ``chrF(beta=3)`` -> ``("chrF", {"beta": "3", ...})``."""
        base, values = settings(variant, cls.parameters)
        taken = cls.parameters_of(base)
        if taken and taken != cls.parameters:
            base, values = settings(variant, taken)
        return base, (values if taken else {})

    @classmethod
    def canonical_name(cls, base: str, pairs: tuple[tuple[str, str], ...]) -> str:
        """The one name of the plain variant ``base`` with the parameters ``pairs`` (the registry's
        :func:`~mteval.metrics.registry.canonical`); a family may name another of its variants."""
        return canonical(base, pairs, cls.parameters_of(base))

    def __init__(self, case_sensitive: bool = True, **options: Any) -> None:
        self.case_sensitive = case_sensitive
        self.options = options

    def segment_words(self, text: str) -> int:
        """The length of a segment that :attr:`max_segment_words` bounds: its whitespace-separated
        words (``str.split``). A family whose tokens can be more overrides this with a count of its
        own tokens, which must need a separator each too (at most ``(len(text) + 1) // 2``)."""
        return len(text.split())

    def segmented_scripts(self, variant: str) -> frozenset[str] | None:
        """The scripts written without spaces between words (``mteval.setup.scripts.UNSPACED``: Han,
        kana, Thai...) whose words ``variant``'s tokenizer finds by itself; None when the variant reads
        no words between spaces at all (character n-grams; a parser's own tokenizer). The default, none
        of them: a word is what lies between spaces (and, for some tokenizers, ASCII punctuation), so in
        such a text a "word" is a whole phrase (iqsetup warns: ``unspaced_script_warnings``)."""
        return None if self.needs_annotation else frozenset()

    def info(self, variant: str) -> MetricInfo:
        """Direction and range of a variant (override for error metrics or unbounded ones)."""
        return MetricInfo(variant, self.family)

    def signature(self, variant: str) -> str:
        """Everything that changes the numbers, ``key:value|...`` (stored with every score file)."""
        parts = {"metric": variant, "family": self.family, "v": self.version,
                 "case": "cs" if self.case_sensitive else "ci"}
        parts.update({k: str(v) for k, v in sorted(self.options.items())})
        parts["mteval"] = __version__
        return "|".join(f"{k}:{v}" for k, v in parts.items())

    def aggregation(self, level: str) -> str:
        """The rule that makes a ``sys`` or ``doc`` score from its segments (the module docstring):
        the mean of segment scores unless a family says otherwise."""
        return MEAN

    def subset_rule(self, level: str, variant: str) -> str:
        """The rule of a ``level`` score of part of the test set: :meth:`aggregation`, unless the
        reference tool's score of a subset depends on lines outside it (``recompute``)."""
        return self.aggregation(level)

    def subset_score(self, scores: ScoreSet, rows: np.ndarray, variant: str, level: str,
                     documents: DocumentIndex | None = None) -> float:
        """The ``level`` score of the segments ``rows`` (0-based) under :meth:`aggregation` (``documents``:
        the test set's, for a rule that weighs documents); here the mean of their scores, a segment
        without a score counted as 0 (:func:`mean_score_set`, as the family's own document and
        system scores)."""
        chosen = np.nan_to_num(np.asarray(scores.segments, dtype=np.float64)[rows], nan=0.0)
        return float(chosen.mean()) if len(chosen) else float("nan")

    @abstractmethod
    def prepare(self, references: Sequence[Side]) -> Any:
        """Extract once what a reference set contributes (reused for every hypothesis)."""

    @abstractmethod
    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Score one hypothesis against a prepared reference set, for the given variants."""


class StatsFamily(MetricFamily):
    """A family whose scores are a function of summed per-segment sufficient statistics."""

    @abstractmethod
    def segment_stats(self, hypothesis: Side, prepared: Any) -> np.ndarray:
        """Statistics matrix, shape ``(n_segments, n_stats)``."""

    @abstractmethod
    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """Scores of the rows of a 2-D statistics matrix (vectorised)."""

    def score_from_stats(self, stats: np.ndarray, variant: str) -> float:
        """Score of one statistics vector (e.g. summed over a corpus or a bootstrap sample)."""
        return float(self.scores_from_stats(np.atleast_2d(stats), variant)[0])

    def stored_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """The columns of a statistics matrix that ``variant``'s scores need (what its score file
        stores; ``scores_from_stats`` must accept them as they are): all of them unless a family
        says otherwise."""
        return stats

    def aggregation(self, level: str) -> str:
        """Documents and the system from summed statistics (override where the tool differs)."""
        return STATS

    def subset_score(self, scores: ScoreSet, rows: np.ndarray, variant: str, level: str,
                     documents: DocumentIndex | None = None) -> float:
        """Under the ``stats`` rule, the score of the rows' summed statistics (``scores.stats``
        must be there: the caller checks); otherwise the mean of their scores."""
        if self.aggregation(level) != STATS:
            return super().subset_score(scores, rows, variant, level, documents)
        if scores.stats is None:
            raise ValueError(f"{self.family}: no statistics to compute a {level} score from")
        return self.score_from_stats(scores.stats[rows].sum(axis=0), variant)

    def subset_stats(self, hypothesis: Side, references: Sequence[Side], rows: np.ndarray,
                     prepared: Any = None) -> np.ndarray:
        """Statistics of the segments ``rows`` (0-based) as a run on those lines alone computes them:
        :meth:`prepare` on the references' selected lines (or ``prepared``, made so already), then
        :meth:`segment_stats` of the hypothesis' selected lines; one row per selected segment."""
        if prepared is None:
            prepared = self.prepare([r.rows(rows) for r in references])
        return self.segment_stats(hypothesis.rows(rows), prepared)

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        stats = self.segment_stats(hypothesis, prepared)
        return scores_from_stats_matrix(self, stats, documents, variants)


def scores_from_stats_matrix(family: StatsFamily, stats: np.ndarray, documents: DocumentIndex,
                             variants: Sequence[str]) -> dict[str, ScoreSet]:
    """Segment, document and system scores of every variant from one statistics matrix."""
    doc_names = documents.documents
    doc_stats = np.stack([stats[documents.rows(d)].sum(axis=0) for d in doc_names])
    total = stats.sum(axis=0, keepdims=True)
    result = {}
    for variant in variants:
        doc_scores = family.scores_from_stats(doc_stats, variant)
        result[variant] = ScoreSet(
            system=float(family.scores_from_stats(total, variant)[0]),
            documents=dict(zip(doc_names, map(float, doc_scores), strict=True)),
            segments=np.asarray(family.scores_from_stats(stats, variant), dtype=np.float64),
            stats=family.stored_stats(stats, variant),
        )
    return result


def nan_mean(values: np.ndarray) -> float:
    """Mean of the values that are not NaN; NaN when there are none (no warning)."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.nanmean(values)) if len(values) and not np.isnan(values).all() else float("nan")


def mean_score_set(segments: np.ndarray, documents: DocumentIndex) -> ScoreSet:
    """Document and system scores as means of segment scores (NaN counted as 0), as Asiya does
    for metrics whose tool reports only segment scores (``Metrics::get_seg_doc_scores``)."""
    filled = np.nan_to_num(np.asarray(segments, dtype=np.float64), nan=0.0)
    docs = {d: float(filled[documents.rows(d)].mean()) for d in documents.documents}
    return ScoreSet(system=float(filled.mean()) if len(filled) else 0.0, documents=docs,
                    segments=np.asarray(segments, dtype=np.float64))
