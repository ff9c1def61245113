"""IQ-XML score files (IQMT manual §4.1.1) and Asiya's ``<REPORT>`` variant, read safely.

Written (one file per target, reference set and metric)::

    <IQ metric="BLEU" target="S1" ref="A_B" score="0.38" n_docs="1" n_segments="3"
        signature="metric:BLEU|...|mteval:0.1.0" inputs="sha256 of the texts"
        aggregate="sys:stats doc:stats" n_stats="18" digest="sha256:...">
      <DOC id="UNKNOWN_DOC" n="1" n_segments="3" score="0.40">
        <S n="1" stats="12 11 11.5 9 ...">0.39</S> ...
      </DOC>
    </IQ>

``S/@n`` is the 1-based segment number in the whole test set. Scores are written with Python's
shortest round-trip ``repr`` (full precision). A statistics-based metric's segments carry their
sufficient statistics in ``S/@stats`` (``n_stats`` numbers: integers as integers, others as
``repr``, so they read back bit for bit); ``aggregate`` records how the family makes document and
system scores from segments (``docs/statistics.md``). Readers that do not know these attributes
ignore them; files without them (IQMT, Asiya, older mteval) still load, with ``stats`` None.
Read: root ``IQ`` or ``REPORT`` (Asiya, also
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
import re
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
MAX_STATS = 4096  # statistics per segment (chrF++: 42, BLEU/NIST: 18, WER/PER: 4 per reference)
MAX_STATS_VALUES = 32_000_000  # statistics in one file (256 MB as float64)
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
    aggregate: str = ""  # e.g. "sys:stats doc:mean": the family's aggregation rules when written


def _stat(value: float) -> str:
    """A statistic as written: an integer without ``.0``, any other value as its ``repr``."""
    value = float(value)
    if value.is_integer() and abs(value) < 2 ** 53 and math.copysign(1.0, value) > 0:
        return str(int(value))
    return _fmt(value)  # -0.0 keeps its sign


def stats_text(row: np.ndarray) -> str:
    """One segment's statistics as written in ``S/@stats`` (and hashed by :func:`content_digest`)."""
    return " ".join(map(_stat, row))


def stats_texts(stats: np.ndarray) -> list[str]:
    """:func:`stats_text` of every row, with the integer test done once for the whole matrix (the same
    text: ``str`` of a Python int or float is its ``repr``)."""
    values = np.asarray(stats, dtype=np.float64)
    whole = (values == np.floor(values)) & (np.abs(values) < 2 ** 53) & ~np.signbit(values)
    cells = values.astype(object)
    cells[whole] = values[whole].astype(np.int64).astype(object)
    cells[~np.isfinite(values)] = "nan"
    return [" ".join(map(str, row)) for row in cells.tolist()]


_LAST_STATS: list[tuple[tuple[int, ...], bytes, list[str]]] = []  # the last matrix formatted, as text


def _stats_lines(stats: np.ndarray) -> list[str]:
    """:func:`stats_texts`, remembered for the last matrix (the files of one family's variants share
    theirs: BLEU and NIST, -WER and -PER), recognised by its exact bytes."""
    values = np.ascontiguousarray(stats, dtype=np.float64)
    shape, data = values.shape, values.tobytes()
    last = _LAST_STATS[-1] if _LAST_STATS else None  # one read: safe if another thread replaces it
    if last is not None and last[0] == shape and last[1] == data:
        return last[2]
    lines = stats_texts(values)
    _LAST_STATS[:] = [(shape, data, lines)]
    return lines


def _fmt(value: float) -> str:
    return repr(float(value)) if math.isfinite(value) else "nan"


def _fmt_all(values: np.ndarray) -> list[str]:
    """:func:`_fmt` of every value."""
    values = np.asarray(values, dtype=np.float64)
    texts = list(map(repr, values.tolist()))
    for i in np.flatnonzero(np.isinf(values)).tolist():
        texts[i] = "nan"
    return texts


def content_digest(scores: ScoreSet, stats_lines: list[str] | None = None,
                   segment_texts: list[str] | None = None) -> str:
    """sha256 of every score as written (system, documents in file order, segments): a computed
    file whose digest does not match was damaged after it was written (a flipped digit).
    ``stats_lines``, ``segment_texts``: the statistics and segment scores already as text
    (:func:`stats_texts`, :func:`_fmt_all`), to format them once."""
    parts = [_fmt(scores.system)] + [f"{doc}={_fmt(v)}" for doc, v in scores.documents.items()]
    parts += _fmt_all(scores.segments) if segment_texts is None else segment_texts
    if scores.stats is not None:  # files without statistics keep the digest they always had
        parts += ["stats"] + (stats_texts(scores.stats) if stats_lines is None else stats_lines)
    return "sha256:" + hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


_DECLARATION = "<?xml version='1.0' encoding='UTF-8'?>\n"
# what libxml2 escapes in an attribute value (lxml's serialiser); text here is only numbers
_ATTRIBUTE_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;",
                                    "\r": "&#13;", "\t": "&#9;"})
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # lxml refuses these


