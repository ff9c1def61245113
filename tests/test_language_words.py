"""References whose words are not the experiment's language (a German test set left at the default
``language: en``) get one warning line when a metric whose work follows the language is computed or
shown (``mteval.setup.language_words``)."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

import mteval
from mteval.experiment.texts import LoadedTexts
from mteval.io.corpus import DocumentIndex
from mteval.setup.language_words import CHECKED, FUNCTION_WORDS, MAX_SHARE, RIVAL, language_warnings, shares
from tests.helpers import ENDE, ende_config, file_lines, in_memory, run

SHARED = Path(__file__).resolve().parents[2] / "shared"
GERMAN = (ENDE / "refs" / "A.de").read_text(encoding="utf-8").splitlines()
ENGLISH = (ENDE / "src.en").read_text(encoding="utf-8").splitlines()


def test_shares() -> None:
    found, total = shares(["The cat sat on the mat, and the dog was in the garden."])
    assert total == 13 and found["en"] == pytest.approx(8 / 13)  # the x4, on, and, was, in
    german, _ = shares(GERMAN)
    english, _ = shares(ENGLISH)
    assert german["de"] > 0.25 > MAX_SHARE > german["en"] and english["en"] > 0.25 > MAX_SHARE > english["de"]
    assert all(len(words) >= 30 for words in FUNCTION_WORDS.values())


def test_german_references_left_at_english(tmp_path: Path) -> None:
    """The bundled en-de sample without ``language: de``: one line for the metrics whose work follows
    the language (METEOR, the parser's DP), none for BLEU; with ``language: de``, none."""
    campaign = mteval.load(ende_config(tmp_path, metrics=["BLEU", "METEOR-ex", "DP-HWCM_w-4"], sets={}))
    assert campaign.warnings(metrics="BLEU") == []
    (line,) = campaign.warnings()
    assert line.startswith("METEOR, DP: only 3% of the references' words are English function words (English text "
                           "has 20-40%), but the experiment's language is en")
    assert line.endswith("they look German (32% German ones): set language: de (docs/languages.md)")
    german = mteval.load(ende_config(tmp_path, metrics=["BLEU", "METEOR-ex"], sets={}, language="de"))
    assert not any("function words" in warning for warning in german.warnings())


def test_iqsetup_says_it(tmp_path: Path) -> None:
    """The installed command, with METEOR on the German sample declared English: the line, and the scores."""
    config = ende_config(tmp_path, metrics=["METEOR-ex"], sets={}, systems={"UEdin": str(ENDE / "sys" / "UEdin.de")})
    done = run("iqsetup", "-q", str(config))
    assert done.returncode == 0, done.stderr
    assert "iqsetup: warning: METEOR: only 3% of the references' words are English function words" in done.stderr
    assert (tmp_path / "cache" / "UEdin" / "A_C_D" / "METEOR-ex.xml").is_file()


@pytest.mark.skipif(not (SHARED / "data").is_dir(), reason="needs ../shared/data and ../shared/ud")
def test_real_texts_are_their_language() -> None:
    """Every text of 200 words or more of ../shared's WMT data and UD test sets has at least twice
    MAX_SHARE of its own language's function words, and under MAX_SHARE of English, German and
    Czech ones when it is another language."""
    texts = [(path.suffix[1:], path.read_text(encoding="utf-8").splitlines())
             for path in sorted((SHARED / "data").rglob("*")) if path.suffix[1:] in CHECKED and path.is_file()
             and path.stat().st_size < 5_000_000]
    for name in sorted(glob.glob(str(SHARED / "ud" / "multilingual" / "*" / "*test.conllu"))):
        if Path(name).name[:2] in CHECKED:
            lines = Path(name).read_text(encoding="utf-8").splitlines()
            texts.append((Path(name).name[:2], [line[9:] for line in lines if line.startswith("# text = ")]))
    assert len(texts) > 100
    for language, lines in texts:
        found, total = shares(lines)
        if total >= 200:
            assert found[language] >= 2 * MAX_SHARE, language
            assert all(found[other] < MAX_SHARE for other in ("en", "de", "cs") if other != language), language
            assert all(found[other] < found[language] / RIVAL for other in FUNCTION_WORDS if other != language)
            assert all(_warned(lines, declared) for declared in CHECKED - {language}), language
            assert not _warned(lines, language), language


def _warned(lines: list[str], language: str) -> bool:
    texts = LoadedTexts({"A": in_memory("A", lines)}, {}, None, DocumentIndex.single(len(lines)))
    return bool(language_warnings(["METEOR"], texts, language))


@pytest.mark.skipif(not (SHARED / "data").is_dir(), reason="needs ../shared/data (WMT12 en-es and en-fr)")
def test_spanish_declared_french() -> None:
    """WMT12's Spanish reference declared French passes MAX_SHARE (French function words make a fifth
    of Spanish text) but Spanish ones are RIVAL times more: the line names Spanish; and the reverse."""
    wmt12 = SHARED / "data" / "wmt12-enxx"
    spanish, french = (file_lines(next((wmt12 / "refs").glob(f"*.{code}"))) for code in ("es", "fr"))
    found, _ = shares(spanish)
    assert MAX_SHARE < found["fr"] < found["es"] / RIVAL
    texts = LoadedTexts({"A": in_memory("A", spanish)}, {}, None, DocumentIndex.single(len(spanish)))
    (line,) = language_warnings(["METEOR", "DP"], texts, "fr")
    assert line.startswith("METEOR, DP: the references' words look Spanish (")
    assert line.endswith("but the experiment's language is fr, so these metrics' parser, stemmer or tokenizer read "
                         "them as French; set language: es (docs/languages.md)")
    assert _warned(french, "es") and not _warned(french, "fr") and not _warned(spanish, "es")
