"""``mteval score --confidence / --paired-bs / --paired-ar``: sacreBLEU's options, through the installed
command, with sacreBLEU's numbers (``mteval.cli.score_stats``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import ENDE
from test_cli_score import REF_A, UEDIN, lines, score

FACEBOOK, ONLINE_W = ENDE / "sys" / "Facebook-AI.de", ENDE / "sys" / "Online-W.de"
SYSTEMS = (UEDIN, FACEBOOK, ONLINE_W)  # the first is the baseline


def json_of(*args: str) -> list[dict[str, Any]]:
    done = score("-f", "json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def sacrebleu_metrics() -> dict[str, Any]:
    """sacreBLEU's BLEU, chrF and TER, as mteval's BLEU (0-1), chrF and TER print them."""
    sacrebleu = pytest.importorskip("sacrebleu")
    return {"BLEU": sacrebleu.metrics.BLEU(), "chrF": sacrebleu.metrics.CHRF(), "TER": sacrebleu.metrics.TER()}


def test_confidence_is_sacrebleus(monkeypatch: pytest.MonkeyPatch) -> None:
    """One system's mean and half-interval equal sacreBLEU's corpus_score(n_bootstrap=1000) (its
    default seed 12345; BLEU on mteval's 0-1 scale); the text view prints them as sacreBLEU does."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    found = {r["metric"]: r for r in json_of("-r", str(REF_A), "-i", str(UEDIN), "--confidence")}
    for name, metric in sacrebleu_metrics().items():
        expected = metric.corpus_score(lines(UEDIN), [lines(REF_A)], n_bootstrap=1000)
        scale = 0.01 if name == "BLEU" else 1.0
        record = found[name]
        assert record["score"] == pytest.approx(expected.score * scale, abs=1e-9)
        assert record["mean"] == pytest.approx(expected._mean * scale, abs=1e-4 * scale), name
        assert 0.5 * (record["ci_high"] - record["ci_low"]) == pytest.approx(expected._ci * scale, abs=1e-4 * scale)
        assert record["resamples"] == 1000 and record["seed"] == 12345
    text = score("-r", str(REF_A), "-i", str(UEDIN), "--confidence", "-m", "chrF")
    assert text.returncode == 0, text.stderr
    chrf = found["chrF"]
    assert text.stdout.splitlines()[0] == (f"chrF  {chrf['score']:.4f} (μ = {chrf['mean']:.4f} ± "
                                           f"{0.5 * (chrf['ci_high'] - chrf['ci_low']):.4f})")


def test_confidence_n_and_seed_change_the_draws() -> None:
    base = json_of("-r", str(REF_A), "-i", str(UEDIN), "-ci", "-m", "chrF")[0]
    other = json_of("-r", str(REF_A), "-i", str(UEDIN), "-ci", "-cin", "200", "--seed", "7", "-m", "chrF")[0]
    assert other["resamples"] == 200 and other["seed"] == 7 and other["score"] == base["score"]
    assert other["mean"] != base["mean"]


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_paired_tests_are_sacrebleus(test: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every system against the first: sacreBLEU's PairedTest p-values (and bootstrap intervals), uncorrected."""
    from sacrebleu.significance import PairedTest

    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    metrics = {"chrF": sacrebleu_metrics()["chrF"]}
    n = 1000 if test == "bs" else 2000
    _, expected = PairedTest([(str(p), lines(p)) for p in SYSTEMS], metrics, [lines(REF_A)], test_type=test,
                             n_samples=n)()
    found = json_of("-r", str(REF_A), "-i", *map(str, SYSTEMS), "-m", "chrF", f"--paired-{test}",
                    f"--paired-{test}-n", str(n))
    by_system = {r["target"]: r for r in found}
    assert {r["baseline"] for r in found} == {str(UEDIN)} and {r["correction"] for r in found} == {"none"}
    chrf = next(results for name, results in expected.items() if name.startswith("chrF"))  # sacreBLEU's chrF2
    for path, result in zip(SYSTEMS, chrf, strict=True):
        record = by_system[str(path)]
        assert record["score"] == pytest.approx(result.score, abs=1e-9)
        if path != UEDIN:
            assert record[f"p_{test}"] == result.p_value
        if test == "bs":
            assert record["mean"] == pytest.approx(result.mean, abs=1e-4)
            assert 0.5 * (record["ci_high"] - record["ci_low"]) == pytest.approx(result.ci, abs=1e-4)


def test_paired_text_view() -> None:
    done = score("-r", str(REF_A), "-i", *map(str, SYSTEMS), "-m", "BLEU", "-pbs")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith("BLEU: 3 systems, 100 segments, references ") and out[1] == (
        "paired bootstrap (1000 resamples), seed 12345")
    assert any(f"Baseline: {UEDIN}" in line for line in out)
    assert out[-1].startswith("BLEU|nrefs:1|metric:BLEU-4|")


@pytest.mark.parametrize(("args", "message"), [
    (("-i", str(UEDIN), str(FACEBOOK), "--confidence"), "--confidence gives one system's interval; 2 systems given"),
    (("-i", str(UEDIN), "--paired-bs"), "--paired-bs compares systems with the first one: give two or more with -i"),
    (("-i", str(UEDIN), "--confidence", "--segments"), "--segments prints segment scores; it cannot be combined "
                                                       "with --confidence"),
    (("-i", str(UEDIN), "-ci", "-cin", "0"), "--confidence-n must be a positive integer, got 0"),
    (("-i", str(UEDIN), str(FACEBOOK), "-pbs", "-par"), "not allowed with argument"),
])
def test_bad_combinations_are_one_line(args: tuple[str, ...], message: str) -> None:
    done = score("-r", str(REF_A), *args)
    assert done.returncode == 2 and message in done.stderr.splitlines()[-1] and done.stdout == ""


def test_campaign_confidence_equals_compare(tmp_path: Path) -> None:
    """The Python API: a system's interval alone is its interval in the paired bootstrap (same draws)."""
    import mteval

    with mteval.scored({"U": UEDIN, "F": FACEBOOK}, [REF_A], "BLEU,chrF", cache=tmp_path / "cache") as campaign:
        alone = {(r["target"], r["metric"]): r for r in campaign.confidence()}
        paired = campaign.compare(test="bs", baseline=campaign.systems[0])
    for record in paired:
        mine = alone[record["target"], record["metric"]]
        assert mine["score"] == record["score"]
        assert mine["mean"] == pytest.approx(record["mean"], abs=1e-12)
        assert (mine["ci_low"], mine["ci_high"]) == (record["ci_low"], record["ci_high"])
