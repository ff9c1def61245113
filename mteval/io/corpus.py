"""The in-memory shape of one text of a test set: segments in order, with their document ids."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class DocumentIndex:
    """Document id of every segment (``doc_ids[i]`` for segment ``i+1``), documents in first-seen order.

    Plain-text input has one document, ``UNKNOWN_DOC``, as in Asiya's raw-text mode.
    """

    doc_ids: tuple[str, ...]
    _rows: dict[str, np.ndarray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rows: dict[str, list[int]] = {}
        for i, doc in enumerate(self.doc_ids):
            rows.setdefault(doc, []).append(i)
        object.__setattr__(self, "_rows", {d: np.asarray(r, dtype=np.intp) for d, r in rows.items()})

    @classmethod
    def single(cls, n_segments: int, doc_id: str = "UNKNOWN_DOC") -> DocumentIndex:
        return cls(tuple([doc_id] * n_segments))

    @property
    def documents(self) -> tuple[str, ...]:
        return tuple(self._rows)

    def rows(self, doc_id: str) -> np.ndarray:
        """0-based segment indices of one document."""
        return self._rows[doc_id]

    def __len__(self) -> int:
        return len(self.doc_ids)


@dataclass(frozen=True)
class Text:
    """One system output, reference or source: its name, segments and documents.

    SGML texts also carry each segment's ``<seg id>`` (``seg_ids``; with ``documents.doc_ids`` the key
    that aligns texts, as mteval-v13a matches by docid and seg id) and the file line it was read from
    (``lines``, for error messages). Plain texts have neither (empty tuples): they align by position.
    ``doc_attributes``: an SGML document's ``origlang``, ``genre`` and ``domain`` (those it carries),
    by docid, as the file has them (:mod:`mteval.experiment.doc_sets` makes segment sets of them).
    """

    name: str
    segments: tuple[str, ...]
    documents: DocumentIndex
    path: str = ""
    seg_ids: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    doc_attributes: Mapping[str, Mapping[str, str]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.segments) != len(self.documents):
            raise ValueError(f"{self.name}: {len(self.segments)} segments but {len(self.documents)} doc ids")
        for extra in (self.seg_ids, self.lines):
            if extra and len(extra) != len(self.segments):
                raise ValueError(f"{self.name}: {len(self.segments)} segments but {len(extra)} ids or lines")

    @property
    def keyed(self) -> bool:
        """Whether segments have (docid, seg id) keys (SGML) rather than only positions (plain text)."""
        return bool(self.seg_ids)

    def keys(self) -> list[tuple[str, str]]:
        """``(docid, seg id)`` of every segment (SGML texts only)."""
        return list(zip(self.documents.doc_ids, self.seg_ids, strict=True))

    @property
    def where(self) -> str:
        """The file (or name) to cite in messages."""
        return self.path or self.name

    def __len__(self) -> int:
        return len(self.segments)


def texts_of(items: Sequence[Text]) -> list[tuple[str, ...]]:
    """The segment tuples of several texts (for multi-reference scoring)."""
    return [t.segments for t in items]
