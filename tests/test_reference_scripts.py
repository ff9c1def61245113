"""References in another script than ``language:`` are refused before anything is parsed (issue 36,
bad input: ``mteval.setup.scripts``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.errors import InputError
from mteval.experiment.loading import load
from mteval.experiment.texts import load_texts
from mteval.setup.scripts import check_reference_scripts, letter_scripts, script_of
from tests.helpers import run

RUSSIAN = ["Дожди продолжатся в северных районах до конца недели.",
           "Москва встретила гостей тёплой погодой и солнцем."]
ENGLISH = ["Rains will continue in the northern regions until the end of the week.",
           "Moscow greeted its guests with warm weather and sunshine."]


def experiment(tmp_path: Path, references: list[str], language: str | None, metrics: str) -> Path:
    """An experiment over one reference and one English system, its cache under ``tmp_path``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "ref.txt").write_text("\n".join(references) + "\n", encoding="utf-8")
    (tmp_path / "sys.txt").write_text("\n".join(ENGLISH) + "\n", encoding="utf-8")
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
    """METEOR on a Russian experiment: scores computed, one warning line (a Snowball stemmer, the
    other resources English's); none in English."""
    russian = run("iqsetup", "-q", str(experiment(tmp_path / "ru", RUSSIAN, "ru", "METEOR-ex")))
    assert russian.returncode == 0
    assert russian.stderr == ("iqsetup: warning: METEOR: for language ru it stems with Snowball's Russian stemmer; "
                              "its synonym and paraphrase stages match nothing and no word counts as a function "
                              "word (METEOR 1.5's are English), its parameters are English's: its scores are not "
                              "METEOR 1.5's -l ru ones (docs/languages.md)\n")
    english = run("iqsetup", "-q", str(experiment(tmp_path / "en", ENGLISH, "en", "METEOR-ex")))
    assert english.returncode == 0 and english.stderr == ""
