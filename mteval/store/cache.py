"""The score cache: ``ROOT/TARGET/REFSET/METRIC.xml`` (IQMT manual §4.1.2).

REFSET is one reference name, or several joined with ``_`` (multi-reference scores, for -doOQ); a
``_`` inside a name is written ``%5F`` there, so that the folder names stay unambiguous
(:mod:`mteval.store.refsets`).
Files users drop in (``.xml`` or Asiya's ``.xml.gz``) are read like computed ones, and also in the
manual's own, not well-formed, layout (``<S n="1">0.85`` without end tags; ``iqmt_tolerant``). Writes are
atomic (temporary file in the same folder, then rename), so an interrupted run leaves either the
old file or the new one, never half of one.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from mteval.errors import CacheError
from mteval.files import write_atomic
from mteval.names import check_component
from mteval.scores import ScoreSet
from mteval.store import refsets
from mteval.store.iqxml import MAX_BYTES, ScoreFile, parse, to_xml
from mteval.store.stamps import Facts, Stamps, fingerprint, written_facts

SUFFIXES = (".xml", ".xml.gz")
SPILL_PREFIX = ".spill-"  # a worker pool's spill folder in the cache root (mteval.setup.shipping)
LOG = logging.getLogger(__name__)
Check = Callable[[Path, str, str, str, ScoreFile], None]  # raises CacheError for a file that may not be shown


def refset_name(references: list[str] | tuple[str, ...]) -> str:
    """Directory name of a reference set: names joined with ``_`` in the given order (a ``_`` inside
    a name written ``%5F``: :func:`mteval.store.refsets.join`)."""
    return refsets.join(references)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` durably: temporary file in the same folder, fsync, rename. A
    renamed file therefore never holds partial data, even after a power loss; the folder is not
    fsynced (10 ms a file here), so a power loss may undo a rename, and the next run computes that
    file again. The file gets the umask's mode, 0644 under the usual 022, like the annotation cache
(shared caches stay readable by the team).
    A failed write (disk full, permissions) removes the temporary file and raises CacheError."""
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise CacheError(f"cannot write: {exc.strerror or exc}", path) from None


def check_writable(root: Path) -> None:
    """Refuse, in one line, a cache folder that is a file, lies under a file or cannot be written."""
    for folder in (root, *root.parents):
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                raise CacheError(f"cache path {'is' if folder == root else 'lies under'} a file, not a folder",
                                 folder)
            if not os.access(folder, os.W_OK | os.X_OK):
                raise CacheError("cache folder is not writable", folder)
            return


