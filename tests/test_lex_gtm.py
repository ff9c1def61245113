"""GTM-1/2/3 against Asiya's cached GTM 1.4 values (``../shared/oracles/asiya-sample``).

No Python oracle exists; Asiya's score cache (``scores/<sys>.txt/ref.txt/GTM-N.xml.gz``, computed on
the ``.tok`` files with ``gtm.jar +s +d -e N``) gives 6 systems x 3 variants x (system + document +
3 segments) = 90 values printed with 8 decimals (the document score is Asiya's mean of segment
scores): ours rounded to 8 decimals must equal them. The report ``reports/GTM.report`` repeats the
system values. Hand cases pin the greedy run matching.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter

import numpy as np
import pytest
from conftest import SHARED, needs_shared
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.gtm import GTM, greedy_runs, mms

SAMPLE = SHARED / "oracles" / "asiya-sample"
SYSTEMS = ("apertium", "babelfish", "bing", "google", "reverso", "systran")


def _read(name: str) -> list[str]:
    return (SAMPLE / "data" / f"{name}.txt.tok").read_text(encoding="utf-8").split("\n")[:3]


def _cached(system: str, variant: str) -> tuple[float, float, list[float]]:
    with gzip.open(SAMPLE / "scores" / f"{system}.txt" / "ref.txt" / f"{variant}.xml.gz") as f:
        xml = f.read().decode("utf-8")
    system_score = float(re.search(r'<REPORT[^>]*\bscore="([^"]+)"', xml).group(1))
    doc_score = float(re.search(r'<DOC[^>]*\bscore="([^"]+)"', xml).group(1))
    return system_score, doc_score, [float(x) for x in re.findall(r'<S n="\d+">([^<]+)</S>', xml)]


@needs_shared
@pytest.mark.shared
def test_asiya_sample_cache_and_report() -> None:
    family = GTM()
    prepared = family.prepare([Side("ref", _read("ref"))])
    report = {}
    for line in (SAMPLE / "reports" / "GTM.report").read_text().splitlines()[2:]:
        fields = line.split()
        report[fields[1].removesuffix(".txt")] = [float(x) for x in fields[2:]]
    n_values = 0
    for system in SYSTEMS:
        scores = family.score(Side(system, _read(system)), prepared, DocumentIndex.single(3), GTM.variants)
        for k, variant in enumerate(GTM.variants):
            expected_sys, expected_doc, expected_seg = _cached(system, variant)
            assert round(scores[variant].system, 8) == expected_sys, (system, variant)
            assert round(scores[variant].documents["UNKNOWN_DOC"], 8) == expected_doc, (system, variant)
            assert round(scores[variant].system, 8) == report[system][k]
            assert [round(x, 8) for x in scores[variant].segments] == expected_seg, (system, variant)
            n_values += 5
    assert n_values == 90


# GTM 1.4's own scoring code (its Bitext/Run classes, compiled from the GTM 1.4 source and driven
# like Score.processSeg; run once by hand, Java is not needed here) on all 1000 lines of
# ../shared/data/wmt21-ruen with references A and B together: system GTM-1, GTM-2, GTM-3 F.
# The same run matched our segment statistics (MMS, lengths) on all 32 all-pairs sets (288,135
# values, max |diff| 3.6e-15).
GTM14_AB = {
    "AFRL": (0.7731297213873771, 0.4292146218296021, 0.37988228834541743),
    "Facebook-AI": (0.8035886966799184, 0.44680577349612094, 0.39554095192935457),
    "Manifold": (0.7871664039751022, 0.4365672452058877, 0.3861431985408261),
    "NVIDIA-NeMo": (0.789526793775559, 0.43555096451442366, 0.3848840625652951),
    "NiuTrans": (0.7881837014716565, 0.441861519338551, 0.3920740728102697),
    "Online-A": (0.7840461265836176, 0.4248485260031376, 0.3741642907330889),
    "Online-B": (0.7930504386546158, 0.43795793249676834, 0.38735304114371844),
    "Online-G": (0.8003532171758442, 0.4475059551964493, 0.39704235455846165),
    "Online-W": (0.7626011872638965, 0.4106077473997687, 0.3605190398975521),
    "Online-Y": (0.7203204862550077, 0.3830011022746018, 0.33444447761869195),
}


@pytest.mark.slow
@needs_shared
@pytest.mark.shared
def test_multi_reference_system_scores_match_gtm14() -> None:
    data = SHARED / "data" / "wmt21-ruen"

    def read(path: str) -> list[str]:
        return (data / path).read_text(encoding="utf-8").rstrip("\n").split("\n")

    family = GTM()
    prepared = family.prepare([Side("B", read("refs/B.en")), Side("A", read("refs/A.en"))])
    docs = DocumentIndex.single(1000)
    for system, expected in GTM14_AB.items():
        scores = family.score(Side(system, read(f"sys/{system}.en")), prepared, docs, GTM.variants)
        got = [scores[v].system for v in GTM.variants]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=system)


def test_greedy_runs_and_mms() -> None:
    hyp = "The Wii Remote to help diagnose childhood eye disease .".split()
    ref = "The remote control of the Wii helps to diagnose an infantile ocular disease .".split()
    runs = greedy_runs(tuple(hyp), [tuple(ref)])
    assert sorted(runs) == [1, 1, 1, 1, 2]  # "disease ." is the only run longer than one word
    assert mms(runs, 2) == pytest.approx(8 ** 0.5)
    # the longest run is taken first even when it blocks two shorter ones
    assert greedy_runs(tuple("a b c x a b".split()), [tuple("a b c".split())]) == [3]
    assert mms([], 3) == 0.0


def test_identity_and_disjoint() -> None:
    family = GTM()
    text = ["a b c d", "x"]
    prepared = family.prepare([Side("r", text)])
    same = family.score(Side("h", text), prepared, DocumentIndex.single(2), GTM.variants)
    assert all(same[v].system == 1.0 and same[v].segments.tolist() == [1.0, 1.0] for v in GTM.variants)
    other = family.score(Side("h", ["e f", ""]), prepared, DocumentIndex.single(2), GTM.variants)
    assert all(other[v].system == 0.0 for v in GTM.variants)


def test_multi_reference_follows_gtm_14() -> None:
    # references matched jointly; total matched length capped at min(|cand|, mean |ref|);
    # equally long runs: the largest grid point first ("c d" in the second reference)
    assert greedy_runs(("a", "b", "c", "d"), [("a", "b"), ("c", "d")]) == [2.0]
    assert greedy_runs(("a", "b", "c"), [("a", "b", "c"), ("x", "y")]) == [2.5]  # fractional cap
    family = GTM()
    prepared = family.prepare([Side("r2", ["c d", "x y"]), Side("r1", ["a b", "a b c"])])
    got = family.score(Side("h", ["a b c d", "a b c"]), prepared, DocumentIndex.single(2), GTM.variants)
    assert got["GTM-2"].segments[0] == pytest.approx(2 * 0.5 * 1.0 / 1.5)
    assert got["GTM-1"].segments[1] == pytest.approx(2 * (2.5 / 3) / (2.5 / 3 + 1))
    # system: summed MMS (2 + 2.5), candidate lengths (4 + 3) and mean reference lengths (2 + 2.5)
    p, r = 4.5 / 7, 4.5 / 4.5
    assert got["GTM-1"].system == pytest.approx(2 * p * r / (p + r))


WORDS = st.sampled_from(list("abcde"))


@settings(max_examples=100, deadline=None)
@given(st.lists(WORDS, max_size=15), st.lists(WORDS, max_size=15))
def test_gtm1_is_clipped_unigram_count(hyp: list[str], ref: list[str]) -> None:
    runs = greedy_runs(tuple(hyp), [tuple(ref)])
    assert sum(runs) == sum((Counter(hyp) & Counter(ref)).values())
    assert mms(runs, 3) <= mms(runs, 2) + 1e-12 <= mms(runs, 1) + 2e-12
    assert np.isfinite(mms(runs, 2))
