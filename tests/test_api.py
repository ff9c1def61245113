"""The Python API (issue 30, deliverable 4; docs/api.md): ``mteval.score`` on lists of strings and
files gives the numbers iqeval gives for an experiment of the same texts (and sacreBLEU's where
comparable), ``mteval.load`` reads an experiment's scores, correlations and comparisons as
iqeval's records, bad input is one MtevalError, and docs/api.md's Python examples run."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ENDE, ROOT, RUEN, run, small_experiment

import mteval
from mteval.errors import ConfigError, InputError, MtevalError

HYP = ENDE / "sys" / "UEdin.de"
REF_A, REF_C = ENDE / "refs" / "A.de", ENDE / "refs" / "C.de"


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def iqeval_json(config: Path, *options: str) -> list[dict[str, Any]]:
    done = run("iqeval", "--json", *options, str(config))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def plain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records as iqeval's JSON writes them (NaN as null)."""
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in records]


@pytest.fixture(scope="module")
def ende_experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """UEdin and Online-W against references A and C, computed by iqsetup."""
    folder = tmp_path_factory.mktemp("ende")
    config = {"name": "api", "cache": str(folder / "cache"), "references": {"A": str(REF_A), "C": str(REF_C)},
              "systems": {"UEdin": str(HYP), "Online-W": str(ENDE / "sys" / "Online-W.de")},
              "metrics": ["BLEU", "chrF", "TER", "-TER", "NIST-5"]}
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    done = run("iqsetup", "-q", str(path))
    assert done.returncode == 0, done.stderr
    return path


def test_bleu_of_lists_is_sacrebleus() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    hyps, refs_a, refs_c = lines(HYP), lines(REF_A), lines(REF_C)
    one = mteval.score("BLEU", hyps, [refs_a])
    assert one.score == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs_a]).score / 100, rel=0, abs=1e-12)
    two = mteval.score("BLEU", hyps, [refs_a, refs_c])
    assert two.score == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs_a, refs_c]).score / 100, rel=0, abs=1e-12)
    assert len(two.segments) == 100 and two.higher_is_better
    assert one.signature.startswith("nrefs:1|metric:BLEU-4|") and two.signature.startswith("nrefs:2|")
    assert str(two) == f"BLEU = {two.score:.4f}" and "[100 scores]" in repr(two)


@pytest.mark.parametrize("metric", ["BLEU", "chrF", "TER", "-TER", "NIST-5"])
def test_score_is_iqevals(ende_experiment: Path, metric: str) -> None:
    shown = {(r["target"], r["metric"]): r["score"] for r in iqeval_json(ende_experiment, "-doOQ", "-M", metric)}
    hyps = lines(HYP)
    found = mteval.score(metric, hyps, [lines(REF_A), lines(REF_C)])
    assert found.score == shown["UEdin", metric]
    segments = {r["segment"]: r["score"] for r in iqeval_json(ende_experiment, "-doOQ", "-G", "seg", "-M", metric,
                                                              "-S", "UEdin")}
    assert found.segments == [segments[n] for n in range(1, 101)]
    assert found.higher_is_better is (metric != "TER")


def test_files_lists_and_one_flat_reference_agree() -> None:
    as_lists = mteval.score("chrF", lines(HYP), [lines(REF_A)])
    assert mteval.score("chrF", HYP, [REF_A]) == as_lists
    assert mteval.score("chrF", lines(HYP), lines(REF_A)) == as_lists  # one reference, as its segments
    assert mteval.score("chrF", HYP, REF_A) == as_lists


def test_score_systems_keeps_the_order_and_expands_families() -> None:
    hyps = lines(HYP)
    found = mteval.score_systems(["BLEU", "GTM"], {"b": hyps, "a": ENDE / "sys" / "Online-W.de"}, [lines(REF_A)])
    assert list(found) == ["b", "a"]
    assert list(found["b"]) == ["BLEU", "GTM-1", "GTM-2", "GTM-3"]
    assert found["b"]["BLEU"] == mteval.score("BLEU", hyps, [lines(REF_A)])


