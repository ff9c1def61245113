"""A real Dask cluster on localhost for tests: ``dask scheduler`` and ``dask worker`` processes on
free ports, torn down at the end (issue 12: no mocks of the engine)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# a worker started from Python with something changed first (no mteval, another version, no models)
WORKER_WITH = "{prelude}\nfrom distributed.cli.dask_worker import main\nsys.argv[0] = 'dask-worker'\nmain()"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """A scheduler and its workers; ``address`` to connect, ``workers`` their processes."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []

    def _start(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        return subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def start_scheduler(self) -> None:
        self.scheduler = self._start("scheduler", ["dask", "scheduler", "--host", "127.0.0.1", "--port",
                                                   str(self.port), "--no-dashboard"])

    def add_worker(self, prelude: str | None = None) -> subprocess.Popen[bytes]:
        """A single-thread worker without a nanny (so killing it kills the worker itself)."""
        name = f"worker{len(self.workers) + 1}"
        options = [self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name]
        if prelude is None:
            command = ["dask", "worker", *options]
        else:
            command = [sys.executable, "-c", WORKER_WITH.format(prelude=f"import sys\n{prelude}"), *options]
        worker = self._start(name, command)
        self.workers.append(worker)
        return worker

    def wait_for_workers(self, count: int, timeout: float = 60) -> None:
        """Block until ``count`` workers have joined the scheduler."""
        from distributed import Client  # noqa: PLC0415

        with Client(self.address, timeout=timeout) as client:
            client.wait_for_workers(count, timeout=timeout)

    def stop(self) -> None:
        for process in [*self.workers, self.scheduler]:
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@contextmanager
def cluster(logs: Path, workers: int = 2, prelude: str | None = None) -> Iterator[Cluster]:
    """A running cluster of ``workers`` workers (each started after ``prelude`` when given)."""
    logs.mkdir(parents=True, exist_ok=True)
    running = Cluster(logs)
    try:
        running.start_scheduler()
        for _ in range(workers):
            running.add_worker(prelude)
        running.wait_for_workers(workers)
        yield running
    finally:
        running.stop()


def wait_until(condition: object, timeout: float = 60, every: float = 0.05) -> None:
    """Poll ``condition()`` until it is true (or fail after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(every)
