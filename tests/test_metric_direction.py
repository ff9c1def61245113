"""One direction rule (``registry.higher_is_better``) for every name a user can write: a variant, an
alias, a parametric spelling, Asiya's negated error rates, and a user's own metric. A wrong
direction silently inverts rankings, correlations' signs and KING's votes."""

from __future__ import annotations

import pytest

from mteval.metrics import registry


def every_name() -> list[str]:
    variants, _, aliases = registry._names()
    return sorted({*variants, *aliases, *aliases.values()})


def test_every_name_has_its_canonical_variants_direction() -> None:
    names = every_name()
    assert len(names) > 500
    for name in names:
        family = registry.create(registry.family_of(name))
        assert registry.higher_is_better(name) is family.info(registry.canonical(name)).higher_is_better, name


@pytest.mark.parametrize(("name", "higher"), [
    ("WER", False), ("TER", False), ("PER", False), ("-WER", True), ("-TER", True), ("-PER", True),
    ("BLEU", True), ("BLEU-4", True), ("NIST", True), ("METEOR-ex", True), ("chrF", True), ("EDPM", True),
    ("TER(normalized=true)", False), ("TER(normalized=yes)", False), ("my-own-metric", True),
])
def test_known_directions(name: str, higher: bool) -> None:
    assert registry.higher_is_better(name) is higher


def test_error_rates_and_their_negations_are_opposite() -> None:
    for name in every_name():
        if name.startswith("-") and name[1:] in every_name():
            assert registry.higher_is_better(name) is not registry.higher_is_better(name[1:]), name
