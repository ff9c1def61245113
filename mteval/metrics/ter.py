"""TER, translation edit rate with tercom's shift heuristics, as sacreBLEU 2.6.0's ``TER()`` computes it.

Snover et al. (2006), "A study of translation edit rate with targeted human annotation", AMTA, §2:
``TER = (insertions + deletions + substitutions + shifts) / average number of reference words``.
The minimum over shift sequences is approximated greedily as tercom does: repeatedly apply the
block shift that reduces the (beam-limited) word edit distance most, ranked by gain, then length,
then earliest hypothesis position, then earliest target position; shifts of at most 10 words,
at most 50 positions away, only of mis-aligned words onto mis-aligned reference words, and at most
1000 candidate shifts per segment. The edit distance is a Levenshtein distance restricted to a beam
of 25 cells around the length-ratio diagonal, preferring match/substitution, then deletion, then
insertion on ties (this decides the alignment and so which shifts are tried).

Defaults as sacreBLEU: lower-cased (``case_sensitive=False``), whitespace tokenisation, no
normalisation, punctuation kept. Multiple references: the fewest edits over the references, divided
by the average reference length. Scores on sacreBLEU's 0-100 scale; ``TER`` is an error rate
(lower is better, may exceed 100) and ``-TER`` (Asiya's name) is its negation. sacreBLEU's other
options are parameters of the names (``TER(normalized=yes)``; :mod:`mteval.metrics.parameters`):
``normalized``, ``no_punct`` and ``asian_support`` select tercom's normaliser
(:func:`mteval.metrics.sacre_tokenizers.tercom`), ``case_sensitive=yes`` keeps case whatever the
experiment's ``case`` (``no`` follows it: lower-cased unless ``case: cs``).

Statistics per segment: ``[edits, average reference length]``. Edit counts are cached per unique
(hypothesis, reference) word-sequence pair, so references shared by several reference sets and
repeated segments are computed once.

Memory is bounded per segment (a 5,000-word pair peaks under 100 MB; it needed more than 23 GB when
whole matrix rows were kept): matrix rows keep only their beam cells, the prefix cache of rows is
capped at ``MAX_CACHE_CELLS`` cells, and a candidate shift's distance stops as soon as it is known
exactly (see :class:`BeamEditDistance`). None of this changes a number: scores equal sacreBLEU's.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from rapidfuzz.distance import Levenshtein

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricInfo, ScoreSet, Side, StatsFamily, scores_from_stats_matrix
from mteval.metrics.parameters import Parameter
from mteval.metrics.registry import register
from mteval.metrics.sacre_tokenizers import tercom
from mteval.metrics.segment_cache import PAIR_CACHE_LIMIT, SegmentCache

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000
_CHECK_EVERY = 4  # BeamEditDistance.distance compares rows with the base's fully every 4th row
MAX_CACHE_CELLS = 1_000_000  # beam cells kept in BeamEditDistance's prefix cache (about 50 MB at most)
_INF = 10 ** 16
# Edit operations (rewriting the hypothesis into the reference).
_NOP, _SUB, _DEL, _INS = 0, 1, 2, 3  # DEL consumes a hypothesis word, INS a reference word

Words = tuple[int, ...]
Row = tuple[int, list[int], list[int]]  # first column of the beam, costs, operations


def _beam(n_hyp: int, n_ref: int) -> tuple[float, int]:
    """Length ratio and beam half-width of tercom's pseudo-diagonal band."""
    ratio = n_ref / n_hyp if n_hyp else 1
    return ratio, (math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH)


def _full_beam(n_hyp: int, n_ref: int) -> bool:
    """Whether the band covers every cell of rows 1..n_hyp-1 (the last row is always full)."""
    if n_hyp < 2:
        return True
    ratio, beam = _beam(n_hyp, n_ref)
    return math.floor((n_hyp - 1) * ratio) - beam <= 0 and math.floor(ratio) + beam >= n_ref + 1


