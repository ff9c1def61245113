"""A tolerant reader of IQ-XML as the IQMT 2.0 manual prints it (§4.1.1), for users' own files.

The manual's sample is not well-formed XML::

    <IQ metric="BLEU-4" ref="R0" score="0.3945" target="S0">
    <S n="1">0.3033
    <S n="2">0.5833
    ...
    </IQ>

This reader accepts what it shows and the like, which a strict XML parser refuses: ``<S>`` and
``<DOC>`` without closing tags (an element ends at the next ``<S>``, ``<DOC>``, ``</DOC>`` or
the root's end tag, and a segment's score is the text up to the next tag), no XML declaration,
attribute values in single, double, typographic
(“…”) or no quotes, and (like the strict reader) elements other than ``<DOC>`` and ``<S>``,
comments and processing instructions ignored. It is a tokenizer over the decompressed text, not an
XML parser: it refuses DOCTYPE and ENTITY declarations (and CDATA), decodes only the five
predefined entities and numeric character references, never opens another file or the network,
and bounds every token (``MAX_TOKEN`` characters) and the number of tags, start and end (the
sink's limit, ``iqxml.MAX_ELEMENTS``), so a
hostile file costs bounded memory and time. The root's end tag is required: a file that stops
before it is truncated. Anything it cannot read is one ``CacheError`` naming the file and line.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Protocol

from mteval.errors import CacheError, quote

MAX_TOKEN = 1 << 16  # characters in one tag, comment or run of text between tags
CHUNK = 1 << 16  # bytes read at a time
ROOTS = ("IQ", "REPORT")
_PREDEFINED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_REFERENCE = re.compile(r"&(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z_][\w.-]*);")
# text | comment or processing instruction (skipped) | tag | declaration (refused)
_TOKEN = re.compile(r"([^<]+)|(<!--.*?-->|<\?.*?\?>)|(<[^!?](?:\"[^\"]*\"|'[^']*'|[^\"'>])*>)|(<!(?!--)[^<>]*>?)",
                    re.DOTALL)
_TAG_PARTS = re.compile(r"<(/?)\s*([A-Za-z_][\w.:-]*)(.*?)(/?)>", re.DOTALL)
_ATTRIBUTE = re.compile(r"\s*([A-Za-z_:][\w:.-]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|[“”]([^“”]*)[“”]|([^\s\"'“”>/]+))")
_PLAIN_ATTRIBUTE = re.compile(r'\s+([A-Za-z_][\w.-]*)="([^"&<]*)"\s*')  # the common case, without entities
_DECLARED = re.compile(rb"^<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]{1,40})[\"']")


class Readable(Protocol):
    """A binary stream (``iqxml`` passes its size-capped, decompressed one)."""

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes; b"" at the end."""


class Sink(Protocol):
    """What the reader reports to (``iqxml``'s reader, which checks the values)."""

    def count(self, line: int) -> None:
        """One more tag (the sink refuses too many)."""

    def open_root(self, tag: str, attrs: dict[str, str], line: int) -> None:
        """The root element (the reader refuses any but ``IQ`` and ``REPORT``)."""

    def document(self, attrs: Mapping[str, str], line: int) -> None:
        """A ``<DOC>`` start tag."""

    def segment(self, number: str | None, text: str | None, line: int) -> None:
        """An ``<S>``: its raw ``n`` and score text (None: no text)."""


def _encoding(head: bytes, path: Path) -> tuple[str, bytes]:
    """The text encoding (BOM, else the XML declaration, else UTF-8) and the head without a BOM."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                      (codecs.BOM_UTF16_BE, "utf-16-be")):
        if head.startswith(bom):
            return name, head[len(bom):]
    declared = _DECLARED.match(head)
    name = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        return codecs.lookup(name).name, head
    except LookupError:
        raise CacheError(f"unknown encoding {quote(name)} in the XML declaration", path, 1) from None


def _unescape(text: str, path: Path, line: int) -> str:
    """Decode ``&lt;`` ``&gt;`` ``&amp;`` ``&quot;`` ``&apos;`` and ``&#N;``; refuse other entities."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if not name.startswith("#"):
            if name not in _PREDEFINED:
                raise CacheError(f"entity &{quote(name, 40)[1:-1]}; is not allowed (only &lt; &gt; &amp; "
                                 "&quot; &apos; and &#N;)", path, line)
            return _PREDEFINED[name]
        code = int(name[2:], 16) if name[1:2] in "xX" else int(name[1:])
        if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise CacheError(f"character reference &{name}; is not a character", path, line)
        return chr(code)
    return _REFERENCE.sub(one, text) if "&" in text else text


