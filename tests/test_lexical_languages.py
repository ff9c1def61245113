"""METEOR's stem stage and ROUGE outside English (issue 36): the experiment's ``language:`` reaches
the families whose resources depend on it (``registry.create``), they stem with the language's
Snowball stemmer, ROUGE reads any script, and the signature names the language, while English
signatures, and so every English cache, stay as they were. METEOR's parity with Meteor 1.4's ``-l LANG``:
``tests/test_meteor_languages.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side
from mteval.metrics.rouge import unicode_raw_tokens
from mteval.metrics.stemmers import base_language, language_stemmer, snowball
from mteval.store.iqxml import header, parse
from tests.helpers import run

HYP = "Мы читали интересные книги вчера вечером"
REF = "Мы прочитали интересную книгу вчера вечером"


def meteor(language: str, variant: str, hyp: str = HYP, ref: str = REF) -> float:
    family = registry.create("METEOR", True, language)
    prepared = family.prepare([Side("r", [ref])])
    return float(family.scores_from_stats(family.variant_stats(Side("h", [hyp]), prepared, variant), variant)[0])


def rouge(language: str, variant: str, hyp: str = HYP, ref: str = REF, stem: bool = True) -> float:
    family = registry.create("ROUGE", True, language, stem=stem, bootstrap=False)
    scores = family.score(Side("h", [hyp]), family.prepare([Side("r", [ref])]), DocumentIndex.single(1), [variant])
    return float(scores[variant].segments[0])


def test_snowball_stemmers_by_language() -> None:
    assert snowball("ru")("книгами") == snowball("ru-RU")("книгу") == "книг"
    assert snowball("fr")("continuellement") == "continuel" and snowball("es")("corriendo") == "corr"
    assert snowball("cs") is None and base_language("pt_BR") == "pt"


def test_meteor_stems_russian_and_says_so_in_its_signature() -> None:
    exact, stemmed = meteor("ru", "METEOR-ex"), meteor("ru", "METEOR-st")
    assert 0 < exact < stemmed < 1
    assert meteor("ru", "METEOR-sy") == meteor("ru", "METEOR-stsypa") == stemmed  # English resources: none
    assert meteor("de-AT", "METEOR-st") == meteor("de-AT", "METEOR-ex") < 1  # German stems: none here
    assert meteor("xx", "METEOR-st") == meteor("xx", "METEOR-ex")  # a language without a stemmer
    assert meteor("en", "METEOR-st") == meteor("en", "METEOR-ex")  # English's stemmer sees no stems here
    assert registry.create("METEOR", True, "ru").signature("METEOR-st").endswith(
        "|language:ru|meteor:1.4-ru|mteval:0.1.0")
    assert "language" not in registry.create("METEOR", True, "en").signature("METEOR-st")


def test_rouge_reads_any_script_outside_english() -> None:
    assert unicode_raw_tokens("Я  читал «Войну и мир» — 2 раза.") == ["я", "читал", "войну", "и", "мир", "2", "раза"]
    assert rouge("ru", "ROUGE-1", REF, REF) == 1.0
    assert rouge("en", "ROUGE-1", REF, REF) == 0.0  # ROUGE-1.5.5 keeps no token of Cyrillic text
    unstemmed, stemmed = rouge("ru", "ROUGE-1", stem=False), rouge("ru", "ROUGE-1")
    assert 0 < unstemmed < stemmed < 1
    assert rouge("ru", "ROUGE-1", "Мы читали", "Мы читали книгу") == pytest.approx(0.8)
    assert "|language:fr|" in registry.create("ROUGE", True, "fr").signature("ROUGE-L")


def test_english_and_other_families_are_unchanged() -> None:
    for family in ("ROUGE", "METEOR"):
        default = registry.create(family, True)
        english = registry.create(family, True, "en-GB")
        variant = default.variants[0]
        assert english.signature(variant) == default.signature(variant) and "language" not in default.signature(variant)
    bleu = registry.family_of("BLEU")
    assert registry.create(bleu, True, "ru").signature("BLEU-4") == registry.create(bleu, True).signature("BLEU-4")
    english = "the cats were sitting on the mats"
    assert np.isclose(rouge("en", "ROUGE-1", english, "the cat was sitting on the mat"), 0.85714)


def test_iqsetup_scores_russian_with_the_russian_stemmer(tmp_path: Path) -> None:
    """The installed command: ``language: ru`` puts the language into METEOR's and ROUGE's score
    files (BLEU's not), and METEOR-st differs from METEOR-ex."""
    (tmp_path / "ref.txt").write_text(REF + "\n", encoding="utf-8")
    (tmp_path / "sys.txt").write_text(HYP + "\n", encoding="utf-8")
    config = tmp_path / "exp.yaml"
    config.write_text(f"name: t\ncache: {tmp_path / 'cache'}\nlanguage: ru\nreferences: {{A: ref.txt}}\n"
                      "systems: {S: sys.txt}\nmetrics: [METEOR-ex, METEOR-st, ROUGE-1, BLEU]\n", encoding="utf-8")
    done = run("iqsetup", "-q", str(config))
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "cache" / "S" / "A"
    signatures = {p.stem: header(p)["signature"] for p in folder.glob("*.xml")}
    assert {m for m, s in signatures.items() if "|language:ru|" in s} == {"METEOR-ex", "METEOR-st", "ROUGE-1"}
    scores = {m: parse(folder / f"{m}.xml").scores.system for m in ("METEOR-ex", "METEOR-st")}
    assert 0 < scores["METEOR-ex"] < scores["METEOR-st"]


CS_HYP = "Předseda mluvil se ženami o městech"
CS_REF = "Předsedové mluvili se ženou o městu"


def test_czech_stems_with_the_light_stemmer_and_says_so() -> None:
    """Snowball has no Czech stemmer: METEOR's stem stage and ROUGE's -m use Dolamic & Savoy's light
    one (``stemmer:czech-light`` in the signature; only ROUGE with -m names it)."""
    assert snowball("cs") is None and language_stemmer("cs-CZ")("předsedové") == "předsd"
    assert language_stemmer("ru") is snowball("ru") and language_stemmer("xx") is None
    assert 0 < meteor("cs", "METEOR-ex", CS_HYP, CS_REF) < meteor("cs", "METEOR-st", CS_HYP, CS_REF) < 1
    unstemmed, stemmed = rouge("cs", "ROUGE-1", CS_HYP, CS_REF, stem=False), rouge("cs", "ROUGE-1", CS_HYP, CS_REF)
    assert unstemmed == pytest.approx(2 / 6, abs=1e-5) and stemmed == 1.0  # se, o; then every stem matches
    assert registry.create("METEOR", True, "cs").signature("METEOR-ex").endswith(
        "|language:cs|meteor:1.4-cz|stemmer:czech-light|mteval:0.1.0")
    assert "|language:cs|stem:True|stemmer:czech-light|" in registry.create("ROUGE", True, "cs").signature("ROUGE-1")
    assert "stemmer" not in registry.create("ROUGE", True, "cs", stem=False).signature("ROUGE-1")
    assert "stemmer" not in registry.create("ROUGE", True, "ru").signature("ROUGE-1")  # issue 36's unchanged


def test_the_meteor_warning_names_the_stemmer() -> None:
    from mteval.setup.scripts import english_only_warnings

    assert "mteval's extension with the Czech light stemmer (Dolamic & Savoy 2009)" in english_only_warnings(
        ["METEOR-st"], "cs")[0]
    assert "it has no stemmer for xx (no stem matches);" in english_only_warnings(["METEOR-ex"], "xx")[0]
