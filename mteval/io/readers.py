"""Read the texts of an experiment (plain or SGML, auto-detected) and check that they align; read
the document ids of plain texts (a ``docids`` file)."""

from __future__ import annotations

import re
from pathlib import Path

from mteval.errors import InputError, quote
from mteval.io.align import align_texts, check_aligned
from mteval.io.corpus import DocumentIndex, Text
from mteval.io.plain import describe, plain_text, read_lines
from mteval.io.sgml import MAX_ID, head_is_sgml, parse_sgml

__all__ = ["FORMATS", "align_texts", "check_aligned", "read_docids", "read_text"]

FORMATS = ("plain", "sgml")
_HEAD = 4096  # characters searched for a set tag when the format is auto-detected


def read_text(path: str | Path, name: str, fmt: str | None = None, sysid: str | None = None) -> Text:
    """One text. ``fmt`` None = auto-detect; ``sysid`` picks one system of a multi-system SGML file."""
    lines = read_lines(path)
    if fmt is None:
        head, size = [], 0
        for line in lines:
            head.append(line)
            size += len(line) + 1
            if size >= _HEAD:
                break
        fmt = "sgml" if head_is_sgml("\n".join(head)[:_HEAD]) else "plain"
    if fmt == "plain":
        if sysid is not None:
            raise InputError(f"sysid {sysid!r} is given but the file is plain text (sysid picks one system "
                             "of a multi-system SGML file)", path)
        return plain_text(lines, path, name)
    texts = parse_sgml(lines, path, None if sysid is not None else name)  # labels are sysids when choosing
    if sysid is not None:
        chosen = [t for t in texts if t.name == sysid]
        if not chosen:
            raise InputError(f"no sysid {sysid!r}; the file has {', '.join(t.name for t in texts)}", path)
        texts = chosen
    elif len(texts) > 1:
        raise InputError(f"holds {len(texts)} systems ({', '.join(t.name for t in texts)}); "
                         "say which with 'sysid'", path)
    t = texts[0]
    return Text(name, t.segments, t.documents, t.path, t.seg_ids, t.lines, t.doc_attributes)


_ID_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # as SGML docids (mteval.io.sgml)


def read_docids(path: str | Path, column: int | str | None = None, n_segments: int | None = None) -> DocumentIndex:
    """The documents of plain texts: line ``i`` holds the document id of segment ``i`` (WMT's
    ``*.docids`` files). ``column`` reads one column of a tab-separated file instead: a number
    (1-based, every line is data) or a name (the first line is a header naming the columns, as the
    bundled ``docids.tsv``). A document is one contiguous run of lines, as in WMT's files: an id
    that comes back after another document is refused, as is an empty id; with ``n_segments``, a
    file with another number of ids is refused (naming the first extra line)."""
    lines = read_lines(path)
    first = 1
    if isinstance(column, str):
        header = lines[0].split("\t") if lines else []
        if column not in header:
            raise InputError(f"no column {quote(column)} in the header line (columns: "
                             f"{', '.join(quote(h, 30) for h in header[:8]) or 'none'})", path, 1)
        column, first = header.index(column) + 1, 2
    ids = [_docid(line, path, number, column) for number, line in enumerate(lines[first - 1:], start=first)]
    if not ids:
        raise InputError("holds no document ids", path)
    if n_segments is not None and len(ids) != n_segments:
        raise InputError(f"has {len(ids)} document ids but the texts have {n_segments} segments (one id a "
                         "segment)", path, first + n_segments if len(ids) > n_segments else None)
    _check_contiguous(ids, path, first)
    return DocumentIndex(tuple(ids))


def _docid(line: str, path: str | Path, number: int, column: int | None) -> str:
    """The document id on one line (the whole line, or one tab-separated column), checked."""
    if column is None:
        if "\t" in line:
            raise InputError("holds a tab: for a tab-separated file say which column holds the ids, "
                             "docids: {path: FILE, column: N or NAME}", path, number)
        value = line.strip()
    else:
        cells = line.split("\t")
        if len(cells) < column:
            raise InputError(f"has {len(cells)} tab-separated column(s), no column {column}", path, number)
        value = cells[column - 1].strip()
    if not value:
        raise InputError("empty document id (every segment needs one)", path, number)
    if m := _ID_CONTROL.search(value):
        raise InputError(f"document id {quote(value)} holds {describe(m.group(0))}", path, number)
    if len(value) > MAX_ID:
        raise InputError(f"document id is {len(value)} characters long (at most {MAX_ID})", path, number)
    return value


def _check_contiguous(ids: list[str], path: str | Path, first: int) -> None:
    """Refuse an id that starts a second run (documents are contiguous in WMT's docids files)."""
    ended: dict[str, int] = {}
    for i in range(1, len(ids)):
        if ids[i] != ids[i - 1]:
            ended[ids[i - 1]] = first + i - 1
            if ids[i] in ended:
                raise InputError(f"document {quote(ids[i])} comes back after other documents (its lines end "
                                 f"at line {ended[ids[i]]}); a document must be one run of lines", path, first + i)
