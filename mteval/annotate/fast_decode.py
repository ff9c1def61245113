"""Faster drop-ins for two steps of Stanza's Chu-Liu/Edmonds decoder, with the same outputs.

Stanza decodes each sentence's tree with Chu-Liu/Edmonds (Chu & Liu 1965, Edmonds 1967; Dozat &
Manning 2017, sec. 2.3; ``stanza/models/common/chuliu_edmonds.py``). Profiled on a GPU (issue 32,
1,500 WMT21 ru-en segments), decoding was the largest CPU-side stage (40 % under cProfile, which
inflates Python; un-profiled on a 2-core CPU: 2.7 ms of the GPU's 17 ms a sentence, 0.84 ms with
these steps): its cycle finder (Tarjan's strongly connected components) runs over numpy scalars
and calls ``np.where`` once per word, and each contraction pads its score matrix with ``np.pad``.

:func:`tarjan` is the same iterative Tarjan walk over plain lists: the same visiting order
(nodes in index order, each node's dependents in index order), hence the same cycles in the same
order, which decides which cycle is contracted first and so the tree among equal-scoring ones.
:func:`process_cycle` builds the same contracted matrix without ``np.pad``. :func:`install` puts
both into Stanza's module (its decoder looks them up there at each call); the trees are the same
bits (``tests/test_fast_decode.py`` compares them with Stanza's own functions on random and tied
scores).

:func:`one_root` skips the search when it cannot change the answer. Stanza's
``chuliu_edmonds_one_root`` lowers every root arc by ``|m| * n`` (``m`` the lowest score, ``n`` the
matrix's side; Stanojević & Cohen 2021) so that the search keeps one root arc; the penalty makes the
greedy first step pick no root at all, so the search contracts about once per word (22 times a
sentence on WMT21 ru-en). But when each word's best head (self-loops excluded) already gives a tree,
that tree is the best of all single-root trees (each word has its best head), and every tree with
k >= 2 root arcs scores lower under the penalty: the scores are log-probabilities (<= 0), so a
tree's arcs sum to between ``(n - 1) * m`` and 0, and ``(n - 1) * m - n|m| > -2n|m|``. So when every
word's best head beats its second by more than the search's float64 rounding could move (a bound
far above it: ``1e-13 * n**3 * (|m| + 1)``), the search's answer is that greedy tree, which
:func:`one_root` returns; otherwise (a cycle, several roots, a near tie) it runs Stanza's search.
Measured on this 2-core CPU (2026-11-27): on the parser's score matrices for 3,000 WMT21 ru-en
segments (3,257 matrices, the CPU's float32 path) and 1,000 more (2,000, the GPU's float64 scheme run
on the CPU), every tree equals Stanza's (and its dtype), and 83 % take the short way; decoding 300
captured matrices takes 0.34 ms a sentence instead of 1.0 (Stanza's own decoder: 3.1). Tests:
``tests/test_fast_decode.py`` (random, tied and planted-tree log-probabilities; the parser's own).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _dependents(heads: list[int]) -> list[list[int]]:
    """Each node's dependents in index order (the root's own self-loop included, as Stanza's)."""
    out: list[list[int]] = [[] for _ in heads]
    for node, head in enumerate(heads):
        out[head].append(node)
    return out


def tarjan(tree: np.ndarray) -> list[np.ndarray]:
    """The cycles of ``tree`` (``tree[i]`` is the head of ``i``), as boolean masks, in the order of
    Stanza's ``tarjan``: strongly connected components of more than one node, as Tarjan's walk
    along head-to-dependent edges completes them."""
    heads = [int(h) for h in tree]
    dependents = _dependents(heads)
    size = len(heads)
    index, low, on_stack = [-1] * size, [-1] * size, [False] * size
    stack: list[int] = []
    cycles: list[np.ndarray] = []
    counter = 0
    for start in range(size):
        if index[start] != -1:
            continue
        calls = [(start, -1, -1)]  # (node, next dependent's position, dependent just finished)
        while calls:
            node, position, child = calls.pop()
            if position < 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
                position = 0
            else:
                low[node] = min(low[node], low[child])
            below = dependents[node]
            while position < len(below):
                nxt = below[position]
                position += 1
                if index[nxt] == -1:
                    calls += [(node, position, nxt), (nxt, -1, -1)]
                    break
                if on_stack[nxt]:
                    low[node] = min(low[node], index[nxt])
            else:
                if low[node] == index[node]:
                    _pop_component(node, stack, on_stack, cycles, size)
    return cycles


def _pop_component(node: int, stack: list[int], on_stack: list[bool], cycles: list[np.ndarray], size: int) -> None:
    """Pop ``node``'s component off the stack; keep it as a cycle when it has several nodes."""
    members = []
    while True:
        member = stack.pop()
        on_stack[member] = False
        members.append(member)
        if member == node:
            break
    if len(members) > 1:
        cycle = np.zeros(size, dtype=bool)
        cycle[members] = True
        cycles.append(cycle)