class ScoreCache:
    """Read and write score files under one root folder.

    No path ever leaves the root: every component is checked (no ``..``, separators or control
    characters), files are never written through a symbolic link, and a link that points outside
    the cache is refused when read.
    """

    def __init__(self, root: str | Path, check: Check | None = None, writer: str = "") -> None:
        self.root = Path(root)
        self.writer = writer  # the experiment file whose run writes (kept in the stamps: who wrote a file)
        self.check = check  # every read passes it (iqeval's: mteval.setup.verify)
        self.stamps = Stamps()  # what is known of files written or read whole (mteval.store.stamps)
        self._checked: set[str] = set()  # path components found valid (a run asks for each many times)
        self._real_root: Path | None = None

    def _folder(self, target: str, refset: str, metric: str) -> Path:
        for component in (target, refset, metric):
            if component not in self._checked:
                problem = check_component(component)
                if problem is not None:
                    raise CacheError(f"cannot be a cache path: {problem}", self.root)
                self._checked.add(component)
        return self.root / target / refset

    def path(self, target: str, refset: str, metric: str) -> Path:
        """Where a computed file goes (``.xml``); refuses to write through a symbolic link."""
        folder = self._folder(target, refset, metric)
        path = folder / f"{metric}.xml"
        for link in (self.root / target, folder, path):
            if link.is_symlink():
                raise CacheError("is a symbolic link; mteval does not write through links in its cache", link)
        return path

    def find(self, target: str, refset: str, metric: str) -> Path | None:
        """The existing file for a triple (``.xml`` preferred over ``.xml.gz``), or None."""
        folder = self._folder(target, refset, metric)
        for suffix in SUFFIXES:
            candidate = folder / f"{metric}{suffix}"
            if candidate.is_file():
                self._inside(candidate)
                return candidate
        return None

    def _outside(self, path: Path) -> str | None:
        """Why a file may not be read: it resolves (through links) outside the cache."""
        if self._real_root is None:  # resolved once: the root does not move while a run holds it
            self._real_root = self.root.resolve()
        real, root = path.resolve(), self._real_root
        return None if root in real.parents else f"resolves to {real}, outside the cache {root}"

    def _inside(self, path: Path) -> None:
        """Refuse a file that resolves (through links) to somewhere outside the cache."""
        problem = self._outside(path)
        if problem is not None:
            raise CacheError(f"{problem}; refusing to read it", path)

    def remove_temporaries(self) -> int:
        """Delete the temporary files of interrupted writes, and the spill folders of a killed
        run's worker pool (``.spill-*``: mteval.setup.shipping), holding the lock."""
        removed = 0
        for spill in self.root.glob(f"{SPILL_PREFIX}*"):
            if spill.is_dir() and not spill.is_symlink():
                shutil.rmtree(spill, ignore_errors=True)
                removed += 1
        for folder, _, files in os.walk(self.root):
            for name in files:
                if name.startswith(".") and name.endswith(".tmp"):
                    Path(folder, name).unlink(missing_ok=True)
                    removed += 1
        return removed

    def save(self, target: str, refset: str, metric: str, scores: ScoreSet, doc_ids: tuple[str, ...],
             signature: str = "", inputs: str = "", aggregate: str = "") -> Path:
        """Write one score file atomically (with the segments' statistics when ``scores`` has them;
        ``aggregate``: the family's aggregation rules, e.g. ``sys:stats doc:mean``)."""
        path = self.path(target, refset, metric)
        score_file = ScoreFile(metric, target, refset, scores, signature, inputs, aggregate=aggregate)
        data = to_xml(score_file, doc_ids)
        atomic_write(path, data)
        facts = written_facts(score_file, data, len(doc_ids))
        if facts is not None:
            self.stamps.record_bytes(path, data, facts, self.writer)
        return path

    def write_stamps(self) -> None:
        """Write the stamp indexes of the folders whose files were written or read whole (call
        only while holding the lock; :mod:`mteval.store.stamps`)."""
        self.stamps.write()

    def read(self, target: str, refset: str, metric: str, n_segments: int | None = None) -> tuple[Path, ScoreFile]:
        """The file of a triple and its content, passed through ``check``; CacheError when there is
        no file (or ``check`` refuses it)."""
        path = self.find(target, refset, metric)
        if path is None:
            raise CacheError(f"no scores for metric {metric!r}, target {target!r}, references "
                             f"{refset!r} (run iqsetup first)", self.root / target / refset)
        found = parse(path, n_segments)
        if self.check is not None:
            self.check(path, target, refset, metric, found)
        return path, found

    def load(self, target: str, refset: str, metric: str, n_segments: int | None = None) -> ScoreSet:
        """Scores of a triple; CacheError when there is no file."""
        return self.read(target, refset, metric, n_segments)[1].scores

    def is_current(self, target: str, refset: str, metric: str, signature: str, inputs: str,
                   n_segments: int | None = None, needs_stats: bool = False) -> bool:
        """True when a computed file exists with the same signature and input digest and reads
        whole (every segment there) -- and, with ``needs_stats``, carries the segments' statistics
        (a file written before they were stored is computed once more); a damaged file is
        reported and counts as stale. A file whose bytes are those of its stamp (written or read
        whole before: :mod:`mteval.store.stamps`) is judged by the stamp's facts, unread."""
        path = self.find(target, refset, metric)
        if path is None:
            return False
        facts = self.stamps.facts(path)
        if facts is None:
            facts = self._verify(path, n_segments)
        # other settings or texts, or written before files carried a digest (or statistics): compute again
        return facts is not None and facts.current(signature, inputs, n_segments, needs_stats)

    def _verify(self, path: Path, n_segments: int | None) -> Facts | None:
        """Read a file whole (None, with a warning, when it is damaged) and stamp it, unless it
        changed while being read."""
        try:
            size = path.stat().st_size
        except OSError:
            return None
        if size > MAX_BYTES + (1 << 20):  # beyond what parse reads, even gzipped: damaged, not hashed
            LOG.warning("damaged score file, computing it again: %s: %d bytes, larger than a score file can be "
                        "(%d)", path, size, MAX_BYTES)
            return None
        before = fingerprint(path)
        try:
            found = parse(path, n_segments)  # read whole: a damaged file is not current
        except CacheError as exc:
            LOG.warning("damaged score file, computing it again: %s", exc.format())
            return None
        facts = Facts.of(found)
        if before is not None and fingerprint(path) == before:
            self.stamps.record(path, before, facts)
        return facts

    def available(self) -> list[tuple[str, str, str]]:
        """Every (target, refset, metric) with a score file, sorted; files whose names cannot be
        cache names (control characters) are skipped with a warning."""
        found = set()
        if not self.root.is_dir():
            return []
        for target in _folders(self.root):
            for refset in _folders(target):
                for f in sorted(refset.iterdir()):
                    metric = _metric_of(f)
                    if metric is None:
                        continue
                    problem = check_component(metric) or self._outside(f)
                    if problem is not None:
                        LOG.warning("%s: skipped: %s", f, problem)
                        continue
                    found.add((target.name, refset.name, metric))
        return sorted(found)

    def metrics(self) -> list[str]:
        """Every metric name with at least one file."""
        return sorted({m for _, _, m in self.available()})


def _folders(parent: Path) -> list[Path]:
    """Sub-folders that can hold scores (not hidden)."""
    return sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith("."))


def _metric_of(path: Path) -> str | None:
    for suffix in SUFFIXES:
        if path.name.endswith(suffix) and not path.name.startswith("."):
            return path.name[: -len(suffix)]
    return None
