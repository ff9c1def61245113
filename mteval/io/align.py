"""Align the texts of an experiment: SGML by (docid, seg id), plain text by position.

NIST's mteval-v13a.pl matches a system's segments to the references' by document id and segment
id, so an SGML file may list its documents, or the segments of a document, in any order. Here
every SGML text is put in the order of the *model*: the first SGML reference (when every
reference is plain text, the SGML source, else the first SGML system: see
:func:`mteval.experiment.texts.load_texts`). When the key sets are equal the text is reordered;
when a document or segment is missing or extra, one error names the file, the line where known and
the first such id. Plain-text files have no ids: line ``i`` is segment ``i`` of the model's order,
and only their number of lines must match.
"""

from __future__ import annotations

from collections.abc import Sequence

from mteval.errors import InputError
from mteval.io.corpus import Text


def model_of(texts: Sequence[Text]) -> Text | None:
    """The text whose order every SGML text takes: the first keyed one (references come first)."""
    return next((t for t in texts if t.keyed), None)


def align_texts(texts: Sequence[Text], model: Text | None = None) -> list[Text]:
    """The texts, SGML ones reordered to the model's keys; an :class:`InputError` where they cannot align.

    ``model`` (one of ``texts``) defaults to the first SGML text, else the first text.
    """
    if not texts:
        return []
    model = model or model_of(texts) or texts[0]
    aligned = []
    for text in texts:
        if text is model:
            aligned.append(text)
        elif text.keyed and model.keyed:
            aligned.append(reorder(text, model))
        else:
            _check_count(text, model)
            aligned.append(text)
    return aligned


def check_aligned(texts: Sequence[Text]) -> None:
    """Raise :class:`InputError` unless the texts can be aligned (see :func:`align_texts`)."""
    align_texts(texts)


def _check_count(text: Text, model: Text) -> None:
    if len(text) != len(model):
        raise InputError(f"has {len(text)} segments (lines) but {model.where} has {len(model)}", text.where)


def reorder(text: Text, model: Text) -> Text:
    """``text`` with its segments in the model's (docid, seg id) order; the same object when already so."""
    keys = text.keys()
    model_keys = model.keys()
    if keys == model_keys:
        return text
    index = {key: i for i, key in enumerate(keys)}
    if len(index) != len(keys) or len(keys) != len(model_keys) or any(k not in index for k in model_keys):
        raise _mismatch(text, model, index)
    rows = [index[key] for key in model_keys]
    return Text(text.name, tuple(text.segments[i] for i in rows), model.documents, text.path,
                model.seg_ids, tuple(text.lines[i] for i in rows) if text.lines else (), text.doc_attributes)


def _mismatch(text: Text, model: Text, index: dict[tuple[str, str], int]) -> InputError:
    """The error for the first missing or extra document, else the first missing or extra segment."""
    docs, model_docs = set(text.documents.documents), set(model.documents.documents)
    note = "(SGML segments are matched by docid and seg id)"
    for doc in model.documents.documents:
        if doc not in docs:
            line = _line(model, doc)
            where = f" (first segment at {model.where}:{line})" if line else f" of {model.where}"
            return InputError(f"document {doc!r}{where} is missing {note}", text.where)
    for doc in text.documents.documents:
        if doc not in model_docs:
            return InputError(f"document {doc!r} is not in {model.where} {note}", text.where, _line(text, doc))
    model_index = set(model.keys())
    for i, key in enumerate(model.keys()):
        if key not in index:
            where = f"{model.where}:{model.lines[i]}" if model.lines else model.where
            return InputError(f"segment id {key[1]!r} of document {key[0]!r} ({where}) is missing {note}",
                              text.where)
    for i, key in enumerate(text.keys()):
        if key not in model_index:
            return InputError(f"segment id {key[1]!r} of document {key[0]!r} is not in {model.where} {note}",
                              text.where, text.lines[i] if text.lines else None)
    return InputError(f"segments do not match those of {model.where} {note}", text.where)


def _line(text: Text, doc: str) -> int | None:
    """The line of a document's first segment, when known."""
    rows = text.documents.rows(doc)
    return text.lines[int(rows[0])] if text.lines and len(rows) else None
