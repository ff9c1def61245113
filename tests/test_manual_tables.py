"""iqeval's QARLA text views as the IQMT 2.0 manual's tables (issue 13, item 5), each checked by
running the installed commands on a 40-segment, 3-reference slice of the en-de sample:

* KING as Table 11 (``Evaluation metric | KING``, metrics as rows; -O 1 ranks them);
* the optimal set of -optimizeKING named in the text, TSV and JSON views, the trace labelled;
* a QUEEN/KING/JACK value of 0 shown with its hits/trials (KING: a user metric dropped into the cache);
* -G sys (one KING trial per held-out reference) says "too few trials" instead of zeros;
* QUEEN stays a column of the score matrix (Tables 2, 3 and 12), JACK names its metric set.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from helpers import ENDE, ende_config, run

from mteval.cli.output import cell
from mteval.scores import ScoreSet
from mteval.store.cache import ScoreCache

METRICS = ["BLEU", "NIST", "BLEU-2"]
SYSTEMS = ("Facebook-AI", "UEdin", "Online-W")
REFS = ("A", "C", "D")
N_SEG = 40  # 3 references x 40 segments = 120 KING trials at -G seg (>= 100)


def _head(source: Path, target: Path) -> str:
    target.write_text("".join(source.read_text(encoding="utf-8").splitlines(keepends=True)[:N_SEG]),
                      encoding="utf-8")
    return str(target)


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tables")
    config = ende_config(
        tmp, metrics=METRICS, source=_head(ENDE / "src.en", tmp / "src.en"),
        references={r: _head(ENDE / "refs" / f"{r}.de", tmp / f"ref-{r}.de") for r in REFS},
        systems={s: _head(ENDE / "sys" / f"{s}.de", tmp / f"sys-{s}.de") for s in SYSTEMS},
        sets={"first10": "1-10", "m": ["BLEU", "NIST"]})
    result = run("iqsetup", "-JACK", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def iqeval(config: Path, *args: str) -> str:
    out = run("iqeval", *args, str(config))
    assert out.returncode == 0, out.stderr
    return out.stdout


def tsv(config: Path, *args: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(iqeval(config, *args, "--tsv")), delimiter="\t"))


def table(text: str, caption: str) -> list[list[str]]:
    """The rows (split on 2+ spaces) of the table under the line starting with ``caption``:
    header first, the dashed rule dropped, up to the first line that is not a table row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(caption))
    block = []
    for line in lines[start + 1:]:
        cells = re.split(r"\s{2,}", line.strip())
        if set(line) <= {"-"} and line:
            continue
        if len(cells) < 2:
            break
        block.append(cells)
    return block


def test_king_is_manual_table_11_with_metrics_as_rows(experiment: Path) -> None:
    text = iqeval(experiment, "-doKING", "-G", "seg")
    assert text.splitlines()[0].startswith("KING: discriminative power of each metric")
    assert "Table 11" in text.splitlines()[0] and f"{3 * N_SEG} trials per metric" in text.splitlines()[0]
    rows = table(text, "KING:")
    assert rows[0] == ["Evaluation metric", "KING"]
    assert [r[0] for r in rows[1:]] == METRICS + ["SET"]
    king = {r["metric"]: r for r in tsv(experiment, "-doKING", "-G", "seg")}
    for name, value in rows[1:]:
        r = king[name]
        assert r["trials"] == str(3 * N_SEG) and r["enough_trials"] == "True"
        assert value == f"{int(r['hits']) / int(r['trials']):.4f}"
    assert "SET = {BLEU, NIST, BLEU-2}" in text
    ranked = table(iqeval(experiment, "-doKING", "-G", "seg", "-O", "1"), "KING:")
    assert ranked[0] == ["#", "Evaluation metric", "KING"]
    singles = [r for r in ranked[1:] if r[-2] != "SET"]
    assert [r[0] for r in singles] == ["1", "2", "3"]
    values = [float(r[2]) for r in singles]
    assert values == sorted(values, reverse=True) and {r[1] for r in singles} == set(METRICS)


