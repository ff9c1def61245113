"""``iqeval -assessments`` on part of the campaign, checked against numbers computed here: a -T subset
at -G sys (both sides of the selected segments, as ``-doOQ -T`` scores them), ``--mean-removed``
with a metric that lacks segments (each metric on its own support), ``--average`` at -G sys (a
segment-level grouping: no effect there). Found by an audit that recomputed every correlation with
numpy/scipy: before, -T was ignored at -G sys, a metric's mean-removed value changed with the
metrics listed before it, and ``-G sys --average item`` gave NaN (and a permutation p-value of 0)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from helpers import ENDE, ende_config, run
from test_bad_input import assert_user_error

SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")
MQM = ENDE / "human" / "mqm.tsv"


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The en-de sample, its 6 judged systems, BLEU and chrF, scored."""
    config = ende_config(tmp_path_factory.mktemp("subsets"), metrics=["BLEU", "chrF"],
                         systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    return config


def records(*args: str) -> list[dict[str, str]]:
    done = subprocess.run(["iqeval", *args, "--tsv"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout), delimiter="\t"))


def human_means(rows: range) -> dict[str, float]:
    """Each system's mean MQM over the segments ``rows`` (1-based), from the file."""
    judged: dict[str, list[float]] = {}
    for line in MQM.read_text(encoding="utf-8").splitlines()[1:]:
        system, segment, score = line.split("\t")
        if int(segment) in rows:
            judged.setdefault(system, []).append(float(score))
    return {system: float(np.mean(scores)) for system, scores in judged.items()}


def test_subset_at_system_level(experiment: Path, tmp_path: Path) -> None:
    """-G sys -T 1-50: Pearson of the systems' -doOQ -T scores with their mean MQM over lines 1-50;
    the same in mteval report's JSON; not the whole test set's value."""
    scored = records("-doOQ", "-G", "sys", "-T", "1-50", "-M", "BLEU,chrF", str(experiment))
    human = human_means(range(1, 51))
    expected = {}
    for metric in ("BLEU", "chrF"):
        metric_scores = {r["target"]: float(r["score"]) for r in scored if r["metric"] == metric}
        expected[metric] = scipy.stats.pearsonr([human[s] for s in SYSTEMS], [metric_scores[s] for s in SYSTEMS])[0]
    common = ["-assessments", str(MQM), "-G", "sys", "--corr", "pearson", "--resamples", "20", "-M", "BLEU,chrF"]
    got = {r["metric"]: float(r["score"]) for r in records(*common, "-T", "1-50", str(experiment))}
    whole = {r["metric"]: float(r["score"]) for r in records(*common, str(experiment))}
    assert got == {m: pytest.approx(v, abs=1e-12) for m, v in expected.items()}
    assert all(abs(got[m] - whole[m]) > 1e-3 for m in got)
    out = tmp_path / "report.json"
    report = subprocess.run(["mteval", "report", str(experiment), "-assessments", str(MQM), "-T", "1-50", "-M", "BLEU",
                             "-q", "--resamples", "20", "--trials", "20", "--json", str(out), "-o",
                             str(tmp_path / "report.html")], capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    page = json.loads(out.read_text(encoding="utf-8"))
    assert page["human"]["system"][0]["score"] == pytest.approx(expected["BLEU"], abs=1e-12)


def test_system_level_judgements_cannot_be_narrowed(experiment: Path, tmp_path: Path) -> None:
    human = tmp_path / "human.tsv"
    human.write_text("".join(f"{s}\t-\t{v}\n" for s, v in human_means(range(1, 101)).items()), encoding="utf-8")
    assert len(records("-assessments", str(human), "-G", "sys", "--corr", "pearson", "--resamples", "20",
                       str(experiment))) == 2
    done = subprocess.run(["iqeval", "-assessments", str(human), "-G", "sys", "-T", "1-50", str(experiment)],
                          capture_output=True, text=True, timeout=300)
    assert_user_error(done, "-T: system", "is judged at system level only")


def drop_in(experiment: Path, metric: str, missing_every: int) -> None:
    """A user's metric: chrF's segment scores with every ``missing_every``-th segment ``nan``."""
    cache = experiment.parent / "cache"
    for system in SYSTEMS:
        found = records("-doOQ", "-G", "seg", "-M", "chrF", "-S", system, str(experiment))
        scores, refset = [float(r["score"]) for r in found], found[0]["refset"]  # every reference: A_C_D
        lines = [f'<IQ metric="{metric}" ref="{refset}" score="0.5" target="{system}">']
        lines += [f'<S n="{n}">{"nan" if n % missing_every == 0 else repr(v)}' for n, v in enumerate(scores, 1)]
        (cache / system / refset / f"{metric}.xml").write_text("\n".join([*lines, "</IQ>"]) + "\n", encoding="utf-8")


def test_mean_removed_on_each_metrics_support(experiment: Path) -> None:
    """chrF's mean-removed Pearson is the same whichever metric comes first in -M, here one that
    lacks a third of the segments (before: the human vector was mean-removed on the first metric's
    support, and chrF got 0.0x less)."""
    drop_in(experiment, "SPARSE", 3)

    def chrf(metrics: str) -> dict[str, str]:
        found = records("-assessments", str(MQM), "-G", "seg", "--mean-removed", "--corr", "pearson", "--resamples",
                        "20", "-M", metrics, str(experiment))
        (row,) = [r for r in found if r["metric"] == "chrF" and r["variant"] == "mean-removed"]
        return row

    alone, after = chrf("chrF"), chrf("SPARSE,chrF")
    assert alone["score"] == after["score"] and alone["n"] == after["n"] == "600"
    sparse = [r for r in records("-assessments", str(MQM), "-G", "seg", "--mean-removed", "--corr", "pearson",
                                 "--resamples", "20", "-M", "SPARSE,chrF", str(experiment))
              if r["metric"] == "SPARSE" and r["variant"] == "mean-removed"]
    assert sparse[0]["n"] == "402"  # 67 of 100 segments for each of the 6 systems


def test_average_is_a_segment_level_grouping(experiment: Path) -> None:
    """At -G sys each system is one point: --average item or sys changes nothing (before: NaN), and
    the tests' p-values are those of --average none (before: NaN differences, perm-both p = 0)."""
    common = ["-assessments", str(MQM), "-G", "sys", "--corr", "pearson", "--significance", "--resamples", "50",
              "-M", "BLEU,chrF", str(experiment)]
    plain = records(*common, "--average", "none")
    for average in ("item", "sys"):
        grouped = records(*common, "--average", average)
        assert [(r["metric"], r["score"], r.get("p_value")) for r in grouped] == \
               [(r["metric"], r["score"], r.get("p_value")) for r in plain]
    assert all(not np.isnan(float(r["score"])) for r in plain)
