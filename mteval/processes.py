"""Worker processes shared by the parse workers and iqsetup's metric workers."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from typing import Any


def exit_with_parent(parent: int, every: float = 0.5) -> None:
    """Stop this worker at once when its parent is gone (``kill -9`` of iqsetup) instead of working
    for nobody (a parse worker would hold ~700 MB and a core for minutes): a daemon thread checks
    the parent's pid every ``every`` seconds. Ctrl-C (SIGINT to the terminal's process group) ends
    the worker at once too, without a traceback: a pool worker would otherwise catch the
    ``KeyboardInterrupt`` of its task, hand it back as the task's result and take the next task; the
    parent, interrupted too, ends the run (files already written are kept)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def stop_workers(pool: Any) -> None:
    """Terminate the worker processes of a ``concurrent.futures.ProcessPoolExecutor`` now: for a run
    that ends early (Ctrl-C, an error in the parent), whose ``shutdown`` would otherwise wait for the
    tasks the workers are running and those already queued to them (minutes of parsing or scoring
    when only the parent was interrupted). Its ``shutdown`` still has to be called.

    The parent's read end of the pool's task pipe is closed too, as Python 3.11+ does itself once
    the pool is broken (CPython issue 94777): on Python 3.10 the thread that writes queued tasks into
    that pipe otherwise blocks forever on a full pipe nobody reads, and ``shutdown`` with it (Ctrl-C
    of ``iqsetup -j 2`` hung; ``tests/test_processes.py``)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # already gone, or closed
            process.terminate()
    with contextlib.suppress(OSError, AttributeError):
        pool._call_queue._reader.close()


def exit_without_teardown() -> None:
    """End this worker process with ``os._exit`` once it has finished normally, skipping the
    interpreter's teardown: freeing a worker's heap object by object (parses, METEOR tables, torch)
    took 2.3 s at the end of a 500-segment ``iqsetup -j 2`` run, with the parent waiting on it.
    Registered last, so it runs first among the exit handlers; output is flushed before."""
    def leave() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(0)

    atexit.register(leave)


class LogForwarding:
    """Worker processes' log records shown by this process, as its own (issue 30: a warning of a
    metric or parse worker is one ``iqsetup: warning: ...`` line above the progress bars, not a
    bare line written into them by the worker). The parent makes one, hands :attr:`queue` to each
    worker's initialiser (which calls :func:`log_to`), and a listener thread gives every record
    to the parent's logger of the same name (the ``mteval`` logger's handlers: ``cli.common``)."""

    def __init__(self, context: Any) -> None:
        from logging.handlers import QueueListener  # noqa: PLC0415

        self.queue = context.Queue()
        self._listener = QueueListener(self.queue, _Dispatch())

    def __enter__(self) -> LogForwarding:
        self._listener.start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Show the records still queued, then stop the thread and close the queue."""
        with contextlib.suppress(Exception):  # a queue broken by a killed worker: nothing more to show
            self._listener.stop()
        self.queue.close()
        self.queue.join_thread()


class _Dispatch(logging.Handler):
    """The listener's handler: a worker's record through this process's logger of its name."""

    def emit(self, record: logging.LogRecord) -> None:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def log_to(queue: Any, level: int = logging.WARNING) -> None:
    """In a worker: send the ``mteval`` logger's records of ``level`` and above to ``queue``
    (:class:`LogForwarding`), and nothing to this process's own standard error."""
    from logging.handlers import QueueHandler  # noqa: PLC0415

    logger = logging.getLogger("mteval")
    logger.handlers = [QueueHandler(queue)]
    logger.setLevel(level)
    logger.propagate = False