class _Tokens:
    """The decompressed text as ``(kind, text, line)``: kind ``text`` or ``tag`` (comments,
    processing instructions and the XML declaration are skipped). ``buffer[pos:]`` is unread."""

    def __init__(self, stream: Readable, path: Path) -> None:
        self.stream, self.path = stream, path
        head = stream.read(CHUNK)
        encoding, head = _encoding(head, path)
        self.decoder = codecs.getincrementaldecoder(encoding)("strict")
        self.buffer, self.pos, self.line, self.eof = "", 0, 1, False
        self._decode(head, final=not head)

    def _decode(self, data: bytes, final: bool) -> None:
        try:
            text = self.decoder.decode(data, final=final)
        except UnicodeDecodeError as exc:
            raise CacheError(f"not valid text in its encoding: {exc.reason}", self.path, self.line) from None
        self.buffer, self.pos, self.eof = self.buffer[self.pos:] + text, 0, final

    def _more(self) -> bool:
        """Read another chunk; False at the end of the file."""
        if self.eof:
            return False
        if len(self.buffer) - self.pos > MAX_TOKEN:
            raise CacheError(f"more than {MAX_TOKEN} characters in one tag, comment or text", self.path, self.line)
        data = self.stream.read(CHUNK)
        self._decode(data, final=not data)
        return True

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        while True:
            match = _TOKEN.match(self.buffer, self.pos)
            if match is None or (match.end() == len(self.buffer) and not self.eof):
                if self._more():  # a token may go on in the next chunk
                    continue
                if match is None:
                    if self.pos < len(self.buffer):
                        self._unreadable()
                    return
            token, line = match.group(), self.line
            self.pos = match.end()
            self.line += token.count("\n")
            if match.lastindex == 1:
                yield "text", token, line
            elif match.lastindex == 3:
                yield "tag", token, line
            elif match.lastindex == 4:
                self._declaration(token)

    def _declaration(self, token: str) -> None:
        """``<!...>``: entity declarations and anything like them are refused."""
        if token[2:9].upper().startswith(("DOCTYPE", "ENTITY")):
            raise CacheError("DOCTYPE: entity declarations are not allowed in score files", self.path, self.line)
        raise CacheError(f"markup {quote(token[:12])} is not allowed in score files", self.path, self.line)

    def _unreadable(self) -> None:
        """What is at ``pos`` at the end of the file and is no token: an unclosed tag or comment."""
        rest = self.buffer[self.pos:self.pos + 40]
        for opening, closing in (("<!--", "-->"), ("<?", "?>")):
            if rest.startswith(opening):
                raise CacheError(f"{opening} without {closing}", self.path, self.line)
        raise CacheError(f"tag {quote(rest)} is not closed by '>'", self.path, self.line)


def _attributes(body: str, tag: str, path: Path, line: int) -> dict[str, str]:
    """Attributes of a tag; anything else in the tag is an error."""
    plain = _PLAIN_ATTRIBUTE.fullmatch(body)
    if plain is not None:
        return {plain.group(1): plain.group(2)}
    attrs: dict[str, str] = {}
    at = 0
    for match in _ATTRIBUTE.finditer(body):
        if body[at:match.start()].strip():
            break
        name = match.group(1)
        if name in attrs:
            raise CacheError(f"<{tag}> has two {quote(name)} attributes", path, line)
        value = next(v for v in match.groups()[1:] if v is not None)
        attrs[name] = _unescape(value, path, line)
        at = match.end()
    if body[at:].strip():
        raise CacheError(f"cannot read the attributes of <{tag}>: {quote(body[at:].strip(), 40)}", path, line)
    return attrs