class BeamEditDistance:
    """Beam-limited word Levenshtein distance to one reference, with a bounded prefix cache of rows.

    Memory is bounded per segment: a matrix row keeps only the cells of its beam (``Row``: first
    column, costs, operations; cells outside it are infinite, as in tercom's band), so one call
    holds O(n_hyp x beam) cells; the prefix trie of rows reused across candidate shifts (rows depend
    only on the hypothesis prefix and its total length, constant while shifting) holds at most
    ``MAX_CACHE_CELLS`` cells: a row that would pass that budget is not cached, except the rows of
    the hypothesis being shifted (the *base*, ``keep=True``), which replace the whole cache then.
    This is sacreBLEU's ``_MAX_CACHE_SIZE`` trie with full rows replaced by beam rows. Neither the
    cache nor :meth:`distance`'s early stop changes a number: both give the exact beam distance.
    """

    def __init__(self, ref: Words) -> None:
        self.ref = ref
        self.n_ref = len(ref)
        self.first: Row = (0, list(range(self.n_ref + 1)), [_INS] * (self.n_ref + 1))
        self.cache: dict[int, Any] = {}
        self.cells = 0
        self.base: list[Row] = []

    def __call__(self, hyp: Words, keep: bool = False) -> tuple[int, list[int]]:
        """Edit distance and the operation trace (list of ``_NOP/_SUB/_DEL/_INS``).

        ``keep``: ``hyp`` is the new base (its rows are cached, and :meth:`distance` compares with them).
        """
        rows = self._lookup(hyp)
        start = len(rows) - 1
        self._fill(hyp, rows, len(hyp))
        self._store(hyp, rows, start, keep)
        if keep:
            self.base = rows
        return _final(rows[-1], self.n_ref), self._trace(rows)

    def distance(self, hyp: Words, same_from: int, cap: int) -> int:
        """Edit distance of a candidate equal to the base from word ``same_from`` on, if at most
        ``cap``; otherwise some number above ``cap`` (the candidate cannot win then).

        From a row at or after ``same_from`` on, both hypotheses go through the same (min, +) steps,
        so if that row is the base's row plus ``d`` on every finite cell (with the same infinite
        cells), ``d`` between ``lo`` and ``hi``, the distance is between the base's plus ``lo`` and
        plus ``hi``: exact when ``lo == hi``, above ``cap`` when the base's plus ``lo`` is.
        """
        base = self.base
        base_score = _final(base[-1], self.n_ref)
        rows = self._lookup(hyp)
        start = len(rows) - 1
        self._fill(hyp, rows, min(same_from - 1, len(hyp)))  # rows before same_from cannot be compared
        for i in range(same_from, len(hyp) + 1):
            if i >= len(rows):
                self._fill(hyp, rows, i)
            if rows[i][1] == base[i][1] and rows[i][0] == base[i][0]:
                offsets: tuple[int, int] | None = (0, 0)
            elif (i - same_from) % _CHECK_EVERY == 0:
                offsets = _offsets(rows[i], base[i])
            else:
                continue
            if offsets is not None and (offsets[0] == offsets[1] or base_score + offsets[0] > cap):
                self._store(hyp[:i], rows, start, False)
                return base_score + offsets[0]
        self._store(hyp, rows, start, False)
        return _final(rows[-1], self.n_ref)

    def _lookup(self, hyp: Words) -> list[Row]:
        """The cached rows of the longest cached prefix of ``hyp`` (with the first row)."""
        rows = [self.first]
        node = self.cache
        for word in hyp:
            hit = node.get(word)
            if hit is None:
                break
            node, row = hit
            rows.append(row)
        return rows

    def _store(self, hyp: Words, rows: list[Row], start: int, keep: bool) -> None:
        """Cache rows ``start+1 .. len(hyp)`` of ``hyp`` within the budget (all of them, if ``keep``)."""
        if start >= len(hyp) and not keep:
            return  # all cached already
        new_cells = sum(len(row[1]) for row in rows[start + 1:len(hyp) + 1])
        if self.cells + new_cells > MAX_CACHE_CELLS:
            if not keep:
                return
            self.cache, self.cells, start = {}, 0, 0
            new_cells = sum(len(row[1]) for row in rows[1:len(hyp) + 1])
        self.cells += new_cells
        node = self.cache
        for i in range(start):
            node = node[hyp[i]][0]
        for i in range(start, len(hyp)):
            child: dict[int, Any] = {}
            node[hyp[i]] = (child, rows[i + 1])
            node = child

    def _fill(self, hyp: Words, rows: list[Row], stop: int) -> None:
        """Append rows ``len(rows) .. stop`` inside the beam (tercom's pseudo-diagonal)."""
        n_ref, ref, n_hyp = self.n_ref, self.ref, len(hyp)
        ratio, beam = _beam(n_hyp, n_ref)
        nop, sub, delete, insert = _NOP, _SUB, _DEL, _INS
        for i in range(len(rows), stop + 1):
            diag = math.floor(i * ratio)
            lo = max(0, diag - beam)
            hi = n_ref + 1 if i == n_hyp else min(n_ref + 1, diag + beam)
            first = max(lo, 1)  # columns first-1 .. hi-1 of the previous row are read
            start, previous = rows[i - 1][0], rows[i - 1][1]
            if start <= first - 1 and hi <= start + len(previous):  # the usual case: all inside its beam
                prev, o = previous, -start  # column c is prev[c + o]
            else:
                prev, o = _window(rows[i - 1], first - 1, hi), 1 - first  # infinite outside its beam
            cost: list[int] = []
            ops: list[int] = []
            left = _INF  # this row's cost one column to the left (infinite left of the beam)
            if lo == 0:
                left = prev[o] + 1
                cost.append(left)
                ops.append(delete)
            word = hyp[i - 1]
            add_cost, add_op = cost.append, ops.append
            cells = zip(ref[first - 1:hi - 1], prev[first - 1 + o:hi - 1 + o], prev[first + o:hi + o], strict=False)
            for r, best, up in cells:
                if word == r:  # ties: match/substitution, then deletion, then insertion
                    op = nop
                else:
                    best += 1
                    op = sub
                up += 1
                if up < best:
                    best, op = up, delete
                left += 1
                if left < best:
                    best, op = left, insert
                add_cost(best)
                add_op(op)
                left = best
            rows.append((lo, cost, ops))

    def _trace(self, rows: list[Row]) -> list[int]:
        """Operations along the best path, from the start (it stays in the beam: its cells are finite)."""
        i, j = len(rows) - 1, self.n_ref
        trace = []
        while i > 0 or j > 0:
            lo, _, ops = rows[i]
            if j < lo:
                raise AssertionError(f"TER trace left the beam at row {i}, column {j}")
            op = ops[j - lo]
            trace.append(op)
            if op == _NOP or op == _SUB:
                i -= 1
                j -= 1
            elif op == _INS:
                j -= 1
            else:
                i -= 1
        trace.reverse()
        return trace


