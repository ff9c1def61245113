"""iqeval's and mteval score's text views: columns aligned in terminal cells whatever the names' scripts
(mteval/cli/text_width.py), and -doref rows named with the references they were scored against."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from helpers import ENDE, ende_config, run

from mteval.cli import text_width
from mteval.cli.output import row_label, write_matrix

SYSTEMS = {"系统甲": "UEdin", "Système-é": "Online-W", "Facebook-AI": "Facebook-AI"}
REFERENCE_ROWS = ["A (ref. vs C,D)", "C (ref. vs A,D)", "D (ref. vs A,C)"]


def cells(text: str) -> int:
    """Terminal cells of ``text``, counted here apart from the code under test."""
    return sum(0 if unicodedata.combining(c) or unicodedata.category(c) == "Cf"
               else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def spans(line: str) -> list[tuple[int, int]]:
    """(first cell, cell after the last) of each column of a table line (columns are 2+ spaces apart)."""
    return [(cells(line[:m.start()]), cells(line[:m.end()])) for m in re.finditer(r"\S+(?: \S+)*", line)]


def assert_aligned(table: list[str], columns: bool = True) -> None:
    """Every line is as many cells wide (each cell is padded to its column's width); with ``columns``,
    every column starts (left-aligned) or ends (right-aligned) at one cell on every line (not so in
    -compare's p-value columns, whose ``-`` is not placed as a number with its ``*``)."""
    assert len({cells(line) for line in table}) == 1, "\n".join(table)
    if not columns:
        return
    found = [spans(line) for line in table]
    assert len({len(s) for s in found}) == 1, table
    for column in zip(*found, strict=True):
        assert len({start for start, _ in column}) == 1 or len({end for _, end in column}) == 1, "\n".join(table)


def tables(text: str, rows: int) -> list[list[str]]:
    """Each table of a text view: its header line and the ``rows`` lines under its rule of dashes
    (the rule as long as the header, in cells)."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        if line and set(line) == {"-"}:
            assert len(line) == cells(lines[i - 1]), (lines[i - 1], line)
            found.append([lines[i - 1], *lines[i + 1:i + 1 + rows]])
    assert found, text
    return found


def test_widths_in_cells() -> None:
    assert text_width.width("BLEU") == 4 and text_width.width("") == 0
    assert text_width.width("系统甲") == 6 and text_width.width("ＡＢ") == 4  # Wide, Fullwidth
    assert text_width.width("한국어") == 6 and text_width.width("カタカナ") == 8
    assert text_width.width("Système-é") == 9  # precomposed: one cell each
    assert text_width.width("Syste\u0300me-e\u0301") == 9  # combining accents: none
    assert text_width.width("a\u200bb\u00ad") == 2  # zero-width space, soft hyphen (Cf): none
    assert text_width.ljust("系统", 6) == "系统  " and text_width.rjust("系统", 6) == "  系统"
    assert text_width.ljust("e\u0301", 3) == "e\u0301  " and text_width.rjust("toolong", 3) == "toolong"


def test_the_matrix_pads_wide_and_combining_names_to_cells() -> None:
    names = ["系统甲", "q\u0303-sys", "plain", "Ｗｉｄｅ\u200b"]
    records = [{"target": t, "refset": "A", "metric": m, "level": "sys", "doc": "-", "segment": "-", "score": 0.5}
               for t in names for m in ("BLEU", "指标")]
    out = io.StringIO()
    write_matrix(records, out)
    (table,) = tables(out.getvalue(), len(names))
    assert [line.split()[0] for line in table] == ["SYS", *names]
    assert_aligned(table)


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The en-de sample's three references (A, C, D) and three systems, two named in other scripts."""
    systems = {name: str(ENDE / "sys" / f"{file}.de") for name, file in SYSTEMS.items()}
    config = ende_config(tmp_path_factory.mktemp("views"), systems=systems, metrics=["BLEU", "chrF"], sets={})
    done = run("iqsetup", "-q", str(config))
    assert done.returncode == 0, done.stderr
    return config


def iqeval(experiment: Path, *options: str) -> str:
    done = run("iqeval", *options, str(experiment))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_iqeval_text_views_align_in_cells(experiment: Path) -> None:
    matrix = iqeval(experiment, "-doOQ")
    (table,) = tables(matrix, 3)
    assert [line.split()[0] for line in table] == ["SYS", *SYSTEMS]
    assert_aligned(table)
    for table in tables(iqeval(experiment, "-doOQ", "-O", "1"), 3):  # one ranking per metric
        assert_aligned(table)
    compared = iqeval(experiment, "-compare", "-M", "BLEU", "--resamples", "100", "--trials", "200")
    ranking, pairwise = tables(compared, 3)  # the ranking with clusters, the pairwise p-values
    assert_aligned(ranking)
    assert_aligned(pairwise, columns=False)
    versus = iqeval(experiment, "-compare", "-baseline", "系统甲", "-M", "BLEU", "--resamples", "100",
                    "--trials", "200")
    (table,) = tables(versus, 3)
    assert "Baseline: 系统甲" in table[1]
    assert_aligned(table, columns=False)
    assert len({spans(line)[3][1] for line in table}) == 1, table  # the scores end at one cell


def test_mteval_score_aligns_wide_file_names(tmp_path: Path) -> None:
    files = []
    for name, file in SYSTEMS.items():
        files.append(tmp_path / f"{name}.de")
        shutil.copy(ENDE / "sys" / f"{file}.de", files[-1])
    done = run("mteval", "score", "-r", str(ENDE / "refs" / "A.de"), "-m", "BLEU,chrF", "-i", *map(str, files))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()[:6]  # a line per system and metric, then the signatures
    assert [line.split()[0] for line in lines] == [str(f) for f in files for _ in range(2)]
    assert len({spans(line)[2][0] for line in lines}) == 1, lines  # the scores start at one cell


def test_doref_rows_name_the_references_they_were_scored_against(experiment: Path) -> None:
    text = iqeval(experiment, "-doOQ", "-doQUEEN", "-doref", "-M", "BLEU")
    (table,) = tables(text, 6)
    assert table[0].split() == ["SYS", "BLEU", "QUEEN"]
    labels = [re.split(r"\s{2,}", line)[0] for line in table[1:]]
    assert labels == [*SYSTEMS, *REFERENCE_ROWS]  # QUEEN and BLEU of a reference on one row
    assert_aligned(table)
    tidy = list(csv.DictReader(io.StringIO(iqeval(experiment, "-doOQ", "-doref", "-M", "BLEU", "--tsv")),
                               delimiter="\t"))
    assert list(tidy[0]) == ["target", "refset", "metric", "level", "doc", "segment", "score", "aggregate"]
    assert [(r["target"], r["refset"]) for r in tidy] == [(s, "A_C_D") for s in SYSTEMS] + [
        ("A", "C_D"), ("C", "A_D"), ("D", "A_C")]
    for line, record in zip(table[1:], tidy, strict=True):
        assert line.split()[-2] == f"{float(record['score']):.4f}"
    records = json.loads(iqeval(experiment, "-doOQ", "-doQUEEN", "-doref", "-M", "BLEU", "--json"))
    assert not any(key.startswith("_") for r in records for key in r)


def test_doref_rows_in_rankings_and_at_segment_level(experiment: Path) -> None:
    ranked = iqeval(experiment, "-doOQ", "-doref", "-M", "BLEU", "-O", "1")
    (table,) = tables(ranked, 6)
    assert sorted(re.split(r"\s{2,}", line.strip())[1] for line in table[1:]) == sorted([*SYSTEMS, *REFERENCE_ROWS])
    assert_aligned(table)
    segments = iqeval(experiment, "-doOQ", "-doref", "-M", "BLEU", "-G", "seg", "-T", "1-2")
    (table,) = tables(segments, 12)
    labels = [re.split(r"\s{2,}", line)[0] for line in table[1:]]
    assert labels[:2] == ["系统甲:1", "系统甲:2"] and labels[6:8] == ["A:1 (ref. vs C,D)", "A:2 (ref. vs C,D)"]
    assert_aligned(table)


def test_a_doref_row_label_at_each_level() -> None:
    base = {"target": "A", "refset": "C_D", "metric": "BLEU", "doc": "d1", "segment": 3, "_against": ("C", "D")}
    assert [row_label({**base, "level": level}) for level in ("sys", "doc", "seg")] == [
        "A (ref. vs C,D)", "A:d1 (ref. vs C,D)", "A:3 (ref. vs C,D)"]
    system = {k: v for k, v in base.items() if k != "_against"}
    assert row_label({**system, "level": "seg"}) == "A:3"  # a system's row: no such key
