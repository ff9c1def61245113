"""The stamp index of the score cache: what was established about each file when mteval wrote it
or last read it whole, so that iqsetup's up-to-date check need not parse it again
(``docs/scaling.md``, "Stamp index").

One index per cache folder, ``TARGET/REFSET/.stamps.json`` (hidden: never taken for a score file),
written atomically by the holder of the cache's lock. Its entry for a file: the file's size and
the sha256 of its bytes, and the facts that :meth:`~mteval.store.cache.ScoreCache.is_current`
compares -- signature, inputs, whether it carries a content digest (which matched), whether it
has the segments' statistics, its number of segments. A file counts as stamped only when its bytes
(read as a regular file, never through a link) hash to the recorded sha256; anything else (no
index, a damaged index, another size or content: a file edited, truncated or dropped in) is read
whole and verified as before, which refreshes the entry. An entry depends on the file's bytes
only, so a cache stays byte-identical whatever ``-j`` wrote it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mteval.errors import CacheError
from mteval.files import write_atomic
from mteval.store import iqxml

INDEX = ".stamps.json"
FORMAT = "mteval-stamps/2"  # /1 indexes (no writer) are read too
FORMATS = ("mteval-stamps/1", FORMAT)
MAX_INDEX_BYTES = 16 * 1024 * 1024  # a larger index is ignored (a folder holds tens of files)
LOG = logging.getLogger(__name__)
Fingerprint = tuple[int, str]  # (size, sha256 of the bytes)


@dataclass(frozen=True)
class Facts:
    """What a full read of a score file established (or, for a file mteval wrote, will establish)."""

    signature: str
    inputs: str
    digest: bool  # the file carries a content digest, and it matched
    stats: bool  # the segments' statistics are there
    segments: int

    @classmethod
    def of(cls, found: iqxml.ScoreFile) -> Facts:
        return cls(found.signature, found.inputs, bool(found.digest), found.scores.stats is not None,
                   len(found.scores.segments))

    def current(self, signature: str, inputs: str, n_segments: int | None, needs_stats: bool) -> bool:
        """The test of ``ScoreCache.is_current`` on a file that reads whole (for ``n_segments``)."""
        return (self.signature == signature and self.inputs == inputs and self.digest
                and (self.stats or not needs_stats) and (n_segments is None or self.segments == n_segments))


@dataclass(frozen=True)
class Stamp:
    """An index entry: the file's bytes (size, sha256), their facts, and the experiment file whose
    iqsetup wrote them ("" when not known: a file read, not written; docs/reliability.md)."""

    size: int
    sha256: str
    facts: Facts
    writer: str = ""


def fingerprint(path: Path, size: int | None = None) -> Fingerprint | None:
    """(size, sha256) of a regular file, opened without following a link; None when it cannot be
    read so. With ``size``, a file of another size is not hashed (its sha256 is "")."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None
        if size is not None and info.st_size != size:
            return info.st_size, ""
        digest = hashlib.sha256()
        total = 0
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            total += len(chunk)
    return total, digest.hexdigest()


def written_facts(score_file: iqxml.ScoreFile, data: bytes, n_docs: int) -> Facts | None:
    """The facts of a file :func:`~mteval.store.iqxml.to_xml` wrote, or None when a full read would
    refuse it (a value beyond the reader's limits: it is read whole next time, and found damaged)."""
    scores = score_file.scores
    if len(data) > iqxml.MAX_BYTES or 1 + n_docs + len(scores.segments) > iqxml.MAX_ELEMENTS:
        return None
    if not _within(np.array([scores.system, *scores.documents.values(), *scores.segments], dtype=np.float64)):
        return None
    if scores.stats is not None and not _stats_readable(scores.stats, len(scores.segments)):
        return None
    return Facts(score_file.signature, score_file.inputs, True, scores.stats is not None, len(scores.segments))


def _within(values: np.ndarray) -> bool:
    """Every finite value within the reader's ±MAX_ABS (NaN and ±inf are written as ``nan``)."""
    finite = values[np.isfinite(values)]
    return not bool(np.any(np.abs(finite) > iqxml.MAX_ABS))


def _stats_readable(stats: np.ndarray, n_segments: int) -> bool:
    """The statistics as the reader accepts them: 1 to MAX_STATS finite values a segment, within limits."""
    values = np.asarray(stats, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] != n_segments or not 0 < values.shape[1] <= iqxml.MAX_STATS:
        return False
    if values.size > iqxml.MAX_STATS_VALUES or not bool(np.all(np.isfinite(values))):
        return False
    return _within(values)