def test_optimal_set_is_named_in_every_view_and_the_trace_is_labelled(experiment: Path) -> None:
    rows = tsv(experiment, "-optimizeKING", "--exhaustive", "-G", "seg")
    trace = [r for r in rows if r["step"] != "-"]
    optimal = next(r for r in rows if r["metric"] == "OPTIMAL")
    exhaustive = next(r for r in rows if r["metric"] == "EXHAUSTIVE")
    assert [r["step"] for r in trace] == ["1", "2", "3"] and sorted(r["metric"] for r in trace) == sorted(METRICS)
    chosen: list[str] = []
    for r in trace:  # set_size / metric_set: the set tried at that step; accepted ones grow the set
        assert r["metric_set"].split(",") == chosen + [r["metric"]] and int(r["set_size"]) == len(chosen) + 1
        chosen += [r["metric"]] if r["accepted"] == "yes" else []
    assert optimal["metric_set"].split(",") == chosen and exhaustive["evaluated"] == "7"
    named = "{" + ", ".join(chosen) + "}"
    line = f"Optimal set (greedy): {named}, KING {float(optimal['score']):.4f} ({optimal['hits']}/{optimal['trials']})"
    for layout in ("0", "1"):
        text = iqeval(experiment, "-optimizeKING", "--exhaustive", "-G", "seg", "-O", layout)
        assert line in text.splitlines()
        assert "Optimal set (exhaustive, 7 subsets): {" in text
        shown = table(text, "-optimizeKING:")
        assert shown[0] == ["Step", "Metric tried", "KING alone", "Set size", "KING of set", "Added"]
        assert [[r[0], r[1], r[3], r[5]] for r in shown[1:4]] == [
            [r["step"], r["metric"], r["set_size"], r["accepted"]] for r in trace]
    records = json.loads(iqeval(experiment, "-optimizeKING", "-G", "seg", "--json"))
    best = next(r for r in records if r["metric"] == "OPTIMAL")
    assert best["metric_set"] == optimal["metric_set"] and best["enough_trials"] is True


def test_zero_values_show_hits_and_trials(experiment: Path) -> None:
    queen = [r for r in tsv(experiment, "-doQUEEN", "-G", "seg") if r["metric"] == "QUEEN"]
    zeros = {f"{r['target']}:{r['segment']}": r for r in queen if float(r["score"]) == 0}
    assert zeros, "the slice has segments where a system fails every QUEEN triple"
    text = iqeval(experiment, "-doQUEEN", "-G", "seg")
    for line in text.splitlines()[2:]:
        label, value = line.split(None, 1)
        if label in zeros:
            assert value.strip() == f"0.0000 (0/{zeros[label]['trials']})"
        else:
            assert "(" not in value
    jack = tsv(experiment, "-doJACK", "-G", "seg")
    jack_text = table(iqeval(experiment, "-doJACK", "-G", "seg"), "JACK:")
    assert jack_text[0] == ["SEG", "JACK"] and len(jack_text) == N_SEG + 1
    for (segment, value), r in zip(jack_text[1:], jack, strict=True):
        assert segment == r["segment"]
        assert value == (f"0.0000 (0/{r['trials']})" if r["hits"] == "0" else f"{float(r['score']):.4f}")
    # a KING of 0 (here at system level, in the machine view) has its counts beside it
    king = {r["metric"]: r for r in tsv(experiment, "-doKING", "-G", "sys")}
    assert all(r["hits"] != "-" and r["trials"] == "3" for r in king.values())
    assert cell({"score": 0.0, "hits": 0, "trials": 120}) == "0.0000 (0/120)"
    assert cell({"score": 1 / 30000, "hits": 1, "trials": 30000}) == "0.0000 (1/30000)"
    assert cell({"score": float("nan"), "hits": 0, "trials": 0}) == "nan (0/0)"
    assert cell({"score": 0.0}) == "0.0000"  # outside QARLA: no counts to show