def _final(row: Row, n_ref: int) -> int:
    """The cost at the last column of a row."""
    return row[1][n_ref - row[0]]


def _offsets(row: Row, base: Row) -> tuple[int, int] | None:
    """Least and greatest ``row - base`` over finite cells, None unless both rows are infinite alike."""
    if row[0] != base[0] or len(row[1]) != len(base[1]):
        return None
    cost, other = row[1], base[1]
    if cost == other:
        return 0, 0
    if max(cost) >= _INF or max(other) >= _INF:
        if any((x >= _INF) != (y >= _INF) for x, y in zip(cost, other, strict=True)):
            return None
        diffs = [x - y for x, y in zip(cost, other, strict=True) if x < _INF]
        return (min(diffs), max(diffs)) if diffs else None
    diffs = list(map(operator.sub, cost, other))
    return min(diffs), max(diffs)


def _window(row: Row, lo: int, hi: int) -> list[int]:
    """Costs of ``row`` at columns ``lo .. hi-1``, infinite outside the row's beam."""
    start, cost = row[0], row[1]
    end = start + len(cost)
    if lo >= start and hi <= end:
        return cost[lo - start:hi - start]
    inner = cost[max(lo, start) - start:max(min(hi, end), start) - start] if lo < end and hi > start else []
    before = min(max(start - lo, 0), hi - lo)
    return [_INF] * before + inner + [_INF] * (hi - lo - before - len(inner))


def _alignment(trace: list[int]) -> tuple[dict[int, int], list[int], list[int]]:
    """Reference-to-hypothesis positions and error flags of both sides, from an edit trace."""
    pos_h = pos_r = -1
    align: dict[int, int] = {}
    hyp_err: list[int] = []
    ref_err: list[int] = []
    for op in trace:
        if op == _NOP or op == _SUB:
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            hyp_err.append(op)
            ref_err.append(op)
        elif op == _DEL:
            pos_h += 1
            hyp_err.append(1)
        else:
            pos_r += 1
            align[pos_r] = pos_h
            ref_err.append(1)
    return align, ref_err, hyp_err


def _shift(words: Words, start: int, length: int, target: int) -> Words:
    """Move ``words[start:start+length]`` to before position ``target`` (sacreBLEU's convention)."""
    if target < start:
        return words[:target] + words[start:start + length] + words[target:start] + words[start + length:]
    if target > start + length:
        return words[:start] + words[start + length:target] + words[start:start + length] + words[target:]
    return (words[:start] + words[start + length:length + target] + words[start:start + length]
            + words[length + target:])


