"""Read the texts of an experiment (plain or SGML, auto-detected) and check that they align."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mteval.errors import InputError
from mteval.io.corpus import Text
from mteval.io.plain import read_plain
from mteval.io.sgml import looks_like_sgml, read_sgml

FORMATS = ("plain", "sgml")
UNKNOWN = ("UNKNOWN_DOC",)  # the single document of plain-text input: aligns with any documents


def read_text(path: str | Path, name: str, fmt: str | None = None, sysid: str | None = None) -> Text:
    """One text. ``fmt`` None = auto-detect; ``sysid`` picks one system of a multi-system SGML file."""
    fmt = fmt or ("sgml" if looks_like_sgml(path) else "plain")
    if fmt == "plain":
        return read_plain(path, name)
    texts = read_sgml(path, name)
    if sysid is not None:
        chosen = [t for t in texts if t.name == sysid]
        if not chosen:
            raise InputError(f"no sysid {sysid!r}; the file has {', '.join(t.name for t in texts)}", path)
        return Text(name, chosen[0].segments, chosen[0].documents, chosen[0].path)
    if len(texts) > 1:
        raise InputError(f"holds {len(texts)} systems ({', '.join(t.name for t in texts)}); "
                         "say which with 'sysid'", path)
    return Text(name, texts[0].segments, texts[0].documents, texts[0].path)


def check_aligned(texts: Sequence[Text]) -> None:
    """All texts have the same number of segments and the same documents; say exactly where not.

    Plain-text files have no documents (``UNKNOWN_DOC``) and align with the documents of SGML files.
    """
    if not texts:
        return
    first = texts[0]
    for text in texts[1:]:
        if len(text) != len(first):
            raise InputError(f"has {len(text)} segments (lines) but {first.path or first.name} has "
                             f"{len(first)}", text.path or text.name)
    with_docs = [t for t in texts if t.documents.documents != UNKNOWN]
    for text in with_docs[1:]:
        model = with_docs[0]
        if text.documents.doc_ids != model.documents.doc_ids:
            i = next(i for i, (a, b) in enumerate(zip(text.documents.doc_ids, model.documents.doc_ids))
                     if a != b)
            raise InputError(f"segment {i + 1} is in document {text.documents.doc_ids[i]!r} but in "
                             f"{model.path or model.name} it is in {model.documents.doc_ids[i]!r}",
                             text.path or text.name)
