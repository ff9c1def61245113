"""Parametric metric names (mteval.metrics.parameters): one canonical name per computation."""

from __future__ import annotations

import pytest

from mteval.errors import ConfigError
from mteval.metrics import parameters
from mteval.metrics.parameters import Parameter

PARAMS = {
    "tok": Parameter("tok", "13a", choices=("13a", "intl", "none")),
    "order": Parameter("order", "4", kind="int", low=1, high=6),
    "eff": Parameter("eff", "no", choices=("yes", "no")),
    "k": Parameter("k", "1.0", kind="float", low=0),
}


def test_split_reads_only_key_value_parentheses() -> None:
    assert parameters.split("sacreBLEU(tok=intl, order=5)") == ("sacreBLEU", (("tok", "intl"), ("order", "5")))
    assert parameters.split("chrF()") == ("chrF", ())
    assert parameters.split("SP-Op(*)") is None
    assert parameters.split("SR-Or(*)_b") is None
    assert parameters.split("BLEU") is None


def test_canonical_orders_normalises_and_drops_defaults() -> None:
    assert parameters.canonical("B", (("order", "5"), ("tok", "intl")), PARAMS) == "B(tok=intl,order=5)"
    assert parameters.canonical("B", (("tok", "13a"), ("eff", "false")), PARAMS) == "B"
    assert parameters.canonical("B", (("eff", "TRUE"), ("k", "2")), PARAMS) == "B(eff=yes,k=2.0)"
    assert parameters.canonical("B", (), PARAMS) == "B"


@pytest.mark.parametrize(("pairs", "message"), [
    ((("tok", "zz"),), "tok=zz is not one of 13a, intl, none"),
    ((("order", "7"),), "order=7 is outside int 1..6"),
    ((("order", "x"),), "order=x is not an integer"),
    ((("size", "1"),), "unknown parameter 'size'; 'B' takes tok, order, eff, k"),
    ((("tok", "intl"), ("tok", "none")), "parameter 'tok' given twice"),
])
def test_bad_parameters_are_one_line_errors(pairs: tuple[tuple[str, str], ...], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parameters.canonical("B", pairs, PARAMS)


def test_settings_fill_defaults() -> None:
    assert parameters.settings("B(order=5)", PARAMS) == ("B", {"tok": "13a", "order": "5", "eff": "no", "k": "1.0"})
    assert parameters.settings("B", PARAMS)[1]["order"] == "4"


def test_a_metric_without_parameters_refuses_them() -> None:
    with pytest.raises(ConfigError, match="takes no parameters"):
        parameters.canonical("BLEU-4", (("order", "5"),), {})


def test_a_variants_own_default_and_the_family_choosing_the_name() -> None:
    """chrF++'s word_order defaults to 2, chrF's to 0 (MetricFamily.variant_defaults); the family
    names the variant of a computation two spellings share (MetricFamily.canonical_name)."""
    from mteval.metrics import registry

    chrf = registry.families()["chrF"]
    assert chrf.settings("chrF++(beta=3)")[1]["word_order"] == "2"
    assert chrf.settings("chrF(beta=3)")[1]["word_order"] == "0"
    assert registry.canonical("chrF++(word_order=2,beta=3)") == "chrF++(beta=3)"
    assert registry.canonical("chrF(word_order=2,beta=3)") == "chrF++(beta=3)"
    assert registry.canonical("sacreBLEU(order=4)") == "sacreBLEU"  # a family without either: as before
