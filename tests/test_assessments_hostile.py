"""Issue 29, human-judgement files (``iqeval -assessments FILE``), run through the installed iqeval:
the score column of Asiya's CSV is chosen by its exact name (F06), segment ids and scores need ASCII
digits (F10), a FIFO is refused before it is opened (F13), and a UTF-8 BOM is dropped (F19); the
docids file, the other small file iqeval reads beside the texts, is checked for FIFOs and BOMs too."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SHARED
from helpers import ENDE, ende_config, run
from test_bad_input import assert_user_error

SYSTEMS = ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation")
MQM = ENDE / "human" / "mqm.tsv"
ASIYA_HEADER = "systemId,documentId,segmentId,judgeId,score"


def judgements() -> list[tuple[str, str, str]]:
    """(system, segment, score) of the bundled MQM file (600 rows, 6 systems, 100 segments)."""
    rows = [line.split("\t") for line in MQM.read_text(encoding="utf-8").splitlines()[1:]]
    return [(s, seg, score) for s, seg, score in rows]


def asiya_csv(path: Path, header: str, row: str = "{system},,{segment},J,{score}", bom: bool = False) -> Path:
    """The MQM judgements as Asiya's CSV; ``row`` formats one line (``raw`` = the negated score)."""
    lines = [f"# {header}"] + [row.format(system=s, segment=seg, score=score, raw=-float(score))
                               for s, seg, score in judgements()]
    path.write_text(("\ufeff" if bom else "") + "\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The en-de sample, its 6 judged systems, BLEU only, scored."""
    config = ende_config(tmp_path_factory.mktemp("hostile"), metrics=["BLEU"],
                         systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def iqeval(experiment: Path, human: Path, level: str = "sys") -> subprocess.CompletedProcess[str]:
    """iqeval -assessments, Pearson only, as TSV (a bounded run: a blocked read fails the test)."""
    return subprocess.run(["iqeval", "-assessments", str(human), "-G", level, "--corr", "pearson", "--resamples",
                           "20", "--tsv", str(experiment)], capture_output=True, text=True, timeout=120)


def pearson(result: subprocess.CompletedProcess[str]) -> float:
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout), delimiter="\t"))
    assert len(rows) == 1 and rows[0]["metric"] == "BLEU", result.stdout
    return float(rows[0]["score"])


@pytest.fixture(scope="module")
def expected(experiment: Path) -> dict[str, float]:
    """Pearson of BLEU with the BOM-less MQM TSV, at -G sys and -G seg (the reference numbers)."""
    return {level: pearson(iqeval(experiment, MQM, level)) for level in ("sys", "seg")}


@pytest.mark.parametrize(("header", "row"), [
    (ASIYA_HEADER, "{system},,{segment},J,{score}"),
    # F06: the first field containing "score", rawScore (here the negated score), was taken: Pearson flipped sign
    ("systemId,documentId,segmentId,judgeId,rawScore,score", "{system},,{segment},J,{raw},{score}"),
    ("systemId,documentId,segmentId,judgeId,score,rawScore,zScore", "{system},,{segment},J,{score},{raw},{raw}"),
    ("SYSTEMID, documentId, segmentid, JudgeId, Score, startTime", "{system}, , {segment}, J, {score}, 0"),
    ("score,segmentId,systemId", "{score},{segment},{system}"),
])
def test_score_column_is_chosen_by_its_exact_name(experiment: Path, expected: dict[str, float], tmp_path: Path,
                                                  header: str, row: str) -> None:
    human = asiya_csv(tmp_path / "human.csv", header, row)
    for level in ("sys", "seg"):
        assert pearson(iqeval(experiment, human, level)) == pytest.approx(expected[level], abs=1e-12)


def test_the_score_field_decides_the_sign(experiment: Path, expected: dict[str, float], tmp_path: Path) -> None:
    """The control of the test above: negated values under ``score`` flip the correlation, so a reader
    that took ``rawScore`` there would have been caught."""
    human = asiya_csv(tmp_path / "human.csv", "systemId,documentId,segmentId,judgeId,rawScore,score",
                      "{system},,{segment},J,{score},{raw}")
    assert expected["sys"] > 0.1 and expected["seg"] > 0.1
    for level in ("sys", "seg"):
        assert pearson(iqeval(experiment, human, level)) == pytest.approx(-expected[level], abs=1e-12)


