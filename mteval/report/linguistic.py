"""Linguistic error analysis of systems from the parses in the annotation cache (read only): how
much of the references' syntactic and named-entity structure each hypothesis recovers, by label,
in the spirit of compare-mt's label-bucketed analyses (Neubig et al. 2019, "compare-mt: A Tool for
Holistic Comparison of Language Generation Systems", NAACL demo) over UD trees.

Items of a parse (:class:`~mteval.annotate.model.Sentence`), words lower-cased (as the DP family)
unless ``lowercase=False``, as word forms or, with ``items="lemma"``, lemmas:

* ``relation``, per dependency label (UD, subtypes kept, e.g. ``nsubj:pass``): the arcs
  ``(head word, dependent word)`` (``<root>`` for the root's head);
* ``pos``, per UPOS category: the words of that category (DP-Oc's items: a reference word is
  found when the hypothesis has the same word with the same category);
* ``entity``, per entity type (when the parses carry ``NER`` tags): the entities' word forms;
* ``chain``, per length (2 and 3 words): the head-word chains of the DP family (DP-HWCM,
  :func:`~mteval.metrics.dependency.chain_paths`), each word the head of the next.

A reference item is recalled when the hypothesis has the same item in the same label, counts
clipped per segment (``min`` of the two counts). Several references are **pooled**: every
reference parse of a segment adds its items and its clipped matches, so recall = matches / items
summed over segments and references. Segments without the hypothesis's parse or without any
reference parse are skipped and counted (a missing parse of one reference only drops that one).

Two systems: per label the difference of recall (A - B) with a paired bootstrap over segments
(:func:`mteval.meta.stats.paired.paired_bootstrap`: Koehn 2004, sacreBLEU's resampling and two-sided
p-value; 1000 resamples, seed 12345; a resample's recall is its summed matches over its summed
items), flagged at p <= 0.05 (uncorrected; the Holm-adjusted p-value over all labels is given
too), with example segments where one system recovers an item of the label that the other misses.
The p-value counts resampled differences that tie the observed one as extreme (``count_ties``,
Riezler & Maxwell's rule for discrete statistics): recall differences are discrete, and a label
on which both systems recover the same items in every segment would get ``p = 1 / (n + 1)`` under
sacreBLEU's strict rule (a zero difference flagged as significant); with ties counted it gets 1.

A label is tested only where the two systems differ on it (recalled items) in at least
:data:`MIN_DIFFERING` segments; otherwise its p-values are NaN (shown ``-``) and it is not flagged.
Fewer differing segments cannot reach p <= 0.05 under an exact two-sided sign test (6 segments
all one way: 2/64), while the bootstrap gives them its smallest p: a label in one segment only
has a resampled difference of 0 whenever that segment is not drawn, and 1/1001 came out for a
one-item difference (an audit, 2026-11-28: ``cc``, ``ccomp``, ``SYM`` flagged so). Holm's
adjustment runs over the tested labels.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.annotate.layers.entities import entities
from mteval.annotate.model import Sentence, Word
from mteval.errors import ConfigError, InputError, quote
from mteval.meta.stats.clusters import adjust
from mteval.meta.stats.paired import DEFAULT_SEED, MetricInput, paired_bootstrap
from mteval.metrics.dependency import chain_paths, head_word_chains

KINDS = ("relation", "pos", "entity", "chain")
ITEMS = ("form", "lemma")
ROOT = "<root>"
CHAIN_LENGTHS = (2, 3)
UNSET = ("_", "")  # a column the backend left empty
EXAMPLE_ITEMS = 5  # items listed per example
MIN_DIFFERING = 6  # segments where A and B differ on a label before it is tested (module docstring)

Key = tuple[str, str]  # (kind, label)
Bags = dict[Key, Counter[tuple[str, ...]]]
Stats = dict[Key, tuple[int, int]]  # (matched, total)


@dataclass(frozen=True)
class Recall:
    """The recall of one label: reference items, those the hypothesis recovers, their share."""

    kind: str
    label: str
    recalled: int
    total: int
    recall: float


@dataclass(frozen=True)
class SystemRecalls:
    """A system's recall of every label found in the references (module docstring)."""

    segments: int  # segments analysed
    skipped: int  # segments without the hypothesis's parse or any reference parse
    references_missing: int  # reference parses missing among the analysed segments
    items: str  # "form" or "lemma"
    has_entities: bool
    recalls: tuple[Recall, ...]


@dataclass(frozen=True)
class StructureExample:
    """A segment (1-based number) where ``recovered_by`` recovers items of a label that the other
    system misses: those items, the reference holding them, and both hypotheses."""

    segment: int
    recovered_by: str
    items: tuple[str, ...]
    reference: str
    hypothesis_a: str
    hypothesis_b: str


