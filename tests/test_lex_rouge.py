"""ROUGE parity with ROUGE-1.5.5.pl (Asiya's flags) and unit tests of its parts."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.rouge import (
    KINDS,
    RougeFamily,
    exception_lemmas,
    lcs_length,
    rouge_tokens,
    wlcs_hit,
)
from mteval.metrics.rouge_bootstrap import bootstrap_average, drand48_streams, resample_rows
from mteval.metrics.stemmers import porter_rouge

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ORACLES = SHARED / "oracles"
DATA = SHARED / "data" / "wmt21-ruen"
needs_shared = pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared (WMT21 data and oracles)")
ASIYA = ["ROUGE-1", "ROUGE-2", "ROUGE-3", "ROUGE-4", "ROUGE-L", "ROUGE-W", "ROUGE-S*", "ROUGE-SU*"]


def _oracle(path: Path) -> dict[tuple[str, str], dict[tuple[str, str, str], str]]:
    rows: dict[tuple[str, str], dict[tuple[str, str, str], str]] = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if r["metric"].startswith("ROUGE"):
                rows[(r["target"], r["references"])][(r["metric"], r["level"], r["segment"])] = r["score"]
    return rows


def _lines(path: Path, n: int | None = None) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "" and n is None:
        lines = lines[:-1]
    return lines[:n] if n is not None else lines


def _check(family: RougeFamily, hyp: Side, refs: list[Side], expected: dict) -> None:
    n = len(hyp.texts)
    out = family.score(hyp, family.prepare(refs), DocumentIndex.single(n), ASIYA)
    for v in ASIYA:
        assert f"{out[v].system:.5f}" == expected[(v, "sys", "-")], (hyp.name, v)
        want = np.array([float(expected[(v, "seg", str(i + 1))]) for i in range(n)])
        np.testing.assert_allclose(out[v].segments, want, rtol=0, atol=1e-9, err_msg=f"{hyp.name} {v}")


@pytest.mark.slow
@needs_shared
@pytest.mark.shared
def test_rouge_wmt21_every_oracle_row() -> None:
    """All 240 system and 120,000 segment rows of rouge.tsv (10 systems x A, B, A+B x 8 variants).

    No exception: every value equals ROUGE-1.5.5's printed 5-decimal number.
    """
    oracle = _oracle(ORACLES / "wmt21-ruen" / "rouge.tsv")
    refs = {k: Side(k, _lines(DATA / "refs" / f"{k}.en", 500)) for k in "AB"}
    family = RougeFamily()
    assert len(oracle) == 30
    for (target, ref_names), expected in sorted(oracle.items()):
        hyp = Side(target, _lines(DATA / "sys" / f"{target}.en", 500))
        _check(family, hyp, [refs[r] for r in ref_names.split("+")], expected)


@needs_shared
@pytest.mark.shared
def test_rouge_asiya_sample_tok() -> None:
    """Asiya's own sample (the cached reports were computed on the ``.tok`` files)."""
    base = ORACLES / "asiya-sample"
    oracle = _oracle(base / "recomputed_tok.tsv")
    ref = Side("ref", _lines(base / "data" / "ref.txt.tok"))
    for (target, _), expected in oracle.items():
        _check(RougeFamily(), Side(target, _lines(base / "data" / f"{target}.txt.tok")), [ref], expected)


def test_tokens_bytes_and_stemming() -> None:
    """Bytes: each non-ASCII byte separates; '-' is its own (dropped) token; exceptions then Porter."""
    assert rouge_tokens("Hung-up caf\u00e9s, the dogs' e-mail!") == (
        "hang", "up", "caf", "s", "the", "dog", "e", "mail")
    assert rouge_tokens("") == ("empti",)  # Asiya writes ***EMPTY*** for an empty segment
    assert rouge_tokens("Running  studies", stem=False) == ("running", "studies")
    assert exception_lemmas()["better"] == "good"  # adj.exc overrides adv.exc (see the oracle)


@pytest.mark.parametrize("word,stem", [
    ("caresses", "caress"), ("ponies", "poni"), ("agreed", "agre"), ("hopping", "hop"),
    ("filing", "file"), ("happy", "happi"), ("relational", "relat"), ("replacement", "replac"),
    ("adjustment", "adjust"), ("dependent", "depend"), ("adoption", "adopt"), ("controll", "control"),
    ("yelling", "yell"), ("generalization", "gener"),
])
def test_porter_rouge(word: str, stem: str) -> None:
    """Porter (1980) examples, with ROUGE's -ement change ("replacement" keeps no "-ment" retry)."""
    assert porter_rouge(word) == stem


