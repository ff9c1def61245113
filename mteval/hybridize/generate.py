"""Hybridization of syntactic equivalents into new references (Wang et al. 2009, Sec. 3).

For reference r_i of a segment with tree root root_i, the extended set is
R' = union_i Equ(root_i), de-duplicated (formula (1)), where

    Equ(nt) = {Seg(nt)} + {Seg(nt') : <nt, nt'> an equivalent pair, any other reference}
              + Equ(child_1) x Equ(child_2) x ... x Equ(child_m)

(x = Cartesian product with concatenation; a preterminal's product is its own word). Order:
the original references first (their texts as given), then the new sentences in the order of
generation (reference 1 first; within Equ: Seg, the equivalents, then the product in
lexicographic order). Two sentences are duplicates when equal after collapsing whitespace.

Surface: a generated sentence is its words (Wang et al. concatenate sub-segments, i.e. token
sequences) spaced as in the references: between two words that follow each other in one
reference, the whitespace between them there (so "develops," stays unspaced); where the next word
comes from elsewhere (another reference, or another place), the whitespace that preceded it in its
own reference (a space at its text's start), so that "road" + "and" is "road and" and "road" + ","
is "road," (before 2026-11-28 the first word's own following space was used: "roadand"). Seg(nt) lists the
node's words in surface order. A phrase-structure tree projected from a non-projective
dependency parse can have discontinuous constituents; the product is taken only at nodes whose
words, read through the children, are contiguous and in surface order (otherwise concatenating
children would scramble the sentence), so below such a node nothing is recombined there; its
Seg and equivalents still count.

Cap: at most ``cap`` new sentences per segment are kept (the originals always are). Each
intermediate Equ list is cut at ``cap + len(references)`` distinct items, so under the cap the
kept sentences are a deterministic, but not necessarily lexicographically first, subset.
``upper_bound`` is |Equ| summed over the references without de-duplication or cap (exact
integer), the size the product would reach.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain, product
from pathlib import Path as FilePath
from typing import NamedTuple

from mteval.annotate.model import Sentence, Tree
from mteval.errors import ConfigError, InputError
from mteval.hybridize.equivalents import Path, node_at, partners, walk


class Piece(NamedTuple):
    """One word of a reference: its form, the whitespace before and after it there (``""`` or
    ``" "``), and where it is (reference index, 1-based word id)."""

    form: str
    before: str
    after: str
    ref: int
    word: int


Variant = tuple[Piece, ...]  # the words of a (partial) sentence


@dataclass(frozen=True)
class SegmentHybrids:
    """One segment: the extended references (originals first) and their statistics."""

    references: tuple[str, ...]
    n_original: int
    upper_bound: int
    truncated: bool
    pairs: int  # equivalent pairs over all reference pairs
    node_lengths: tuple[tuple[int, ...], ...]  # per reference: words under every tree node
    equivalent_lengths: tuple[tuple[int, ...], ...]  # per reference: words under equivalent nodes
    words: tuple[int, ...] = field(default=())  # per reference: sentence length in words

    @property
    def n_generated(self) -> int:
        """New references (not originals) kept for the segment."""
        return len(self.references) - self.n_original


@dataclass(frozen=True)
class HybridResult:
    """Hybridization of a whole test set (one :class:`SegmentHybrids` per segment)."""

    segments: tuple[SegmentHybrids, ...]
    cap: int

    def __len__(self) -> int:
        return len(self.segments)


def word_pieces(sentence: Sentence, ref: int = 0) -> list[Piece]:
    """Each word of reference ``ref`` with the whitespace before and after it in ``sentence.text``
    (a space when the form cannot be found there, e.g. a contraction split into syntactic words)."""
    text, cursor, spaced = sentence.text, 0, []
    for w in sentence.words:
        at = text.find(w.form, cursor)
        if at < 0 or text[cursor:at].strip():
            spaced.append((w.form, " "))
            continue
        cursor = at + len(w.form)
        gap = len(text[cursor:]) - len(text[cursor:].lstrip())
        spaced.append((w.form, " " if gap else ""))
        cursor += gap
    return [Piece(form, " " if k == 0 else spaced[k - 1][1], after, ref, k + 1)
            for k, (form, after) in enumerate(spaced)]


def render(variant: Variant) -> str:
    """A generated sentence as text (module docstring: the spacing between two words)."""
    out = []
    for k, piece in enumerate(variant):
        if k:
            last = variant[k - 1]
            adjacent = last.ref == piece.ref and last.word + 1 == piece.word
            out.append(last.after if adjacent else piece.before)
        out.append(piece.form)
    return "".join(out).strip()


def _dedup(items: Iterable[Variant], limit: int, seen: set[str] | None = None) -> tuple[list[Variant], bool]:
    """Distinct variants (by collapsed text) in order, at most ``limit``; and whether cut."""
    seen = set() if seen is None else seen
    out: list[Variant] = []
    for item in items:
        key = " ".join(render(item).split())
        if key in seen:
            continue
        if len(out) >= limit:
            return out, True
        seen.add(key)
        out.append(item)
    return out, False


class _Segment:
    """Equ(nt) for the references of one segment (memoised per (reference, path))."""

    def __init__(self, trees: Sequence[Tree], pieces: Sequence[list[Piece]], limit: int) -> None:
        """Trees and word pieces of the segment's references; ``limit`` caps each Equ list."""
        self.trees, self.pieces, self.limit = trees, pieces, limit
        self.partners = partners(trees)
        self.memo: dict[tuple[int, Path], tuple[list[Variant], int]] = {}
        self.truncated = False

    def seg(self, i: int, node: Tree) -> Variant:
        """Seg(nt): the words under a node, with their spacing."""
        return tuple(self.pieces[i][w - 1] for w in sorted(node.leaves()))

    def equ(self, i: int, path: Path) -> tuple[list[Variant], int]:
        """(Equ(nt) capped, |Equ(nt)| upper bound) of reference ``i``'s node at ``path``."""
        if (i, path) in self.memo:
            return self.memo[(i, path)]
        node = node_at(self.trees[i], path)
        own = [self.seg(i, node)]
        own += [self.seg(j, node_at(self.trees[j], p)) for j, p in self.partners[i].get(path, [])]
        bound = len(own)
        candidates: Iterable[Variant] = own
        if node.children and _in_order(node):
            parts = [self.equ(i, path + (k,)) for k in range(len(node.children))]
            combos = (tuple(w for piece in combo for w in piece) for combo in product(*(p[0] for p in parts)))
            candidates = chain(own, combos)
            sub = 1
            for _, b in parts:
                sub *= b
            bound += sub
        items, cut = _dedup(candidates, self.limit)
        self.truncated |= cut
        self.memo[(i, path)] = (items, bound)
        return items, bound


