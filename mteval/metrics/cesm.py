"""CESM: the Common Embedded Subtree Metric (Duma, Vertan & Menzel 2013, Sec. 3.2).

A dependency parse becomes an *ordered tree with unlabeled edges*: nodes are the words, labelled
by their form (option ``label``: ``form``, ``lemma``, ``upos`` or ``lemma+upos``; lower-cased
when ``case_sensitive=False``), the children of a node ordered left to right by word position,
the dependency relations dropped (paper: "we first removed the labels assigned to every edge,
but maintained the nodes and the left to right order between them").

Embedded subtree (Lin et al. 2008): a tree obtained from T by deleting nodes; deleting a node
attaches its children to its parent in its place, so ancestor relations and the left-to-right
order are kept. A node set A of T defines one embedded subtree when it has a top node that is
an ancestor of all the others.

* ``rooted`` (the paper's definition, variants ``CESM``, ``CESM-P``, ``CESM-R``): "an embedded
  subtree is obtained by removing one or more nodes, except for the root" -- every counted
  subtree contains the root of T (zero deletions, T itself, is counted too).
* ``anyroot`` (``CESM-anyroot*``): embedded subtrees with any top node (the tree-mining usage).

ACET(T1, T2) counts the *pairs of occurrences* (A1 in T1, A2 in T2) whose embedded subtrees are
equal as ordered labelled trees: a shape occurring m times in T1 and n times in T2 counts m*n
(the kernel count, an inner product of occurrence vectors). Without repeated words this is the
number of distinct common embedded subtrees. With repeated words P or R alone may exceed 1,
but F1 cannot: by Cauchy-Schwarz ACET(r,h)^2 <= ACET(r,r) ACET(h,h), so P*R <= 1 and
F1 = 2PR/(P+R) <= sqrt(PR) <= 1.

    P = ACET(ref, hyp) / ACET(hyp, hyp),  R = ACET(ref, hyp) / ACET(ref, ref),  CESM = 2PR/(P+R)

Tree root: the sentence's root word; a segment with several root words (several sentences) gets
a virtual root ``<ROOT>`` above them (option ``virtual_root=True`` adds it to every tree, so
that the rooted count no longer requires equal root words). The one-node subtree made of the
virtual root alone holds no word and is not counted; an empty segment therefore shares nothing
with a non-empty one, and two empty segments score 1.

Multiple references: per segment the reference with the highest F1 (of that mode) is kept and
its P and R are reported; on a tie the smaller reference (fewer subtrees), then the higher P, so
that no score depends on the order of the references (:func:`_best_first`). Document and system
scores: means of segment scores (the paper's system score is the average of segment scores, Table 1).

Algorithm (:func:`acet`): C(u, v) = number of common embedded subtrees topped at u and v =
[label(u) = label(v)] * S(u, v), where S(u, v) sums, over pairs of equally long sequences of
pairwise disjoint proper-descendant subtrees x1 < ... < xk of u and y1 < ... < yk of v (left to
right), the product of C(xi, yi). In preorder, a descendant x is the interval [x, end(x)], and
S is a suffix dynamic programme over each pair of windows,
G(p, q) = G(p+1, q) + sum_{y >= q} C(p, y) G(end(p)+1, end(y)+1), run for all label-matching
pairs (u, v) at once in one sweep over p. Time O(sum over matching (u, v) of |T(u)| |T(v)|),
at most O(n1^2 n2^2) (all words equal) and close to O(n1 n2 depth) on parses.
rooted ACET = C(root1, root2); anyroot ACET = sum of C.

Bounds (long segments): the blocks are swept in chunks of about ``MAX_CELLS`` G cells; a pair
needing more than ``MAX_WORK`` cells is not computed (NaN, see :class:`CesmFamily`); counts past
float64 are exact integers for small DPs and long double (not exact: 64-bit mantissa) above
``MAX_EXACT_WORK``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mteval.annotate.model import Sentence
from mteval.errors import ConfigError, InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricFamily, MetricInfo, ScoreSet, Side, mean_score_set
from mteval.metrics.registry import register

LOG = logging.getLogger(__name__)
VIRTUAL_ROOT = "<ROOT>"
LABELS = ("form", "lemma", "upos", "lemma+upos")
MODES = ("rooted", "anyroot")


@dataclass(frozen=True)
class OrderedTree:
    """An ordered labelled tree in preorder: ``labels[i]`` of node ``i`` (0 = root), ``end[i]``
    the last preorder index in the subtree of ``i``."""

    labels: np.ndarray  # int64, interned labels
    end: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.labels)


def tree_from_parents(labels: Sequence[int], parents: Sequence[int]) -> OrderedTree:
    """Preorder :class:`OrderedTree` from node labels and parent indices (-1 = root, exactly one);
    children are ordered by their index (word order)."""
    n = len(labels)
    kids: list[list[int]] = [[] for _ in range(n)]
    roots = [i for i, p in enumerate(parents) if p < 0]
    if len(roots) != 1:
        raise ValueError(f"a tree needs exactly one root, got {len(roots)}")
    for i, p in enumerate(parents):
        if p >= 0:
            kids[p].append(i)
    order: list[int] = []
    end = [0] * n
    stack: list[tuple[int, bool]] = [(roots[0], False)]
    while stack:
        node, done = stack.pop()
        if done:
            end[node] = len(order) - 1
            continue
        order.append(node)
        stack.append((node, True))
        stack.extend((k, False) for k in reversed(kids[node]))
    if len(order) != n:
        raise ValueError("the parent array has a cycle")
    return OrderedTree(np.array([labels[v] for v in order], dtype=np.int64),
                       np.array([end[v] for v in order], dtype=np.int64))


MAX_WORK = 200_000_000  # DP cells (float64, ~3 s) one tree pair may fill; above it: not scored
MAX_EXACT_WORK = 2_000_000  # exact integers only up to this; larger overflowing pairs: long double


class TooLarge(ValueError):
    """A tree pair whose DP exceeds ``MAX_WORK`` cells (CESM scores such a segment NaN)."""


def dp_work(t1: OrderedTree, t2: OrderedTree) -> int:
    """Cells of G the sweep fills: over label-matching inner pairs (u, v), the matched rows of u's
    window times the width of v's; O(n1 n2 depth) on parses, up to O(n1^2 n2^2) on chains."""
    bu, bv, match = _blocks(t1, t2)
    has_match = np.asarray(match.any(axis=1))
    slot = np.append(np.cumsum(has_match[::-1])[::-1], 0)
    return int(((slot[bu + 1] - slot[t1.end[bu] + 1]) * (t2.end[bv] - bv + 1)).sum())


