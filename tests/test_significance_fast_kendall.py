"""The vectorised grouped Kendall tau-b paths of the significance tests equal the per-group loops."""

from __future__ import annotations

import numpy as np
import pytest

from mteval.meta.stats import significance
from mteval.meta.stats.correlation import correlate


def _data(seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(20), 6)
    human = rng.integers(0, 4, len(items)).astype(float)           # many human ties
    a = np.round(human + rng.normal(0, 1.5, len(items)), 1)
    b = np.round(rng.normal(0, 1, len(items)), 0)                    # metric ties
    human[[3, 50, 51]] = np.nan
    a[[7, 90]] = np.nan
    human[12:18] = 1.0                                               # a group with one human class
    return human, a, b, items


def _both(monkeypatch: pytest.MonkeyPatch, call):  # type: ignore[no-untyped-def]
    fast = call()
    monkeypatch.setattr(significance, "_MAX_PAIRS", -1)              # forces the loops
    return fast, call()


def test_grouped_tau_matches_scipy_per_group() -> None:
    human, a, _, items = _data()
    taus = significance._group_taus(human, a, items)
    assert taus is not None
    expected = [correlate("kendall", human[items == g], a[items == g]) for g in np.unique(items)]
    np.testing.assert_allclose(taus, expected, equal_nan=True)


def test_bootstrap_ci_fast_equals_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    human, a, _, items = _data()
    fast, loop = _both(monkeypatch, lambda: significance.bootstrap_ci("kendall", human, a, items, items, n=60))
    np.testing.assert_allclose([fast.value, fast.low, fast.high], [loop.value, loop.low, loop.high])


def test_paired_bootstrap_fast_equals_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    human, a, b, items = _data()
    fast, loop = _both(monkeypatch, lambda: significance.paired_bootstrap("kendall", human, a, b, items, items, n=60))
    np.testing.assert_allclose([fast.delta, fast.low, fast.high, fast.p_value],
                               [loop.delta, loop.low, loop.high, loop.p_value])


def test_perm_both_fast_equals_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    human, a, b, items = _data()
    fast, loop = _both(monkeypatch, lambda: significance.perm_both("kendall", human, a, b, items, n=60))
    np.testing.assert_allclose([fast.delta, fast.p_value], [loop.delta, loop.p_value])
