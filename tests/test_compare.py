"""iqeval -compare [-baseline SYS] end to end (installed commands) against the engine in-process."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from helpers import ENDE, ende_config, run

from mteval.meta.stats.clusters import adjust, adjust_pairwise
from mteval.meta.stats.paired import Comparison, MetricInput, paired_bootstrap, paired_randomization
from mteval.metrics import registry
from mteval.scores import ScoreSet
from mteval.store.cache import ScoreCache

SYSTEMS = ("Facebook-AI", "UEdin", "Online-W", "HuaweiTSC")
METRICS = ["BLEU", "-TER", "RG-L"]
REFSET = "A_C_D"
FAST = ("--resamples", "200", "--trials", "500")


def tsv(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    systems = {s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS}
    config = ende_config(tmp_path_factory.mktemp("compare"), metrics=METRICS, systems=systems)
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def compare(experiment: Path, *options: str) -> list[dict[str, str]]:
    out = run("iqeval", "-compare", *options, "--tsv", str(experiment))
    assert out.returncode == 0, out.stderr
    return tsv(out.stdout)


def engine_inputs(experiment: Path, rows: np.ndarray) -> dict[str, MetricInput]:
    """The engine's inputs built here from the cache: statistics (BLEU, -TER), segments (ROUGE)."""
    cache = ScoreCache(experiment.parent / "cache")
    out = {}
    for metric in METRICS:
        loaded = [cache.load(s, REFSET, metric) for s in SYSTEMS]
        if metric == "RG-L":
            out[metric] = MetricInput.from_segments(np.stack([x.segments[rows] for x in loaded]))
            continue
        family = registry.create(registry.family_of(metric))
        stats = np.stack([x.stats[rows] for x in loaded if x.stats is not None])
        out[metric] = MetricInput(stats, partial(family.scores_from_stats, variant=metric))
    return out


def engine(experiment: Path, rows: np.ndarray, baseline: str | None = None,
           ) -> tuple[dict[str, Comparison], dict[str, Comparison]]:
    inputs = engine_inputs(experiment, rows)
    return (paired_bootstrap(inputs, SYSTEMS, baseline, n=200, seed=7),
            paired_randomization(inputs, SYSTEMS, baseline, n=500, seed=7))


def reported(experiment: Path, rows: np.ndarray) -> dict[str, float]:
    """ROUGE's system scores as ``iqeval -doOQ -G sys`` reports them on the rows (its bootstrap)."""
    done = run("iqeval", "-doOQ", "-G", "sys", "-M", "RG-L", "-T", f"1-{len(rows)}", "--json", str(experiment))
    assert done.returncode == 0, done.stderr
    return {r["target"]: r["score"] for r in json.loads(done.stdout)}


def check_equal_engine(records: list[dict[str, str]], experiment: Path, rows: np.ndarray) -> None:
    """Every number of the records is the engine's on the same statistics and seed; a ``mean``
    metric (ROUGE) shows iqeval's system score, its interval shifted with it."""
    bs, ar = engine(experiment, rows)
    rouge = reported(experiment, rows)
    systems = [r for r in records if r["kind"] == "system"]
    pairs = [r for r in records if r["kind"] == "pair"]
    assert len(systems) == len(METRICS) * 4 and len(pairs) == len(METRICS) * 6
    for r in systems:
        b, i = bs[r["metric"]], SYSTEMS.index(r["target"])
        shift = rouge[r["target"]] - b.score[i] if r["metric"] == "RG-L" else 0.0
        assert shift == 0.0 or abs(shift) < 2e-3  # a bootstrap mean of the segment mean
        assert [float(r[k]) for k in ("score", "mean", "ci_low", "ci_high")] == pytest.approx(
            [b.score[i] + shift, b.mean[i] + shift, b.low[i] + shift, b.high[i] + shift], abs=1e-12)
    for r in pairs:
        b, a = bs[r["metric"]], ar[r["metric"]]
        i, j = SYSTEMS.index(r["target"]), SYSTEMS.index(r["baseline"])
        assert [float(r[k]) for k in ("delta", "delta_low", "delta_high", "p_bs", "p_ar")] == pytest.approx(
            [b.diff[i, j], b.diff_low[i, j], b.diff_high[i, j], b.p_value[i, j], a.p_value[i, j]], abs=1e-12)
        assert float(r["p_adj"]) == pytest.approx(adjust_pairwise(a.p_value, "holm")[i, j], abs=1e-12)


