"""jiwer's alignment text (``visualize_alignment``) by mteval.metrics.alignment, and ``mteval score --align``.

The expected texts are jiwer v4.0.0's (jitsi/jiwer ``tests/test_alignment.py``, copied with the call
each comes from); they run without jiwer. The side-by-side property test is in test_jiwer_parity.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import run

from mteval.metrics.alignment import process, visualize


def words(ref: str | list[str], hyp: str | list[str], **options: object) -> str:
    """``visualize_alignment(process_words(ref, hyp), **options)``."""
    refs, hyps = ([ref], [hyp]) if isinstance(ref, str) and isinstance(hyp, str) else (ref, hyp)
    return visualize(process(list(refs), list(hyps)), **options)  # type: ignore[arg-type]


def chars(ref: str | list[str], hyp: str | list[str], **options: object) -> str:
    """``visualize_alignment(process_characters(ref, hyp), **options)``."""
    refs, hyps = ([ref], [hyp]) if isinstance(ref, str) and isinstance(hyp, str) else (ref, hyp)
    return visualize(process(list(refs), list(hyps), chars=True), **options)  # type: ignore[arg-type]


# TestAlignmentVisualizationWords: (reference, hypothesis, options, expected)
WORD_CASES = [
    ("this is a", "this is a test", {},
     "=== SENTENCE 1 ===\n\nREF: this is a ****\nHYP: this is a test\n                  I\n"),
    ("this is a test", "this is a", {},
     "=== SENTENCE 1 ===\n\nREF: this is a test\nHYP: this is a ****\n                  D\n"),
    ("this is a test", "this was a test", {},
     "=== SENTENCE 1 ===\n\nREF: this  is a test\nHYP: this was a test\n            S       \n"),
    ("this is a test of skill", "this was a messy test", {},
     "=== SENTENCE 1 ===\n\nREF: this  is a ***** test of skill\nHYP: this was a messy test ** *****\n"
     "            S       I       D     D\n"),
    ("empty", "", {}, "=== SENTENCE 1 ===\n\nREF: empty\nHYP: *****\n         D\n"),
    (["one", "two"], ["1", "2"], {},
     "=== SENTENCE 1 ===\n\nREF: one\nHYP:   1\n       S\n\n=== SENTENCE 2 ===\n\nREF: two\nHYP:   2\n       S\n"),
    (["perfect", "one", "two", "three"], ["perfect", "1", "2", "three"], {},
     "=== SENTENCE 2 ===\n\nREF: one\nHYP:   1\n       S\n\n=== SENTENCE 3 ===\n\nREF: two\nHYP:   2\n       S\n"),
    ("", "", {}, ""),
    ("", "inserted", {}, "=== SENTENCE 1 ===\n\nREF: ********\nHYP: inserted\n            I\n"),
    ("this sentence could be split", "this sentence will be split by ai", {"line_width": 30},
     "=== SENTENCE 1 ===\n\nREF: this sentence could be\nHYP: this sentence  will be\n                       S   \n\n"
     "REF: split ** **\nHYP: split by ai\n            I  I\n"),
]
# TestAlignmentVisualizationCharacters
CHAR_CASES = [
    ("this is a", "this is a test", {},
     "=== SENTENCE 1 ===\n\nREF: this is a*****\nHYP: this is a test\n              IIIII\n"),
    ("this is a test", "this is a", {},
     "=== SENTENCE 1 ===\n\nREF: this is a test\nHYP: this is a*****\n              DDDDD\n"),
    ("this is a test", "this iz a test", {},
     "=== SENTENCE 1 ===\n\nREF: this is a test\nHYP: this iz a test\n           S       \n"),
    ("this is a test of skill", "this was a messy test", {},
     "=== SENTENCE 1 ===\n\nREF: this *is a tes*t of skill\nHYP: this was a messy te*st***\n"
     "          IS    S  IS SSD SDDD\n"),
    ("empty", "", {}, "=== SENTENCE 1 ===\n\nREF: empty\nHYP: *****\n     DDDDD\n"),
    (["one", "two"], ["1", "2"], {},
     "=== SENTENCE 1 ===\n\nREF: one\nHYP: 1**\n     SDD\n\n=== SENTENCE 2 ===\n\nREF: two\nHYP: 2**\n     SDD\n"),
    ("", "", {}, ""),
    ("", "inserted", {}, "=== SENTENCE 1 ===\n\nREF: ********\nHYP: inserted\n     IIIIIIII\n"),
    ("this sentence could be split", "this sentence will be split by ai", {"line_width": 30},
     "=== SENTENCE 1 ===\n\nREF: this sentence could be sp\nHYP: this sentence will* be sp\n"
     "                   SSS D      \n\nREF: lit******\nHYP: lit by ai\n        IIIIII\n"),
]


@pytest.mark.parametrize(("ref", "hyp", "options", "expected"), WORD_CASES)
def test_word_alignment_as_jiwer_prints_it(ref: str, hyp: str, options: dict[str, int], expected: str) -> None:
    assert words(ref, hyp, show_measures=False, **options) == expected


@pytest.mark.parametrize(("ref", "hyp", "options", "expected"), CHAR_CASES)
def test_character_alignment_as_jiwer_prints_it(ref: str, hyp: str, options: dict[str, int], expected: str) -> None:
    assert chars(ref, hyp, show_measures=False, **options) == expected


def test_summaries_as_jiwer_prints_them() -> None:
    # test_alignment.py: TestAlignmentVisualizationWords/Characters.test_show_measures
    ref, hyp = "this test will  have a high word error rate", "no it will not"
    assert words(ref, hyp) == (
        "=== SENTENCE 1 ===\n\nREF: this test will have a high word error rate\n"
        "HYP:   no   it will  not * **** **** ***** ****\n        S    S         S D    D    D     D    D\n\n"
        "=== SUMMARY ===\nnumber of sentences: 1\nsubstitutions=3 deletions=5 insertions=0 hits=1\n\n"
        "mer=88.89%\nwil=97.22%\nwip=2.78%\nwer=88.89%\n")
    assert chars(ref, hyp) == (
        "=== SENTENCE 1 ===\n\nREF: this test will  have a high word error rate\n"
        "HYP: no** i**t will n*************o***********t*\n     SSDD SDD       SDDDDDDDDDDDDD DDDDDDDDDDD D\n\n"
        "=== SUMMARY ===\nnumber of sentences: 1\nsubstitutions=4 deletions=29 insertions=0 hits=10\n\ncer=76.74%\n")


def test_score_align_prints_each_system_against_each_reference(tmp_path: Path) -> None:
    ref, ref2, hyp = tmp_path / "ref.txt", tmp_path / "ref2.txt", tmp_path / "sys.txt"
    ref.write_text("this is a test\nhello world\n", encoding="utf-8")
    ref2.write_text("this is the test\nhello world\n", encoding="utf-8")
    hyp.write_text("this was a test\nhello world\n", encoding="utf-8")
    mteval = str(Path(sys.executable).with_name("mteval"))
    done = run(mteval, "score", "-q", "-r", str(ref), "-r", str(ref2), "-i", str(hyp), "-m", "MER,WIP", "--align")
    assert done.returncode == 0, done.stderr
    head, first, second = done.stdout.split(f"\n=== {hyp} vs ")
    assert head.splitlines()[0].split() == ["MER", "0.1667"]
    assert first.startswith(f"{ref} (words) ===\n\n=== SENTENCE 1 ===\n\nREF: this  is a test\n")
    assert first.endswith("mer=16.67%\nwil=30.56%\nwip=69.44%\nwer=16.67%\n")
    assert second.startswith(f"{ref2} (words) ===\n\n=== SENTENCE 1 ===\n\nREF: this  is the test\n")
    chars_only = run(mteval, "score", "-q", "-r", str(ref), "-i", str(hyp), "-m", "CER", "--align", "chars")
    assert "(characters) ===" in chars_only.stdout and chars_only.stdout.endswith("cer=8.00%\n")
    refused = run(mteval, "score", "-q", "-r", str(ref), "-i", str(hyp), "-m", "CER", "--align", "-f", "json")
    assert refused.returncode != 0 and "--align" in refused.stderr
