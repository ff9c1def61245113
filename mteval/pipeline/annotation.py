"""Hand annotated sentences to the families that need them: every distinct segment of the
experiment is annotated once (the annotation layer deduplicates and caches), and the annotation
layer is imported only when such a family is requested."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mteval.pipeline.config import Experiment


class AnnotationProvider:
    """Lazily annotates all texts of an experiment, once, and serves them per text."""

    def __init__(self, experiment: Experiment, texts: dict[str, Sequence[str]]) -> None:
        self.experiment = experiment
        self.texts = texts
        self._annotator: Any = None
        self._sentences: dict[str, Any] | None = None
        self._scores: dict[str, Any] | None = None

    @property
    def annotator(self) -> Any:
        if self._annotator is None:
            from mteval.annotate.annotator import Annotator  # heavy: stanza/torch

            options = dict(self.experiment.annotation)
            cache_dir = Path(options.pop("cache", self.experiment.cache / ".annotation"))
            self._annotator = Annotator(cache_dir, language=self.experiment.language, **options)
        return self._annotator

    def _distinct(self) -> list[str]:
        return list(dict.fromkeys(s for segs in self.texts.values() for s in segs))

    def identity(self) -> str:
        """Model identity for score signatures."""
        return str(self.annotator.identity())

    def sentences(self, name: str, with_scores: bool = False) -> list[Any]:
        """Annotated sentences of one text (with parser arc scores when asked)."""
        if self._sentences is None:
            distinct = self._distinct()
            self._sentences = dict(zip(distinct, self.annotator.annotate(distinct), strict=True))
        if with_scores and self._scores is None:
            distinct = self._distinct()
            self._scores = dict(zip(distinct, self.annotator.arc_scores(distinct), strict=True))
        out = [self._sentences[s] for s in self.texts[name]]
        if with_scores:
            assert self._scores is not None
            out = [dataclasses.replace(sent, scores=self._scores[s]) for sent, s in zip(out, self.texts[name],
                                                                                        strict=True)]
        return out