def _matching_blocks(hyp: Words, ref: Words) -> Iterator[tuple[int, int, int]]:
    """(hyp start, ref start, length) of equal word blocks, tercom's shift candidates, in its order."""
    n_h, n_r = len(hyp), len(ref)
    for sh in range(n_h):
        word = hyp[sh]
        for sr in range(max(0, sh - MAX_SHIFT_DIST), min(n_r, sh + MAX_SHIFT_DIST + 1)):
            if ref[sr] != word:
                continue
            length = 0
            while length < MAX_SHIFT_SIZE and hyp[sh + length] == ref[sr + length]:
                length += 1
                yield sh, sr, length
                if sh + length == n_h or sr + length == n_r:
                    break


def _needed_gain(best: tuple[int, int, int, int] | None, rank: tuple[int, int, int]) -> int:
    """Least gain with which a candidate ranked ``rank`` (length, -start, -target) beats ``best``.

    Only a positive gain is ever applied, so a candidate needs at least 1 (tercom stops at a best
    gain <= 0 whichever candidate it is).
    """
    if best is None:
        return 1
    return best[0] if (best[0], *rank) > best else best[0] + 1


def _best_shift(hyp: Words, ref: Words, dist: BeamEditDistance,
                checked: int) -> tuple[int, Words, int]:
    """The shift that reduces the edit distance most (Snover et al. 2006, §2.1; tercom's ranking)."""
    score, trace = dist(hyp, keep=True)
    align, ref_err, hyp_err = _alignment(trace)
    best: tuple[int, int, int, int] | None = None
    full = _full_beam(len(hyp), len(ref))
    best_words = hyp
    for sh, sr, length in _matching_blocks(hyp, ref):
        if not any(hyp_err[sh:sh + length]) or not any(ref_err[sr:sr + length]):
            continue
        if sh <= align[sr] < sh + length:
            continue
        prev = -1
        for offset in range(-1, length):
            if sr + offset == -1:
                idx = 0
            elif sr + offset in align:
                idx = align[sr + offset] + 1
            else:
                break
            if idx == prev:
                continue
            prev = idx
            shifted = _shift(hyp, sh, length, idx)
            checked += 1
            cost = Levenshtein.distance(shifted, ref)  # exact; a lower bound of the beam distance
            if not full:
                need = _needed_gain(best, (length, -sh, -idx))
                if score - cost < need:
                    continue  # cannot beat the best shift even at the lower bound
                cost = dist.distance(shifted, max(sh, idx) + length, score - need)
            key = (score - cost, length, -sh, -idx)
            if key[0] > 0 and (best is None or key > best):
                best, best_words = key, shifted
        if checked >= MAX_SHIFT_CANDIDATES:
            break
    return (0, hyp, checked) if best is None else (best[0], best_words, checked)


def ter_edits(hyp: Words, ref: Words) -> int:
    """Number of edits (shifts + beam edit distance) turning ``hyp`` into ``ref`` (tercom's TER numerator)."""
    if not ref:
        return len(hyp)
    dist = BeamEditDistance(ref)
    shifts, checked = 0, 0
    while True:
        gain, shifted, checked = _best_shift(hyp, ref, dist, checked)
        if checked >= MAX_SHIFT_CANDIDATES or gain <= 0:
            break
        shifts += 1
        hyp = shifted
    return shifts + dist(hyp)[0]


@dataclass(frozen=True)
class Settings:
    """sacreBLEU's ``TER`` options (its ``TercomTokenizer``'s): lower-cased unless ``case_sensitive``."""

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False

    @property
    def plain(self) -> bool:
        """Only case may differ from sacreBLEU's defaults: whitespace words, no normalisation."""
        return not (self.normalized or self.no_punct)


