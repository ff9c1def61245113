"""One writer at a time per score cache: an advisory ``flock`` on ``CACHE/.lock``.

A second ``iqsetup`` (or ``iqeval -TRY``) on the same cache waits, saying once on stderr which
process holds the lock; the kernel releases the lock when its holder exits, even after
``kill -9``, so a stale lock file never blocks a later run.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mteval.errors import CacheError
from mteval.store.cache import FILE_MODE, check_writable

LOG = logging.getLogger(__name__)
LOCK_NAME = ".lock"


@contextmanager
def exclusive(root: Path) -> Iterator[None]:
    """Hold the cache's lock for the duration of the ``with`` block (creating the cache folder)."""
    check_writable(root)
    path = root / LOCK_NAME
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
    except OSError as exc:
        raise CacheError(f"cannot create the cache lock: {exc.strerror or exc}", path) from None
    try:
        _acquire(fd, path)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _acquire(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode("utf-8", errors="replace").strip() or "another process"
    except OSError as exc:  # a file system without locks (some network mounts): go on, say so
        LOG.warning("cannot lock %s (%s); concurrent runs on this cache are not serialised", path,
                    exc.strerror or exc)
        return
    LOG.warning("waiting: another run (%s) is writing this cache (lock file %s)", holder, path)
    fcntl.flock(fd, fcntl.LOCK_EX)
