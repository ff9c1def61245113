"""WMT12's Kendall tau over relative rankings: reader, statistic, bootstrap, and iqeval --corr wmt12."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.errors import ConfigError, InputError, MtevalError
from mteval.evaluate.wmt12 import choose_pair
from mteval.io.rankings import RankingEvent, pairs_in, read_rankings
from mteval.meta.stats.correlation import correlate
from mteval.meta.stats.wmt12_kendall import comparisons, pair_outcomes, paired_difference, system_wins, wmt12_tau
from tests.helpers import ROOT, run

FIXTURE = ROOT / "tests" / "data" / "wmt12-rankings"
SHARED_RANKINGS = ROOT.parent / "shared" / "data" / "wmt12-enxx" / "human" / "rankings.tsv"
HEADER = "event\tpair\tline\tjudge\tslot\tsystem\trank\n"
SYSTEMS = ["a", "b", "c"]


def event(name: str, line: int, *ranks: tuple[str, int]) -> RankingEvent:
    return RankingEvent(name, "en-fr", line, "J", tuple(ranks))


# ---- the statistic, by hand ----

def test_hand_computed_tau_with_human_and_metric_ties() -> None:
    events = [event("1", 1, ("a", 1), ("b", 2), ("c", 3)),   # a>b, a>c, b>c
              event("2", 2, ("a", 2), ("b", 1), ("c", 2))]   # b>a, b>c, a=c (human tie: out)
    scores = np.array([[3.0, 1.0],    # a
                       [2.0, 1.0],    # b
                       [1.0, 0.0]])   # c
    pairs = comparisons(events, SYSTEMS)
    assert len(pairs.event) == 5 and pairs.human_ties == 1
    # line 1: all 3 concordant; line 2: b>a metric tie (1 = 1), b>c concordant
    tau = wmt12_tau(pairs, scores, n=0)
    assert (tau.concordant, tau.discordant, tau.metric_ties) == (4, 0, 1)
    assert tau.value == pytest.approx((4 - 1) / (4 + 1))  # the tie is discordant in WMT12
    assert wmt12_tau(pairs, scores, ties="exclude", n=0).value == pytest.approx(1.0)
    assert wmt12_tau(pairs, -scores, n=0).value == pytest.approx((0 - 5) / 5)


def test_missing_scores_and_unselected_systems_or_lines_are_left_out() -> None:
    events = [event("1", 1, ("a", 1), ("b", 2), ("c", 3)), event("2", 2, ("a", 1), ("c", 2))]
    scores = np.array([[1.0, 0.0], [np.nan, 0.0], [0.0, 1.0]])
    pairs = comparisons(events, SYSTEMS)
    num, den = pair_outcomes(pairs, scores)
    assert den.sum() == 2 and num.sum() == 1 - 1   # a>c line 1 concordant, a>c line 2 discordant
    only_ac = comparisons(events, ["a", "c"], rows=[0])
    assert len(only_ac.event) == 1 and wmt12_tau(only_ac, scores[[0, 2]], n=0).value == 1.0


def test_no_comparable_pair_is_nan() -> None:
    pairs = comparisons([event("1", 1, ("a", 1), ("b", 1))], SYSTEMS)
    assert np.isnan(wmt12_tau(pairs, np.zeros((3, 1)), n=10).value)


def test_unknown_tie_rule_is_refused() -> None:
    pairs = comparisons([event("1", 1, ("a", 1), ("b", 2))], SYSTEMS)
    with pytest.raises(MtevalError, match="metric ties must be one of penalize, exclude"):
        pair_outcomes(pairs, np.zeros((3, 1)), ties="half")


def test_system_wins_excludes_ties() -> None:
    events = [event("1", 1, ("a", 1), ("b", 2), ("c", 2)), event("2", 1, ("b", 1), ("a", 2))]
    assert system_wins(events, SYSTEMS) == {"a": 2 / 3, "b": 1 / 2, "c": 0.0}


# ---- bootstrap over events ----

def _random_case(seed: int, n_events: int = 60) -> tuple[list[RankingEvent], np.ndarray]:
    rng = np.random.default_rng(seed)
    names = [f"s{i}" for i in range(6)]
    events = []
    for k in range(n_events):
        chosen = rng.choice(6, size=5, replace=False)
        events.append(RankingEvent(str(k), "en-fr", int(rng.integers(1, 21)), "J",
                                   tuple((names[i], int(rng.integers(1, 6))) for i in chosen)))
    return events, rng.integers(0, 4, size=(6, 20)).astype(float)


def test_bootstrap_is_seeded_and_brackets_the_value() -> None:
    events, scores = _random_case(0)
    pairs = comparisons(events, [f"s{i}" for i in range(6)])
    a, b = wmt12_tau(pairs, scores, n=300, seed=7), wmt12_tau(pairs, scores, n=300, seed=7)
    assert a == b and a.low <= a.value <= a.high and a.low < a.high
    assert wmt12_tau(pairs, scores, n=300, seed=8) != a


def test_paired_difference() -> None:
    events, scores = _random_case(1)
    pairs = comparisons(events, [f"s{i}" for i in range(6)])
    same = paired_difference(pairs, scores, scores, n=200)
    assert same.delta == 0 and same.low == same.high == 0 and same.p_value == 1.0
    noisy = scores + np.random.default_rng(3).normal(0, 5, scores.shape)
    d = paired_difference(pairs, scores, noisy, n=200)
    assert d.delta == pytest.approx(wmt12_tau(pairs, scores, n=0).value - wmt12_tau(pairs, noisy, n=0).value)
    assert d.low <= d.delta <= d.high and 0 <= d.p_value <= 1


# ---- properties ----

ranks = st.lists(st.integers(1, 5), min_size=2, max_size=5)
metric = st.lists(st.integers(0, 3), min_size=5, max_size=5)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(ranks, metric), min_size=1, max_size=8))
def test_equals_brute_force_and_the_score_based_wmt12_kendall(cases: list[tuple[list[int], list[int]]]) -> None:
    """One event per line: the rankings tau equals a brute-force count and mteval's score-based
    kendall-wmt12 grouped by line (human score = -rank)."""
    names = [f"s{i}" for i in range(5)]
    events = [RankingEvent(str(k), "en-fr", k + 1, "J", tuple((names[i], r) for i, r in enumerate(rs)))
              for k, (rs, _) in enumerate(cases)]
    scores = np.array([[m[i] for _, m in cases] for i in range(5)], dtype=float)
    con = dis = 0
    human, values, groups = [], [], []
    for k, (rs, m) in enumerate(cases):
        for i in range(len(rs)):
            human.append(-rs[i])
            values.append(m[i])
            groups.append(k)
            for j in range(i + 1, len(rs)):
                if rs[i] != rs[j]:
                    agree = (m[i] - m[j]) * (rs[j] - rs[i])
                    con, dis = con + (agree > 0), dis + (agree <= 0)
    tau = wmt12_tau(comparisons(events, names), scores, n=0)
    if con + dis == 0:
        assert np.isnan(tau.value)
        return
    assert tau.value == pytest.approx((con - dis) / (con + dis))
    assert tau.value == pytest.approx(correlate("kendall-wmt12", np.array(human, float), np.array(values, float),
                                                np.array(groups)))
    assert -1 <= tau.value <= 1


# ---- the reader ----

def write(tmp_path: Path, body: str, name: str = "r.tsv") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_reader_groups_events_in_slot_order_and_filters_pairs(tmp_path: Path) -> None:
    path = write(tmp_path, "5\ten-fr\t2\tJ\t2\tb\t1\n5\ten-fr\t2\tJ\t1\ta\t3\n6\ten-es\t1\tK\t1\ta\t1\n")
    assert pairs_in(path) == ["en-es", "en-fr"]
    (e,) = read_rankings(path, 3, pair="en-fr")
    assert (e.event, e.line, e.judge, e.ranks) == ("5", 2, "J", (("a", 3), ("b", 1)))
    assert e.pairs() == [("a", "b", -1)]
    assert len(read_rankings(path)) == 2


@pytest.mark.parametrize(("body", "line", "problem"), [
    ("1\ten-fr\t1\tJ\t1\ta\n", 2, "6 tab-separated fields, need 7"),
    ("1\ten-fr\tx\tJ\t1\ta\t1\n", 2, "line 'x' is not a positive integer"),
    ("1\ten-fr\t1\tJ\t1\ta\t-1\n", 2, "rank '-1' is not a positive integer"),
    ("1\ten-fr\t9\tJ\t1\ta\t1\n", 2, "line 9 is beyond the 3 segments"),
    ("1\ten-fr\t1\tJ\t1\ta\t1\n1\ten-fr\t2\tJ\t2\tb\t1\n", 3, "event '1' has pair/line/judge"),
    ("1\ten-fr\t1\tJ\t1\ta\t1\n1\ten-fr\t1\tJ\t2\ta\t2\n", 3, "event '1' ranks system 'a' twice"),
    ("1\ten-fr\t1\tJ\t1\ta\t1\n1\ten-fr\t1\tJ\t1\tb\t2\n", 3, "event '1' has slot 1 twice"),
    ("1\ten-fr\t1\tJ\t1\tzz\t1\n", 2, "unknown system 'zz'"),
])
def test_reader_refuses_bad_rows_naming_file_and_line(tmp_path: Path, body: str, line: int, problem: str) -> None:
    path = write(tmp_path, body)
    with pytest.raises(InputError) as caught:
        read_rankings(path, 3, systems=["a", "b"])
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: ") and problem in message and "\n" not in message


def test_reader_refuses_a_header_without_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "r.tsv"
    path.write_text("system\tline\tscore\na\t1\t3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"r.tsv:1: rankings header lacks column\(s\) event, pair, judge, slot, rank"):
        read_rankings(path)


@pytest.mark.skipif(not SHARED_RANKINGS.exists(), reason=f"needs the shared WMT12 rankings ({SHARED_RANKINGS})")
def test_shared_wmt12_rankings_match_their_readme() -> None:
    """The counts of ../shared/data/wmt12-enxx/README.md: events (less the 5, 4 and 3 rankings left
    entirely blank, whose rows were dropped), pairwise comparisons and human ties."""
    for pair, events_n, comparisons_n, ties in (("en-fr", 1547 - 5, 15349, 3787), ("en-es", 1475 - 4, 14592, 2758),
                                                ("en-cs", 2308 - 3, 22882, 4077)):
        events = read_rankings(SHARED_RANKINGS, 3003, pair=pair)
        systems = sorted({s for e in events for s, _ in e.ranks})
        pairs = comparisons(events, systems)
        assert (len(events), len(pairs.event) + pairs.human_ties, pairs.human_ties) == (events_n, comparisons_n, ties)


# ---- iqeval -assessments rankings.tsv --corr wmt12 ----

@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wmt12")
    config = {"name": "wmt12-fixture", "cache": str(tmp / "cache"), "source": str(FIXTURE / "src.en"),
              "language": "fr", "references": {"A": str(FIXTURE / "refs" / "A.fr")},
              "systems": {s: str(FIXTURE / "sys" / f"{s}.fr") for s in ("exact", "close", "far")},
              "metrics": ["chrF", "BLEU", "TER"]}
    path = tmp / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    result = run("iqsetup", "-q", str(path))
    assert result.returncode == 0, result.stderr
    return path


def records(stdout: str) -> list[dict[str, str]]:
    lines = stdout.strip().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, row.split("\t"), strict=True)) for row in lines[1:]]


def test_iqeval_wmt12_tau_equals_the_hand_count(experiment: Path) -> None:
    out = run("iqeval", "-assessments", str(FIXTURE / "rankings.tsv"), "--corr", "wmt12", "-G", "seg",
              "-M", "chrF,TER", "--resamples", "50", "--tsv", str(experiment))
    assert out.returncode == 0, out.stderr
    rows = {r["metric"]: r for r in records(out.stdout)}
    chrf = rows["chrF"]
    assert (chrf["target"], chrf["n"], chrf["concordant"], chrf["discordant"], chrf["metric_ties"]) == \
        ("wmt12", "9", "7", "1", "1")
    assert float(chrf["score"]) == pytest.approx(5 / 9, abs=1e-4)
    assert float(rows["TER"]["score"]) == pytest.approx(5 / 9, abs=1e-4)  # oriented: lower TER is better
    assert float(chrf["ci_low"]) <= float(chrf["score"]) <= float(chrf["ci_high"])


def test_iqeval_wmt12_significance_and_refusals(experiment: Path, tmp_path: Path) -> None:
    rankings = str(FIXTURE / "rankings.tsv")
    out = run("iqeval", "-assessments", rankings, "--corr", "wmt12", "-G", "seg", "-M", "chrF,BLEU",
              "--significance", "--resamples", "50", "--tsv", str(experiment))
    assert out.returncode == 0, out.stderr
    tests = [r for r in records(out.stdout) if r["target"] == "bootstrap:wmt12"]
    assert sorted(r["metric"] for r in tests) == ["BLEU>chrF", "chrF>BLEU"]
    for args, problem in ((["--corr", "wmt12,pearson", "-G", "seg"], "give it alone"),
                          (["--corr", "wmt12", "-G", "sys"], "segment-level statistic: use -G seg")):
        bad = run("iqeval", "-assessments", rankings, *args, str(experiment))
        assert bad.returncode == 2 and problem in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    broken = write(tmp_path, "10\ten-fr\t1\tJ1\t1\texact\tfirst\n")
    bad = run("iqeval", "-assessments", str(broken), "--corr", "wmt12", "-G", "seg", str(experiment))
    assert bad.returncode == 2 and f"{broken}:2: rank 'first' is not a positive integer" in bad.stderr


def test_the_pair_is_the_one_into_the_experiments_language(tmp_path: Path) -> None:
    path = write(tmp_path, "1\ten-fr\t1\tJ\t1\ta\t1\n2\ten-es\t1\tJ\t1\ta\t1\n")
    assert choose_pair(str(path), "es") == "en-es"
    with pytest.raises(ConfigError, match="holds the pairs en-es, en-fr; none is unambiguously into"):
        choose_pair(str(path), "de")
    assert choose_pair(str(write(tmp_path, "1\ten-cs\t1\tJ\t1\ta\t1\n", "one.tsv")), "de") == "en-cs"
