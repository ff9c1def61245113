"""A system prepared otherwise than the references (tokenized, holding HTML/XML escapes, lower-cased:
``mteval.setup.preparation``) or copying a reference it is scored against (``mteval.setup.copies``)
gets one warning line; the scores are computed as asked."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from mteval.io.corpus import Text
from mteval.setup.copies import copy_warnings, source_copy_warnings
from mteval.setup.preparation import SHOWN, Look, preparation_warnings
from tests.helpers import ENDE, ende_config, run, setup_with_system
from tests.helpers import in_memory as text

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DETOKENIZED = [f"Sentence number {i} ends here." for i in range(20)]
TOKENIZED = [f"Sentence number {i} ends here ." for i in range(20)]


def tokenize(line: str) -> str:
    """A crude Moses-like tokenization: punctuation spaced."""
    return " ".join(re.sub(r"([.,!?;:\"()])", r" \1 ", line).split())


def test_look_counts_lines() -> None:
    look = Look.of(["A b .", "A b.", "No period", "l&#39;homme .", "x &amp y"])
    assert look == Look(endings=3, spaced=2, escaped=1, lines=5, letters=23, capitals=3)
    assert Look.of(TOKENIZED).tokenized() is True and Look.of(DETOKENIZED).tokenized() is False
    assert Look.of(TOKENIZED[:9]).tokenized() is None  # too few lines ending in a period to tell
    assert Look.of(TOKENIZED[:4] + DETOKENIZED[:8]).tokenized() is None  # between the two


@pytest.mark.parametrize(("system", "references", "warned"), [
    (TOKENIZED, DETOKENIZED, "it looks tokenized and they do not"),
    (DETOKENIZED, TOKENIZED, "they look tokenized and it does not"),
    (TOKENIZED, TOKENIZED, None),  # tokenized alike: nothing to say
    (DETOKENIZED, DETOKENIZED, None),
    (TOKENIZED[:5] + DETOKENIZED[5:], DETOKENIZED, None),  # a few lines ending in " ." happen
    ([line.replace("number", "n&#39;umber") for line in DETOKENIZED], DETOKENIZED, "hold HTML/XML escapes (&#39;)"),
    ([line.replace("number", "&quot;n&quot;") for line in DETOKENIZED], [DETOKENIZED[0] + " &amp;"] + DETOKENIZED[1:],
     None),  # the references hold escapes too
])
def test_a_system_tokenized_otherwise(system: list[str], references: list[str], warned: str | None) -> None:
    lines = preparation_warnings([text("S", system)], [text("A", references)])
    if warned is None:
        assert lines == []
    else:
        assert len(lines) == 1 and lines[0].startswith("system S (S.txt): ") and warned in lines[0]


def test_many_systems_are_summed_up() -> None:
    systems = [text(f"S{i}", TOKENIZED) for i in range(SHOWN + 2)] + [text("fine", DETOKENIZED)]
    lines = preparation_warnings(systems, [text("A", DETOKENIZED)])
    assert [line.split(" (")[0] for line in lines[:SHOWN]] == [f"system S{i}" for i in range(SHOWN)]
    assert lines[SHOWN:] == ["and 2 more systems prepared otherwise than the references"]


def test_iqsetup_warns_about_a_tokenized_system(tmp_path: Path) -> None:
    """The installed command: one warning line naming the tokenized system and its file; the scores
    are computed; a second run (nothing to compute) says nothing."""
    lines = (ENDE / "sys" / "UEdin.de").read_text(encoding="utf-8").splitlines()
    tokenized, config, done = setup_with_system(tmp_path, [tokenize(line) for line in lines], "BLEU")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"iqsetup: warning: system T ({tokenized}): 100% of its lines that end in a "
                                  "period end in ' .', the references' 0%: it looks tokenized and they do not")
    assert done.stderr.count("\n") == 1
    assert run("iqsetup", "-q", str(config)).stderr == ""


@pytest.mark.skipif(not (SHARED / "wmt12-enxx").is_dir(), reason="needs ../shared/data (WMT12 en-xx, WMT24 en-cs)")
@pytest.mark.parametrize(("folder", "language", "warned"), [
    ("wmt12-enxx", "fr", {"onlineB"}), ("wmt12-enxx", "es", {"onlineB"}), ("wmt12-enxx", "cs", {"onlineB"}),
    ("wmt24-encs", "cs", {"ONLINE-B"}), ("wmt21-ende", "de", set()), ("wmt21-enru", "ru", set()),
])
def test_real_campaigns(folder: str, language: str, warned: set[str]) -> None:
    """On real WMT data the online-B outputs hold HTML escapes (``l&#39;amendement``: WMT12 en-fr
    BLEU 0.1985, 0.2801 unescaped); no other system is warned about."""
    def read(path: Path) -> Text:
        return text(path.name.split(".")[0], path.read_text(encoding="utf-8").splitlines())

    root = SHARED / folder
    refs = [read(p) for p in sorted((root / "refs").glob(f"*.{language}"))]
    systems = [read(p) for p in sorted((root / "sys").glob(f"*.{language}"))]
    assert len(systems) > 5
    lines = preparation_warnings(systems, refs)
    assert {line.split(" ")[1] for line in lines} == warned
    assert all("hold HTML/XML escapes" in line for line in lines)


ENGLISH = (ENDE / "src.en").read_text(encoding="utf-8").splitlines()
REF_DE = (ENDE / "refs" / "A.de").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(("case", "warned"), [(None, True), (True, True), (False, False)])
def test_a_lower_cased_system(case: bool | None, warned: bool) -> None:
    """A lower-cased system against cased references: one line, unless the experiment is case: ci."""
    lines = preparation_warnings([text("S", [line.lower() for line in ENGLISH])], [text("A", ENGLISH)], case)
    assert len(lines) == warned
    if warned:
        assert "0.0% of its letters are capitals, the references' " in lines[0] and "it looks lower-cased" in lines[0]
    assert preparation_warnings([text("S", ENGLISH)], [text("A", ENGLISH)], case) == []
    assert preparation_warnings([text("S", ENGLISH)], [text("A", [line.lower() for line in ENGLISH])], case) == []


def test_a_decomposed_system() -> None:
    """A system in Unicode NFD ('é' as 'e' + U+0301) against NFC references: one line; the same system
    composed, or references as decomposed, none. Measured: WMT12 en-fr's uedin-wmt12 decomposed
    (2,745 of 3,003 lines change) scores BLEU 0.1983 instead of 0.2802, chrF 51.02 instead of 56.33."""
    decomposed = [unicodedata.normalize("NFD", line) for line in REF_DE]
    (line,) = preparation_warnings([text("S", decomposed)], [text("A", REF_DE)])
    changed = sum(a != b for a, b in zip(decomposed, REF_DE, strict=True))
    assert line.startswith(f"system S (S.txt): {changed} of its 100 lines are not in Unicode's composed form (NFC")
    assert preparation_warnings([text("S", REF_DE)], [text("A", REF_DE)]) == []
    assert preparation_warnings([text("S", decomposed)], [text("A", decomposed)]) == []
    assert Look.of(decomposed).decomposed == changed > 20 and Look.of(REF_DE).decomposed == 0


def test_a_system_copying_a_reference() -> None:
    references = [text("A", ENGLISH), text("B", [line + " x" for line in ENGLISH])]
    near = text("H", ENGLISH[:95] + ["other"] * 5)
    lines = copy_warnings([(text("H", ENGLISH), references), (near, references),
                           (text("S", ENGLISH[:80] + ["other"] * 20), references),
                           (text("T", ENGLISH), references[1:])])
    assert [line.split(": ")[0] for line in lines] == ["system H (H.txt)", "system H (H.txt)"]
    assert lines[0].split(": ")[1].startswith("100% of its segments equal reference A's") and "95%" in lines[1]


def test_iqsetup_warns_about_a_reference_listed_as_a_system(tmp_path: Path) -> None:
    """The installed command: reference A also listed as the system HumanA, scored against A_C (BLEU 1)."""
    systems = {"HumanA": str(ENDE / "refs" / "A.de"), "UEdin": str(ENDE / "sys" / "UEdin.de")}
    config = ende_config(tmp_path, systems=systems,
                         references={"A": str(ENDE / "refs" / "A.de"), "C": str(ENDE / "refs" / "C.de")},
                         metrics=["BLEU"], sets={})
    done = run("iqsetup", "-q", str(config))
    assert done.returncode == 0, done.stderr
    assert done.stderr == (f"iqsetup: warning: system HumanA ({ENDE / 'refs' / 'A.de'}): 100% of its segments equal "
                           "reference A's, which is in a reference set it is scored against: there it scores as a copy "
                           "of its own reference (BLEU 1); score it against the other references, or list it as a "
                           "reference only (iqeval -doref scores each reference against the others)\n")


def test_texts_copying_the_source() -> None:
    """A reference (the source file given by mistake) or a system (untranslated) equal to the source."""
    source, german = text("src", ENGLISH), text("A", REF_DE)
    lines = source_copy_warnings([("reference", text("R", ENGLISH)), ("reference", german),
                                  ("system", text("S", ENGLISH[:92] + REF_DE[92:]))], source)
    assert [line.split(": ")[0] for line in lines] == ["reference R (R.txt)", "system S (S.txt)"]
    assert "100% of its segments equal the source's (src.txt): every score against it" in lines[0]
    assert "92% of its segments equal the source's (src.txt): it is untranslated" in lines[1]
    assert source_copy_warnings([("reference", text("R", ENGLISH))], None) == []


def test_iqsetup_warns_about_the_source_given_as_a_reference(tmp_path: Path) -> None:
    """The installed command (the sample's source is src.en): one line naming the reference."""
    config = ende_config(tmp_path, references={"A": str(ENDE / "refs" / "A.de"), "E": str(ENDE / "src.en")},
                         systems={"UEdin": str(ENDE / "sys" / "UEdin.de")}, metrics=["chrF"], sets={})
    done = run("iqsetup", "-q", str(config))
    assert done.returncode == 0, done.stderr
    assert done.stderr == (f"iqsetup: warning: reference E ({ENDE / 'src.en'}): 100% of its segments equal the "
                           f"source's ({ENDE / 'src.en'}): every score against it compares with the untranslated "
                           "text; check the file\n")
