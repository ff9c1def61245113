"""End to end with the installed commands: sacreBLEU's options as metric names, from iqsetup to iqeval.

An experiment of the bundled ru-en sample (2 systems, references A and B) computing
``sacreBLEU(tok=intl)``, ``chrF(beta=3)`` and ``TER(normalized=yes)``: iqsetup writes their files,
iqeval reads them by name, and every system score is sacreBLEU 2.6.0's corpus score (committed in
``tests/data/sacrebleu_parity/cases.json``, ``computed.end_to_end``; and the installed sacreBLEU's, when
there is one, for a -T subset). ``mteval score`` prints sacreBLEU's signature; ``mteval metrics`` lists
the parameters.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from helpers import ROOT, RUEN, ruen_experiment, run

METRICS = ["sacreBLEU(tok=intl)", "chrF(beta=3)", "TER(normalized=yes)"]
SYSTEMS = ("AFRL", "Online-B")
EXPECTED = json.loads((ROOT / "tests" / "data" / "sacrebleu_parity" / "cases.json").read_text(encoding="utf-8"))[
    "computed"]["end_to_end"]


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ruen_experiment(tmp_path_factory.mktemp("sacrebleu-e2e"), "sacrebleu-options", SYSTEMS, METRICS)


def records(*args: str) -> list[dict[str, str]]:
    done = run("iqeval", "-doOQ", "--tsv", *args)
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout), delimiter="\t"))


def test_iqsetup_writes_one_file_per_name(experiment: Path) -> None:
    for system in SYSTEMS:
        for refset in ("A", "B", "A_B"):
            for metric in METRICS:
                assert (experiment.parent / "cache" / system / refset / f"{metric}.xml").is_file()


@pytest.mark.parametrize("metric", METRICS)
def test_iqeval_reads_each_name_and_gives_sacrebleus_corpus_scores(experiment: Path, metric: str) -> None:
    rows = records("-G", "sys", "-M", metric, "-R", "A", str(experiment)) + records(
        "-G", "sys", "-M", metric, str(experiment))
    assert {(r["refset"], r["metric"]) for r in rows} == {("A", metric), ("A_B", metric)}
    for row in rows:
        expected = EXPECTED[f"{row['target']}/{row['refset']}/{metric}"]
        assert float(row["score"]) == pytest.approx(expected, abs=1e-9), row


def test_a_subset_is_sacrebleus_score_of_those_lines(experiment: Path) -> None:
    """-T 1-10: the score of the summed statistics of lines 1-10, which is sacreBLEU's on those lines."""
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed")
    refs = [(RUEN / "refs" / f"{r}.en").read_text(encoding="utf-8").split("\n")[:10] for r in "AB"]
    for row in records("-G", "sys", "-T", "1-10", "-M", "sacreBLEU(tok=intl)", str(experiment)):
        hyps = (RUEN / "sys" / f"{row['target']}.en").read_text(encoding="utf-8").split("\n")[:10]
        expected = sacrebleu.metrics.BLEU(tokenize="intl").corpus_score(hyps, refs).score
        assert float(row["score"]) == pytest.approx(expected, abs=1e-9)


def test_mteval_score_prints_sacrebleus_signature() -> None:
    done = run("mteval", "score", "-q", "-r", str(RUEN / "refs" / "A.en"), "-i", str(RUEN / "sys" / "AFRL.en"),
               "-m", "sacreBLEU(tok=intl),chrF(beta=3)")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["sacreBLEU(tok=intl)", f"{EXPECTED['AFRL/A/sacreBLEU(tok=intl)']:.4f}"]
    assert lines[2].startswith("sacreBLEU(tok=intl)|nrefs:1|case:mixed|eff:no|tok:intl|smooth:exp|version:2.6.0|")
    assert lines[3].startswith("chrF(beta=3)|nrefs:1|metric:chrF(beta=3)|") and "|beta:3|" in lines[3]


def test_mteval_metrics_lists_the_parameters() -> None:
    table = run("mteval", "metrics")
    assert table.returncode == 0 and "sacreBLEU(tok,smooth,smooth_value,order,eff,lc)" in table.stdout
    long = run("mteval", "metrics", "--long").stdout.splitlines()
    at = long.index("sacreBLEU: sacreBLEU")
    assert long[at + 1] == "  parameters of sacreBLEU, as NAME(key=value,...):"
    assert long[at + 2].split()[:6] == ["tok", "13a|none|intl|char|zh|ja-mecab|ko-mecab|flores101|flores200|spBLEU-1K",
                                        "(spm:", "flores101)", "default", "13a"]
    assert any(line.split()[:4] == ["beta", "int", "1..", "default"] for line in long)
    named = run("mteval", "metrics", "chrF(beta=3)", "sacreBLEU(order=2,tok=intl)")
    assert named.stdout.splitlines() == [
        "chrF(beta=3): variant chrF with char_order=6 word_order=0 beta=3 eps_smoothing=no whitespace=no "
        "(family chrF)",
        "sacreBLEU(order=2,tok=intl): variant sacreBLEU with tok=intl smooth=exp smooth_value=nan order=2 eff=no "
        "lc=no (canonical name sacreBLEU(tok=intl,order=2)) (family sacreBLEU)"]