@dataclass(frozen=True)
class LabelDifference:
    """One label, A against B: recalls, difference A - B, its bootstrap interval and p-values."""

    kind: str
    label: str
    total: int
    recalled_a: int
    recalled_b: int
    recall_a: float
    recall_b: float
    diff: float
    low: float
    high: float
    p_value: float
    p_holm: float
    significant: bool
    examples: tuple[StructureExample, ...]


@dataclass(frozen=True)
class LinguisticPair:
    """Every label's recall difference between systems A and B (module docstring)."""

    name_a: str
    name_b: str
    segments: int
    skipped: int
    resamples: int
    seed: int
    alpha: float
    items: str
    differences: tuple[LabelDifference, ...]


def _symbol(word: Word, items: str, lowercase: bool) -> str:
    """A word as an item: its form or lemma (the form when the lemma is unset), lower-cased."""
    text = word.lemma if items == "lemma" and word.lemma not in UNSET else word.form
    return text.lower() if lowercase else text


def sentence_items(sentence: Sentence, items: str = "form", lowercase: bool = True) -> Bags:
    """Every item of a parse by (kind, label) (module docstring)."""
    words = sentence.words
    symbols = [ROOT] + [_symbol(w, items, lowercase) for w in words]
    out: Bags = defaultdict(Counter)
    for w in words:
        if w.deprel not in UNSET:
            out[("relation", w.deprel)][(symbols[w.head], symbols[w.id])] += 1
        if w.upos not in UNSET:
            out[("pos", w.upos)][(symbols[w.id],)] += 1
    for e in entities(sentence):
        text = " ".join(words[i - 1].form.lower() if lowercase else words[i - 1].form for i in e.word_ids())
        out[("entity", e.type)][(text,)] += 1
    if any(w.deprel not in UNSET for w in words):
        paths = chain_paths(len(words), sentence.children(), max(CHAIN_LENGTHS))
        for length, chain in head_word_chains(symbols, paths):
            if int(length) in CHAIN_LENGTHS:
                out[("chain", f"{length} words")][chain] += 1
    return dict(out)


def shown(key: Key, item: tuple[str, ...]) -> str:
    """An item as the report writes it."""
    kind, label = key
    if kind == "relation":
        return f"{item[0]} -{label}-> {item[1]}"
    if kind == "pos":
        return f"{item[0]}/{label}"
    if kind == "entity":
        return f"{item[0]} [{label}]"
    return " > ".join(item)


def segment_stats(hyp: Bags, refs: Sequence[Bags]) -> Stats:
    """(clipped matches, reference items) per label, pooled over the references."""
    out: dict[Key, list[int]] = {}
    for ref in refs:
        for key, bag in ref.items():
            found = out.setdefault(key, [0, 0])
            found[0] += sum((bag & hyp.get(key, Counter())).values())
            found[1] += sum(bag.values())
    return {key: (m, t) for key, (m, t) in out.items()}


def _check(hyps: Sequence[Sequence[Sentence | None]], refs: Sequence[Sequence[Sentence | None]], items: str) -> None:
    """One-line errors for inputs no analysis can use."""
    if items not in ITEMS:
        raise ConfigError(f"unknown item {quote(items)}: choose one of {', '.join(ITEMS)}")
    if not refs:
        raise InputError("a linguistic analysis needs at least one reference side")
    n = len(hyps[0])
    sizes = [len(h) for h in hyps] + [len(r) for r in refs]
    if any(size != n for size in sizes):
        raise InputError(f"linguistic analysis: the parses differ in segment count: {sizes}")


_MEMO: dict[tuple[int, str, bool], tuple[Sentence, Bags]] = {}  # id(parse) -> (the parse, kept alive; its items)
MEMO_SIZE = 200_000  # parses whose items are kept (a report reads each reference once per system)


def _items_of(parse: Sentence, items: str, lowercase: bool) -> Bags:
    """:func:`sentence_items` of a parse, once per parse object: the reference sides are read
    again for every system (the entry holds the parse, so its id is not reused meanwhile)."""
    key = (id(parse), items, lowercase)
    found = _MEMO.get(key)
    if found is None:
        if len(_MEMO) >= MEMO_SIZE:
            _MEMO.clear()
        found = _MEMO[key] = (parse, sentence_items(parse, items, lowercase))
    return found[1]


def forget() -> None:
    """Drop the remembered items (and the parses they keep alive)."""
    _MEMO.clear()


def _bags(parses: Sequence[Sentence | None], items: str, lowercase: bool) -> list[Bags | None]:
    """The items of every parse (None where it is missing)."""
    return [None if p is None else _items_of(p, items, lowercase) for p in parses]


