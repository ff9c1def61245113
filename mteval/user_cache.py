"""A per-user cache of data derived from mteval's bundled resources, kept between runs.

Some resources are shipped compressed and parsed at every start: METEOR's paraphrase table takes
1.5 s to decompress (``xz``) and split, in every process that scores ``METEOR-pa`` (each ``-j``
worker, each Dask worker). The derived object is stored once with :mod:`marshal` (the format of
Python's own ``.pyc`` files; 0.2 s to load the table) under

``$MTEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/mteval``, else ``~/.cache/mteval``,

named after the resource's SHA-256 and the Python version (marshal's format is Python's), written
atomically; a file for an older resource is removed when its successor is written. The cache is
an optimisation only: an unwritable folder, or a damaged or foreign file, means the resource is
derived again as before (and the file rewritten when possible). ``MTEVAL_CACHE_DIR=off`` disables it.

:func:`remembered` keeps results computed from users' texts the same way, under a digest of those
texts and of the code (the warnings about texts: ``mteval.setup.text_warnings``), the most recently
used few in a folder of their own.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOG = logging.getLogger(__name__)
OFF = "off"
_PYTHON = f"py{sys.version_info[0]}{sys.version_info[1]}"  # marshal's format is this Python's


def cache_dir() -> Path | None:
    """The cache folder (not created here), or None when disabled."""
    given = os.environ.get("MTEVAL_CACHE_DIR")
    if given:
        return None if given == OFF else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mteval"


def _fingerprint(source: Path) -> str:
    digest = hashlib.sha256()
    with source.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def derived(name: str, source: Path, build: Callable[[], Any], kind: type = dict) -> Any:
    """``build()`` (an object :mod:`marshal` can store, of type ``kind``), from the cache when a
    previous run stored it for this very ``source`` file and Python version."""
    folder = cache_dir()
    if folder is None:
        return build()
    path = folder / f"{name}-{_fingerprint(source)}-{_PYTHON}.marshal"
    found = _load(path, kind)
    if found is not None:
        return found
    value = build()
    _store(path, name, value)
    return value


def remembered(name: str, key: str, build: Callable[[], Any], kind: type = list, keep: int = 64) -> Any:
    """``build()``, from the cache when a previous run stored it under ``key`` (a digest of all that
    ``build`` reads and of the code that does it): in the folder ``name``, which keeps the ``keep``
    most recently used results."""
    folder = cache_dir()
    if folder is None:
        return build()
    path = folder / name / f"{key}-{_PYTHON}.marshal"
    found = _load(path, kind)
    if found is not None:
        try:
            os.utime(path)  # recently used
        except OSError:
            pass
        return found
    value = build()
    if _write(path, value):
        _keep_recent(path.parent, keep)
    return value


def _load(path: Path, kind: type) -> Any:
    """The object stored at ``path`` when it is a ``kind``, else None (missing, damaged, foreign)."""
    try:
        found = marshal.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, EOFError, ValueError, TypeError) as exc:
        LOG.debug("user cache %s unreadable (%s); rebuilding it", path, exc)
        return None
    return found if isinstance(found, kind) else None


def _keep_recent(folder: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently used files of ``folder``; errors ignored."""
    try:
        files = sorted(folder.glob("*.marshal"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def _write(path: Path, value: Any) -> bool:
    """Write ``path`` atomically; False (logged) when it cannot be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(marshal.dumps(value))
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        LOG.debug("user cache %s not written (%s)", path, exc)
        return False
    return True


def _store(path: Path, name: str, value: Any) -> None:
    """Write ``path`` atomically and remove the files an older resource left; errors only logged."""
    if not _write(path, value):
        return
    try:
        for old in path.parent.glob(f"{name}-*-{_PYTHON}.marshal"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError as exc:
        LOG.debug("user cache %s: older files not removed (%s)", path, exc)