def with_strict_metric(config: Path, tmp: Path) -> Path:
    """A copy of the experiment whose cache also holds a user metric ``STRICT`` that never tells a
    reference from a system: every system scores 1 against every reference, the references score
    0.4 or 0.5 against each other (cyclically, so each held-out reference fails some triple)."""
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    shutil.copytree(settings["cache"], tmp / "cache")
    settings["cache"] = str(tmp / "cache")
    cache = ScoreCache(tmp / "cache")
    pairs = {(s, r): 1.0 for s in SYSTEMS for r in REFS}
    pairs.update({("A", "C"): 0.5, ("C", "D"): 0.5, ("D", "A"): 0.5, ("A", "D"): 0.4, ("C", "A"): 0.4, ("D", "C"): 0.4})
    for (target, ref), value in pairs.items():
        scores = ScoreSet(value, {"UNKNOWN_DOC": value}, np.full(N_SEG, value))
        cache.save(target, ref, "STRICT", scores, ("UNKNOWN_DOC",) * N_SEG)
    path = tmp / "strict.yaml"
    path.write_text(yaml.safe_dump(settings, sort_keys=False), encoding="utf-8")
    return path


def test_a_king_of_zero_shows_hits_and_trials(experiment: Path, tmp_path: Path) -> None:
    config = with_strict_metric(experiment, tmp_path)
    text = iqeval(config, "-doKING", "-optimizeKING", "-M", "STRICT,BLEU", "-G", "seg")
    king = dict(table(text, "KING:")[1:])
    assert king["STRICT"] == f"0.0000 (0/{3 * N_SEG})" and "(" not in king["BLEU"]
    trace = {r[1]: r for r in table(text, "-optimizeKING:")[1:]}
    assert trace["STRICT"][2] == f"0.0000 (0/{3 * N_SEG})" and trace["STRICT"][5] == "no"
    (strict,) = tsv(config, "-doKING", "-M", "STRICT", "-G", "seg")
    assert (strict["score"], strict["hits"], strict["trials"]) == ("0.0", "0", str(3 * N_SEG))


def test_system_level_king_says_too_few_trials_instead_of_zeros(experiment: Path) -> None:
    text = iqeval(experiment, "-doKING", "-optimizeKING", "-G", "sys")
    assert text.count("too few trials for KING at -G sys: 3 (one per held-out reference), at least 100") == 2
    assert "Evaluation metric" not in text and "Step" not in text  # no table of zeros
    assert "not meaningful with so few trials" in text  # the optimal set is still named
    for r in tsv(experiment, "-doKING", "-optimizeKING", "-G", "sys"):
        assert (r["trials"], r["enough_trials"], r["min_trials"]) == ("3", "False", "100")
    records = json.loads(iqeval(experiment, "-doKING", "-G", "sys", "--json"))
    assert all(r["enough_trials"] is False and r["trials"] == 3 for r in records)
    # at segment level too few segments say so as well (10 segments x 3 references = 30 trials)
    few = iqeval(experiment, "-doKING", "-G", "seg", "-T", "first10")
    assert "too few trials for KING at -G seg: 30, at least 100" in few and "Evaluation metric" not in few
    assert "Evaluation metric" in iqeval(experiment, "-doKING", "-G", "seg")


def test_queen_is_a_matrix_column_and_jack_names_its_metric_set(experiment: Path) -> None:
    text = iqeval(experiment, "-doOQ", "-doQUEEN", "-doJACK", "-M", "m", "-G", "sys")
    lines = text.splitlines()
    assert lines[0].split() == ["SYS", "BLEU", "NIST", "QUEEN"]  # manual Table 2: QUEEN next to the metrics
    assert [line.split()[0] for line in lines[2:5]] == list(SYSTEMS) and lines[5] == ""
    assert lines[6].startswith("JACK: reliability of the test set") and "metric set {BLEU, NIST}" in lines[6]
    jack = table(text, "JACK:")
    (record,) = tsv(experiment, "-doJACK", "-M", "m", "-G", "sys")
    assert jack == [["Test set", "JACK"], ["all", f"{float(record['score']):.4f}"]]
    assert record["metric_set"] == "BLEU,NIST" and record["trials"] == str(3 * N_SEG)
