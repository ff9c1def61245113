"""sacreBLEU's own tests, ported: sacreBLEU(...), chrF(...) and TER(...) against its expected values.

The cases are ``tests/data/sacrebleu_parity/cases.json`` (written by ``make_cases.py`` there): the
tables of sacreBLEU v2.6.0's ``test/test_bleu.py``, ``test_sentence_bleu.py``, ``test_chrf.py``,
``test_ter.py`` and ``test_tokenizer_ter.py`` (github.com/mjpost/sacrebleu, commit 2277cac,
Apache-2.0), each with its test's tolerance, and values computed with sacreBLEU 2.6.0 for what those
tests leave out (the intl, zh, char and MeCab tokenisers, orders, smoothing, case). Nothing here
imports sacreBLEU. The MeCab cases are skipped when MeCab is not installed (``mteval[ja]``, ``mteval[ko]``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mteval.errors import ConfigError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry, sacre_tokenizers
from mteval.metrics.base import ScoreSet, Side, StatsFamily
from mteval.metrics.sacrebleu_bleu import SacreBleu

ROOT = Path(__file__).resolve().parents[1]
CASES = json.loads((ROOT / "tests" / "data" / "sacrebleu_parity" / "cases.json").read_text(encoding="utf-8"))
PORTED, COMPUTED = CASES["ported"], CASES["computed"]


def _needs_mecab(name: str) -> None:
    """Skip (with the reason) a case of a MeCab tokeniser when MeCab or its dictionary is missing."""
    for tok in ("ja-mecab", "ko-mecab"):
        if tok in name:
            try:
                sacre_tokenizers.bleu_tokenizer(tok)
            except ConfigError as missing:
                pytest.skip(str(missing))


def scored(metric: str, hyps: list[str], refs: list[list[str]]) -> ScoreSet:
    """``metric``'s scores of ``hyps`` against the reference streams ``refs`` (the family's defaults)."""
    _needs_mecab(metric)
    name = registry.canonical(metric)
    family = registry.create(registry.family_of(metric))
    prepared = family.prepare([Side(f"ref{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("hyp", hyps), prepared, DocumentIndex(("d",) * len(hyps)), [name])[name]


def _texts(case: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """A case's hypotheses and references: given, or the first lines of the bundled files it names."""
    files = case.get("files")
    if files is None:
        return case["hyps"], case["refs"]

    def read(path: str) -> list[str]:
        return (ROOT / path).read_text(encoding="utf-8").split("\n")[:files["lines"]]

    return read(files["hyps"]), [read(r) for r in files["refs"]]


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    return [f"{k}-{c['test'].split('::')[-1]}-{c.get('metric', c.get('tokenizer'))}" for k, c in enumerate(cases)]


@pytest.mark.parametrize("case", PORTED["scores"] + COMPUTED["scores"], ids=_ids(PORTED["scores"] + COMPUTED["scores"]))
def test_score_equals_sacrebleus(case: dict[str, Any]) -> None:
    hyps, refs = _texts(case)
    scores = scored(case["metric"], hyps, refs)
    value = scores.system if case["level"] == "sys" else float(scores.segments[0])
    assert abs(value * case["scale"] - case["expected"]) <= case["tol"], (case["test"], value)


@pytest.mark.parametrize("case", PORTED["statistics"], ids=_ids(PORTED["statistics"]))
def test_statistics_and_scores_of_statistics(case: dict[str, Any]) -> None:
    name = registry.canonical(case["metric"])
    family = SacreBleu()
    if "stats" in case:  # sacreBLEU's BLEU.compute_bleu of given statistics
        value = family.score_from_stats(np.asarray(case["stats"], dtype=np.float64), name)
        assert abs(value - case["expected"]) <= case["tol"], case["test"]
        return
    stats = scored(case["metric"], case["hyps"], case["refs"]).stats
    assert stats is not None
    summed = stats.sum(axis=0)
    order = len(case["correct"])
    assert summed[2:2 + order].tolist() == case["correct"] and summed[2 + order:].tolist() == case["total"]


@pytest.mark.parametrize("case", PORTED["tokens"] + COMPUTED["tokens"], ids=_ids(PORTED["tokens"] + COMPUTED["tokens"]))
def test_tokenizers_equal_sacrebleus(case: dict[str, Any]) -> None:
    if case["tokenizer"] == "tercom":
        assert sacre_tokenizers.tercom(case["input"], **case["options"]) == case["expected"]
        return
    _needs_mecab(case["tokenizer"])
    assert sacre_tokenizers.bleu_tokenizer(case["tokenizer"])(case["input"]) == case["expected"]