def _start_tag(tag: str, attributes: list[tuple[str, str]], empty: bool = False) -> str:
    text = "".join(f' {name}="{value.translate(_ATTRIBUTE_ESCAPES)}"' for name, value in attributes)
    return f"<{tag}{text}{'/' if empty else ''}>"


def to_xml(score_file: ScoreFile, doc_ids: tuple[str, ...]) -> bytes:
    """Serialise scores; ``doc_ids`` gives the document of every segment (in order).

    Every segment gets an ``<S>`` (``nan`` where the metric has no score), so a file with fewer
    is recognisably damaged; ``digest`` covers every value written. Written as text, byte for byte
    what lxml writes for the same tree (:func:`_to_xml_tree`, which serialises values lxml refuses).
    """
    s = score_file.scores
    written = ScoreSet(s.system, {doc: s.documents.get(doc, math.nan) for doc in dict.fromkeys(doc_ids)},
                       s.segments, s.stats)
    root = [("metric", score_file.metric), ("target", score_file.target), ("ref", score_file.refset),
            ("score", _fmt(s.system)), ("n_docs", str(len(written.documents))), ("n_segments", str(len(s.segments))),
            ("signature", score_file.signature), ("inputs", score_file.inputs)]
    if any(_NOT_XML.search(text) for text in [value for _, value in root] + list(written.documents)):
        return _to_xml_tree(score_file, doc_ids)
    root += [("aggregate", score_file.aggregate)] if score_file.aggregate else []
    root += [("n_stats", str(s.stats.shape[1]))] if s.stats is not None else []
    stats_lines = None if s.stats is None else _stats_lines(s.stats)
    segment_texts = _fmt_all(s.segments)
    root.append(("digest", content_digest(written, stats_lines, segment_texts)))
    if not len(segment_texts):
        return (_DECLARATION + _start_tag("IQ", root, empty=True) + "\n").encode("utf-8")
    body = _documents(written, doc_ids, segment_texts, stats_lines)
    return "".join([_DECLARATION, _start_tag("IQ", root), "\n", *body, "</IQ>\n"]).encode("utf-8")


def _documents(written: ScoreSet, doc_ids: tuple[str, ...], segment_texts: list[str],
               stats_lines: list[str] | None) -> list[str]:
    """The ``DOC`` elements, each with its ``S`` lines (pretty-printed as lxml does)."""
    if len(doc_ids) != len(segment_texts):
        raise ValueError(f"{len(doc_ids)} document ids for {len(segment_texts)} segments")
    numbers = range(1, len(segment_texts) + 1)
    if stats_lines is None:
        lines = [f'    <S n="{n}">{text}</S>\n' for n, text in zip(numbers, segment_texts, strict=True)]
    else:
        lines = [f'    <S n="{n}" stats="{stats}">{text}</S>\n'
                 for n, stats, text in zip(numbers, stats_lines, segment_texts, strict=True)]
    by_doc: dict[str, list[str]] = {doc: [] for doc in written.documents}
    if len(by_doc) == 1:
        by_doc[doc_ids[0]] = lines
    else:
        for doc, line in zip(doc_ids, lines, strict=True):
            by_doc[doc].append(line)
    out = []
    for number, (doc, segments) in enumerate(by_doc.items(), start=1):
        out.append("  " + _start_tag("DOC", [("id", doc), ("n", str(number)), ("n_segments", str(len(segments))),
                                            ("score", _fmt(written.documents[doc]))]) + "\n")
        out += segments
        out.append("  </DOC>\n")
    return out


def _to_xml_tree(score_file: ScoreFile, doc_ids: tuple[str, ...]) -> bytes:
    """:func:`to_xml` through an lxml tree (the definition the text output is tested against)."""
    s = score_file.scores
    written = ScoreSet(s.system, {doc: s.documents.get(doc, math.nan) for doc in dict.fromkeys(doc_ids)},
                       s.segments, s.stats)
    root = etree.Element("IQ", metric=score_file.metric, target=score_file.target, ref=score_file.refset,
                         score=_fmt(s.system), n_docs=str(len(written.documents)), n_segments=str(len(s.segments)),
                         signature=score_file.signature, inputs=score_file.inputs)
    if score_file.aggregate:
        root.set("aggregate", score_file.aggregate)
    if s.stats is not None:
        root.set("n_stats", str(s.stats.shape[1]))
    stats_lines = None if s.stats is None else stats_texts(s.stats)
    root.set("digest", content_digest(written, stats_lines))
    sizes = Counter(doc_ids)
    docs: dict[str, etree._Element] = {}
    for number, (doc, value) in enumerate(zip(doc_ids, s.segments, strict=True), start=1):
        if doc not in docs:
            docs[doc] = etree.SubElement(root, "DOC", id=doc, n=str(len(docs) + 1), n_segments=str(sizes[doc]),
                                         score=_fmt(written.documents[doc]))
        segment = etree.SubElement(docs[doc], "S", n=str(number))
        if stats_lines is not None:
            segment.set("stats", stats_lines[number - 1])
        segment.text = _fmt(value)
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


