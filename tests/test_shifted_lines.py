"""Lines shifted against the references (a line lost or added: same number of lines, every score
there about 0) get one warning line (``mteval.setup.shifted``); the scores are computed as asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.setup.shifted import SHOWN, fits, shift_warnings, shifted_runs
from tests.helpers import ENDE, setup_with_system
from tests.helpers import file_lines as lines
from tests.helpers import in_memory as text

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")


UEDIN, REF_A = lines(ENDE / "sys" / "UEdin.de"), lines(ENDE / "refs" / "A.de")


@pytest.mark.parametrize(("system", "runs"), [
    (UEDIN[:29] + UEDIN[30:] + [""], [(29, 98, 1)]),  # line 30 lost, a blank one added at the end
    (UEDIN[:29] + [""] + UEDIN[29:-1], [(30, 99, -1)]),  # a blank line added at 30, the last lost
    (UEDIN[:29] + UEDIN[30:60] + [""] + UEDIN[60:], [(29, 58, 1)]),  # lost at 30, added at 60
    (UEDIN[:29] + UEDIN[31:] + ["", ""], [(29, 97, 2)]),  # lines 30 and 31 lost: two lines off
    (UEDIN[:29] + [""] * 3 + UEDIN[29:-3], [(32, 99, -3)]),  # three blank lines added at 30
    (UEDIN, []),
])
def test_runs_of_shifted_lines(system: list[str], runs: list[tuple[int, int, int]]) -> None:
    assert shifted_runs(fits(system, REF_A)) == runs


def test_no_bundled_text_is_shifted() -> None:
    """The bundled sample: no system against any reference, no reference against another."""
    references = [lines(ENDE / "refs" / f"{name}.de") for name in "ACD"]
    for name in SYSTEMS:
        for reference in references:
            assert shifted_runs(fits(lines(ENDE / "sys" / f"{name}.de"), reference)) == []
    assert all(shifted_runs(fits(a, b)) == [] for a in references for b in references if a is not b)


def test_warnings_name_texts_and_lines() -> None:
    shifted = text("S", UEDIN[:29] + UEDIN[30:] + [""])
    found = shift_warnings([(shifted, [text("A", REF_A)]), (text("U", UEDIN), [text("A", REF_A)])], [text("A", REF_A)])
    assert found == ["system S (S.txt): lines 30-99 are closer to reference A's next line than to their own: a line "
                     "lost or added there, in the system or the reference, shifts the lines after it, which then "
                     "score about 0; check both files"]
    many = shift_warnings([(text(f"S{i}", shifted.segments), [text("A", REF_A)]) for i in range(SHOWN + 1)], [])
    assert len(many) == SHOWN + 1 and many[-1] == "and 1 more shifted systems"
    references = [text("A", REF_A), text("B", [""] + REF_A[:-1])]
    alone = shift_warnings([], references)  # the pair once; without systems, no telling which is shifted
    assert len(alone) == 1 and alone[0].startswith("reference A (A.txt): lines ") and "one of the two" in alone[0]
    witnessed = shift_warnings([(text(name, lines(ENDE / "sys" / f"{name}.de")), references) for name in SYSTEMS],
                               references)
    assert witnessed == ["reference B (B.txt): lines 2-100 are shifted by one line against reference A and 6 of 6 "
                         "systems (a line lost or added), so every score against it there is about 0; check the file"]


def test_iqsetup_warns_about_a_shifted_system(tmp_path: Path) -> None:
    """The installed command: one warning line naming the system, its file and the lines."""
    shifted, _, done = setup_with_system(tmp_path, UEDIN[:29] + UEDIN[30:] + [""], "chrF")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"iqsetup: warning: system T ({shifted}): lines 30-99 are closer to reference A's "
                                  "next line than to their own")
    assert done.stderr.count("\n") == 1


@pytest.mark.skipif(not (SHARED / "wmt21-enru").is_dir(), reason="needs ../shared/data (WMT21 en-ru)")
def test_wmt21_en_ru_reference_b_is_shifted() -> None:
    """Real: WMT21 en-ru's reference B is shifted by one line over its lines 743-753 against reference A
    and every system (they translate source lines 744-754); nothing else there is, and the warning
    says B."""
    root = SHARED / "wmt21-enru"
    ref_a, ref_b = lines(root / "refs" / "A.ru"), lines(root / "refs" / "B.ru")
    assert shifted_runs(fits(ref_a, ref_b)) == [(743, 753, -1)]  # A's lines, B's one before
    systems = [text(path.stem, lines(path)) for path in sorted((root / "sys").glob("*.ru"))]
    for system in systems:
        assert shifted_runs(fits(system.segments, ref_a)) == []
        assert [run[2] for run in shifted_runs(fits(system.segments, ref_b))] == [-1]
    references = [text("A", ref_a), text("B", ref_b)]
    assert shift_warnings([(s, references) for s in systems], references) == [
        "reference B (B.txt): lines 743-753 are shifted by one line against reference A and 9 of 9 systems (a line "
        "lost or added), so every score against it there is about 0; check the file"]


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "wmt21-enru").is_dir(), reason="needs ../shared/data (WMT12, WMT21, WMT24)")
def test_no_other_real_text_is_shifted() -> None:
    """Every system against every reference of its language, and every pair of references, in ../shared's
    WMT data: no shifted run but WMT21 en-ru's reference B."""
    found = set()
    for folder in ("wmt12-enxx", "wmt21-ende", "wmt21-enru", "wmt21-ruen", "wmt21-zhen", "wmt24-encs"):
        refs = sorted((SHARED / folder / "refs").iterdir())
        for path in [*sorted((SHARED / folder / "sys").iterdir()), *refs]:
            try:
                segments = lines(path)
            except UnicodeDecodeError:
                continue
            for ref in refs:
                if ref != path and ref.suffix == path.suffix and len(lines(ref)) == len(segments):
                    if shifted_runs(fits(segments, lines(ref))):
                        found.add((folder, ref.name if path.parent.name == "sys" else f"{path.name}~{ref.name}"))
    assert found == {("wmt21-enru", "B.ru"), ("wmt21-enru", "A.ru~B.ru"), ("wmt21-enru", "B.ru~A.ru")}


def test_shifted_by_more_than_one_line() -> None:
    """Two lines lost: the warning says which line fits (two after) and that lines were lost; a
    reference two lines off is named, its lines given, as the systems tell."""
    shifted = text("S", UEDIN[:29] + UEDIN[31:] + ["", ""])
    found = shift_warnings([(shifted, [text("A", REF_A)])], [text("A", REF_A)])
    assert found == ["system S (S.txt): lines 30-98 are closer to reference A's line 2 after than to their own: lines "
                     "lost or added there, in the system or the reference, shift the lines after it, which then score "
                     "about 0; check both files"]
    references = [text("A", REF_A), text("B", ["", ""] + REF_A[:-2])]
    witnessed = shift_warnings([(text(name, lines(ENDE / "sys" / f"{name}.de")), references) for name in SYSTEMS],
                               references)
    assert len(witnessed) == 1 and witnessed[0].startswith("reference B (B.txt): lines 3-")
    assert "are shifted by 2 lines against reference A and 6 of 6 systems (lines lost or added)" in witnessed[0]
