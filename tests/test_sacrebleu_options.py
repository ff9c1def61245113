"""How sacreBLEU's options as parameters meet mteval: signatures, the experiment's case, shared passes.

The plain names keep their signatures (and numbers: the byte-identical check is in the report of
issue 33); a parametric name's signature adds its settings; ``case: ci`` lower-cases, as
``lc=yes`` / the TER default do, and ``TER(case_sensitive=yes)`` keeps case whatever the experiment's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import SHARED

from mteval import __version__
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import ScoreSet, Side
from mteval.metrics.chrf import ChrF
from mteval.metrics.sacrebleu_bleu import SacreBleu
from mteval.metrics.ter import TER

HYPS = ["The Cat sat on THE mat .", "Hello , World !"]
REFS = [["the cat sat on the mat.", "hello world!"], ["A cat was sitting on the mat .", "Hi , world !"]]


def score(family: Any, names: list[str], refs: list[list[str]] = REFS) -> dict[str, ScoreSet]:
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("h", HYPS), prepared, DocumentIndex(("a", "b")), names)


def test_plain_signatures_are_unchanged_and_parametric_ones_add_their_settings() -> None:
    assert ChrF().signature("chrF++") == f"metric:chrF++|family:chrF|v:3|case:cs|mteval:{__version__}"
    assert TER().signature("-TER") == f"metric:-TER|family:TER|v:2|case:ci|mteval:{__version__}"
    assert ChrF().signature("chrF(beta=3)").endswith("|beta:3|eps_smoothing:no|whitespace:no")
    assert TER().signature("TER(case_sensitive=yes)") == (
        f"metric:TER(case_sensitive=yes)|family:TER|v:2|case:cs|mteval:{__version__}"
        "|normalized:no|no_punct:no|asian_support:no|case_sensitive:yes")


def test_ter_case_sensitive_parameter_and_the_experiments_case() -> None:
    lowered = score(TER(), ["TER", "TER(case_sensitive=yes)", "-TER(case_sensitive=yes)"])
    kept = score(TER(case_sensitive=True), ["TER", "TER(case_sensitive=yes)"])
    assert lowered["TER"].system < lowered["TER(case_sensitive=yes)"].system
    assert lowered["-TER(case_sensitive=yes)"].system == -lowered["TER(case_sensitive=yes)"].system
    assert kept["TER"].system == kept["TER(case_sensitive=yes)"].system == lowered["TER(case_sensitive=yes)"].system


def test_case_ci_lower_cases_sacrebleu_and_chrf() -> None:
    mixed, lowered = score(SacreBleu(), ["sacreBLEU", "sacreBLEU(lc=yes)"]), score(SacreBleu(False), ["sacreBLEU"])
    assert mixed["sacreBLEU"].system < mixed["sacreBLEU(lc=yes)"].system == lowered["sacreBLEU"].system
    assert score(ChrF(False), ["chrF(beta=3)"])["chrF(beta=3)"].system > score(ChrF(), ["chrF(beta=3)"])[
        "chrF(beta=3)"].system


def test_chrf_variants_scored_together_equal_each_alone() -> None:
    names = ["chrF", "chrF++", "chrF(beta=3)", "chrF++(eps_smoothing=yes)", "chrF(whitespace=yes)",
             "chrF++(beta=1,whitespace=yes)"]
    together = score(ChrF(), names)
    for name in names:
        alone = score(ChrF(), [name])[name]
        assert together[name].system == alone.system and _same(together[name].stats, alone.stats)
    assert _columns(together["chrF"]) == 18 and _columns(together["chrF++(eps_smoothing=yes)"]) == 24
    assert len({round(together[n].system, 9) for n in names}) == len(names)


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return a is not None and b is not None and np.array_equal(a, b)


def _columns(scores: ScoreSet) -> int:
    assert scores.stats is not None
    return int(scores.stats.shape[1])


def test_chrf_statistics_without_a_variant_keep_their_layout() -> None:
    family = ChrF()
    prepared = family.prepare([Side("r", REFS[0])])
    stats = family.segment_stats(Side("h", HYPS), prepared)
    assert stats.shape == (2, 42)
    assert family.score_from_stats(stats.sum(axis=0), "chrF++") == pytest.approx(
        score(family, ["chrF++"], REFS[:1])["chrF++"].system, abs=0)


def test_ter_options_change_the_tokens() -> None:
    scores = score(TER(), ["TER", "TER(normalized=yes)", "TER(no_punct=yes)"], REFS[:1])
    assert scores["TER(no_punct=yes)"].system < scores["TER"].system
    assert scores["TER(normalized=yes)"].system < scores["TER"].system


@pytest.mark.parametrize("options", [{"normalized": True}, {"no_punct": True}, {"normalized": True, "no_punct": True},
                                     {"normalized": True, "asian_support": True}])
def test_ter_references_are_tokenised_twice_as_sacrebleu_does(options: dict[str, bool]) -> None:
    """sacreBLEU 2.6.0 preprocesses references twice for TER, and tercom's normalisation is not
    idempotent (``he's,`` -> ``he's ,`` -> ``he 's ,``): the same segment scores (WMT21 ru-en's
    reference B, line 647, made mteval 56/90 against sacreBLEU's 55/91); hypotheses once."""
    import sacrebleu.metrics

    hyps = ["he 's , I think , right", "she's, the one", "it is he's, again"]
    refs = [["he's, I think, right", "she 's , the one", "it's he's, again!"]]
    name = "TER(" + ",".join(f"{k}=yes" for k in options) + ")"
    family = TER()
    prepared = family.prepare([Side("r", refs[0])])
    got = family.score(Side("h", hyps), prepared, DocumentIndex(("a", "b", "c")), [name])[name]
    peer = sacrebleu.metrics.TER(**options)
    assert got.system == pytest.approx(peer.corpus_score(hyps, refs).score, abs=1e-9)
    expected = [peer.sentence_score(h, [r]).score for h, r in zip(hyps, refs[0], strict=True)]
    assert list(got.segments) == pytest.approx(expected, abs=1e-9)


@pytest.mark.skipif(not (SHARED / "data" / "wmt21-ruen").is_dir(), reason="needs ../shared/data/wmt21-ruen")
def test_ter_options_equal_sacrebleu_against_wmt21_reference_b() -> None:
    """The four option sets, two WMT21 ru-en systems, lines 601-700 of reference B (line 647 is where a
    single normalisation of the reference differed), segments and system: sacreBLEU's numbers."""
    import sacrebleu.metrics

    ruen = SHARED / "data" / "wmt21-ruen"
    refs = [(ruen / "refs" / "B.en").read_text(encoding="utf-8").split("\n")[600:700]]
    family = TER()
    prepared = family.prepare([Side("B", refs[0])])
    for system in ("AFRL", "Online-G"):
        hyps = (ruen / "sys" / f"{system}.en").read_text(encoding="utf-8").split("\n")[600:700]
        for options in ({"normalized": True}, {"no_punct": True}, {"normalized": True, "no_punct": True},
                        {"normalized": True, "asian_support": True}):
            name = "TER(" + ",".join(f"{k}=yes" for k in options) + ")"
            got = family.score(Side(system, hyps), prepared, DocumentIndex(("d",) * 100), [name])[name]
            peer = sacrebleu.metrics.TER(**options)
            assert got.system == pytest.approx(peer.corpus_score(hyps, refs).score, abs=1e-9), (system, name)
            expected = [peer.sentence_score(h, [r]).score for h, r in zip(hyps, refs[0], strict=True)]
            assert list(got.segments) == pytest.approx(expected, abs=1e-9), (system, name)
