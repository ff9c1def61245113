"""Paired approximate randomisation of TER with several references: exact ties (docs/statistics.md).

With shared references both pseudo-systems of a trial have the same total reference length L, so
|TER(A*) - TER(B*)| > |TER(A) - TER(B)| is, exactly, |sum of the swapped edit differences| >
|sum of the edit differences|: integers. mteval's engine (``mteval.meta.stats.paired``, ties within 1e-9
are ties) gives that exact count; sacreBLEU 2.6.0 sums the trials' reference lengths as two
partial float sums (``pos_sel @ bl_stats + neg_sel @ sys_stats``), L rounds differently from the
observed statistic's sum (with 3 or 6 references a segment's mean length is k/3, not exact), and
each exact tie falls on either side of ``>``: 0.5427 instead of 0.2299 on the case below.
"""

from __future__ import annotations

import os
from functools import cache, partial
from pathlib import Path

import numpy as np
import pytest

from mteval.meta.stats.paired import MetricInput, paired_randomization
from mteval.metrics.base import Side
from mteval.metrics.ter import TER

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "wmt21-ende-sample"
CHANGED = (22, 31, 80, 88)  # segments (0-based) of system B taken from HuaweiTSC; the rest is UEdin's
TRIALS, SEED = 2000, 12345
OURS = 460 / 2001  # (c + 1) / (n + 1), c = 459 trials strictly more extreme
SACREBLEU = 0.5427286356821589  # sacreBLEU 2.6.0 PairedTest(test_type="ar", n_samples=2000), seed 12345


def lines(path: str) -> list[str]:
    """The first 100 lines of a sample file."""
    return (SAMPLE / path).read_text(encoding="utf-8").split("\n")[:100]


@cache
def systems() -> tuple[list[str], list[str]]:
    """A = UEdin; B = UEdin with four segments of HuaweiTSC (edit differences of both signs)."""
    a, other = lines("sys/UEdin.de"), lines("sys/HuaweiTSC.de")
    return a, [other[i] if i in CHANGED else a[i] for i in range(100)]


def references(count: int) -> list[list[str]]:
    """References A, C, D (6: each twice)."""
    return [lines(f"refs/{r}.de") for r in ("A", "C", "D") * (count // 3)]


def ter_stats(count: int) -> np.ndarray:
    """mteval's TER statistics (edits, mean reference length) of A and B, ``(2, 100, 2)``."""
    ter = TER()
    prepared = ter.prepare([Side(f"ref{k}", r) for k, r in enumerate(references(count))])
    return np.stack([ter.segment_stats(Side(name, hyp), prepared) for name, hyp in zip("ab", systems(), strict=True)])


def exact_p_value(stats: np.ndarray) -> float:
    """Riezler & Maxwell's p with sacreBLEU's ``>`` in integer arithmetic (same masks as sacreBLEU)."""
    edits = stats[:, :, 0].astype(np.int64)
    assert np.array_equal(edits, stats[:, :, 0]) and np.array_equal(stats[0, :, 1], stats[1, :, 1])
    d = edits[0] - edits[1]
    keep = np.random.default_rng(SEED).integers(2, size=(TRIALS, d.size), dtype=bool)
    c = np.count_nonzero(np.abs(np.where(keep, d, -d).sum(axis=1)) > abs(d.sum()))
    return (c + 1) / (TRIALS + 1)


@pytest.mark.parametrize("count", [3, 6])
def test_ter_randomisation_counts_exact_ties_exactly(count: int) -> None:
    stats = ter_stats(count)
    assert not np.array_equal(stats[0, :, 1], np.round(stats[0, :, 1]))  # lengths k/3: not exact floats
    ter = TER()
    ours = paired_randomization({"TER": MetricInput(stats, partial(ter.scores_from_stats, variant="TER"), False)},
                                ["a", "b"], n=TRIALS, seed=SEED)["TER"].p_value[0, 1]
    assert ours == exact_p_value(stats) == OURS


@pytest.mark.slow
@pytest.mark.parametrize("count", [3, 6])
def test_sacrebleu_misrounds_the_ties(count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """sacreBLEU's own test on the same case (its statistics equal ours)."""
    sacrebleu = pytest.importorskip("sacrebleu")
    from sacrebleu.significance import PairedTest

    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    metric = sacrebleu.metrics.TER(references=references(count))
    a, b = systems()
    assert np.array_equal(np.array([metric._extract_corpus_statistics(x, None) for x in (a, b)]), ter_stats(count))
    _, scores = PairedTest([("a", a), ("b", b)], {"TER": metric}, None, test_type="ar", n_samples=TRIALS)()
    result = scores["TER"][1]
    assert not isinstance(result, str) and result.p_value == SACREBLEU and "SACREBLEU_SEED" not in os.environ
