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
    try:
        found = marshal.loads(path.read_bytes())
        if isinstance(found, kind):
            return found
    except FileNotFoundError:
        pass
    except (OSError, EOFError, ValueError, TypeError) as exc:  # damaged or foreign: derive it again
        LOG.debug("user cache %s unreadable (%s); rebuilding it", path, exc)
    value = build()
    _store(path, name, value)
    return value


def _store(path: Path, name: str, value: Any) -> None:
    """Write ``path`` atomically and remove the files an older resource left; errors only logged."""
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
        for old in path.parent.glob(f"{name}-*-{_PYTHON}.marshal"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError as exc:
        LOG.debug("user cache %s not written (%s)", path, exc)
