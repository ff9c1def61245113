"""Benchmark of the meta-evaluation core (``make bench``): vectorised numpy vs the literal loops.

1. QUEEN for 20 systems x 3 references x 1000 segments x 30 metrics (synthetic random scores).
2. Greedy KING optimisation over the same 30 metrics (segment level).

The literal loop implementations (``tests/test_meta_literal.py``, the specification the unit tests
check against) are far too slow for the full size, so they are timed on a slice of the segments
and extrapolated linearly (their cost is linear in the number of segments); the table says so.
Targets: QUEEN < 1 s, greedy KING < 10 s, >= 100x the loop.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_meta_literal import greedy_literal, queen_all  # noqa: E402

from mteval.meta.optimize import greedy_king  # noqa: E402
from mteval.meta.qarla import QarlaData, queen  # noqa: E402

N_SYS, N_REF, N_SEG, N_MET = 20, 3, 1000, 30


def synthetic(n_seg: int, seed: int = 0) -> QarlaData:
    """Random similarities: references a bit closer to each other than systems are to them,
    metrics correlated through a shared per-segment quality (so KING is not trivial)."""
    rng = np.random.default_rng(seed)
    quality = rng.random((1, N_SYS, 1, n_seg))
    sys_ref = 0.3 + 0.5 * quality + 0.2 * rng.random((N_MET, N_SYS, N_REF, n_seg))
    ref_ref = 0.45 + 0.4 * rng.random((N_MET, N_REF, N_REF, n_seg))
    sys_ref, ref_ref = np.round(sys_ref, 2), np.round(ref_ref, 2)  # some ties
    return QarlaData(tuple(f"m{i}" for i in range(N_MET)), tuple(f"s{i}" for i in range(N_SYS)),
                     tuple(f"r{i}" for i in range(N_REF)), sys_ref, ref_ref, np.ones(N_MET, dtype=bool))


def timed(fn, repeat: int = 1) -> float:
    """Best wall time of ``repeat`` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    data = synthetic(N_SEG)
    rows = []
    t_queen = timed(lambda: queen(data), repeat=3)
    loop_seg = 20
    small = QarlaData(data.metrics, data.systems, data.references, data.sys_ref[..., :loop_seg],
                      data.ref_ref[..., :loop_seg], data.higher_is_better)
    hits, trials = queen_all(small.sys_ref, small.ref_ref, list(small.higher_is_better))
    assert np.array_equal(hits, queen(small).hits) and np.array_equal(trials, queen(small).trials)
    t_loop = timed(lambda: queen_all(small.sys_ref, small.ref_ref, [True] * N_MET)) * N_SEG / loop_seg
    rows.append(("QUEEN 20x3x1000x30", t_queen, t_loop, f"loop on {loop_seg} segs x{N_SEG // loop_seg}", 1.0))

    t_greedy = timed(lambda: greedy_king(data, level="seg"))
    loop_seg = 10
    small = QarlaData(data.metrics, data.systems, data.references, data.sys_ref[..., :loop_seg],
                      data.ref_ref[..., :loop_seg], data.higher_is_better)
    start = time.perf_counter()
    names, value = greedy_literal(small.sys_ref, small.ref_ref, [True] * N_MET, small.metrics)
    t_loop = (time.perf_counter() - start) * N_SEG / loop_seg
    check = greedy_king(small, level="seg")
    assert list(check.metrics) == names and abs(check.king.value - value) < 1e-12
    rows.append(("greedy KING, 30 metrics", t_greedy, t_loop, f"loop on {loop_seg} segs x{N_SEG // loop_seg}",
                 10.0))

    print(f"{'task':26} {'numpy s':>9} {'loop s (est.)':>14} {'ratio':>8} {'target s':>9}  loop timing")
    ok = True
    for name, fast, slow, how, target in rows:
        ratio = slow / fast
        ok &= fast < target and ratio >= 100
        print(f"{name:26} {fast:9.3f} {slow:14.1f} {ratio:7.0f}x {target:9.1f}  {how}")
    result = greedy_king(data, level="seg")
    print(f"greedy optimum: {len(result.metrics)} metrics, KING {result.king.value:.4f} "
          f"({result.king.hits}/{result.king.trials})")
    print("targets met" if ok else "TARGETS NOT MET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
