"""Named-entity spans from per-word BIO/BIOES tags (expected spans written out)."""

from __future__ import annotations

import pytest

from mteval.annotate.layers.entities import Entity, entities, entity_of_word
from mteval.annotate.model import Sentence, Word


def _sentence(tags: list[str]) -> Sentence:
    return Sentence(tuple(Word(i + 1, f"w{i + 1}", ner=t) for i, t in enumerate(tags)))


@pytest.mark.parametrize("tags, expected", [
    (["B-PER", "E-PER", "O", "S-GPE"], [Entity("PER", 1, 2), Entity("GPE", 4, 4)]),
    (["B-PER", "I-PER", "I-PER", "O"], [Entity("PER", 1, 3)]),
    (["B-ORG", "B-ORG", "O"], [Entity("ORG", 1, 1), Entity("ORG", 2, 2)]),
    (["I-LOC", "I-LOC", "B-PER"], [Entity("LOC", 1, 2), Entity("PER", 3, 3)]),   # I- opens an entity
    (["B-LOC", "I-PER"], [Entity("LOC", 1, 1), Entity("PER", 2, 2)]),              # type change closes
    (["O", "O"], []),
    ([], []),
])
def test_entities(tags: list[str], expected: list[Entity]) -> None:
    assert entities(_sentence(tags)) == expected


def test_entity_of_word() -> None:
    assert entity_of_word(_sentence(["B-PER", "E-PER", "O", "S-GPE"])) == ["PER", "PER", "O", "GPE"]