class _Tokens:
    """Word-id sequences per unique string under some :class:`Settings`, computed once; ``ids``
    (word -> id) may be shared by several, so that equal word sequences have equal ids."""

    def __init__(self, settings: Settings, ids: dict[str, int] | None = None) -> None:
        self.settings = settings
        self.ids: dict[str, int] = {} if ids is None else ids
        self.cache: SegmentCache[str, Words] = SegmentCache()  # bounded (segment_cache)
        self.reference_cache: SegmentCache[str, Words] = SegmentCache()

    def __call__(self, text: str) -> Words:
        """Word ids of one hypothesis segment: sacreBLEU's ``_preprocess_segment`` (tercom's tokenisation
        of the right-stripped line; only lower-casing and a whitespace split by default)."""
        words = self.cache.get(text)
        if words is None:
            words = self.cache[text] = self._ids(self._tokenized(text))  # once: sacreBLEU's hypotheses
        return words

    def reference(self, text: str) -> Words:
        """Word ids of one reference segment. sacreBLEU 2.6.0 preprocesses a reference twice (its
        ``_cache_references`` calls ``_preprocess_segment``, then ``TER._extract_reference_info``
        again), and tercom's normalisation is not idempotent (``he's,`` -> ``he's ,`` -> ``he 's ,``),
        so with ``normalized``/``no_punct`` the reference is tokenised twice, as there (WMT21 ru-en's
        reference B, line 647: 56/90 edits once, sacreBLEU's 55/91 twice). Lower-casing and the
        whitespace split of the defaults are idempotent: one pass."""
        words = self.reference_cache.get(text)
        if words is None:
            twice = self._tokenized(text) if self.settings.plain else self._tokenized(self._tercom(text))
            words = self.reference_cache[text] = self._ids(twice)
        return words

    def _tokenized(self, text: str) -> list[str]:
        s = self.settings
        return (text if s.case_sensitive else text.lower()).split() if s.plain else self._tercom(text).split()

    def _tercom(self, text: str) -> str:
        """sacreBLEU's ``_preprocess_segment`` with these settings: tercom on the right-stripped line."""
        s = self.settings
        return tercom(text.rstrip(), s.normalized, s.no_punct, s.asian_support, s.case_sensitive)

    def _ids(self, tokens: list[str]) -> Words:
        return tuple(self.ids.setdefault(w, len(self.ids)) for w in tokens)


_YES_NO = ("yes", "no")


