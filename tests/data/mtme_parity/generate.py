"""Regenerate the expected values of tests/test_mtme_parity*.py from mt-metrics-eval's own code.

Usage: ``python generate.py /path/to/mt-metrics-eval [COMMIT]`` (a checkout of
google-research/mt-metrics-eval; only its ``stats.py``, ``pce.py`` and ``tau_optimization.py`` are
imported, with numpy and scipy). Nothing of it is copied here: this script builds random inputs,
calls their functions and writes inputs and outputs as JSON with the commit and the calls made.

Run it twice, on each side of Python 3.12 (which made the built-in float ``sum()`` compensated, and
so changed the last bits of mt-metrics-eval's tie search): on Python 3.11 for ``expected.json``, and
on Python 3.12 or later for ``expected-python3.13.json.xz`` (this script's ``expected.json`` then
``xz -9``); ``tests/test_mtme_parity.py`` reads the one that matches the Python running it.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import scipy
import scipy.stats

HERE = Path(__file__).parent


def mqm(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """MQM-like segment scores: -(5 major + 1 minor + 0.1 punctuation) with Poisson counts."""
    major, minor, punct = rng.poisson(0.3, shape), rng.poisson(0.8, shape), rng.poisson(0.5, shape)
    return -(5.0 * major + 1.0 * minor + 0.1 * punct)


def as_list(x: np.ndarray) -> list:
    """A matrix as nested lists, NaN as None."""
    return [[None if v != v else float(v) for v in row] for row in np.atleast_2d(x)]


def gold(x: np.ndarray) -> list:
    """A (systems, items) matrix as their packed gold vector (None = missing)."""
    return [None if v != v else float(v) for v in np.asarray(x).ravel()]


def spa_cases(stats: Any) -> list[dict]:
    """PairwiseConfidenceError on MQM-like scores (ties of the observed difference are common)."""
    rng, out = np.random.default_rng(2024), []
    for c in range(460):
        n_sys = int(rng.integers(2, 7))
        n_seg = int(rng.integers(1, 6)) if c < 400 else int(rng.integers(20, 101))
        h = mqm(rng, (n_sys, n_seg))
        kind = c % 3
        m = mqm(rng, (n_sys, n_seg)) if kind == 0 else np.round(
            rng.random((n_sys, n_seg)) if kind == 1 else h + rng.normal(0, 1, (n_sys, n_seg)), 1)
        value = stats.PairwiseConfidenceError(gold(h), gold(m), num_sys=n_sys)[0]
        out.append({"human": as_list(h), "metric": as_list(m), "spa": float(value)})
    return out


def williams_cases(stats: Any) -> list[dict]:
    """WilliamsSigDiff(pearsonr) on near-collinear vectors, n = 4..11; every 5th pair identical."""
    rng, out = np.random.default_rng(0), []
    for c in range(200):
        n = int(rng.integers(4, 12))
        g = rng.normal(size=n)
        a = g + rng.normal(0, 10 ** rng.uniform(-6, 0), n)
        b = a.copy() if c % 5 == 0 else g + rng.normal(0, 10 ** rng.uniform(-6, 0), n)
        corr = [stats.Correlation(n, list(g), list(x)) for x in (a, b)]
        p, r1, r2 = stats.WilliamsSigDiff(corr[0], corr[1], scipy.stats.pearsonr)
        out.append({"gold": g.tolist(), "a": a.tolist(), "b": b.tolist(),
                    "p": None if p != p else float(p), "r1": float(r1), "r2": float(r2)})
    return out


def tau_cases(stats: Any) -> list[dict]:
    """KendallWithTiesOpt (sample_rate 1.0): full traces, thresholds, best values."""
    rng, out = np.random.default_rng(7), []
    for c in range(90):
        ns, ni = int(rng.integers(2, 8)), int(rng.integers(3, 25))
        h = mqm(rng, (ns, ni))
        m = np.round(rng.normal(size=(ns, ni)), int(rng.integers(0, 3))) if c % 2 else mqm(rng, (ns, ni))
        if c % 3 == 0:
            h[rng.random((ns, ni)) < 0.2] = np.nan
        avg, variant = ("none", "sys", "item")[c % 3], ("acc23", "23")[(c // 3) % 2]
        corr, eps, res = stats.KendallWithTiesOpt(gold(h), gold(m), variant, ns, avg, 1.0)
        out.append({"human": as_list(h), "metric": as_list(m), "average_by": avg, "variant": variant,
                    "value": float(corr), "epsilon": float(eps), "thresholds": [float(t) for t in res.thresholds],
                    "taus": [float(t) for t in res.taus]})
    return out


def permutation_cases(stats: Any) -> list[dict]:
    """PermutationSigDiff and PairwisePermutationSigDiff after np.random.seed(seed): p, delta, draws."""
    rng, out = np.random.default_rng(11), []
    functions: dict[str, tuple[Any, dict[str, Any]]] = {
                 "pearson": (scipy.stats.pearsonr, {}), "spearman": (scipy.stats.spearmanr, {}),
                 "kendall": (scipy.stats.kendalltau, {}), "acc23": (stats.KendallVariants, {"variant": "acc23"}),
                 "23": (stats.KendallVariants, {"variant": "23", "epsilon": 0.5}),
                 "b": (stats.KendallVariants, {"variant": "b"}),
                 "acc_eq": (stats.KendallWithTiesOpt, {"variant": "acc23", "sample_rate": 1.0}),
                 "tau_eq": (stats.KendallWithTiesOpt, {"variant": "23", "sample_rate": 1.0})}
    averages = {"pearson": "item", "spearman": "sys", "kendall": "item", "acc23": "item", "23": "item", "b": "item",
                "acc_eq": "item", "tau_eq": "none"}
    for seed, (name, (fcn, args)) in enumerate(functions.items()):
        for missing in (False, True):
            h, a, b = _triple(rng, 4, 12, missing)
            np.random.seed(seed)
            p, d, k, c = stats.PermutationSigDiff(_corr(stats, h, b), _corr(stats, h, a), fcn, averages[name], 200,
                                                  stats.PermutationSigDiffParams(50, 0.02, 0.5), **args)
            out.append(_permutation(name, "scores", h, a, b, averages[name], seed, p, d, c,
                                    epsilon=args.get("epsilon", 0.0), k=200, block=50))
    h, a, b = _triple(rng, 5, 20, False)
    pce = functools.partial(stats.PairwiseConfidenceError, num_sys=5, filter_nones=False)
    np.random.seed(99)
    p, d, k, c = stats.PermutationSigDiff(_corr(stats, h, b), _corr(stats, h, a), pce, "none", 100)
    out.append(_permutation("spa", "scores", h, a, b, "none", 99, p, d, c, k=100, block=1000))
    for case in range(12):
        variant = ("acc23", "23", "b")[case % 3]
        avg = ("item", "sys", "none", "item")[case % 3 if case < 9 else 3]
        h, a, b = _triple(rng, int(rng.integers(3, 6)), int(rng.integers(5, 15)), bool(case % 2), coarse=True)
        eps = {"epsilon1": 0.5, "epsilon2": 1.0} if variant == "b" else {}
        np.random.seed(100 + case)
        p, d, k, c = stats.PairwisePermutationSigDiff(_corr(stats, h, b), _corr(stats, h, a), variant, avg, 100,
                                                      stats.PermutationSigDiffParams(100), **eps)
        out.append(_permutation(variant, "pairs", h, a, b, avg, 100 + case, p, d, c, k=100, block=100,
                                epsilon_a=eps.get("epsilon2"), epsilon_b=eps.get("epsilon1")))
    return out


def _triple(rng: np.random.Generator, ns: int, ni: int, missing: bool, coarse: bool = False) -> tuple:
    """Human (MQM-like, NaN = missing) and two metrics of (ns, ni)."""
    h = mqm(rng, (ns, ni))
    a = np.round(h + rng.normal(0, 2, (ns, ni)), 1)
    b = np.round(h + rng.normal(0, 3, (ns, ni)), 0 if coarse else 1)
    if missing:
        h[0, ::3] = np.nan
    return h, a, b


def _corr(stats: Any, h: np.ndarray, m: np.ndarray) -> Any:
    """Their Correlation object of (systems, items) matrices."""
    return stats.Correlation(h.shape[0], gold(h), gold(m))


def _permutation(name: str, test: str, h: np.ndarray, a: np.ndarray, b: np.ndarray, avg: str, seed: int, p: float,
                 d: float, draws: list, **extra: Any) -> dict:
    """One permutation case (their corr1 = our B, corr2 = our A: p is for A better than B)."""
    return {"statistic": name, "test": test, "human": as_list(h), "a": as_list(a), "b": as_list(b),
            "average_by": avg, "seed": seed, "p": float(p), "delta": float(d),
            "draws": [[float(x), float(y)] for x, y in draws], **extra}


def correlation_cases(stats: Any) -> list[dict]:
    """AverageCorrelation with p-values (macro, micro, NaNs as zeros) and pairwise-difference Pearson."""
    rng, out = np.random.default_rng(13), []
    fcns = {"pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr, "kendall": scipy.stats.kendalltau}
    for case in range(40):
        ns, ni = int(rng.integers(2, 6)), int(rng.integers(3, 12))
        h = mqm(rng, (ns, ni))
        m = np.round(h + rng.normal(0, 2, (ns, ni)), 0)
        if case % 2:
            h[0, ::3] = np.nan
        avg, name = ("none", "sys", "item")[case % 3], tuple(fcns)[case % 3]
        rz, macro = bool(case % 4 < 2), bool(case % 5 < 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r, p, n = stats.AverageCorrelation(fcns[name], ns, avg, True, rz, macro)(gold(h), gold(m))
            pdp = float(stats.Correlation(ns, gold(h), gold(m)).Pearson(avg, pdp=True)[0])
        out.append({"human": as_list(h), "metric": as_list(m), "statistic": name, "average_by": avg,
                    "replace_nans_with_zeros": rz, "macro": macro, "value": float(r),
                    "p": None if p != p else float(p), "weight": float(n), "pdp": None if pdp != pdp else pdp})
    return out


def main() -> None:
    """Write expected.json next to this script."""
    root = Path(sys.argv[1]).resolve()
    sys.path.insert(0, str(root))
    from mt_metrics_eval import stats
    commit = sys.argv[2] if len(sys.argv) > 2 else subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    warnings.simplefilter("ignore")
    data = {"provenance": {
        "repository": "google-research/mt-metrics-eval", "commit": commit or "unknown",
        "numpy": np.__version__, "scipy": scipy.__version__, "python": sys.version.split()[0],
        "generator": "tests/data/mtme_parity/generate.py",
        "calls": {"spa": "stats.PairwiseConfidenceError(gold, metric, num_sys) (1000 permutations, seed 4)",
                  "williams": "stats.WilliamsSigDiff(Correlation(n, gold, a), Correlation(n, gold, b), "
                              "scipy.stats.pearsonr)",
                  "tau": "stats.KendallWithTiesOpt(gold, metric, variant, num_sys, average_by, sample_rate=1.0)",
                  "permutation": "np.random.seed(seed); stats.PermutationSigDiff(corr_b, corr_a, fcn, average_by, k, "
                                 "PermutationSigDiffParams(block, 0.02, 0.5), **args) / "
                                 "stats.PairwisePermutationSigDiff(corr_b, corr_a, variant, average_by, k, "
                                 "PermutationSigDiffParams(k), epsilon1, epsilon2)",
                  "correlation": "stats.AverageCorrelation(fcn, num_sys, average_by, True, replace_nans_with_zeros, "
                                 "macro)(gold, metric); Correlation(...).Pearson(average_by, pdp=True)"}},
        "spa": spa_cases(stats), "williams": williams_cases(stats), "tau": tau_cases(stats),
        "permutation": permutation_cases(stats), "correlation": correlation_cases(stats)}
    (HERE / "expected.json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
