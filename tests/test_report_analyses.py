"""mteval report's two-system analyses through the installed command: compare-mt's (--pair,
--freq-corpus) and, with a parsed metric, the linguistic error analysis from the annotation cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import ENDE, ende_config, run, small_experiment


def _report(config: Path, out: Path, *extra: str) -> tuple[str, Any]:
    done = run("mteval", "report", str(config), "-o", str(out / "r.html"), "--json", str(out / "r.json"), "-q",
               "--resamples", "100", "--trials", "200", *extra)
    assert done.returncode == 0, done.stderr
    return (out / "r.html").read_text(encoding="utf-8"), json.loads((out / "r.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def ende(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = ende_config(tmp_path_factory.mktemp("ende"), metrics=["chrF", "BLEU"])
    assert run("iqsetup", str(config), "-q").returncode == 0
    return config


def test_the_default_pair_is_the_two_best(ende: Path, tmp_path: Path) -> None:
    html, found = _report(ende, tmp_path)
    chrf = {r["target"]: r["score"] for r in found["systems"] if r["metric"] == "chrF"}
    best = sorted(chrf, key=chrf.get, reverse=True)[:2]
    pair = found["pair"]
    assert [pair["name_a"], pair["name_b"]] == best and pair["metric"] == "chrF"
    assert 'id="pair"' in html and 'href="#pair"' in html
    assert found["linguistic"] is None and 'id="linguistic"' not in html  # no parsed metric: not computed


def test_a_chosen_pair_and_frequency_corpus(ende: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "freq.txt"
    corpus.write_text((ENDE / "refs" / "A.de").read_text(encoding="utf-8") * 3, encoding="utf-8")
    _, found = _report(ende, tmp_path, "--pair", "UEdin,Online-W", "--freq-corpus", str(corpus))
    pair = found["pair"]
    assert (pair["name_a"], pair["name_b"]) == ("UEdin", "Online-W")
    assert pair["frequency_source"] == "a frequency corpus of 300 lines"
    assert {n["ngram"] for n in pair["ngrams_a"]}.isdisjoint({n["ngram"] for n in pair["ngrams_b"]})


@pytest.mark.parametrize(("value", "message"), [
    ("UEdin", "name two different systems"), ("UEdin,Nobody", "'Nobody' is not among the selected systems")])
def test_a_bad_pair_is_one_line(ende: Path, tmp_path: Path, value: str, message: str) -> None:
    done = run("mteval", "report", str(ende), "-o", str(tmp_path / "r.html"), "--pair", value)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
@pytest.mark.models
def test_linguistic_analysis_from_the_cached_parses(tmp_path: Path) -> None:
    config = small_experiment(tmp_path / "exp", ["chrF", "DP-HWCM_w-4"], segments=12)
    assert run("iqsetup", str(config), "-q").returncode == 0
    html, found = _report(config, tmp_path, "--pair", "Online-W,Online-B")
    recalls = found["linguistic"]
    assert set(recalls) == {"AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y"}
    assert all(r["segments"] == 12 and r["skipped"] == 0 for r in recalls.values())
    kinds = {x["kind"] for x in recalls["Online-W"]["recalls"]}
    assert {"relation", "pos", "chain"} <= kinds
    nsubj = [x for x in recalls["Online-W"]["recalls"] if x["kind"] == "relation" and x["label"] == "nsubj"]
    assert nsubj and 0 < nsubj[0]["total"] and 0 <= nsubj[0]["recall"] <= 1
    assert found["linguistic_pair"]["name_a"] == "Online-W" and 'id="linguistic"' in html
