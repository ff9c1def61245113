"""QARLA on real data: WMT21 en-de (3 references A C D, 20 systems), lexical metrics.

The arrays are built here with fast sentence-level scorers that work once per unique string
(sacreBLEU's 13a tokenizer and BLEU formula, sacreBLEU's chrF formula, the project's tercom TER,
unigram precision and recall): parity with ``sacrebleu.sentence_*`` is tested below. The pinned
numbers were checked against the literal loop definitions (``test_meta_literal.py``) in the same
test. ``bench/bench_meta.py --wmt21`` prints the same report for more segments.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from test_meta_literal import greedy_literal, jack_literal, king_literal, queen_all

from mteval.meta.qarla.jack import jack
from mteval.meta.qarla.king import king
from mteval.meta.qarla.optimize import greedy_king
from mteval.meta.qarla.queen import QarlaData, aggregate, queen
from mteval.metrics.base import Side
from mteval.metrics.ter import TER

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ENDE = SHARED / "data" / "wmt21-ende"
METRICS = ("BLEU", "chrF", "-TER", "P1", "R1")
_TOK = Tokenizer13a()
_CHRF = CHRF()


@cache
def word_ngrams(text: str) -> tuple[int, tuple[Counter, ...]]:
    """13a tokens' length and 1..4-gram counts of one string (computed once per string)."""
    tokens = _TOK(text.rstrip()).split()
    return len(tokens), tuple(Counter(zip(*[tokens[i:] for i in range(n)], strict=False)) for n in range(1, 5))


@cache
def char_ngrams(text: str) -> tuple[Counter, ...]:
    """chrF's character 1..6-gram counts (whitespace removed), once per string."""
    chars = text.replace(" ", "")
    return tuple(Counter(chars[i:i + n] for i in range(len(chars) - n + 1)) for n in range(1, 7))


def sentence_bleu(hyp: str, ref: str) -> float:
    """sacreBLEU ``sentence_bleu`` (exp smoothing, effective order), on a 0-1 scale."""
    hyp_len, hyp_ngrams = word_ngrams(hyp)
    ref_len, ref_ngrams = word_ngrams(ref)
    correct = [sum(min(c, r[g]) for g, c in h.items()) for h, r in zip(hyp_ngrams, ref_ngrams, strict=True)]
    total = [max(0, hyp_len - n) for n in range(4)]
    return BLEU.compute_bleu(correct, total, hyp_len, ref_len, smooth_method="exp",
                             effective_order=True).score / 100


def sentence_chrf(hyp: str, ref: str) -> float:
    """sacreBLEU ``sentence_chrf`` (chrF2, 6 character orders), on a 0-1 scale."""
    stats = []
    for h, r in zip(char_ngrams(hyp), char_ngrams(ref), strict=True):
        stats += [sum(h.values()), sum(r.values()), sum(min(c, r[g]) for g, c in h.items())]
    return _CHRF._compute_score_from_stats(stats).score / 100


def unigram_pr(hyp: str, ref: str) -> tuple[float, float]:
    """Clipped unigram precision and recall over 13a tokens (0 for an empty side)."""
    hyp_len, hyp_ngrams = word_ngrams(hyp)
    ref_len, ref_ngrams = word_ngrams(ref)
    match = sum(min(c, ref_ngrams[0][g]) for g, c in hyp_ngrams[0].items())
    return (match / hyp_len if hyp_len else 0.0), (match / ref_len if ref_len else 0.0)


class LexicalScorer:
    """Segment scores of METRICS for a (hypothesis texts, reference texts) pair."""

    def __init__(self) -> None:
        self.ter = TER()

    def corpus_ter(self, hyp: list[str], ref: list[str]) -> float:
        """Corpus -TER (summed edits / summed reference lengths, as sacreBLEU), 0-1 scale."""
        stats = self.ter.segment_stats(Side("h", hyp), self.ter.prepare([Side("r", ref)])).sum(axis=0)
        return float(self.ter.scores_from_stats(stats, "-TER")[0]) / 100

    def __call__(self, hyp: list[str], ref: list[str], metrics: tuple[str, ...] = METRICS) -> np.ndarray:
        out = np.empty((len(metrics), len(hyp)))
        for k, metric in enumerate(metrics):
            if metric == "-TER":
                stats = self.ter.segment_stats(Side("h", hyp), self.ter.prepare([Side("r", ref)]))
                out[k] = self.ter.scores_from_stats(stats, "-TER") / 100
            elif metric in ("P1", "R1"):
                out[k] = [unigram_pr(h, r)[metric == "R1"] for h, r in zip(hyp, ref, strict=True)]
            else:
                fn = sentence_bleu if metric == "BLEU" else sentence_chrf
                out[k] = [fn(h, r) for h, r in zip(hyp, ref, strict=True)]
        return out


def read_lines(path: Path, n: int) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[:n]


def wmt21_ende(n_segments: int, metrics: tuple[str, ...] = METRICS) -> tuple[QarlaData, dict[str, list[str]]]:
    """QarlaData (no system/system scores) of the first ``n_segments`` lines, and the system texts."""
    refs = {r: read_lines(ENDE / "refs" / f"{r}.de", n_segments) for r in ("A", "C", "D")}
    systems = {p.stem: read_lines(p, n_segments) for p in sorted((ENDE / "sys").glob("*.de"))}
    score = LexicalScorer()
    sys_ref = np.stack([np.stack([score(systems[a], refs[r], metrics) for r in refs], axis=1) for a in systems],
                       axis=1)
    ref_ref = np.full((len(metrics), 3, 3, n_segments), np.nan)
    for i, r1 in enumerate(refs):
        for j, r2 in enumerate(refs):
            if i != j:
                ref_ref[:, i, j] = score(refs[r1], refs[r2], metrics)
    data = QarlaData(metrics, tuple(systems), tuple(refs), sys_ref, ref_ref, np.ones(len(metrics), bool))
    return data, systems


