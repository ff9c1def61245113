"""What a score file must say of itself before its numbers are shown (issue 29; docs/reliability.md,
"What iqeval verifies").

iqsetup writes into every file the ``signature`` of the settings that computed it (metric, family
version, options such as ``case:``, the annotation models), the ``inputs`` it was computed from
(a digest of the target's and each reference's text; a ``docids`` file's ids count in it) and a
``digest`` of its values, beside its own ``metric``, ``target`` and ``ref``. :class:`Expected`
computes the first two exactly as iqsetup does (iqsetup itself asks it: one definition), from the
experiment and the texts iqeval reads anyway; :class:`Verifier` compares them with every file read
through the cache, so that a file left from other texts or settings, from another experiment
sharing the cache, or copied to another folder or name is refused, never shown.

Which files are checked how:

- a metric of the experiment (``metrics:``, ``learned:``): must be a current iqsetup file;
- a registered metric no longer in ``metrics:`` whose file carries a signature: checked the same
  way (shown only while it is current);
- a learned or tuned metric (``inputs="features:..."``): its signature must be the model's (for
  ``learned:``) and its inputs the digest of its feature files, each itself current;
- a file with no ``signature``, ``inputs`` or ``digest`` is a user's own (IQMT, Asiya, a script):
  read as it is, its ``metric``/``target``/``ref`` attributes compared where present.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mteval.errors import CacheError, ConfigError
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.metrics import registry
from mteval.metrics.base import MetricFamily
from mteval.store.iqxml import ScoreFile, header

MAX_SHOWN = 3  # stale files named in the one-line error


class StaleFile(CacheError):
    """A score file that the current experiment and texts did not produce."""


@dataclass(frozen=True)
class Header:
    """What a score file says of itself (its root's attributes)."""

    metric: str
    target: str
    refset: str
    signature: str
    inputs: str
    digest: str

    @classmethod
    def of(cls, found: ScoreFile) -> Header:
        return cls(found.metric, found.target, found.refset, found.signature, found.inputs, found.digest)

    @classmethod
    def read(cls, path: Path) -> Header:
        """From the file's first bytes only (:func:`mteval.store.iqxml.header`)."""
        root = header(path)
        return cls(root.get("metric", ""), root.get("target") or root.get("hyp", ""), root.get("ref", ""),
                   root.get("signature", ""), root.get("inputs", ""), root.get("digest", ""))

    @property
    def computed(self) -> bool:
        """Written by mteval (iqsetup, a learned or tuned metric), not dropped in by a user."""
        return bool(self.signature or self.inputs or self.digest)


def text_digest(segments: Sequence[str]) -> str:
    """The digest of a generated text (a hybridized reference), as iqsetup records it."""
    return hashlib.sha256("\n".join(segments).encode()).hexdigest()[:16]


class Expected:
    """The ``signature`` and ``inputs`` iqsetup writes now for an experiment's files."""

    def __init__(self, experiment: Experiment, texts: LoadedTexts, identity: Callable[[], str] | None = None) -> None:
        self.experiment, self.texts = experiment, texts
        self._identity_of = identity or _identity_function(experiment)
        self._identity: str | None = None
        self.generated: dict[str, Sequence[str]] = {}  # generated texts (a hybridized set's NAME.1 ...)
        self.groups: dict[str, list[str]] = {}  # a reference-set member standing for several generated texts

    def add_group(self, name: str, texts: Mapping[str, Sequence[str]]) -> None:
        """Register generated parallel texts (``name.1`` ...) as one reference-set member."""
        self.generated.update(texts)
        self.groups[name] = list(texts)

    def identity(self) -> str:
        """The annotation models' identity (computed once, when a syntactic family first asks)."""
        if self._identity is None:
            self._identity = self._identity_of()
        return self._identity

    def signature(self, family: MetricFamily, variant: str) -> str:
        """The stored signature of a requested name: that of the canonical variant it denotes."""
        signature = family.signature(registry.canonical(variant))
        if family.needs_annotation:
            try:
                signature += f"|annotation:{self.identity()}"
            except ConfigError as exc:  # no Stanza (a lexical-only install), no model for the language
                raise ConfigError(f"metric {variant!r}: {exc.problem}", exc.path, exc.line) from None
        return signature

    def digest(self, name: str) -> str:
        if name in self.groups:
            return hashlib.sha256("".join(self.digest(m) for m in self.groups[name]).encode()).hexdigest()[:16]
        if name in self.generated:
            return text_digest(self.generated[name])
        return self.texts.digest(name)

    def inputs(self, target: str, references: Sequence[str]) -> str:
        return "+".join(self.digest(n) for n in (target, *references))

    def knows(self, name: str) -> bool:
        return name in self.groups or name in self.texts.references or name in self.texts.systems


def _identity_function(experiment: Experiment) -> Callable[[], str]:
    def identity() -> str:
        from mteval.setup.annotation import AnnotationProvider

        return AnnotationProvider(experiment, {}).identity()

    return identity


def with_generated(expected: Expected) -> Expected:
    """``expected`` with the experiment's hybridized reference set read from ``CACHE/.hybrid``
    (what iqsetup generated; absent before the first iqsetup: files against it are then refused)."""
    from mteval.experiment.hybrid_set import spec_of
    from mteval.setup.hybrid import read_generated

    spec = spec_of(expected.experiment)
    if spec is None:
        return expected
    texts = read_generated(Path(expected.experiment.cache) / ".hybrid", spec.name)
    if texts:
        expected.add_group(spec.name, texts)
    return expected


def differences(found: str, wanted: str) -> str:
    """The parts of two ``|``-joined signatures that differ, as ``file: ...; now: ...``."""
    a, b = found.split("|"), wanted.split("|")
    old = [p for p in a if p not in b] or ["?"]
    new = [p for p in b if p not in a] or ["?"]
    return f"{' '.join(old)[:120]} in the file, {' '.join(new)[:120]} now"