def test_records_equal_the_engine(experiment: Path) -> None:
    records = compare(experiment, *FAST, "--seed", "7")
    check_equal_engine(records, experiment, np.arange(100))
    cache = ScoreCache(experiment.parent / "cache")
    for r in records:
        if r["kind"] == "system":  # full test set: the cached system score (ROUGE's is a bootstrap mean)
            assert r["aggregate"] == ("mean" if r["metric"] == "RG-L" else "stats")
            if r["metric"] != "RG-L":
                assert float(r["score"]) == pytest.approx(cache.load(r["target"], REFSET, r["metric"]).system)
        assert (r["test"], r["seed"], r["resamples"], r["trials"], r["correction"], r["segments"]) == (
            "both", "7", "200", "500", "holm", "100")


def test_segment_selection(experiment: Path) -> None:
    part = compare(experiment, *FAST, "--seed", "7", "-T", "1-50")
    check_equal_engine(part, experiment, np.arange(50))
    whole = compare(experiment, *FAST, "--seed", "7")
    assert {r["segments"] for r in part} == {"50"}
    assert [r["p_ar"] for r in part if r["kind"] == "pair"] != [r["p_ar"] for r in whole if r["kind"] == "pair"]


def test_baseline_records_and_view(experiment: Path) -> None:
    records = compare(experiment, *FAST, "--seed", "7", "-baseline", "UEdin")
    bs, ar = engine(experiment, np.arange(100), "UEdin")
    assert {r["kind"] for r in records} == {"system"} and {r["baseline"] for r in records} == {"UEdin"}
    for metric in METRICS:
        rows = {r["target"]: r for r in records if r["metric"] == metric}
        assert rows["UEdin"]["delta"] == "-" and rows["UEdin"]["p_ar"] == "-"
        others = [s for s in SYSTEMS if s != "UEdin"]
        p = np.array([ar[metric].p_value[SYSTEMS.index(s), 1] for s in others])
        for s, expected in zip(others, adjust(p, "holm"), strict=True):
            r = rows[s]
            assert float(r["p_ar"]) == pytest.approx(p[others.index(s)], abs=1e-12)
            assert float(r["p_adj"]) == pytest.approx(expected, abs=1e-12)
            assert r["significant"] == ("yes" if expected <= 0.05 else "no")
            assert float(r["delta"]) == pytest.approx(bs[metric].diff[SYSTEMS.index(s), 1], abs=1e-12)
    out = run("iqeval", "-compare", *FAST, "--seed", "7", "-baseline", "UEdin", "-M", "BLEU", str(experiment))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("BLEU: 4 systems, 100 segments, references A_C_D")
    assert "Score (μ ± 95% CI)" in lines[2] and "Δ vs baseline (95% CI)" in lines[2]
    assert "Baseline: UEdin" in lines[4]
    starred = {line.split()[2] for line in lines[5:8] if line.rstrip().endswith("*")}
    assert starred == {r["target"] for r in records if r["metric"] == "BLEU" and r.get("significant") == "yes"}


def test_view_without_baseline(experiment: Path) -> None:
    out = run("iqeval", "-compare", *FAST, "-M", "-TER", str(experiment))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("-TER: 4 systems") and "pairwise p-values (p_ar)" in text
    assert "after Holm correction over the 6 pairs" in text
    for system in SYSTEMS:
        assert system in text


def test_clusters_follow_the_ranking(experiment: Path) -> None:
    for correction in ("holm", "bonferroni", "none"):
        records = compare(experiment, *FAST, "--seed", "7", "--correction", correction)
        _, ar = engine(experiment, np.arange(100))
        for metric in METRICS:
            rows = [r for r in records if r["metric"] == metric and r["kind"] == "system"]
            assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4]
            scores = [float(r["score"]) for r in rows]
            assert scores == sorted(scores, reverse=True)
            clusters = [int(r["cluster"]) for r in rows]
            assert clusters == sorted(clusters) and clusters[0] == 1
            groups = [[r["target"] for r in rows if int(r["cluster"]) == c] for c in sorted(set(clusters))]
            assert groups == ar[metric].clusters(0.05, correction)
            for r in rows:
                first, _, last = r["rank_range"].partition("-")
                assert int(first) <= int(r["rank"]) <= int(last or first)


