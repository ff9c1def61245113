"""Benchmark of the WMT24 meta-evaluation statistics (``make bench``), mteval.meta.stats.wmt_stats.

WMT24's two statistics per metric (mt-metrics-eval ``tasks.WMT24``): soft pairwise accuracy at
system level (1,000 permutations per system pair) and tie-calibrated acc_eq at segment level
(grouped by item, epsilon searched over every pair), each with a 95 % percentile CI from 1,000
bootstrap resamples (segments; the tie threshold is re-optimised and the permutation p-values
recomputed in every resample). Synthetic data: 10 systems x 1,000 segments x 30 metrics, MQM-like
human scores (half the segments error-free, so many human ties) and metrics of varying quality,
some rounded (metric ties). Target: everything under 30 s.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mteval.meta.stats import wmt_stats  # noqa: E402

N_SYS, N_SEG, N_MET, N_BOOT, N_PERM = 10, 1000, 30, 1000, 1000
TARGET_S = 30.0


def synthetic(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(human (systems, segments), metrics (M, systems, segments))."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(N_SYS, 1)) * 0.3 + rng.normal(size=(N_SYS, N_SEG))
    # MQM-like: 0 (no error) for the better half, else minus a sum of minor (1) / major (5) errors
    human = -np.round(np.maximum(0.0, -quality) * rng.choice([1.0, 5.0], size=(N_SYS, N_SEG), p=[0.7, 0.3]) * 4)
    noise = np.linspace(0.3, 3.0, N_MET)[:, None, None]
    metrics = quality[None] + noise * rng.normal(size=(N_MET, N_SYS, N_SEG))
    metrics[::3] = np.round(metrics[::3], 1)  # every third metric has coarse scores
    return human, metrics


def main() -> int:
    human, metrics = synthetic()
    times: dict[str, float] = {}

    start = time.perf_counter()
    calibrated = [wmt_stats.tie_calibration(human, m, "acc23", "item") for m in metrics]
    times["acc_eq (item, tie calibration)"] = time.perf_counter() - start

    start = time.perf_counter()
    counts = wmt_stats.item_resamples(N_SEG, N_BOOT, seed=1234)
    acc_ci = [wmt_stats.percentile(wmt_stats.acc_eq_draws(human, m, counts)) for m in metrics]
    times[f"acc_eq CIs, {N_BOOT} resamples"] = time.perf_counter() - start

    start = time.perf_counter()
    spa = [wmt_stats.soft_pairwise_accuracy(human, m, N_PERM) for m in metrics]
    times[f"SPA ({N_PERM} permutations)"] = time.perf_counter() - start

    start = time.perf_counter()
    draws = wmt_stats.spa_draws(human, metrics, N_BOOT, seed=1234, n_permutations=N_PERM)
    spa_ci = [wmt_stats.percentile(draws[:, k]) for k in range(N_MET)]
    times[f"SPA CIs, {N_BOOT} resamples"] = time.perf_counter() - start

    # sanity: the vectorised resamples equal the search on the resampled matrix
    for b in range(2):
        index = np.repeat(np.arange(N_SEG), counts[b])
        direct = wmt_stats.tie_calibration(human[:, index], metrics[0][:, index]).value
        assert abs(wmt_stats.acc_eq_draws(human, metrics[0], counts[b:b + 1])[0] - direct) < 1e-12

    total = sum(times.values())
    print(f"WMT24 statistics: {N_SYS} systems x {N_SEG} segments x {N_MET} metrics "
          f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    for name, seconds in times.items():
        print(f"  {name:34} {seconds:7.2f} s")
    print(f"  {'total':34} {total:7.2f} s   (target < {TARGET_S:.0f} s)")
    print(f"\n{'metric':8} {'acc_eq':>7} {'epsilon':>8} {'95% CI':>16} {'SPA':>7} {'95% CI':>16}")
    for k in (0, 1, N_MET // 2, N_MET - 1):
        print(f"m{k:<7} {calibrated[k].value:7.4f} {calibrated[k].epsilon:8.3f} "
              f"{f'[{acc_ci[k][0]:.4f}, {acc_ci[k][1]:.4f}]':>16} {spa[k]:7.4f} "
              f"{f'[{spa_ci[k][0]:.4f}, {spa_ci[k][1]:.4f}]':>16}")
    print("target met" if total < TARGET_S else "TARGET NOT MET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