def acet_table(t1: OrderedTree, t2: OrderedTree) -> np.ndarray:
    """The matrix C(u, v) of common embedded subtrees topped at u (in t1) and v (in t2), as
    float64; recomputed with exact Python integers if a count overflows (Lin et al. 2008).

    Bounded: a pair whose DP passes ``MAX_WORK`` cells raises :class:`TooLarge` (no parse of an
    ordinary sentence comes near: a 250-word chain, the worst shape, is 2.4e7); an overflowing
    pair above ``MAX_EXACT_WORK`` cells (trees of more than ~1,000 words, whose counts pass
    2^1024) is computed in long double (64-bit mantissa, range 10^4932) rather than with
    integers thousands of bits long in every cell; beyond that range it raises TooLarge."""
    work = dp_work(t1, t2)
    if work > MAX_WORK:
        raise TooLarge(f"CESM DP of {work} cells (bound {MAX_WORK})")
    table = _acet_sweep(t1, t2, np.float64)
    if not np.all(np.isfinite(table)):
        del table  # before the second table is built (n1 x n2 cells each)
        table = _acet_sweep(t1, t2, object if work <= MAX_EXACT_WORK else np.longdouble)
        if table.dtype != object and not np.all(np.isfinite(table)):
            raise TooLarge("CESM counts beyond long double range")
    return table


def _counts_of(table: np.ndarray) -> tuple[Any, Any]:
    """(rooted, anyroot) of a C table (or a block of one): floats for float64, else the exact
    integers or long doubles themselves."""
    rooted, anyroot = table[0, 0], table.sum()
    return (float(rooted), float(anyroot)) if table.dtype == np.float64 else (rooted, anyroot)


def acet(t1: OrderedTree, t2: OrderedTree) -> tuple[float, float]:
    """(rooted ACET, anyroot ACET) of two ordered labelled trees (Duma et al. 2013, Sec. 3.2):
    floats, or exact Python integers when the counts pass float64's range (trees of ~500 words)."""
    return _counts_of(acet_table(t1, t2))


