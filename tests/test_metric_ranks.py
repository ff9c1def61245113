"""The metrics' significance ranks of ``iqeval -assessments --significance`` (mt-metrics-eval's
``CompareMetrics`` + ``AssignRanks``; checked against their code at 68a481a on the en-de sample:
docs/parity.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from helpers import ENDE, ende_config, run

from mteval.errors import ConfigError
from mteval.evaluate.metric_ranks import rank_records
from mteval.meta.stats.clusters import assign_ranks


def sig(rows: list[list[float]]) -> np.ndarray:
    """An upper-triangular matrix from its rows above the diagonal (their test's layout)."""
    n = len(rows) + 1
    m = np.zeros((n, n))
    for i, row in enumerate(rows):
        m[i, i + 1:] = row
    return m


def test_assign_ranks_ports_their_test() -> None:
    """mt-metrics-eval's data_test.testAssignRanks, its three matrices and thresholds."""
    chain = sig([[1, 1, 1], [1, 1], [1]])
    assert assign_ranks(chain, 0.5) == [1, 1, 1, 1]
    assert assign_ranks(chain, 1.0) == [1, 2, 3, 4]
    assert assign_ranks(sig([[1, 0, 1], [1, 1], [1]]), 0.5) == [1, 1, 2, 2]
    assert assign_ranks(sig([[0, 1, 1], [1, 1], [0]]), 0.5) == [1, 2, 2, 3]


def test_assign_ranks_reads_only_the_current_rank() -> None:
    """A metric beaten only by a metric of an earlier rank stays in the current rank; NaN beats nothing."""
    p = sig([[0.01, 0.01], [0.9]])
    assert assign_ranks(p, 0.05) == [1, 2, 2]
    p[1, 2] = math.nan
    assert assign_ranks(p, 0.05) == [1, 2, 2]
    with pytest.raises(ConfigError):
        assign_ranks(np.zeros((2, 3)))


def records(correlations: dict[str, float], p: dict[str, float]) -> list[dict]:
    """Correlation and significance records as :func:`mteval.evaluate.correlate.assess` gives them."""
    out = [{"metric": m, "score": v, "correlation": "pearson", "variant": "plain", "level": "seg", "refset": "A"}
           for m, v in correlations.items()]
    for pair, value in p.items():
        out += [{"metric": pair, "score": 0.0, "correlation": "pearson", "level": "seg", "refset": "A",
                 "test": test, "p_value": value if test == "perm-both" else 0.0} for test in ("bootstrap", "perm-both")]
    return out


def test_rank_records_sort_as_compare_metrics() -> None:
    """Best first, the name breaking exact ties (their sort key), the permutation test's p-values
    (not the bootstrap's), NaN correlations last without a rank."""
    corr = {"zeta": 0.5, "alpha": 0.5, "mid": 0.3, "nan": math.nan}
    p = {"alpha>zeta": 0.5, "zeta>alpha": 0.5, "alpha>mid": 0.01, "zeta>mid": 0.2, "mid>alpha": 0.99,
         "mid>zeta": 0.8}
    rows = rank_records(records(corr, p), 0.05)
    assert [(r["metric"], r["rank"]) for r in rows] == [("alpha", 1), ("zeta", 1), ("mid", 2), ("nan", None)]
    assert {r["ranked_by"] for r in rows} == {"perm-both"} and rows[0]["table"] == "metric-ranks"
    assert [r["metric"] for r in rank_records(records(corr, {**p, "alpha>mid": 0.06}), 0.05)
            if r["rank"] == 1] == ["alpha", "zeta", "mid"]
    assert rank_records(records(corr, p), 0.005)[2]["rank"] == 1


def test_iqeval_prints_the_ranks(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The installed iqeval: a ranks table after the pairs, the same ranks in --tsv, and --alpha checked."""
    config = ende_config(tmp_path_factory.mktemp("ranks"), metrics=["BLEU", "chrF", "TER"])
    assert run("iqsetup", "-q", str(config)).returncode == 0
    human = config.parent.parent / "human.tsv"
    rng = np.random.default_rng(3)
    lines = ["system\tsegment\tscore"]
    from mteval.store.cache import ScoreCache

    cache = ScoreCache(config.parent / "cache")
    for system in ("Facebook-AI", "UEdin", "Online-W"):
        chrf = cache.load(system, "A_C_D", "chrF").segments
        lines += [f"{system}\t{i + 1}\t{v + rng.normal(0, 5):.4f}" for i, v in enumerate(chrf)]
    human.write_text("\n".join(lines) + "\n", encoding="utf-8")
    base = ["iqeval", "-assessments", str(human), "-G", "seg", "--corr", "pearson", "--significance",
            "--resamples", "200"]
    text = run(*base, str(config))
    assert text.returncode == 0, text.stderr
    table = text.stdout.split("metric ranks:")[1].splitlines()
    assert "perm-both p <= 0.05" in table[0] and table[1].split() == ["rank", "metric", "pearson"]
    assert table[3].split()[:2] == ["1", "chrF"]  # the human scores are chrF plus noise
    tsv = run(*base, "--tsv", str(config))
    rows = [line.split("\t") for line in tsv.stdout.splitlines()]
    ranks = [dict(zip(rows[0], r, strict=True)) for r in rows[1:] if r[0].startswith("rank:perm-both")]
    assert [r["metric"] for r in ranks] == [line.split()[1] for line in table[3:6]]
    assert ranks[0]["rank"] == "1" and ranks[0]["alpha"] == "0.05"
    bad = run(*base, "--alpha", "1.5", str(config))
    assert bad.returncode == 2 and "significance level" in bad.stderr


def test_report_ranks_are_iqevals(tmp_path: Path) -> None:
    """``mteval report -assessments``: its Pearson ranks (sys: --resamples permutations, seg: a fifth)
    are ``iqeval -assessments --significance``'s for the same seed and draws."""
    systems = {p.stem: str(p) for p in sorted((ENDE / "sys").glob("*.de"))}
    config = ende_config(tmp_path, systems=systems, metrics=["BLEU", "chrF", "-TER", "NIST"])
    assert run("iqsetup", "-q", str(config)).returncode == 0
    mqm = str(ENDE / "human" / "mqm.tsv")
    done = run("mteval", "report", str(config), "-assessments", mqm, "-o", str(tmp_path / "r.html"),
               "--json", str(tmp_path / "r.json"), "--resamples", "500", "-q")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["human"]["ranks"]
    for level, draws in (("sys", "500"), ("seg", "100")):
        done = run("iqeval", "-assessments", mqm, "-G", level, "--corr", "pearson", "--significance", "--seed",
                   "12345", "--resamples", draws, "--json", str(config))
        assert done.returncode == 0, done.stderr
        expected = [(r["metric"], r["rank"], r["score"]) for r in json.loads(done.stdout) if "rank" in r]
        assert [(r["metric"], r["rank"], r["score"]) for r in report if r["level"] == level] == expected
        assert len(expected) == 4
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<th>sys rank</th><th>seg rank</th>" in html