@pytest.mark.parametrize(("header", "fragments"), [
    ("systemId,documentId,segmentId,judgeId,rawScore", ("human.csv:1:", "no field named 'score'", "'rawScore'")),
    ("systemId,documentId,segmentId,judgeId,rawScore,zScore",
     ("human.csv:1:", "no field named 'score'", "'rawScore', 'zScore'", "not chosen by guess")),
    ("systemId,documentId,segmentId,judgeId,score,Score", ("human.csv:1:", "names field 'Score' twice")),
    ("systemId,segmentId,systemId,score", ("human.csv:1:", "names field 'systemId' twice")),
    ("documentId,segmentId,judgeId,score", ("human.csv:1:", "no systemId field")),
    ("systemId,documentId,segmentId,judgeId,grade", ("human.csv:1:", "no score field")),
])
def test_score_column_is_never_guessed(experiment: Path, tmp_path: Path, header: str,
                                       fragments: tuple[str, ...]) -> None:
    human = asiya_csv(tmp_path / "human.csv", header, "{system},,{segment},J,{score},{score}")
    assert_user_error(iqeval(experiment, human), *fragments)


@pytest.mark.parametrize(("header", "order"), [
    ("system\tsegment\tscore", (0, 1, 2)),
    ("system score segment", (0, 2, 1)),  # read by position before: scores and line numbers swapped
    ("system\tmqm_avg_score\tseg_id", (0, 2, 1)),  # Google's published MQM files
    ("seg_id\tSYSTEM\tscore", (1, 0, 2)),
    ("#system\tscore\tline", (0, 2, 1)),  # a header commented out: skipped before, columns taken by position
    ("# judged by 3 raters\n# seg_id system score", (1, 0, 2)),
])
def test_tsv_columns_are_named_by_the_header(experiment: Path, expected: dict[str, float], tmp_path: Path,
                                             header: str, order: tuple[int, int, int]) -> None:
    """The simple TSV's header says which column is which; Google's ``None`` (not rated) rows are no
    judgement. The scores are made integers of 0-100 (as DA's raw scores), so that a swapped reading
    would find line numbers among them."""
    rows = [(s, seg, str(100 + round(float(score) * 4))) for s, seg, score in judgements()]  # 0-100
    lines = [header] + ["\t".join((s, seg, score)[i] for i in _inverse(order)) for s, seg, score in rows]
    lines += ["\t".join((s, str(n), "None")[i] for i in _inverse(order)) for s in SYSTEMS for n in (99, 100)]
    human = tmp_path / "human.tsv"
    human.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plain = tmp_path / "plain.tsv"
    plain.write_text("\n".join("\t".join(row) for row in rows) + "\n", encoding="utf-8")
    for level in ("sys", "seg"):
        assert pearson(iqeval(experiment, human, level)) == pearson(iqeval(experiment, plain, level))
    assert pearson(iqeval(experiment, plain, "sys")) == pytest.approx(expected["sys"], abs=0.05)


def _inverse(order: tuple[int, int, int]) -> list[int]:
    """Which of (system, segment, score) goes in each column, given each one's column."""
    return [order.index(column) for column in range(3)]


@pytest.mark.parametrize(("text", "fragments"), [
    ("system\tscore\tdocument\nUEdin\t1\t1\n", ("human.tsv:1:", "must name one segment column", "seg_id")),
    ("system\tline\tsegment\nUEdin\t1\t1\n", ("human.tsv:1:", "must name one segment column")),
    ("system\tline\tscore\tjudge\nUEdin\t1\t1\tJ\n", ("human.tsv:1:", "a header of 3 columns", "got 4")),
    ("system\tline\tscore\nUEdin\t1\tNaN\n", ("human.tsv:2:", "score is 'NaN', not a finite number")),
])
def test_tsv_header_without_its_columns_is_refused(experiment: Path, tmp_path: Path, text: str,
                                                  fragments: tuple[str, ...]) -> None:
    human = tmp_path / "human.tsv"
    human.write_text(text, encoding="utf-8")
    assert_user_error(iqeval(experiment, human, "seg"), *fragments)


