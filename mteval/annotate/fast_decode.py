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


ORIGINALS: dict[str, Any] = {}  # Stanza's own functions, kept by install() (tests compare with them)


def install() -> None:
    """Put :func:`tarjan` and :func:`process_cycle` into Stanza's decoder module (idempotent)."""
    from stanza.models.common import chuliu_edmonds as module  # noqa: PLC0415 - Stanza is optional

    for name, ours in (("tarjan", tarjan), ("process_cycle", process_cycle)):
        ORIGINALS.setdefault(name, getattr(module, name))
        setattr(module, name, ours)


def originals() -> dict[str, Any]:
    """Stanza's own ``tarjan`` and ``process_cycle`` (whether or not :func:`install` ran)."""
    from stanza.models.common import chuliu_edmonds as module  # noqa: PLC0415

    return {name: ORIGINALS.get(name, getattr(module, name)) for name in ("tarjan", "process_cycle")}