def forest(trees: Sequence[OrderedTree]) -> OrderedTree:
    """Several trees side by side as one preorder forest (each keeps its own windows)."""
    offsets = np.cumsum([0] + [len(t) for t in trees[:-1]])
    return OrderedTree(np.concatenate([t.labels for t in trees]),
                       np.concatenate([t.end + o for t, o in zip(trees, offsets, strict=True)]))


MAX_CELLS = 4_000_000  # DP cells of one sweep (float64: 32 MB); above it the trees go one by one


def acet_many(t1: OrderedTree, others: Sequence[OrderedTree]) -> list[tuple[float, float]]:
    """:func:`acet` of ``t1`` with each of ``others``, in one sweep over ``t1`` when the DP is
    small enough (the C(u, v) of different trees do not interact); (NaN, NaN) for a tree whose DP
    with ``t1`` is over the work bound (:func:`acet_table`)."""
    sizes = [len(t) for t in others]
    if len(others) < 2:
        return [_acet_or_nan(t1, t) for t in others]
    joined = forest(others)
    blocks = len(_blocks(t1, joined)[0])
    if blocks * (len(t1) + 1) * max(sizes) > MAX_CELLS:
        return [_acet_or_nan(t1, t) for t in others]
    try:
        table = acet_table(t1, joined)
    except TooLarge:
        return [_acet_or_nan(t1, t) for t in others]
    out, start = [], 0
    for n in sizes:
        out.append(_counts_of(table[:, start:start + n]))
        start += n
    return out


def _acet_or_nan(t1: OrderedTree, t2: OrderedTree) -> tuple[Any, Any]:
    """:func:`acet`, or (NaN, NaN) for a pair over the work bound (:class:`TooLarge`)."""
    try:
        return acet(t1, t2)
    except TooLarge:
        return math.nan, math.nan


