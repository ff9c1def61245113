"""Run iqsetup's work units: in this process (``-j 1``, small experiments) or in a local pool of
worker processes (``-j N``); see ``docs/scaling.md``.

A :class:`Unit` is one metric family for a chunk of targets against one or more reference sets
(one :class:`Part` each), carrying only the texts it needs (the reference and target sides; their
parses, for a syntactic family, travel apart, once per run: :mod:`mteval.setup.shipping`).
A worker prepares each reference set (once per family it works on), scores each target and
returns the :class:`~mteval.scores.ScoreSet` objects; the
caller (the parent process) writes the files, so what is written does not depend on which
process computed what, nor in which order.

Workers are started with ``spawn`` (no forked torch or thread state), once per run; each keeps
one instance of every family it is given (as the single-process run keeps one per family), and
stops when the parent is gone or on Ctrl-C; a run that ends early (Ctrl-C, an error) terminates its
workers rather than wait for the units they hold. A dead worker (killed, out of memory) ends the run
with one line (:class:`WorkerError`); files already written stay, and the next run resumes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mteval.errors import MtevalError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import MetricFamily, Side
from mteval.processes import LogForwarding, exit_with_parent, exit_without_teardown, log_to, stop_workers
from mteval.scores import ScoreSet
from mteval.setup.shipping import Given, Shipment, SideStore, SpillFolder
from mteval.setup.units import MIN_POOL_UNITS, MIN_POOL_WORK, Unit

if TYPE_CHECKING:
    from concurrent.futures import Future

Scores = list[dict[str, ScoreSet]]  # per target of a part: variant -> scores
Result = list[Scores]  # per part of a unit
Done = Callable[[int, Result], None]  # called in the parent with (unit index, its result)


class WorkerError(MtevalError):
    """A worker process ended without answering (killed, out of memory)."""


class Families:
    """One instance of each family (per process, or per run in this process); with ``keep``, the
    reference sets prepared for the family of the last unit, for the next units of that family
    (a worker is given a family's units one after another)."""

    def __init__(self, keep: bool = False) -> None:
        self.keep = keep
        self._instances: dict[tuple[str, bool | None, str], MetricFamily] = {}
        self._prepared: dict[tuple[str, ...], Any] = {}
        self._of: tuple[str, bool | None, str] | None = None  # the family _prepared belongs to

    def get(self, name: str, case_sensitive: bool | None, language: str = "en") -> MetricFamily:
        key = (name, case_sensitive, language)
        if key not in self._instances:
            self._instances[key] = registry.create(name, case_sensitive, language)
        return self._instances[key]

    def prepared(self, unit: Unit, references: list[Side]) -> Any:
        """The family's preparation of a part's reference set (names identify texts in a run)."""
        family = (unit.family, unit.case_sensitive, unit.language)
        if self._of != family:
            self._prepared, self._of = {}, family  # free another family's preparations
        key = tuple(r.name for r in references)
        if key in self._prepared:
            return self._prepared[key]
        prepared = self.get(*family).prepare(references)
        if self.keep:
            self._prepared[key] = prepared
        return prepared


def compute(unit: Unit, documents: DocumentIndex, families: Families, store: SideStore | None = None,
            given: Given | None = None) -> Result:
    """Score every target of every part of a unit against the part's (prepared) reference set;
    sides shipped apart are resolved through ``store`` (from ``given``, or their spill files)."""
    family = families.get(unit.family, unit.case_sensitive, unit.language)
    store = store or SideStore()
    out = []
    for part in unit.parts:
        references, targets = store.part(part, given or {})
        prepared = families.prepared(unit, references)
        out.append([family.score(target, prepared, documents, list(variants))
                    for target, variants in zip(targets, part.variants, strict=True)])
    return out


def use_pool(count: int, work: int, jobs: int) -> bool:
    """Whether ``count`` units of ``work`` in all (:attr:`Unit.work`) are worth a pool (see
    :data:`MIN_POOL_WORK`)."""
    least = int(os.environ.get("MTEVAL_POOL_MIN_WORK", MIN_POOL_WORK))  # 0 forces the pool (tests)
    return jobs > 1 and count >= MIN_POOL_UNITS and work >= least


def execute(units: Sequence[Unit], documents: DocumentIndex, jobs: int, done: Done,
            started: Callable[[int], None] | None = None, scratch: Path | None = None,
            work: int | None = None) -> int:
    """Compute every unit, calling ``done`` in this process as each result arrives (in unit order
    here, in completion order with a pool) and ``started`` when a unit is handed out; the number
    of worker processes used (0: none, all in this process). ``units`` may build each unit when
    indexed (in order, once), with ``work`` their total :attr:`Unit.work` counted beforehand. A
    pool's spill folder goes under ``scratch`` (the score cache: see
    :class:`~mteval.setup.shipping.SpillFolder`)."""
    if work is None:
        work = sum(unit.work for unit in units)
    if not use_pool(len(units), work, jobs):
        families = Families(keep=True)  # a family's units come one after another: prepare once
        for index in range(len(units)):
            if started:
                started(index)
            done(index, compute(units[index], documents, families))
        return 0
    workers = min(jobs, len(units))
    with closing(_pooled(units, documents, workers, started, scratch)) as results:  # closed at once on an error
        for index, result in results:
            done(index, result)
    return workers


def _pooled(units: Sequence[Unit], documents: DocumentIndex, workers: int, started: Callable[[int], None] | None,
            scratch: Path | None = None) -> Generator[tuple[int, Result], None, None]:
    """``(unit index, result)`` in completion order, from a pool of ``workers`` processes."""
    import multiprocessing  # noqa: PLC0415 - only a run with a pool pays for these imports
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait  # noqa: PLC0415
    from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

    context = multiprocessing.get_context("spawn")
    logs = LogForwarding(context).__enter__()  # the workers' warnings: lines of this process, above the bars
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start,
                               initargs=(documents, os.getpid(), logs.queue))
    spill = SpillFolder(scratch)  # annotated sides: pickled once into a file, not into every unit
    shipment = Shipment(spill.write)
    try:
        pending: dict[Future[Result], int] = {}
        for index in range(len(units)):  # in plan order: a family's units one after another
            pending[pool.submit(_compute, shipment.light(units[index]))] = index
            if started:
                started(index)
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield pending.pop(future), future.result()
    except BrokenProcessPool:
        raise WorkerError("a worker process died (killed, or out of memory?); the files already written are "
                          "kept: run again to resume (with a smaller -j if memory is short)") from None
    except BaseException:  # Ctrl-C, an error here or in the caller (GeneratorExit): no unit is wanted any more
        stop_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        spill.close()
        logs.__exit__()


# --- in a worker process ---------------------------------------------------------------------------

_DOCUMENTS: DocumentIndex | None = None
_FAMILIES = Families(keep=True)
_SIDES = SideStore()


def _start(documents: DocumentIndex, parent: int, logs: Any) -> None:
    """Worker initialiser: the experiment's documents, no progress bars, warnings sent to the
    parent (``logs``: :class:`~mteval.processes.LogForwarding`), leave with the parent, and
    without tearing down the heap at the end (the parent waits for that)."""
    global _DOCUMENTS
    from mteval.progress import set_quiet  # noqa: PLC0415

    _DOCUMENTS = documents
    set_quiet(True)
    log_to(logs)
    exit_with_parent(parent)
    exit_without_teardown()


def _compute(unit: Unit) -> Result:
    assert _DOCUMENTS is not None
    return compute(unit, _DOCUMENTS, _FAMILIES, _SIDES)


