"""References in another script than ``language:`` are refused before anything is parsed (issue 36,
bad input: ``mteval.setup.scripts``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.errors import InputError
from mteval.experiment.loading import load
from mteval.experiment.texts import load_texts
from mteval.metrics import registry
from mteval.setup.scripts import (
    MIN_RUN,
    check_reference_scripts,
    letter_scripts,
    script_of,
    unsegmented,
    unspaced_script_warnings,
)
from tests.helpers import CHINESE, JAPANESE, THAI, run

RUSSIAN = ["Дожди продолжатся в северных районах до конца недели.",
           "Москва встретила гостей тёплой погодой и солнцем."]
ENGLISH = ["Rains will continue in the northern regions until the end of the week.",
           "Moscow greeted its guests with warm weather and sunshine."]


def experiment(tmp_path: Path, references: list[str], language: str | None, metrics: str,
               system: list[str] | None = None) -> Path:
    """An experiment over one reference and one system (English by default, not a copy of English references),
    its cache under ``tmp_path``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "ref.txt").write_text("\n".join(references) + "\n", encoding="utf-8")
    (tmp_path / "sys.txt").write_text("\n".join(system or ENGLISH[::-1]) + "\n", encoding="utf-8")
    config = tmp_path / "exp.yaml"
    config.write_text(f"name: t\ncache: {tmp_path / 'cache'}\n" + (f"language: {language}\n" if language else "")
                      + f"references: {{A: ref.txt}}\nsystems: {{S: sys.txt}}\nmetrics: [{metrics}]\n"
                      f"annotation: {{cache: {tmp_path / 'ann'}}}\n", encoding="utf-8")
    return config


def test_scripts_of_letters() -> None:
    assert [script_of(c) for c in "aéДα中"] == ["LATIN", "LATIN", "CYRILLIC", "GREEK", "CJK"]
    assert letter_scripts(["Да, yes 42!"]) == {"CYRILLIC": 2, "LATIN": 3}


@pytest.mark.parametrize(("references", "language", "refused"), [
    (RUSSIAN, None, True),  # the default language, en: the mistake this check is for
    (RUSSIAN, "ru", False),
    (ENGLISH, "ru", True),
    (ENGLISH, "en", False),
    (RUSSIAN, "zh", False),  # a language the table does not know: not checked
    (["Да. 1 2 3"] * 2, None, False),  # too few letters to say anything
])
def test_references_in_the_languages_script(tmp_path: Path, references: list[str], language: str | None,
                                            refused: bool) -> None:
    config = load(experiment(tmp_path, references, language, "BLEU"))
    texts = load_texts(config)
    if not refused:
        check_reference_scripts(texts, config.language)
        return
    with pytest.raises(InputError) as caught:
        check_reference_scripts(texts, config.language)
    assert caught.value.line == 1 and str(caught.value.path).endswith("ref.txt")


@pytest.mark.models
def test_iqsetup_refuses_before_writing_anything(tmp_path: Path) -> None:
    """The installed command: one line naming file and line, exit 2, no score file (the lexical ones
    neither); the same references with language: ru, or with lexical metrics only, run."""
    config = experiment(tmp_path, RUSSIAN, None, "BLEU, DP-HWCM_w-4")
    refused = run("iqsetup", "-q", str(config))
    assert refused.returncode == 2
    assert refused.stderr == (f"iqsetup: error: {tmp_path / 'ref.txt'}:1: reference A: 100% of its letters are "
                              "Cyrillic, but the experiment's language is en (Latin script) and its parser would "
                              "read them: set language: to the references' language\n")
    assert not (tmp_path / "cache").exists() or not any(p.suffix == ".xml" for p in (tmp_path / "cache").rglob("*"))
    lexical = experiment(tmp_path, RUSSIAN, None, "BLEU")
    assert run("iqsetup", "-q", str(lexical)).returncode == 0


def test_rouge_is_warned_about_letters_its_tokenizer_drops(tmp_path: Path) -> None:
    """ROUGE-1.5.5's tokenizer (and rouge-score's) keeps a-z and 0-9 only: one warning line each, the
    scores still computed (they match the reference tools); with ``language: ru`` mteval's ROUGE reads
    any script (tests/test_lexical_languages.py), so rouge-score alone is warned about; none for
    English references."""
    as_english = run("iqsetup", "-q", str(experiment(tmp_path / "ru-en", RUSSIAN, None, "ROUGE-L, rouge1")))
    assert as_english.returncode == 0
    warnings = [line for line in as_english.stderr.splitlines() if line.startswith("iqsetup: warning:")]
    assert [w.split(":")[2].strip() for w in warnings] == ["ROUGE", "rouge-score"]
    assert "100% of the references' letters are outside a-z (Cyrillic)" in warnings[0]
    russian = run("iqsetup", "-q", str(experiment(tmp_path / "ru", RUSSIAN, "ru", "ROUGE-L, rouge1")))
    assert russian.returncode == 0
    warnings = [line for line in russian.stderr.splitlines() if line.startswith("iqsetup: warning:")]
    assert [w.split(":")[2].strip() for w in warnings] == ["rouge-score"]
    english = run("iqsetup", "-q", str(experiment(tmp_path / "en", ENGLISH, None, "ROUGE-L, rouge1")))
    assert english.returncode == 0 and "warning" not in english.stderr


