"""NIST/WMT SGML reader (``srcset``/``refset``/``tstset``, ``<doc docid sysid>``, ``<seg id>``).

Real files are not well-formed XML (raw ``&`` in text, ``<p>`` without ``</p>``), so this is a
tolerant line-oriented reader, as NIST's own tools read them: tags are found with regular
expressions, one ``<seg>...</seg>`` a line. The bytes go through the plain reader's checks first
(UTF-8, BOM dropped, CRLF accepted, no bare CR, NUL or control character: see
:mod:`mteval.io.plain`).

Segment text, decided against what mteval-v13a.pl and an XML reader of the file would see:

- the five XML entities (``&amp; &lt; &gt; &quot; &apos;``) are un-escaped (mteval-v13a's tokenizer
  un-escapes the first four; an XML reader all five);
- numeric character references (``&#233;``, ``&#xE9;``) are decoded, as an XML reader does; one
  that names no character (a surrogate, beyond U+10FFFF) or a C0 control character that the plain
  reader refuses raw (``&#0;``; ``&#10;`` would put a line break inside a segment) is refused with
  the line;
- anything else starting with ``&`` is kept as written: a raw ``&`` (real WMT data has them) and
  named HTML entities such as ``&nbsp;`` or ``&eacute;``, which are not XML (an XML reader would
  reject the file) and which mteval-v13a leaves alone too;
- a raw ``<`` that starts no ``<seg``/``</seg>``/``<doc``/``</doc>`` tag is text (``a < b``).

Attribute values (docid, seg id, sysid) are taken as written, as mteval-v13a does. Refused with file
and line: a ``<seg>`` without ``</seg>`` on its line, a nested ``<seg>`` or two segments on one
line, a ``</seg>`` or ``</doc>`` without its opening tag, a segment outside a document, a ``<doc>``
inside another (a missing ``</doc>``) or a document left open at the end of the file, a ``<doc>``
without docid, a docid, seg id or sysid with a C0/C1 control character or U+2028/U+2029 (a tab
included: ids end up in XML attributes and TSV columns, where these break lines or fields) or
longer than 200 characters, a document id repeated for one system
(mteval-v13a refuses it too) and a segment id repeated in a document. A ``<seg>`` without ``id``
gets its position in the document (1, 2, ...), so that id-less files still align. A document's
``origlang``, ``genre`` and ``domain`` attributes are kept (:attr:`Text.doc_attributes`; an empty
value counts as absent), for the segment sets of :mod:`mteval.experiment.doc_sets`.

A file may hold several systems (``sysid``); :func:`read_sgml` returns one :class:`Text` per
system in file order, each segment keyed by (docid, seg id) for :mod:`mteval.io.align`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex, Text
from mteval.io.plain import describe, read_bytes, read_lines

MAX_ID = 200  # characters of a docid or seg id
DOC_ATTRIBUTES = ("origlang", "genre", "domain")  # <doc> attributes kept (an empty value: not there)
_SET = re.compile(r"<\s*(srcset|refset|tstset)\b([^<>]*)>", re.I)
# every tag the reader acts on, in line order; [^<>]* keeps the scan linear on hostile lines
_TAG = re.compile(r"<\s*(/?)\s*(srcset|refset|tstset|doc|seg)(?=[\s/>])([^<>]*)>", re.I)
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_REFERENCE = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,8})|#[xX]([0-9a-fA-F]{1,8}));")
_ID_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # controls and line/paragraph separators


def attributes(text: str) -> dict[str, str]:
    """Attributes of a tag, names lower-cased."""
    return {m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None) for m in _ATTR.finditer(text)}


def _allowed(code: int) -> bool:
    """Whether a character reference names a character a segment may hold: one the plain reader would
    accept raw (no C0 control but TAB, so no CR or LF; no surrogate, which UTF-8 cannot hold)."""
    if code == 0x09:
        return True
    return 0x20 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF


def _replace(m: re.Match[str]) -> str:
    if m.group(1):
        return _ENTITIES[m.group(1)]
    code = int(m.group(2), 10) if m.group(2) else int(m.group(3), 16)
    if not _allowed(code):
        what = describe(chr(code)) if code <= 0x10FFFF else "beyond U+10FFFF"
        raise ValueError(f"character reference {m.group(0)} names {what}, which a segment may not hold")
    return chr(code)


def unescape(text: str) -> str:
    """Un-escape the five XML entities and numeric character references; anything else stays.

    Raises ``ValueError`` for a reference to a C0 control character but TAB, a surrogate or beyond U+10FFFF.
    """
    return _REFERENCE.sub(_replace, text) if "&" in text else text


def looks_like_sgml(path: str | Path) -> bool:
    """Format auto-detection: a ``<srcset|refset|tstset`` tag near the start of the file."""
    return head_is_sgml(read_bytes(path)[:4096].decode("utf-8", errors="replace"))


def head_is_sgml(head: str) -> bool:
    """Whether the start of a file (its first few KB) holds a set tag."""
    return bool(_SET.search(head))


@dataclass
class _System:
    segments: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)
    seg_ids: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    documents: dict[str, int] = field(default_factory=dict)  # docid -> line of its <doc>
    attributes: dict[str, dict[str, str]] = field(default_factory=dict)  # docid -> DOC_ATTRIBUTES it has


class _SgmlParser:
    """State of one pass over an SGML file."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.systems: dict[str, _System] = {}
        self.doc: str | None = None
        self.doc_line = 0
        self.sysid = ""
        self.seen_ids: set[str] = set()
        self.seg_start: int | None = None  # column after the open <seg> of the current line
        self.seg_id = ""

    def error(self, message: str, line: int) -> InputError:
        return InputError(message, self.path, line)

    def feed(self, line: str, number: int) -> None:
        """Act on every tag of one line, in order."""
        done = False  # a segment was already read from this line
        self.seg_start = None
        for m in _TAG.finditer(line):
            closing, name = bool(m.group(1)), m.group(2).lower()
            if name != "seg" and self.seg_start is not None:
                continue  # a <doc> or set tag inside segment text is text
            if name == "seg":
                if closing:
                    self._close_segment(line, m, number)
                    done = True
                else:
                    self._open_segment(m, number, done)
            elif name == "doc":
                self._close_document(number) if closing else self._open_document(m.group(3), number)
        if self.seg_start is not None:
            raise self.error("<seg> without </seg> on the same line", number)

    def finish(self) -> None:
        if self.doc is not None:
            raise self.error(f"document {self.doc!r} has no </doc> before the end of the file", self.doc_line)

    def _open_document(self, attrs_text: str, number: int) -> None:
        if self.doc is not None:
            raise self.error(f"<doc> inside document {self.doc!r} (opened at line {self.doc_line}): "
                             "missing </doc>?", number)
        attrs = attributes(attrs_text)
        doc = attrs.get("docid") or ""
        if not doc:
            raise self.error("<doc> without docid", number)
        self._check_id("docid", doc, number)
        self.sysid = attrs.get("sysid", attrs.get("refid", ""))
        self._check_id("sysid", self.sysid, number)
        system = self.systems.setdefault(self.sysid, _System())
        if doc in system.documents:
            owner = f" for sysid {self.sysid!r}" if self.sysid else ""
            raise self.error(f"document {doc!r}{owner} appears twice (first at line {system.documents[doc]})",
                             number)
        system.documents[doc] = number
        system.attributes[doc] = {k: attrs[k] for k in DOC_ATTRIBUTES if attrs.get(k)}
        self.doc, self.doc_line, self.seen_ids = doc, number, set()

    def _close_document(self, number: int) -> None:
        if self.doc is None:
            raise self.error("</doc> without <doc>", number)
        self.doc = None

    def _check_id(self, what: str, value: str, number: int) -> None:
        if m := _ID_CONTROL.search(value):
            raise self.error(f"{what} {value!r} holds {describe(m.group(0))}: an id may hold no control "
                             "character, tab or line separator", number)
        if len(value) > MAX_ID:
            raise self.error(f"{what} is {len(value)} characters long (at most {MAX_ID})", number)

    def _open_segment(self, m: re.Match[str], number: int, done: bool) -> None:
        if self.seg_start is not None:
            raise self.error("nested <seg> (a <seg> inside the segment opened on this line)", number)
        if done:
            raise self.error("two <seg> on one line (one segment a line)", number)
        if self.doc is None:
            raise self.error("<seg> outside a <doc>", number)
        seg_id = attributes(m.group(3)).get("id", str(len(self.seen_ids) + 1))
        self._check_id("seg id", seg_id, number)
        if seg_id in self.seen_ids:
            raise self.error(f"duplicate segment id {seg_id!r} in document {self.doc!r}", number)
        self.seen_ids.add(seg_id)
        self.seg_start, self.seg_id = m.end(), seg_id

    def _close_segment(self, line: str, m: re.Match[str], number: int) -> None:
        if self.seg_start is None:
            raise self.error("</seg> without <seg>", number)
        try:
            text = unescape(line[self.seg_start:m.start()]).strip()
        except ValueError as exc:
            raise self.error(str(exc), number) from None
        assert self.doc is not None
        system = self.systems[self.sysid]
        system.segments.append(text)
        system.doc_ids.append(self.doc)
        system.seg_ids.append(self.seg_id)
        system.lines.append(number)
        self.seg_start = None


def parse_sgml(lines: list[str], path: str | Path, name: str | None = None) -> list[Text]:
    """All systems of the checked lines of an SGML file (see :func:`read_sgml`)."""
    if not any(_SET.search(line) for line in lines[:50]):
        raise InputError("not NIST/WMT SGML: no <srcset>, <refset> or <tstset> tag", path)
    parser = _SgmlParser(path)
    for number, line in enumerate(lines, start=1):
        parser.feed(line, number)
    parser.finish()
    systems = {sysid: system for sysid, system in parser.systems.items() if system.segments}
    if not systems:
        raise InputError("no <seg> found", path)
    texts = []
    for sysid, system in systems.items():
        label = name if name and len(systems) == 1 else (sysid or name or Path(path).stem)
        texts.append(Text(label, tuple(system.segments), DocumentIndex(tuple(system.doc_ids)), str(path),
                          tuple(system.seg_ids), tuple(system.lines),
                          {d: a for d, a in system.attributes.items() if a}))
    return texts


def read_sgml(path: str | Path, name: str | None = None) -> list[Text]:
    """All systems of an SGML file, each as a :class:`Text` named ``name`` or its ``sysid``."""
    return parse_sgml(read_lines(path), path, name)