@register
class TER(StatsFamily):
    """Translation edit rate (tercom-compatible, sacreBLEU 2.6.0 ``TER()`` defaults); ``-TER`` negated;
    sacreBLEU's other options as parameters (``TER(normalized=yes)``)."""

    family = "TER"
    version = "2"  # 2: references tokenised twice with normalized/no_punct, as sacreBLEU 2.6.0 (_Tokens.reference)
    variants = ("TER", "-TER")
    parameters: ClassVar[dict[str, Parameter]] = {
        "normalized": Parameter("normalized", "no", choices=_YES_NO,
                                help="tercom's normalisation: punctuation tokenised (--ter-normalized)"),
        "no_punct": Parameter("no_punct", "no", choices=_YES_NO, help="punctuation removed (--ter-no-punct)"),
        "asian_support": Parameter("asian_support", "no", choices=_YES_NO,
                                   help="CJK characters with normalized, CJK punctuation with no_punct "
                                   "(--ter-asian-support)"),
        "case_sensitive": Parameter("case_sensitive", "no", choices=_YES_NO,
                                    help="not lower-cased (--ter-case-sensitive); no: the experiment's case, "
                                    "lower-cased by default"),
    }
    # Time on one pair grows about quadratically (shift search over beam rows): one pair of real
    # words (issue 29, docs/reliability.md) took 2.1 s at 5,000 words, 10.2 s at 15,000 and
    # 17-23 s at 20,000 on the shared 2-core machine; a longer segment is refused.
    max_segment_words = 15_000

    def __init__(self, case_sensitive: bool = False, **options: Any) -> None:
        super().__init__(case_sensitive=case_sensitive, **options)
        self._ids: dict[str, int] = {}
        self._tokenizers: dict[Settings, _Tokens] = {}
        self._tokens = self.tokens_for(Settings(case_sensitive=case_sensitive))
        self._edits: SegmentCache[tuple[Words, Words], int] = SegmentCache(PAIR_CACHE_LIMIT)

    def tokens_for(self, settings: Settings) -> _Tokens:
        """The (cached) tokeniser of some settings; word ids shared by all of them."""
        if settings not in self._tokenizers:
            self._tokenizers[settings] = _Tokens(settings, self._ids)
        return self._tokenizers[settings]

    def settings_of(self, variant: str) -> Settings:
        """The :class:`Settings` of a canonical variant name: ``case_sensitive=yes`` or the
        experiment's ``case: cs`` keeps case."""
        _, values = self.settings(variant)
        return Settings(values["normalized"] == "yes", values["no_punct"] == "yes", values["asian_support"] == "yes",
                        values["case_sensitive"] == "yes" or self.case_sensitive)

    def segmented_scripts(self, variant: str) -> frozenset[str] | None:
        """Han characters are words with ``normalized`` and ``asian_support`` (tercom's kana patterns
        match only a run that starts the line: Japanese is not segmented)."""
        settings = self.settings_of(variant)
        return frozenset({"CJK"}) if settings.normalized and settings.asian_support else frozenset()

    def info(self, variant: str) -> MetricInfo:
        """``TER`` is an error rate >= 0 (0-100 scale, unbounded above); ``-TER`` its negation."""
        if self.settings(variant)[0] == "TER":
            return MetricInfo(variant, self.family, higher_is_better=False, lower_bound=0.0,
                              upper_bound=None, description="translation edit rate x 100 (error)")
        return MetricInfo(variant, self.family, higher_is_better=True, lower_bound=None,
                          upper_bound=0.0, description="negated translation edit rate x 100")

    def signature(self, variant: str) -> str:
        """The common signature; a parametric name's adds every parameter's value, its ``case`` the
        case it is computed in (``case_sensitive=yes`` keeps case whatever the experiment's)."""
        text = super().signature(variant)
        base, values = self.settings(variant)
        if base == variant:
            return text
        used = "cs" if self.settings_of(variant).case_sensitive else "ci"
        text = text.replace(f"|case:{'cs' if self.case_sensitive else 'ci'}|", f"|case:{used}|", 1)
        return text + "".join(f"|{k}:{v}" for k, v in values.items())

    def prepare(self, references: Sequence[Side]) -> _References:
        """The references' texts; their word ids per settings, made when first needed."""
        if not references:
            raise InputError(f"{self.family}: no reference given")
        return _References([r.texts for r in references])

    def edits(self, hyp: Words, ref: Words) -> int:
        """Cached :func:`ter_edits`."""
        key = (hyp, ref)
        found = self._edits.get(key)
        if found is None:
            found = self._edits[key] = ter_edits(hyp, ref)
        return found

    def segment_stats(self, hypothesis: Side, prepared: _References) -> np.ndarray:
        """``[fewest edits over references, average reference length]`` per segment (the plain
        variants' settings: lower-cased unless the experiment is case-sensitive)."""
        return self.statistics(hypothesis, prepared, self._tokens)

    def statistics(self, hypothesis: Side, prepared: _References, tokens: _Tokens) -> np.ndarray:
        """:meth:`segment_stats` under the settings of ``tokens``."""
        stats = np.zeros((len(hypothesis.texts), 2), dtype=np.float64)
        for ref in prepared.texts:
            if len(ref) != len(hypothesis.texts):
                raise InputError(f"{hypothesis.name}: {len(hypothesis.texts)} segments but a reference "
                                 f"has {len(ref)}")
        words = prepared.words(tokens)
        for i, text in enumerate(hypothesis.texts):
            hyp = tokens(text)
            refs = [ref[i] for ref in words]
            stats[i, 0] = min(self.edits(hyp, r) for r in refs)
            stats[i, 1] = sum(len(r) for r in refs) / len(refs)
        return stats

    def score(self, hypothesis: Side, prepared: _References, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Each variant from the statistics of its settings (computed once per settings)."""
        groups: dict[Settings, list[str]] = {}
        for variant in variants:
            groups.setdefault(self.settings_of(variant), []).append(variant)
        out: dict[str, ScoreSet] = {}
        for settings, members in groups.items():
            stats = self.statistics(hypothesis, prepared, self.tokens_for(settings))
            out.update(scores_from_stats_matrix(self, stats, documents, members))
        return out

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """100 x edits / reference length (100 when only the reference is empty, 0 when both are)."""
        stats = np.atleast_2d(stats)
        edits, length = stats[:, 0], stats[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ter = np.where(length > 0, edits / np.where(length > 0, length, 1),
                           np.where(edits > 0, 1.0, 0.0))
        return 100.0 * ter if self.settings(variant)[0] == "TER" else -100.0 * ter


@dataclass
class _References:
    """A reference set's texts, and their word ids per tokeniser (made when first asked)."""

    texts: list[Sequence[str]]
    tokenized: dict[Settings, list[list[Words]]] = field(default_factory=dict)

    def words(self, tokens: _Tokens) -> list[list[Words]]:
        if tokens.settings not in self.tokenized:
            self.tokenized[tokens.settings] = [[tokens.reference(t) for t in ref] for ref in self.texts]
        return self.tokenized[tokens.settings]
