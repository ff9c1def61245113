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
network, and rejects files that declare entities.
"""

from __future__ import annotations

import gzip
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from lxml import etree

from mteval.errors import CacheError
from mteval.scores import ScoreSet

MAX_BYTES = 512 * 1024 * 1024  # refuse (decompressed) score files larger than this


@dataclass(frozen=True)
class ScoreFile:
    """The content of one score file."""

    metric: str
    target: str
    refset: str
    scores: ScoreSet
    signature: str = ""
    inputs: str = ""


def _fmt(value: float) -> str:
    return repr(float(value)) if math.isfinite(value) else "nan"


def to_xml(score_file: ScoreFile, doc_ids: tuple[str, ...]) -> bytes:
    """Serialise scores; ``doc_ids`` gives the document of every segment (in order)."""
    s = score_file.scores
    root = etree.Element("IQ", metric=score_file.metric, target=score_file.target, ref=score_file.refset,
                         score=_fmt(s.system), n_docs=str(len(s.documents)), n_segments=str(len(s.segments)),
                         signature=score_file.signature, inputs=score_file.inputs)
    docs: dict[str, etree._Element] = {}
    for number, (doc, value) in enumerate(zip(doc_ids, s.segments, strict=True), start=1):
        if doc not in docs:
            n_seg = sum(1 for d in doc_ids if d == doc)
            docs[doc] = etree.SubElement(root, "DOC", id=doc, n=str(len(docs) + 1), n_segments=str(n_seg),
                                         score=_fmt(s.documents.get(doc, math.nan)))
        if math.isfinite(value):
            etree.SubElement(docs[doc], "S", n=str(number)).text = _fmt(value)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _read_limited(path: Path) -> bytes:
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise CacheError(f"cannot read score file: {exc}", path) from None
    if len(data) > MAX_BYTES:
        raise CacheError(f"score file larger than {MAX_BYTES} bytes", path)
    return data


_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                          huge_tree=False, remove_comments=True, remove_pis=True)


def _float(text: str | None, path: Path, what: str) -> float:
    try:
        return float(text) if text is not None else math.nan
    except ValueError:
        raise CacheError(f"{what}: {text!r} is not a number", path) from None


def parse(path: Path, n_segments: int | None = None) -> ScoreFile:
    """Read an IQ-XML or Asiya REPORT file safely; ``n_segments`` sizes the segment array."""
    data = _read_limited(path)
    try:
        tree = etree.parse(io.BytesIO(data), _PARSER)
    except etree.XMLSyntaxError as exc:
        raise CacheError(f"not well-formed XML (line {exc.lineno}): {exc.msg}", path) from None
    dtd = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise CacheError("entity declarations are not allowed in score files", path)
    root = tree.getroot()
    if root.tag not in ("IQ", "REPORT"):
        raise CacheError(f"root element is <{root.tag}>, expected <IQ> or <REPORT>", path)
    values: dict[int, float] = {}
    for seg in root.iter("S"):
        number = int(_float(seg.get("n"), path, "S/@n"))
        if number < 1:
            raise CacheError(f"segment number {number} < 1", path)
        values[number] = _float(seg.text, path, f"segment {number}")
    size = n_segments if n_segments is not None else max(values, default=0)
    if values and max(values) > size:
        raise CacheError(f"has segment {max(values)} but the test set has {size} segments", path)
    segments = np.full(size, np.nan)
    for number, value in values.items():
        segments[number - 1] = value
    documents = {d.get("id", ""): _float(d.get("score"), path, "DOC/@score") for d in root.iter("DOC")}
    target = root.get("target") or root.get("hyp") or ""
    scores = ScoreSet(_float(root.get("score"), path, "score"), documents, segments)
    return ScoreFile(root.get("metric", ""), target, root.get("ref", ""), scores,
                     root.get("signature", ""), root.get("inputs", ""))


def read_header(path: Path) -> dict[str, str]:
    """The root element's attributes only (cheap up-to-date checks); {} when unreadable."""
    try:
        for _, element in etree.iterparse(str(path), events=("start",), resolve_entities=False,
                                          no_network=True, load_dtd=False):
            return dict(element.attrib)
    except (etree.XMLSyntaxError, OSError):
        return {}
    return {}
