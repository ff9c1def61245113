"""METEOR's paraphrase stage (Denkowski & Lavie 2010/2011: pivot-extracted English paraphrases).

Meteor's ``ParaphraseTransducer`` reads ``paraphrase-en.gz`` (blocks of 3 lines: probability,
phrase 1, phrase 2; the probability is not used for matching) into a trie over phrase 1.
``ParaphraseMatcher`` then makes, for every reference position j and every table phrase 1 that
starts there (shorter first, then in table order), a match with every hypothesis position where
the phrase 2 occurs; and the same with the roles of hypothesis and reference swapped.

We store the table grouped by phrase 1 (``paraphrase-en.grouped.txt.xz``: one line per phrase 1,
``phrase1 TAB phrase2 TAB phrase2 ...``, the phrase 2 list in table order) because it is a quarter
of the size and loads in seconds; :func:`convert_table` makes it from Meteor's file.
"""

from __future__ import annotations

import gzip
import lzma
from functools import cache, lru_cache
from pathlib import Path

from mteval.metrics.meteor.alignment import Match, Stage
from mteval.metrics.meteor.resources import RESOURCES
from mteval.user_cache import derived

TABLE = RESOURCES / "paraphrase-en.grouped.txt.xz"


class ParaphraseTable:
    """Phrase 1 -> its phrase-2 list, in table order."""

    def __init__(self, path: Path = TABLE) -> None:
        self._tails: dict[str, str] = derived("meteor-paraphrase", path, lambda: _read_grouped(path))
        self.max_length = max(k.count(" ") + 1 for k in self._tails)

    @lru_cache(maxsize=500_000)  # noqa: B019 - one table per process (see paraphrase_table)
    def targets(self, phrase: str) -> tuple[tuple[str, ...], ...]:
        """The phrase-2 word sequences of a phrase 1 (empty when it is not in the table)."""
        tail = self._tails.get(phrase)
        return () if tail is None else tuple(tuple(p.split(" ")) for p in tail.split("\t"))

    def paths(self, words: tuple[str, ...], start: int) -> list[tuple[int, tuple[str, ...]]]:
        """(length of phrase 1, phrase 2) for every phrase 1 at ``start``: shorter first, table order."""
        out = []
        for d in range(1, min(self.max_length, len(words) - start) + 1):
            for target in self.targets(" ".join(words[start:start + d])):
                out.append((d, target))
        return out


def _read_grouped(path: Path) -> dict[str, str]:
    """Phrase 1 -> its tab-joined phrase-2 list, from the grouped table (1.5 s: kept in the user
    cache, :mod:`mteval.user_cache`, as a 0.2 s load)."""
    with lzma.open(path, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    return dict(line.split("\t", 1) for line in lines if line)


@cache
def paraphrase_table() -> ParaphraseTable:
    """The shared English paraphrase table (loaded on first use, a few seconds)."""
    return ParaphraseTable()


def _occurrences(words: tuple[str, ...], phrase: tuple[str, ...], first: dict[str, list[int]]) -> list[int]:
    """Start positions of ``phrase`` in ``words``, in increasing order."""
    n = len(phrase)
    return [i for i in first.get(phrase[0], ()) if words[i:i + n] == phrase]


def _first_index(words: tuple[str, ...]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        index.setdefault(w, []).append(i)
    return index


def paraphrase(module: int, stage: Stage) -> None:
    """Add Meteor's paraphrase candidates: reference-anchored pass, then hypothesis-anchored pass."""
    table = paraphrase_table()
    hyp, ref = tuple(stage.hyp), tuple(stage.ref)
    hyp_first, ref_first = _first_index(hyp), _first_index(ref)
    for j in range(len(ref)):
        for d, target in table.paths(ref, j):
            for i in _occurrences(hyp, target, hyp_first):
                stage.add(Match(module, j, d, i, len(target)))
    for i in range(len(hyp)):
        for d, target in table.paths(hyp, i):
            for j in _occurrences(ref, target, ref_first):
                stage.add(Match(module, j, len(target), i, d))


def convert_table(meteor_gz: Path, out_xz: Path) -> None:
    """Make the grouped table from Meteor's ``paraphrase-en.gz`` (keeps the order of phrase 2)."""
    with gzip.open(meteor_gz, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    groups: dict[str, list[str]] = {}
    for k in range(0, len(lines) - 2, 3):
        groups.setdefault(lines[k + 1], []).append(lines[k + 2])
    with lzma.open(out_xz, "wt", encoding="utf-8", preset=9) as f:
        for key in sorted(groups):
            f.write(key + "\t" + "\t".join(groups[key]) + "\n")
