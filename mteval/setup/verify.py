"""Refuse a score file that the current experiment and texts did not produce (issue 29): the rules
are in :mod:`mteval.setup.expected`. :func:`open_cache` gives the commands that only read the
cache (iqeval, ``mteval report``, ``mteval tune``) a :class:`~mteval.store.cache.ScoreCache` whose
every read is checked: a stale file stops the command with one line naming it and ``run iqsetup``.
The check costs no extra read: the attributes compared come with the parse iqeval does anyway.
"""

from __future__ import annotations

from pathlib import Path

from mteval.errors import ConfigError
from mteval.experiment.spec import Experiment
from mteval.experiment.texts import LoadedTexts
from mteval.metrics import registry
from mteval.metrics.base import MetricFamily
from mteval.setup.expected import MAX_SHOWN, Expected, Header, StaleFile, differences, with_generated
from mteval.store import refsets
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import ScoreFile, content_digest, parse

MAX_DEPTH = 2  # a learned metric's features are checked, not their features' features


class Verifier:
    """Checks each score file read against :class:`Expected` (module docstring of ``expected``)."""

    def __init__(self, expected: Expected, cache: ScoreCache) -> None:
        self.expected, self.cache = expected, cache
        experiment = expected.experiment
        self.configured = set(experiment.metrics)
        self.learned = {spec.name for spec in experiment.learned}
        self._families: dict[str, MetricFamily | None] = {}
        self._models: dict[str, tuple[str, dict[str, str]]] | None = None

    @property
    def hint(self) -> str:
        return f"run iqsetup {self.expected.experiment.config_path}"

    def __call__(self, path: Path, target: str, refset: str, metric: str, found: ScoreFile) -> None:
        """The check of every read (``ScoreCache.check``): StaleFile when the file does not match."""
        head = Header.of(found)
        problem = self.problem(head, target, refset, metric)
        if problem is not None:
            raise StaleFile(f"{problem}; {self.hint}", path)
        renamed = self._documents(found) if head.computed else None
        if renamed is not None:  # SGML docids renamed, texts the same: digests miss it, only -remake helps
            raise StaleFile(f"{renamed}; run iqsetup -remake {self.expected.experiment.config_path}", path)

    def problem(self, head: Header, target: str, refset: str, metric: str, depth: int = 0) -> str | None:
        """Why a file with this header cannot be shown as ``target``/``refset``/``metric``; None if it can."""
        family = self._family(metric)
        if not head.computed and (metric not in self.configured or family is None) and metric not in self.learned:
            return None  # a user's own file: read as it is, its name is its metric (IQMT manual §4.1.2)
        named = _named(head, target, refset, metric)
        if named is not None:
            return named
        if metric in self.learned or head.inputs.startswith("features:"):
            return self._derived(head, target, refset, metric, depth)
        if family is None:
            return None  # a user's own file: read as it is
        if not head.computed:
            return "not written by iqsetup (no signature) for a metric of the experiment"
        return self._computed(head, family, target, refset, metric)

    def _computed(self, head: Header, family: MetricFamily, target: str, refset: str, metric: str) -> str | None:
        if not head.digest:
            return "written by iqsetup but its digest was removed (edited by hand?)"
        wanted = self.expected.signature(family, metric)
        if head.signature != wanted:
            return f"computed with other settings ({differences(head.signature, wanted)})"
        return self._inputs(head, target, refsets.split(refset))

    def _inputs(self, head: Header, target: str, references: tuple[str, ...]) -> str | None:
        unknown = [n for n in (target, *references) if not self.expected.knows(n)]
        if unknown:
            return f"{unknown[0]!r} is not a text of this experiment"
        wanted = self.expected.inputs(target, references)
        if head.inputs == wanted:
            return None
        found, now = head.inputs.split("+"), wanted.split("+")
        changed = [n for n, a, b in zip((target, *references), found, now, strict=False) if a != b]
        if len(found) != len(now) or not changed:
            return "computed from other texts"
        return f"computed from other texts: {', '.join(changed)} changed (or the docids file) since"

    def _documents(self, found: ScoreFile) -> str | None:
        documents = self.expected.texts.documents.documents
        if tuple(found.scores.documents) != tuple(documents):
            return "its documents are not the experiment's (the document ids changed since)"
        return None

    def _family(self, metric: str) -> MetricFamily | None:
        if metric not in self._families:
            try:
                name = registry.family_of(metric)
            except ConfigError:
                self._families[metric] = None
            else:
                experiment = self.expected.experiment
                self._families[metric] = registry.create(name, experiment.case_sensitive, experiment.language)
        return self._families[metric]

    def _derived(self, head: Header, target: str, refset: str, metric: str, depth: int) -> str | None:
        """A learned or tuned metric: its model's signature (``learned:``), then its feature files."""
        from mteval.setup.learned import features_digest, weighted_features

        if not head.digest:
            return "written by mteval but its digest was removed (edited by hand?)"
        columns: dict[str, str] | None
        if metric in self.learned:
            signature, columns = self._model(metric)
            if head.signature != signature:
                return f"computed with another model ({differences(head.signature, signature)})"
        else:
            names = weighted_features(head.signature)
            columns = None if names is None else {n: n for n in names}
        if columns is None or depth >= MAX_DEPTH:
            return "a learned metric whose features cannot be checked"
        parts = {}
        for feature, cached in columns.items():
            part = self._feature(target, refset, cached, depth)
            if isinstance(part, str):
                return f"feature {cached}: {part}"
            parts[feature] = part[1]
        return None if features_digest(parts) == head.inputs else "computed from other feature scores"

    def _feature(self, target: str, refset: str, metric: str, depth: int) -> str | tuple[None, tuple[str, str]]:
        """A feature file's (inputs, content digest), or why it cannot be used."""
        path = self.cache.find(target, refset, metric)
        if path is None:
            return "no file"
        head = Header.read(path)
        problem = self.problem(head, target, refset, metric, depth + 1)
        if problem is not None:
            return problem
        digest = head.digest or content_digest(parse(path, len(self.expected.texts)).scores)
        return None, (head.inputs, digest)

    def _model(self, metric: str) -> tuple[str, dict[str, str]]:
        if self._models is None:
            from mteval.setup.learned import prepare

            _, models = prepare(self.expected.experiment)
            self._models = {m.name: (m.signature, dict(m.columns)) for m in models}
        return self._models[metric]

    def sweep(self, triples: list[tuple[str, str, str]]) -> list[tuple[Path, str]]:
        """Every stale file among ``triples`` (headers only): for the one-line summary."""
        out = []
        for target, refset, metric in triples:
            path = self.cache.find(target, refset, metric)
            if path is not None:
                problem = self.problem(Header.read(path), target, refset, metric)
                if problem is not None:
                    out.append((path, problem))
        return out

    def require(self, triples: list[tuple[str, str, str]]) -> None:
        """Refuse, in one line, a selection with a stale file (headers only: before any work)."""
        stale = self.sweep(triples)
        if stale:
            path, problem = stale[0]
            raise self.summary(StaleFile(f"{problem}; {self.hint}", path), triples, stale)

    def summary(self, first: StaleFile, triples: list[tuple[str, str, str]],
                stale: list[tuple[Path, str]] | None = None) -> StaleFile:
        """One line for every stale file of a selection (``first``: the one a read stopped at)."""
        stale = self.sweep(triples) if stale is None else stale
        if len(stale) <= 1:
            return first
        root = self.cache.root
        names = ", ".join(str(path.relative_to(root)) for path, _ in stale[:MAX_SHOWN])
        more = f" and {len(stale) - MAX_SHOWN} more" if len(stale) > MAX_SHOWN else ""
        return StaleFile(f"{len(stale)} score files do not match the experiment's current texts or settings "
                         f"({names}{more}; first: {first.problem})", root)


def _named(head: Header, target: str, refset: str, metric: str) -> str | None:
    """A file whose own ``metric``/``target``/``ref`` is another (copied or moved; a file mteval
    wrote names all three)."""
    for what, said, here in (("metric", head.metric, metric), ("target", head.target, target),
                             ("ref", head.refset, refset)):
        if said and said != here:
            return f"the file is {what} {said!r}, not {here!r} (copied or moved from elsewhere?)"
        if not said and head.computed:
            return f"written by mteval but its {what} attribute was removed"
    return None


def open_cache(experiment: Experiment, texts: LoadedTexts) -> ScoreCache:
    """The experiment's cache, every read checked against its current texts and settings."""
    cache = ScoreCache(experiment.cache, writer=str(Path(experiment.config_path).resolve()))
    cache.check = Verifier(with_generated(Expected(experiment, texts)), cache)
    return cache


def verifier_of(cache: ScoreCache) -> Verifier:
    """The :class:`Verifier` of a cache from :func:`open_cache`."""
    if not isinstance(cache.check, Verifier):
        raise TypeError("not a cache from open_cache")
    return cache.check
