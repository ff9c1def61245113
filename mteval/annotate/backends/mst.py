"""Maximum spanning arborescence (Chu & Liu 1965; Edmonds 1967) with exactly one root word.

For parsers whose head scores are decoded by a per-word argmax (slovnet's biaffine parser: its
own comment says about 10 % of sentences then get several roots, loops or cycles), this gives
the best-scoring tree instead. ``scores[h, d]`` is the score of head ``h`` (0 = the virtual root)
for dependent ``d``; the result is the head of every word 1..n. One root word (UD): the
unconstrained tree is found first; if several words hang from the root, each of them in turn is
made the only one allowed to and the best-scoring tree wins (the usual approximation, exact when
the unconstrained tree has one root).
"""

from __future__ import annotations

import numpy as np


def _cycle(heads: np.ndarray) -> list[int] | None:
    """A cycle of the head graph (node ids), or None."""
    n = len(heads)
    state = np.zeros(n, np.int8)  # 0 unseen, 1 on the current path, 2 done
    for start in range(1, n):
        path, node = [], start
        while node != 0 and state[node] == 0:
            state[node] = 1
            path.append(node)
            node = int(heads[node])
        if node != 0 and state[node] == 1:
            return path[path.index(node):]
        for p in path:
            state[p] = 2
    return None


def _contract(scores: np.ndarray, heads: np.ndarray, cycle: list[int]) -> np.ndarray:
    """Chu-Liu/Edmonds on ``scores`` (``[h, d]``) whose greedy ``heads`` contain ``cycle``."""
    n = scores.shape[0]
    inside = np.zeros(n, bool)
    inside[cycle] = True
    rest = np.flatnonzero(~inside)
    m = len(rest)  # the contracted node is m
    small = np.full((m + 1, m + 1), -np.inf)
    small[:m, :m] = scores[np.ix_(rest, rest)]
    cyc = np.array(cycle)
    out_of = scores[np.ix_(cyc, rest)]  # cycle node as head of an outside word
    small[m, :m] = out_of.max(axis=0)
    best_head_in_cycle = cyc[out_of.argmax(axis=0)]
    gain = scores[np.ix_(rest, cyc)] - scores[heads[cyc], cyc][None, :]  # enter the cycle at d
    small[:m, m] = gain.max(axis=1)
    entry = cyc[gain.argmax(axis=1)]
    sub = _decode(small)
    result = heads.copy()
    for i, node in enumerate(rest):
        if i and sub[i] == m:
            result[node] = best_head_in_cycle[i]
        elif i:
            result[node] = rest[sub[i]]
    head_of_cycle = rest[sub[m]]
    result[entry[sub[m]]] = head_of_cycle
    return result


def _decode(scores: np.ndarray) -> np.ndarray:
    """Unconstrained maximum arborescence rooted at node 0 (``heads[0] = 0``)."""
    work = np.array(scores, dtype=np.float64)
    np.fill_diagonal(work, -np.inf)
    work[:, 0] = -np.inf
    heads = work.argmax(axis=0)
    heads[0] = 0
    cycle = _cycle(heads)
    return heads if cycle is None else _contract(work, heads, cycle)


def tree_score(scores: np.ndarray, heads: np.ndarray) -> float:
    """The sum of the tree's arc scores."""
    return float(scores[heads[1:], np.arange(1, len(heads))].sum())


def mst_heads(scores: np.ndarray) -> list[int]:
    """Heads of words 1..n of the best tree with one root word (see the module docstring)."""
    n = scores.shape[0] - 1
    if n == 0:
        return []
    heads = _decode(scores)
    roots = [d for d in range(1, n + 1) if heads[d] == 0]
    if len(roots) > 1:
        best: tuple[float, np.ndarray] | None = None
        for r in roots:
            only = np.array(scores, dtype=np.float64)
            only[0, :] = -np.inf
            only[0, r] = scores[0, r]
            candidate = _decode(only)
            score = tree_score(scores, candidate)
            if best is None or score > best[0]:
                best = (score, candidate)
        assert best is not None
        heads = best[1]
    return [int(h) for h in heads[1:]]