@pytest.mark.parametrize(("text", "fragments"), [
    ("UEdin\t\u00b2\t1\n", ("human.tsv:1:", "segment id '²' is not a positive integer")),  # F10: isdigit, not int
    ("UEdin\t1\t0\nUEdin\t\u0663\t1\n", ("human.tsv:2:", "segment id '٣' is not a positive integer")),
    ("UEdin\t\uff11\t1\n", ("human.tsv:1:", "segment id '１' is not a positive integer")),
    ("UEdin\t1_0\t1\n", ("human.tsv:1:", "segment id '1_0' is not a positive integer")),
    ("UEdin\t000\t1\n", ("human.tsv:1:", "segment id '000' is not a positive integer")),
    ("UEdin\t" + "1" * 5000 + "\t1\n", ("human.tsv:1:", "is beyond the 100 segments")),
    ("UEdin\t1\t\u0663\n", ("human.tsv:1:", "score '٣' is not a number")),
    ("UEdin\t1\t1_0\n", ("human.tsv:1:", "score '1_0' is not a number")),
    ("UEdin\t1\t1e999\n", ("human.tsv:1:", "score is '1e999', not a finite number")),
    ("# " + ASIYA_HEADER + "\nUEdin,,\u00b2,J,1\n", ("human.tsv:2:", "segment id '²' is not a positive integer")),
    ("# " + ASIYA_HEADER + "\nUEdin,UNKNOWN_DOC,\u00b9,J,1\n", ("human.tsv:2:", "segment id '¹'")),
    ("# " + ASIYA_HEADER + "\n,,1,J,1\n", ("human.tsv:2:", "empty systemId")),
])
def test_segment_ids_and_scores_need_ascii_digits(experiment: Path, tmp_path: Path, text: str,
                                                  fragments: tuple[str, ...]) -> None:
    human = tmp_path / "human.tsv"
    human.write_text(text, encoding="utf-8")
    assert_user_error(iqeval(experiment, human, "seg"), *fragments)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_without_blocking(experiment: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "human.tsv"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = iqeval(experiment, fifo)  # timeout=120: a blocking open would raise TimeoutExpired
    assert time.monotonic() - started < 60
    assert_user_error(result, f"{fifo}:", "is a FIFO (named pipe)")


def test_directory_and_missing_file_are_refused(experiment: Path, tmp_path: Path) -> None:
    assert_user_error(iqeval(experiment, tmp_path), f"{tmp_path}:", "is a directory")
    assert_user_error(iqeval(experiment, tmp_path / "none.tsv"), "none.tsv:", "file not found")


def test_utf8_bom_gives_the_same_numbers(experiment: Path, expected: dict[str, float], tmp_path: Path) -> None:
    tsv = tmp_path / "bom.tsv"
    tsv.write_bytes(b"\xef\xbb\xbf" + MQM.read_bytes())  # F19: was "segment id 'segment' ..."
    crlf = tmp_path / "crlf.tsv"
    crlf.write_bytes(b"\xef\xbb\xbf" + MQM.read_bytes().replace(b"\n", b"\r\n"))
    asiya = asiya_csv(tmp_path / "bom.csv", ASIYA_HEADER, bom=True)
    for human in (tsv, crlf, asiya):
        for level in ("sys", "seg"):
            assert pearson(iqeval(experiment, human, level)) == pytest.approx(expected[level], abs=1e-12)
    utf16 = tmp_path / "utf16.tsv"
    utf16.write_bytes(MQM.read_text(encoding="utf-8").encode("utf-16"))
    assert_user_error(iqeval(experiment, utf16), "utf16.tsv:1:", "UTF-16")


def docids_experiment(folder: Path, docids: Path) -> Path:
    """The judged en-de experiment with documents: ids from ``docids`` (own cache in ``folder``)."""
    folder.mkdir(exist_ok=True)
    return ende_config(folder, metrics=["BLEU"], docids=str(docids),
                       systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})


