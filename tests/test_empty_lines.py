"""Empty lines where the source has text: any in a reference, a tenth or more of a system's, get one
warning line (``mteval.setup.empty_lines``); the scores are computed as asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.setup.empty_lines import empty_line_warnings, empty_where_source_is_not
from tests.helpers import ENDE, ende_config, run
from tests.helpers import in_memory as text

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SOURCE = (ENDE / "src.en").read_text(encoding="utf-8").splitlines()
REF_A = (ENDE / "refs" / "A.de").read_text(encoding="utf-8").splitlines()
UEDIN = (ENDE / "sys" / "UEdin.de").read_text(encoding="utf-8").splitlines()


def blanked(lines: list[str], where: range) -> list[str]:
    return ["" if i in where else line for i, line in enumerate(lines)]


def test_where_the_source_has_text() -> None:
    source = text("src", ["a", "", "c", "d"])
    assert empty_where_source_is_not(text("R", ["x", "", "", " "]), source) == [2, 3]
    assert empty_where_source_is_not(text("R", ["x", "", "", " "]), None) == [1, 2, 3]


def test_references_and_systems() -> None:
    source = text("src", SOURCE)
    reference = text("A", blanked(REF_A, range(10, 17)))
    few, many = text("F", blanked(UEDIN, range(9))), text("M", blanked(UEDIN, range(10)))
    found = empty_line_warnings([reference, text("C", REF_A)], [few, many, text("U", UEDIN)], source)
    assert found == [
        "reference A (A.txt): 7 of its 100 lines are empty where the source has text (lines 11, 12, 13, 14, 15 ...): "
        "every system scores 0 against it there; a translation lost? check the file",
        "system M (M.txt): 10 of its 100 lines are empty where the source has text: output lost (a crashed or "
        "truncated run)? They score 0; check the file"]


def test_iqsetup_warns_about_a_reference(tmp_path: Path) -> None:
    broken = tmp_path / "A.de"
    broken.write_text("\n".join(blanked(REF_A, range(40, 42))) + "\n", encoding="utf-8")
    config = ende_config(tmp_path, references={"A": str(broken)}, metrics=["BLEU"], sets={})
    done = run("iqsetup", "-q", str(config))
    assert done.returncode == 0, done.stderr
    assert done.stderr == (f"iqsetup: warning: reference A ({broken}): 2 of its 100 lines are empty where the source "
                           "has text (lines 41, 42): every system scores 0 against it there; a translation lost? check "
                           "the file\n")


@pytest.mark.skipif(not (SHARED / "wmt24-encs").is_dir(), reason="needs ../shared/data (WMT12, WMT21, WMT24)")
def test_no_real_reference_or_system() -> None:
    """No reference of ../shared's WMT data has an empty line where the source has text; no system a tenth."""
    for folder in ("wmt12-enxx", "wmt21-ende", "wmt21-enru", "wmt21-ruen", "wmt21-zhen", "wmt24-encs"):
        root = SHARED / folder
        source = next(root.glob("src.*"))
        src = text("src", source.read_text(encoding="utf-8").splitlines())
        references = [text(p.stem, p.read_text(encoding="utf-8").splitlines())
                      for p in sorted((root / "refs").iterdir())]
        systems = []
        for path in sorted((root / "sys").iterdir()):
            try:
                systems.append(text(path.stem, path.read_text(encoding="utf-8").splitlines()))
            except UnicodeDecodeError:
                continue
        assert empty_line_warnings(references, systems, src) == [], folder