def _rows(hyps: Sequence[list[Bags | None]], refs: Sequence[list[Bags | None]]) -> tuple[list[int], int]:
    """The segments every hypothesis and at least one reference has a parse of, and how many of
    their reference parses are missing."""
    rows, missing = [], 0
    for s in range(len(hyps[0])):
        have = sum(side[s] is not None for side in refs)
        if have and all(h[s] is not None for h in hyps):
            rows.append(s)
            missing += len(refs) - have
    return rows, missing


def _order(key: Key, total: int) -> tuple[int, int, str]:
    """Kinds in :data:`KINDS` order, then the most frequent labels first."""
    return KINDS.index(key[0]), -total, key[1]


def _present(refs: Sequence[list[Bags | None]], s: int) -> list[Bags]:
    """The reference items of segment ``s`` that were parsed."""
    return [side[s] for side in refs if side[s] is not None]  # type: ignore[misc]


def system_recalls(parses_hyp: Sequence[Sentence | None], parses_refs: Sequence[Sequence[Sentence | None]],
                   items: str = "form", lowercase: bool = True) -> SystemRecalls:
    """A system's recall of the references' relations, categories, entities and chains by label
    (module docstring). ``parses_refs``: one sequence of segment parses per reference side; None:
    the parse is not in the cache."""
    _check([parses_hyp], parses_refs, items)
    hyp = _bags(parses_hyp, items, lowercase)
    refs = [_bags(side, items, lowercase) for side in parses_refs]
    rows, missing = _rows([hyp], refs)
    totals: dict[Key, list[int]] = {}
    for s in rows:
        for key, (m, t) in segment_stats(hyp[s] or {}, _present(refs, s)).items():
            found = totals.setdefault(key, [0, 0])
            found[0] += m
            found[1] += t
    ordered = sorted(((k, m, t) for k, (m, t) in totals.items() if t > 0), key=lambda r: _order(r[0], r[2]))
    return SystemRecalls(len(rows), len(parses_hyp) - len(rows), missing, items,
                         any(k[0] == "entity" for k, _, _ in ordered),
                         tuple(Recall(k[0], k[1], m, t, m / t) for k, m, t in ordered))


def _recall(sums: np.ndarray) -> np.ndarray:
    """Recall of summed (matches, items) rows (0 for rows without items)."""
    return np.where(sums[:, 1] > 0, sums[:, 0] / np.maximum(sums[:, 1], 1.0), 0.0)


def _inputs(keys: Sequence[Key], per_segment: Sequence[tuple[Stats, Stats]]) -> dict[str, MetricInput]:
    """Every label's (matches, items) per system and segment, as bootstrap inputs."""
    out = {}
    for i, key in enumerate(keys):
        stats = np.array([[stats.get(key, (0, 0)) for stats in side]
                          for side in ([a for a, _ in per_segment], [b for _, b in per_segment])], dtype=float)
        out[str(i)] = MetricInput(stats.reshape(2, len(per_segment), 2), _recall)
    return out


def _won_items(key: Key, winner: Bags, loser: Bags, refs: Sequence[Bags]) -> tuple[list[str], int]:
    """The items of ``key`` the winner recovers and the loser misses, and the first reference
    holding one (its index in ``refs``; -1 when none)."""
    found: list[str] = []
    first = -1
    for r, ref in enumerate(refs):
        bag = ref.get(key, Counter())
        won = (bag & winner.get(key, Counter())) - (bag & loser.get(key, Counter()))
        if won and first < 0:
            first = r
        found += [shown(key, item) for item in sorted(won) if shown(key, item) not in found]
    return found, first


@dataclass(frozen=True)
class _Pair:
    """What the examples of a pair read: both systems' items and texts, the references', the rows."""

    names: tuple[str, str]
    hyps: tuple[list[Bags | None], list[Bags | None]]
    texts: tuple[Sequence[Sentence | None], Sequence[Sentence | None]]
    refs: list[list[Bags | None]]
    ref_texts: Sequence[Sequence[Sentence | None]]
    rows: list[int]
    numbers: Sequence[int]


