"""chrF's orders, ``chrF(char_order=C,word_order=W)``, against sacreBLEU 2.6.0's ``CHRF(char_order=C, word_order=W)``.

1. Names: the word order names the variant (``chrF`` 0, ``chrF++`` any other: ``chrF(word_order=2)``
   is ``chrF++``), defaults left out; no orders at all, or a negative one, is a one-line error.
2. Equal floats (segments, documents, the system; one and three references) for every order pair
   char_order 0..8 x word_order 0..3 on the bundled en-de sample, beta, whitespace, eps_smoothing and
   the experiment's case (sacreBLEU's ``lowercase``) taken in turn, and on WMT21 ru-en (../shared).
3. Statistics: a variant stores ``3 * (C + W)`` columns, whose sums over any lines give sacreBLEU's
   corpus score of those lines; variants scored together equal each alone.
4. Installed commands: ``iqeval -doOQ -T 1-10`` and ``mteval score`` (signature, ``--case ci``,
   ``--paired-bs``) with parametric orders.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED, needs_shared
from helpers import ENDE, ROOT, RUEN, ruen_experiment, run
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.errors import ConfigError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import ScoreSet, Side
from mteval.metrics.chrf import ChrF, _char_symbols, _count_matches, _matches, _sorted_matches, _word_symbols

sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed: the side-by-side checks need it")
from sacrebleu.metrics import CHRF  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from chrf_orders_grid import Config, sacrebleu_scores  # noqa: E402  (the grid tool's side of the comparison)

# (char_order, word_order, beta, whitespace, eps_smoothing, lowercase)
ORDERS = [(c, w) for c in range(9) for w in range(4) if c + w]
SETTINGS = list(itertools.product((1, 2, 3), (False, True), (False, True), (False, True)))


def lines(path: Path, n: int | None = None) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[:n]


def name_of(c: int, w: int, beta: int = 2, space: bool = False, eps: bool = False) -> str:
    yes = {True: "yes", False: "no"}
    return registry.canonical(f"chrF(char_order={c},word_order={w},beta={beta},whitespace={yes[space]},"
                              f"eps_smoothing={yes[eps]})")


def ours(names: list[str], hyps: list[str], refs: list[list[str]], docs: DocumentIndex | None = None,
         lowercase: bool = False) -> dict[str, ScoreSet]:
    family = ChrF(case_sensitive=not lowercase)
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, docs or DocumentIndex.single(len(hyps)), names)


# ---- 1. names ----

@pytest.mark.parametrize(("name", "expected"), [
    ("chrF(char_order=4)", "chrF(char_order=4)"),
    ("chrF(word_order=2)", "chrF++"),
    ("chrF(word_order=1)", "chrF++(word_order=1)"),
    ("chrF++(word_order=1)", "chrF++(word_order=1)"),
    ("chrF++(word_order=0)", "chrF"),
    ("chrF++(word_order=0,char_order=4,beta=3)", "chrF(char_order=4,beta=3)"),
    ("chrF(beta=3,word_order=2,char_order=6)", "chrF++(beta=3)"),
    ("chrF(char_order=4,word_order=1)", "chrF++(char_order=4,word_order=1)"),
    ("chrF(word_order=3, char_order=08)", "chrF++(char_order=8,word_order=3)"),
    ("chrF++(char_order=0)", "chrF++(char_order=0)"),
    ("chrF(char_order=6,word_order=0)", "chrF"),
])
def test_one_name_per_computation(name: str, expected: str) -> None:
    assert registry.canonical(name) == expected and registry.family_of(name) == "chrF"


@pytest.mark.parametrize(("name", "message"), [
    ("chrF(char_order=0)", "char_order=0 with word_order=0 leaves no n-grams"),
    ("chrF++(char_order=0,word_order=0)", "word n-grams alone: chrF++(char_order=0)"),
    ("chrF(char_order=-1)", "char_order=-1 is outside int 0.."),
    ("chrF++(word_order=-2)", "word_order=-2 is outside int 0.."),
    ("chrF(word_order=1.5)", "word_order=1.5 is not an integer"),
])
def test_orders_sacrebleu_cannot_score_are_one_line_errors(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)) as e:
        registry.family_of(name)
    assert "\n" not in str(e.value)
    assert not registry.is_metric(name)


def test_signatures_name_the_orders_only_where_they_are_not_the_variants() -> None:
    family = ChrF()
    assert family.signature("chrF(beta=3)").endswith("|beta:3|eps_smoothing:no|whitespace:no")
    assert family.signature("chrF++(char_order=4,word_order=1)").endswith(
        "|beta:2|eps_smoothing:no|whitespace:no|char_order:4|word_order:1")
    assert family.signature("chrF(char_order=4)").endswith("|whitespace:no|char_order:4|word_order:0")
    assert family.segmented_scripts("chrF(char_order=4)") is None
    assert family.segmented_scripts("chrF(word_order=1)") == frozenset()  # words, whatever the spelling


# ---- 2. equal to sacreBLEU ----

def check_grid(grid: list[Config], hyps: list[str], refs: list[list[str]], docs: DocumentIndex) -> int:
    """Every config's scores equal sacreBLEU's (floats compared with ==); the number of values."""
    n_values = 0
    for lc in (False, True):
        chosen = {name_of(*cfg[:5]): cfg for cfg in grid if cfg[5] == lc}
        for name, scores in ours(list(chosen), hyps, refs, docs, lowercase=lc).items():
            mine = np.array([scores.system, *(scores.documents[d] for d in docs.documents), *scores.segments])
            theirs = sacrebleu_scores(chosen[name], hyps, refs, docs)
            assert mine.tolist() == theirs.tolist(), (name, lc)
            n_values += len(mine)
    return n_values


def turns(orders: list[tuple[int, int]], per_pair: int) -> list[Config]:
    """Each order pair with ``per_pair`` of the 24 settings, taken in turn."""
    return [(c, w, *SETTINGS[(per_pair * k + j) % len(SETTINGS)]) for k, (c, w) in enumerate(orders)
            for j in range(per_pair)]


def test_some_orders_equal_sacrebleu_on_the_german_sample() -> None:
    hyps = lines(ENDE / "sys" / "UEdin.de", 30)
    refs = [lines(ENDE / "refs" / f"{r}.de", 30) for r in "ACD"]
    grid = turns([(1, 0), (4, 0), (8, 0), (0, 1), (2, 1), (6, 3), (7, 2)], 2)
    assert check_grid(grid, hyps, refs, DocumentIndex(tuple(f"d{i // 10}" for i in range(30)))) == 14 * 34


@pytest.mark.slow
@pytest.mark.parametrize("n_refs", [1, 3])
def test_every_order_pair_equals_sacrebleu_on_the_german_sample(n_refs: int) -> None:
    hyps = lines(ENDE / "sys" / "Online-W.de")
    refs = [lines(ENDE / "refs" / f"{r}.de") for r in "ACD"[:n_refs]]
    docs = DocumentIndex(tuple(f"d{i // 10}" for i in range(len(hyps))))
    assert check_grid(turns(ORDERS, 2), hyps, refs, docs) == 70 * (1 + 10 + 100)


@needs_shared
@pytest.mark.shared
@pytest.mark.slow
def test_orders_equal_sacrebleu_on_wmt21_ruen() -> None:
    """500 lines of one system against A and B, WMT's documents; char_order 1..8 with word_order 0..3."""
    ruen = SHARED / "data" / "wmt21-ruen"
    hyps = lines(ruen / "sys" / "Online-B.en", 500)
    refs = [lines(ruen / "refs" / f"{r}.en", 500) for r in "AB"]
    docs = DocumentIndex(tuple(row.split("\t")[1] for row in lines(ruen / "docids.tsv")[1:501]))
    grid = turns([(c, w) for c, w in ORDERS if c in (1, 3, 5, 7, 8)], 1)
    assert check_grid(grid, hyps, refs, docs) == len(grid) * (1 + len(docs.documents) + 500)


