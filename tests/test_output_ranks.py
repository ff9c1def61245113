"""iqeval's text and tidy outputs (mteval/cli/output.py): ties that differ only by float rounding share a
rank, -0.0 prints as 0, a system named twice in -S counts once (an audit of the printed values)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import yaml

from mteval.cli.output import competition_ranks, write_json, write_rankings, write_tsv
from tests.helpers import ENDE, run

TWELVE_29 = (0.4137931034482759, 0.41379310344827586)  # 12/29 summed in two orders


def _ranking(scores: dict[str, float], higher: bool = True) -> list[str]:
    records = [{"target": t, "refset": "A", "metric": "M", "level": "sys", "doc": "-", "segment": "-", "score": s}
               for t, s in scores.items()]
    out = io.StringIO()
    write_rankings(records, out, lambda metric: higher)
    return [line.split() for line in out.getvalue().splitlines()[3:] if line.strip()][: len(scores)]


def test_values_equal_but_for_rounding_share_a_rank_in_the_given_order() -> None:
    assert TWELVE_29[0] != TWELVE_29[1]
    assert competition_ranks([*TWELVE_29, 0.3]) == ["1", "1", "3"]
    assert _ranking({"b": TWELVE_29[1], "a": TWELVE_29[0], "c": 0.5}) == [
        ["1", "c", "0.5000"], ["2", "b", "0.4138"], ["2", "a", "0.4138"]]
    assert _ranking({"b": TWELVE_29[0], "a": TWELVE_29[1]}, higher=False) == [
        ["1", "b", "0.4138"], ["1", "a", "0.4138"]]
    assert competition_ranks([0.41379310344, 0.41379310343]) == ["1", "2"]  # a real difference stays one


def test_negative_zero_is_zero_everywhere() -> None:
    record = {"target": "s", "refset": "A", "metric": "-TER", "level": "sys", "doc": "-", "segment": "-",
              "score": -0.0}
    text, tsv, js = io.StringIO(), io.StringIO(), io.StringIO()
    write_rankings([record], text, lambda metric: True)
    write_tsv([record], tsv)
    write_json([record], js)
    assert "-0.0" not in text.getvalue() + tsv.getvalue() and "0.0000" in text.getvalue()
    assert tsv.getvalue().splitlines()[1].endswith("\t0.0")
    assert json.loads(js.getvalue())[0]["score"] == 0.0 and '"score": 0.0' in js.getvalue()


def test_a_system_named_twice_counts_once(tmp_path: Path) -> None:
    config = {"name": "twice", "cache": str(tmp_path / "cache"), "references": {"A": str(ENDE / "refs" / "A.de")},
              "systems": {s: str(ENDE / "sys" / f"{s}.de") for s in ("UEdin", "Online-W")}, "metrics": ["BLEU"]}
    path = tmp_path / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    assert run("iqsetup", "-q", str(path)).returncode == 0
    shown = run("iqeval", "-doOQ", "-O", "1", "-S", "UEdin,Online-W,UEdin", str(path))
    assert shown.returncode == 0, shown.stderr
    rows = [line.split() for line in shown.stdout.splitlines()[1:] if line.strip() and line[0].isdigit()]
    assert sorted(r[0] for r in rows) == ["1", "2"] and sorted(r[1] for r in rows) == ["Online-W", "UEdin"]
    tidy = run("iqeval", "-doOQ", "--json", "-S", "UEdin,Online-W,UEdin", str(path))
    assert [r["target"] for r in json.loads(tidy.stdout)] == ["UEdin", "Online-W"]
