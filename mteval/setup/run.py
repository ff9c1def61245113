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

Learned metrics (an experiment's ``learned: {NAME: MODEL.json}``, :mod:`mteval.setup.learned`):
their features join the requested metrics, and NAME is written for every pair once they are cached.

Parallelism (``-j N``, ``docs/scaling.md``): the stale work is cut into units (a family, a chunk of
targets, their reference sets: :func:`chunked`) computed by :mod:`mteval.setup.engine`, here or in worker processes;
this module alone writes the files, so they are the same for any number of jobs.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, overload

from mteval.errors import CacheError
from mteval.experiment.hybrid_set import spec_of
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.metrics import registry
from mteval.metrics.base import NEEDS_STATS, MetricFamily, Side
from mteval.progress import Bar, bar
from mteval.setup import hybrid
from mteval.setup.annotation import AnnotationProvider
from mteval.setup.expected import Expected
from mteval.setup.limits import check_segment_lengths
from mteval.setup.scripts import check_reference_scripts
from mteval.setup.text_warnings import warnings_for
from mteval.store.cache import ScoreCache, refset_name
from mteval.store.lock import exclusive

if TYPE_CHECKING:  # imported where used: a warm run computes nothing, a run without learned: has no model
    from mteval.setup.dask_engine import DaskEngine
    from mteval.setup.engine import Result, Scores
    from mteval.setup.learned import LearnedModel
    from mteval.setup.units import Unit

LOG = logging.getLogger(__name__)
Progress = Callable[[str], None]
UNIT_TARGETS = 1  # with several jobs, targets per work unit (docs/scaling.md)
Chunk = list[tuple["Pair", list[str]]]  # some targets of a family x reference set and their stale names
Piece = tuple["Planned", Chunk]


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


@dataclass
class Planned:
    """The stale work of one family against one reference set, and where its files go."""

    family: MetricFamily
    references: tuple[str, ...]
    members: tuple[str, ...]  # the reference set's texts (members of a generated group expanded)
    todo: Chunk  # every target and its stale requested names
    signatures: dict[str, str]
    aggregate: str


class SetupRun:
    """One iqsetup run over an experiment's loaded texts."""

    def __init__(self, experiment: Experiment, texts: LoadedTexts, remake: bool = False,
                 progress: Progress | None = None, cluster: DaskEngine | None = None,
                 take_over: bool = False) -> None:
        self.experiment = experiment
        self.texts = texts
        self.remake = remake
        self.take_over = take_over  # replace files another experiment sharing the cache wrote
        self.progress = progress or (lambda message: None)
        self.cache = ScoreCache(experiment.cache, writer=writer_of(experiment))
        self.others: list[tuple[str, str]] = []  # (file, experiment) another experiment wrote, now stale
        self.report = SetupReport()
        self.pairs: list[Pair] = []  # every pair of the run (set when it is planned)
        names = list(texts.references) + list(texts.systems)
        self.segments = {n: texts.text(n).segments for n in names}
        self.groups: dict[str, list[str]] = {}  # a reference-set member standing for several texts (HYB)
        self.cluster = cluster  # a Dask cluster computes (and parses) instead of local processes
        self.annotations = AnnotationProvider(experiment, self.segments, cluster,  # references checked first
                                              partial(check_reference_scripts, texts, experiment.language))
        self.expected = Expected(experiment, texts, self.annotations.identity)
        self._sides: dict[tuple[str, bool, bool], Side] = {}

    def add_group(self, name: str, texts: list[tuple[str, ...]]) -> None:
        """Register generated parallel texts as one reference-set member (``name.1`` ...)."""
        members = [f"{name}.{k + 1}" for k in range(len(texts))]
        for member, segments in zip(members, texts, strict=True):
            self.segments[member] = segments
            self.annotations.add_text(member, segments)
        self.groups[name] = members
        self.expected.add_group(name, dict(zip(members, texts, strict=True)))

    def members(self, name: str) -> list[str]:
        return self.groups.get(name, [name])

    def signature(self, family: MetricFamily, variant: str) -> str:
        """The stored signature of a requested name (:meth:`Expected.signature`: iqeval checks it)."""
        return self.expected.signature(family, variant)

    def inputs(self, pair: Pair) -> str:
        """The stored input digest of a pair (:meth:`Expected.inputs`: iqeval checks it)."""
        return self.expected.inputs(pair.target, pair.references)

    def side(self, name: str, family: MetricFamily) -> Side:
        """A text as a metric sees it (annotated when the family needs it); built once per kind."""
        with_scores = family.needs_annotation and bool(getattr(family, "needs_arc_scores", False))
        key = (name, family.needs_annotation, with_scores)
        if key not in self._sides:
            sentences = self.annotations.sentences(name, with_scores) if family.needs_annotation else None
            self._sides[key] = Side(name, self.segments[name], sentences)
        return self._sides[key]

    def plan_family(self, family: MetricFamily, variants: list[str], pairs: list[Pair]) -> list[Planned]:
        """The stale work of one family, one :class:`Planned` per reference set; ``variants`` are
        the requested names (aliases stored under their own spelling, computed as canonical)."""
        by_refset: dict[tuple[str, ...], list[Pair]] = defaultdict(list)
        for pair in pairs:
            by_refset[pair.references].append(pair)
        signatures = {v: self.signature(family, v) for v in variants}
        rules = {level: family.aggregation(level) for level in ("sys", "doc")}
        aggregate = " ".join(f"{level}:{rule}" for level, rule in rules.items())
        needs_stats = any(rule in NEEDS_STATS for rule in rules.values())
        planned = []
        for references, group in by_refset.items():
            todo = []
            for pair in group:
                stale = self._stale(pair, variants, signatures, needs_stats)
                self.report.skipped += len(variants) - len(stale)
                if stale:
                    todo.append((pair, stale))
            if todo:
                members = tuple(m for r in references for m in self.members(r))
                planned.append(Planned(family, references, members, todo, signatures, aggregate))
        return planned

    def _stale(self, pair: Pair, variants: list[str], signatures: dict[str, str], needs_stats: bool) -> list[str]:
        """The names of a pair to compute; a file not current that another experiment's iqsetup
        wrote (its file still there) is noted in ``others`` (refused unless ``take_over``)."""
        inputs, stale = self.inputs(pair), []
        for variant in variants:
            if self.cache.is_current(pair.target, pair.refset, variant, signatures[variant], inputs,
                                     len(self.texts), needs_stats):
                if self.remake:
                    stale.append(variant)
                continue
            stale.append(variant)
            path = self.cache.find(pair.target, pair.refset, variant)
            owner = "" if path is None else self.cache.stamps.writer(path)
            if owner and owner != self.cache.writer and Path(owner).is_file():
                self.others.append((str(path), owner))
        return stale

    def refuse_others(self) -> None:
        """Stop before anything is written when this run would overwrite another experiment's files."""
        if self.others and not self.take_over:
            path, owner = self.others[0]
            raise CacheError(f"{len(self.others)} file(s) of this cache (first: {path}) were written by experiment "
                             f"{owner} with other texts or settings; two experiments sharing a cache would overwrite "
                             "each other's scores: give this one its own 'cache:', or run iqsetup --take-over",
                             self.experiment.config_path)

    def unit(self, pieces: list[Piece]) -> Unit:
        """The work unit of some targets of one family against their reference sets (texts only;
        the first unit of a syntactic family loads, or makes, the parses of every text)."""
        from mteval.setup.units import Part, Unit

        family = pieces[0][0].family
        parts = tuple(Part(tuple(self.side(m, family) for m in plan.members),
                           tuple(self.side(pair.target, family) for pair, _ in chunk),
                           tuple(tuple(dict.fromkeys(registry.canonical(v) for v in stale)) for _, stale in chunk))
                      for plan, chunk in pieces)
        return Unit(family.family, self.experiment.case_sensitive, parts, self.experiment.language)

    def save(self, planned: Planned, chunk: Chunk, results: Scores) -> list[str]:
        """Write the files of a computed chunk (atomically, one per requested name); their paths."""
        paths = []
        for (pair, stale), scores in zip(chunk, results, strict=True):
            for variant in stale:
                path = self.cache.save(pair.target, pair.refset, variant, scores[registry.canonical(variant)],
                                       self.texts.documents.doc_ids, planned.signatures[variant],
                                       self.inputs(pair), planned.aggregate)
                paths.append(str(path))
        return paths


def run_setup(experiment: Experiment, texts: LoadedTexts, jack: bool = False, remake: bool = False,
              progress: Progress | None = None, targets: tuple[str, ...] | None = None,
              jobs: int | None = None, dask: str | None = None, take_over: bool = False) -> SetupReport:
    """Compute (or find up to date) every requested metric file of an experiment, holding the
    cache's lock (a concurrent run on the same cache waits). ``jobs``: worker processes (None: the
    experiment's ``engine: {jobs: N}``, else one per core); ``dask``: a Dask scheduler's address
    (or ``local``; None: the experiment's ``engine: {dask: ...}``), to compute there instead. The
    files are the same either way. ``take_over``: replace files that another experiment sharing
    the cache wrote with other texts or settings (refused otherwise)."""
    models: list[LearnedModel] = []
    if experiment.learned:
        from mteval.setup import learned

        experiment, models = learned.prepare(experiment)  # a bad model file: one line, before anything is written
    address = dask or experiment.dask
    with exclusive(experiment.cache), ExitStack() as stack:
        cluster = None
        if address is not None:
            from mteval.setup.dask_engine import DaskEngine

            cluster = stack.enter_context(DaskEngine(address, jobs or experiment.jobs, progress))
        run = SetupRun(experiment, texts, remake, progress, cluster, take_over)
        try:
            report = _run_setup(run, jack, targets, jobs_of(experiment, jobs))
            _write_learned(run, models, report)
        finally:  # what was written or read whole, even when the run stops half-way
            run.cache.write_stamps()
        return report


def writer_of(experiment: Experiment) -> str:
    """How a run's files name their writer in the stamps: the experiment file's absolute path."""
    return str(Path(experiment.config_path).resolve())


def hybrid_pairs(experiment: Experiment, targets: tuple[str, ...] | None = None) -> list[Pair]:
    """The systems (``targets`` only, when given) against the hybridized reference set, if any."""
    spec = spec_of(experiment)
    if spec is None:
        return []
    return [Pair(s, (spec.name,)) for s in experiment.system_names if targets is None or s in targets]


def jobs_of(experiment: Experiment, jobs: int | None = None) -> int:
    """The number of processes to use: ``jobs``, else the experiment's, else one per core."""
    return jobs or experiment.jobs or os.cpu_count() or 1


def _run_setup(run: SetupRun, jack: bool, targets: tuple[str, ...] | None, jobs: int) -> SetupReport:
    experiment, progress = run.experiment, run.progress
    run.cache.remove_temporaries()  # left by a killed run; we hold the lock, so none is in use
    run.pairs = pairs = plan_pairs(experiment, jack, targets) + hybrid_pairs(experiment, targets)
    spec = spec_of(experiment)
    if spec is not None:
        progress(f"hybridizing references {', '.join(spec.references)} (cap {spec.cap})")
        generated, _ = hybrid.build(spec, run.annotations, experiment.cache / ".hybrid")
        run.add_group(spec.name, generated)
    planned: list[Planned] = []
    for family_name, variants in registry.group_by_family(experiment.metrics).items():
        family = registry.create(family_name, experiment.case_sensitive, experiment.language)
        planned += run.plan_family(family, variants, pairs)  # stale work only: no text parsed yet
    check_segment_lengths([plan.family for plan in planned], run.texts)  # a segment too long for one: refused
    if any(plan.family.needs_annotation for plan in planned):
        run.annotations.check()  # references in the language's script, before any file is written
    _warn_about_texts(planned, run.texts, experiment)
    run.refuse_others()
    _compute(run, chunked(planned, 2 if run.cluster else jobs), jobs)
    return run.report


def _warn_about_texts(planned: list[Planned], texts: LoadedTexts, experiment: Experiment) -> None:
    """Log one line for each thing these texts will make the computed metrics get wrong: families that
    will make little of them, texts that are not what they should be (:mod:`mteval.setup.text_warnings`)."""
    variants = [(plan.family, name) for plan in planned for _, names in plan.todo for name in names]
    found = warnings_for(variants, _scored_against(planned, texts), texts, experiment.language,
                         experiment.case_sensitive, annotation=experiment.annotation)
    for warning in found:
        LOG.warning(warning)


def _scored_against(planned: list[Planned], texts: LoadedTexts) -> dict[str, list[str]]:
    """Each system computed now, with the references (read from files) of the sets it is scored against."""
    scored: dict[str, dict[str, None]] = {}
    for plan in planned:
        for pair, _ in plan.todo:
            if pair.target in texts.systems:
                references = scored.setdefault(pair.target, {})
                references.update(dict.fromkeys(m for m in plan.members if m in texts.references))
    return {name: list(references) for name, references in scored.items()}


def _write_learned(run: SetupRun, models: list[LearnedModel], report: SetupReport) -> None:
    """The learned metrics (``learned:``) for every pair whose features are now cached."""
    if not models:
        return
    from mteval.setup import learned

    pairs = [(pair.target, pair.refset) for pair in run.pairs]  # those _run_setup planned
    for model in models:
        run.progress(f"learned metric {model.name}: {len(pairs)} pair(s) from {', '.join(model.columns.values())}")
        written, skipped = learned.write_pairs(run.cache, run.texts.documents, model, pairs, run.remake, LOG.warning)
        report.computed += len(written)
        report.files += written
        report.skipped += skipped


def chunked(planned: list[Planned], jobs: int) -> list[list[Piece]]:
    """Split the planned work into units. With one job, a unit is a family x reference set (each
    reference set prepared once, as always). With more, a unit is a family x :data:`UNIT_TARGETS`
    target(s) x every reference set they are scored against: the cores stay busy to the end, and
    a family's caches across reference sets (METEOR aligns each hypothesis/reference pair once,
    for ``A``, ``B`` and ``A_B`` alike) serve as they do in one process."""
    if jobs == 1:
        return [[(plan, plan.todo)] for plan in planned]
    units = []
    for _, grouped in groupby(planned, key=lambda plan: plan.family.family):  # planned family by family
        plans = list(grouped)
        targets = list(dict.fromkeys(pair.target for plan in plans for pair, _ in plan.todo))
        for start in range(0, len(targets), UNIT_TARGETS):
            chosen = set(targets[start:start + UNIT_TARGETS])
            pieces = [(plan, [item for item in plan.todo if item[0].target in chosen]) for plan in plans]
            units.append([(plan, chunk) for plan, chunk in pieces if chunk])
    return units


def _compute(run: SetupRun, work: list[list[Piece]], jobs: int) -> None:
    """Compute the units (in worker processes when worth it) and write their files as they come."""
    if not work:  # a warm run: everything up to date (the engine is not even imported)
        return
    from mteval.setup import engine

    units = _UnitList(run, work)
    pooled = run.cluster is not None or engine.use_pool(len(units), units.work, jobs)
    if run.cluster is not None:
        run.progress(f"computing {len(units)} unit(s) of work on the Dask cluster")
    elif pooled:
        run.progress(f"computing {len(units)} unit(s) of work in {min(jobs, len(units))} worker processes")
    files: dict[int, list[str]] = {}
    with _Tracker(work, run.progress, pooled) as tracker:
        def done(index: int, result: Result) -> None:
            files[index] = [f for (plan, chunk), scores in zip(work[index], result, strict=True)
                            for f in run.save(plan, chunk, scores)]
            tracker.done(index)

        if run.cluster is not None:
            run.cluster.execute(units, run.texts.documents, done, tracker.started)
        else:
            engine.execute(units, run.texts.documents, jobs, done, tracker.started, scratch=run.cache.root,
                           work=units.work)
    for index in sorted(files):  # in plan order, whatever order the units finished in
        run.report.computed += len(files[index])
        run.report.files += files[index]


class _UnitList(Sequence["Unit"]):
    """The run's work units, each built when the engine asks for it: the lexical units go to the
    workers while this process still loads the parses the syntactic ones carry (the workers' start
    and the lexical work overlap that load). ``work``: the total weighted work, counted without
    building anything (what the pool rule needs: :func:`mteval.setup.engine.use_pool`)."""

    def __init__(self, run: SetupRun, work: list[list[Piece]]) -> None:
        from mteval.setup.units import weighted

        self.run, self.pieces = run, work
        self.work = sum(weighted(pieces[0][0].family.family,
                                 sum(len(run.segments[pair.target]) for _, chunk in pieces for pair, _ in chunk))
                        for pieces in work)

    def __len__(self) -> int:
        return len(self.pieces)

    @overload
    def __getitem__(self, index: int) -> Unit: ...
    @overload
    def __getitem__(self, index: slice) -> list[Unit]: ...
    def __getitem__(self, index: int | slice) -> Unit | list[Unit]:
        if isinstance(index, slice):
            return [self.run.unit(pieces) for pieces in self.pieces[index]]
        return self.run.unit(self.pieces[index])


class _Tracker:
    """The metric stage's progress, and a message per family x reference set: when it starts in
    this process, when its last piece is done with a pool.

    Bars: in this process (families one after another), a bar per family over its pairs, opened
    with its first unit and closed with its last. With a pool or a cluster (every unit handed out
    at once, computed in any order), one bar over the stage: a family's bar opened when its units
    are handed out would count the time they wait behind the others' and show a wrong time left.
    That bar counts work as the engine does (:func:`mteval.setup.engine.weighted`: a pair's
    segments, every text having the same, times its family's relative cost), so that its time
    left follows the real cost, not the count of pairs; the pairs done show beside it. (Weighing a
    pair by its reference texts was measured and rejected: TER and METEOR score a multi-reference
    set almost free after its members, from their caches.)"""

    FORMAT = "{l_bar}{bar}| [{elapsed}<{remaining}{postfix}]"  # metrics:  40%|####      | [00:03<00:04, 12/39 pairs]

    def __init__(self, work: list[list[Piece]], progress: Progress, pooled: bool) -> None:
        from mteval.setup.units import weighted

        self.work, self.progress, self.pooled = work, progress, pooled
        self.pieces: dict[int, int] = defaultdict(int)  # pieces left, per planned family x reference set
        self.pairs: list[int] = []  # per unit: its pairs
        self.cost: list[int] = []  # per unit: its work on its bar (pairs on a family's bar)
        for pieces in work:
            pairs = sum(len(chunk) for _, chunk in pieces)
            self.pairs.append(pairs)
            self.cost.append(weighted(pieces[0][0].family.family, pairs) if pooled else pairs)
            for plan, _ in pieces:
                self.pieces[id(plan)] += 1
        self.left: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # per bar: units left, work, pairs
        for index in range(len(work)):
            counts = self.left[self._bar(index)]
            counts[0] += 1
            counts[1] += self.cost[index]
            counts[2] += self.pairs[index]
        self.bars: dict[str, tuple[ExitStack, Bar, list[int]]] = {}  # open bars: stack, bar, [pairs done, of]
        self.announced: set[int] = set()

    def _bar(self, index: int) -> str:
        """The bar a unit counts on: its family's, or the stage's with a pool."""
        return "metrics" if self.pooled else self.work[index][0][0].family.family

    def __enter__(self) -> _Tracker:
        return self

    def __exit__(self, *exc: object) -> None:
        for stack, _, _ in self.bars.values():  # left early (an error, Ctrl-C): cleared where they stand
            stack.close()
        self.bars.clear()

    def _message(self, plan: Planned, suffix: str = "") -> None:
        self.progress(f"{plan.family.family}: {len(plan.todo)} target(s) against {refset_name(plan.references)}"
                      f"{suffix}")

    def started(self, index: int) -> None:
        name = self._bar(index)
        if name not in self.bars:
            stack = ExitStack()
            _, cost, pairs = self.left[name]
            if self.pooled:  # work on the bar, pairs beside it; the average rate (units end in bursts)
                shown = stack.enter_context(bar(cost, name, unit="pair", smoothing=0.0, bar_format=self.FORMAT,
                                                postfix=f"0/{pairs} pairs"))
            else:  # tqdm's moving rate: a family's first unit also prepares (and may parse), then it steadies
                shown = stack.enter_context(bar(cost, name, unit="pair"))
            self.bars[name] = (stack, shown, [0, pairs])
        for plan, _ in self.work[index]:
            if not self.pooled and id(plan) not in self.announced:
                self.announced.add(id(plan))
                self._message(plan)

    def done(self, index: int) -> None:
        name = self._bar(index)
        _, shown, pairs = self.bars[name]
        pairs[0] += self.pairs[index]
        if self.pooled:
            shown.set_postfix_str(f"{pairs[0]}/{pairs[1]} pairs", refresh=False)
        shown.update(self.cost[index])
        self.left[name][0] -= 1
        if self.left[name][0] == 0:  # its last unit: drawn at 100 %, then cleared
            self.bars.pop(name)[0].close()
        for plan, _ in self.work[index]:
            self.pieces[id(plan)] -= 1
            if self.pooled and self.pieces[id(plan)] == 0:
                self._message(plan, " (done)")
