"""The annotation cache: parsed segments as sharded CoNLL-U files beside the score cache.

Layout under ``<cache_dir>/annotation/``, one *shard* per parsed batch::

    <shard>.conllu   the batch's sentences in CoNLL-U, in key order (NER tags in MISC)
    <shard>.npz      the parser's arc scores (``ArcScores``), arrays ``a<i>``/``h<i>``/``p<i>``
                     for the ``i``-th key, plus ``labels``; float32 arcs, float16 label log-probs
    <shard>.keys     JSON: the batch's keys and the SHA-256 of the ``.conllu`` and ``.npz`` bytes,
                     with a digest of itself; written last, it *commits* the shard
    .lock            advisory lock: one process parses and writes at a time (:func:`locked`)

A key is the SHA-256 of (text, language, model identity, processors), so caches of different
models live side by side. Every file is written to a temporary name, fsynced, given the mode
``open()`` would give it (``0666 & ~umask``) and renamed, and a shard counts only once its
``.keys`` exists: an interrupted run keeps every completed batch and never leaves a half-written
shard that would be read. A shard whose files do not match their digests (truncated, a flipped
byte, emptied, replaced) is never used: a warning names the file, the shard is deleted and its
segments are parsed again (:class:`mteval.annotate.annotator.Annotator` asks again for what went
missing). A ``.keys`` in the earlier format (a bare list, no digests) is ignored.

A *repair* shard (its name starts with :data:`REPAIR_PREFIX`) holds segments parsed again because
their shard lacked arc scores a parse now gives; its name sorts after every parse shard's (those
start with a process id), so its entries replace the older ones whenever the cache is read.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import count
from pathlib import Path
from typing import Any

import numpy as np

from mteval.annotate.model import ArcScores, Sentence, parse_conllu, to_conllu
from mteval.errors import CacheError
from mteval.files import held, write_atomic

LOG = logging.getLogger(__name__)
_SEQ = count()
FORMAT = 2  # version of the .keys file
LOCK_NAME = ".lock"
REPAIR_PREFIX = "r-"  # sorts after the digits that start a parse shard's name


def cache_key(text: str, language: str, identity: str, processors: str) -> str:
    """The cache key of one segment text under one model configuration."""
    blob = "\x1f".join((text, language, identity, processors)).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _commit_record(keys: Sequence[str], conllu: str, npz: str | None) -> bytes:
    """The ``.keys`` content: keys, data digests, and a digest of those."""
    body = {"format": FORMAT, "keys": list(keys), "conllu": conllu, "npz": npz}
    body["self"] = _sha256(json.dumps(body, sort_keys=True).encode("utf-8"))
    return json.dumps(body, sort_keys=True).encode("utf-8")


def _read_commit(data: bytes) -> dict[str, Any] | None:
    """The checked ``.keys`` record (None for the earlier bare-list format); ValueError if damaged."""
    record = json.loads(data.decode("utf-8"))
    if isinstance(record, list):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError("not an annotation shard record")
    claimed = record.pop("self", None)
    if claimed != _sha256(json.dumps(record, sort_keys=True).encode("utf-8")):
        raise ValueError("its digest does not match its content")
    keys = record.get("keys")
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise ValueError("not a list of keys")
    return record


class AnnotationCache:
    """Sharded CoNLL-U + npz store of annotated segments (see the module docstring)."""

    def __init__(self, cache_dir: Path) -> None:
        self.root = Path(cache_dir) / "annotation"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"cannot create the annotation cache: {exc.strerror}", self.root) from exc
        self.index: dict[str, tuple[str, int]] = {}  # key -> (shard, position)
        self._records: dict[str, dict[str, Any]] = {}  # shard -> its checked .keys record
        self._sentences: dict[str, list[Sentence]] = {}
        self._arcs: dict[str, dict[str, np.ndarray]] = {}
        self.refresh()

    def refresh(self) -> None:
        """Index the committed shards not yet known (other processes may have added some)."""
        for keys_file in sorted(self.root.glob("*.keys")):
            if keys_file.stem not in self._records:
                self._index_shard(keys_file)

    def _index_shard(self, keys_file: Path) -> None:
        """Add a committed shard's keys to the index (drop it if damaged)."""
        shard = keys_file.stem
        try:
            record = _read_commit(keys_file.read_bytes())
        except FileNotFoundError:
            return  # dropped meanwhile by another process
        except (OSError, ValueError) as exc:
            self._drop(shard, f"{keys_file} ({exc})")
            return
        if record is None:
            LOG.debug("annotation cache: ignoring shard %s of the earlier format", keys_file)
            return
        self._records[shard] = record
        for pos, key in enumerate(record["keys"]):
            self.index[key] = (shard, pos)

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def __len__(self) -> int:
        return len(self.index)

    def sentences(self, keys: Iterable[str]) -> dict[str, Sentence]:
        """The cached sentences of the keys that are present (damaged shards are dropped, so
        their keys are then missing from the result)."""
        out: dict[str, Sentence] = {}
        for key in keys:
            where = self.index.get(key)
            if where is not None:
                loaded = self._shard_sentences(where[0])
                if loaded is not None:
                    out[key] = loaded[where[1]]
        return out

    def _read_checked(self, shard: str, suffix: str) -> bytes | None:
        """The bytes of one of a shard's files if they match the committed digest (else the shard
        is dropped with a warning and None returned)."""
        path = self.root / f"{shard}.{suffix}"
        try:
            data = path.read_bytes()
        except OSError as exc:
            self._drop(shard, f"{path} ({exc.strerror or exc})")
            return None
        if _sha256(data) != self._records[shard][suffix]:
            self._drop(shard, f"{path} (its content does not match the digest in {shard}.keys)")
            return None
        return data

    def _shard_sentences(self, shard: str) -> list[Sentence] | None:
        """All sentences of one shard (read and checked once, then kept in memory)."""
        if shard not in self._sentences:
            data = self._read_checked(shard, "conllu")
            if data is None:
                return None
            path = self.root / f"{shard}.conllu"
            try:
                sentences = parse_conllu(data.decode("utf-8"), str(path))
                if len(sentences) != len(self._records[shard]["keys"]):
                    raise ValueError(f"{len(sentences)} sentences for {len(self._records[shard]['keys'])} keys")
            except ValueError as exc:  # a digest that matches but content we cannot read
                self._drop(shard, f"{path} ({exc})")
                return None
            self._sentences[shard] = sentences
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
            if arrays is not None and f"a{i}" in arrays:
                labels = tuple(json.loads(str(arrays["labels"])))
                out[key] = ArcScores(arrays[f"a{i}"], labels, arrays[f"h{i}"], arrays[f"p{i}"])
        return out

    def _shard_arcs(self, shard: str) -> dict[str, np.ndarray] | None:
        """The arrays of one shard's ``.npz`` (empty if it has none; None if it was dropped)."""
        if shard not in self._arcs:
            if self._records[shard]["npz"] is None:
                self._arcs[shard] = {}
                return self._arcs[shard]
            data = self._read_checked(shard, "npz")
            if data is None:
                return None
            try:
                with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                    self._arcs[shard] = {k: npz[k] for k in npz.files}
            except (OSError, ValueError, EOFError) as exc:
                self._drop(shard, f"{self.root / f'{shard}.npz'} ({exc})")
                return None
        return self._arcs[shard]

    def _drop(self, shard: str, what: str) -> None:
        """Forget a damaged shard and delete its files (``.keys`` first), warning once."""
        LOG.warning("annotation cache: damaged file %s; its segments will be parsed again", what)
        for key in self._records.pop(shard, {}).get("keys", []):
            if self.index.get(key, ("", 0))[0] == shard:
                del self.index[key]
        self._sentences.pop(shard, None)
        self._arcs.pop(shard, None)
        for suffix in ("keys", "conllu", "npz"):
            try:
                (self.root / f"{shard}.{suffix}").unlink(missing_ok=True)
            except OSError:
                pass  # a read-only cache: the shard stays unused (and the warning comes again)

    def add(self, keys: Sequence[str], sentences: Sequence[Sentence],
            scores: Sequence[ArcScores | None], repair: bool = False) -> None:
        """Write one batch as a new shard (atomically; the ``.keys`` file commits it); ``repair``:
        one that replaces these keys' entries, now and on every later read (a repair shard)."""
        if not keys:
            return
        try:
            self._write_shard(keys, sentences, scores, REPAIR_PREFIX if repair else "")
        except OSError as exc:  # full disk, read-only folder: earlier shards stay valid
            raise CacheError(f"cannot write the annotation cache: {exc.strerror or exc}", self.root) from exc

    def _write_shard(self, keys: Sequence[str], sentences: Sequence[Sentence],
                     scores: Sequence[ArcScores | None], prefix: str = "") -> None:
        """The files of one shard, ``.keys`` (with the digests of the others) last."""
        shard = f"{prefix}{os.getpid()}-{next(_SEQ):06d}-{hashlib.sha1(''.join(keys).encode()).hexdigest()[:12]}"
        npz = _npz_bytes(scores)
        if npz is not None:
            write_atomic(self.root / f"{shard}.npz", npz, fsync_folder=True)
        conllu = to_conllu(sentences).encode("utf-8")
        write_atomic(self.root / f"{shard}.conllu", conllu, fsync_folder=True)
        record = _commit_record(keys, _sha256(conllu), None if npz is None else _sha256(npz))
        write_atomic(self.root / f"{shard}.keys", record, fsync_folder=True)
        self._records[shard] = _read_commit(record) or {}
        self._sentences[shard] = list(sentences)
        for pos, key in enumerate(keys):
            self.index[key] = (shard, pos)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the cache's advisory lock (parse-and-write by one process at a time); say once on
        stderr whom we wait for. The kernel releases it when the holder exits, even on kill -9."""
        waiting = f"waiting for the annotation cache {self.root} ({{holder}} is parsing into it)"
        with held(self.root / LOCK_NAME, waiting):
            self._remove_stale_temporaries()
            yield

    def _remove_stale_temporaries(self) -> None:
        """Delete temporary files of killed runs (only lock holders write, so none is in use)."""
        for tmp in [*self.root.glob(".*.tmp"), *self.root.glob("*.tmp"), *self.root.glob("*.tmp.npz")]:
            tmp.unlink(missing_ok=True)


def _npz_bytes(scores: Sequence[ArcScores | None]) -> bytes | None:
    """The ``.npz`` of a batch's arc scores (None when no segment has any)."""
    arrays: dict[str, np.ndarray] = {}
    for i, arc in enumerate(scores):
        if arc is not None:
            arrays.update({f"a{i}": arc.arcs.astype(np.float32), f"h{i}": arc.label_heads,
                           f"p{i}": arc.label_logp.astype(np.float16)})
            arrays["labels"] = np.array(json.dumps(list(arc.labels)))
    if not arrays:
        return None
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()
