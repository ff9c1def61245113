"""Hand annotated sentences to the families that need them: every distinct segment of the
experiment is annotated once (the annotation layer deduplicates and caches), and the annotation
layer is imported only when such a family is requested."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mteval.errors import ConfigError
from mteval.experiment.config import ANNOTATION_KEYS
from mteval.experiment.spec import Experiment

if TYPE_CHECKING:
    from mteval.annotate.remote import RemoteParser



class AnnotationProvider:
    """Lazily annotates all texts of an experiment, once, and serves them per text."""

    def __init__(self, experiment: Experiment, texts: Mapping[str, Sequence[str]],
                 remote: RemoteParser | None = None, before_parsing: Callable[[], None] | None = None) -> None:
        self.experiment = experiment
        self.before_parsing = before_parsing  # a check run once, before a parser is loaded (iqsetup's)
        self.remote = remote  # parse there (a Dask cluster: mteval.setup.dask_engine)
        self.texts = dict(texts)
        self._annotator: Any = None
        self._sentences: dict[str, Any] = {}
        self._scores: dict[str, Any] = {}

    @property
    def annotator(self) -> Any:
        if self._annotator is None:
            from mteval.annotate.annotator import Annotator  # heavy: stanza/torch

            self.check()
            options = dict(self.experiment.annotation)
            unknown = set(options) - ANNOTATION_KEYS
            if unknown:
                raise ConfigError(f"key 'annotation': unknown keys {sorted(unknown)}; allowed: "
                                  f"{', '.join(sorted(ANNOTATION_KEYS))}", self.experiment.config_path)
            cache_dir = Path(options.pop("cache", self.experiment.cache / ".annotation"))
            self._annotator = Annotator(cache_dir, language=self.experiment.language, remote=self.remote, **options)
        return self._annotator

    def check(self) -> None:
        """Run the check given as ``before_parsing`` (once): before a parser is loaded, or earlier
        when the caller knows parsing is ahead (iqsetup, before it computes anything)."""
        check, self.before_parsing = self.before_parsing, None
        if check is not None:
            check()

    def add_text(self, name: str, segments: Sequence[str]) -> None:
        """Make one more text available (e.g. generated references); annotated on demand."""
        self.texts[name] = segments

    def _missing(self, table: dict[str, Any]) -> list[str]:
        return [s for s in dict.fromkeys(s for segs in self.texts.values() for s in segs) if s not in table]

    def identity(self) -> str:
        """Model identity for score signatures (computed without an annotator when none is made yet:
        no cache folder is created, no model loaded)."""
        if self._annotator is not None:
            return str(self._annotator.identity())
        from mteval.annotate.annotator import identity_of

        options = self.experiment.annotation
        return str(identity_of(self.experiment.language, options.get("model_paths"),
                               options.get("processors"), options.get("backend"), options.get("model"),
                               options.get("device")))

    def sentences(self, name: str, with_scores: bool = False) -> list[Any]:
        """Annotated sentences of one text (with parser arc scores when asked); every distinct
        segment of every known text is annotated in one batch the first time."""
        missing = self._missing(self._sentences)
        if missing:
            self._sentences.update(zip(missing, self.annotator.annotate(missing), strict=True))
        out = [self._sentences[s] for s in self.texts[name]]
        if not with_scores:
            return out
        missing = self._missing(self._scores)
        if missing:
            self._scores.update(zip(missing, self.annotator.arc_scores(missing), strict=True))
        return [dataclasses.replace(sent, scores=self._scores[s]) for sent, s in zip(out, self.texts[name],
                                                                                    strict=True)]


def with_device(experiment: Experiment, device: str | None) -> Experiment:
    """``experiment`` with ``annotation.device`` set to ``device`` (``iqsetup --device``; None: as
    configured), checked now (a GPU asked for but absent is one line before anything is written)."""
    if device is not None:
        experiment = dataclasses.replace(experiment, annotation={**experiment.annotation, "device": device})
    options = experiment.annotation
    wanted = options.get("device")
    if wanted is None or wanted in ("cpu", "auto"):  # auto falls back to the CPU: nothing can fail
        return experiment
    from mteval.annotate.backends import select
    from mteval.annotate.stanza_adapter import check_device, resolve_device

    what = "option --device" if device is not None else "annotation.device"
    check_device(wanted, what)
    if select(experiment.language, options.get("backend") or ("stanza" if options.get("model_paths") else None),
              options.get("model")) is None:  # Stanza (other backends say they run on the CPU)
        resolve_device(wanted, what)  # imports torch: only when a GPU is asked for
    return experiment
