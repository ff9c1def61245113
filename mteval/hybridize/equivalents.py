"""Syntactic equivalent pairs between references (Wang et al. 2009, Sec. 2).

Nodes are named by their *path*: the tuple of child indices from the root (``()`` = root).
For two references R1, R2 with phrase-structure trees T1, T2 the pairs are found top-down:

* the roots form the first pair <root1, root2, R1, R2> (whatever their labels, as in the paper);
* if <N1, N2> is a pair and the children label sequences of N1 and N2 are identical (same
  length, same labels in order), each child pair <N1i, N2i> is a pair.

Preterminals are nodes too (the paper's example pairs ``VV`` and ``ADV``); a preterminal has no
children to descend into.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from mteval.annotate.model import Tree

Path = tuple[int, ...]


def equivalent_pairs(t1: Tree, t2: Tree) -> list[tuple[Path, Path]]:
    """All syntactic equivalent pairs of two trees as (path in t1, path in t2), top-down order
    (Wang et al. 2009, Sec. 2; the paper's equal child paths follow from equal label sequences)."""
    pairs: list[tuple[Path, Path]] = []
    stack: list[tuple[Tree, Tree, Path]] = [(t1, t2, ())]
    while stack:
        n1, n2, path = stack.pop()
        pairs.append((path, path))
        if n1.children and [c.label for c in n1.children] == [c.label for c in n2.children]:
            stack.extend((c1, c2, path + (i,)) for i, (c1, c2)
                         in reversed(list(enumerate(zip(n1.children, n2.children, strict=True)))))
    return pairs


def partners(trees: Sequence[Tree]) -> list[dict[Path, list[tuple[int, Path]]]]:
    """For every reference tree, each node's equivalents in the other references, from all
    reference pairs of the segment: ``partners(trees)[i][path] = [(j, path_j), ...]``."""
    out: list[dict[Path, list[tuple[int, Path]]]] = [{} for _ in trees]
    for i in range(len(trees)):
        for j in range(i + 1, len(trees)):
            for p1, p2 in equivalent_pairs(trees[i], trees[j]):
                out[i].setdefault(p1, []).append((j, p2))
                out[j].setdefault(p2, []).append((i, p1))
    return out


def node_at(tree: Tree, path: Path) -> Tree:
    """The node of a tree at a path of child indices."""
    for i in path:
        tree = tree.children[i]
    return tree


def walk(tree: Tree, path: Path = ()) -> Iterator[tuple[Path, Tree]]:
    """Every node with its path, preorder."""
    yield path, tree
    for i, child in enumerate(tree.children):
        yield from walk(child, path + (i,))
