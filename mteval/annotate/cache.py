"""The annotation cache: parsed segments as sharded CoNLL-U files beside the score cache.

Layout under ``<cache_dir>/annotation/``, one *shard* per parsed batch::

    <shard>.conllu   the batch's sentences in CoNLL-U, in key order (NER tags in MISC)
    <shard>.npz      the parser's arc scores (``ArcScores``), arrays ``a<i>``/``h<i>``/``p<i>``
                     for the ``i``-th key, plus ``labels``; float32 arcs, float16 label log-probs
    <shard>.keys     JSON list of the batch's keys: written last, it *commits* the shard

A key is the SHA-256 of (text, language, model identity, processors), so caches of different
models live side by side. Every file is written to a temporary name and renamed, and a shard
counts only once its ``.keys`` exists: an interrupted run keeps every completed batch and never
leaves a half-written shard that would be read. A damaged shard is skipped with a warning (its
segments are parsed again).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Sequence
from itertools import count
from pathlib import Path

import numpy as np

from mteval.annotate.model import ArcScores, Sentence, parse_conllu, to_conllu
from mteval.errors import CacheError

LOG = logging.getLogger(__name__)
_SEQ = count()


def cache_key(text: str, language: str, identity: str, processors: str) -> str:
    """The cache key of one segment text under one model configuration."""
    blob = "\x1f".join((text, language, identity, processors)).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and a rename."""
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class AnnotationCache:
    """Sharded CoNLL-U + npz store of annotated segments (see the module docstring)."""

    def __init__(self, cache_dir: Path) -> None:
        self.root = Path(cache_dir) / "annotation"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"cannot create the annotation cache: {exc.strerror}", self.root) from exc
        self.index: dict[str, tuple[str, int]] = {}  # key -> (shard, position)
        self._sentences: dict[str, list[Sentence]] = {}
        self._arcs: dict[str, dict[str, np.ndarray]] = {}
        for keys_file in sorted(self.root.glob("*.keys")):
            self._index_shard(keys_file)

    def _index_shard(self, keys_file: Path) -> None:
        """Add a committed shard's keys to the index (skip it if damaged)."""
        shard = keys_file.stem
        try:
            keys = json.loads(keys_file.read_text(encoding="utf-8"))
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise ValueError("not a list of keys")
            if not (self.root / f"{shard}.conllu").is_file():
                raise ValueError("its .conllu file is missing")
        except (OSError, ValueError) as exc:
            LOG.warning("annotation cache: skipping damaged shard %s (%s)", keys_file, exc)
            return
        for pos, key in enumerate(keys):
            self.index[key] = (shard, pos)

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def __len__(self) -> int:
        return len(self.index)

    def sentences(self, keys: Iterable[str]) -> dict[str, Sentence]:
        """The cached sentences of the keys that are present."""
        out: dict[str, Sentence] = {}
        for key in keys:
            where = self.index.get(key)
            if where is not None:
                out[key] = self._shard_sentences(where[0])[where[1]]
        return out

    def _shard_sentences(self, shard: str) -> list[Sentence]:
        """All sentences of one shard (parsed once, then kept in memory)."""
        if shard not in self._sentences:
            path = self.root / f"{shard}.conllu"
            self._sentences[shard] = parse_conllu(path.read_text(encoding="utf-8"), str(path))
        return self._sentences[shard]

    def arc_scores(self, keys: Iterable[str]) -> dict[str, ArcScores]:
        """The cached arc scores of the keys that have them."""
        out: dict[str, ArcScores] = {}
        for key in keys:
            where = self.index.get(key)
            if where is None:
                continue
            arrays = self._shard_arcs(where[0])
            i = where[1]
            if f"a{i}" in arrays:
                labels = tuple(json.loads(str(arrays["labels"])))
                out[key] = ArcScores(arrays[f"a{i}"], labels, arrays[f"h{i}"], arrays[f"p{i}"])
        return out

    def _shard_arcs(self, shard: str) -> dict[str, np.ndarray]:
        """The arrays of one shard's ``.npz`` (empty if it has none)."""
        if shard not in self._arcs:
            path = self.root / f"{shard}.npz"
            if path.is_file():
                with np.load(path, allow_pickle=False) as npz:
                    self._arcs[shard] = {k: npz[k] for k in npz.files}
            else:
                self._arcs[shard] = {}
        return self._arcs[shard]

    def add(self, keys: Sequence[str], sentences: Sequence[Sentence],
            scores: Sequence[ArcScores | None]) -> None:
        """Write one batch as a new shard (atomically; the ``.keys`` file commits it)."""
        if not keys:
            return
        try:
            self._write_shard(keys, sentences, scores)
        except OSError as exc:  # full disk, read-only folder: earlier shards stay valid
            raise CacheError(f"cannot write the annotation cache: {exc.strerror or exc}", self.root) from exc

    def _write_shard(self, keys: Sequence[str], sentences: Sequence[Sentence],
                     scores: Sequence[ArcScores | None]) -> None:
        """The files of one shard, ``.keys`` last."""
        shard = f"{os.getpid()}-{next(_SEQ):06d}-{hashlib.sha1(''.join(keys).encode()).hexdigest()[:12]}"
        arrays: dict[str, np.ndarray] = {}
        for i, arc in enumerate(scores):
            if arc is not None:
                arrays.update({f"a{i}": arc.arcs.astype(np.float32), f"h{i}": arc.label_heads,
                               f"p{i}": arc.label_logp.astype(np.float16)})
                arrays["labels"] = np.array(json.dumps(list(arc.labels)))
        if arrays:
            tmp = self.root / f"{shard}.npz.{os.getpid()}.tmp.npz"
            np.savez(tmp, **arrays)  # type: ignore[arg-type]
            os.replace(tmp, self.root / f"{shard}.npz")
        _write_atomic(self.root / f"{shard}.conllu", to_conllu(sentences).encode("utf-8"))
        _write_atomic(self.root / f"{shard}.keys", json.dumps(list(keys)).encode("utf-8"))
        self._sentences[shard] = list(sentences)
        for pos, key in enumerate(keys):
            self.index[key] = (shard, pos)