def test_lcs_and_wlcs() -> None:
    a, b = "a b c d e".split(), "a c x d e b".split()
    assert lcs_length(a, b) == 4 and lcs_length(b, a) == 4 and lcs_length([], b) == 0
    assert wlcs_hit("a b c".split(), "a b c".split()) == pytest.approx(3 ** 1.2)
    # runs of consecutive reference positions: (a) + (c d e) -> 1 + 3^1.2
    assert wlcs_hit(a, b) == pytest.approx(1 + 3 ** 1.2)


def test_drand48_matches_the_c_library_definition() -> None:
    """drand48 after srand48(0): x0 = 0x330E, x1 = (0x5DEECE66D*x0 + 0xB) mod 2^48."""
    x1 = (0x5DEECE66D * 0x330E + 0xB) % (1 << 48)
    assert drand48_streams(1, 1)[0, 0] == x1 / 2 ** 48
    rows = resample_rows(12)
    assert rows.shape == (1000, 12) and rows.min() >= 0 and rows.max() <= 11


def test_bootstrap_of_constant_scores() -> None:
    assert bootstrap_average(np.full(7, 0.25)) == 0.25
    assert bootstrap_average(np.zeros(0)) == 0.0


def test_family_identity_bounds_and_multiref() -> None:
    family = RougeFamily()
    texts = ["The cat sat on the mat .", "A dog barked loudly at the postman ."]
    ref = Side("r", texts)
    out = family.score(Side("h", texts), family.prepare([ref]), DocumentIndex.single(2), list(KINDS))
    for v in KINDS:
        if KINDS[v] != "W":
            assert out[v].system == 1.0 and np.all(out[v].segments == 1.0)
    # ROUGE-1.5.5 weights the ROUGE-W reference total twice, f(f(|ref|)), so identity gives
    # R = |ref|^-0.2 and P = 1 (reproduced on purpose: the oracle has it).
    r = round(6 ** -0.2, 5)
    assert out["RG-W-1.2"].segments[0] == round(2 * r / (1 + r), 5)
    hyp = Side("h", ["the cat sat", ""])
    two = family.score(hyp, family.prepare([ref, Side("r2", ["cat sat", "x"])]),
                       DocumentIndex.single(2), ["RG-L", "ROUGE-L"])
    assert np.array_equal(two["RG-L"].segments, two["ROUGE-L"].segments)
    assert np.all((two["RG-L"].segments >= 0) & (two["RG-L"].segments <= 1))


def test_bad_input_is_an_input_error() -> None:
    from mteval.errors import InputError

    family = RougeFamily()
    with pytest.raises(InputError, match="segment count"):
        family.prepare([Side("A", ["a", "b"]), Side("B", ["a"])])
    with pytest.raises(InputError, match="h: 1 segments"):
        family.score(Side("h", ["a"]), family.prepare([Side("A", ["a", "b"])]), DocumentIndex.single(1), ["RG-1"])


def test_bootstrap_without_cached_draws_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 35: beyond CACHED_DRAWS the draws are made again by blocks, each block's sums carried on:
    # the same floats as the cached path (also with a block that does not divide N, and a last short one)
    from mteval.metrics import rouge_bootstrap

    rng = np.random.default_rng(7)
    vectors = [np.round(rng.random(n), 5) for n in (2501, 2501)]
    cached = rouge_bootstrap.bootstrap_averages(vectors)
    monkeypatch.setattr(rouge_bootstrap, "CACHED_DRAWS", 0)
    monkeypatch.setattr(rouge_bootstrap, "BLOCK", 300)
    means = np.empty((2, rouge_bootstrap.RESAMPLES))
    rouge_bootstrap._streamed_means(vectors, rouge_bootstrap.RESAMPLES, means)
    draws = rouge_bootstrap.resample_rows(2501)
    for k, v in enumerate(vectors):
        assert np.array_equal(means[k], np.add.reduce(v[draws.T], axis=0) / 2501)
    assert rouge_bootstrap.bootstrap_averages(vectors) == cached
    assert rouge_bootstrap.bootstrap_average(vectors[1]) == cached[1]
