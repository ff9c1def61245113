"""Parsing elsewhere: what the annotator hands to a remote parse engine (a Dask cluster:
:mod:`mteval.setup.dask_engine`), and what it gets back. The engine receives the texts and
the identity of the models, never model files: each worker finds the models in its own
installation and must have the same ones."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from mteval.annotate.model import ArcScores, Sentence

Parsed = list[tuple[Sentence, ArcScores | None]]


@dataclass(frozen=True)
class ModelSpec:
    """What a worker needs to find the client's models in its own installation."""

    language: str
    processors: tuple[str, ...]
    model_paths: tuple[tuple[str, str], ...]  # the experiment's explicit model files (same path on workers)
    identity: str  # the client's model identity (file hashes): a worker's must be the same


class RemoteParser(Protocol):
    """Parses batches of texts somewhere else (one text per call, as here: the same parses)."""

    def threads(self) -> int:
        """Parallel slots: what the batches are cut for."""

    def parse(self, spec: ModelSpec, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, Parsed]]:
        """``(batch index, parsed batch)`` in completion order."""