class Stamps:
    """The stamp indexes of one cache: each folder's read on first use; what is recorded is kept in
    memory until :meth:`write` (by the lock holder)."""

    def __init__(self) -> None:
        self._folders: dict[Path, dict[str, Stamp]] = {}
        self._changed: set[Path] = set()

    def facts(self, path: Path) -> Facts | None:
        """The recorded facts of a file whose bytes are still those stamped; None otherwise."""
        stamp = self._entries(path.parent).get(path.name)
        if stamp is None or fingerprint(path, stamp.size) != (stamp.size, stamp.sha256):
            return None
        return stamp.facts

    def writer(self, path: Path) -> str:
        """The experiment file that wrote a file whose bytes are still those stamped ("" if unknown)."""
        stamp = self._entries(path.parent).get(path.name)
        if stamp is None or not stamp.writer or fingerprint(path, stamp.size) != (stamp.size, stamp.sha256):
            return ""
        return stamp.writer

    def record(self, path: Path, found: Fingerprint, facts: Facts, writer: str = "") -> None:
        """Stamp a file whose bytes have the fingerprint ``found`` (written by ``writer``'s run, or
        verified whole)."""
        entries = self._entries(path.parent)
        stamp = Stamp(found[0], found[1], facts, writer)
        if entries.get(path.name) != stamp:
            entries[path.name] = stamp
            self._changed.add(path.parent)

    def record_bytes(self, path: Path, data: bytes, facts: Facts, writer: str = "") -> None:
        self.record(path, (len(data), hashlib.sha256(data).hexdigest()), facts, writer)

    def write(self) -> None:
        """Write the changed folders' indexes (entries of files no longer there dropped); folders
        that cannot be written are skipped, with one warning for all (their files are read whole
        next time)."""
        failed: list[tuple[Path, object]] = []
        for folder in sorted(self._changed):
            try:
                _write_index(folder, self._folders[folder])
            except (OSError, CacheError) as exc:
                failed.append((folder, getattr(exc, "strerror", None) or exc))
        self._changed.clear()
        if failed:  # one warning however many folders (a full disk fails them all)
            folder, why = failed[0]
            others = f" and {len(failed) - 1} other folder(s)" if len(failed) > 1 else ""
            LOG.warning("%s%s: cannot write the stamp index (%s); their files will be read whole next time",
                        folder, others, why)

    def _entries(self, folder: Path) -> dict[str, Stamp]:
        if folder not in self._folders:
            self._folders[folder] = read_index(folder)
        return self._folders[folder]


def read_index(folder: Path) -> dict[str, Stamp]:
    """A folder's stamps; none when there is no index, and (with a warning) when it is damaged."""
    path = folder / INDEX
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        LOG.warning("%s: cannot read the stamp index (%s); reading its folder's files whole", path, exc.strerror)
        return {}
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_INDEX_BYTES + 1)
    try:
        return _decode(data)
    except (ValueError, TypeError, KeyError) as exc:
        LOG.warning("%s: damaged stamp index (%s); reading its folder's files whole", path, str(exc)[:80])
        return {}


def _decode(data: bytes) -> dict[str, Stamp]:
    """An index's entries, every field checked; ValueError (TypeError, KeyError) when damaged."""
    if len(data) > MAX_INDEX_BYTES:
        raise ValueError(f"larger than {MAX_INDEX_BYTES} bytes")
    document = json.loads(data)
    if not isinstance(document, dict) or document.get("format") not in FORMATS:
        raise ValueError(f"not a {FORMAT} index")
    files = document["files"]
    if not isinstance(files, dict) or document.get("check") != _check(files):
        raise ValueError("its checksum does not match")
    return {name: _stamp(name, entry) for name, entry in files.items()}


def _stamp(name: str, entry: Any) -> Stamp:
    fields = {"size": int, "sha256": str, "signature": str, "inputs": str, "digest": bool, "stats": bool,
              "segments": int, "writer": str}
    if isinstance(entry, dict) and "writer" not in entry:  # a /1 index
        entry = {**entry, "writer": ""}
    if (not isinstance(entry, dict) or set(entry) != set(fields) or "/" in name or name.startswith(".")
            or any(type(entry[key]) is not kind for key, kind in fields.items())):  # bool is no int here
        raise ValueError(f"bad entry for {name[:40]!r}")
    if entry["size"] < 0 or entry["segments"] < 0 or len(entry["sha256"]) != 64:
        raise ValueError(f"bad entry for {name[:40]!r}")
    facts = Facts(entry["signature"], entry["inputs"], entry["digest"], entry["stats"], entry["segments"])
    return Stamp(entry["size"], entry["sha256"], facts, entry["writer"])


def _check(files: Any) -> str:
    """The checksum stored with the entries (a damaged index is then recognised)."""
    canonical = json.dumps(files, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _write_index(folder: Path, entries: dict[str, Stamp]) -> None:
    """Write (atomically) the entries of the files still in ``folder``; no index when none is left.
    Never through a link: a linked folder gets no index."""
    if folder.is_symlink() or folder.parent.is_symlink() or not folder.is_dir():
        return
    present = set(os.listdir(folder))
    files = {name: {"size": s.size, "sha256": s.sha256, **asdict(s.facts), "writer": s.writer}
             for name, s in sorted(entries.items()) if name in present}
    path = folder / INDEX
    if not files:
        path.unlink(missing_ok=True)
        return
    document = {"format": FORMAT, "files": files, "check": _check(files)}
    text = json.dumps(document, sort_keys=True, indent=1, ensure_ascii=True) + "\n"
    write_atomic(path, text.encode("ascii"), durable=False)  # checked when read: no fsync needed