def test_docids_with_bom_name_the_same_documents(expected: dict[str, float], tmp_path: Path) -> None:
    """A BOM on the docids file must not rename its first document ('\\ufeffd1' would end after line 1,
    and Asiya's CSV judging d1's 50th segment would be refused)."""
    docids = tmp_path / "bom.docids"
    docids.write_text("\ufeff" + "d1\n" * 50 + "d2\n" * 50, encoding="utf-8")
    config = docids_experiment(tmp_path / "exp", docids)
    assert run("iqsetup", "-q", str(config)).returncode == 0
    human = tmp_path / "docs.csv"  # segmentId counts within its document
    rows = [f"{s},d{1 + (int(seg) > 50)},{(int(seg) - 1) % 50 + 1},J,{score}" for s, seg, score in judgements()]
    human.write_text("\n".join([f"# {ASIYA_HEADER}", *rows]) + "\n", encoding="utf-8")
    for level in ("sys", "seg"):
        assert pearson(iqeval(config, human, level)) == pytest.approx(expected[level], abs=1e-12)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_docids_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "ids.docids"
    os.mkfifo(fifo)
    config = docids_experiment(tmp_path / "exp", fifo)
    result = subprocess.run(["iqeval", "-assessments", str(MQM), "-G", "sys", str(config)], capture_output=True,
                            text=True, timeout=120)
    assert_user_error(result, f"{fifo}:", "is a FIFO (named pipe)")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_report_and_tune_read_judgements_the_same_way(experiment: Path, tmp_path: Path) -> None:
    """``mteval report -assessments`` and ``mteval tune --assessments`` share the reader: one line, exit 2,
    and no report written."""
    fifo = tmp_path / "human.tsv"
    os.mkfifo(fifo)
    out = tmp_path / "report.html"
    report = subprocess.run(["mteval", "report", str(experiment), "-assessments", str(fifo), "-o", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert_user_error(report, f"{fifo}:", "is a FIFO (named pipe)")
    assert not out.exists()
    bad = asiya_csv(tmp_path / "raw.csv", "systemId,documentId,segmentId,judgeId,rawScore,zScore",
                    "{system},,{segment},J,{raw},{raw}")
    tune = subprocess.run(["mteval", "tune", str(experiment), "--assessments", str(bad), "-M", "BLEU",
                           "--folds-by-line"], capture_output=True, text=True, timeout=120)
    errors = [line for line in tune.stderr.splitlines() if not line.startswith("mteval: warning:")]  # folds by line
    assert tune.returncode == 2 and "Traceback" not in tune.stderr and len(errors) == 1, tune.stderr
    assert errors[0].startswith("mteval: error: ") and "raw.csv:1:" in errors[0] and "'rawScore', 'zScore'" in errors[0]


def test_unknown_systems_are_refused_or_skipped(experiment: Path, expected: dict[str, float], tmp_path: Path) -> None:
    """A published file rates more systems than the experiment scores (Google's MQM files: ref-A,
    metricsystem1-5): refused by default, naming the option; ``--unknown-systems skip`` leaves their
    rows out with one warning line naming them, and the numbers are those of the file without them.
    ``mteval report`` and the Python API take the same option."""
    human = tmp_path / "human.tsv"
    human.write_text(MQM.read_text(encoding="utf-8") + "Ghost\t1\t-3\nGhost\t2\t-1\nref-A\t1\t0\n", encoding="utf-8")
    refused = iqeval(experiment, human)
    assert_user_error(refused, "human.tsv:602:", "unknown system 'Ghost'", "--unknown-systems skip")
    skipped = subprocess.run(["iqeval", "-assessments", str(human), "--unknown-systems", "skip", "-G", "sys", "--corr",
                              "pearson", "--resamples", "20", "--tsv", str(experiment)],
                             capture_output=True, text=True, timeout=120)
    assert pearson(skipped) == pytest.approx(expected["sys"], abs=1e-12)
    assert (f"iqeval: warning: {human}: the rows of 2 system(s) the experiment lacks are left out (--unknown-systems "
            "skip): Ghost (2), ref-A (1)") in skipped.stderr.splitlines()
    out = tmp_path / "report.html"
    report = subprocess.run(["mteval", "report", str(experiment), "-assessments", str(human), "--unknown-systems",
                             "skip", "-q", "--resamples", "20", "--trials", "20", "-o", str(out)],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0 and out.is_file(), report.stderr
    assert "the rows of 2 system(s) the experiment lacks are left out" in report.stderr
    import mteval

    records = mteval.load(experiment).correlations(human, "sys", corr="pearson", resamples=20, unknown_systems="skip")
    assert [r["score"] for r in records if r["metric"] == "BLEU"] == [pytest.approx(expected["sys"], abs=1e-12)]


@pytest.fixture(scope="module")
def two_metrics(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The en-de sample, its 6 judged systems, BLEU and chrF, scored."""
    config = ende_config(tmp_path_factory.mktemp("two"), metrics=["BLEU", "chrF"],
                         systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def test_lower_is_better_judgements(two_metrics: Path, tmp_path: Path) -> None:
    """MQM penalties written as positive numbers (lower is better): every metric correlates
    negatively, and iqeval and mteval report say so in one line; --human-lower-better negates them,
    giving the numbers of the higher-is-better file, without the line."""
    penalties = tmp_path / "penalties.tsv"
    penalties.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{seg}\t{-float(score)}\n"
                                                             for s, seg, score in judgements()), encoding="utf-8")

    def table(human: Path, *extra: str) -> tuple[dict[str, float], str]:
        done = subprocess.run(["iqeval", "-assessments", str(human), *extra, "-G", "sys", "--corr", "pearson",
                               "--resamples", "20", "--tsv", str(two_metrics)], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return ({row["metric"]: float(row["score"]) for row in csv.DictReader(io.StringIO(done.stdout),
                                                                              delimiter="\t")}, done.stderr)

    plain, quiet = table(MQM)
    reversed_, said = table(penalties)
    fixed, quiet_too = table(penalties, "--human-lower-better")
    assert min(plain.values()) > 0.1 and reversed_ == {m: pytest.approx(-v, abs=1e-12) for m, v in plain.items()}
    assert fixed == {m: pytest.approx(v, abs=1e-12) for m, v in plain.items()}
    line = (f"iqeval: warning: {penalties}: every metric's pearson with these judgements is negative "
            f"({min(reversed_.values()):.2f} to {max(reversed_.values()):.2f}), while the metrics' scores are "
            "oriented higher-is-better: if lower is better in this file (errors, MQM penalties, HTER, ranks), add "
            "--human-lower-better")
    assert line in said.splitlines() and "every metric" not in quiet + quiet_too
    out = tmp_path / "report.html"
    report = subprocess.run(["mteval", "report", str(two_metrics), "-assessments", str(penalties), "-q",
                             "--resamples", "20", "--trials", "20", "-o", str(out)],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    assert "every metric's pearson with these judgements is negative" in report.stderr
    page = out.read_text(encoding="utf-8")
    assert 'id="warnings"' in page and "add --human-lower-better" in page


def test_tune_reads_judgements_as_iqeval(tmp_path: Path) -> None:
    """``mteval tune`` refuses a judgement of a system the experiment lacks (before: dropped silently,
    so a misspelt name lost a system's judgements), and takes iqeval's two options."""
    config = ende_config(tmp_path, metrics=["BLEU", "chrF"],
                         systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    human = tmp_path / "human.tsv"
    human.write_text(MQM.read_text(encoding="utf-8") + "Ghost\t1\t-3\n", encoding="utf-8")
    tune = ["mteval", "tune", str(config), "--assessments", str(human), "-M", "BLEU,chrF", "--folds-by-line",
            "--resamples", "20"]
    refused = subprocess.run(tune, capture_output=True, text=True, timeout=300)
    errors = [line for line in refused.stderr.splitlines() if not line.startswith("mteval: warning:")]
    assert refused.returncode == 2 and len(errors) == 1 and "human.tsv:602: unknown system 'Ghost'" in errors[0]
    done = subprocess.run([*tune, "--unknown-systems", "skip"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "the rows of 1 system(s) the experiment lacks are left out (--unknown-systems skip): Ghost (1)" in (
        done.stderr)
    flipped = subprocess.run([*tune, "--unknown-systems", "skip", "--human-lower-better", "--name", "FLIPPED"],
                             capture_output=True, text=True, timeout=300)
    assert flipped.returncode == 0, flipped.stderr
    weights = [line for line in done.stdout.splitlines() + flipped.stdout.splitlines()
               if line.strip().startswith("BLEU")]
    assert len(weights) == 2 and weights[0] != weights[1], done.stdout + flipped.stdout


@pytest.mark.skipif(not (SHARED / "data" / "wmt21-zhen").is_dir(), reason="needs ../shared/data/wmt21-zhen")
def test_google_mqm_file_as_published() -> None:
    """WMT21 zh-en's Google MQM file (``system mqm_avg_score seg_id``, ``None`` = not rated, 15 rated
    outputs of which 8 have text here): read as it is, each system's mean over its rated segments is
    the file's, computed here by hand."""
    import numpy as np

    from mteval.io.assessments import read_assessments

    path = SHARED / "data" / "wmt21-zhen" / "human" / "mqm_newstest2021_zhen.avg_seg_scores.tsv"
    rows = [line.split() for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    with_text = sorted(p.stem for p in (SHARED / "data" / "wmt21-zhen" / "sys").glob("*.en"))
    human = read_assessments(path, 1948, systems=[*with_text, "A"], skip_unknown=True)
    rated = sorted({system for system, score, _ in rows if system in with_text and score != "None"})
    assert sorted(human.systems) == rated and len(rated) == 8
    assert set(human.skipped) == {"metricsystem1", "metricsystem2", "metricsystem3", "metricsystem4", "metricsystem5",
                                  "ref-A", "ref-B"} and set(human.skipped.values()) == {650}
    for system in rated:
        scores = [float(score) for name, score, _ in rows if name == system and score != "None"]
        lines = [int(line) for name, score, line in rows if name == system and score != "None"]
        assert human.system[system] == pytest.approx(float(np.mean(scores)), abs=1e-12)
        assert np.flatnonzero(~np.isnan(human.segment_scores(system))).tolist() == sorted(n - 1 for n in lines)


def test_kendall_wmt20_threshold_beyond_the_judgements_is_said(two_metrics: Path, tmp_path: Path) -> None:
    """kendall-wmt20 counts pairs whose human scores differ by --thresh (25 raw DA points): on scores of
    another scale (here MQM / 100) no pair does, every value is NaN (mt-metrics-eval's KendallLike: 0), and
    iqeval says why in one line; a threshold in the judgements' units gives numbers and no line."""
    scaled = tmp_path / "scaled.tsv"
    scaled.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{seg}\t{float(score) / 100}\n"
                                                          for s, seg, score in judgements()), encoding="utf-8")

    def values(*extra: str) -> tuple[list[float], str]:
        done = subprocess.run(["iqeval", "-assessments", str(scaled), *extra, "-G", "seg", "--corr",
                               "kendall-wmt20", "--resamples", "20", "--tsv", str(two_metrics)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return [float(r["score"]) for r in csv.DictReader(io.StringIO(done.stdout), delimiter="\t")], done.stderr

    nan, said = values()
    assert len(nan) == 2 and all(v != v for v in nan)
    assert f"iqeval: warning: {scaled}: no two translations that kendall-wmt20 compares differ by 25 or more" in said
    numbers, quiet = values("--thresh", "0.01")
    assert all(-1 <= v <= 1 for v in numbers) and "kendall-wmt20 compares" not in quiet
