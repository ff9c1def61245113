"""IQsetup (IQMT manual §4.1): compute every requested metric for every pair and cache it.

Pairs: system/reference, reference/reference (each reference against each other one),
system/all-references and reference/other-references (multi-reference, for -doOQ and -doref),
reference sets named in the config's ``sets``, and system/system only with ``jack=True``.
A file that exists with the same signature and input digest is skipped unless ``remake`` -- or,
for a statistics-based family, unless it lacks the segments' sufficient statistics (written before
they were stored): it is computed once more (``docs/statistics.md``).

Metric names: a file is stored under the name the user wrote (an alias such as the manual's
``SP-Op-NN``, or ``BLEU``); the family computes the canonical variant it denotes
(:func:`mteval.metrics.registry.canonical`), once per target even when two spellings ask for it, and
the signature is the canonical variant's.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from mteval.metrics import registry
from mteval.metrics.base import STATS, MetricFamily, Side
from mteval.pipeline import hybrid
from mteval.pipeline.annotation import AnnotationProvider
from mteval.pipeline.config import Experiment
from mteval.pipeline.texts import LoadedTexts
from mteval.store.cache import ScoreCache, refset_name
from mteval.store.lock import exclusive

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Pair:
    """A target scored against a reference set (one or more references)."""

    target: str
    references: tuple[str, ...]

    @property
    def refset(self) -> str:
        return refset_name(self.references)


@dataclass
class SetupReport:
    """What a run did: files computed and files found up to date."""

    computed: int = 0
    skipped: int = 0
    files: list[str] = field(default_factory=list)


def reference_sets(experiment: Experiment) -> list[tuple[str, ...]]:
    """Multi-reference sets to compute: all references, and every config set made of references."""
    refs = experiment.reference_names
    sets = [refs] if len(refs) > 1 else []
    for members in experiment.sets.values():
        if isinstance(members, tuple) and len(members) > 1 and all(m in refs for m in members):
            ordered = tuple(r for r in refs if r in members)
            if ordered not in sets:
                sets.append(ordered)
    return sets


def plan_pairs(experiment: Experiment, jack: bool = False, targets: tuple[str, ...] | None = None) -> list[Pair]:
    """Every pair iqsetup computes (for ``targets`` only, when given)."""
    refs, systems = experiment.reference_names, experiment.system_names
    pairs = [Pair(s, (r,)) for s in systems for r in refs]
    pairs += [Pair(s, rs) for s in systems for rs in reference_sets(experiment)]
    pairs += [Pair(r, (o,)) for r in refs for o in refs if o != r]
    if len(refs) > 2:
        pairs += [Pair(r, tuple(o for o in refs if o != r)) for r in refs]
    if jack:
        pairs += [Pair(s, (o,)) for s in systems for o in systems if o != s]
    if targets is not None:
        pairs = [p for p in pairs if p.target in targets]
    return list(dict.fromkeys(pairs))


class SetupRun:
    """One iqsetup run over an experiment's loaded texts."""

    def __init__(self, experiment: Experiment, texts: LoadedTexts, remake: bool = False,
                 progress: Progress | None = None) -> None:
        self.experiment = experiment
        self.texts = texts
        self.remake = remake
        self.progress = progress or (lambda message: None)
        self.cache = ScoreCache(experiment.cache)
        self.report = SetupReport()
        names = list(texts.references) + list(texts.systems)
        self.segments = {n: texts.text(n).segments for n in names}
        self.groups: dict[str, list[str]] = {}  # a reference-set member standing for several texts (HYB)
        self.annotations = AnnotationProvider(experiment, self.segments)

    def add_group(self, name: str, texts: list[tuple[str, ...]]) -> None:
        """Register generated parallel texts as one reference-set member (``name.1`` ...)."""
        members = [f"{name}.{k + 1}" for k in range(len(texts))]
        for member, segments in zip(members, texts, strict=True):
            self.segments[member] = segments
            self.annotations.add_text(member, segments)
        self.groups[name] = members

    def members(self, name: str) -> list[str]:
        return self.groups.get(name, [name])

    def side(self, name: str, family: MetricFamily) -> Side:
        """A text as a metric sees it (annotated when the family needs it)."""
        sentences = None
        if family.needs_annotation:
            sentences = self.annotations.sentences(name, getattr(family, "needs_arc_scores", False))
        return Side(name, self.segments[name], sentences)

    def signature(self, family: MetricFamily, variant: str) -> str:
        """The stored signature of a requested name: that of the canonical variant it denotes."""
        signature = family.signature(registry.canonical(variant))
        if family.needs_annotation:
            signature += f"|annotation:{self.annotations.identity()}"
        return signature

    def digest(self, name: str) -> str:
        if name in self.groups:
            return hashlib.sha256("".join(self.digest(m) for m in self.groups[name]).encode()).hexdigest()[:16]
        if name in self.segments and name not in self.texts.references and name not in self.texts.systems:
            return hashlib.sha256("\n".join(self.segments[name]).encode()).hexdigest()[:16]
        return self.texts.digest(name)

    def inputs(self, pair: Pair) -> str:
        return "+".join(self.digest(n) for n in (pair.target, *pair.references))

    def run_family(self, family: MetricFamily, variants: list[str], pairs: list[Pair]) -> None:
        """Compute one family for every pair, preparing each reference set once; ``variants`` are
        the requested names (aliases stored under their own spelling, computed as canonical)."""
        by_refset: dict[tuple[str, ...], list[Pair]] = defaultdict(list)
        for pair in pairs:
            by_refset[pair.references].append(pair)
        signatures = {v: self.signature(family, v) for v in variants}
        rules = {level: family.aggregation(level) for level in ("sys", "doc")}
        aggregate = " ".join(f"{level}:{rule}" for level, rule in rules.items())
        needs_stats = STATS in rules.values()
        for references, group in by_refset.items():
            todo = []
            for pair in group:
                stale = [v for v in variants if self.remake or not self.cache.is_current(
                    pair.target, pair.refset, v, signatures[v], self.inputs(pair), len(self.texts), needs_stats)]
                self.report.skipped += len(variants) - len(stale)
                if stale:
                    todo.append((pair, stale))
            if not todo:
                continue
            self.progress(f"{family.family}: {len(todo)} target(s) against {refset_name(references)}")
            prepared = family.prepare([self.side(m, family) for r in references for m in self.members(r)])
            for pair, stale in todo:
                wanted = list(dict.fromkeys(registry.canonical(v) for v in stale))
                results = family.score(self.side(pair.target, family), prepared, self.texts.documents, wanted)
                for variant in stale:
                    path = self.cache.save(pair.target, pair.refset, variant, results[registry.canonical(variant)],
                                           self.texts.documents.doc_ids, signatures[variant], self.inputs(pair),
                                           aggregate)
                    self.report.computed += 1
                    self.report.files.append(str(path))


