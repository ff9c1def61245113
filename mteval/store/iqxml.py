"""IQ-XML score files (IQMT manual §4.1.1) and Asiya's ``<REPORT>`` variant, read safely.

Written (one file per target, reference set and metric)::

    <IQ metric="BLEU" target="S1" ref="A_B" score="0.38" n_docs="1" n_segments="3"
        signature="metric:BLEU|...|mteval:0.1.0" inputs="sha256 of the texts">
      <DOC id="UNKNOWN_DOC" n="1" n_segments="3" score="0.40">
        <S n="1">0.39</S> ...
      </DOC>
    </IQ>

``S/@n`` is the 1-based segment number in the whole test set. Scores are written with Python's
shortest round-trip ``repr`` (full precision). Read: root ``IQ`` or ``REPORT`` (Asiya, also
gzip-compressed ``.xml.gz``), ``S`` elements with or without ``DOC`` parents, ``IQ/@score`` or
``REPORT/@score`` as the system score. Parsing never expands entities, loads DTDs or touches the
network, and rejects files that declare entities. A file that is not well-formed XML and carries
no ``digest`` (a user's file, perhaps written as the manual prints it: ``<S n="1">0.85`` with no
end tags) is read again by ``iqmt_tolerant``, with the same limits and value checks.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import zlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import numpy as np
from lxml import etree

from mteval.errors import CacheError
from mteval.scores import ScoreSet
from mteval.store import iqmt_tolerant

MAX_BYTES = 256 * 1024 * 1024  # refuse score files larger than this, decompressed (gzip bombs)
MAX_ELEMENTS = 5_000_000  # refuse files with more elements (a test set has far fewer segments)
MAX_ABS = 1e12  # a score beyond this (or ±inf) is refused: it would swamp every mean it enters
_PARSER_OPTIONS: dict[str, Any] = dict(resolve_entities=False, no_network=True, load_dtd=False,
                                       dtd_validation=False, huge_tree=False, remove_comments=True,
                                       remove_pis=True)


@dataclass(frozen=True)
class ScoreFile:
    """The content of one score file."""

    metric: str
    target: str
    refset: str
    scores: ScoreSet
    signature: str = ""
    inputs: str = ""
    digest: str = ""  # content_digest of the scores, in files mteval wrote (checked when read)


def _fmt(value: float) -> str:
    return repr(float(value)) if math.isfinite(value) else "nan"


def content_digest(scores: ScoreSet) -> str:
    """sha256 of every score as written (system, documents in file order, segments): a computed
    file whose digest does not match was damaged after it was written (a flipped digit)."""
    parts = [_fmt(scores.system)] + [f"{doc}={_fmt(v)}" for doc, v in scores.documents.items()]
    parts += [_fmt(v) for v in scores.segments]
    return "sha256:" + hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def to_xml(score_file: ScoreFile, doc_ids: tuple[str, ...]) -> bytes:
    """Serialise scores; ``doc_ids`` gives the document of every segment (in order).

    Every segment gets an ``<S>`` (``nan`` where the metric has no score), so a file with fewer
    is recognisably damaged; ``digest`` covers every value written.
    """
    s = score_file.scores
    written = ScoreSet(s.system, {doc: s.documents.get(doc, math.nan) for doc in dict.fromkeys(doc_ids)},
                       s.segments)
    root = etree.Element("IQ", metric=score_file.metric, target=score_file.target, ref=score_file.refset,
                         score=_fmt(s.system), n_docs=str(len(written.documents)), n_segments=str(len(s.segments)),
                         signature=score_file.signature, inputs=score_file.inputs, digest=content_digest(written))
    sizes = Counter(doc_ids)
    docs: dict[str, etree._Element] = {}
    for number, (doc, value) in enumerate(zip(doc_ids, s.segments, strict=True), start=1):
        if doc not in docs:
            docs[doc] = etree.SubElement(root, "DOC", id=doc, n=str(len(docs) + 1), n_segments=str(sizes[doc]),
                                         score=_fmt(written.documents[doc]))
        etree.SubElement(docs[doc], "S", n=str(number)).text = _fmt(value)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


class _CappedStream:
    """A binary stream that refuses to yield more than ``MAX_BYTES`` (decompressed) bytes."""

    def __init__(self, raw: IO[bytes], path: Path) -> None:
        self.raw, self.path, self.total = raw, path, 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size if size and size > 0 else 1 << 16)
        self.total += len(data)
        if self.total > MAX_BYTES:
            raise CacheError(f"score file larger than {MAX_BYTES} bytes (decompressed)", self.path)
        return data


def _open(path: Path) -> IO[bytes]:
    """The file's bytes (gunzipped for ``.gz``); one-line errors for what cannot be opened."""
    try:
        if path.is_symlink() or not path.is_file():
            raise CacheError("not a regular file", path)
        stream = gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")  # noqa: SIM115
        return cast(IO[bytes], stream)
    except OSError as exc:
        raise CacheError(f"cannot read score file: {exc.strerror or exc}", path) from None


def _number(text: str | None, path: Path, line: int | None, what: str) -> float:
    """A score: a finite number within ±MAX_ABS, or NaN (no score); anything else is an error."""
    if text is None or not text.strip():
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise CacheError(f"{what}: {text.strip()[:40]!r} is not a number", path, line) from None
    if math.isinf(value) or abs(value) > MAX_ABS:
        raise CacheError(f"{what}: {text.strip()[:40]} is out of range (|score| > {MAX_ABS:g})", path, line)
    return value


