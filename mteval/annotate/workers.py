"""Parse batches in parallel worker processes (``Annotator(workers=N)``).

Each worker (started with ``spawn``, so no torch state is forked) loads its own Stanza pipeline
with one torch thread (or its own copy of another backend's models) and parses whole batches;
the parent receives each batch as soon as it is done and commits it to the cache, so an
interrupted run keeps every finished batch. On two cores two single-thread workers beat one
two-thread pipeline (Stanza's intra-op parallelism scales poorly on these small matrices):
see docs/annotation.md for the measurement.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from mteval.annotate.backends import Backend, Parser
from mteval.annotate.remote import Parsed
from mteval.annotate.stanza_adapter import ModelChoice, StanzaParser, set_threads
from mteval.processes import LogForwarding, exit_with_parent, log_to, stop_workers

_PARSER: StanzaParser | Parser | None = None


def _start(choice: ModelChoice | Backend, parent: int, logs: Any) -> None:
    """Worker initialiser: leave with the parent (its pid given by the parent itself, which may
    already be gone while this worker imports), warnings sent to the parent (``logs``:
    :class:`~mteval.processes.LogForwarding`), one torch thread, one pipeline."""
    global _PARSER
    exit_with_parent(parent)
    log_to(logs)
    if isinstance(choice, ModelChoice):
        set_threads(1)
        _PARSER = StanzaParser(choice)
    else:  # another backend (numpy/thinc: single-threaded as used here)
        _PARSER = choice.load()


def _parse(texts: Sequence[str]) -> Parsed:
    """Parse one batch in a worker."""
    assert _PARSER is not None
    return _PARSER.parse(texts)


def parse_parallel(choice: ModelChoice | Backend, batches: Sequence[Sequence[str]],
                   workers: int) -> Iterator[tuple[int, Parsed]]:
    """Yield ``(batch index, parsed batch)`` in completion order."""
    ctx = multiprocessing.get_context("spawn")
    with LogForwarding(ctx) as logs, ProcessPoolExecutor(workers, mp_context=ctx, initializer=_start,
                                                         initargs=(choice, os.getpid(), logs.queue)) as pool:
        pending: dict[Future[Parsed], int] = {pool.submit(_parse, b): i for i, b in enumerate(batches)}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield pending.pop(fut), fut.result()
        except BaseException:  # Ctrl-C, an error, or the caller stopped reading: no batch parsed for nobody
            stop_workers(pool)
            raise
