"""Load every text of an experiment once, check that they align, and fingerprint them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from mteval.io.corpus import DocumentIndex, Text
from mteval.io.readers import check_aligned, read_text
from mteval.pipeline.config import Experiment, TextSpec


@dataclass(frozen=True)
class LoadedTexts:
    """The texts of an experiment: references and systems by name, in config order."""

    references: dict[str, Text]
    systems: dict[str, Text]
    source: Text | None
    documents: DocumentIndex
    _digests: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def text(self, name: str) -> Text:
        return self.references[name] if name in self.references else self.systems[name]

    def digest(self, name: str) -> str:
        """sha256 of a text's segments (cached), so that an edited input file recomputes."""
        if name not in self._digests:
            h = hashlib.sha256()
            for segment in self.text(name).segments:
                h.update(segment.encode("utf-8"))
                h.update(b"\n")
            self._digests[name] = h.hexdigest()[:16]
        return self._digests[name]

    def __len__(self) -> int:
        return len(self.documents)


def _read(spec: TextSpec) -> Text:
    return read_text(spec.path, spec.name, spec.format, spec.sysid)


def load_texts(experiment: Experiment) -> LoadedTexts:
    """Read all texts of an experiment (each once) and check alignment."""
    references = {spec.name: _read(spec) for spec in experiment.references}
    systems = {spec.name: _read(spec) for spec in experiment.systems}
    source = _read(experiment.source) if experiment.source is not None else None
    everything = list(references.values()) + list(systems.values()) + ([source] if source else [])
    check_aligned(everything)
    # plain-text files carry no documents: take them from any SGML file of the experiment
    documents = next((t.documents for t in everything if t.documents.documents != ("UNKNOWN_DOC",)),
                     everything[0].documents)
    return LoadedTexts(references, systems, source, documents)