def _digits(text: str) -> bool:
    """ASCII digits only, at most 12 (``str.isdigit`` also takes ``²``, which ``int`` refuses)."""
    return text.isascii() and text.isdigit() and len(text) <= 12


def _segment_number(raw: str | None, path: Path, line: int | None) -> int:
    if raw is None or not _digits(raw.strip()) or int(raw) < 1:
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
        self.stats: dict[int, list[float]] = {}
        self.n_stats = 0  # statistics read so far, over all segments (bounded by MAX_STATS_VALUES)
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

    def segment(self, raw: str | None, text: str | None, line: int | None, stats: str | None = None) -> None:
        number = _segment_number(raw, self.path, line)
        if number in self.values:
            raise CacheError(f"segment {number} has two scores", self.path, line)
        self.values[number] = _number(text, self.path, line, f"segment {number}")
        if stats is not None:
            self.stats[number] = self.statistics(stats, number, line)

    def statistics(self, text: str, number: int, line: int | None) -> list[float]:
        """One segment's ``stats``: at most ``MAX_STATS`` numbers, each finite within ±MAX_ABS."""
        parts = text.split()
        self.n_stats += len(parts)
        if not parts or len(parts) > MAX_STATS or self.n_stats > MAX_STATS_VALUES:
            raise CacheError(f"segment {number}: stats has {len(parts)} values (expected 1 to {MAX_STATS}, "
                             f"at most {MAX_STATS_VALUES} in a file)", self.path, line)
        values = [_number(part, self.path, line, f"segment {number} stats") for part in parts]
        if any(math.isnan(v) for v in values):
            raise CacheError(f"segment {number}: stats has a value that is not a number", self.path, line)
        return values

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
            self.segment(element.get("n"), element.text, element.sourceline, element.get("stats"))
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


def _statistics(reader: _Reader, size: int, path: Path) -> np.ndarray | None:
    """The statistics matrix: every segment has ``n_stats`` values, or no segment has any."""
    declared = reader.root.get("n_stats")
    if not reader.stats and declared is None:
        return None
    if declared is None or not _digits(declared) or not 0 < int(declared) <= MAX_STATS:
        raise CacheError(f"n_stats={declared!r}: expected the number of statistics per segment (1 to {MAX_STATS})",
                         path)
    width = int(declared)
    for number in range(1, size + 1):
        row = reader.stats.get(number)
        if row is None or len(row) != width:
            found = "no stats" if row is None else f"{len(row)} statistics"
            raise CacheError(f"segment {number} has {found}, the file declares n_stats={width}; damaged", path)
    return np.array([reader.stats[n] for n in range(1, size + 1)], dtype=np.float64).reshape(size, width)


def parse(path: Path, n_segments: int | None = None) -> ScoreFile:
    """Read an IQ-XML or Asiya REPORT file safely; ``n_segments`` sizes the segment array.

    Streamed with bounded memory: at most ``MAX_BYTES`` decompressed bytes and ``MAX_ELEMENTS``
    elements; no entities, DTD or network. Every segment needs a finite score or NaN, and, in a
    file with statistics, ``n_stats`` finite statistics.
    """
    reader = _read(path)
    root = reader.root
    segments = _segments(reader.values, n_segments, path)
    stats = _statistics(reader, len(segments), path)
    target = root.get("target") or root.get("hyp") or ""
    scores = ScoreSet(_number(root.get("score"), path, None, "score"), reader.documents, segments, stats)
    if "digest" in root and root["digest"] != content_digest(scores):
        raise CacheError("scores do not match the file's digest (damaged after it was written)", path)
    return ScoreFile(root.get("metric", ""), target, root.get("ref", ""), scores, root.get("signature", ""),
                     root.get("inputs", ""), root.get("digest", ""), root.get("aggregate", ""))


HEADER_BYTES = 1 << 20  # the root start tag must end within this many bytes (a signature is < 1 KB)


def header(path: Path) -> dict[str, str]:
    """The attributes of a score file's root element, read from its first bytes only (the cheap
    check of ``mteval.setup.expected`` before a full :func:`parse`); ``{}`` when the root
    cannot be read so (the full read then reports why). Same safe parser options as :func:`parse`."""
    parser = etree.XMLPullParser(events=("start",), **_PARSER_OPTIONS)
    try:
        with _open(path) as raw:
            read = 0
            while read < HEADER_BYTES and (chunk := raw.read(16384)):
                read += len(chunk)
                parser.feed(chunk)
                for _, element in parser.read_events():
                    return {str(k): str(v) for k, v in element.attrib.items()}
    except (etree.XMLSyntaxError, CacheError, OSError, EOFError, zlib.error):
        return {}
    return {}