def _in_order(node: Tree) -> bool:
    """Whether a node's words, read through its children, are contiguous and in surface order
    (then so are all its descendants'): only then is concatenating children variants a sentence."""
    leaves = node.leaves()
    return leaves == list(range(leaves[0], leaves[0] + len(leaves))) if leaves else True


def _lengths(tree: Tree, equivalent: set[Path]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Words under every node, and under the nodes that are in an equivalent pair."""
    nodes, equ = [], []
    for path, node in walk(tree):
        n = len(node.leaves())
        nodes.append(n)
        if path in equivalent:
            equ.append(n)
    return tuple(nodes), tuple(equ)


def hybridize_segment(sentences: Sequence[Sentence], trees: Sequence[Tree], cap: int) -> SegmentHybrids:
    """The extended references of one segment (Wang et al. 2009, formula (1))."""
    seg = _Segment(trees, [word_pieces(s, i) for i, s in enumerate(sentences)], cap + len(sentences))
    seen: set[str] = set()
    originals, _ = _dedup(((Piece(s.text, "", "", -1, 0),) for s in sentences), len(sentences) + 1, seen)
    generated: list[Variant] = []
    bound = 0
    for i in range(len(trees)):
        items, b = seg.equ(i, ())
        bound += b
        more, cut = _dedup(items, cap - len(generated), seen)
        seg.truncated |= cut
        generated += more
    lengths = [_lengths(t, set(seg.partners[i])) for i, t in enumerate(trees)]
    texts = [render(v) for v in originals] + [render(v) for v in generated]
    return SegmentHybrids(tuple(texts), len(originals), bound, seg.truncated,
                          sum(len(v) for p in seg.partners for v in p.values()) // 2,
                          tuple(n for n, _ in lengths), tuple(e for _, e in lengths),
                          tuple(len(s.words) for s in sentences))


def hybridize(references: Sequence[Sequence[Sentence]], trees: Callable[[Sentence], Tree],
              cap: int = 100) -> HybridResult:
    """Hybridize a reference set: ``references[k][i]`` is reference ``k`` of segment ``i``
    (parsed), ``trees`` maps a parse to its phrase-structure tree, ``cap`` bounds the new
    references per segment. One :class:`SegmentHybrids` per segment, originals first."""
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise ConfigError(f"hybridization cap must be an integer >= 0, got {cap!r}")
    if not references:
        return HybridResult((), cap)
    n = len(references[0])
    for k, ref in enumerate(references):
        if len(ref) != n:
            raise InputError(f"reference {k + 1} has {len(ref)} segments, reference 1 has {n}")
    segments = []
    for i in range(n):
        sentences = [ref[i] for ref in references]
        segments.append(hybridize_segment(sentences, [trees(s) for s in sentences], cap))
    return HybridResult(tuple(segments), cap)


def write_extended_references(result: HybridResult, out_dir: str | FilePath, prefix: str = "hyb") -> list[FilePath]:
    """Write the extended references as plain-text reference files ``<prefix>.1`` ..
    ``<prefix>.K`` (K = the largest reference count of any segment), one segment a line:
    file k holds the k-th reference of every segment (originals first); a segment with fewer
    than K references repeats them in turn (file k holds reference (k-1) mod n + 1), so that
    each of its references is repeated about equally often. Repeats change no max-over-references
    score (BLEU's clipping, chrF, METEOR); metrics that sum over the references (ROUGE's mode A,
    NIST's information weights) see every reference of the segment with about the same weight.
    Returns the paths written."""
    out = FilePath(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    width = max((len(s.references) for s in result.segments), default=0)
    paths = []
    for k in range(width):
        lines = [s.references[k % len(s.references)] if s.references else "" for s in result.segments]
        path = out / f"{prefix}.{k + 1}"
        path.write_text("".join(" ".join(line.split()) + "\n" for line in lines), encoding="utf-8")
        paths.append(path)
    return paths
