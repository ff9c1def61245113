"""NIST/WMT SGML reader (``srcset``/``refset``/``tstset``, ``<doc docid sysid>``, ``<seg id>``).

Real files are not well-formed XML (raw ``&`` in text, ``<p>`` without ``</p>``), so this is a
tolerant line-oriented reader, as NIST's own tools read them: tags are matched with regular
expressions; in segment text the five XML entities are un-escaped and anything else (a raw ``&``)
is kept. Structural errors (a ``<seg>`` without ``</seg>``, a segment outside a document, a
duplicate segment id in a document) are reported with file and line.

A file may hold several systems (``sysid``); :func:`read_sgml` returns one :class:`Text` per
system in file order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex, Text
from mteval.io.plain import decode_lines, read_bytes

_SET = re.compile(r"<\s*(srcset|refset|tstset)\b([^>]*)>", re.I)
_DOC = re.compile(r"<\s*doc\b([^>]*)>", re.I)
_DOC_END = re.compile(r"<\s*/\s*doc\s*>", re.I)
_SEG = re.compile(r"<\s*seg\b([^>]*)>", re.I)
_SEG_END = re.compile(r"<\s*/\s*seg\s*>", re.I)
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))


def attributes(text: str) -> dict[str, str]:
    """Attributes of a tag, names lower-cased."""
    return {m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None) for m in _ATTR.finditer(text)}


def unescape(text: str) -> str:
    """Un-escape the five XML entities; a raw ``&`` stays as it is."""
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], text)


def looks_like_sgml(path: str | Path) -> bool:
    """Format auto-detection: a ``<srcset|refset|tstset`` tag near the start of the file."""
    head = read_bytes(path)[:4096].decode("utf-8", errors="replace")
    return bool(_SET.search(head))


@dataclass
class _System:
    segments: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)


class _SgmlParser:
    """State of one pass over an SGML file."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.systems: dict[str, _System] = {}
        self.doc: str | None = None
        self.sysid = ""
        self.seen_ids: set[str] = set()

    def error(self, message: str, line: int) -> InputError:
        return InputError(message, self.path, line)

    def feed(self, line: str, number: int) -> None:
        if m := _DOC.search(line):
            attrs = attributes(m.group(1))
            self.doc = attrs.get("docid") or self._missing("docid", number)
            self.sysid = attrs.get("sysid", attrs.get("refid", ""))
            self.seen_ids = set()
        if _SEG.search(line):
            self._segment(line, number)
        if _DOC_END.search(line):
            self.doc = None

    def _missing(self, attr: str, number: int) -> str:
        raise self.error(f"<doc> without {attr}", number)

    def _segment(self, line: str, number: int) -> None:
        m = _SEG.search(line)
        assert m is not None
        end = _SEG_END.search(line, m.end())
        if end is None:
            raise self.error("<seg> without </seg> on the same line", number)
        if self.doc is None:
            raise self.error("<seg> outside a <doc>", number)
        seg_id = attributes(m.group(1)).get("id", str(len(self.seen_ids) + 1))
        if seg_id in self.seen_ids:
            raise self.error(f"duplicate segment id {seg_id!r} in document {self.doc!r}", number)
        self.seen_ids.add(seg_id)
        system = self.systems.setdefault(self.sysid, _System())
        system.segments.append(unescape(line[m.end():end.start()]).strip())
        system.doc_ids.append(self.doc)


def read_sgml(path: str | Path, name: str | None = None) -> list[Text]:
    """All systems of an SGML file, each as a :class:`Text` named ``name`` or its ``sysid``."""
    lines = decode_lines(read_bytes(path), path)
    if not any(_SET.search(line) for line in lines[:50]):
        raise InputError("not NIST/WMT SGML: no <srcset>, <refset> or <tstset> tag", path)
    parser = _SgmlParser(path)
    for number, line in enumerate(lines, start=1):
        parser.feed(line, number)
    if not parser.systems:
        raise InputError("no <seg> found", path)
    texts = []
    for sysid, system in parser.systems.items():
        label = name if name and len(parser.systems) == 1 else (sysid or name or Path(path).stem)
        texts.append(Text(label, tuple(system.segments), DocumentIndex(tuple(system.doc_ids)), str(path)))
    return texts