def process_cycle(tree: np.ndarray, cycle: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, ...]:
    """Contract ``cycle`` into one node (Edmonds' step): the contracted score matrix, the cycle's and
    the other nodes' indices, each outside dependent's best head in the cycle (``heads``) and each
    cycle node's best outside head... as Stanza's ``process_cycle`` returns them."""
    cycle_locs = np.where(cycle)[0]
    cycle_scores = scores[cycle, tree[cycle]]
    rest = np.logical_not(cycle)
    rest_locs = np.where(rest)[0]
    head_scores = scores[cycle][:, rest] - cycle_scores[:, None] + cycle_scores.sum()
    dep_scores = scores[rest][:, cycle]
    best_heads = np.argmax(head_scores, axis=0)
    best_deps = np.argmax(dep_scores, axis=1)
    n = len(rest_locs)
    contracted = np.zeros((n + 1, n + 1), dtype=scores.dtype)
    contracted[:-1, :-1] = scores[rest][:, rest]
    contracted[-1, :-1] = head_scores[best_heads, np.arange(n)]
    contracted[:-1, -1] = dep_scores[np.arange(n), best_deps]
    return contracted, cycle_locs, rest_locs, best_heads, best_deps


def one_root(scores: np.ndarray) -> np.ndarray:
    """Stanza's ``chuliu_edmonds_one_root(scores)``: the greedy tree when it decides the answer (see
    the module docstring), else Stanza's own search (with :func:`tarjan` and :func:`process_cycle`)."""
    tree = greedy_tree(scores)
    return tree if tree is not None else originals()["chuliu_edmonds_one_root"](scores)


def greedy_tree(scores: np.ndarray) -> np.ndarray | None:
    """Each word's best head, as Stanza's search would return it, when that is a tree with one root
    arc and every word's best head beats its second by more than the rounding bound; else None."""
    s = np.array(scores, dtype=np.float64)
    size = s.shape[0]
    finite = s[np.isfinite(s)]
    if size < 2 or not finite.size:
        return None
    lowest = float(finite.min())
    if finite.max() > 0:  # not log-probabilities: the argument below does not hold
        return None
    np.fill_diagonal(s, -np.inf)
    s[0] = -np.inf
    s[0, 0] = 0
    tree = np.argmax(s, axis=1)
    if np.count_nonzero(tree[1:] == 0) != 1:
        return None
    top = np.partition(s[1:], -2, axis=1)[:, -2:]  # each word's second best and best head score
    bound = 1e-13 * size ** 3 * (abs(lowest) + 1)
    with np.errstate(invalid="ignore"):  # -inf - -inf: no best head at all (then not taken)
        if not (-lowest > bound and np.all(top[:, 1] - top[:, 0] > bound)):
            return None
    return tree if _reaches_root(tree.tolist()) else None


def _reaches_root(heads: list[int]) -> bool:
    """Whether following heads from every node ends at node 0 (no cycle)."""
    state = [0] * len(heads)  # 0 unseen, 1 on the current path, 2 known to reach the root
    state[0] = 2
    for start in range(1, len(heads)):
        path, node = [], start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node]
        if state[node] == 1:
            return False
        for member in path:
            state[member] = 2
    return True


STEPS = {"tarjan": "stanza.models.common.chuliu_edmonds",  # each step, and the module it replaces it in
         "process_cycle": "stanza.models.common.chuliu_edmonds",
         "chuliu_edmonds_one_root": "stanza.models.depparse.model"}
ORIGINALS: dict[str, Any] = {}  # Stanza's own functions, kept by use() (tests compare with them)


def install() -> None:
    """Put :func:`tarjan`, :func:`process_cycle` and :func:`one_root` into Stanza (idempotent)."""
    use(stanza_own=False)


def use(stanza_own: bool) -> None:
    """Put Stanza's own decoder steps (``stanza_own``) or mteval's in Stanza's modules."""
    import importlib  # noqa: PLC0415 - Stanza is optional

    ours = {"tarjan": tarjan, "process_cycle": process_cycle, "chuliu_edmonds_one_root": one_root}
    for name, where in STEPS.items():
        module = importlib.import_module(where)
        ORIGINALS.setdefault(name, getattr(module, name))
        setattr(module, name, ORIGINALS[name] if stanza_own else ours[name])


def originals() -> dict[str, Any]:
    """Stanza's own ``tarjan``, ``process_cycle`` and ``chuliu_edmonds_one_root`` (whether or not
    :func:`use` ran: the last is replaced in the parser's module only)."""
    from stanza.models.common import chuliu_edmonds as module  # noqa: PLC0415

    return {name: ORIGINALS.get(name, getattr(module, name)) for name in STEPS}
