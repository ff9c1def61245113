"""The score cache: ``ROOT/TARGET/REFSET/METRIC.xml`` (IQMT manual §4.1.2).

REFSET is one reference name, or several joined with ``_`` (multi-reference scores, for -doOQ).
Files users drop in (``.xml`` or Asiya's ``.xml.gz``) are read like computed ones. Writes are
atomic (temporary file in the same folder, then rename), so an interrupted run leaves either the
old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from mteval.errors import CacheError
from mteval.scores import ScoreSet
from mteval.store.iqxml import ScoreFile, parse, read_header, to_xml

SUFFIXES = (".xml", ".xml.gz")


def refset_name(references: list[str] | tuple[str, ...]) -> str:
    """Directory name of a reference set: names joined with ``_`` in the given order."""
    return "_".join(references)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ScoreCache:
    """Read and write score files under one root folder."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, target: str, refset: str, metric: str) -> Path:
        """Where a computed file goes (``.xml``)."""
        return self.root / target / refset / f"{metric}.xml"

    def find(self, target: str, refset: str, metric: str) -> Path | None:
        """The existing file for a triple (``.xml`` preferred over ``.xml.gz``), or None."""
        for suffix in SUFFIXES:
            candidate = self.root / target / refset / f"{metric}{suffix}"
            if candidate.is_file():
                return candidate
        return None

    def save(self, target: str, refset: str, metric: str, scores: ScoreSet, doc_ids: tuple[str, ...],
             signature: str = "", inputs: str = "") -> Path:
        """Write one score file atomically."""
        path = self.path(target, refset, metric)
        atomic_write(path, to_xml(ScoreFile(metric, target, refset, scores, signature, inputs), doc_ids))
        return path

    def load(self, target: str, refset: str, metric: str, n_segments: int | None = None) -> ScoreSet:
        """Scores of a triple; CacheError when there is no file."""
        path = self.find(target, refset, metric)
        if path is None:
            raise CacheError(f"no scores for metric {metric!r}, target {target!r}, references "
                             f"{refset!r} (run iqsetup first)", self.root / target / refset)
        return parse(path, n_segments).scores

    def is_current(self, target: str, refset: str, metric: str, signature: str, inputs: str) -> bool:
        """True when a computed file exists with the same signature and input digest."""
        path = self.find(target, refset, metric)
        if path is None:
            return False
        header = read_header(path)
        return header.get("signature") == signature and header.get("inputs") == inputs

    def available(self) -> list[tuple[str, str, str]]:
        """Every (target, refset, metric) with a score file, sorted."""
        found = set()
        if not self.root.is_dir():
            return []
        for target in self.root.iterdir():
            if not target.is_dir() or target.name.startswith("."):
                continue
            for refset in target.iterdir():
                if not refset.is_dir():
                    continue
                for f in refset.iterdir():
                    for suffix in SUFFIXES:
                        if f.name.endswith(suffix) and not f.name.startswith("."):
                            found.add((target.name, refset.name, f.name[: -len(suffix)]))
        return sorted(found)

    def metrics(self) -> list[str]:
        """Every metric name with at least one file."""
        return sorted({m for _, _, m in self.available()})
