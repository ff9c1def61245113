"""Read the texts of an experiment (plain or SGML, auto-detected) and check that they align."""

from __future__ import annotations

from pathlib import Path

from mteval.errors import InputError
from mteval.io.align import align_texts, check_aligned
from mteval.io.corpus import Text
from mteval.io.plain import plain_text, read_lines
from mteval.io.sgml import head_is_sgml, parse_sgml

__all__ = ["FORMATS", "align_texts", "check_aligned", "read_text"]

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
    return Text(name, t.segments, t.documents, t.path, t.seg_ids, t.lines)
