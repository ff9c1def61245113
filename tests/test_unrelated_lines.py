"""A text whose lines do not correspond to a reference's at all (another test set's output, another
language pair's, another order) gets one warning line (``mteval.setup.unrelated``); the scores are
computed as asked."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mteval.setup.line_overlap import LineFits
from mteval.setup.unrelated import MARGIN, MIN_LINES, fit, unrelated_warnings
from tests.helpers import ENDE, RUEN, setup_with_system
from tests.helpers import file_lines as lines
from tests.helpers import in_memory as text

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")


UEDIN, REF_A = lines(ENDE / "sys" / "UEdin.de"), lines(ENDE / "refs" / "A.de")
SHUFFLED = random.Random(7).sample(UEDIN, len(UEDIN))
RUSSIAN = lines(RUEN / "src.ru")[:len(UEDIN)]  # another language pair's text, as long


def warnings(systems: dict[str, list[str]], references: dict[str, list[str]], source: list[str] | None = None
             ) -> list[str]:
    refs = [text(name, segments) for name, segments in references.items()]
    return unrelated_warnings([(text(name, segments), refs) for name, segments in systems.items()], refs,
                              text("src", source) if source is not None else None, LineFits())[0]


def test_fits() -> None:
    """A translation's own lines fit far better than others; a shuffled or foreign text's do not."""
    fits = LineFits()
    own = fit(fits, text("U", UEDIN), text("A", REF_A))
    assert own is not None and own.own > own.elsewhere + 0.2 and not own.unrelated
    for segments in (SHUFFLED, RUSSIAN, [""] * len(UEDIN)):
        found = fit(fits, text("S", segments), text("A", REF_A))
        assert found is not None and found.unrelated and found.own <= found.elsewhere + MARGIN
    assert fit(fits, text("S", SHUFFLED[:MIN_LINES - 1]), text("A", REF_A[:MIN_LINES - 1])) is None  # too short


def test_no_bundled_text_is_unrelated() -> None:
    systems = {name: lines(ENDE / "sys" / f"{name}.de") for name in SYSTEMS}
    assert warnings(systems, {name: lines(ENDE / "refs" / f"{name}.de") for name in "ACD"},
                    lines(ENDE / "src.en")) == []


def test_warnings_name_texts_and_scripts() -> None:
    found = warnings({"U": UEDIN, "S": SHUFFLED, "R": RUSSIAN, "E": [""] * len(UEDIN)}, {"A": REF_A})
    assert found[0].startswith("system S (S.txt): its lines share no more words with reference A's line at their "
                               "place than with its other lines (0.0")
    assert found[0].endswith("on average): another test set's or language pair's output, or its lines in another "
                             "order? Every score against it is about 0; check the file")
    assert "on average; its letters are Cyrillic, reference A's Latin): " in found[1]
    assert found[2] == "system E (E.txt): every line is empty; every score of it is 0; check the file"
    assert len(found) == 3


def test_shifted_or_source_copies_are_said_otherwise() -> None:
    """A text shifted by a line, or copying the source, gets that warning, not this one."""
    source = lines(ENDE / "src.en")
    assert warnings({"S": [""] + UEDIN[:-1], "C": source}, {"A": REF_A}, source) == []


def test_a_reference_no_system_is_related_to() -> None:
    """Every system unrelated to the one reference: one line about the reference; two references
    unrelated to each other: the systems tell which one is odd."""
    systems = {name: lines(ENDE / "sys" / f"{name}.de") for name in SYSTEMS}
    alone = warnings(systems, {"A": SHUFFLED})
    assert alone == ["reference A (A.txt): none of the 6 systems' lines share more words with its line at their place "
                     "than with its other lines: not the reference of this test set, or its lines in another order? "
                     "Every score against it is about 0; check the file"]
    two = warnings(systems, {"A": REF_A, "B": RUSSIAN})
    assert len(two) == 1 and two[0].startswith("reference B (B.txt): its lines share no more words with reference A's")
    unwitnessed = warnings({}, {"A": REF_A, "B": SHUFFLED})
    assert len(unwitnessed) == 1 and unwitnessed[0].endswith("one of the two is not a translation of this test set "
                                                             "in this order; check the files")


def test_iqsetup_warns_about_another_order(tmp_path: Path) -> None:
    """The installed command: one warning line, and the scores computed."""
    system, _, done = setup_with_system(tmp_path, SHUFFLED, "BLEU")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"iqsetup: warning: system T ({system}): its lines share no more words with "
                                  "reference A's line at their place")
    assert done.stderr.count("\n") == 1
    assert (tmp_path / "cache" / "T" / "A" / "BLEU.xml").is_file()


@pytest.mark.skipif(not (SHARED / "wmt21-enru").is_dir(), reason="needs ../shared/data (WMT12, WMT21, WMT24)")
def test_real_texts() -> None:
    """No system or reference of ../shared's WMT data is unrelated to its references (WMT24's CycleL,
    a very poor system, fits its own lines by 0.043 more); a WMT21 en-ru system given as an en-de one
    (another test set of the same length, another script) is."""
    fits = LineFits()
    for folder in ("wmt12-enxx", "wmt21-ende", "wmt21-enru", "wmt21-ruen", "wmt21-zhen", "wmt24-encs"):
        refs = sorted((SHARED / folder / "refs").iterdir())
        for path in [*sorted((SHARED / folder / "sys").iterdir()), *refs[1:]]:
            reference = next(ref for ref in refs if ref.suffix == path.suffix)
            found = fit(fits, text(path.stem, lines(path)), text(reference.stem, lines(reference)))
            assert found is not None and not found.unrelated, (folder, path.name)
    russian = text("Online-W", lines(SHARED / "wmt21-enru" / "sys" / "Online-W.ru"))
    german = text("A", lines(SHARED / "wmt21-ende" / "refs" / "A.de"))
    assert len(russian.segments) == len(german.segments)
    found, flagged = unrelated_warnings([(russian, [german])], [german], None, fits)
    assert flagged == {id(russian)}
    assert len(found) == 1 and "its letters are Cyrillic, reference A's Latin" in found[0]
