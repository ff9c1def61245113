"""Load every text of an experiment once, align them, and fingerprint them.

Alignment (:mod:`mteval.io.align`): every SGML text takes the (docid, seg id) order of the first SGML
reference (with plain references: of the SGML source, else of the first SGML system), as mteval-v13a
matches segments by id; plain-text files align by line number with that order. The experiment's
documents are the model's; an experiment of plain files only has the documents of its ``docids``
file (WMT's one id a line), else Asiya's single ``UNKNOWN_DOC``. Document ids from a ``docids``
file count in every text's digest, so adding or editing one recomputes the cached scores (whose
document scores depend on them).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field

from mteval.errors import ConfigError
from mteval.experiment.spec import Experiment, TextSpec
from mteval.io.align import align_texts, model_of
from mteval.io.corpus import DocumentIndex, Text
from mteval.io.readers import read_docids, read_text


@dataclass(frozen=True)
class LoadedTexts:
    """The texts of an experiment: references and systems by name, in config order."""

    references: dict[str, Text]
    systems: dict[str, Text]
    source: Text | None
    documents: DocumentIndex
    _digests: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    doc_salt: str = field(default="", compare=False)  # digest of the docids file's ids ("" without one)

    def text(self, name: str) -> Text:
        return self.references[name] if name in self.references else self.systems[name]

    def digest(self, name: str) -> str:
        """sha256 of a text's segments (cached), so that an edited input file recomputes."""
        if name not in self._digests:
            h = hashlib.sha256()
            for segment in self.text(name).segments:
                h.update(segment.encode("utf-8"))
                h.update(b"\n")
            if self.doc_salt:  # only then: caches of texts without a docids file stay valid
                h.update(f"docids:{self.doc_salt}".encode())
            self._digests[name] = h.hexdigest()[:16]
        return self._digests[name]

    def __len__(self) -> int:
        return len(self.documents)


class _Reader:
    """Reads each (file, format, sysid) once: a file listed under several names shares its segments."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str | None, str | None], Text] = {}

    def __call__(self, spec: TextSpec) -> Text:
        key = (str(spec.path), spec.format, spec.sysid)
        if key not in self.seen:
            self.seen[key] = read_text(spec.path, spec.name, spec.format, spec.sysid)
        text = self.seen[key]
        return text if text.name == spec.name else dataclasses.replace(text, name=spec.name)


def load_texts(experiment: Experiment) -> LoadedTexts:
    """Read all texts of an experiment (each once) and align them (an :class:`InputError` if they cannot).

    The model order is the first SGML reference's; with plain references, the SGML source's (the
    canonical order of the test set, where mteval-v13a takes its documents from), else the first
    SGML system's.
    """
    _read = _Reader()
    references = [_read(spec) for spec in experiment.references]
    systems = [_read(spec) for spec in experiment.systems]
    source = [_read(experiment.source)] if experiment.source is not None else []
    model = model_of(references + source + systems)
    aligned = align_texts(references + systems + source, model)
    n_refs, n_sys = len(references), len(systems)
    documents = model.documents if model else (aligned[0].documents if aligned else DocumentIndex.single(0))
    salt = ""
    if experiment.docids is not None:
        documents = _documents_of(experiment, model, aligned)
        aligned = [dataclasses.replace(t, documents=documents) for t in aligned]
        salt = hashlib.sha256("\n".join(documents.doc_ids).encode("utf-8")).hexdigest()[:16]
    return LoadedTexts({t.name: t for t in aligned[:n_refs]}, {t.name: t for t in aligned[n_refs:n_refs + n_sys]},
                       aligned[-1] if source else None, documents, doc_salt=salt)


def _documents_of(experiment: Experiment, model: Text | None, aligned: list[Text]) -> DocumentIndex:
    """The documents of the ``docids`` file, one id for every segment of the (plain) texts."""
    spec = experiment.docids
    assert spec is not None
    if model is not None:
        raise ConfigError(f"key 'docids': {model.where} is SGML, which carries its own document ids; docids "
                          "is for plain texts", experiment.config_path)
    return read_docids(spec.path, spec.column, len(aligned[0]))