def test_case_insensitive_scoring_is_in_the_signature() -> None:
    hyps = [line.upper() for line in lines(HYP)[:10]]
    refs = lines(REF_A)[:10]
    sensitive = mteval.score("BLEU", hyps, [refs], case="cs")
    insensitive = mteval.score("BLEU", hyps, [refs], case="ci")
    assert insensitive.score > sensitive.score
    assert "|case:ci|" in insensitive.signature and "|case:cs|" in sensitive.signature


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: mteval.score("BLEU", ["a b"], [["a b", "c d"]]), InputError,
     "hypotheses: has 1 segments (lines) but references has 2"),
    (lambda: mteval.score("BLEU", ["a b"], [["a b"], ["x", "y"]]), InputError,
     "references[1]: has 2 segments (lines) but references[0] has 1"),
    (lambda: mteval.score("BLUE", ["a"], [["a"]]), ConfigError, "unknown metric 'BLUE'; did you mean 'BLEU'?"),
    (lambda: mteval.score("GTM", ["a"], [["a"]]), ConfigError, "metric 'GTM' names 3 metrics"),
    (lambda: mteval.score("BLEU", "a b", [["a b"]]), ConfigError, "hypotheses: expected a list of strings"),
    (lambda: mteval.score("BLEU", [], [[]]), InputError, "is empty: no segments"),
    (lambda: mteval.score("BLEU", ["a", "b\nc"], [["a", "b"]]), InputError, "hypotheses:2: segment 2 holds a line"),
    (lambda: mteval.score("BLEU", ["a", 3], [["a", "b"]]), InputError,  # type: ignore[list-item]
     "hypotheses:2: segment 2 is 3, not a string"),
    (lambda: mteval.score("BLEU", ["a\x0cb"], [["a"]]), InputError, "hypotheses:1: control character U+000C"),
    (lambda: mteval.score("BLEU", ["a"], []), ConfigError, "references: expected a list of references"),
    (lambda: mteval.score("BLEU", ["a"], [["a"]], case="upper"), ConfigError, "case 'upper': expected 'cs'"),
    (lambda: mteval.score("BLEU", ["a"], [["a"]], language="../x"), ConfigError, "language: expected a language"),
    (lambda: mteval.score("BLEU", Path("no-such-file.txt"), [["a"]]), InputError, "no-such-file.txt: file not found"),
    (lambda: mteval.score_systems("BLEU", {}, [["a"]]), ConfigError, "systems: expected a mapping"),
])
def test_bad_input_is_one_error(call: Any, error: type[MtevalError], message: str) -> None:
    with pytest.raises(error) as caught:
        call()
    assert message in caught.value.format() and "\n" not in caught.value.format()


def test_a_kept_cache_is_laid_out_as_iqsetups_and_reused(tmp_path: Path) -> None:
    cache = tmp_path / "scores"
    first = mteval.score("BLEU", HYP, [REF_A, REF_C], cache=cache)
    files = {p.relative_to(cache).as_posix(): p.stat().st_mtime_ns for p in cache.rglob("*.xml")}
    assert set(files) == {"UEdin/A/BLEU.xml", "UEdin/C/BLEU.xml", "UEdin/A_C/BLEU.xml"}
    assert mteval.score("BLEU", HYP, [REF_A, REF_C], cache=cache) == first
    assert {p.relative_to(cache).as_posix(): p.stat().st_mtime_ns for p in cache.rglob("*.xml")} == files
    changed = tmp_path / "UEdin.de"
    changed.write_text("\n".join(["x"] + lines(HYP)[1:]) + "\n", encoding="utf-8")
    assert mteval.score("BLEU", changed, [REF_A, REF_C], cache=cache).score != first.score  # recomputed
    assert (cache / "UEdin" / "A_C" / "BLEU.xml").stat().st_mtime_ns != files["UEdin/A_C/BLEU.xml"]


def test_split_metrics_keeps_registered_commas() -> None:
    assert mteval.split_metrics("BLEU, SP-Op(,),SR-Or,w-*,chrF") == ["BLEU", "SP-Op(,)", "SR-Or,w-*", "chrF"]


# --- an experiment ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ruen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """configs/example-docids.yaml with its cache in a temporary folder, computed through the API."""
    folder = tmp_path_factory.mktemp("ruen")
    text = (ROOT / "configs" / "example-docids.yaml").read_text(encoding="utf-8")
    text = text.replace("../data/", f"{ROOT}/data/").replace("../demo-cache/", f"{folder}/")
    config = folder / "experiment.yaml"
    config.write_text(text, encoding="utf-8")
    report = mteval.load(config).compute(jobs=1)
    assert report.computed > 0 and report.skipped == 0
    return config


def test_campaign_scores_are_iqevals_records(ruen: Path) -> None:
    campaign = mteval.load(ruen)
    assert campaign.systems == ("AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y")
    assert plain(campaign.scores()) == iqeval_json(ruen, "-doOQ")
    assert plain(campaign.scores("doc", metrics="NIST", references=["A"])) == iqeval_json(
        ruen, "-doOQ", "-G", "doc", "-M", "NIST", "-R", "A")
    assert plain(campaign.scores("seg", metrics=["BLEU"], systems="AFRL,Online-B", segments=[1, 2, 3])) == iqeval_json(
        ruen, "-doOQ", "-G", "seg", "-M", "BLEU", "-S", "AFRL,Online-B", "-T", "1-3")
    bleu = campaign.score("BLEU", "AFRL")
    assert bleu.score == campaign.scores(metrics="BLEU", systems="AFRL")[0]["score"]
    assert mteval.load(ruen).compute(jobs=1).computed == 0  # all current