def test_meteor_outside_english_says_which_resources_it_has(tmp_path: Path) -> None:
    """METEOR on a Russian experiment: METEOR-ex and METEOR-st are Meteor 1.4's ``-l ru`` numbers (no
    warning); METEOR-sy is not: one warning line naming it and why; none in English."""
    jar = run("iqsetup", "-q", str(experiment(tmp_path / "ru-jar", RUSSIAN, "ru", "METEOR-ex, METEOR-st")))
    assert jar.returncode == 0 and jar.stderr == ""
    russian = run("iqsetup", "-q", str(experiment(tmp_path / "ru", RUSSIAN, "ru", "METEOR-ex, METEOR-sy")))
    assert russian.returncode == 0
    assert russian.stderr == ("iqsetup: warning: METEOR: for language ru, METEOR-sy is not Meteor 1.4's score with "
                              "-l ru (Asiya's): the synonym stage matches nothing (WordNet is English; the jar stops "
                              "on it outside English) (docs/languages.md)\n")
    english = run("iqsetup", "-q", str(experiment(tmp_path / "en", ENGLISH, "en", "METEOR-ex")))
    assert english.returncode == 0 and english.stderr == ""


def segmented(lines: list[str], size: int = 2) -> list[str]:
    """The lines cut into 'words' of ``size`` characters (what a word segmenter's output looks like)."""
    return [" ".join(line[i:i + size] for i in range(0, len(line), size)) for line in lines]


@pytest.mark.parametrize(("references", "scripts"), [
    (CHINESE, {"CJK"}), (JAPANESE, {"CJK", "HIRAGANA"}), (THAI, {"THAI"}),
    (segmented(CHINESE), None), (segmented(THAI, 4), None), (ENGLISH * 3, None), (RUSSIAN * 3, None),
    (CHINESE[:1], None),  # under MIN_LETTERS: too few letters to say anything
])
def test_unsegmented_references(tmp_path: Path, references: list[str], scripts: set[str] | None) -> None:
    found = unsegmented(load_texts(load(experiment(tmp_path, references, None, "BLEU", references[::-1]))))
    assert (found and found.scripts) == (scripts and frozenset(scripts))
    if found is not None:
        assert found.share == 1.0 and found.run >= MIN_RUN


@pytest.mark.parametrize(("references", "metrics", "warned"), [
    (CHINESE, "BLEU-4; NIST-5; sacreBLEU; -TER; WER; MER; GTM-1; METEOR-ex; ROUGE-L; chrF++",
     "BLEU-4, NIST-5, sacreBLEU, -TER, WER, MER and 4 more"),
    (CHINESE, "sacreBLEU(tok=zh); sacreBLEU(tok=ja-mecab); sacreBLEU(tok=char); TER(normalized=yes,asian_support=yes); "
     "chrF; CER; DP-HWCM_w-4; rouge1", None),  # rouge1: its ASCII tokenizer has a warning of its own
    (JAPANESE, "sacreBLEU(tok=zh); TER(normalized=yes,asian_support=yes); sacreBLEU(tok=ja-mecab); chrF",
     "sacreBLEU(tok=zh), TER(normalized=yes,asian_support=yes)"),  # zh's tokenizer and tercom's leave kana runs whole
    (THAI, "sacreBLEU(tok=zh); sacreBLEU(tok=char); CER; sacreBLEU(tok=flores200)", "sacreBLEU(tok=zh)"),
    (segmented(CHINESE), "BLEU-4; -TER", None),
])
def test_word_metrics_are_warned_about_unsegmented_references(tmp_path: Path, references: list[str], metrics: str,
                                                              warned: str | None) -> None:
    """A warning names the variants that take a whole phrase for a word; none for character metrics, a
    tokenizer that segments the scripts found, parsers (their own tokenizer) or segmented text."""
    texts = load_texts(load(experiment(tmp_path, references, None, "BLEU", references[::-1])))
    variants = [(registry.create(registry.family_of(name)), name) for name in (m.strip() for m in metrics.split(";"))]
    lines = unspaced_script_warnings(variants, texts, warned=["rouge-score"])
    assert [line.split(": ", 1)[0] for line in lines] == ([warned] if warned else [])


def test_iqsetup_warns_about_unsegmented_chinese(tmp_path: Path) -> None:
    """The installed command: one warning line for the word metrics, the scores computed; none for
    the same references segmented."""
    raw = run("iqsetup", "-q", str(experiment(tmp_path / "raw", CHINESE, "zh", "BLEU, chrF, -TER", CHINESE[::-1])))
    assert raw.returncode == 0, raw.stderr
    assert raw.stderr == ("iqsetup: warning: BLEU, -TER: 100% of the references' letters are Han (CJK), written "
                          "without spaces between words (29 letters a whitespace token on average), which these "
                          "metrics' tokenizers do not split into words: a word is then a whole phrase and their "
                          "scores say little; use sacreBLEU(tok=zh), TER(normalized=yes,asian_support=yes), chrF, "
                          "or texts segmented into words (docs/languages.md)\n")
    words = run("iqsetup", "-q", str(experiment(tmp_path / "words", segmented(CHINESE), "zh", "BLEU, chrF, -TER",
                                                segmented(CHINESE[::-1]))))
    assert words.returncode == 0 and words.stderr == ""
