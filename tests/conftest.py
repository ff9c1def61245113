"""Shared fixtures: where ../shared is, and skipping tests that need it (or Stanza)."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
from collections.abc import Generator, Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = ROOT / "data"

needs_shared = pytest.mark.skipif(not SHARED.exists(), reason="../shared (WMT data and oracles) is absent")
# Tests marked `models` parse with Stanza: skipped, saying why, where the syntax extra is not installed
# (a lexical-only environment: `pip install -e '.[test]'`); `make install` brings it.
HAS_STANZA = find_spec("stanza") is not None and find_spec("torch") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``models`` tests without Stanza and torch (one reason line for all of them)."""
    if HAS_STANZA:
        return
    skip = pytest.mark.skip(reason="needs Stanza and torch: pip install -e '.[syntax]' (make install brings them)")
    for item in items:
        if "models" in item.keywords:
            item.add_marker(skip)


# `make test` runs `pytest -n auto` (pytest-xdist): one worker a core as xdist counts them, at most
# MAX_WORKERS and one per WORKER_MEMORY of the machine's memory. A worker peaks at 1.2-1.7 GB on the
# fast tier (measured on 2 workers, 2 cores: the parser's models, the commands it starts besides);
# a many-core laptop with little memory would otherwise swap. PYTEST_XDIST_AUTO_NUM_WORKERS (xdist's
# own setting) or `make test TEST_WORKERS=N` choose the number instead.
MAX_WORKERS = 8
WORKER_MEMORY = 3 << 30


@pytest.hookimpl(hookwrapper=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> Generator[None, Any, None]:
    """xdist's ``-n auto`` count, capped by MAX_WORKERS and the memory (above)."""
    outcome = yield
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        memory = MAX_WORKERS * WORKER_MEMORY
    outcome.force_result(max(1, min(outcome.get_result(), MAX_WORKERS, memory // WORKER_MEMORY)))


@pytest.fixture(autouse=True)
def _bars_as_at_the_start() -> Iterator[None]:
    """Every test starts with the progress bars' default: a command run in-process with ``-q`` (or a
    setup engine's worker code) calls ``progress.set_quiet(True)``, which would otherwise last for the
    rest of the process and silence the bars of the tests that come after it on that worker."""
    yield
    from mteval import progress  # noqa: PLC0415 (the package is imported by the tests, not at collection)

    progress.set_quiet(False)


# The user cache of derived resources (mteval/user_cache.py) goes to a folder of this test session,
# not the user's ~/.cache: the installed commands the tests run inherit it. Removed at exit.
if "MTEVAL_CACHE_DIR" not in os.environ:
    _USER_CACHE = tempfile.TemporaryDirectory(prefix="mteval-user-cache-")
    os.environ["MTEVAL_CACHE_DIR"] = _USER_CACHE.name


# SIGTERM and SIGHUP (a cancelled CI job, timeout(1), a closed terminal) end the session as Ctrl-C does:
# helpers.run then kills the command it waits for, which runs in a process group of its own that those
# signals, sent to pytest's group, do not reach.
_SESSION_PID = os.getpid()


def _interrupt(signum: int, frame: object) -> None:
    if os.getpid() != _SESSION_PID:  # a process forked by a test: the signal's default action
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise KeyboardInterrupt(signal.Signals(signum).name)


if threading.current_thread() is threading.main_thread():
    for _signal in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(_signal) == signal.SIG_DFL:
            signal.signal(_signal, _interrupt)

