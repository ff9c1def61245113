"""Literal loop implementations of QUEEN, KING and JACK (IQMT manual §3.1): the specification
that ``mteval.meta`` is tested against (no tests here; imported by the other test_meta_* files and
by bench/bench_meta.py). Slow on purpose: plain Python over the definitions."""

from __future__ import annotations

import math

import numpy as np


def sim(value: float, higher_is_better: bool) -> float:
    """Direction-aware similarity of one score."""
    return value if higher_is_better else -value


def queen_segment(peer, ref_ref, hib, s, refs):
    """(successes, triples) of one candidate on segment s: ``peer[m][r][s]`` = x_m(c, r)."""
    hits = trials = 0
    for r in refs:
        for r1 in refs:
            for r2 in refs:
                if r1 == r2:
                    continue
                values = [(sim(peer[m][r][s], hib[m]), sim(ref_ref[m][r1][r2][s], hib[m]))
                          for m in range(len(hib))]
                if any(math.isnan(a) or math.isnan(b) for a, b in values):
                    continue
                trials += 1
                hits += all(a >= b for a, b in values)
    return hits, trials


def queen_all(sys_ref, ref_ref, hib):
    """hits[a][s], trials[a][s] for every system."""
    n_sys, n_refs, n_seg = sys_ref.shape[1], sys_ref.shape[2], sys_ref.shape[3]
    hits = np.zeros((n_sys, n_seg), int)
    trials = np.zeros((n_sys, n_seg), int)
    for a in range(n_sys):
        peer = sys_ref[:, a]
        for s in range(n_seg):
            hits[a, s], trials[a, s] = queen_segment(peer, ref_ref, hib, s, range(n_refs))
    return hits, trials


def king_literal(sys_ref, ref_ref, hib, level="seg", docs=None):
    """KING with leave-one-out over references; returns (hits, trials)."""
    n_sys, n_refs, n_seg = sys_ref.shape[1], sys_ref.shape[2], sys_ref.shape[3]
    groups = _groups(level, n_seg, docs)
    hits = trials = 0
    for held in range(n_refs):
        rest = [r for r in range(n_refs) if r != held]
        ref_peer = ref_ref[:, held]
        for rows in groups:
            ref_h = ref_t = 0
            for s in rows:
                h, t = queen_segment(ref_peer, ref_ref, hib, s, rest)
                ref_h, ref_t = ref_h + h, ref_t + t
            if ref_t == 0:
                continue
            trials += 1
            beaten = False
            for a in range(n_sys):
                sh = st = 0
                for s in rows:
                    h, t = queen_segment(sys_ref[:, a], ref_ref, hib, s, rest)
                    sh, st = sh + h, st + t
                if st and sh / st > ref_h / ref_t + 1e-12:
                    beaten = True
            hits += not beaten
    return hits, trials


def _groups(level, n_seg, docs):
    if level == "seg":
        return [[s] for s in range(n_seg)]
    if level == "sys":
        return [list(range(n_seg))]
    return [list(docs.rows(d)) for d in docs.documents]


def jack_literal(sys_ref, ref_ref, sys_sys, hib):
    """JACK hits and trials over (reference, segment) pairs."""
    n_metrics, n_sys, n_refs, n_seg = sys_ref.shape
    q_hits, _ = queen_all(sys_ref, ref_ref, hib)
    hits = trials = 0
    for s in range(n_seg):
        for r in range(n_refs):
            trials += 1
            found = False
            for a in range(n_sys):
                for b in range(n_sys):
                    if a == b or q_hits[a, s] == 0 or q_hits[b, s] == 0:
                        continue
                    if all(sim(sys_sys[m, a, b, s], hib[m]) <= sim(sys_ref[m, a, r, s], hib[m])
                           for m in range(n_metrics)):
                        found = True
            hits += found
    return hits, trials


def greedy_literal(sys_ref, ref_ref, hib, names, level="seg"):
    """Greedy KING (manual §3.3) by recomputing every set from scratch; returns (set, value)."""
    def value(idx):
        h, t = king_literal(sys_ref[idx], ref_ref[idx], [hib[i] for i in idx], level)
        return h / t
    singles = [(value([i]), i) for i in range(len(names))]
    order = [i for _, i in sorted(singles, key=lambda p: (-p[0], p[1]))]
    chosen, best = [order[0]], value([order[0]])
    for i in order[1:]:
        v = value(chosen + [i])
        if v > best:
            chosen, best = chosen + [i], v
    return [names[i] for i in chosen], best
