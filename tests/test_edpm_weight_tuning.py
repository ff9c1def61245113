"""EDPM §6 weight tuning: weighted mean-removed correlation, closed-form maximiser, two-fold CV."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.annotate.model import parse_conllu
from mteval.errors import InputError
from mteval.meta.learn.weight_tuning import (
    TunedCombination,
    compare_feature_sets,
    cross_validate,
    evaluate,
    remove_group_means,
    split_documents,
    tune_weights,
    weighted_pearson,
)
from mteval.metrics.base import Side
from mteval.metrics.edpm import DPM


def _data(n: int = 400, seed: int = 0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n // 10), 10)
    doc_effect = rng.normal(scale=3.0, size=n // 10)[groups]
    x = rng.normal(size=(n, 3))
    y = x @ np.array([2.0, -1.0, 0.0]) + doc_effect + rng.normal(scale=0.5, size=n)
    feats = {"a": x[:, 0] + doc_effect, "b": x[:, 1], "c": x[:, 2]}
    return feats, y, groups, rng.uniform(1, 3, size=n)


def test_weighted_pearson_and_mean_removal() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=50), rng.normal(size=50)
    assert weighted_pearson(x, y, np.ones(50)) == pytest.approx(np.corrcoef(x, y)[0, 1])
    w = rng.uniform(1, 2, size=50)
    groups = np.arange(50) % 5
    removed = remove_group_means(x, groups, w)
    for g in range(5):
        assert np.average(removed[groups == g], weights=w[groups == g]) == pytest.approx(0, abs=1e-12)
    # integer weights = repeated rows
    reps = np.array([1, 2, 3] * 10)
    xs, ys = rng.normal(size=30), rng.normal(size=30)
    assert weighted_pearson(xs, ys, reps) == pytest.approx(
        np.corrcoef(np.repeat(xs, reps), np.repeat(ys, reps))[0, 1])


def test_tuning_recovers_direction_and_is_maximal() -> None:
    feats, y, groups, w = _data()
    combo = tune_weights(feats, y, groups, w)
    direction = combo.weights / np.linalg.norm(combo.weights)
    assert direction @ np.array([2, -1, 0]) / np.sqrt(5) > 0.99
    best = evaluate(combo, feats, y, groups, w)
    rng = np.random.default_rng(2)
    for _ in range(50):  # no nearby combination does better on the training data
        other = TunedCombination(combo.names, combo.weights + rng.normal(scale=0.1, size=3))
        assert evaluate(other, feats, y, groups, w) <= best + 1e-9
    assert best > max(evaluate(TunedCombination((n,), np.ones(1)), feats, y, groups, w) for n in feats)


def test_cross_validation_and_table() -> None:
    feats, y, groups, w = _data()
    fold = split_documents([f"doc{g}" for g in groups], seed=0)
    assert set(fold) == {0, 1} and abs(fold.mean() - 0.5) < 0.05
    cv = cross_validate(feats, y, groups, w, fold)
    assert all(0.9 < r <= 1 for r in cv.test) and cv.mean_test == pytest.approx(np.mean(cv.test))
    table = compare_feature_sets({"A": {"a": feats["a"]}, "B": {"b": feats["b"]},
                                  "C": {"c": feats["c"]}}, y, groups, w, fold)
    assert table[0][0] in ("AB", "ABC")  # c is noise: with or without it the best sets use a and b
    assert len(table) == 7 and dict(table)["C"] < 0.2
    with pytest.raises(InputError):
        cross_validate(feats, y, groups, w, np.zeros(len(y)))
    with pytest.raises(InputError):
        tune_weights({}, y, groups, w)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_correlation_bounds(seed: int) -> None:
    feats, y, groups, w = _data(60, seed)
    combo = tune_weights(feats, y, groups, w)
    r = evaluate(combo, feats, y, groups, w)
    assert 0 <= r <= 1 + 1e-12


def test_dpm_features() -> None:
    ref = parse_conllu("1\tthe\t_\t_\t_\t_\t2\tdet\t_\t_\n2\tcat\t_\t_\t_\t_\t3\tnsubj\t_\t_\n"
                       "3\tate\t_\t_\t_\t_\t0\troot\t_\t_\n")[0]
    hyp = parse_conllu("1\tcat\t_\t_\t_\t_\t2\tnsubj\t_\t_\n2\tate\t_\t_\t_\t_\t0\troot\t_\t_\n")[0]
    fam = DPM()
    feats = fam.features(Side("h", [hyp.text], [hyp]), fam.prepare([Side("r", [ref.text], [ref])]))
    assert feats["P_dl"][0] == 1.0 and feats["R_dl"][0] == pytest.approx(2 / 3)
    assert feats["B_short"][0] == pytest.approx(1 / 3) and feats["B_long"][0] == 0.0
    assert len(feats) == 14