def test_holm_and_bonferroni(experiment: Path) -> None:
    holm = compare(experiment, *FAST, "--correction", "holm", "-M", "BLEU")
    bonf = compare(experiment, *FAST, "--correction", "bonferroni", "-M", "BLEU")
    pairs_h = {(r["target"], r["baseline"]): r for r in holm if r["kind"] == "pair"}
    pairs_b = {(r["target"], r["baseline"]): r for r in bonf if r["kind"] == "pair"}
    assert pairs_h.keys() == pairs_b.keys()
    for key, r in pairs_b.items():
        assert float(r["p_adj"]) == pytest.approx(min(1.0, 6 * float(r["p_ar"])), abs=1e-12)
        assert float(pairs_h[key]["p_adj"]) <= float(r["p_adj"]) + 1e-15
    assert any(float(pairs_h[k]["p_adj"]) < float(pairs_b[k]["p_adj"]) for k in pairs_b)


def test_json_and_single_tests(experiment: Path) -> None:
    out = run("iqeval", "-compare", "--test", "ar", "--trials", "300", "-M", "BLEU", "-baseline", "UEdin",
              "--json", str(experiment))
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    fields = {"target", "metric", "score", "baseline", "delta", "p_ar", "p_adj", "significant", "cluster", "rank",
              "test", "seed", "trials", "correction", "aggregate"}
    assert all(fields <= set(r) for r in records if r["target"] != "UEdin")
    assert not any({"ci_low", "p_bs", "resamples", "delta_low"} & set(r) for r in records)
    assert {r["seed"] for r in records} == {12345}
    bs_only = compare(experiment, "--test", "bs", "--resamples", "100", "-M", "BLEU")
    assert all(r.get("p_ar", "-") == "-" and r.get("trials", "-") == "-" for r in bs_only)
    assert all(float(r["p_adj"]) >= float(r["p_bs"]) for r in bs_only if r["kind"] == "pair")


def test_compare_systems_is_a_synonym(experiment: Path) -> None:
    new = run("iqeval", "-compare", *FAST, "-M", "BLEU", "--tsv", str(experiment))
    old = run("iqeval", "-compareSystems", *FAST, "-M", "BLEU", "--tsv", str(experiment))
    assert new.returncode == old.returncode == 0 and new.stdout == old.stdout


def test_statistics_recomputed_for_a_file_without_them(experiment: Path, tmp_path: Path) -> None:
    config = ende_config(tmp_path, metrics=["BLEU"], systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    cache = ScoreCache(tmp_path / "cache")
    kept = cache.read("UEdin", REFSET, "BLEU")[1]
    plain = ScoreSet(kept.scores.system, kept.scores.documents, kept.scores.segments)  # no statistics
    cache.save("UEdin", REFSET, "BLEU", plain, ("UNKNOWN_DOC",) * 100, kept.signature, kept.inputs)
    assert cache.load("UEdin", REFSET, "BLEU").stats is None
    out = run("iqeval", "-compare", *FAST, "--tsv", str(config))
    assert out.returncode == 0, out.stderr
    assert "no usable statistics" in out.stderr and "recomputed" in out.stderr
    assert out.stdout == run("iqeval", "-compare", *FAST, "-M", "BLEU", "--tsv", str(experiment)).stdout


def one_line_error(out: subprocess.CompletedProcess[str], *words: str) -> None:
    assert out.returncode == 2, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("iqeval: error:"), out.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_bad_input(experiment: Path) -> None:
    one_line_error(run("iqeval", "-compare", "-S", "UEdin", str(experiment)), "at least two systems", "-S")
    one_line_error(run("iqeval", "-compare", "-baseline", "Nobody", str(experiment)),
                   "'Nobody'", "unknown", "Facebook-AI")
    one_line_error(run("iqeval", "-compare", "-S", "UEdin,Online-W", "-baseline", "HuaweiTSC", str(experiment)),
                   "not among the selected systems")
    one_line_error(run("iqeval", "-compare", "--trials", "0", str(experiment)), "positive integer")
    one_line_error(run("iqeval", "-compare", "--alpha", "1.5", str(experiment)), "between 0 and 1")


def test_a_file_with_other_segments(experiment: Path, tmp_path: Path) -> None:
    config = ende_config(tmp_path, metrics=["BLEU", "RG-L"],
                         systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS[:2]})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    path = tmp_path / "cache" / "UEdin" / REFSET / "RG-L.xml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if '<S n="100"' not in line), encoding="utf-8")
    one_line_error(run("iqeval", "-compare", str(config)), "RG-L.xml", "99 of 100 segments")