WORDS = st.sampled_from(["the", "The", "cat", "sat", "on", "mat", ".", ",", "cat.", "(on", "a", "é", "Straße"])
SENTENCES = st.lists(WORDS, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES, SENTENCES), min_size=1, max_size=4),
       st.integers(0, 10), st.integers(0, 4), st.booleans(), st.booleans())
def test_random_sentences_match_sacrebleu(rows: list[tuple[str, str, str]], c: int, w: int, eps: bool,
                                          lc: bool) -> None:
    if c + w == 0:
        return
    hyps, r1, r2 = (list(x) for x in zip(*rows, strict=True))
    name = name_of(c, w, eps=eps)
    scores = ours([name], hyps, [r1, r2], lowercase=lc)[name]
    metric = CHRF(char_order=c, word_order=w, eps_smoothing=eps, lowercase=lc)
    assert scores.system == metric.corpus_score(hyps, [r1, r2]).score
    assert scores.segments.tolist() == [metric.sentence_score(h, [a, b]).score for h, a, b in rows]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.text("ab a.c\u00e9", max_size=12), st.text("aab .c", max_size=12)), max_size=6),
       st.integers(1, 10))
def test_one_sort_matches_equal_the_prefix_ids_at_any_order(rows: list[tuple[str, str]], order: int) -> None:
    hyps, refs = [h for h, _ in rows], [r for _, r in rows]
    for symbols in (_char_symbols, _word_symbols):
        sym = symbols(refs, hyps)[0]
        assert np.array_equal(_sorted_matches(sym, len(rows), order), _matches(sym, len(rows), order))


