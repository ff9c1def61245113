"""Named entities as typed word spans, read from the per-word ``Word.ner`` tags.

Accepted tag schemes (the type after the dash is kept as given, e.g. ``PERSON``, ``PER``):

============  =============================================================
tag           meaning
============  =============================================================
``O``         outside any entity
``B-T``       first word of an entity of type T (BIO and BIOES)
``I-T``       inside an entity of type T (continues an open T entity)
``E-T``       last word of an entity of type T (BIOES)
``S-T``       a one-word entity of type T (BIOES)
``U-T``/``L-T`` BILOU spellings of ``S-T``/``E-T``
============  =============================================================

Ill-formed sequences are repaired the way ``conlleval`` reads them: an ``I-T``/``E-T`` that does
not continue an open entity of type T starts a new one; a type change closes the open entity.
"""

from __future__ import annotations

from dataclasses import dataclass

from mteval.annotate.model import Sentence

_START = {"B", "S", "U"}
_END = {"E", "S", "L", "U"}


@dataclass(frozen=True)
class Entity:
    """A named entity: its type and the 1-based ids of its first and last words (inclusive)."""

    type: str
    start: int
    end: int

    def word_ids(self) -> range:
        """The 1-based ids of the entity's words."""
        return range(self.start, self.end + 1)


def _split(tag: str) -> tuple[str, str]:
    """``B-PER`` -> (``B``, ``PER``); ``O`` or ``_`` -> (``O``, ``""``)."""
    if tag in ("O", "_", ""):
        return "O", ""
    prefix, sep, etype = tag.partition("-")
    if not sep:
        return "B", tag  # a bare type: a one-word chunk start
    return prefix.upper(), etype


def entities(sentence: Sentence) -> list[Entity]:
    """Typed entity spans of a sentence, left to right (see the module docstring for the rules)."""
    found: list[Entity] = []
    open_type, open_start = "", 0
    for word in sentence.words:
        prefix, etype = _split(word.ner)
        if prefix == "O":
            if open_type:
                found.append(Entity(open_type, open_start, word.id - 1))
            open_type = ""
            continue
        continues = open_type == etype and prefix not in _START
        if not continues:
            if open_type:
                found.append(Entity(open_type, open_start, word.id - 1))
            open_type, open_start = etype, word.id
        if prefix in _END:
            found.append(Entity(open_type, open_start, word.id))
            open_type = ""
    if open_type:
        found.append(Entity(open_type, open_start, len(sentence)))
    return found


def entity_of_word(sentence: Sentence) -> list[str]:
    """Entity type of every word (``O`` outside entities), in word order."""
    types = ["O"] * len(sentence)
    for ent in entities(sentence):
        for i in ent.word_ids():
            types[i - 1] = ent.type
    return types