def test_campaign_correlations_and_comparisons_are_iqevals(ruen: Path) -> None:
    campaign, judged = mteval.load(ruen), str(RUEN / "human" / "da.tsv")
    assert plain(campaign.correlations(judged, corr=["pearson", "kendall"], resamples=200)) == iqeval_json(
        ruen, "-assessments", judged, "--corr", "pearson,kendall", "--resamples", "200")
    assert plain(campaign.correlations(judged, "seg", metrics="BLEU", corr="pearson", average="item",
                                       resamples=50)) == iqeval_json(
        ruen, "-assessments", judged, "-G", "seg", "-M", "BLEU", "--corr", "pearson", "--average", "item",
        "--resamples", "50")
    assert plain(campaign.compare(metrics="BLEU", baseline="AFRL", resamples=100, trials=100)) == iqeval_json(
        ruen, "-compare", "-M", "BLEU", "-baseline", "AFRL", "--resamples", "100", "--trials", "100")
    with pytest.raises(TypeError, match="unknown option 'bogus'"):
        campaign.correlations(judged, bogus=1)


def test_a_stale_file_is_refused_in_one_error(ruen: Path, tmp_path: Path) -> None:
    edited = tmp_path / "AFRL.en"
    edited.write_text("\n".join(["changed"] + lines(RUEN / "sys" / "AFRL.en")[1:]) + "\n", encoding="utf-8")
    config = tmp_path / "experiment.yaml"
    config.write_text(ruen.read_text(encoding="utf-8").replace(f"{ROOT}/data/wmt21-ruen-sample/sys/AFRL.en",
                                                               str(edited)), encoding="utf-8")
    with pytest.raises(MtevalError, match="AFRL changed.*run iqsetup"):
        mteval.load(config).scores(metrics="BLEU")


def test_to_dataframe_without_and_with_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [{"target": "S", "metric": "BLEU", "score": 0.5}]
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(mteval.MissingDependency, match="needs pandas") as caught:
        mteval.to_dataframe(records)
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, MtevalError)
    fake = types.ModuleType("pandas")
    fake.DataFrame = types.SimpleNamespace(from_records=lambda rows: ("frame", rows))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pandas", fake)
    assert mteval.to_dataframe(records) == ("frame", records)


@pytest.mark.slow
@pytest.mark.models
def test_a_syntactic_score_is_iqevals(tmp_path: Path) -> None:
    metrics = ["SP-Op(*)", "DP-HWCM_w-4"]
    config = small_experiment(tmp_path / "exp", metrics, segments=20)
    assert run("iqsetup", "-q", "-j", "1", str(config)).returncode == 0
    shown = {(r["target"], r["metric"]): r["score"] for r in iqeval_json(config, "-doOQ", "-R", "A")}
    folder = tmp_path / "exp"
    found = mteval.score_systems(metrics, {"AFRL": folder / "AFRL.txt"}, [folder / "A.txt"], cache=tmp_path / "api")
    assert {m: s.score for m, s in found["AFRL"].items()} == {m: shown["AFRL", m] for m in metrics}
    assert "|annotation:stanza" in found["AFRL"]["DP-HWCM_w-4"].signature


def test_the_python_examples_of_docs_api_run(tmp_path: Path) -> None:
    for folder in ("configs", "data"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    blocks = re.findall(r"^```python\n(.*?)^```", (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), re.S | re.M)
    assert len(blocks) >= 4
    for block in blocks:
        done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, f"{block}\n{done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def three_refs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three systems of the en-de sample against references A, C and D (QARLA needs three), with the
    system/system files for JACK, computed through the API."""
    folder = tmp_path_factory.mktemp("qarla")
    config = {"name": "api-qarla", "cache": str(folder / "cache"),
              "references": {r: str(ENDE / "refs" / f"{r}.de") for r in ("A", "C", "D")},
              "systems": {s: str(ENDE / "sys" / f"{s}.de") for s in ("UEdin", "Online-W", "Facebook-AI")},
              "metrics": ["BLEU", "chrF", "-TER"]}
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    assert mteval.load(path).compute(jobs=1, jack=True).computed > 0
    return path


def test_campaign_qarla_is_iqevals(three_refs: Path) -> None:
    """QUEEN, KING, JACK and the greedy KING optimisation from Python: iqeval's records, its defaults."""
    campaign = mteval.load(three_refs)
    assert plain(campaign.queen()) == iqeval_json(three_refs, "-doQUEEN")
    assert plain(campaign.queen("doc", metrics="BLEU,chrF", with_references=True, segments="1-40")) == iqeval_json(
        three_refs, "-doQUEEN", "-G", "doc", "-M", "BLEU,chrF", "-doref", "-T", "1-40")
    assert plain(campaign.king("seg", trans_topic=True)) == iqeval_json(three_refs, "-doKING", "-G", "seg", "-TT")
    assert plain(campaign.jack(systems=["UEdin", "Online-W"])) == iqeval_json(
        three_refs, "-doJACK", "-S", "UEdin,Online-W")
    assert plain(campaign.optimize_king("seg")) == iqeval_json(three_refs, "-optimizeKING", "-G", "seg")
    assert campaign.optimize_king("seg")[-1]["target"] == "optimizeKING"