def _blocks(t1: OrderedTree, t2: OrderedTree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Label-matching pairs (u, v), both inner nodes (the DP blocks), and the match matrix."""
    match = t1.labels[:, None] == t2.labels[None, :]
    inner1 = t1.end > np.arange(len(t1))
    inner2 = t2.end > np.arange(len(t2))
    bu, bv = np.nonzero(match & inner1[:, None] & inner2[None, :])
    return bu, bv, match


def _acet_sweep(t1: OrderedTree, t2: OrderedTree, dtype: Any) -> np.ndarray:
    """One descending sweep over t1's preorder positions p updating the G row of every block
    (u, v) whose window holds p. Block columns run right to left (column j is q = end(v)+1-j),
    so the suffix sums over q are one forward cumsum.

    Memory is bounded by doing the blocks in chunks (:func:`_chunks`): a chunk's G grid holds only
    the rows of its blocks' windows and its widest block, about ``MAX_CELLS`` cells; a block only
    reads C rows of larger u, so chunks taken by decreasing u (never splitting one u) see every C
    value they need already final."""
    n1, n2 = len(t1), len(t2)
    bu, bv, match = _blocks(t1, t2)
    table = np.zeros((n1, n2 + 1), dtype=dtype)  # column n2: sentinel and padding, always 0
    table[:, :n2][match] = 1  # a pair with a leaf has only the one-node subtree in common
    if len(bu) == 0:
        return table[:, :n2]
    order = np.argsort(-bu, kind="stable")
    bu, bv = bu[order], bv[order]
    # only rows p with a label match change G; slot[r] = stored row of the next such p >= r
    has_match = np.asarray(match.any(axis=1))
    slot = np.cumsum(has_match[::-1])[::-1]  # slots numbered from the end; 0 = all ones
    slot = np.append(slot, 0)
    budget = MAX_CELLS if dtype == np.float64 else MAX_CELLS // 4  # wider cells: fewer of them
    for chunk in _chunks(t1, t2, bu, bv, slot, budget):
        _sweep_chunk(t1, t2, bu[chunk], bv[chunk], table, has_match, slot, dtype)
    return table[:, :n2]


def _chunks(t1: OrderedTree, t2: OrderedTree, bu: np.ndarray, bv: np.ndarray,
            slot: np.ndarray, budget: int) -> list[slice]:
    """Consecutive runs of blocks (sorted by decreasing u) whose G grid -- blocks x stored rows
    of their windows x widest block -- stays within ``budget`` cells (one larger block alone)."""
    base_of = slot[t1.end[bu] + 1]  # slots at or below this lie past the block's window
    top_of = slot[bu + 1]  # the block's first stored row
    width_of = t2.end[bv] - bv + 1
    chunks, start = [], 0
    base = top = width = 0
    for b in range(len(bu)):
        if b == start:
            base, top, width = int(base_of[b]), int(top_of[b]), int(width_of[b])
            continue
        nb, nt, nw = min(base, int(base_of[b])), max(top, int(top_of[b])), max(width, int(width_of[b]))
        if (b + 1 - start) * (nt - nb + 1) * nw > budget:
            chunks.append(slice(start, b))
            start = b
            base, top, width = int(base_of[b]), int(top_of[b]), int(width_of[b])
        else:
            base, top, width = nb, nt, nw
    chunks.append(slice(start, len(bu)))
    return chunks


def _sweep_chunk(t1: OrderedTree, t2: OrderedTree, bu: np.ndarray, bv: np.ndarray, table: np.ndarray,
                 has_match: np.ndarray, slot: np.ndarray, dtype: Any) -> None:
    """The descending sweep for one chunk of blocks (:func:`_acet_sweep`), writing C(u, v) into
    ``table``; slots are renumbered from the chunk's lowest window end."""
    n2 = len(t2)
    sizes = t2.end[bv] - bv  # descendants of v; column `sizes` is q = v+1 (the block's value)
    width = int(sizes.max()) + 1
    ys = t2.end[bv][:, None] + 1 - np.arange(width)[None, :]  # node of column j
    inside = ys > bv[:, None]
    col_y = np.where(inside, ys, n2)
    col_y[:, 0] = n2
    safe_y = np.minimum(col_y, n2 - 1)
    nxt = np.where(col_y < n2, t2.end[bv][:, None] - t2.end[safe_y], 0)  # column of end(y)+1
    del ys, inside, safe_y
    lo, hi = bu + 1, t1.end[bu]
    base = int(slot[hi.max() + 1])
    local = np.maximum(slot - base, 0)  # 0 = all ones (past every window of the chunk)
    grid = np.empty((len(bu), int(local[lo.min()]) + 1, width), dtype=dtype)
    grid[:, 0] = 1
    past = local[hi + 1]  # slots <= past lie beyond the block's window
    own: dict[int, list[int]] = {}
    for b, u in enumerate(bu.tolist()):
        own.setdefault(u, []).append(b)
    ends = t1.end.tolist()
    for p in range(int(hi.max()), int(bu.min()) - 1, -1):
        if p in own:
            mine = np.asarray(own[p])
            table[p, bv[mine]] = grid[mine, np.where(local[p + 1] > past[mine], local[p + 1], 0), sizes[mine]]
        if not has_match[p]:
            continue
        active = np.flatnonzero((lo <= p) & (p <= hi))
        if len(active):
            beyond = past[active]
            at_end = np.where(local[ends[p] + 1] > beyond, local[ends[p] + 1], 0)
            at_next = np.where(local[p + 1] > beyond, local[p + 1], 0)
            g = grid[active[:, None], at_end[:, None], nxt[active]]
            grid[active, local[p]] = grid[active, at_next] + (table[p, col_y[active]] * g).cumsum(axis=1)


def word_acet(t1: OrderedTree, others: Sequence[OrderedTree]) -> list[tuple[float, float]]:
    """:func:`acet_many` of sentence trees, not counting the subtree made of the virtual root
    alone (label id 0) when both trees have one: it holds no word."""
    out = []
    for t2, (rooted, anyroot) in zip(others, acet_many(t1, others), strict=True):
        both = t1.labels[0] == 0 and t2.labels[0] == 0
        out.append((rooted - 1, anyroot - 1) if both else (rooted, anyroot))
    return out


def word_labels(sentence: Sentence, label: str = "form", case_sensitive: bool = True) -> list[str]:
    """Node labels of a sentence's words: form, lemma (form when the lemma is ``_``), UPOS, or
    lemma+UPOS; lower-cased unless ``case_sensitive``."""
    out = []
    for w in sentence.words:
        lemma = w.lemma if w.lemma not in ("_", "") else w.form
        value = {"form": w.form, "lemma": lemma, "upos": w.upos, "lemma+upos": f"{lemma}/{w.upos}"}[label]
        out.append(value if case_sensitive or label == "upos" else value.lower())
    return out


def sentence_parents(sentence: Sentence, virtual_root: bool = False) -> list[int]:
    """0-based parent of every word (-1 = tree root); with several root words, or with
    ``virtual_root``, one extra last node (the virtual root) is their parent. An empty sentence
    is the virtual root alone (it shares nothing with a non-empty one; two empty ones score 1)."""
    n = len(sentence.words)
    heads = [w.head for w in sentence.words]
    bad = [h for h in heads if not 0 <= h <= n]
    if bad:
        raise InputError(f"sentence {sentence.text[:40]!r}: head {bad[0]} out of range 0..{n}")
    roots = [i for i, h in enumerate(heads) if h == 0]
    if len(roots) == 1 and not virtual_root:
        return [h - 1 for h in heads]
    return [n if h == 0 else h - 1 for h in heads] + [-1]


def _best_first(candidate: tuple[tuple[float, float, float], float]) -> tuple[float, float, float]:
    """Sort key of a reference's ((P, R, F1), ACET(r,r)): the highest F1 (NaN, a reference over the
    work bound, below everything); on a tie the smaller reference (fewer subtrees: the higher R, as
    DPM/EDPM's fewer reference items and BLEU's shorter closest length), then the higher P. Equal F1
    with other P and R is common (P and R swapped: 0.0625/0.125 and 0.125/0.0625), so taking the
    first reference listed made CESM-P and CESM-R depend on the order of the references."""
    (p, _, f), ref_self = candidate
    return (-math.inf if math.isnan(f) else f, -ref_self, p)


@dataclass
class _Reference:
    """One prepared reference side: the tree key of every segment."""

    keys: list[tuple]


def f_measure(common: float, hyp_self: float, ref_self: float) -> tuple[float, float, float]:
    """(P, R, F1) of CESM, Duma et al. 2013 Sec. 3.2: P = ACET(r,h)/ACET(h,h),
    R = ACET(r,h)/ACET(r,r), F1 = 2PR/(P+R) (0 when nothing is shared)."""
    if not hyp_self and not ref_self:
        return 1.0, 1.0, 1.0  # two empty segments
    if not common:
        return 0.0, 0.0, 0.0
    p, r = common / hyp_self, common / ref_self
    return float(p), float(r), float(2 * p * r / (p + r))


@register
class CesmFamily(MetricFamily):
    """CESM and CESM-anyroot with their precision and recall (see the module docstring).

    Options: ``label`` (form | lemma | upos | lemma+upos, default form), ``virtual_root``
    (default False), and ``case_sensitive`` (default True). The signature records ``maxwork``:
    a segment whose tree pair needs more DP cells (:func:`acet_table`; only trees of thousands of
    words, far past the annotator's default 250) is scored NaN for every reference that exceeds
    it, with a warning, instead of exhausting the machine.
    """

    family: ClassVar[str] = "CESM"
    variants: ClassVar[tuple[str, ...]] = (
        "CESM", "CESM-P", "CESM-R", "CESM-anyroot", "CESM-anyroot-P", "CESM-anyroot-R")
    version: ClassVar[str] = "2"  # 2: ties between references order-free (_best_first)
    needs_annotation: ClassVar[bool] = True

    def __init__(self, case_sensitive: bool = True, label: str = "form", virtual_root: bool = False,
                 **options: Any) -> None:
        """Validate the options (``ConfigError`` for an unknown label) and set up the caches."""
        if label not in LABELS:
            raise ConfigError(f"CESM option label={label!r}; allowed: {', '.join(LABELS)}")
        options.pop("maxwork", None)  # recorded from MAX_WORK, not chosen
        super().__init__(case_sensitive, label=label, virtual_root=bool(virtual_root), maxwork=MAX_WORK,
                         **options)
        self.label, self.virtual_root = label, bool(virtual_root)
        self._intern: dict[str, int] = {VIRTUAL_ROOT: 0}
        self._trees: dict[tuple, OrderedTree] = {}
        self._self: dict[tuple, tuple[float, float]] = {}
        self._cross: dict[tuple[tuple, tuple], tuple[float, float]] = {}  # (ref key, hyp key)

    def info(self, variant: str) -> MetricInfo:
        """F1 lies in [0, 1]; P and R are >= 0 and may pass 1 with repeated words."""
        upper = 1.0 if variant in ("CESM", "CESM-anyroot") else None
        return MetricInfo(variant, self.family, True, 0.0, upper,
                          "common embedded subtrees of dependency trees (Duma et al. 2013)")

    def _key(self, sentence: Sentence) -> tuple:
        """Cache key of a sentence's tree (labels and parents); builds and caches the tree."""
        labels = word_labels(sentence, self.label, self.case_sensitive)
        parents = sentence_parents(sentence, self.virtual_root)
        ids = [self._intern.setdefault(x, len(self._intern)) for x in labels]
        ids += [0] * (len(parents) - len(ids))
        key = (tuple(ids), tuple(parents))
        if key not in self._trees:
            try:
                self._trees[key] = tree_from_parents(ids, parents)
            except ValueError as err:
                raise InputError(f"sentence {sentence.text[:40]!r}: {err}") from None
        return key

    def _sentences(self, side: Side) -> Sequence[Sentence]:
        """The side's parses, checked to be there and aligned with its texts."""
        if side.sentences is None:
            raise InputError(f"{side.name}: CESM needs dependency parses (annotation missing)")
        if len(side.sentences) != len(side.texts):
            raise InputError(f"{side.name}: {len(side.sentences)} parses for {len(side.texts)} segments")
        return side.sentences

    def prepare(self, references: Sequence[Side]) -> list[_Reference]:
        """Trees and self-ACETs of every reference (once per reference set)."""
        prepared = [_Reference([self._key(s) for s in self._sentences(ref)]) for ref in references]
        for ref in prepared:
            for key in ref.keys:
                if key not in self._self:
                    self._self[key] = word_acet(self._trees[key], [self._trees[key]])[0]
        return prepared

    def _counts(self, hkey: tuple, refs: Sequence[_Reference], i: int) -> None:
        """Fill the hypothesis' self-ACET and its cross-ACETs with segment ``i`` of every
        reference (each distinct reference tree once), in one sweep over the hypothesis tree."""
        todo = list(dict.fromkeys(r.keys[i] for r in refs if (r.keys[i], hkey) not in self._cross))
        need_self = hkey not in self._self
        if not todo and not need_self:
            return
        others = ([self._trees[hkey]] if need_self else []) + [self._trees[k] for k in todo]
        counts = word_acet(self._trees[hkey], others)
        if need_self:
            self._self[hkey] = counts.pop(0)
        for rkey, c in zip(todo, counts, strict=True):
            self._cross[(rkey, hkey)] = c

    def segment_scores(self, hypothesis: Side, prepared: list[_Reference]) -> dict[str, np.ndarray]:
        """Segment scores of every variant; per segment and mode the best-F1 reference."""
        sentences = self._sentences(hypothesis)
        n = len(sentences)
        if any(len(ref.keys) != n for ref in prepared):
            raise InputError(f"{hypothesis.name}: {n} segments, references have "
                             f"{', '.join(str(len(r.keys)) for r in prepared)}")
        out = {v: np.zeros(n) for v in self.variants}
        for i, sentence in enumerate(sentences):
            hkey = self._key(sentence)
            self._counts(hkey, prepared, i)
            for m, prefix in enumerate(("CESM", "CESM-anyroot")):
                best = max(((f_measure(self._cross[(ref.keys[i], hkey)][m], self._self[hkey][m],
                                       self._self[ref.keys[i]][m]), self._self[ref.keys[i]][m]) for ref in prepared),
                           key=_best_first, default=((0.0, 0.0, 0.0), 0.0))
                out[prefix + "-P"][i], out[prefix + "-R"][i], out[prefix][i] = best[0]
        unscored = int(np.isnan(out["CESM-anyroot"]).sum())
        if unscored:
            LOG.warning("CESM: %d segment(s) of %s over the DP bound of %d cells (trees of thousands "
                        "of words) scored NaN", unscored, hypothesis.name, MAX_WORK)
        return out

    def score(self, hypothesis: Side, prepared: list[_Reference], documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Segment scores; document and system scores are their means (paper, Table 1)."""
        segments = self.segment_scores(hypothesis, prepared)
        return {v: mean_score_set(segments[v], documents) for v in variants}
