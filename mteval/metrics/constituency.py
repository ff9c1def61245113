"""CP: similarity of phrase-structure trees (IQMT manual §5.4.2).

The manual's Charniak-Johnson parses become the flat projection of the UD dependency tree
(:func:`mteval.annotate.layers.phrase.project`; option ``trees="projection"``, recorded in the
signature): Stanza's English constituency model needs treebanks we do not have. Preterminals are
XPOS tags (PTB), phrases the projection's labels (S, SBAR, VP, NP, PP, ADJP, ADVP, QP, INTJ, PRT,
X; ``ROOT`` on top). Items are lower-cased word forms unless ``case_sensitive``. Variants:

========================  =================================================================
variant                   measure (:mod:`mteval.metrics.overlap`)
========================  =================================================================
``CP-STM-l``              Subtree metric (Liu & Gildea 2005) as in Asiya: every
``CP-STMi-l``             ancestor-to-descendant label chain of k nodes (``ROOT`` and the
                          preterminals included, words excluded) is an item of type k; ``STM-l``
                          sums hits and totals over k = 1..l, ``STMi-l`` uses k = l; l <= 9
``CP-Op(t)``, ``CP-Op(*)``  Overlapping of word forms by preterminal tag t
``CP-Oc(t)``, ``CP-Oc(*)``  Overlapping of the words under every phrase of type t (a word under
                          two nested phrases of type t counts twice); ``ROOT`` is not a type
========================  =================================================================
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mteval.annotate.layers.labels import XPOS_TAGS
from mteval.annotate.layers.phrase import PHRASE_TYPES, project
from mteval.annotate.model import Sentence, Tree
from mteval.errors import ConfigError
from mteval.metrics.base import MetricInfo
from mteval.metrics.overlap import Features, OverlapFamily, Selector, per_type
from mteval.metrics.registry import register

STM_MAX = 9
TREE_SOURCES = ("projection",)


def _selectors() -> dict[str, Selector]:
    """The CP variant table (module docstring)."""
    out = {f"CP-STM-{n}": Selector("STM", tuple(str(k) for k in range(1, n + 1))) for n in range(1, STM_MAX + 1)}
    out.update({f"CP-STMi-{n}": Selector("STM", (str(n),)) for n in range(2, STM_MAX + 1)})
    out["CP-Op(*)"] = Selector("Op")
    out.update(per_type("CP-Op", "Op", XPOS_TAGS))
    out["CP-Oc(*)"] = Selector("Oc")
    out.update(per_type("CP-Oc", "Oc", [t for t in PHRASE_TYPES if t != "ROOT"]))
    return out


def label_chains(tree: Tree, max_length: int) -> list[tuple[str, tuple[str, ...]]]:
    """``(str(k), chain)`` for every top-down label chain of k = 1..max_length nodes."""
    found: list[tuple[str, tuple[str, ...]]] = []
    stack: list[tuple[Tree, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, above = stack.pop()
        path = (above + (node.label,))[-max_length:]
        found.extend((str(k), path[-k:]) for k in range(1, len(path) + 1))
        stack.extend((c, path) for c in node.children)
    return found


def phrase_words(tree: Tree, forms: list[str]) -> Counter[tuple[str, str]]:
    """Counts of ``(phrase label, word form)`` for every word under every inner node except ``ROOT``
    (a word under two nested phrases of one type counts twice).

    One depth-first walk with the label counts of the current path: O(words x labels on a path),
    where listing each node's leaves is O(words x depth)."""
    counts: Counter[tuple[str, str]] = Counter()
    on_path: Counter[str] = Counter()
    stack: list[tuple[Tree, bool]] = [(tree, False)]
    while stack:
        node, leaving = stack.pop()
        counted = not node.is_leaf and node.label != "ROOT"
        if leaving:
            on_path[node.label] -= 1
            continue
        if node.is_leaf:
            form = forms[node.word or 0]
            for label, c in on_path.items():
                if c:
                    counts[(label, form)] += c
            continue
        if counted:
            on_path[node.label] += 1
            stack.append((node, True))
        stack.extend((c, False) for c in reversed(node.children))
    return counts


def preterminals(tree: Tree) -> list[tuple[str, int]]:
    """``(tag, word id)`` of every leaf, left to right (iterative: trees may be thousands deep)."""
    found: list[tuple[str, int]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.is_leaf:
            found.append((node.label, node.word or 0))
        else:
            stack.extend(reversed(node.children))
    return found


@register
class Constituency(OverlapFamily):
    """CP-* (manual §5.4.2): subtree metric and overlapping by PoS and phrase type."""

    family = "CP"
    # 2: a reflexive clitic (expl:pv, expl:comp, expl:pass) no longer makes a clause S; only expl and
    # expl:subj count as subjects (annotate/layers/phrase.py)
    version = "2"
    selectors = _selectors()
    open_labels = {"CP-Op": "Op"}  # any preterminal (XPOS tag)
    variants = tuple(selectors)

    def __init__(self, case_sensitive: bool = True, trees: str = "projection", **options: Any) -> None:
        if trees not in TREE_SOURCES:
            raise ConfigError(f"CP: trees={trees!r} is not available; choose one of {', '.join(TREE_SOURCES)}")
        super().__init__(case_sensitive, trees=trees, **options)

    def info(self, variant: str) -> MetricInfo:
        """Higher is better; Overlapping/Matching in [0, 1] (NIST: [0, inf))."""
        return MetricInfo(variant, self.family, description="IQMT §5.4.2 over projected phrase structure")

    def features(self, sentence: Sentence) -> Features:
        """Typed bags: label chains (``STM``), words by preterminal (``Op``) and by phrase (``Oc``)."""
        tree = project(sentence)
        forms = [""] + [self.norm(w.form) for w in sentence.words]
        chains = label_chains(tree, STM_MAX) if len(sentence) else []  # an empty segment has no tree
        return {"STM": self.bags(chains),
                "Op": self.bags((t, forms[i]) for t, i in preterminals(tree)),
                "Oc": self.counted_bags(phrase_words(tree, forms))}