def run_setup(experiment: Experiment, texts: LoadedTexts, jack: bool = False, remake: bool = False,
              progress: Progress | None = None, targets: tuple[str, ...] | None = None) -> SetupReport:
    """Compute (or find up to date) every requested metric file of an experiment, holding the
    cache's lock (a concurrent run on the same cache waits)."""
    with exclusive(experiment.cache):
        return _run_setup(experiment, texts, jack, remake, progress, targets)


def _run_setup(experiment: Experiment, texts: LoadedTexts, jack: bool, remake: bool,
               progress: Progress | None, targets: tuple[str, ...] | None) -> SetupReport:
    run = SetupRun(experiment, texts, remake, progress)
    run.cache.remove_temporaries()  # left by a killed run; we hold the lock, so none is in use
    pairs = plan_pairs(experiment, jack, targets)
    spec = hybrid.spec_of(experiment)
    if spec is not None:
        if progress:
            progress(f"hybridizing references {', '.join(spec.references)} (cap {spec.cap})")
        generated, _ = hybrid.build(spec, run.annotations, experiment.cache / ".hybrid")
        run.add_group(spec.name, generated)
        pairs += [Pair(s, (spec.name,)) for s in experiment.system_names if targets is None or s in targets]
    for family_name, variants in registry.group_by_family(experiment.metrics).items():
        family = registry.create(family_name, experiment.case_sensitive)
        run.run_family(family, variants, pairs)
    return run.report
