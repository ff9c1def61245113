"""One writer at a time per score cache: an advisory ``flock`` on ``CACHE/.lock``
(:mod:`mteval.files`). A second ``iqsetup`` (or ``iqeval -TRY``, ``mteval tune``) on the same
cache waits, saying once on stderr which process holds the lock."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mteval.errors import CacheError
from mteval.files import held
from mteval.store.cache import check_writable

LOCK_NAME = ".lock"


@contextmanager
def exclusive(root: Path) -> Iterator[None]:
    """Hold the cache's lock for the duration of the ``with`` block (creating the cache folder)."""
    check_writable(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CacheError(f"cannot create the cache folder: {exc.strerror or exc}", root) from None
    path = root / LOCK_NAME
    with held(path, f"waiting: another run ({{holder}}) is writing this cache (lock file {path})"):
        yield
