"""End to end: iqsetup with a 'hybridize' section scores systems against the hybridized set."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run

pytestmark = pytest.mark.models

REF_A = ["Machine translation develops constantly .", "The cat sat on the mat .", "He reads a book ."]
REF_B = ["MT progresses persistently .", "A cat was sitting on the mat .", "He is reading a novel ."]
SYSTEM = ["Machine translation progresses .", "The cat sits on a mat .", "He reads a novel ."]


def write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_hybridized_reference_set(tmp_path: Path) -> None:
    config = tmp_path / "e.yaml"
    config.write_text(f"""
cache: {tmp_path / 'cache'}
language: en
references: {{A: {write(tmp_path / 'a.txt', REF_A)}, B: {write(tmp_path / 'b.txt', REF_B)}}}
systems: {{S: {write(tmp_path / 's.txt', SYSTEM)}}}
annotation: {{cache: {tmp_path / 'annotation'}}}
metrics: [BLEU]
hybridize: {{name: HYB, cap: 10}}
""", encoding="utf-8")
    setup = run("iqsetup", str(config))
    assert setup.returncode == 0, setup.stderr
    first = (tmp_path / "cache" / ".hybrid" / "HYB.1").read_text(encoding="utf-8").splitlines()
    second = (tmp_path / "cache" / ".hybrid" / "HYB.2").read_text(encoding="utf-8").splitlines()
    assert first == REF_A and second == REF_B  # originals first
    assert (tmp_path / "cache" / "S" / "HYB" / "BLEU.xml").is_file()
    scored = run("iqeval", "-doOQ", "-R", "HYB", "--tsv", str(config))
    assert scored.returncode == 0, scored.stderr
    rows = [line.split("\t") for line in scored.stdout.splitlines()[1:]]
    assert [(r[0], r[1], r[2]) for r in rows] == [("S", "HYB", "BLEU")]
    assert 0.0 < float(rows[0][6]) <= 1.0
    again = run("iqsetup", str(config))
    assert "0 file(s) computed" in again.stderr