def _no_ellipsis(text: str, path: Path, line: int) -> None:
    """The manual's ``...`` line stands for segments it leaves out; copied into a file, it is
    said so (rather than "not a number")."""
    if "..." not in text and "\u2026" not in text:
        return
    for offset, row in enumerate(text.split("\n")):
        if row.strip() in ("...", "\u2026"):
            raise CacheError("'...' stands for the segments the manual leaves out: write one <S> for every "
                             "segment instead", path, line + offset)


class _Layout:
    """The element structure: one root, ``<DOC>`` and ``<S>`` with optional end tags."""

    def __init__(self, sink: Sink, path: Path) -> None:
        self.sink, self.path = sink, path
        self.root: str | None = None
        self.closed = False  # the root's end tag was seen
        self.segment: tuple[str | None, int] | None = None  # an <S> whose score text is still to come
        self.s_open = self.doc_open = False

    def text(self, text: str, line: int) -> None:
        if self.segment is not None:
            number, start = self.segment
            self.segment = None
            _no_ellipsis(text, self.path, start)
            self.sink.segment(number, _unescape(text, self.path, start), start)
        elif text.strip() and (self.root is None or self.closed):
            where = "before the root element" if self.root is None else f"after </{self.root}>"
            raise CacheError(f"text {quote(text.strip(), 40)} {where}", self.path, line)

    def end_segment(self) -> None:
        """An <S> ends (at its end tag or the next tag); with no text, it has no score."""
        if self.segment is not None:
            number, start = self.segment
            self.segment = None
            self.sink.segment(number, None, start)

    def tag(self, token: str, line: int) -> None:
        self.sink.count(line)
        match = _TAG_PARTS.fullmatch(token)
        if match is None:
            raise CacheError(f"cannot read the tag {quote(token, 40)}", self.path, line)
        closing, name, body, empty = match.groups()
        self.end_segment()
        if self.closed:
            raise CacheError(f"<{'/' if closing else ''}{name}> after </{self.root}>", self.path, line)
        if closing:
            if self.root is None:
                raise CacheError(f"</{name}> before the root element", self.path, line)
            if body.strip() or empty:
                raise CacheError(f"cannot read the end tag {quote(token, 40)}", self.path, line)
            self._close(name, line)
        else:
            self._open(name, _attributes(body, name, self.path, line), bool(empty), line)

    def _open(self, name: str, attrs: dict[str, str], empty: bool, line: int) -> None:
        if self.root is None:
            self.root = name
            self.sink.open_root(name, attrs, line)
            self.closed = empty
        elif name in ROOTS:
            raise CacheError(f"<{name}> inside <{self.root}>", self.path, line)
        elif name == "DOC":
            self.s_open = False
            self.sink.document(attrs, line)
            self.doc_open = not empty
        elif name == "S":
            self.s_open = not empty
            if empty:
                self.sink.segment(attrs.get("n"), None, line)
            else:
                self.segment = (attrs.get("n"), line)

    def _close(self, name: str, line: int) -> None:
        if name == "S":
            if not self.s_open:
                raise CacheError("</S> without an open <S>", self.path, line)
            self.s_open = False
        elif name == "DOC":
            if not self.doc_open:
                raise CacheError("</DOC> without an open <DOC>", self.path, line)
            self.s_open = self.doc_open = False
        elif name in ROOTS:
            if name != self.root:
                raise CacheError(f"</{name}> does not close <{self.root}>", self.path, line)
            self.closed = True


def scan(stream: Readable, sink: Sink, path: Path) -> None:
    """Read a score file in the manual's layout from ``stream`` (decompressed, capped by the
    caller) into ``sink``; CacheError naming ``path`` and the line for anything unreadable."""
    layout = _Layout(sink, path)
    for kind, token, line in _Tokens(stream, path):
        (layout.text if kind == "text" else layout.tag)(token, line)
    layout.end_segment()
    if layout.root is None:
        raise CacheError("no <IQ> or <REPORT> element", path)
    if not layout.closed:
        raise CacheError(f"ends before </{layout.root}> (truncated?)", path)