def test_codes_past_63_bits_are_sorted_a_group_of_segments_at_a_time() -> None:
    """300 segments over 120 characters: 8-gram codes of the whole chunk would not fit in 63 bits,
    those of ~100 segments do (three sorts); 10-grams of one segment do not (the prefix ids)."""
    rng = np.random.default_rng(7)
    alphabet = np.array([chr(0x400 + k) for k in range(120)])
    hyps = ["".join(rng.choice(alphabet, int(rng.integers(0, 40)))) for _ in range(300)]
    refs = [h[:len(h) // 2] + "".join(rng.choice(alphabet, 8)) for h in hyps]
    sym = _char_symbols(refs, hyps)[0]
    assert sym.size == 120 and _sorted_matches(sym, 300, 8) is None
    assert np.array_equal(_count_matches(sym, 300, 8), _matches(sym, 300, 8))
    assert np.array_equal(_count_matches(sym, 300, 10), _matches(sym, 300, 10))
    name = name_of(8, 0)
    scores = ours([name], hyps, [refs])[name]
    assert scores.system == CHRF(char_order=8).corpus_score(hyps, [refs]).score


def test_high_orders_take_the_prefix_id_path_and_equal_sacrebleu() -> None:
    hyps = lines(ENDE / "sys" / "Facebook-AI.de", 40)
    refs = [lines(ENDE / "refs" / f"{r}.de", 40) for r in "AC"]
    assert _sorted_matches(_char_symbols(refs[0], hyps)[0], 40, 12) is None  # codes past 63 bits
    name = name_of(12, 3)
    scores = ours([name], hyps, refs)[name]
    metric = CHRF(char_order=12, word_order=3)
    assert scores.system == metric.corpus_score(hyps, refs).score
    expected = [metric.sentence_score(h, [a, b]).score for h, a, b in zip(hyps, *refs, strict=True)]
    assert scores.segments.tolist() == expected


# ---- 3. statistics ----

MIXED = ["chrF", "chrF++", "chrF(char_order=4)", "chrF++(char_order=8,word_order=3)", "chrF++(char_order=0)",
         "chrF++(word_order=1,whitespace=yes)", "chrF(char_order=2,eps_smoothing=yes)", "chrF(whitespace=yes)"]


def test_variants_scored_together_equal_each_alone_and_store_their_own_orders() -> None:
    hyps = lines(ENDE / "sys" / "UEdin.de", 40)
    refs = [lines(ENDE / "refs" / f"{r}.de", 40) for r in "ACD"]
    together = ours(MIXED, hyps, refs)
    family = ChrF()
    for name in MIXED:
        alone = ours([name], hyps, refs)[name]
        stats = together[name].stats
        assert stats is not None and alone.stats is not None
        assert together[name].system == alone.system and np.array_equal(stats, alone.stats), name
        assert stats.shape == (40, 3 * family.settings_of(name).orders), name
        assert np.array_equal(family.stored_stats(stats, name), stats)
    assert [together[n].stats.shape[1] for n in ("chrF", "chrF++")] == [18, 24]  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["chrF(char_order=4)", "chrF++(char_order=3,word_order=1,beta=1)",
                                  "chrF++(char_order=0,word_order=3,eps_smoothing=yes)"])
def test_summed_statistics_of_any_lines_are_sacrebleus_score_of_those_lines(name: str) -> None:
    hyps = lines(ENDE / "sys" / "HuaweiTSC.de")
    refs = [lines(ENDE / "refs" / f"{r}.de") for r in "AD"]
    family = ChrF()
    settings_ = family.settings_of(name)
    stats = ours([name], hyps, refs)[name].stats
    assert stats is not None
    metric = CHRF(char_order=settings_.char_order, word_order=settings_.word_order, beta=settings_.beta,
                  eps_smoothing=settings_.eps_smoothing)
    for rows in (np.arange(10), np.arange(37, 91, 3)):
        expected = metric.corpus_score([hyps[i] for i in rows], [[r[i] for i in rows] for r in refs]).score
        assert family.score_from_stats(stats[rows].sum(axis=0), name) == expected


# ---- 4. installed commands ----

SYSTEMS = ("AFRL", "Online-B")
METRICS = ["chrF(char_order=4)", "chrF(char_order=4,word_order=1)"]
KWARGS = {"chrF(char_order=4)": {"char_order": 4},
          "chrF(char_order=4,word_order=1)": {"char_order": 4, "word_order": 1}}


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ruen_experiment(tmp_path_factory.mktemp("chrf-orders"), "chrf-orders", SYSTEMS, METRICS)


def test_iqeval_subset_is_sacrebleus_score_of_those_lines(experiment: Path) -> None:
    """-T 1-10 and the whole set, references A and B: sacreBLEU's corpus score of those lines."""
    refs = [lines(RUEN / "refs" / f"{r}.en") for r in "AB"]
    for metric in METRICS:
        for span, n in (("1-10", 10), (None, None)):
            args = ["-T", span] if span else []
            done = run("iqeval", "-doOQ", "--tsv", "-G", "sys", *args, "-M", metric, str(experiment))
            assert done.returncode == 0, done.stderr
            rows = list(csv.DictReader(io.StringIO(done.stdout), delimiter="\t"))
            assert {r["target"] for r in rows} == set(SYSTEMS) and {r["refset"] for r in rows} == {"A_B"}
            for row in rows:
                hyps = lines(RUEN / "sys" / f"{row['target']}.en", n)
                expected = CHRF(**KWARGS[metric]).corpus_score(hyps, [r[:n] for r in refs]).score
                assert float(row["score"]) == pytest.approx(expected, abs=1e-9), (metric, span)


def test_mteval_score_names_the_orders_in_its_signature() -> None:
    ref, hyp = ENDE / "refs" / "A.de", ENDE / "sys" / "UEdin.de"
    done = run("mteval", "score", "-r", str(ref), "-i", str(hyp), "-m", "chrF(char_order=4,word_order=1)")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    expected = CHRF(char_order=4, word_order=1).corpus_score(lines(hyp), [lines(ref)]).score
    assert out[0].split() == ["chrF++(char_order=4,word_order=1)", f"{expected:.4f}"]  # the canonical name
    assert out[-1].startswith("chrF++(char_order=4,word_order=1)|nrefs:1|metric:chrF++(char_order=4,word_order=1)|")
    assert out[-1].endswith("|beta:2|eps_smoothing:no|whitespace:no|char_order:4|word_order:1")


def test_mteval_score_case_ci_is_sacrebleus_lowercase() -> None:
    ref, hyp = ENDE / "refs" / "C.de", ENDE / "sys" / "Online-W.de"
    done = run("mteval", "score", "-f", "json", "--case", "ci", "-r", str(ref), "-i", str(hyp),
               "-m", "chrF(char_order=3),chrF++(word_order=3)")
    assert done.returncode == 0, done.stderr
    found = {r["metric"]: r["score"] for r in json.loads(done.stdout)}
    for name, metric in (("chrF(char_order=3)", CHRF(char_order=3, lowercase=True)),
                         ("chrF++(word_order=3)", CHRF(word_order=3, lowercase=True))):
        assert found[name] == metric.corpus_score(lines(hyp), [lines(ref)]).score


def test_mteval_score_paired_bootstrap_is_sacrebleus(monkeypatch: pytest.MonkeyPatch) -> None:
    """The statistics a parametric variant stores are what sacreBLEU resamples: equal p-values."""
    from sacrebleu.significance import PairedTest

    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    ref = ENDE / "refs" / "A.de"
    systems = [ENDE / "sys" / f"{s}.de" for s in ("UEdin", "Facebook-AI", "Online-W")]
    _, expected = PairedTest([(str(p), lines(p)) for p in systems], {"chrF": CHRF(char_order=4, word_order=1)},
                             [lines(ref)], test_type="bs", n_samples=1000)()
    done = run("mteval", "score", "-f", "json", "-r", str(ref), "-i", *map(str, systems),
               "-m", "chrF++(char_order=4,word_order=1)", "--paired-bs")
    assert done.returncode == 0, done.stderr
    by_system = {r["target"]: r for r in json.loads(done.stdout)}
    results = expected["chrF2+"]  # sacreBLEU's name: beta 2, one word order
    for path, result in zip(systems, results, strict=True):
        assert by_system[str(path)]["score"] == pytest.approx(result.score, abs=1e-9)
        if path != systems[0]:
            assert by_system[str(path)]["p_bs"] == result.p_value


def test_mteval_metrics_lists_the_orders() -> None:
    long = run("mteval", "metrics", "--long").stdout.splitlines()
    at = long.index("chrF: chrF chrF++")
    assert long[at + 2].split()[:5] == ["char_order", "int", "0..", "default", "6"]
    assert long[at + 3].split()[:7] == ["word_order", "int", "0..", "default", "0", "(chrF++:", "2)"]
    named = run("mteval", "metrics", "chrF(word_order=2)").stdout.splitlines()
    assert named == ["chrF(word_order=2): variant chrF++ with char_order=6 word_order=2 beta=2 eps_smoothing=no "
                     "whitespace=no (canonical name chrF++) (family chrF)"]