@pytest.mark.parametrize("metric", sorted(COMPUTED["signatures"]))
def test_mecab_signatures(metric: str) -> None:
    _needs_mecab(metric)
    signature = SacreBleu().signature(registry.canonical(metric))
    assert f"|tok:{COMPUTED['signatures'][metric]}|" in signature


def test_a_missing_mecab_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "MeCab", None)  # import MeCab raises ImportError
    sacre_tokenizers._mecab.cache_clear()
    monkeypatch.setattr(sacre_tokenizers, "_LOADED", {})
    try:
        with pytest.raises(ConfigError, match=r"tokenizer ja-mecab needs MeCab .*pip install 'mteval\[ja\]'"):
            SacreBleu().signature("sacreBLEU(tok=ja-mecab)")
    finally:
        sacre_tokenizers._mecab.cache_clear()


def test_default_signature_is_sacrebleus() -> None:
    family = SacreBleu()
    assert family.signature("sacreBLEU").startswith(
        "case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0|metric:sacreBLEU|")
    assert family.signature("sacreBLEU(smooth=floor,eff=yes)").startswith(
        "case:mixed|eff:yes|tok:13a|smooth:floor[0.10]|")
    assert "|smooth:add-k[2.50]|" in family.signature("sacreBLEU(smooth=add-k,smooth_value=2.5)")
    assert SacreBleu(case_sensitive=False).signature("sacreBLEU").startswith("case:lc|")
    assert family.settings_of(registry.canonical("sacreBLEU(lc=yes)")).lowercase


def test_smooth_value_without_a_method_that_uses_it_is_refused() -> None:
    with pytest.raises(ConfigError, match="smooth_value is used by smooth=floor or add-k only"):
        SacreBleu().signature(registry.canonical("sacreBLEU(smooth_value=0.5)"))


def test_canonical_names() -> None:
    assert registry.canonical("sacreBLEU(lc=no,tok=13a,order=4)") == "sacreBLEU"
    assert registry.canonical("sacreBLEU(eff=true,tok=intl)") == "sacreBLEU(tok=intl,eff=yes)"
    assert registry.canonical("chrF(beta=2)") == "chrF" and registry.canonical("chrF++(beta=3)") == "chrF++(beta=3)"
    assert registry.canonical("-TER(normalized=1)") == "-TER(normalized=yes)"
    with pytest.raises(ConfigError, match="order=7 is outside int 1..6"):
        registry.expand(["sacreBLEU(order=7)"])
    with pytest.raises(ConfigError, match=r"tok=moses is not one of 13a, none, intl, .*, spBLEU-1K \(or spm\)$"):
        registry.expand(["sacreBLEU(tok=moses)"])
    assert registry.canonical("sacreBLEU(tok=spm)") == "sacreBLEU(tok=flores101)"  # sacreBLEU's older name


def test_each_variant_reads_its_own_statistics_columns() -> None:
    """Variants of one tokenisation share one pass at the highest order; each keeps its own columns,
    scored as alone; a matrix of another order is refused."""
    hyps, refs = ["the cat sat on the mat today", "a b c"], [["the cat sat on a mat today", "a b d"]]
    family = SacreBleu()
    prepared = family.prepare([Side("r", refs[0])])
    names = ["sacreBLEU(order=2)", "sacreBLEU(order=6)", "sacreBLEU(tok=char)"]
    together = family.score(Side("h", hyps), prepared, DocumentIndex(("d", "d")), names)
    for name in names:
        alone, stats = scored(name, hyps, refs), together[name].stats
        assert together[name].system == alone.system and stats is not None and alone.stats is not None
        assert np.array_equal(stats, alone.stats)
    six = together["sacreBLEU(order=6)"].stats
    assert six is not None and six.shape == (2, 14)
    with pytest.raises(ValueError, match="order 4 has 10"):
        family.scores_from_stats(six, "sacreBLEU")
    assert isinstance(family, StatsFamily)


def test_zero_matches_give_zero_where_mteval_v13a_smooths() -> None:
    """sacreBLEU's BLEU is 0 when nothing matches (#141); mteval-v13a's BLEU smooths every order."""
    hyps, refs = ["this is a cat"], [["okay thanks"]]
    assert scored("sacreBLEU", hyps, refs).system == 0.0
    assert scored("BLEU", hyps, refs).system > 0.0