def with_sys_sys(data: QarlaData, systems: dict[str, list[str]], metrics: tuple[str, ...]) -> QarlaData:
    """``data`` restricted to ``metrics`` plus their system/system scores (for JACK)."""
    index = data.metric_index(metrics)
    score = LexicalScorer()
    names = list(systems)
    sys_sys = np.full((len(metrics), len(names), len(names), data.n_segments), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                sys_sys[:, i, j] = score(systems[a], systems[b], metrics)
    return QarlaData(metrics, data.systems, data.references, data.sys_ref[index], data.ref_ref[index],
                     data.higher_is_better[index], sys_sys)


def test_fast_scorers_equal_sacrebleu() -> None:
    pairs = [("Das ist ein Test.", "Das ist kein Test ."), ("", "Hallo Welt"), ("a b c d e", "a b c d e"),
             ("Der Hund, der bellt.", "Ein Hund bellt laut!"), ("x", "")]
    for hyp, ref in pairs:
        assert sentence_bleu(hyp, ref) == pytest.approx(sacrebleu.sentence_bleu(hyp, [ref]).score / 100, abs=1e-12)
        assert sentence_chrf(hyp, ref) == pytest.approx(sacrebleu.sentence_chrf(hyp, [ref]).score / 100, abs=1e-12)
        ter = LexicalScorer()([hyp], [ref], ("-TER",))[0, 0]
        assert ter == pytest.approx(-sacrebleu.sentence_ter(hyp, [ref]).score / 100, abs=1e-12)
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    assert LexicalScorer().corpus_ter(hyps, refs) == pytest.approx(-sacrebleu.corpus_ter(hyps, [refs]).score / 100,
                                                                   abs=1e-12)


needs_ende = pytest.mark.skipif(not ENDE.exists(), reason="../shared/data/wmt21-ende is absent")
N_SEG = 60


@pytest.fixture(scope="module")
def ende() -> tuple[QarlaData, dict[str, list[str]]]:
    return wmt21_ende(N_SEG)


@pytest.mark.shared
@pytest.mark.slow
@needs_ende
def test_real_scores_equal_sacrebleu(ende) -> None:
    data, systems = ende
    refs = read_lines(ENDE / "refs" / "C.de", 5)
    for s in range(5):
        hyp = systems["UEdin"][s]
        assert data.sys_ref[0, data.systems.index("UEdin"), 1, s] == pytest.approx(
            sacrebleu.sentence_bleu(hyp, [refs[s]]).score / 100, abs=1e-12)
        assert data.sys_ref[1, data.systems.index("UEdin"), 1, s] == pytest.approx(
            sacrebleu.sentence_chrf(hyp, [refs[s]]).score / 100, abs=1e-12)


# Pinned on the first 60 segments; every number was checked against the literal loops below.
# QUEEN: successes out of 60 x 18 = 1080 triples per system (system level)
PINNED_QUEEN_HITS = {
    "BUPT_rush": 370, "Facebook-AI": 471, "HuaweiTSC": 466, "ICL": 256, "Manifold": 436, "NVIDIA-NeMo": 483,
    "Online-A": 452, "Online-B": 428, "Online-G": 350, "Online-W": 502, "Online-Y": 371, "P3AI": 393,
    "UEdin": 433, "UF": 421, "VolcTrans-AT": 414, "VolcTrans-GLAT": 469, "WeChat-AI": 457,
    "eTranslation": 458, "happypoet": 410, "nuclear_trans": 358}
# KING (segment level): hits out of 3 references x 60 segments
PINNED_KING_SEG = {"BLEU": (77, 180), "chrF": (62, 180), "-TER": (81, 180), "P1": (72, 180), "R1": (62, 180)}
PINNED_GREEDY = (("-TER", True), ("BLEU", False), ("P1", False), ("chrF", False), ("R1", False))
PINNED_JACK = (136, 180)  # on the greedy optimum {-TER}


@pytest.mark.shared
@pytest.mark.slow
@needs_ende
def test_wmt21_ende_qarla_report(ende) -> None:
    data, systems = ende
    hib = [True] * len(METRICS)
    q = aggregate(queen(data), "sys")
    hits, trials = queen_all(data.sys_ref, data.ref_ref, hib)
    np.testing.assert_array_equal(q.hits, hits.sum(axis=1))
    np.testing.assert_array_equal(q.trials, trials.sum(axis=1))
    assert set(q.trials) == {N_SEG * 18}
    kings = {}
    for i, metric in enumerate(METRICS):
        result = king(data, [metric], level="seg")
        assert (result.hits, result.trials) == king_literal(data.sys_ref[i:i + 1], data.ref_ref[i:i + 1],
                                                            [True], "seg")
        kings[metric] = (result.hits, result.trials)
    greedy = greedy_king(data, level="seg")
    names, value = greedy_literal(data.sys_ref, data.ref_ref, hib, METRICS)
    assert list(greedy.metrics) == names and greedy.king.value == pytest.approx(value)
    full = with_sys_sys(data, systems, greedy.metrics)
    j = jack(full)
    expected_jack = jack_literal(full.sys_ref, full.ref_ref, full.sys_sys, [True] * len(greedy.metrics))
    assert (int(j.hits.sum()), int(j.trials.sum())) == expected_jack
    assert dict(zip(data.systems, map(int, q.hits), strict=True)) == PINNED_QUEEN_HITS
    assert kings == PINNED_KING_SEG
    assert tuple((s.metric, s.accepted) for s in greedy.trace) == PINNED_GREEDY
    assert expected_jack == PINNED_JACK
