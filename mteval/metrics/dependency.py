"""DP: similarity of dependency trees (IQMT manual §5.4.1) over Universal Dependencies trees.

MINIPAR's grammatical categories become UD's UPOS tags and its grammatical relations UD's
relations (with subtypes, e.g. ``nsubj:pass``, as Stanza's English EWT model produces them). Items
are lower-cased word forms unless ``case_sensitive``. Variants (Asiya's names):

=====================================  =========================================================
variant                                measure (:mod:`mteval.metrics.overlap`)
=====================================  =========================================================
``DP-HWCM_w-l``, ``_c-l``, ``_r-l``    head-word chains (Liu & Gildea 2005): every downward path
                                       ``w1 -> w2 -> ... -> wk`` (each word the head of the next)
                                       is an item, as forms (w), UPOS (c) or relations (r); the
                                       type is its length k. ``HWCM-l`` sums hits and totals over
                                       k = 1..l (Asiya's accumulated form), ``HWCMi-l`` uses k = l.
                                       l <= 4.
``DP-Ol(l)``, ``DP-Ol(*)``             Overlapping of the words at depth >= l (a word hanging from
                                       the root is at depth 1), l = 1..9 (Amigó et al. 2006, LEVEL)
``DP-Oc(t)``, ``DP-Oc(*)``             Overlapping of the words of category (UPOS) t (GRAM)
``DP-Or(t)``, ``DP-Or(*)``             Overlapping of the words of every subtree whose root has
                                       relation t, each subtree counted (TREE)
=====================================  =========================================================

Matching counts (Σmin/Σmax over items), multiple references and aggregation are the general
Overlapping of :mod:`mteval.metrics.overlap` with the chain lengths/levels/categories/relations
as the LE types.
"""

from __future__ import annotations

from collections import Counter

from mteval.annotate.layers.labels import RELATIONS, UPOS_TAGS
from mteval.annotate.model import Sentence
from mteval.metrics.base import MetricInfo
from mteval.metrics.overlap import Features, OverlapFamily, Selector, per_type
from mteval.metrics.registry import register

HWC_MAX = 4
MAX_LEVEL = 9
CHAIN_ITEMS = ("w", "c", "r")


def _selectors() -> dict[str, Selector]:
    """The DP variant table (module docstring)."""
    out: dict[str, Selector] = {}
    for x in CHAIN_ITEMS:
        group = f"HWC_{x}"
        out.update({f"DP-HWCM_{x}-{n}": Selector(group, tuple(str(k) for k in range(1, n + 1)))
                    for n in range(1, HWC_MAX + 1)})
        out.update({f"DP-HWCMi_{x}-{n}": Selector(group, (str(n),)) for n in range(2, HWC_MAX + 1)})
    out["DP-Ol(*)"] = Selector("Ol")
    out.update(per_type("DP-Ol", "Ol", [str(n) for n in range(1, MAX_LEVEL + 1)]))
    out["DP-Oc(*)"] = Selector("Oc")
    out.update(per_type("DP-Oc", "Oc", UPOS_TAGS))
    out["DP-Or(*)"] = Selector("Or")
    out.update(per_type("DP-Or", "Or", RELATIONS))
    return out


def chain_paths(n_words: int, kids: list[list[int]], max_length: int) -> list[tuple[str, tuple[int, ...]]]:
    """Every downward chain of 1..max_length word ids (each the head of the next), with its length."""
    found: list[tuple[str, tuple[int, ...]]] = []
    paths: list[tuple[int, ...]] = [(i,) for i in range(1, n_words + 1)]
    for length in range(1, max_length + 1):
        found.extend((str(length), p) for p in paths)
        paths = [p + (k,) for p in paths for k in kids[p[-1]]]
    return found


def head_word_chains(symbols: list[str], paths: list[tuple[str, tuple[int, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
    """The chains of :func:`chain_paths` as ``(str(length), tuple of their words' symbols)``."""
    get = symbols.__getitem__
    return [(length, tuple(map(get, p))) for length, p in paths]


def depths(sentence: Sentence, kids: list[list[int]]) -> list[int]:
    """Depth of every word, index 0 = the virtual root (depth 0)."""
    depth = [0] * (len(sentence) + 1)
    stack = list(kids[0])
    for r in kids[0]:
        depth[r] = 1
    while stack:
        h = stack.pop()
        for k in kids[h]:
            depth[k] = depth[h] + 1
            stack.append(k)
    return depth


def relation_words(rels: list[str], forms: list[str], kids: list[list[int]]) -> Counter[tuple[str, str]]:
    """Counts of ``(relation of word i, form of word k)`` over every word i and every word k of
    i's subtree (i included): each word counted once per ancestor-or-self with that relation.

    One depth-first walk keeps the relation counts of the current path, so the work is
    O(words x relations on a path) where listing the subtrees is O(words x depth) (12.5 M pairs
    for a 5,000-word chain)."""
    counts: Counter[tuple[str, str]] = Counter()
    on_path: Counter[str] = Counter()
    stack: list[tuple[int, bool]] = [(k, False) for k in reversed(kids[0])]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            on_path[rels[node]] -= 1
            continue
        on_path[rels[node]] += 1
        form = forms[node]
        for rel, c in on_path.items():
            if c:
                counts[(rel, form)] += c
        stack.append((node, True))
        stack.extend((k, False) for k in reversed(kids[node]))
    return counts


@register
class Dependency(OverlapFamily):
    """DP-* (manual §5.4.1): head-word chains and overlapping by level, category and relation."""

    family = "DP"
    selectors = _selectors()
    open_labels = {"DP-Or": "Or"}  # any relation of the parser (French obl:mod)
    variants = tuple(selectors)

    def info(self, variant: str) -> MetricInfo:
        """Higher is better; Overlapping/Matching in [0, 1] (NIST: [0, inf))."""
        return MetricInfo(variant, self.family, description="IQMT §5.4.1 over UD trees")

    def features(self, sentence: Sentence) -> Features:
        """Typed bags: chains (``HWC_w/c/r``), levels (``Ol``), categories (``Oc``), relations (``Or``)."""
        kids = sentence.children()
        forms = [""] + [self.norm(w.form) for w in sentence.words]
        cats = [""] + [w.upos for w in sentence.words]
        rels = [""] + [w.deprel for w in sentence.words]
        depth = depths(sentence, kids)
        levels = ((str(lv), forms[i]) for i in range(1, len(forms))
                  for lv in range(1, min(depth[i], MAX_LEVEL) + 1))
        paths = chain_paths(len(sentence), kids, HWC_MAX)
        return {"HWC_w": self.bags(head_word_chains(forms, paths)),
                "HWC_c": self.bags(head_word_chains(cats, paths)),
                "HWC_r": self.bags(head_word_chains(rels, paths)),
                "Ol": self.bags(levels),
                "Oc": self.bags(zip(cats[1:], forms[1:], strict=True)),
                "Or": self.counted_bags(relation_words(rels, forms, kids))}