def label_examples(pair: _Pair, key: Key, per_segment: Sequence[tuple[Stats, Stats]], winner: int,
                   count: int) -> tuple[StructureExample, ...]:
    """The ``count`` segments where ``winner`` (0: A, 1: B) recovers the most more items of
    ``key`` than the other system (ties in segment order), with the items it alone recovers."""
    gain = [stats[winner].get(key, (0, 0))[0] - stats[1 - winner].get(key, (0, 0))[0] for stats in per_segment]
    order = sorted((k for k, g in enumerate(gain) if g > 0), key=lambda k: -gain[k])[:count]
    out = []
    for k in order:
        s = pair.rows[k]
        present = [r for r in range(len(pair.refs)) if pair.refs[r][s] is not None]
        found, first = _won_items(key, pair.hyps[winner][s] or {}, pair.hyps[1 - winner][s] or {},
                                  [pair.refs[r][s] or {} for r in present])
        reference = pair.ref_texts[present[first]][s] if first >= 0 else None
        a, b = (pair.texts[0][s], pair.texts[1][s])
        out.append(StructureExample(int(pair.numbers[s]), pair.names[winner], tuple(found[:EXAMPLE_ITEMS]),
                                    reference.text if reference is not None else "",
                                    a.text if a is not None else "", b.text if b is not None else ""))
    return tuple(out)


def pair_differences(name_a: str, name_b: str, parses_a: Sequence[Sentence | None],
                     parses_b: Sequence[Sentence | None], parses_refs: Sequence[Sequence[Sentence | None]], *,
                     items: str = "form", lowercase: bool = True, resamples: int = 1000, seed: int = DEFAULT_SEED,
                     alpha: float = 0.05, examples: int = 3,
                     segment_numbers: Sequence[int] | None = None) -> LinguisticPair:
    """Per label, recall of A minus recall of B over the segments both have parses of, with a paired
    bootstrap over those segments (module docstring); examples for the significant labels (when
    none is, for the three largest differences). ``segment_numbers``: shown numbers (default 1..n)."""
    _check([parses_a, parses_b], parses_refs, items)
    bags = (_bags(parses_a, items, lowercase), _bags(parses_b, items, lowercase))
    refs = [_bags(side, items, lowercase) for side in parses_refs]
    rows, _ = _rows(bags, refs)
    numbers = list(segment_numbers) if segment_numbers is not None else list(range(1, len(parses_a) + 1))
    per_segment = [(segment_stats(bags[0][s] or {}, _present(refs, s)),
                    segment_stats(bags[1][s] or {}, _present(refs, s))) for s in rows]
    pair = _Pair((name_a, name_b), bags, (parses_a, parses_b), refs, parses_refs, rows, numbers)
    found = _differences(pair, per_segment, resamples, seed, alpha, examples) if rows else ()
    return LinguisticPair(name_a, name_b, len(rows), len(parses_a) - len(rows), resamples, seed, alpha, items, found)


def differing_segments(key: Key, per_segment: Sequence[tuple[Stats, Stats]]) -> int:
    """The segments where the two systems recall a different number of the label's items."""
    return sum(a.get(key, (0, 0))[0] != b.get(key, (0, 0))[0] for a, b in per_segment)


def _differences(pair: _Pair, per_segment: Sequence[tuple[Stats, Stats]], resamples: int, seed: int, alpha: float,
                 examples: int) -> tuple[LabelDifference, ...]:
    """Every label's difference, bootstrap interval, p-values and examples."""
    totals: Counter[Key] = Counter()
    for stats, _ in per_segment:
        totals.update({key: t for key, (_, t) in stats.items()})
    keys = sorted((k for k, t in totals.items() if t > 0), key=lambda k: _order(k, totals[k]))
    if not keys:
        return ()
    tests = paired_bootstrap(_inputs(keys, per_segment), pair.names, n=resamples, seed=seed, alpha=alpha,
                             count_ties=True)
    tested = np.array([differing_segments(key, per_segment) >= MIN_DIFFERING for key in keys])
    p_values = np.where(tested, [tests[str(i)].p_value[0, 1] for i in range(len(keys))], np.nan)
    holm = np.full(len(keys), np.nan)
    if tested.any():
        holm[tested] = adjust(p_values[tested], "holm")
    diffs = np.array([tests[str(i)].diff[0, 1] for i in range(len(keys))])
    chosen = set(np.flatnonzero(p_values <= alpha)) or set(np.argsort(-np.abs(diffs), kind="stable")[:3])
    out = []
    for i, key in enumerate(keys):
        c = tests[str(i)]
        matched = [sum(stats[side].get(key, (0, 0))[0] for stats in per_segment) for side in (0, 1)]
        shown_examples = (label_examples(pair, key, per_segment, 0 if diffs[i] > 0 else 1, examples)
                          if i in chosen and diffs[i] != 0 else ())
        out.append(LabelDifference(key[0], key[1], int(totals[key]), matched[0], matched[1], float(c.score[0]),
                                   float(c.score[1]), float(diffs[i]), float(c.diff_low[0, 1]),
                                   float(c.diff_high[0, 1]), float(p_values[i]), float(holm[i]),
                                   bool(p_values[i] <= alpha), shown_examples))
    return tuple(out)