def test_chrf_p_values_equal_sacrebleu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end, a sacreBLEU user's numbers: chrF against reference A, baseline first, seed 12345."""
    sacrebleu = pytest.importorskip("sacrebleu")
    from sacrebleu.significance import PairedTest

    config = ende_config(tmp_path, references={"A": str(ENDE / "refs" / "A.de")}, metrics=["chrF"],
                         systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    records = {r["target"]: r for r in compare(config, "-baseline", "UEdin", "--resamples", "1000",
                                                "--trials", "1000")}
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # its default seed: 12345, ours too
    ref = (ENDE / "refs" / "A.de").read_text(encoding="utf-8").splitlines()
    order = ["UEdin", *(s for s in SYSTEMS if s != "UEdin")]
    named = [(s, (ENDE / "sys" / f"{s}.de").read_text(encoding="utf-8").splitlines()) for s in order]
    for test, field in (("bs", "p_bs"), ("ar", "p_ar")):
        metric = sacrebleu.metrics.CHRF(references=[ref])
        _, scores = PairedTest(named, {"chrF": metric}, None, test_type=test, n_samples=1000)()
        results = scores["chrF2"]  # sacreBLEU names its default chrF so
        for system, result in zip(order, results, strict=True):
            assert float(records[system]["score"]) == pytest.approx(result.score, abs=1e-4)
            if system != "UEdin":
                assert float(records[system][field]) == result.p_value, (test, system)
            if test == "bs":
                half = 0.5 * (float(records[system]["ci_high"]) - float(records[system]["ci_low"]))
                assert (float(records[system]["mean"]), half) == pytest.approx((result.mean, result.ci), abs=1e-4)


def test_nist_on_a_subset_is_mteval_run_on_those_lines(tmp_path: Path) -> None:
    """-compare -T scores NIST as -doOQ -T does: recomputed on the lines (their references' weights)."""
    systems = {s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS}
    config = ende_config(tmp_path, metrics=["NIST"], systems=systems)
    assert run("iqsetup", "-q", str(config)).returncode == 0
    compared = {r["target"]: r for r in compare(config, *FAST, "-M", "NIST", "-T", "1-40") if r["kind"] == "system"}
    out = run("iqeval", "-doOQ", "-G", "sys", "-M", "NIST", "-T", "1-40", "--tsv", str(config))
    assert out.returncode == 0, out.stderr
    scored = {r["target"]: r for r in tsv(out.stdout)}
    assert {r["aggregate"] for r in compared.values()} == {"recompute"} == {r["aggregate"] for r in scored.values()}
    for system in SYSTEMS:
        assert float(compared[system]["score"]) == pytest.approx(float(scored[system]["score"]), rel=1e-12)


def test_a_parametric_metric_without_statistics_is_not_recomputed_with_defaults(tmp_path: Path) -> None:
    """chrF(whitespace=yes)'s statistics are not chrF's: a file without them is an error naming it
    (run iqsetup again), never statistics recomputed under the family's default settings."""
    metric = "chrF(whitespace=yes)"
    config = ende_config(tmp_path, metrics=[metric], systems={s: str(ENDE / "sys" / f"{s}.de") for s in SYSTEMS})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    cache = ScoreCache(tmp_path / "cache")
    kept = cache.read("UEdin", REFSET, metric)[1]
    plain = ScoreSet(kept.scores.system, kept.scores.documents, kept.scores.segments)  # no statistics
    cache.save("UEdin", REFSET, metric, plain, ("UNKNOWN_DOC",) * 100, kept.signature, kept.inputs)
    out = run("iqeval", "-compare", *FAST, "--tsv", str(config))
    assert out.returncode == 2 and "recomputed" not in out.stderr, out.stderr
    assert "UEdin" in out.stderr and len(out.stderr.strip().splitlines()) == 1
