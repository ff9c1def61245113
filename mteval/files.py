"""Durable files shared by the score cache and the annotation cache: atomic writes with the
umask's mode, and one advisory ``flock`` per cache.

An atomic write goes to a temporary file in the same folder (``.NAME.*.tmp``, which a lock holder
may delete as left by a killed run), is fsynced, gets the mode ``open()`` would give, and is
renamed over the target: a reader sees the old file or the new one, never part of one.

For locks, a second process waits, saying once on stderr (a ``logging`` warning) who holds the lock; the
kernel releases the lock when its holder exits, even after ``kill -9``, so a stale lock file never
blocks a later run. On a file system without locks (some network mounts) the holder warns once
and goes on unserialised.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from mteval.errors import CacheError

LOG = logging.getLogger("mteval.lock")


def file_mode() -> int:
    """The mode ``open()`` gives new files under the current umask (0644 under 022)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: Path, data: bytes, fsync_folder: bool = False, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically and durably (module docstring); ``fsync_folder`` also
    makes the rename itself durable; ``durable=False`` skips the fsync (a file that is checked when
    read, and only saves work: a power loss may leave it empty or old). Raises OSError; the
    temporary file never stays behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), file_mode())
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    if fsync_folder:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


@contextmanager
def held(path: Path, waiting: str) -> Iterator[None]:
    """Hold the lock on ``path`` for the ``with`` block. ``waiting`` is the message said while
    another process holds it; ``{holder}`` in it is replaced by that process's ``pid N``."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, file_mode())
    except OSError as exc:
        raise CacheError(f"cannot create the lock file: {exc.strerror or exc}", path) from None
    try:
        _acquire(fd, path, waiting)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _acquire(fd: int, path: Path, waiting: str) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode("utf-8", errors="replace").strip() or "another process"
    except OSError as exc:
        LOG.warning("cannot lock %s (%s); concurrent runs are not serialised", path, exc.strerror or exc)
        return
    LOG.warning(waiting.replace("{holder}", holder))
    fcntl.flock(fd, fcntl.LOCK_EX)


@lru_cache(maxsize=256)
def content_digest(path: str, size: int, mtime: float) -> str:
    """SHA-256 (hex) of a file's content, read in 1 MiB blocks; cached per (path, size, mtime), which
    the caller takes from one ``stat`` (model files: the annotation identity)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
