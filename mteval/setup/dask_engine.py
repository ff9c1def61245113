"""Run iqsetup's work on a Dask distributed cluster (``iqsetup --scheduler ADDRESS`` or
``engine: {dask: ADDRESS}``; ``local`` starts a ``LocalCluster``): see ``docs/scaling.md``.

The same work as :mod:`mteval.setup.engine` -- metric :class:`~mteval.setup.engine.Unit`\\ s
and parse batches of distinct sentences -- goes to Dask workers as tasks. This process (the
client) keeps both caches: workers receive texts and the models' identity, send back
:class:`~mteval.scores.ScoreSet`\\ s and parsed sentences, and never need a shared file system;
the client writes every file, so the files are the same as a local run's.

* Each worker resolves the models from its own mteval installation, checks that their identity
  (file hashes) is the client's, and loads them once per process (:func:`parse_batch`).
* Every task carries the client's mteval version; a worker with another version (or without
  mteval) fails the run with one line, before any file is written for its tasks.
* Parses travel once: each annotated text is scattered when a unit first needs it
  (:mod:`mteval.setup.shipping`), not sent with every unit.
* A worker that dies costs only its tasks: Dask runs them again elsewhere (and the client
  scatters again the texts that died with it, resubmitting the tasks that lost them). A task that kills
  workers repeatedly (Dask's ``allowed-failures``), or a lost scheduler, ends the run with one
  line; the files already written are kept and a re-run resumes from them.

``dask`` and ``distributed`` are an optional extra (``pip install mteval[dask]``); they are
imported only when a run is configured to use them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import mteval
from mteval.annotate.remote import ModelSpec, Parsed
from mteval.errors import MtevalError, quote
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.setup.engine import Done, Families, Result, compute
from mteval.setup.shipping import Given, PackedSide, Shipment, SideStore, shipped_keys
from mteval.setup.units import Unit

LOCAL = "local"  # engine: {dask: local} starts a LocalCluster of `jobs` single-thread workers
CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler before giving up
MAX_TRIES = 3  # times a task whose inputs were lost with a worker is sent again
DOCUMENTS = "documents"  # the Held key of the run's document index (side keys hold a '#')
WINDOW_PER_THREAD = 3  # tasks handed to the cluster at a time, per worker thread (the rest wait here)
# Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536 (to hand freed memory back to the system).
# Setting it fixes glibc's mmap threshold at 128 KiB: every larger block (a numpy array of 16,000 floats) is
# then mmapped and unmapped, page faults included, each time. Here that made a loop of 320 KB numpy
# operations 9x slower (0.6 -> 5.6 s, 4.1 s of it in the kernel), and the metric workers about 1.45x
# slower than pool workers on the same units. The local cluster starts its workers without it.
TRIM_VARIABLE = "MALLOC_TRIM_THRESHOLD_"


class DaskError(MtevalError):
    """The cluster cannot run the work (unreachable, lost, a worker unfit for it)."""


def require_distributed() -> Any:
    """The ``distributed`` module, or a one-line error saying how to install it."""
    try:
        import distributed  # noqa: PLC0415 - optional, heavy
    except ImportError:
        raise DaskError("the Dask engine needs the 'dask' extra: pip install 'mteval[dask]'") from None
    return distributed


class DaskEngine:
    """A client of one Dask cluster for one run, connected on first use (a run with nothing to
    compute never connects); a context manager that closes what it opened."""

    def __init__(self, address: str, jobs: int | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.address = address
        self.jobs = jobs
        self.progress = progress or (lambda message: None)
        self._client: Any = None
        self._cluster: Any = None

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect (and stop a LocalCluster this engine started)."""
        for closing in (self._client, self._cluster):
            if closing is not None:
                try:
                    closing.close()
                except Exception:  # noqa: BLE001 - the scheduler may be gone already
                    pass
        self._client = self._cluster = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._connect()
            check_workers(self._client, self.address)
            trimming = trimming_workers(self._client)
            if trimming:
                value = next(iter(trimming.values()))
                self.progress(f"dask: {len(trimming)} worker(s) run with {TRIM_VARIABLE}={value} "
                              f"(Dask's nanny sets it), which makes every numpy array over 128 KiB cost system "
                              f"calls: the metrics run up to 1.5x slower there; start the workers with the Dask "
                              f"setting distributed.nanny.pre-spawn-environ.{TRIM_VARIABLE}: null (docs/scaling.md)")
        return self._client

    def threads(self) -> int:
        """Worker threads in the cluster now (what the work is cut for)."""
        return max(1, sum(self.client.nthreads().values()))

    def _connect(self) -> Any:
        distributed = require_distributed()
        logging.getLogger("distributed").setLevel(logging.ERROR)  # worker losses are handled here
        if self.address == LOCAL:
            import dask  # noqa: PLC0415

            with dask.config.set({f"distributed.nanny.pre-spawn-environ.{TRIM_VARIABLE}": None}):
                self._cluster = distributed.LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                                         dashboard_address=None)
            client = distributed.Client(self._cluster)
            self.progress(f"dask: started a local cluster of {len(self._cluster.workers)} worker(s)")
            return client
        kwargs: dict[str, Any] = {"timeout": CONNECT_TIMEOUT}
        if self.address.endswith(".json"):
            if not Path(self.address).is_file():
                raise DaskError(f"Dask scheduler file not found: {self.address}")
            kwargs["scheduler_file"] = self.address
        else:
            kwargs["address"] = self.address
        try:
            client = distributed.Client(**kwargs)
        except (OSError, TimeoutError, ValueError) as exc:
            raise DaskError(f"cannot reach the Dask scheduler at {quote(self.address)}: "
                            f"{_first_line(exc)}") from None
        workers = client.nthreads()
        if not workers:
            client.close()
            raise DaskError(f"the Dask scheduler at {self.address} has no workers")
        self.progress(f"dask: {len(workers)} worker(s), {sum(workers.values())} thread(s) at {self.address}")
        return client

    def execute(self, units: Sequence[Unit], documents: DocumentIndex, done: Done,
                started: Callable[[int], None] | None = None) -> None:
        """Compute every unit on the cluster, calling ``done`` here as each result arrives (and
        ``started`` as each is handed to the cluster)."""
        version = mteval.__version__
        shipment = Shipment()  # annotated sides: sent once, when a unit first needs them
        held = Held(self.client)
        light: list[Unit] = []  # built in order as they are submitted: the lexical units run while
        keys: list[list[str]] = []  # the first syntactic one loads the parses here
        needed: Counter[str] = Counter()  # units yet to finish, per side (complete once all are built)

        def submit(index: int) -> Any:
            while len(light) <= index:  # (a resubmitted unit was built already)
                light.append(shipment.light(units[len(light)]))
                keys.append(shipped_keys(light[-1]))
                needed.update(keys[-1])
            given = {key: held.future(key, shipment.sides[key]) for key in keys[index]}
            future = self.client.submit(run_unit, light[index], given, held.future(DOCUMENTS, documents), version,
                                        pure=False)
            if started:
                started(index)
            return future

        for index, result in self._stream(submit, len(units)):
            needed.subtract(keys[index])
            if len(light) == len(units):  # a side no unit needs any more leaves the workers' memory
                for key in [key for key, count in needed.items() if count == 0]:
                    held.release(key)
                    del needed[key]
            done(index, result)

    def parse(self, spec: ModelSpec, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, Parsed]]:
        """``(batch index, parsed batch)`` in completion order, parsed on the cluster."""
        version = mteval.__version__
        return self._stream(lambda index: self.client.submit(parse_batch, spec, list(batches[index]), version,
                                                             pure=False), len(batches))

    def _stream(self, submit: Callable[[int], Any], count: int) -> Iterator[tuple[int, Any]]:
        """Submit tasks ``0 .. count-1`` in order, at most :data:`WINDOW_PER_THREAD` per worker thread
        at a time (so the client and the scheduler hold a few tasks' texts, not the whole run's),
        and yield each one's (index, result) as it completes; cluster failures as one line."""
        if count == 0:
            return
        distributed = require_distributed()
        window = WINDOW_PER_THREAD * self.threads()
        pending: dict[Any, int] = {}
        tries: Counter[int] = Counter()  # resubmissions, per task
        completed = distributed.as_completed()
        submitted = 0
        try:
            while submitted < count or pending:
                while submitted < count and len(pending) < window:
                    future = self._talk(submit, submitted)
                    pending[future] = submitted
                    completed.add(future)
                    submitted += 1
                future = self._talk(next, completed)
                index = pending.pop(future)
                if future.status == "error":  # the task itself failed (the cluster is fine)
                    raise _task_failure(future.exception())
                try:
                    result = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost scheduler or inputs, else the error itself
                    if not (self._lost_inputs(exc) and tries[index] < MAX_TRIES):
                        raise self._cluster_error(exc) from None
                    if not tries:
                        self.progress("dask: a worker died holding parses that tasks needed; sending them again "
                                      "and resubmitting those tasks")
                    tries[index] += 1
                    future = self._talk(submit, index)
                    pending[future] = index
                    completed.add(future)
                    continue
                future.release()
                yield index, result
        finally:
            for future in pending:
                future.cancel()

    def _lost_inputs(self, exc: BaseException) -> bool:
        """Whether fetching a task's result failed because a worker died with the task's inputs or
        its result (cancelled, or the result unreachable) while the scheduler is still there: the
        task can succeed if sent again (a lost scheduler then fails the resubmission itself)."""
        from concurrent.futures import CancelledError  # noqa: PLC0415

        from distributed.comm.core import CommClosedError  # noqa: PLC0415

        if getattr(exc, "reason", "") == "scheduler-connection-lost" or self.client.status != "running":
            return False
        return isinstance(exc, (CancelledError, CommClosedError, OSError))

    def _talk(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, a talk with the cluster: losing the scheduler is one line."""
        try:
            return call(*args)
        except MtevalError:
            raise
        except Exception as exc:
            failure = self._cluster_error(exc)
            if failure is exc:
                raise
            raise failure from None

    def _cluster_error(self, exc: Exception) -> Exception:
        """What an exception raised while talking to the cluster means: a lost scheduler as one line,
        anything else itself."""
        if isinstance(exc, MtevalError) or not _is_lost_cluster(exc):
            return exc
        return DaskError(f"lost the Dask scheduler at {self.address} ({type(exc).__name__}); the files "
                         f"already written are kept: run again to resume")


class Held:
    """Values sent once to the cluster (``scatter``: straight to a worker, which the other workers
    copy them from), kept until released. Scattered data dies with the worker holding it: a value
    whose future is no longer ``finished`` is sent again when a task next needs it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.futures: dict[str, Any] = {}

    def future(self, key: str, value: Any) -> Any:
        found = self.futures.get(key)
        if found is None or found.status != "finished":
            found = self.futures[key] = self._scatter(value)
        return found

    def _scatter(self, value: Any) -> Any:
        """``scatter``, tried again when the worker it went to died on the way (the scheduler
        being still there; a lost scheduler fails every try)."""
        from distributed.comm.core import CommClosedError  # noqa: PLC0415

        if isinstance(value, Side):
            value = PackedSide.of(value)  # unpickled on the worker with the collector off
        for attempt in range(MAX_TRIES):
            try:
                return self.client.scatter(value, hash=False)
            except (CommClosedError, OSError):
                if attempt == MAX_TRIES - 1 or self.client.status != "running":
                    raise
                time.sleep(0.5)
        raise AssertionError("unreachable")

    def release(self, key: str) -> None:
        found = self.futures.pop(key, None)
        if found is not None:
            found.release()


def _task_failure(exc: BaseException) -> BaseException:
    """What a failed task's exception means to the user (a bug in a task: the exception itself)."""
    import distributed  # noqa: PLC0415

    if isinstance(exc, distributed.KilledWorker):
        return DaskError(f"Dask workers died running the same task ({_first_line(exc)}; out of memory?); "
                         f"the files already written are kept: run again to resume")
    if isinstance(exc, ModuleNotFoundError):
        return DaskError(f"a Dask worker cannot import {exc.name} (is mteval installed there?)")
    return exc


def _is_lost_cluster(exc: BaseException) -> bool:
    """Whether an exception raised while talking to the cluster (not by a task) means the
    connection is gone."""
    from concurrent.futures import CancelledError  # noqa: PLC0415

    from distributed.comm.core import CommClosedError  # noqa: PLC0415

    return isinstance(exc, (CancelledError, CommClosedError, OSError, TimeoutError))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def check_workers(client: Any, address: str) -> None:
    """Fail with one line unless every worker imports this mteval version (checked with a builtin,
    so that a worker without mteval answers with an error instead of failing to unpickle)."""
    answers = client.run(eval, "__import__('mteval').__version__", on_error="return")
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            raise DaskError(f"Dask worker {worker} cannot import mteval ({_first_line(answer)}): install "
                            f"mteval {mteval.__version__} there")
        if answer != mteval.__version__:
            raise DaskError(f"Dask worker {worker} runs mteval {answer}, this machine {mteval.__version__}: "
                            f"install the same version on every worker")


def trimming_workers(client: Any) -> dict[str, str]:
    """The workers whose environment sets :data:`TRIM_VARIABLE`, and its value there."""
    answers = client.run(eval, f"__import__('os').environ.get({TRIM_VARIABLE!r})", on_error="return")
    return {worker: answer for worker, answer in sorted(answers.items()) if isinstance(answer, str)}


# --- on a worker -----------------------------------------------------------------------------------

_LOCAL = threading.local()  # per worker thread: its Families (a family instance is not thread-safe)
_PARSERS: dict[str, tuple[Any, threading.Lock]] = {}  # identity -> (StanzaParser, its lock), per process
_PARSERS_LOCK = threading.Lock()


def _worker_address() -> str:
    from distributed import get_worker  # noqa: PLC0415

    try:
        return str(get_worker().address)
    except ValueError:  # not in a worker (a direct call)
        return "(this process)"


def _same_version(version: str) -> None:
    if version != mteval.__version__:
        raise DaskError(f"Dask worker {_worker_address()} runs mteval {mteval.__version__}, the client "
                        f"{version}: install the same version on every worker")


def run_unit(unit: Unit, given: Given, documents: DocumentIndex, version: str) -> Result:
    """Task: score one unit whose annotated sides Dask hands over in ``given`` (each worker thread
    keeps its family instances, preparations and the sides it was given)."""
    _same_version(version)
    if getattr(_LOCAL, "families", None) is None:
        _LOCAL.families, _LOCAL.sides = Families(keep=True), SideStore()
    from mteval.progress import set_quiet  # noqa: PLC0415

    set_quiet(True)
    return compute(unit, documents, _LOCAL.families, _LOCAL.sides, given)


def parse_batch(spec: ModelSpec, texts: list[str], version: str) -> Parsed:
    """Task: parse one batch with this worker's models (loaded once per process, checked against
    the client's identity; one batch at a time per process: a Stanza pipeline is not thread-safe)."""
    _same_version(version)
    with _PARSERS_LOCK:
        if spec.identity not in _PARSERS:
            _PARSERS[spec.identity] = (_load_parser(spec), threading.Lock())
        parser, lock = _PARSERS[spec.identity]
    with lock:
        return parser.parse(texts)


def _load_parser(spec: ModelSpec) -> Any:
    from mteval.annotate.stanza_adapter import (  # noqa: PLC0415 - heavy: stanza/torch
        StanzaParser,
        model_identity,
        resolve_models,
        set_threads,
    )

    where = _worker_address()
    try:
        choice = resolve_models(spec.language, spec.processors, dict(spec.model_paths))
    except MtevalError as exc:
        raise DaskError(f"Dask worker {where}: {exc.problem}") from None
    identity = model_identity(choice)
    if identity != spec.identity:
        raise DaskError(f"Dask worker {where} has other models than the client (its {quote(identity, 120)}): "
                        f"install the same models on every worker")
    set_threads(1)  # as the local parse workers: one torch thread per task
    return StanzaParser(choice)