def _segment_number(raw: str | None, path: Path, line: int | None) -> int:
    if raw is None or not raw.strip().isdigit() or int(raw) < 1:
        raise CacheError(f"<S> needs n=\"1\", n=\"2\"... (a segment number), got {raw!r}"[:120], path, line)
    return int(raw)


class _Reader:
    """What one pass over a score file found: root attributes, document and segment scores. The
    strict pass feeds it lxml's events (``start``, ``end``); the tolerant one (``iqmt_tolerant``)
    calls ``count``, ``open_root``, ``document`` and ``segment`` itself. ``refuse_digest``: the
    error to raise for a root with a ``digest`` (a file mteval wrote must read strictly)."""

    def __init__(self, path: Path, refuse_digest: CacheError | None = None) -> None:
        self.path, self.refuse_digest = path, refuse_digest
        self.root: dict[str, str] = {}
        self.documents: dict[str, float] = {}
        self.values: dict[int, float] = {}
        self.elements = 0

    def count(self, line: int | None = None) -> None:
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            raise CacheError(f"more than {MAX_ELEMENTS} XML elements", self.path, line)

    def open_root(self, tag: str, attrs: dict[str, str], line: int | None = None) -> None:
        if tag not in ("IQ", "REPORT"):
            raise CacheError(f"root element is <{tag[:40]}>, expected <IQ> or <REPORT>", self.path, line)
        if self.refuse_digest is not None and "digest" in attrs:
            raise self.refuse_digest
        self.root = attrs

    def document(self, attrs: Mapping[str, str], line: int | None) -> None:
        self.documents[attrs.get("id", "")] = _number(attrs.get("score"), self.path, line, "DOC/@score")

    def segment(self, raw: str | None, text: str | None, line: int | None) -> None:
        number = _segment_number(raw, self.path, line)
        if number in self.values:
            raise CacheError(f"segment {number} has two scores", self.path, line)
        self.values[number] = _number(text, self.path, line, f"segment {number}")

    def start(self, element: etree._Element) -> None:
        self.count()
        if self.elements == 1:
            dtd = element.getroottree().docinfo.internalDTD
            if dtd is not None and any(True for _ in dtd.iterentities()):
                raise CacheError("entity declarations are not allowed in score files", self.path)
            self.open_root(str(element.tag), dict(element.attrib), element.sourceline)
        elif element.tag == "DOC":
            self.document(element.attrib, element.sourceline)

    def end(self, element: etree._Element) -> None:
        if element.tag == "S":
            self.segment(element.get("n"), element.text, element.sourceline)
        if element.getparent() is not None:  # keep memory flat: drop what has been read
            element.clear()
            while element.getprevious() is not None:
                del element.getparent()[0]


def _read(path: Path) -> _Reader:
    """The strict pass; a file that is not well-formed XML is read again by the tolerant reader
    (the manual's layout), unless it carries a ``digest`` (mteval wrote it: it is damaged)."""
    reader = _Reader(path)
    with _open(path) as raw:
        try:
            for event, element in etree.iterparse(_CappedStream(raw, path), events=("start", "end"),
                                                  **_PARSER_OPTIONS):
                (reader.start if event == "start" else reader.end)(element)
            return reader
        except etree.XMLSyntaxError as exc:
            strict = CacheError(f"not well-formed XML: {exc.msg}", path, exc.lineno)
        except (OSError, EOFError, zlib.error) as exc:
            raise CacheError(f"cannot read score file: {exc}", path) from None
    if "digest" in reader.root:
        raise strict
    return _read_tolerant(path, strict)


def _read_tolerant(path: Path, strict: CacheError) -> _Reader:
    """The manual's layout (``iqmt_tolerant``), with the same limits and value checks."""
    reader = _Reader(path, refuse_digest=strict)
    with _open(path) as raw:
        try:
            iqmt_tolerant.scan(_CappedStream(raw, path), reader, path)
        except (OSError, EOFError, zlib.error) as exc:
            raise CacheError(f"cannot read score file: {exc}", path) from None
    return reader


def _segments(values: dict[int, float], n_segments: int | None, path: Path) -> np.ndarray:
    """The segment array; every segment of the test set must have an ``<S>`` (NaN = no score)."""
    size = n_segments if n_segments is not None else max(values, default=0)
    if values and max(values) > size:
        raise CacheError(f"has segment {max(values)} but the test set has {size} segments", path)
    if len(values) < size:
        missing = next(n for n in range(1, size + 1) if n not in values)
        raise CacheError(f"has scores for {len(values)} of {size} segments (first missing: {missing}); "
                         "damaged or written for another test set", path)
    segments = np.full(size, np.nan)
    for number, value in values.items():
        segments[number - 1] = value
    return segments


def parse(path: Path, n_segments: int | None = None) -> ScoreFile:
    """Read an IQ-XML or Asiya REPORT file safely; ``n_segments`` sizes the segment array.

    Streamed with bounded memory: at most ``MAX_BYTES`` decompressed bytes and ``MAX_ELEMENTS``
    elements; no entities, DTD or network. Every segment needs a finite score or NaN.
    """
    reader = _read(path)
    root = reader.root
    segments = _segments(reader.values, n_segments, path)
    target = root.get("target") or root.get("hyp") or ""
    scores = ScoreSet(_number(root.get("score"), path, None, "score"), reader.documents, segments)
    if "digest" in root and root["digest"] != content_digest(scores):
        raise CacheError("scores do not match the file's digest (damaged after it was written)", path)
    return ScoreFile(root.get("metric", ""), target, root.get("ref", ""), scores,
                     root.get("signature", ""), root.get("inputs", ""), root.get("digest", ""))
